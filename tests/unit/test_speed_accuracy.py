"""The decode-speed model holds its accuracy targets on the published measurements of data/measurements.yml."""

from sizing.views.accuracy import AccuracyMetrics, check_records, enforce_accuracy, metrics, missed_targets


def test_the_accuracy_targets_hold_on_the_measurements(catalog):
    m = enforce_accuracy(catalog)  # floor <= measured on >= 90 %, median |typical/measured - 1| <= 25 %
    assert m.records >= 40
    assert m.floor_at_or_below_measured >= 0.90 and m.median_abs_error <= 0.25


def test_every_record_is_checked_and_unreliable_ones_stay_out_of_the_statistics(catalog):
    checks = check_records(catalog)
    assert [c.id for c in checks] == [m.id for m in catalog.measurements]
    assert all(0 < c.floor < c.typical for c in checks)
    usable = [c for c in checks if c.unreliable is None]
    assert metrics(checks).records == len(usable) < len(checks)


def test_a_missed_target_is_named():
    bad = AccuracyMetrics(
        records=10, median_abs_error=0.3, within_2x=0.8, floor_at_or_below_measured=0.85, median_ratio=1.2
    )
    missed = missed_targets(bad)
    assert len(missed) == 2 and "85.0%" in missed[0] and "30.0%" in missed[1]
    good = AccuracyMetrics(
        records=10, median_abs_error=0.1, within_2x=1.0, floor_at_or_below_measured=0.95, median_ratio=1.0
    )
    assert missed_targets(good) == []


def test_held_out_records_are_judged_apart_and_never_fitted(catalog):
    """Public figures kept out of the fit: checked on request, absent from the build's statistics."""
    held_out = check_records(catalog, catalog.held_out_measurements)
    assert len(held_out) >= 10 and {c.id for c in held_out}.isdisjoint(m.id for m in catalog.measurements)
    fitted_on = {rid for _, a in catalog.assumptions for rid in getattr(a, "fitted_on", ())}
    assert fitted_on.isdisjoint(c.id for c in held_out)
    assert metrics(held_out).within_2x >= 0.9  # the model generalizes, it does not memorize its points
