"""Comparison statistics against scipy called directly, and hand-built cases."""

import numpy as np
import pytest
from scipy import stats

from metrics.evaluation.stats import (bootstrap_ci, cohens_d, compare_systems, holm, paired_test,
                                      why_undefined, win_tie_loss)

A = np.array([0.20, 0.35, 0.50, 0.10, 0.70, 0.45, 0.30, 0.60, 0.25, 0.40])
B = np.array([0.30, 0.30, 0.65, 0.25, 0.72, 0.55, 0.30, 0.71, 0.40, 0.38])


def test_t_and_wilcoxon_match_scipy():
    t = stats.ttest_rel(B, A)
    assert paired_test(A, B, "t") == pytest.approx((t.statistic, t.pvalue))
    w = stats.wilcoxon(B, A)
    assert paired_test(A, B, "wilcoxon") == pytest.approx((w.statistic, w.pvalue))


def test_randomization_matches_scipy_and_is_seeded():
    expected = stats.permutation_test((A, B), lambda x, y, axis: np.mean(y - x, axis=axis),
                                      vectorized=True, permutation_type="samples",
                                      n_resamples=10_000, rng=np.random.default_rng(7))
    got = paired_test(A, B, "randomization", seed=7)
    assert got == pytest.approx((expected.statistic, expected.pvalue))
    assert paired_test(A, B, "randomization", seed=7) == got


def test_randomization_on_more_queries_uses_the_seed():
    rng = np.random.default_rng(1)
    a, b = rng.random(40), rng.random(40)
    first = paired_test(a, b, "randomization", seed=3)
    assert paired_test(a, b, "randomization", seed=3) == first
    assert paired_test(a, b, "randomization", seed=4)[1] != first[1]


def test_identical_systems():
    # scipy: the t-test of identical samples is NaN (sd 0); Wilcoxon and randomisation give 1
    assert np.isnan(stats.ttest_rel(A, A.copy()).pvalue)
    assert paired_test(A, A.copy(), "t") == (None, None)
    for test in ("wilcoxon", "randomization"):
        assert paired_test(A, A.copy(), test) == (0.0, 1.0)
    assert bootstrap_ci(A - A) == (0.0, 0.0)
    assert cohens_d(A, A.copy()) is None
    assert win_tie_loss(A, A) == (0, len(A), 0)


def test_better_on_every_query():
    better = A + 0.1 + np.linspace(0, 0.05, len(A))
    _, p = paired_test(A, better, "wilcoxon")
    assert p == pytest.approx(2 / 2 ** len(A))     # exact two-sided: only the all-positive sign set
    assert win_tie_loss(A, better) == (len(A), 0, 0)
    low, high = bootstrap_ci(better - A)
    assert 0.1 <= low < high <= 0.15


def test_effect_size_by_hand():
    diff = np.array([1.0, 2.0, 3.0])
    assert cohens_d(np.zeros(3), diff) == pytest.approx(2.0 / 1.0)


def test_bootstrap_matches_scipy():
    diff = B - A
    expected = stats.bootstrap((diff,), np.mean, n_resamples=10_000, method="BCa",
                               rng=np.random.default_rng(11)).confidence_interval
    assert bootstrap_ci(diff, seed=11) == pytest.approx((expected.low, expected.high))


def test_holm_by_hand():
    # sorted p: .01 .02 .04 -> 3·.01=.03, max(.03, 2·.02=.04)=.04, max(.04, 1·.04)=.04
    assert holm([0.04, 0.01, 0.02]) == pytest.approx([0.04, 0.03, 0.04])
    assert holm([0.5, None, 0.6]) == [pytest.approx(1.0), None, pytest.approx(1.0)]


