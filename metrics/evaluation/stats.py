"""Paired comparison of systems on the same queries: the tests come from scipy.stats.

For a measure and two systems A and B, the per-query differences are d = B − A over the queries
where both have a value. Reported for each test: statistic, p, the Holm-adjusted p when more than
two systems are compared, the mean difference with a bootstrap confidence interval, Cohen's d for
paired data (mean(d)/sd(d)), n, and the win/tie/loss counts (B better / equal / worse).

The paired t-test and Cohen's d divide by the sd of the differences: when every query's
difference is the same (identical systems, or one a constant shift of the other) they are
undefined, as scipy says (NaN), and :func:`why_undefined` says so, for every caller (the Compare
page, the leaderboard's corrections, the groups' tests, the power analysis).
"""

from __future__ import annotations

import itertools
import math
import warnings
from dataclasses import asdict, dataclass

import numpy as np

from metrics.errors import InputError

TESTS = ("t", "wilcoxon", "randomization")
DEFAULT_SEED = 20261121
DEFAULT_RESAMPLES = 10_000
DEFAULT_ALPHA = 0.05   # significance level where one is needed (groups, power)
DEFAULT_LEVEL = 0.95   # confidence level of the bootstrap intervals


@dataclass(frozen=True)
class PairedTest:
    measure: str
    a: str
    b: str
    test: str
    statistic: float | None
    p: float | None
    p_holm: float | None
    mean_diff: float | None
    ci: tuple[float | None, float | None]
    effect_size: float | None
    n: int
    wins: int
    ties: int
    losses: int
    seed: int
    undefined: str | None = None   # why statistic and p are None (:func:`why_undefined`)

    def as_dict(self) -> dict:
        out = asdict(self)
        out["ci"] = list(self.ci)
        return out


def _finite(value) -> float | None:
    value = float(value)
    return value if math.isfinite(value) else None


def paired_values(a: np.ndarray, b: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    both = ~np.isnan(a) & ~np.isnan(b)
    return a[both], b[both]


def win_tie_loss(a: np.ndarray, b: np.ndarray, tolerance: float = 1e-12) -> tuple[int, int, int]:
    diff = b - a
    ties = np.abs(diff) <= tolerance
    return int((diff > tolerance).sum()), int(ties.sum()), int((diff < -tolerance).sum())


# differences within this many units in the last place of the values they are taken from are
# equal: B = A + c gives b − a = c ± an ulp of the values, and scipy's t-test then divides by that
# rounding (t = 8e15, p = 1e-63, with a warning of "catastrophic cancellation")
EQUAL_WITHIN_ULPS = 4


def common_difference(a: np.ndarray, b: np.ndarray) -> float | None:
    """The difference B − A that every query has, when all are equal (to the rounding of the
    values they are taken from); None when they differ or there is no query."""
    if not len(a):
        return None
    diff = b - a
    scale = max(float(np.abs(a).max()), float(np.abs(b).max()))
    if float(diff.max() - diff.min()) <= EQUAL_WITHIN_ULPS * float(np.spacing(scale)):
        return float(diff.mean())
    return None


def why_undefined(a: np.ndarray, b: np.ndarray, test: str = "t") -> str | None:
    """Why ``test`` of B against A has no statistic and p on these paired values, or None when
    it has: fewer than two queries; for the t-test (and Cohen's d), every query's difference the
    same, so that the differences have no spread and t = mean / (sd / √n) divides by 0 (scipy's
    ttest_rel says NaN). The Wilcoxon and randomisation tests are defined there (p = 1 when
    every difference is 0)."""
    if test not in TESTS:
        raise InputError(f"unknown test {test!r}; use one of {', '.join(TESTS)}")
    if len(a) < 2:
        return (f"{'no query has' if len(a) == 0 else 'only one query has'} a value for both "
                f"systems; a paired test needs two")
    if test == "t":
        same = common_difference(a, b)
        if same is not None:
            return (f"every query's difference B − A is {same:.3g}, so the differences have no "
                    f"spread (sd 0) for t and Cohen's d to divide by")
    return None


def paired_test(a: np.ndarray, b: np.ndarray, test: str, seed: int = DEFAULT_SEED,
                   resamples: int = DEFAULT_RESAMPLES) -> tuple[float | None, float | None]:
    """(statistic, p) of a two-sided paired test of B against A; (None, None) where the test is
    undefined (:func:`why_undefined`). Identical systems give p = 1 by the Wilcoxon and
    randomisation tests."""
    if why_undefined(a, b, test) is not None:
        return None, None
    diff = b - a
    if np.all(diff == 0):
        return 0.0, 1.0
    from scipy import stats  # imported here: it takes a second, and only comparisons need it

    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)
        if test == "t":
            result = stats.ttest_rel(b, a)
        elif test == "wilcoxon":
            result = stats.wilcoxon(b, a, zero_method="wilcox")
        else:
            result = stats.permutation_test(
                (a, b), lambda x, y, axis: np.mean(y - x, axis=axis), vectorized=True,
                permutation_type="samples", n_resamples=resamples, alternative="two-sided",
                rng=np.random.default_rng(seed))
    return _finite(result.statistic), _finite(result.pvalue)


