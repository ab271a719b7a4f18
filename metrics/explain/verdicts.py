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
    test = TEST_NAMES.get(t.test, t.test)
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
    corrected = t.p_holm is not None and t.p_holm != t.p
    p = t.p_holm if corrected else t.p
    if p is None:
        return (f"{average}; {interval}, and the {test} is undefined here (no spread in the "
                f"differences, or too few queries).")
    named = p_text(p) + (" after Holm's correction" if corrected else "")
    significant = p < alpha
    if excludes is None or excludes != significant:
        verdict = ("the interval and the test disagree: the difference is borderline on this "
                   "collection")
    elif significant:
        verdict = "this collection shows a difference"
    else:
        verdict = "this collection does not show a difference"
    return f"{average}; {interval} and {named} ({test}): {verdict}."
