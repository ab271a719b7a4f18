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
import warnings
from dataclasses import dataclass
from typing import NamedTuple

import numpy as np

from metrics.errors import InputError
from metrics.evaluation.cells import SMALLEST_P
from metrics.evaluation.stats import DEFAULT_ALPHA, paired_values, why_undefined

DEFAULT_POWER = 0.8
# the search for the queries a difference needs stops here; a difference that needs more gets
# the normal approximation, labelled as such (no search grows with a number the user types)
MAX_QUERIES = 10_000_000
# the search for the smallest detectable difference stops at this noncentrality d·√n; a power
# not reached there is "not reachable" (a tiny α on two queries: t's critical value with one
# degree of freedom at α = 1e-16 is 6e15)
MAX_NONCENTRALITY = 1e6
# α below the smallest p-value any table prints would never be seen to be reached
MIN_ALPHA = SMALLEST_P
# below this many degrees of freedom the power is integrated (:func:`_integrated_power`); from it
# on, scipy's noncentral t gives it, and where that fails the normal distribution (its error is
# of order 1/df)
NORMAL_FROM_DF = 1000
# how queries_needed was found
NONCENTRAL_T = "noncentral t"
NORMAL_APPROXIMATION = "normal approximation"
# the measures whose every value lies in [0, 1], so that no two systems differ by more than 1
# (not the counts and ranks, DCG, TP … TN, infAP's estimate nor BprefUncapped, which can go
# below 0)
UNIT_INTERVAL = frozenset({
    "P", "R", "F", "Success", "Judged", "AP", "RR", "Rprec", "BEP", "Fmax", "Bpref", "Bpref10",
    "BprefStar", "IPrec", "RBP", "RBPResidual", "nDCG", "ERR", "EP", "GAP", "Accuracy",
    "Sensitivity", "Specificity", "Fallout"})
POWER_DIGITS = 4   # a power is printed to four decimals; one that rounds to 1 as "> 0.9999"


def significance_level(text: str) -> float:
    """A significance level α as typed (the command line's ``--alpha`` of power): a number from
    :data:`MIN_ALPHA` to below 1."""
    try:
        value = float(text)
    except (TypeError, ValueError):
        raise InputError(f"{text!r} is not a number") from None
    check_alpha(value)
    return value


def check_alpha(alpha: float) -> None:
    if not (isinstance(alpha, (int, float)) and MIN_ALPHA <= alpha < 1):
        raise InputError(f"a significance level must lie between {MIN_ALPHA:g} and 1, e.g. 0.05, "
                         f"not {alpha!r}: no table prints a p-value below {MIN_ALPHA:g}")


def t_test_power(effect_size: float, n: int, alpha: float = DEFAULT_ALPHA) -> float:
    """Power of the two-sided paired t-test at ``alpha`` with n queries for a standardised
    difference ``effect_size``."""
    from scipy import stats   # imported here: it takes a while, and only comparisons need it

    df, noncentrality = n - 1, abs(effect_size) * math.sqrt(n)
    critical = stats.t.isf(alpha / 2, df)
    if df < NORMAL_FROM_DF:
        # scipy's noncentral t fails in places (NaN at a noncentrality of 10 with 29 degrees of
        # freedom, of 40 with one) and takes seconds to; its integral does not
        return float(min(max(_integrated_power(df, critical, noncentrality), 0.0), 1.0))
    with warnings.catch_warnings():   # where its series does not converge, NaN says so
        warnings.simplefilter("ignore", RuntimeWarning)
        power = stats.nct.sf(critical, df, noncentrality) + stats.nct.cdf(-critical, df,
                                                                          noncentrality)
    if not math.isfinite(power):   # with this many degrees of freedom, t is the normal
        power = (stats.norm.sf(critical - noncentrality)
                 + stats.norm.cdf(-critical - noncentrality))
    return float(min(max(power, 0.0), 1.0))


def _integrated_power(df: int, critical: float, noncentrality: float) -> float:
    """P(|T| > critical) for T = (Z + λ) / S noncentral t, S = √(χ²_df / df): the integral over
    Z ~ N(0, 1) of P(S < (Z + λ) / c) (T above c) and P(S < −(Z + λ) / c) (T below −c), each a
    regularised incomplete gamma function of (Z + λ)² (Z beyond ±40 has no weight in doubles)."""
    from scipy import integrate, special

    half, root = df / 2, math.sqrt(2 * math.pi)

    def below(x: float) -> float:   # P(S < x)
        return float(special.gammainc(half, half * x * x)) if x > 0 else 0.0

    def tail(sign: int) -> float:
        # the weight lies where sign·(z + λ) > 0; P(S < ·) rises where sign·(z + λ) = c
        low, high = (-noncentrality, 40.0) if sign > 0 else (-40.0, -noncentrality)
        low, high = max(low, -40.0), min(high, 40.0)
        if low >= high:
            return 0.0
        rise = sign * critical - noncentrality
        value, _ = integrate.quad(
            lambda z: math.exp(-z * z / 2) / root * below(sign * (z + noncentrality) / critical),
            low, high, points=[rise] if low < rise < high else None, limit=200, epsabs=1e-15)
        return value

    return tail(1) + tail(-1)


