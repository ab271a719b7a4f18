"""How many queries a claim needs: the power of the paired t-test on per-query differences.

Topic set size design (Sakai 2014, 2016) asks, for a measure and a pair of systems compared on n
queries with the paired t-test at level α: how likely the test is to detect the difference that
was observed (its power), the smallest difference it detects with a chosen power (the minimum
detectable difference), and how many queries it needs to detect a difference the user names.
All three come from the noncentral t distribution of the paired t statistic (scipy.stats.nct),
with the effect size d = difference / sd(per-query differences), the sd estimated from the
observed differences (with n − 1): the power with n queries is P(|T| > t_{1−α/2, n−1}) for T
noncentral t with n − 1 degrees of freedom and noncentrality d·√n.
"""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metrics.errors import InputError
from metrics.evaluation.stats import DEFAULT_ALPHA, paired_values

DEFAULT_POWER = 0.8
# the search for the queries a difference needs stops here; a difference that needs more is
# reported as needing more than this (no search grows with a number the user types)
MAX_QUERIES = 10_000_000
# the measures whose every value lies in [0, 1], so that no two systems differ by more than 1
# (not the counts and ranks, DCG, TP … TN, infAP's estimate nor BprefUncapped, which can go
# below 0)
UNIT_INTERVAL = frozenset({
    "P", "R", "F", "Success", "Judged", "AP", "RR", "Rprec", "BEP", "Fmax", "Bpref", "Bpref10",
    "BprefStar", "IPrec", "RBP", "RBPResidual", "nDCG", "ERR", "EP", "GAP", "Accuracy",
    "Sensitivity", "Specificity", "Fallout"})
POWER_DIGITS = 4   # a power is printed to four decimals; one that rounds to 1 as "> 0.9999"


