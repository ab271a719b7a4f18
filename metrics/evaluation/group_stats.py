"""Measures by group of queries (the groups: :mod:`metrics.evaluation.groups`): per group each
system's aggregate with its bootstrap interval, and the paired test of two systems per group,
corrected for the number of groups.

A group's result is the overall result restricted to the group's queries, so a group's mean
follows the overall mean's rules exactly (:func:`group_aggregates`): a query where
a measure is undefined (no relevant item) is left out of that measure's mean, trec_eval's count
measures are summed, and a protocol's column is aggregated as its reference code does.
"""

from __future__ import annotations

import itertools
from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

from metrics.errors import InputError
from metrics.evaluation.evaluate import EvaluationResult
from metrics.evaluation.groups import Grouping
from metrics.evaluation.stats import (DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED,
                                      EQUAL_WITHIN_ULPS, bootstrap_rows, check_level, holm,
                                      interval_statistic, paired_t_rows, paired_test,
                                      why_undefined)


# ---- the results per group ---------------------------------------------------------------------
# Every group's statistic is computed at once for all the groups that hold as many queries: their
# values stacked as the rows of a matrix, the statistic taken along its rows, so that the cost is
# a few NumPy or scipy calls per distinct group size (at most √(2 × queries) of them), not a call
# per group (10,000 groups of two queries had taken a minute). A row is reduced as the group's
# values alone would be, so every number is the one the query-by-query definition gives.


def same_size_blocks(codes: np.ndarray, num_groups: int, kept: np.ndarray | None = None):
    """For each number s ≥ 1 of ``kept`` queries (all when None) that some groups hold: (those
    groups, ascending; a groups × s matrix of their kept queries' positions, each row in query
    order). ``codes``: each query's group (-1: none)."""
    inside = codes >= 0 if kept is None else (codes >= 0) & kept
    positions = np.flatnonzero(inside)
    order = positions[np.argsort(codes[positions], kind="stable")]
    sizes = np.bincount(codes[positions], minlength=num_groups)
    starts = np.cumsum(sizes) - sizes
    for size in np.unique(sizes[sizes > 0]):
        groups = np.flatnonzero(sizes == size)
        yield groups, order[starts[groups][:, None] + np.arange(size)]


def _measure_rows(result, how: str):
    """(the statistic of one measure's aggregate along rows, whether over the queries where it
    is defined only, the fewest values it takes), as :meth:`MeasureResult.aggregate` takes it:
    the statistic its interval resamples."""
    result.aggregate(how)   # the overall aggregate says if ``how`` is unknown or not the measure's
    statistic, defined_only = interval_statistic(result, how)
    return statistic, defined_only, 2 if how == "std" and defined_only else 1


@dataclass(frozen=True, eq=False)
class GroupAggregates:
    """Every group's aggregate of every measure for every system, as arrays: ``values[m]`` and
    ``defined[m]`` are groups × systems (NaN where the aggregate is undefined; the queries where
    the measure is defined), groups and systems in order."""

    grouping: Grouping
    systems: tuple[str, ...]
    num_queries: np.ndarray                  # the queries of each group
    values: dict[str, np.ndarray]
    defined: dict[str, np.ndarray]
    how: str = "mean"

    @property
    def measures(self) -> list[str]:
        return list(self.values)


def _check_queries(results: Mapping[str, EvaluationResult], groups: Grouping) -> None:
    for system, result in results.items():
        if len(result.query_ids) != len(groups.labels):
            raise InputError(f"{system} has {len(result.query_ids)} queries but the grouping "
                             f"has {len(groups.labels)}")


def group_aggregates(results: Mapping[str, EvaluationResult], groups: Grouping,
                     how: str = "mean") -> GroupAggregates:
    """Every group's aggregate (``how``: the mean, or the median or std) of every measure for
    every system, as the overall aggregate over the group's queries alone: over the queries
    where the measure is defined, trec_eval's count measures summed, a protocol's column as its
    reference code aggregates it."""
    _check_queries(results, groups)
    codes, count = groups.codes, len(groups.groups)
    systems = tuple(results)
    measures = next(iter(results.values())).measures
    values = {m: np.full((count, len(systems)), np.nan) for m in measures}
    defined = {m: np.zeros((count, len(systems)), dtype=np.int64) for m in measures}
    for j, result in enumerate(results.values()):
        for m in measures:
            r = result.results[m]
            statistic, defined_only, fewest = _measure_rows(r, how)
            known = ~np.isnan(r.values)
            defined[m][:, j] = np.bincount(codes[known & (codes >= 0)], minlength=count)
            for rows, positions in same_size_blocks(codes, count,
                                                    known if defined_only else None):
                if positions.shape[1] >= fewest:
                    values[m][rows, j] = statistic(r.values[positions], axis=-1)
    for array in values.values():
        array[~np.isfinite(array)] = np.nan
    return GroupAggregates(groups, systems, np.bincount(codes[codes >= 0], minlength=count),
                           values, defined, how)