def paired_t_rows(a: np.ndarray, b: np.ndarray) -> np.ndarray:
    """The two-sided p of the paired t-test of B against A along each row (rows × n), in one
    scipy.stats.ttest_rel call for all rows. Rows where the test is undefined
    (:func:`why_undefined`) are for the caller to leave out; they give NaN or a meaningless
    p."""
    from scipy import stats

    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        return np.asarray(stats.ttest_rel(np.asarray(b, dtype=np.float64),
                                          np.asarray(a, dtype=np.float64), axis=-1).pvalue)


def bootstrap_ci(diff: np.ndarray, seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES,
                 confidence: float = 0.95) -> tuple[float | None, float | None]:
    """BCa bootstrap interval of the mean difference (scipy.stats.bootstrap)."""
    if len(diff) < 2:
        return None, None
    if np.all(diff == diff[0]):
        return float(diff[0]), float(diff[0])
    from scipy import stats

    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        result = stats.bootstrap((diff,), np.mean, confidence_level=confidence,
                                 n_resamples=resamples, method="BCa",
                                 rng=np.random.default_rng(seed))
    low, high = result.confidence_interval
    if not (math.isfinite(low) and math.isfinite(high)):
        low, high = np.percentile(diff, [50 * (1 - confidence), 50 * (1 + confidence)])
    return float(low), float(high)


# ---- confidence intervals of each aggregate over queries ---------------------------------------

CI_METHOD = "percentile"
# values held by one batch of resamples: resamples × queries floats, about 32 MB
_BATCH_VALUES = 4_000_000
_STATISTICS = {"mean": np.mean, "median": np.median, "sum": np.sum,
               "std": lambda x, axis: np.std(x, axis=axis, ddof=1)}


