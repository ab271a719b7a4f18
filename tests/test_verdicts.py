"""One verdict on a pair of systems from all its tests (issue 40, defect 10: Compare printed the
same sentence once per test). The expected sentences are written by hand from the rule: a
difference is shown when the interval excludes 0 and every test's p is below α."""

import pytest

from metrics.evaluation.stats import PairedTest, compare_systems
from metrics.explain.verdicts import pair_verdict
from metrics.explain.verdicts import test_sentence as sentence_of_one_test


def paired(test: str, p, ci=(-0.011, 0.06), mean_diff=0.024, p_holm=None) -> PairedTest:
    return PairedTest("AP", "A", "B", test, 1.0, p, p if p_holm is None else p_holm, mean_diff,
                      ci, 0.2, 30, 10, 5, 15, 1)


def test_three_tests_that_agree_make_one_sentence_naming_each_p():
    tests = [paired("t", 0.34), paired("wilcoxon", 0.41), paired("randomization", 0.36)]
    assert pair_verdict(tests) == (
        "B is 0.024 AP better than A on average; the 95% interval [−0.011, 0.06] includes 0 "
        "and p = 0.34 (paired t-test), p = 0.41 (Wilcoxon signed-rank test) and p = 0.36 "
        "(randomisation test): this collection does not show a difference.")


def test_a_difference_needs_the_interval_and_every_test():
    shown = [paired(t, 0.0004, (0.02, 0.2), 0.1) for t in ("t", "wilcoxon")]
    assert pair_verdict(shown).endswith(
        "excludes 0 and p < 0.001 (paired t-test) and p < 0.001 (Wilcoxon signed-rank test): "
        "this collection shows a difference.")
    # one test above α: borderline, whatever the others say
    split = [paired("t", 0.01, (0.02, 0.2), 0.1), paired("wilcoxon", 0.2, (0.02, 0.2), 0.1)]
    assert pair_verdict(split).endswith(
        "the interval and the tests disagree: the difference is borderline on this collection.")


def test_holm_and_an_undefined_test_are_said():
    tests = [paired("t", 0.01, (0.02, 0.2), 0.1, p_holm=0.03),
             paired("wilcoxon", None, (0.02, 0.2), 0.1)]
    assert pair_verdict(tests) == (
        "B is 0.1 AP better than A on average; the 95% interval [0.02, 0.2] excludes 0 and "
        "p = 0.03 after Holm's correction (paired t-test) (the Wilcoxon signed-rank test is "
        "undefined here): this collection shows a difference.")
    none = [paired("t", None), paired("wilcoxon", None)]
    assert pair_verdict(none).endswith(
        "includes 0, and the paired t-test and Wilcoxon signed-rank test are undefined here (no "
        "spread in the differences, or too few queries).")


def test_one_test_reads_as_before():
    one = paired("t", 0.34)
    assert pair_verdict([one]) == sentence_of_one_test(one) == (
        "B is 0.024 AP better than A on average; the 95% interval [−0.011, 0.06] includes 0 "
        "and p = 0.34 (paired t-test): this collection does not show a difference.")


def test_the_verdict_of_real_tests_names_scipys_p_values():
    from scipy import stats

    import numpy as np

    rng = np.random.default_rng(7)
    a = rng.uniform(0, 1, 40)
    b = np.clip(a + rng.normal(0.15, 0.1, 40), 0, 1)
    tests = compare_systems({"a": {"AP": a}, "b": {"AP": b}}, ["AP"], resamples=2000)
    words = pair_verdict(tests)
    assert words.count("on average") == 1
    for p in (stats.ttest_rel(b, a).pvalue, stats.wilcoxon(b, a).pvalue):
        assert (f"p = {p:.2g}" if p >= 0.001 else "p < 0.001") in words
    assert words.endswith("this collection shows a difference.")


@pytest.mark.parametrize("test", ["t", "wilcoxon", "randomization"])
def test_no_common_query(test):
    none = PairedTest("AP", "A", "B", test, None, None, None, None, (None, None), None, 0, 0, 0,
                      0, 1)
    assert pair_verdict([none]) == "B and A have no query in common with a value of AP."


def test_a_t_test_undefined_by_a_constant_difference_says_why():
    # issue 42, item 5: B = A + 0.25 on every query; scipy's ttest_rel divides by an sd of 0
    import numpy as np

    a = np.array([0.20, 0.35, 0.50, 0.10, 0.70, 0.45, 0.30, 0.60])
    why = ("every query's difference B − A is 0.25, so the differences have no spread (sd 0) "
           "for t and Cohen's d to divide by")
    both = compare_systems({"A": {"AP": a}, "B": {"AP": a + 0.25}}, ["AP"], ["t", "wilcoxon"])
    # eight positive differences: Wilcoxon's exact two-sided p = 2 / 2⁸
    assert pair_verdict(both) == (
        "B is 0.25 AP better than A on average; the 95% interval [0.25, 0.25] excludes 0 and "
        "p = 0.0078 (Wilcoxon signed-rank test) (the paired t-test is undefined here): this "
        f"collection shows a difference. E{why[1:]}.")
    only_t = compare_systems({"A": {"AP": a}, "B": {"AP": a}}, ["AP"], ["t"])
    assert pair_verdict(only_t) == (
        "B and A have the same AP on average; the 95% interval [0, 0] includes 0, and the paired "
        f"t-test is undefined here: {why.replace('0.25', '0')}.")