def group_intervals(results: Mapping[str, EvaluationResult], groups: Grouping,
                    measures: Sequence[str], chosen: np.ndarray | None = None,
                    level: float = DEFAULT_LEVEL, seed: int = DEFAULT_SEED,
                    resamples: int = DEFAULT_RESAMPLES, how: str = "mean"
                    ) -> dict[str, tuple[np.ndarray, np.ndarray]]:
    """The percentile bootstrap interval of each group's aggregate, as the overall intervals are
    drawn (:func:`metrics.evaluation.stats.aggregate_intervals`, same seed): for each of
    ``measures``, (low, high), each groups × systems, NaN where undefined or not asked for. Only
    the ``chosen`` groups (indices; all when None): the resamples are the cost here, 10,000 per
    group, system and measure."""
    check_level(level)
    _check_queries(results, groups)
    count = len(groups.groups)
    wanted = np.ones(count, dtype=bool) if chosen is None else np.isin(np.arange(count), chosen)
    codes = np.where(wanted[groups.codes] & (groups.codes >= 0), groups.codes, -1)
    out = {}
    for m in measures:
        low, high = (np.full((count, len(results)), np.nan) for _ in range(2))
        for j, result in enumerate(results.values()):
            r = result.results[m]
            statistic, defined_only = interval_statistic(r, how)
            for rows, positions in same_size_blocks(codes, count,
                                                    ~np.isnan(r.values) if defined_only
                                                    else None):
                low[rows, j], high[rows, j] = bootstrap_rows(r.values[positions], statistic,
                                                             level, seed, resamples)
        out[m] = (low, high)
    return out


@dataclass(frozen=True)
class GroupMeans:
    """One system's means over one group's queries (each measure over the queries where it is
    defined) and, when asked for, their bootstrap intervals."""

    group: str
    system: str
    num_queries: int
    defined: dict[str, int]                  # queries where each measure is defined
    means: dict[str, float | None]
    intervals: dict[str, tuple[float | None, float | None]] | None = None


def group_means(results: Mapping[str, EvaluationResult], groups: Grouping,
                level: float | None = DEFAULT_LEVEL, seed: int = DEFAULT_SEED,
                resamples: int = DEFAULT_RESAMPLES, how: str = "mean") -> list[GroupMeans]:
    """Every group's aggregates for every system (:func:`group_aggregates`), in group order then
    system order; with ``level`` (None: no intervals) each one's interval
    (:func:`group_intervals`, every group)."""
    table = group_aggregates(results, groups, how)
    intervals = None if level is None else group_intervals(
        results, groups, table.measures, None, level, seed, resamples, how)

    def number(array, i, j):
        return None if np.isnan(array[i, j]) else float(array[i, j])

    return [GroupMeans(group, system, int(table.num_queries[i]),
                       {m: int(table.defined[m][i, j]) for m in table.measures},
                       {m: number(table.values[m], i, j) for m in table.measures},
                       None if intervals is None else
                       {m: (number(low, i, j), number(high, i, j))
                        for m, (low, high) in intervals.items()})
            for i, group in enumerate(groups.groups) for j, system in enumerate(table.systems)]


# a chart shows every group up to this many (the covers' 137 artists, a row each), and of more
# groups this many largest, best and worst
CHART_ALL, CHART_EACH = 200, 10


def charted_groups(aggregates: GroupAggregates, measure: str, higher_is_better: bool = True,
                   each: int = CHART_EACH, every: int = CHART_ALL) -> np.ndarray:
    """The groups a chart shows (indices): every group, in order, when there are at most
    ``every``; else the ``each`` with the most queries, the ``each`` best and the ``each``
    worst by the systems' mean of their ``measure`` (groups where it is undefined are not best
    nor worst), best first, those without a value last."""
    count = len(aggregates.grouping.groups)
    if count <= every:
        return np.arange(count)
    values = aggregates.values[measure]
    known = ~np.isnan(values).all(axis=1)
    score = np.full(count, np.nan)
    score[known] = np.nanmean(values[known], axis=1)
    largest = np.argsort(-aggregates.num_queries, kind="stable")[:each]
    better = -score if higher_is_better else score   # lower is better; ties in group order
    ranked = np.flatnonzero(known)
    best = ranked[np.argsort(better[ranked], kind="stable")][:each]
    worst = ranked[np.argsort(-better[ranked], kind="stable")][:each]
    chosen = np.unique(np.concatenate([largest, best, worst]))
    return chosen[np.argsort(np.where(np.isnan(better[chosen]), np.inf, better[chosen]),
                             kind="stable")]