def test_compare_three_systems_applies_holm():
    c = A + 0.2 + np.linspace(0, 0.05, len(A))
    rows = compare_systems({"a": {"m": A}, "b": {"m": B}, "c": {"m": c}}, ["m"], ["t"])
    assert [(r.a, r.b) for r in rows] == [("a", "b"), ("a", "c"), ("b", "c")]
    assert [r.p_holm for r in rows] == pytest.approx(holm([r.p for r in rows]))
    two = compare_systems({"a": {"m": A}, "b": {"m": B}}, ["m"], ["t"])
    assert two[0].p_holm == two[0].p


def test_undefined_queries_are_left_out():
    a = np.array([0.1, np.nan, 0.3, 0.4])
    b = np.array([0.2, 0.5, np.nan, 0.6])
    row = compare_systems({"a": {"m": a}, "b": {"m": b}}, ["m"], ["t"])[0]
    assert row.n == 2 and row.mean_diff == pytest.approx(0.15)


# --- a paired test in words (metrics.explain.verdicts) -----------------------------------------

def _paired(mean_diff, ci, p, p_holm=None, test="t"):
    from metrics.evaluation.stats import PairedTest

    return PairedTest("AP", "A", "B", test, 1.0, p, p if p_holm is None else p_holm, mean_diff,
                      ci, 0.2, 30, 10, 5, 15, 1)


def test_a_test_in_words_as_the_issue_words_it():
    from metrics.explain.verdicts import test_sentence

    assert test_sentence(_paired(0.024, (-0.011, 0.06), 0.34)) == (
        "B is 0.024 AP better than A on average; the 95% interval [−0.011, 0.06] includes 0 "
        "and p = 0.34 (paired t-test): this collection does not show a difference.")
    # worse, and an interval that excludes 0 while p says otherwise: they disagree
    worse = test_sentence(_paired(-0.05, (-0.09, -0.01), 0.2, test="wilcoxon"))
    assert worse.startswith("B is 0.05 AP worse than A on average; the 95% interval "
                            "[−0.09, −0.01] excludes 0 and p = 0.2 (Wilcoxon signed-rank test)")
    assert worse.endswith("the interval and the test disagree: the difference is borderline "
                          "on this collection.")
    holm = test_sentence(_paired(0.1, (0.02, 0.2), 0.01, p_holm=0.03))
    assert "p = 0.03 after Holm's correction" in holm and holm.endswith("shows a difference.")


def test_a_test_in_words_on_the_instruments_sample_agrees_with_scipy():
    from scipy import stats

    from metrics import evaluate
    from metrics.evaluation.stats import compare_systems
    from metrics.explain.samples import load_sample
    from metrics.explain.verdicts import test_sentence

    data = load_sample("instruments")
    a = evaluate(data["system_a"], "AP").results["AP"].values
    b = evaluate(data["system_b"], "AP").results["AP"].values
    tests = {t.test: t for t in compare_systems({"system_a": {"AP": a}, "system_b": {"AP": b}},
                                                ["AP"], resamples=2000)}
    p = stats.ttest_rel(b, a).pvalue
    words = test_sentence(tests["t"])
    assert words.startswith(f"system_b is {(b - a).mean():.3g} AP better than system_a")
    assert (f"p = {p:.2g}" if p >= 0.001 else "p < 0.001") in words
    low, high = stats.bootstrap(((b - a),), np.mean, n_resamples=2000, method="BCa",
                                random_state=1).confidence_interval
    assert low > 0 and "excludes 0" in words and words.endswith("shows a difference.")


# ---- every difference equal: the t-test and d are undefined (issue 42, item 5) -----------------

SAME_SHIFT = ("every query's difference B − A is {}, so the differences have no spread (sd 0) "
              "for t and Cohen's d to divide by")


