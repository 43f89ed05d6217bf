"""$MODEL_PAGES: a build for tests that read no generated page but a sample's makes the generated pages (every
configurator choice, every plan for a common requirement) of the models it names only; unset, every model's, as a
site to publish needs."""

import pytest
from sitebuild import ROOT

from hooks import page_macros
from macros.base.errors import MacroError
from macros.build import SiteBuild
from macros.generated import generated_page_uris


def start(models: list[str] | None) -> SiteBuild:
    return SiteBuild.start(ROOT / "docs", ROOT / "data", models)


def test_the_named_models_get_every_page_of_theirs_and_no_other_model_gets_one(data):
    every = generated_page_uris(data, "fr")
    sample = start(["flux.1-dev", "gpt-oss-20b"]).generated_pages("fr")
    assert sample == [uri for uri in every if uri.split("/")[2].removesuffix(".md") in ("flux.1-dev", "gpt-oss-20b")]
    # FLUX: its page and FP8's; gpt-oss-20b: its page, 7 choices, 4 with an FP8 KV cache, and 8 common plans
    assert len(sample) == 2 + 12 + 8
    assert start(None).generated_pages("fr") == every


def test_a_model_the_catalog_lacks_stops_the_build_naming_the_nearest():
    with pytest.raises(MacroError, match=r"unknown model id 'gpt-oss-20'; did you mean 'gpt-oss-20b'"):
        start(["gpt-oss-20"])


@pytest.mark.parametrize(
    "named, models",
    [
        (None, None),
        ("", None),
        ("gpt-oss-20b", ["gpt-oss-20b"]),
        ("gpt-oss-20b, flux.1-dev", ["gpt-oss-20b", "flux.1-dev"]),
    ],
)
def test_the_hook_reads_the_models_from_the_environment(monkeypatch: pytest.MonkeyPatch, named, models):
    if named is None:
        monkeypatch.delenv("MODEL_PAGES", raising=False)
    else:
        monkeypatch.setenv("MODEL_PAGES", named)
    assert page_macros.model_pages() == models
