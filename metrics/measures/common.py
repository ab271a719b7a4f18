"""Array helpers shared by the measures."""

from __future__ import annotations

import numpy as np

from ..model import JudgedRanking


def divide(numerator, denominator, where_zero: float = np.nan) -> np.ndarray:
    """numerator / denominator, with ``where_zero`` where the denominator is 0."""
    num = np.asarray(numerator, dtype=np.float64)
    den = np.asarray(denominator, dtype=np.float64)
    out = np.full(np.broadcast(num, den).shape, where_zero, dtype=np.float64)
    np.divide(num, den, out=out, where=den != 0)
    return out


def true_positives(j: JudgedRanking, threshold: int, cutoff: int | None) -> np.ndarray:
    return j.relevant(threshold, cutoff).sum(axis=1)


def relevant_hits(j: JudgedRanking, threshold: int, cutoff: int | None):
    """Every retrieved relevant item (grade >= threshold, within the first ``cutoff`` ranks) as
    three aligned arrays in query order: its query, its rank r and TP(r), the relevant items up
    to and including it. A query has a few relevant items among up to thousands of ranks, so
    measures that only read χ at relevant ranks work on these instead of full matrices."""
    query, position = np.nonzero(j.relevant(threshold, cutoff))  # row-major: grouped by query
    first = np.searchsorted(query, np.arange(j.num_queries))
    hit = np.arange(1, len(query) + 1) - first[query]
    return query, position + 1, hit


def per_query_sum(j: JudgedRanking, query: np.ndarray, values) -> np.ndarray:
    """Σ of ``values`` over the entries of each query (0 for a query with none)."""
    return np.bincount(query, weights=np.broadcast_to(values, query.shape).astype(np.float64),
                       minlength=j.num_queries)


def precision_recall_at_ranks(j: JudgedRanking, threshold: int, cutoff: int | None):
    """χ, cumulative TP, P(r) and R(r) as queries × ranks arrays over the first ``cutoff`` ranks."""
    rel = j.relevant(threshold, cutoff)
    cum = np.cumsum(rel, axis=1)
    ranks = j.ranks[: rel.shape[1]]
    precision = cum / ranks
    recall = divide(cum, j.num_relevant(threshold)[:, None])
    return rel, cum, precision, recall


def f_measure(precision, recall, beta: float = 1.0) -> np.ndarray:
    """(1 + β²)·P·R / (β²·P + R), 0 when P and R are both 0."""
    b2 = beta * beta
    value = divide((1 + b2) * precision * recall, b2 * precision + recall, where_zero=0.0)
    return np.where(np.isnan(recall), np.nan, value)


def rank_matrix(j: JudgedRanking, width: int) -> np.ndarray:
    return np.broadcast_to(j.ranks[:width], (j.num_queries, width))
