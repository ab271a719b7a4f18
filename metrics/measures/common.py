"""Segment operations over a judged ranking's hits, shared by the measures.

A query has a handful of judged items among up to millions of ranks, so every measure works on
the hits (ragged per query, in rank order) with per-query sums (``np.bincount``) and cumulative
sums inside each query's segment — never on a queries × ranks matrix.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.data.judged import JudgedRanking


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
    flags = values.astype(np.int64) if values.dtype == bool else values
    total = np.cumsum(flags)
    first = np.searchsorted(query, np.arange(num_queries))
    start_total = np.r_[0, total][first[query]]
    return total - flags - start_total


@dataclass(frozen=True)
class Hits:
    """The retrieved relevant items (grade >= threshold, within the cutoff), in query order: their
    query, rank r, grade and TP(r) (relevant items up to and including this one)."""

    query: np.ndarray
    rank: np.ndarray
    grade: np.ndarray
    tp: np.ndarray


def relevant_hits(j: JudgedRanking, threshold: int, cutoff: int | None) -> Hits:
    mask = (j.hit_grades >= max(threshold, 1)) & j.within(cutoff)
    query = j.hit_query[mask]
    return Hits(query, j.hit_ranks[mask], j.hit_grades[mask],
                place_in_query(query, j.num_queries) + 1)


def true_positives(j: JudgedRanking, threshold: int, cutoff) -> np.ndarray:
    """TP: relevant items within the cutoff (an int, one per query, or None), per query; under
    ``expected`` ties, its mean over the orderings of tied items (a sum of rank weights)."""
    relevant = j.hit_grades >= max(threshold, 1)
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
