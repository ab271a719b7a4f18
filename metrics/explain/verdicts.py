"""A paired test in words: one sentence that says what the numbers of
:class:`~metrics.evaluation.stats.PairedTest` mean for the two systems."""

from __future__ import annotations

from metrics.evaluation.stats import DEFAULT_ALPHA, DEFAULT_LEVEL, PairedTest

TEST_NAMES = {"t": "paired t-test", "wilcoxon": "Wilcoxon signed-rank test",
              "randomization": "randomisation test"}
TEST_HEADINGS = {"t": "t-test", "wilcoxon": "Wilcoxon", "randomization": "randomisation"}


def short(value: float) -> str:
    """Three significant digits, with a real minus sign (−0.011, 0.06, 3.2e-05)."""
    return f"{value:.3g}".replace("-", "−") if value < 0 else f"{value:.3g}"


def interval_text(ci: tuple[float | None, float | None], digits=short) -> str:
    """A confidence interval as ``[low, high]`` ("undefined" when either end is)."""
    low, high = ci
    return "undefined" if low is None or high is None else f"[{digits(low)}, {digits(high)}]"


def p_text(p: float) -> str:
    return "p < 0.001" if p < 0.001 else f"p = {p:.2g}"


def test_sentence(t: PairedTest, alpha: float = DEFAULT_ALPHA,
                  level: float = DEFAULT_LEVEL) -> str:
    """What one test of B against A says, e.g. "B is 0.024 AP better than A on average; the 95%
    interval [−0.011, 0.06] includes 0 and p = 0.34 (paired t-test): this collection does not
    show a difference." The p weighed is Holm's when more than two systems were compared (it
    then differs from the raw p and is named). A difference is shown when the interval excludes 0
    and p < ``alpha``; when only one of the two says so, the sentence says they disagree."""
    return pair_verdict([t], alpha, level)


def pair_verdict(tests: list[PairedTest], alpha: float = DEFAULT_ALPHA,
                 level: float = DEFAULT_LEVEL) -> str:
    """One verdict on one pair of systems from all its tests (the same A, B and measure, hence
    the same mean difference and bootstrap interval), naming each test's p once: "B is 0.024 AP
    better than A on average; the 95% interval [−0.011, 0.06] includes 0 and p = 0.34 (paired
    t-test), p = 0.41 (Wilcoxon signed-rank test) and p = 0.36 (randomisation test): this
    collection does not show a difference." A difference is shown when the interval excludes 0
    and every defined test has p < ``alpha``; none when the interval includes 0 and no test
    has; otherwise the sentence says they disagree. A test without a p is said to be undefined,
    and why (every query's difference the same, for the t-test)."""
    t = tests[0]
    if t.mean_diff is None or t.n == 0:
        return f"{t.b} and {t.a} have no query in common with a value of {t.measure}."
    if t.mean_diff == 0:
        average = f"{t.b} and {t.a} have the same {t.measure} on average"
    else:
        side = "better" if t.mean_diff > 0 else "worse"
        average = (f"{t.b} is {short(abs(t.mean_diff))} {t.measure} {side} than {t.a} on "
                   f"average")
    low, high = t.ci
    interval = f"the {level:.0%} interval {interval_text(t.ci)}"
    excludes = None if low is None or high is None else not low <= 0 <= high
    if excludes is not None:
        interval += " excludes 0" if excludes else " includes 0"
    weighed = [(test, _weighed_p(test)) for test in tests]
    defined = [(test, p) for test, p in weighed if p is not None]
    undefined = [TEST_NAMES.get(test.test, test.test) for test, p in weighed if p is None]
    # why (stats.why_undefined): said once, as every undefined test of a pair has the same reason
    why = next((test.undefined for test, p in weighed if p is None and test.undefined), None)
    if not defined:
        tests_are = (f"the {undefined[0]} is" if len(undefined) == 1
                     else f"the {_listed(undefined)} are")
        return (f"{average}; {interval}, and {tests_are} undefined here"
                + (f": {why}." if why else " (no spread in the differences, or too few "
                   "queries)."))
    named = _listed([f"{p_text(p)}"
                     + (" after Holm's correction" if test.p_holm not in (None, test.p) else "")
                     + f" ({TEST_NAMES.get(test.test, test.test)})" for test, p in defined])
    significant = {p < alpha for _, p in defined}
    if excludes is None or len(significant) > 1 or excludes not in significant:
        verdict = (f"the interval and the test{'s' if len(defined) > 1 else ''} disagree: the "
                   "difference is borderline on this collection")
    elif excludes:
        verdict = "this collection shows a difference"
    else:
        verdict = "this collection does not show a difference"
    missing = (f" (the {_listed(undefined)} {'is' if len(undefined) == 1 else 'are'} undefined "
               "here)" if undefined else "")
    return f"{average}; {interval} and {named}{missing}: {verdict}." + (
        f" {why[0].upper()}{why[1:]}." if why else "")


def _weighed_p(t: PairedTest) -> float | None:
    """The p a verdict weighs: Holm's when more than two systems were compared, else the test's."""
    return t.p_holm if t.p_holm is not None and t.p_holm != t.p else t.p


def _listed(words: list[str]) -> str:
    """"a", "a and b", "a, b and c"."""
    return words[0] if len(words) == 1 else ", ".join(words[:-1]) + " and " + words[-1]
