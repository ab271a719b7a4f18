"""Segment operations over a judged ranking's hits, shared by the measures.

A query has a handful of judged items among up to millions of ranks, so every measure works on
the hits (ragged per query, in rank order) with per-query sums (``np.bincount``) and cumulative
sums inside each query's segment — never on a queries × ranks matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.data.relevance import Relevance


def divide(numerator, denominator, where_zero: float = np.nan) -> np.ndarray:
    """numerator / denominator, with ``where_zero`` where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, where_zero, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def per_query_sum(j: JudgedRanking, query: np.ndarray, values) -> np.ndarray:
    """Σ of ``values`` over the entries of each query (0 for a query with none)."""
    return np.bincount(query, weights=np.broadcast_to(values, query.shape).astype(np.float64),
                       minlength=j.num_queries)


def per_query_count(j: JudgedRanking, query: np.ndarray) -> np.ndarray:
    return np.bincount(query, minlength=j.num_queries).astype(np.int64)


def place_in_query(query: np.ndarray, num_queries: int) -> np.ndarray:
    """0-based place of each entry among its query's entries (``query`` grouped, ascending)."""
    first = np.searchsorted(query, np.arange(num_queries))
    return np.arange(len(query)) - first[query]


def before_in_query(query: np.ndarray, values: np.ndarray, num_queries: int) -> np.ndarray:
    """For each entry, the sum of ``values`` over the earlier entries of the same query
    (``query`` grouped, ascending): how many have a flag set, for booleans."""
    if values.dtype.kind == "f":
        return sum_before(query, values)
    flags = values.astype(np.int64) if values.dtype == bool else values
    total = np.cumsum(flags)
    first = np.searchsorted(query, np.arange(num_queries))
    start_total = np.r_[0, total][first[query]]
    return total - flags - start_total


def sum_before(group: np.ndarray, values: np.ndarray) -> np.ndarray:
    """For each entry, the sum of the float ``values`` of the earlier entries of its group
    (``group`` grouped, ascending), added one by one from 0 in each group.

    One running sum over every group would carry the groups before into each difference (a
    million small weights after a few large ones lose their last digits); so after each group the
    running sum gets minus the group's total, which ``np.bincount`` adds in the same order from 0
    — the same double — and every group starts again from exactly 0."""
    values = np.asarray(values, dtype=np.float64)
    if not len(values):
        return values.copy()
    new = np.r_[True, group[1:] != group[:-1]]
    index = np.cumsum(new) - 1                      # dense group number of each entry
    totals = np.bincount(index, weights=values)
    last = np.flatnonzero(np.r_[new[1:], True])     # the last entry of each group
    running = np.cumsum(np.insert(values, last + 1, -totals))
    return np.r_[0.0, running][np.arange(len(values)) + index]


def split_by_bit(entry, first, end, level, weight, bit, at_least, below) -> tuple:
    """One pass of :func:`earlier_by_level` over the entries in their current order: ``entry``
    (which entry is at each position) in nodes of entries whose levels agree above ``bit``, the
    node of each position running from ``first`` to ``end`` (exclusive). An earlier entry of the
    node with the bit set where this one has it clear has a higher level (counted in
    ``at_least``); one with it clear where this one has it set, a lower level (its weight added
    to ``below``). Returns ``entry``, ``first`` and ``end`` with every node split stably by the
    bit, clear first."""
    clear = ((level[entry] >> bit) & 1) == 0
    zeros = np.cumsum(clear)
    zeros_at_first = (zeros - clear)[first]
    zeros_before = zeros - clear - zeros_at_first
    zeros_in_node = zeros[end - 1] - zeros_at_first
    position = np.arange(len(entry))
    ones_before = position - first - zeros_before
    at_least[entry] += np.where(clear, ones_before, 0)
    below[entry] += np.where(clear, 0.0, sum_before(first, np.where(clear, weight[entry], 0.0)))
    target = np.where(clear, first + zeros_before, first + zeros_in_node + ones_before)
    split = first + zeros_in_node
    moved = np.empty_like(entry), np.empty_like(first), np.empty_like(end)
    moved[0][target] = entry
    moved[1][target] = np.where(clear, first, split)
    moved[2][target] = np.where(clear, split, end)
    return moved


