"""Many systems at once: a leaderboard of means with intervals, each system tested against a
baseline and against the best, a pairwise matrix of one measure, and the groups of systems that
cannot be told apart — with the p-values corrected for the number of comparisons.

Corrections (the method is named wherever a p-value is shown):

* ``holm`` — Holm's step-down over the family of paired t-tests (:func:`metrics.evaluation.stats.
  holm`);
* ``bh`` — Benjamini–Hochberg's false discovery rate over the same family
  (``scipy.stats.false_discovery_control``);
* ``tukey`` — Tukey's honestly significant difference over all pairs of systems on the residual
  of the two-way ANOVA without replication (systems × queries), as Sakai does for IR (Laboratory
  Experiments in Information Retrieval, 2018): every system ran the same queries, so the
  queries' own difficulty is taken out of the error, rather than treating the systems' values as
  independent samples (``scipy.stats.tukey_hsd``, a one-way test). With k systems and n queries,
  q = |ȳᵢ − ȳⱼ| / √(MSE / n), MSE the residual mean square with (k − 1)(n − 1) degrees of
  freedom, and p = P(Q > q) for the studentized range of k means
  (``scipy.stats.studentized_range``). Against the baseline and the best, its all-pairs p-values
  are read off.

Per-query values are compared over the queries where every system has a value, so each test of a
family sees the same queries (a query where the measure is undefined for any system is left out
of every test, Tukey's two-way table included: the table must be complete).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.errors import InputError
from metrics.evaluation.stats import (DEFAULT_ALPHA, DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED,
                                      bootstrap_interval, holm, paired_test)

CORRECTIONS = {"holm": "Holm's step-down correction of paired t-tests",
               "bh": "Benjamini–Hochberg correction of paired t-tests",
               "tukey": "Tukey's HSD over all pairs of systems, paired by query (on the "
                        "residual of the two-way ANOVA systems × queries)"}


def _correct(p_values: list[float | None], correction: str) -> list[float | None]:
    if correction == "holm":
        return holm(p_values)
    if correction != "bh":
        raise InputError(f"unknown correction {correction!r}; use one of "
                         f"{', '.join(CORRECTIONS)}")
    from scipy.stats import false_discovery_control

    known = [i for i, p in enumerate(p_values) if p is not None]
    adjusted: list[float | None] = [None] * len(p_values)
    if known:
        values = false_discovery_control([p_values[i] for i in known], method="bh")
        for i, value in zip(known, np.atleast_1d(values)):
            adjusted[i] = float(value)
    return adjusted


def common_queries(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every system's values on the queries where all systems have one."""
    stacked = np.vstack([np.asarray(v, dtype=np.float64) for v in values.values()])
    keep = ~np.isnan(stacked).any(axis=0)
    return {name: row[keep] for name, row in zip(values, stacked)}


def _check(values: dict[str, np.ndarray], correction: str) -> dict[str, np.ndarray]:
    if correction not in CORRECTIONS:
        raise InputError(f"unknown correction {correction!r}; use one of "
                         f"{', '.join(CORRECTIONS)}")
    if len(values) < 2:
        raise InputError("a comparison needs at least two systems")
    return common_queries(values)


def tukey_p_values(values: dict[str, np.ndarray]) -> np.ndarray:
    """Tukey's HSD p-values of every pair of systems, paired by query: the residual mean square of
    the two-way ANOVA without replication (systems × queries) is the error (a symmetric matrix, 1
    on the diagonal; NaN with fewer than two queries, where the residual has no degree of
    freedom)."""
    from scipy.stats import studentized_range

    table = np.vstack([np.asarray(v, dtype=np.float64) for v in values.values()])
    k, n = table.shape
    p = np.ones((k, k))
    if n < 2:
        return np.full((k, k), np.nan)
    system_means, query_means = table.mean(axis=1), table.mean(axis=0)
    residual = table - system_means[:, None] - query_means[None, :] + table.mean()
    df = (k - 1) * (n - 1)
    mse = float((residual ** 2).sum()) / df
    # a residual no larger than the rounding of the means it subtracts is none (each system a
    # constant shift of another): taken as 0, not as an error of 1e-17 with its own p
    if np.sqrt(mse) <= 16 * np.finfo(np.float64).eps * max(1.0, float(np.abs(table).max())):
        mse = 0.0
    for i in range(k):
        for j in range(i + 1, k):
            diff = abs(system_means[i] - system_means[j])
            if diff == 0:
                continue                    # equal means: nothing differs (q = 0, p = 1)
            # an error of 0 (each system a constant shift of another on every query) and
            # different means: the difference is certain, p = 0
            q = diff / np.sqrt(mse / n) if mse > 0 else np.inf
            p[i, j] = p[j, i] = 0.0 if np.isinf(q) else float(studentized_range.sf(q, k, df))
    return p


