"""Many systems at once: a leaderboard of means with intervals, each system tested against a
baseline and against the best, a pairwise matrix of one measure, and the groups of systems that
cannot be told apart — with the p-values corrected for the number of comparisons.

The corrections and the p-values each gives are :class:`~metrics.evaluation.corrections.
Correction`'s (the method is named wherever a p-value is shown).

Per-query values are compared over the queries where every system has a value, so each test of a
family sees the same queries (a query where the measure is undefined for any system is left out
of every test, Tukey's two-way table included: the table must be complete).
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.errors import InputError
from metrics.evaluation.corrections import Correction
from metrics.evaluation.stats import (DEFAULT_ALPHA, DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED,
                                      bootstrap_rows)


def common_queries(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    """Every system's values on the queries where all systems have one."""
    stacked = np.vstack([np.asarray(v, dtype=np.float64) for v in values.values()])
    keep = ~np.isnan(stacked).any(axis=0)
    return {name: row[keep] for name, row in zip(values, stacked)}


def _check(values: dict[str, np.ndarray]) -> dict[str, np.ndarray]:
    if len(values) < 2:
        raise InputError("a comparison needs at least two systems")
    return common_queries(values)


@dataclass(frozen=True)
class PairwiseMatrix:
    """One measure, every pair of systems: mean difference (column − row) and corrected p."""

    systems: tuple[str, ...]
    means: np.ndarray         # each system's mean over the common queries
    mean_diff: np.ndarray     # [i, j] = mean(system j) − mean(system i)
    p_adjusted: np.ndarray    # symmetric; NaN where undefined, 1 on the diagonal
    correction: Correction
    n: int
    undefined: str | None = None   # why no pair has a p (Correction.why_undefined)

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


def pairwise_matrix(values: dict[str, np.ndarray], correction: Correction = Correction.HOLM,
                    seed: int = DEFAULT_SEED) -> PairwiseMatrix:
    """Every pair of systems on one measure, p-values corrected over all k(k − 1)/2 pairs."""
    values = _check(values)
    names = tuple(values)
    means = np.array([values[name].mean() if len(values[name]) else np.nan for name in names])
    diff = means[None, :] - means[:, None]
    return PairwiseMatrix(names, means, diff, correction.all_pairs(values, seed), correction,
                          len(values[names[0]]), correction.why_undefined(values))


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
                baseline: str | None = None, correction: Correction = Correction.HOLM,
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
        values = _check({s: per_query[s][measure] for s in systems})
        means = {s: float(v.mean()) if len(v) else None for s, v in values.items()}
        defined = [s for s in systems if means[s] is not None]
        better = max if (higher_is_better or {}).get(measure, True) else min
        best = better(defined, key=lambda s: means[s]) if defined else None
        # Tukey's test of all pairs, once for both references
        all_pairs = correction.all_pairs(values, seed) if correction.tests_all_pairs_at_once \
            else None
        p_base = correction.against(values, baseline, seed, all_pairs)
        p_best = correction.against(values, best, seed, all_pairs) if best is not None else {}
        # every system's interval in one call: each is the one it would get alone (the same
        # resampled queries, drawn from the seed and the number of queries)
        lows, highs = bootstrap_rows(np.vstack([values[s] for s in systems]), np.mean, level,
                                     seed, resamples)
        for s, low, high in zip(systems, lows, highs):
            interval = (_finite(low), _finite(high))
            rows.append(LeaderboardRow(
                s, measure, means[s], interval, s == best,
                _difference(means[s], means[baseline]), p_base.get(s),
                _difference(means[s], means.get(best)) if best else None, p_best.get(s)))
    return rows


def _finite(value: float) -> float | None:
    return float(value) if np.isfinite(value) else None


def _difference(a, b):
    return None if a is None or b is None else a - b