@dataclass(frozen=True)
class GroupDifference:
    """B − A in one group on one measure: the paired test over the group's queries where both
    systems have a value, its p corrected over the groups (Holm)."""

    group: str
    measure: str
    a: str
    b: str
    test: str
    n: int
    mean_diff: float | None
    p: float | None
    p_corrected: float | None
    undefined: str | None = None   # why p is None (stats.why_undefined)


def _group_tests(a: np.ndarray, b: np.ndarray, groups: Grouping, test: str, seed: int,
                 resamples: int):
    """Each group's (n, mean B − A, p, why p is undefined) over its queries where both systems
    have a value: the t-test of all the groups of one size at once (along rows, as a group's
    values alone give it), the other tests group by group."""
    count = len(groups.groups)
    n = np.zeros(count, dtype=np.int64)
    diff, p = np.full(count, np.nan), np.full(count, np.nan)
    why: list[str | None] = [None] * count
    both = ~np.isnan(a) & ~np.isnan(b)
    n[:] = np.bincount(groups.codes[both & (groups.codes >= 0)], minlength=count)
    for rows, positions in same_size_blocks(groups.codes, count, both):
        first, second = a[positions], b[positions]
        diff[rows] = (second - first).mean(axis=-1)
        undefined = [why_undefined(first[i], second[i], test) for i in range(len(rows))] \
            if test != "t" or positions.shape[1] < 2 else _why_t_undefined(first, second)
        for i, reason in enumerate(undefined):
            why[rows[i]] = reason
        tested = np.array([reason is None for reason in undefined], dtype=bool)
        if not tested.any():
            continue
        if test == "t":
            p[rows[tested]] = paired_t_rows(first[tested], second[tested])
        else:
            p[rows[tested]] = [np.nan if q is None else q for q in
                               (paired_test(first[i], second[i], test, seed, resamples)[1]
                                for i in np.flatnonzero(tested))]
    if (n == 0).any():   # in no block: no query has a value for both systems
        none = why_undefined(np.empty(0), np.empty(0), test)
        why = [none if n[i] == 0 else reason for i, reason in enumerate(why)]
    p[~np.isfinite(p)] = np.nan
    return n, diff, p, why


def _why_t_undefined(first: np.ndarray, second: np.ndarray) -> list[str | None]:
    """:func:`why_undefined` of the t-test for each row (rows of two or more queries), asked only
    of the rows whose differences are equal to their values' rounding, which it words."""
    spread = (second - first).max(axis=-1) - (second - first).min(axis=-1)
    scale = np.maximum(np.abs(first).max(axis=-1), np.abs(second).max(axis=-1))
    equal = spread <= EQUAL_WITHIN_ULPS * np.spacing(scale)
    return [why_undefined(first[i], second[i], "t") if equal[i] else None
            for i in range(len(first))]


def group_differences(per_query: Mapping[str, Mapping[str, np.ndarray]], measures: Sequence[str],
                      groups: Grouping, tests: Sequence[str] = ("t",),
                      seed: int = DEFAULT_SEED, resamples: int = DEFAULT_RESAMPLES
                      ) -> list[GroupDifference]:
    """Every pair of systems (A before B, in the given order), measure and test, in every group;
    Holm's correction over the groups of each (pair, measure, test): testing each of k groups
    is k tests."""
    rows = []
    for (name_a, name_b), measure, test in itertools.product(
            itertools.combinations(list(per_query), 2), measures, tests):
        n, diff, p, why = _group_tests(np.asarray(per_query[name_a][measure], dtype=float),
                                       np.asarray(per_query[name_b][measure], dtype=float),
                                       groups, test, seed, resamples)
        raw = [None if np.isnan(v) else float(v) for v in p]
        rows.extend(GroupDifference(group, measure, name_a, name_b, test, int(n[i]),
                                    float(diff[i]) if n[i] else None, raw[i], adjusted, why[i])
                    for i, (group, adjusted) in enumerate(zip(groups.groups, holm(raw))))
    return rows
