"""The memory of full-parameter training with Adam, sharded over a node."""

import pytest

from sizing.catalog.units import GIB
from sizing.engine.training import ADAM, sharded_training_fit, training_state_bytes


def test_adam_in_mixed_precision_keeps_16_bytes_per_parameter():
    # BF16 weights 2 + BF16 gradients 2 + FP32 master weights 4 + two FP32 moments 4 + 4 = 16
    assert ADAM.total == 16


def test_a_70b_model_needs_over_a_terabyte_to_train_with_adam(catalog):
    # 70,553,706,496 × 16 B = 1,128,859,303,936 B = 1,051.3 GiB (1.13 TB) before activations
    state = training_state_bytes(catalog.models["llama-3.3-70b"])
    assert state == 1_128_859_303_936
    assert state / GIB == pytest.approx(1051.3, abs=0.05)


def test_sharded_over_8_cards_70b_fits_no_80_or_96_gb_card_but_mistral_24b_fits_both(catalog):
    llama, mistral = catalog.models["llama-3.3-70b"], catalog.models["mistral-small-3-24b"]
    h100, rtx = catalog.nodes["8x-h100-sxm5-80gb"], catalog.nodes["8x-rtx-pro-6000-blackwell"]
    # 70B: 1,051.3 GiB / 8 = 131.4 GiB per card > 79.2 GiB (H100: 81,121 MiB) and > 95.1 GiB (97,397 MiB)
    assert sharded_training_fit(catalog, llama, h100).state_bytes_per_card / GIB == pytest.approx(131.4, abs=0.05)
    assert not sharded_training_fit(catalog, llama, h100).fits
    assert not sharded_training_fit(catalog, llama, rtx).fits
    # 24B: 23,572,403,200 × 16 / 8 = 47,144,806,400 B = 43.9 GiB per card; 79.2 − 43.9 = 35.3 GiB left on an H100
    on_h100 = sharded_training_fit(catalog, mistral, h100)
    assert on_h100.state_bytes_per_card == 47_144_806_400
    assert on_h100.activation_room_bytes / GIB == pytest.approx(35.3, abs=0.05)
    assert sharded_training_fit(catalog, mistral, rtx).activation_room_bytes / GIB == pytest.approx(51.2, abs=0.05)