def earlier_by_level(query: np.ndarray, level: np.ndarray,
                     weight: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """For each entry (``query`` grouped, ascending; ``level`` integers >= 0): how many earlier
    entries of its query have a level >= its own, and the sum of ``weight`` over those whose
    level is below its own.

    A wavelet-tree sweep: entries are split stably by each bit of the level, the highest first,
    inside nodes that share the query and the bits above (:func:`split_by_bit`), so two entries
    are compared at the highest bit where their levels differ, and entries left in one node at
    the end have equal levels. One pass over the entries per bit: O(n log L) for L levels, never
    a pass per level."""
    n = len(level)
    at_least, below = np.zeros(n, dtype=np.int64), np.zeros(n)
    if not n:
        return at_least, below
    entry = np.arange(n)
    starts = np.flatnonzero(np.r_[True, query[1:] != query[:-1]])
    node = np.cumsum(np.r_[True, query[1:] != query[:-1]]) - 1
    first, end = starts[node], np.r_[starts[1:], n][node]
    for bit in reversed(range(int(level.max()).bit_length())):
        entry, first, end = split_by_bit(entry, first, end, level, weight, bit, at_least, below)
    at_least[entry] += np.arange(n) - first   # the earlier entries of equal level
    return at_least, below


@dataclass(frozen=True)
class Hits:
    """The retrieved relevant items (at the threshold, within the cutoff), in query order: their
    query, rank r, grade and TP(r) (relevant items up to and including this one)."""

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    tp: np.ndarray


def relevant_hits(j: JudgedRanking, threshold: int, cutoff: int | None) -> Hits:
    mask = Relevance(threshold).relevant(j.hit_grades) & j.within(cutoff)
    query = j.hit_query[mask]
    return Hits(query, j.hit_ranks[mask], j.hit_grades[mask],
                place_in_query(query, j.num_queries) + 1)


def true_positives(j: JudgedRanking, threshold: int, cutoff) -> np.ndarray:
    """TP: relevant items within the cutoff (an int, one per query, or None), per query; under
    ``expected`` ties, its mean over the orderings of tied items (a sum of rank weights)."""
    relevant = Relevance(threshold).relevant(j.hit_grades)
    return per_query_sum(j, j.hit_query[relevant], j.rank_weights(cutoff)[relevant])


def precision_sum(j: JudgedRanking, threshold: int, cutoff) -> np.ndarray:
    """Σ of P(r) = TP(r)/r over the relevant ranks r within the cutoff, per query: AP's
    numerator; under ``expected`` ties its mean over the orderings of tied items
    (:func:`metrics.ranking.tie_aware.expected_precision_sum`)."""
    if j.expected_ties:
        from metrics.ranking.tie_aware import expected_precision_sum
        return expected_precision_sum(j, threshold, cutoff)
    hits = relevant_hits(j, threshold, cutoff)
    return per_query_sum(j, hits.query, hits.tp / hits.rank)


def first_relevant_rank(j: JudgedRanking, threshold: int, cutoff: int | None) -> np.ndarray:
    """Rank of the first relevant item per query, NaN when none is retrieved."""
    hits = relevant_hits(j, threshold, cutoff)
    out = np.full(j.num_queries, np.nan)
    first = hits.tp == 1
    out[hits.query[first]] = hits.rank[first]
    return out


def f_measure(precision, recall, beta: float = 1.0) -> np.ndarray:
    """(1 + β²)·P·R / (β²·P + R), 0 when P and R are both 0."""
    b2 = beta * beta
    value = divide((1 + b2) * precision * recall, b2 * precision + recall, where_zero=0.0)
    return np.where(np.isnan(recall), np.nan, value)
