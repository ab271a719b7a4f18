"""Curves along the ranking: χ(r), P(r), R(r), F(r), the PR curve (raw, 11-point interpolated and
exact interpolated), ROC with its AUC, and Serrà's normalised lift curve.

Summaries over queries — interpolated precision, the mean lift curve, the AUC — are computed for
all queries at once from the relevant hits and the list lengths. The curves of one query along its
whole list are built for that query alone, for display.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.errors import CollectionSizeNeeded
from metrics.data.judged import JudgedRanking
from metrics.data.relevance import Relevance
from metrics.measures.common import divide, f_measure, per_query_count, relevant_hits
# interpolated precision is the IPrec@r measure's, the one implementation; the curves read it too
from metrics.measures.interpolated import RECALL_LEVELS, interpolated_precision  # noqa: F401


@dataclass(frozen=True)
class RankCurves:
    """One query's χ(r), TP(r), P(r), R(r) and F(r) for r = 1..|A| (R and F are NaN when the
    query has no relevant item)."""

    chi: np.ndarray
    true_positives: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f: np.ndarray


def rank_curves(j: JudgedRanking, query: int, threshold: int = 1, beta: float = 1.0) -> RankCurves:
    """The FMP C7S3 table of one query: χ(r), P(r) = TP(r)/r, R(r) = TP(r)/R_q, F(r)."""
    grades, _ = j.dense_grades(query)
    chi = Relevance(threshold).relevant(grades).astype(np.float64)
    tp = np.cumsum(chi)
    precision = tp / np.arange(1, len(chi) + 1)
    recall = divide(tp, j.num_relevant(threshold)[query])
    return RankCurves(chi, tp, precision, recall, f_measure(precision, recall, beta))


def mean_interpolated_precision(j: JudgedRanking, threshold: int = 1,
                                values: np.ndarray | None = None) -> np.ndarray:
    """The 11-point interpolated PR curve averaged over queries with R_q > 0 (``values``: the
    queries' interpolated precision, when already computed)."""
    values = interpolated_precision(j, threshold) if values is None else values
    defined = ~np.isnan(values).any(axis=1)
    return values[defined].mean(axis=0) if defined.any() else np.full(len(RECALL_LEVELS), np.nan)


def exact_interpolated_precision(curves: RankCurves) -> np.ndarray:
    """One query's interpolated precision at every rank: the highest P(r') at any rank r' whose
    R(r') is at least R(r) (the staircase drawn over the raw PR curve). R(r') >= R(r) holds
    from the rank of the last relevant item at or before r on (rank 1 when there is none), so
    the value is the largest precision from that rank to the end of the list."""
    p = curves.precision
    if not len(p):
        return p
    from_here = np.maximum.accumulate(p[::-1])[::-1]
    positions = np.arange(len(p))
    last_hit = np.maximum.accumulate(np.where(curves.chi > 0, positions, 0))
    return from_here[last_hit]


@dataclass(frozen=True)
class RocCurve:
    """One query's false and true positive rates after each rank, from (0, 0) to (1, 1), and its
    area. Unretrieved items are taken to follow the list in unknown order, so the last segment is
    a straight line."""

    fpr: np.ndarray
    tpr: np.ndarray
    auc: float


def _negatives(j: JudgedRanking, threshold: int) -> np.ndarray:
    if j.collection_sizes is None:
        raise CollectionSizeNeeded("the ROC curve needs the collection size |D|, which this "
                                   "data does not give")
    return j.collection_sizes - j.num_relevant(threshold)


def roc_curve(j: JudgedRanking, query: int, threshold: int = 1) -> RocCurve:
    """ROC of one query: TPR(r) = TP(r)/R_q, FPR(r) = FP(r)/(|D| − R_q). Needs |D|."""
    negatives = float(_negatives(j, threshold)[query])
    curves = rank_curves(j, query, threshold)
    r_q = float(j.num_relevant(threshold)[query])
    fp = np.arange(1, len(curves.chi) + 1) - curves.true_positives
    tpr = np.r_[0.0, divide(curves.true_positives, r_q), 1.0]
    fpr = np.r_[0.0, divide(fp, negatives, 0.0), 1.0]
    return RocCurve(fpr, tpr, float(roc_auc(j, threshold)[query]))


def roc_auc(j: JudgedRanking, threshold: int = 1) -> np.ndarray:
    """Area under every query's ROC curve (trapezoids), NaN for R_q = 0. Along the list a
    relevant item moves the curve up and any other item moves it right at height TP(r)/R_q, so
    the area is Σ over the relevant items of the non-relevant items after them, plus the closing
    segment to (1, 1)."""
    negatives = _negatives(j, threshold).astype(np.float64)
    r_q = j.num_relevant(threshold).astype(np.float64)
    hits = relevant_hits(j, threshold, None)
    found = per_query_count(j, hits.query).astype(np.float64)
    lengths = j.lengths.astype(np.float64)
    # non-relevant items ranked after the i-th relevant item: (|A| − r_i) − (found − i)
    after = (lengths[hits.query] - hits.rank) - (found[hits.query] - hits.tp)
    steps = np.bincount(hits.query, weights=after, minlength=j.num_queries)
    fp_end = lengths - found
    area = divide(steps, r_q * negatives, 0.0)
    area += (1.0 - divide(fp_end, negatives, 0.0)) * (divide(found, r_q, 0.0) + 1.0) / 2.0
    return np.where(r_q == 0, np.nan, area)


def mean_roc(j: JudgedRanking, threshold: int = 1,
             grid_points: int = 101) -> tuple[np.ndarray, np.ndarray]:
    """The mean ROC curve over the queries with R_q > 0 (vertical averaging: the mean true
    positive rate at each false positive rate of a grid over [0, 1]), for all queries at once.
    Along a list the curve rises at each relevant item and runs right at each other one, so at
    FPR f a query's TPR is the share of its relevant items with at most f·(|D| − R_q)
    non-relevant items ranked before them; after the list it runs straight to (1, 1), as
    :func:`roc_curve` draws it. Needs |D|."""
    grid = np.linspace(0.0, 1.0, grid_points)
    negatives = _negatives(j, threshold).astype(np.float64)
    r_q = j.num_relevant(threshold).astype(np.float64)
    usable = np.flatnonzero(r_q > 0)
    if not len(usable):
        return grid, np.full(len(grid), np.nan)
    hits = relevant_hits(j, threshold, None)
    found = per_query_count(j, hits.query).astype(np.float64)
    before = hits.rank - hits.tp                   # non-relevant items ranked before each hit
    span = int(j.lengths.max()) + 2
    keys = hits.query * span + before              # ascending: grouped by query, then rank
    start = np.searchsorted(keys, usable * span)
    fp = grid[None, :] * negatives[usable, None]   # usable × grid: false positives allowed
    fp_end = (j.lengths - found)[usable, None].astype(np.float64)
    inside = np.minimum(np.floor(fp + 1e-9), fp_end).astype(np.int64)
    tp = np.searchsorted(keys, usable[:, None] * span + inside, "right") - start[:, None]
    tpr = tp / r_q[usable, None]
    # past the end of the list: the straight line from its last point to (1, 1)
    end_x = divide(fp_end, negatives[usable, None], 0.0)
    end_y = (found / np.maximum(r_q, 1))[usable, None]
    after = grid[None, :] > end_x + 1e-12
    line = end_y + (grid[None, :] - end_x) * divide(1.0 - end_y, 1.0 - end_x, 0.0)
    tpr = np.where(after, line, tpr)
    return grid, tpr.mean(axis=0)


def lift_curve(j: JudgedRanking, query: int, threshold: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """One query's normalised lift (Serrà 2007, Fig. 1): x = r/|A|, y = TP(r)/R_q, r = 0..|A|."""
    curves = rank_curves(j, query, threshold)
    n = len(curves.chi)
    x = divide(np.arange(n + 1), n, 0.0)
    y = divide(np.r_[0.0, curves.true_positives], j.num_relevant(threshold)[query])
    return x, y


def mean_lift(j: JudgedRanking, threshold: int = 1,
              grid_points: int = 101) -> tuple[np.ndarray, np.ndarray]:
    """The mean normalised lift curve over queries with a list and R_q > 0, on a grid of x in
    [0, 1] (each curve is linear between ranks, so it is interpolated at rank x·|A|; when all lists
    have the same length the grid keeps every answer set's own points)."""
    grid = np.linspace(0.0, 1.0, grid_points)
    lengths = j.lengths
    if len(lengths) and len(np.unique(lengths)) == 1 and lengths[0] > 0:
        grid = np.union1d(grid, np.arange(lengths[0] + 1) / lengths[0])
    r_q = j.num_relevant(threshold)
    usable = np.flatnonzero((lengths > 0) & (r_q > 0))
    if not len(usable):
        return grid, np.full(len(grid), np.nan)
    hits = relevant_hits(j, threshold, None)
    span = int(lengths.max()) + 2
    keys = hits.query * span + hits.rank          # ascending: hits are grouped by query
    start = np.searchsorted(keys, usable * span)

    def tp_at(rank: np.ndarray) -> np.ndarray:   # usable × grid: relevant items within rank
        return np.searchsorted(keys, usable[:, None] * span + rank, "right") - start[:, None]

    at = grid[None, :] * lengths[usable, None]
    low = np.floor(at).astype(np.int64)
    high = np.minimum(low + 1, lengths[usable, None])
    frac = at - low
    tp = tp_at(low) * (1 - frac) + tp_at(high) * frac
    return grid, (tp / r_q[usable, None]).mean(axis=0)


def drawn_ranks(chi: np.ndarray, max_points: int = 4000) -> np.ndarray:
    """0-based positions of one query's list from which its PR curve is drawn. Between two
    relevant items recall stays put and precision only falls, so the curve there is a vertical
    segment: the positions just before and at each relevant item, the first and the last
    position draw the same picture as every position. A list with more relevant items than
    ``max_points`` / 2 keeps evenly spaced ones of them (an approximation, for drawing only)."""
    n = len(chi)
    if n <= max_points:
        return np.arange(n)
    hits = np.flatnonzero(chi)
    if 2 * len(hits) + 2 > max_points:
        hits = hits[np.linspace(0, len(hits) - 1, max_points // 2 - 1).astype(np.int64)]
    return np.unique(np.concatenate([[0, n - 1], hits, np.maximum(hits - 1, 0)]))