class QueriesNeeded(NamedTuple):
    count: int | None   # None: more than the normal approximation can hold (a double overflows)
    method: str         # NONCENTRAL_T (the fewest, searched) or NORMAL_APPROXIMATION


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
    queries_needed_method: str | None = None   # how: NONCENTRAL_T or NORMAL_APPROXIMATION
    undefined: str | None = None        # why the test's power is undefined (stats.why_undefined)
    # when ``power`` is not reached by any difference up to this (the search's end, a
    # noncentrality of MAX_NONCENTRALITY): min_detectable is None
    not_reached_up_to: float | None = None

    def as_dict(self) -> dict:
        return {"n": self.n, "mean_diff": self.mean_diff, "sd_diff": self.sd_diff,
                "alpha": self.alpha, "power": self.power,
                "observed_power": self.observed_power, "min_detectable": self.min_detectable,
                "not_reached_up_to": self.not_reached_up_to, "delta": self.delta,
                "queries_needed": self.queries_needed,
                "queries_needed_method": self.queries_needed_method,
                "undefined": self.undefined}


def _check_level(name: str, value: float) -> None:
    if not (isinstance(value, (int, float)) and 0 < value < 1):
        raise InputError(f"{name} must be a number between 0 and 1 (exclusive), not {value!r}")


def power_analysis(a: np.ndarray, b: np.ndarray, alpha: float = DEFAULT_ALPHA,
                   power: float = DEFAULT_POWER, delta: float | None = None) -> PowerAnalysis:
    """The power figures of the two-sided paired t-test of B against A, over the queries where
    both have a value (NaN marks an undefined value)."""
    check_alpha(alpha)
    _check_level("power", power)
    if alpha >= power:
        raise InputError(f"the power asked for ({power:g}) must be above the significance level "
                         f"α ({alpha:g}): with no difference at all the test rejects with "
                         f"probability α")
    if delta is not None and not (math.isfinite(delta) and delta > 0):
        raise InputError(f"the difference to detect must be a positive number, not {delta!r}")
    a, b = paired_values(np.asarray(a, dtype=np.float64), np.asarray(b, dtype=np.float64))
    diff = b - a
    n = len(diff)
    undefined = why_undefined(a, b)
    if undefined is not None:   # too few queries, or no spread: t is undefined
        return PowerAnalysis(n, float(diff.mean()) if n else None, 0.0 if n > 1 else None,
                             alpha, power, None, None, delta, None, None, undefined)
    mean, sd = float(diff.mean()), float(diff.std(ddof=1))
    observed = t_test_power(mean / sd, n, alpha)
    effect = _smallest_effect(n, alpha, power)
    needed = (QueriesNeeded(None, None) if delta is None
              else queries_needed(delta / sd, alpha, power))
    return PowerAnalysis(n, mean, sd, alpha, power, observed,
                         None if effect is None else effect * sd, delta, *needed,
                         not_reached_up_to=(MAX_NONCENTRALITY / math.sqrt(n) * sd
                                            if effect is None else None))


def _smallest_effect(n: int, alpha: float, power: float) -> float | None:
    """The standardised difference the test detects with ``power`` (n queries, level α), or
    None when not even a noncentrality of :data:`MAX_NONCENTRALITY` reaches it. The power grows
    with the effect: at 0 it is α (below ``power``); the end of the search doubles from a
    noncentrality of 40, where it is 1 unless α is tiny or n is 2 or 3."""
    from scipy.optimize import brentq

    high = 40.0
    while t_test_power(high / math.sqrt(n), n, alpha) < power:
        if high >= MAX_NONCENTRALITY:
            return None
        high = min(2 * high, MAX_NONCENTRALITY)
    return brentq(lambda d: t_test_power(d, n, alpha) - power, 0.0, high / math.sqrt(n),
                  xtol=1e-12 / math.sqrt(n), rtol=1e-12)