def t_test_power(effect_size: float, n: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Power of the two-sided paired t-test at ``alpha`` with n queries for a standardised
    difference ``effect_size``."""
    from scipy import stats   # imported here: it takes a while, and only comparisons need it

    df, noncentrality = n - 1, abs(effect_size) * math.sqrt(n)
    critical = stats.t.isf(alpha / 2, df)
    power = stats.nct.sf(critical, df, noncentrality) + stats.nct.cdf(-critical, df,
                                                                      noncentrality)
    if not math.isfinite(power):
        # scipy's noncentral t fails far in its tail (noncentrality beyond about 15), where the
        # power is 1 to double precision; the normal approximation is exact enough there
        power = (stats.norm.sf(critical - noncentrality)
                 + stats.norm.cdf(-critical - noncentrality))
    return float(min(power, 1.0))


@dataclass(frozen=True)
class PowerAnalysis:
    """The power figures of one measure for one pair of systems (None where undefined)."""

    n: int                              # queries where both systems have a value
    mean_diff: float | None             # mean of B − A
    sd_diff: float | None               # sd of B − A (n − 1)
    alpha: float
    power: float                        # the power asked for (default 0.8)
    observed_power: float | None        # power to detect |mean_diff| with these n queries
    min_detectable: float | None        # smallest |difference| detected with ``power``
    delta: float | None = None          # the difference the user asked about
    queries_needed: int | None = None   # queries to detect ``delta`` with ``power``

    def as_dict(self) -> dict:
        return {"n": self.n, "mean_diff": self.mean_diff, "sd_diff": self.sd_diff,
                "alpha": self.alpha, "power": self.power,
                "observed_power": self.observed_power, "min_detectable": self.min_detectable,
                "delta": self.delta, "queries_needed": self.queries_needed}


def _check_level(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and 0 < value < 1):
        raise InputError(f"{name} must be a number between 0 and 1 (exclusive), not {value!r}")


def power_analysis(a: np.ndarray, b: np.ndarray, alpha: float = DEFAULT_ALPHA,
                   power: float = DEFAULT_POWER, delta: float | None = None) -> PowerAnalysis:
    """The power figures of the two-sided paired t-test of B against A, over the queries where
    both have a value (NaN marks an undefined value)."""
    _check_level("alpha", alpha)
    _check_level("power", power)
    if delta is not None and not (math.isfinite(delta) and delta > 0):
        raise InputError(f"the difference to detect must be a positive number, not {delta!r}")
    a, b = paired_values(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    diff = b - a
    n = len(diff)
    if n < 2:
        return PowerAnalysis(n, float(diff.mean()) if n else None, None, alpha, power, None,
                             None, delta, None)
    mean, sd = float(diff.mean()), float(diff.std(ddof=1))
    if sd == 0:   # every query moved by the same amount: the t statistic is undefined
        return PowerAnalysis(n, mean, 0.0, alpha, power, None, None, delta, None)
    from scipy.optimize import brentq

    observed = t_test_power(mean / sd, n, alpha)
    # the power grows with the effect size; at d = 0 it is alpha (< power), and at d = 40 / √n
    # (noncentrality 40) it is 1
    effect = brentq(lambda d: t_test_power(d, n, alpha) - power, 0.0, 40.0 / math.sqrt(n),
                    xtol=1e-12)
    needed = None if delta is None else queries_needed(delta / sd, alpha, power)
    return PowerAnalysis(n, mean, sd, alpha, power, observed, effect * sd, delta, needed)


def queries_needed(effect_size: float, alpha: float = DEFAULT_ALPHA,
                   power: float = DEFAULT_POWER) -> int:
    """The fewest queries with which the two-sided paired t-test at ``alpha`` detects a
    standardised difference ``effect_size`` (difference / sd) with at least ``power``;
    :data:`MAX_QUERIES` + 1 means more than that. The power grows with n: doubling finds a
    number that is enough (never more than twice the answer), bisection the fewest."""
    high = 2
    while t_test_power(effect_size, high, alpha) < power:
        if high > MAX_QUERIES:
            return MAX_QUERIES + 1
        high *= 2
    low = max(2, high // 2)
    while low < high:
        middle = (low + high) // 2
        if t_test_power(effect_size, middle, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return low


def power_text(power: float) -> str:
    """A power as printed: four decimals, but never "1": a test's power with finitely many
    queries is below 1, so one that rounds up to 1 (0.9999999999) prints as "> 0.9999"."""
    if power >= 1 - 0.5 * 10 ** -POWER_DIGITS:
        return f"> {1 - 10 ** -POWER_DIGITS:.{POWER_DIGITS}f}"
    return f"{power:.{POWER_DIGITS}f}"


def detectable_within_range(analysis: PowerAnalysis, measure: str) -> bool:
    """Whether some difference the measure can show is detected with the power asked for."""
    largest = largest_difference(measure)
    return largest is None or analysis.min_detectable is None or \
        analysis.min_detectable <= largest


def largest_difference(measure: str) -> float | None:
    """The largest difference two systems can have on ``measure`` (a name or alias, with its
    parameters): 1 for a measure whose values lie in [0, 1], None for an unbounded one."""
    from metrics.measures.names import parse_measure

    try:
        name = parse_measure(measure).name
    except InputError:
        return None
    return 1.0 if name in UNIT_INTERVAL else None


def detectable_sentence(analysis: PowerAnalysis, measure: str) -> str:
    """One sentence for the Compare page and the command line. For a measure in [0, 1] whose
    smallest detectable difference is above 1, it says that no difference the measure can show
    is likely to be detected, and the power of the largest one."""
    if analysis.min_detectable is None:
        return (f"With {analysis.n} quer{'y' if analysis.n == 1 else 'ies'} and no spread in "
                f"the per-query differences of {measure}, the paired t-test's power is "
                f"undefined.")
    if not detectable_within_range(analysis, measure):
        largest = largest_difference(measure)
        at_largest = t_test_power(largest / analysis.sd_diff, analysis.n, analysis.alpha)
        return (f"With these {analysis.n} queries, no difference in {measure} can be detected "
                f"with power {analysis.power:g} (α = {analysis.alpha:g}, paired t-test): its "
                f"values lie in [0, 1], and even a difference of {largest:g} has power "
                f"{power_text(at_largest)}.")
    return (f"With these {analysis.n} queries, differences below "
            f"{analysis.min_detectable:.3g} in {measure} are unlikely to be detected "
            f"(power {analysis.power:g} at α = {analysis.alpha:g}, paired t-test).")