@dataclass(frozen=True)
class PairwiseMatrix:
    """One measure, every pair of systems: mean difference (column − row) and corrected p."""

    systems: tuple[str, ...]
    means: np.ndarray         # each system's mean over the common queries
    mean_diff: np.ndarray     # [i, j] = mean(system j) − mean(system i)
    p_adjusted: np.ndarray    # symmetric; NaN where undefined, 1 on the diagonal
    correction: str
    n: int

    def groups(self, alpha: float = DEFAULT_ALPHA) -> list[tuple[str, ...]]:
        """The groups of systems that cannot be told apart: systems in order of their mean
        (best first), and each maximal run of consecutive systems in which no pair differs
        significantly at ``alpha`` (a system may be in several groups)."""
        order = list(np.argsort(-self.means, kind="stable"))
        p = np.where(np.isnan(self.p_adjusted), 1.0, self.p_adjusted)
        runs: list[tuple[int, int]] = []
        for start in range(len(order)):
            end = start
            while end + 1 < len(order) and all(p[order[k], order[end + 1]] >= alpha
                                               for k in range(start, end + 1)):
                end += 1
            if not runs or end > runs[-1][1]:
                runs.append((start, end))
        return [tuple(self.systems[order[k]] for k in range(a, b + 1)) for a, b in runs]


def pairwise_matrix(values: dict[str, np.ndarray], correction: str = "holm",
                    seed: int = DEFAULT_SEED) -> PairwiseMatrix:
    """Every pair of systems on one measure, p-values corrected over all k(k − 1)/2 pairs."""
    values = _check(values, correction)
    names = tuple(values)
    k = len(names)
    means = np.array([values[name].mean() if len(values[name]) else np.nan for name in names])
    diff = means[None, :] - means[:, None]
    if correction == "tukey":
        p = tukey_p_values(values)
    else:
        pairs = [(i, j) for i in range(k) for j in range(i + 1, k)]
        raw = [paired_test(values[names[i]], values[names[j]], "t", seed)[1] for i, j in pairs]
        p = np.ones((k, k))
        for (i, j), value in zip(pairs, _correct(raw, correction)):
            p[i, j] = p[j, i] = np.nan if value is None else value
    return PairwiseMatrix(names, means, diff, p, correction, len(values[names[0]]))


@dataclass(frozen=True)
class LeaderboardRow:
    system: str
    measure: str
    mean: float | None
    ci: tuple[float | None, float | None]
    best: bool                         # has the best mean of the column
    diff_baseline: float | None        # mean − the baseline's mean
    p_baseline: float | None           # corrected p against the baseline (None for itself)
    diff_best: float | None
    p_best: float | None


def leaderboard(per_query: dict[str, dict[str, np.ndarray]], measures: list[str],
                baseline: str | None = None, correction: str = "holm",
                higher_is_better: dict[str, bool] | None = None, level: float = DEFAULT_LEVEL,
                seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES
                ) -> list[LeaderboardRow]:
    """Systems × measures: the mean over the common queries with its percentile bootstrap
    interval, and each system against ``baseline`` (default: the first system) and against the
    best system of the column, with p-values corrected within each family (one per measure and
    reference) of k − 1 paired t-tests, or read off Tukey's all-pairs test."""
    systems = list(per_query)
    baseline = systems[0] if baseline is None else baseline
    if baseline not in per_query:
        raise InputError(f"no system named {baseline!r}; the systems are {', '.join(systems)}")
    rows = []
    for measure in measures:
        values = _check({s: per_query[s][measure] for s in systems}, correction)
        means = {s: float(v.mean()) if len(v) else None for s, v in values.items()}
        defined = [s for s in systems if means[s] is not None]
        better = max if (higher_is_better or {}).get(measure, True) else min
        best = better(defined, key=lambda s: means[s]) if defined else None
        tukey = tukey_p_values(values) if correction == "tukey" else None

        def against(reference):
            others = [s for s in systems if s != reference]
            if tukey is not None:
                r = systems.index(reference)
                return {s: _finite_or_none(tukey[r, systems.index(s)]) for s in others}
            raw = [paired_test(values[reference], values[s], "t", seed)[1] for s in others]
            return dict(zip(others, _correct(raw, correction)))

        p_base = against(baseline)
        p_best = against(best) if best is not None else {}
        for s in systems:
            interval = bootstrap_interval(values[s], np.mean, level, seed, resamples)
            rows.append(LeaderboardRow(
                s, measure, means[s], interval, s == best,
                _difference(means[s], means[baseline]), p_base.get(s),
                _difference(means[s], means.get(best)) if best else None, p_best.get(s)))
    return rows


def _difference(a, b):
    return None if a is None or b is None else a - b


def _finite_or_none(value) -> float | None:
    return float(value) if np.isfinite(value) else None