def bootstrap_batch(num_queries: int) -> int:
    """How many resamples scipy draws at once, so that memory stays bounded for any number of
    queries (the resamples, and so the interval, do not depend on it)."""
    return max(1, _BATCH_VALUES // max(num_queries, 1))


def bootstrap_interval(values: np.ndarray, statistic, level: float = DEFAULT_LEVEL,
                       seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES
                       ) -> tuple[float | None, float | None]:
    """Percentile bootstrap interval of ``statistic(values, axis)`` over queries resampled with
    replacement (scipy.stats.bootstrap, vectorised, seeded). Percentile, not BCa: BCa's
    jackknife evaluates the statistic on n leave-one-out samples of n − 1 queries, n² values,
    too many for tens of thousands of queries. None when fewer than two values are given or the
    statistic is undefined on resamples."""
    low, high = bootstrap_rows(np.asarray(values, dtype=np.float64)[None, :], statistic, level,
                               seed, resamples)
    return _finite(low[0]), _finite(high[0])


def bootstrap_rows(values: np.ndarray, statistic, level: float = DEFAULT_LEVEL,
                   seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES
                   ) -> tuple[np.ndarray, np.ndarray]:
    """:func:`bootstrap_interval` of each row of ``values`` (rows × n, as many values each), in
    few scipy calls: every row gets the interval it would get alone, since a call draws its
    resampled positions from the seed and n only, the same for every row (the groups of a
    grouping that hold n queries). (low, high), NaN where undefined (n < 2)."""
    values = np.asarray(values, dtype=np.float64)
    rows, n = values.shape
    low, high = np.full(rows, np.nan), np.full(rows, np.nan)
    if n < 2 or rows == 0:
        return low, high
    from scipy import stats

    batch = bootstrap_batch(n)
    # rows per call: a call holds rows × its batch of resamples × n values
    step = max(1, _BATCH_VALUES // (min(batch, resamples) * n))
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")
        for start in range(0, rows, step):
            result = stats.bootstrap((values[start:start + step],), statistic, vectorized=True,
                                     axis=-1, confidence_level=level, n_resamples=resamples,
                                     method=CI_METHOD, batch=batch,
                                     rng=np.random.default_rng(seed))
            low[start:start + step], high[start:start + step] = result.confidence_interval
    return low, high
    batch = bootstrap_batch(n)
    # rows at a time: they hold rows × a batch of resamples × n values
    step = max(1, _BATCH_VALUES // (min(batch, resamples) * n))
    alpha = (1 - level) / 2
    with warnings.catch_warnings(), np.errstate(all="ignore"):
        warnings.simplefilter("ignore", RuntimeWarning)
        for start in range(0, rows, step):
            block, rng, resampled = values[start:start + step], np.random.default_rng(seed), []
            for done in range(0, resamples, batch):
                positions = rng.integers(0, n, (min(batch, resamples - done), n))
                resampled.append(statistic(block[:, positions], axis=-1))
            low[start:start + step], high[start:start + step] = np.quantile(
                np.concatenate(resampled, axis=-1), [alpha, 1 - alpha], axis=-1)
    return low, high


def interval_statistic(result, how: str = "mean") -> tuple[object, bool]:
    """What the interval of one measure's aggregate resamples (a
    :class:`~metrics.evaluation.evaluate.MeasureResult`): (the statistic, whether over the
    queries where the measure is defined only). Our measures: over the defined queries, the mean
    (the sum for the count measures, or ``how``); a protocol's column: over every query, the
    reference code's own aggregation (which decides what an undefined query counts for)."""
    if result.reduce is not None:
        return result.reduce, False
    return _STATISTICS["sum" if how == "mean" and result.is_summed else how], True


def check_level(level: float) -> None:
    if not 0 < level < 1:
        raise InputError(f"confidence level {level} must lie between 0 and 1, e.g. 0.95")


def aggregate_intervals(result, level: float = DEFAULT_LEVEL, seed: int = DEFAULT_SEED,
                        resamples: int = DEFAULT_RESAMPLES, how: str = "mean"
                        ) -> dict[str, tuple[float | None, float | None]]:
    """A bootstrap interval for each aggregate of an
    :class:`~metrics.evaluation.evaluate.EvaluationResult` (:func:`interval_statistic`). Every
    measure uses the same seed, so the same resampled queries."""
    check_level(level)
    out = {}
    for name, r in result.results.items():
        statistic, defined_only = interval_statistic(r, how)
        values = r.values[~np.isnan(r.values)] if defined_only else r.values
        out[name] = bootstrap_interval(values, statistic, level, seed, resamples)
    return out


def cohens_d(a: np.ndarray, b: np.ndarray) -> float | None:
    """Cohen's d for paired data (d_z) of B against A: mean(d)/sd(d), sd with n − 1; None where
    the paired t-test is undefined (:func:`why_undefined`: no spread, or fewer than two
    queries)."""
    if why_undefined(a, b) is not None:
        return None
    diff = b - a
    return float(diff.mean() / diff.std(ddof=1))


def holm(p_values: list[float | None]) -> list[float | None]:
    """Holm–Bonferroni step-down adjusted p-values (None stays None)."""
    indexed = [(p, i) for i, p in enumerate(p_values) if p is not None]
    indexed.sort()
    m = len(indexed)
    adjusted: list[float | None] = [None] * len(p_values)
    running = 0.0
    for rank, (p, i) in enumerate(indexed):
        running = max(running, min(1.0, (m - rank) * p))
        adjusted[i] = running
    return adjusted


def compare_systems(per_query: dict[str, dict[str, np.ndarray]], measures: list[str],
                    tests=TESTS, seed: int = DEFAULT_SEED,
                    resamples: int = DEFAULT_RESAMPLES) -> list[PairedTest]:
    """Every pair of systems (in the given order: A before B), every measure and test.

    ``per_query[system][measure]`` holds values aligned on the same queries. Holm's correction is
    applied within each (measure, test) over the pairs when more than two systems are compared.
    """
    systems = list(per_query)
    rows: list[PairedTest] = []
    for measure in measures:
        # what does not depend on the test, once per pair: the BCa bootstrap was a tenth of a
        # second each time, three times over on the Compare page's first view
        pairs = {}
        for name_a, name_b in itertools.combinations(systems, 2):
            a, b = paired_values(per_query[name_a][measure], per_query[name_b][measure])
            diff = b - a
            pairs[name_a, name_b] = (a, b, float(diff.mean()) if len(diff) else None,
                                     bootstrap_ci(diff, seed, resamples), cohens_d(a, b),
                                     len(diff), *win_tie_loss(a, b))
        for test in tests:
            family = []
            for (name_a, name_b), (a, b, mean_diff, ci, d, n, wins, ties, losses) in \
                    pairs.items():
                statistic, p = paired_test(a, b, test, seed, resamples)
                family.append(PairedTest(measure, name_a, name_b, test, statistic, p, p,
                                         mean_diff, ci, d, n, wins, ties, losses, seed,
                                         why_undefined(a, b, test)))
            if len(systems) > 2:
                adjusted = holm([row.p for row in family])
                family = [PairedTest(**{**asdict(row), "p_holm": adj, "ci": row.ci})
                          for row, adj in zip(family, adjusted)]
            rows.extend(family)
    return rows


@dataclass(frozen=True)
class Agreement:
    """How well a measure orders the answer sets as the user prefers them."""

    measure: str
    tau: float | None
    p: float | None
    tied_pairs: int          # pairs of answer sets the measure cannot tell apart


def order_agreement(values: dict[str, np.ndarray], preferred: list[str], names: list[str],
                    higher_is_better: dict[str, bool]) -> list[Agreement]:
    """Kendall's τ-b (scipy.stats.kendalltau) between the preferred order of the answer sets
    (first = best) and each measure's order, best agreement first; ties in a measure are counted
    and handled by τ-b."""
    from scipy import stats

    position = {name: i for i, name in enumerate(preferred)}
    preference = np.array([-position[n] for n in names], dtype=float)   # larger = better
    out = []
    for measure, raw in values.items():
        scores = np.asarray(raw, dtype=float) * (1 if higher_is_better.get(measure, True) else -1)
        defined = ~np.isnan(scores)
        tied = sum(1 for i in range(len(scores)) for j in range(i + 1, len(scores))
                   if defined[i] and defined[j] and scores[i] == scores[j])
        with warnings.catch_warnings():
            warnings.simplefilter("ignore")
            result = stats.kendalltau(preference[defined], scores[defined])
        out.append(Agreement(measure, _finite(result.statistic), _finite(result.pvalue), tied))
    return sorted(out, key=lambda a: -(a.tau if a.tau is not None else -2))