@pytest.mark.parametrize("shift", [0.25, 0.1])
def test_a_constant_difference_leaves_the_t_test_and_d_undefined(shift):
    # 0.25 is exact: scipy gives t = inf, p = 0 (we printed p = 0 beside no statistic); 0.1 is
    # not: b − a is 0.1 give or take an ulp, and scipy gives t = 8e15, p = 1e-63 with a warning
    # of catastrophic cancellation. Either way the sd is 0 to the values' rounding: undefined
    b = A + shift
    assert np.ptp(b - A) <= 4 * np.spacing(b.max())
    assert paired_test(A, b, "t") == (None, None)
    assert cohens_d(A, b) is None
    assert why_undefined(A, b) == SAME_SHIFT.format(f"{shift:g}")
    # the tests that need no sd are defined: all ten differences positive, exact p = 2 / 2¹⁰
    assert paired_test(A, b, "wilcoxon")[1] == pytest.approx(stats.wilcoxon(b, A).pvalue)
    assert paired_test(A, b, "wilcoxon")[1] == pytest.approx(2 / 2 ** 10)
    assert why_undefined(A, b, "wilcoxon") is None
    [t, w] = compare_systems({"a": {"m": A}, "b": {"m": b}}, ["m"], ["t", "wilcoxon"])
    assert (t.statistic, t.p, t.effect_size, t.undefined) == (
        None, None, None, SAME_SHIFT.format(f"{shift:g}"))
    assert t.as_dict()["undefined"] == t.undefined
    assert w.undefined is None and w.p is not None


def test_a_spread_of_more_than_rounding_is_tested():
    b = A + 0.1
    b[0] += 1e-9
    assert paired_test(A, b, "t") == pytest.approx(tuple(stats.ttest_rel(b, A)))
    assert why_undefined(A, b) is None


def test_too_few_queries_is_said():
    assert why_undefined(A[:1], B[:1], "wilcoxon") == ("only one query has a value for both "
                                                       "systems; a paired test needs two")
    assert paired_test(A[:1], B[:1], "randomization") == (None, None)


def test_the_command_line_says_why_a_test_is_undefined():
    from metrics.cli.render import render_comparison

    tests = compare_systems({"A": {"AP": A}, "B": {"AP": A + 0.25}}, ["AP"], ["t", "wilcoxon"])
    aggregates = {"A": {"AP": A.mean()}, "B": {"AP": A.mean() + 0.25}}
    text = render_comparison(["A", "B"], ["AP"], aggregates, tests, "table")
    assert text.splitlines()[-1] == ("t of B against A on AP is undefined: "
                                     + SAME_SHIFT.format("0.25"))
    t_row = next(line for line in text.splitlines() if line.startswith("AP") and " t " in line)
    assert t_row.split()[7:11] == ["-", "-", "-", "-"]   # statistic, p, p (Holm), d
    import csv
    import io
    import json
    rows = list(csv.DictReader(io.StringIO(render_comparison(["A", "B"], ["AP"], aggregates,
                                                             tests, "csv"))))
    assert rows[0]["p"] == "" and rows[0]["undefined"] == SAME_SHIFT.format("0.25")
    assert rows[1]["undefined"] == ""
    [t, w] = json.loads(render_comparison(["A", "B"], ["AP"], aggregates, tests, "json"))["tests"]
    assert t["p"] is None and t["undefined"] == SAME_SHIFT.format("0.25")
    assert w["undefined"] is None


def test_a_group_whose_differences_are_all_equal_says_why_its_t_test_is_undefined():
    from metrics.evaluation.group_stats import group_differences
    from metrics.evaluation.groups import Grouping

    labels = np.array(["x"] * 5 + ["y"] * 5, dtype=object)
    b = A.copy()
    b[:5] += 0.25                                 # group x: B = A + 0.25 on every query
    b[5:] += np.linspace(0.0, 0.2, 5)             # group y: a spread
    rows = group_differences({"A": {"m": A}, "B": {"m": b}}, ["m"],
                             Grouping("g", labels, ("x", "y")))
    x, y = rows
    assert (x.p, x.p_corrected, x.undefined) == (None, None, SAME_SHIFT.format("0.25"))
    assert y.p == pytest.approx(stats.ttest_rel(b[5:], A[5:]).pvalue) and y.undefined is None
    assert y.p_corrected == pytest.approx(y.p)   # Holm over the one group that has a p