def queries_needed(effect_size: float, alpha: float = DEFAULT_ALPHA,
                   power: float = DEFAULT_POWER) -> QueriesNeeded:
    """The fewest queries with which the two-sided paired t-test at ``alpha`` detects a
    standardised difference ``effect_size`` (difference / sd) with at least ``power``. The power
    grows with n: doubling finds a number that is enough (never more than twice the answer),
    bisection the fewest. Beyond :data:`MAX_QUERIES` the search stops and the normal
    approximation ((z₁₋α/₂ + z_power) / d)² is given, labelled so (at that many queries t is the
    normal to within a query or two); None when even that overflows a double."""
    high = 2
    while t_test_power(effect_size, high, alpha) < power:
        if high > MAX_QUERIES:
            return QueriesNeeded(_normal_queries(effect_size, alpha, power),
                                 NORMAL_APPROXIMATION)
        high *= 2
    low = max(2, high // 2)
    while low < high:
        middle = (low + high) // 2
        if t_test_power(effect_size, middle, alpha) >= power:
            high = middle
        else:
            low = middle + 1
    return QueriesNeeded(low, NONCENTRAL_T)


def _normal_queries(effect_size: float, alpha: float, power: float) -> int | None:
    from scipy import stats

    z = float(stats.norm.isf(alpha / 2) + stats.norm.ppf(power))
    try:
        return math.ceil((z / abs(effect_size)) ** 2)
    except OverflowError:   # a difference below about 1e-154 standard deviations
        return None


def queries_needed_text(analysis: PowerAnalysis) -> str:
    """The queries ``analysis.delta`` needs, as printed: "1,234", "about 3.1e+15 (normal
    approximation, beyond the search's 10,000,000)", "more than 10,000,000" or "undefined"."""
    count = analysis.queries_needed
    if analysis.queries_needed_method is None:
        return "undefined"
    if analysis.queries_needed_method == NONCENTRAL_T:
        return f"{count:,}"
    if count is None:
        return f"more than {MAX_QUERIES:,}"
    shown = f"{count:,}" if count < 10 ** 15 else f"{count:.3g}"
    return f"about {shown} ({NORMAL_APPROXIMATION}, beyond the search's {MAX_QUERIES:,})"


def min_detectable_text(analysis: PowerAnalysis, measure: str, digits) -> str:
    """The smallest detectable difference as a table prints it (``digits``: its number format):
    "none in [0, 1]" for a measure whose range it is beyond, "none up to X" when the power is
    not reached, "-" when undefined."""
    if not detectable_within_range(analysis, measure):
        return "none in [0, 1]"
    if analysis.not_reached_up_to is not None:
        return f"none up to {analysis.not_reached_up_to:.3g}"
    return digits(analysis.min_detectable)


def power_text(power: float) -> str:
    """A power as printed: four decimals, but never "1": a test's power with finitely many
    queries is below 1, so one that rounds up to 1 (0.9999999999) prints as "> 0.9999"."""
    if power >= 1 - 0.5 * 10 ** -POWER_DIGITS:
        return f"> {1 - 10 ** -POWER_DIGITS:.{POWER_DIGITS}f}"
    return f"{power:.{POWER_DIGITS}f}"


def detectable_within_range(analysis: PowerAnalysis, measure: str) -> bool:
    """Whether some difference the measure can show is detected with the power asked for (True
    where that is undefined, or for an unbounded measure)."""
    largest = largest_difference(measure)
    smallest = analysis.min_detectable if analysis.not_reached_up_to is None \
        else analysis.not_reached_up_to
    return largest is None or smallest is None or smallest <= largest


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
    is likely to be detected, and the power of the largest one; when the power asked for is not
    reached (a tiny α on few queries), up to which difference it was sought."""
    if analysis.undefined is not None:
        return (f"With {analysis.n} quer{'y' if analysis.n == 1 else 'ies'}, the paired "
                f"t-test's power for {measure} is undefined: {analysis.undefined}.")
    if not detectable_within_range(analysis, measure):
        largest = largest_difference(measure)
        at_largest = t_test_power(largest / analysis.sd_diff, analysis.n, analysis.alpha)
        return (f"With these {analysis.n} queries, no difference in {measure} can be detected "
                f"with power {analysis.power:g} (α = {analysis.alpha:g}, paired t-test): its "
                f"values lie in [0, 1], and even a difference of {largest:g} has power "
                f"{power_text(at_largest)}.")
    if analysis.not_reached_up_to is not None:
        return (f"With these {analysis.n} queries, no difference in {measure} up to "
                f"{analysis.not_reached_up_to:.3g} is detected with power {analysis.power:g} at "
                f"α = {analysis.alpha:g} (paired t-test): the power asked for is not reachable "
                f"within a noncentrality of {MAX_NONCENTRALITY:,.0f}; a larger α or more "
                f"queries would reach it.")
    return (f"With these {analysis.n} queries, differences below "
            f"{analysis.min_detectable:.3g} in {measure} are unlikely to be detected "
            f"(power {analysis.power:g} at α = {analysis.alpha:g}, paired t-test).")
