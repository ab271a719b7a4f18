"""Curves along the ranking, for every query at once: χ(r), P(r), R(r), F(r), the PR curve (raw and
11-point interpolated), ROC with its AUC, and Serrà's normalised lift curve.

Arrays are queries × ranks; positions past the end of a query's list are NaN.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from .errors import MeasureError
from .measures.common import divide, f_measure
from .model import JudgedRanking

RECALL_LEVELS = np.linspace(0.0, 1.0, 11)


@dataclass(frozen=True)
class RankCurves:
    """χ(r), TP(r), P(r), R(r) and F(r) for r = 1..depth, NaN past each list's end."""

    chi: np.ndarray
    true_positives: np.ndarray
    precision: np.ndarray
    recall: np.ndarray
    f: np.ndarray


def rank_curves(j: JudgedRanking, threshold: int = 1, beta: float = 1.0) -> RankCurves:
    """The FMP C7S3 table for every query: χ(r), P(r) = TP(r)/r, R(r) = TP(r)/R_q, F(r)."""
    chi = (j.grades >= threshold).astype(np.float64)
    tp = np.cumsum(chi, axis=1)
    precision = tp / j.ranks
    recall = divide(tp, j.num_relevant(threshold)[:, None])
    f = f_measure(precision, recall, beta)
    outside = np.arange(j.depth)[None, :] >= j.lengths[:, None]
    curves = [np.where(outside, np.nan, a) for a in (chi, tp, precision, recall, f)]
    return RankCurves(*curves)


def interpolated_precision(j: JudgedRanking, threshold: int = 1,
                           levels: np.ndarray = RECALL_LEVELS) -> np.ndarray:
    """queries × levels: the highest P(r) at any rank whose R(r) reaches the level, 0 if none does
    (trec_eval ``iprec_at_recall``). NaN for queries with R_q = 0."""
    curves = rank_curves(j, threshold)
    precision = np.nan_to_num(curves.precision, nan=0.0)
    recall = np.nan_to_num(curves.recall, nan=-1.0)
    # best precision at this rank or any later one
    best_after = np.flip(np.maximum.accumulate(np.flip(precision, axis=1), axis=1), axis=1)
    out = np.zeros((j.num_queries, len(levels)))
    for i, level in enumerate(levels):  # a loop over recall levels, not queries
        reaches = recall >= level - 1e-12
        first = reaches.argmax(axis=1)
        value = best_after[np.arange(j.num_queries), first] if j.depth else np.zeros(j.num_queries)
        out[:, i] = np.where(reaches.any(axis=1), value, 0.0)
    out[j.num_relevant(threshold) == 0] = np.nan
    return out


def mean_interpolated_precision(j: JudgedRanking, threshold: int = 1,
                                values: np.ndarray | None = None) -> np.ndarray:
    """The 11-point interpolated PR curve averaged over queries with R_q > 0 (``values``: the
    queries' interpolated precision, when already computed)."""
    values = interpolated_precision(j, threshold) if values is None else values
    defined = ~np.isnan(values).any(axis=1)
    return values[defined].mean(axis=0) if defined.any() else np.full(len(RECALL_LEVELS), np.nan)


@dataclass(frozen=True)
class RocCurves:
    """False and true positive rates after each rank, starting at (0, 0) and closed at (1, 1):
    queries × (depth + 2). Unretrieved items are taken to follow the list in unknown order, so the
    last segment is a straight line."""

    fpr: np.ndarray
    tpr: np.ndarray
    auc: np.ndarray


def roc_curves(j: JudgedRanking, threshold: int = 1) -> RocCurves:
    """ROC along the full ranking: TPR(r) = TP(r)/R_q, FPR(r) = FP(r)/(|D| − R_q). Needs |D|.
    Positions past a list's end repeat its last point, so the trapezoid AUC is exact."""
    if j.collection_size is None:
        raise MeasureError("the ROC curve needs the collection size |D|; give it with "
                           "--collection-size N")
    chi = j.grades >= threshold
    tp = np.cumsum(chi, axis=1).astype(np.float64)
    fp = np.cumsum(j.grades != -2, axis=1) - tp  # unjudged retrieved items are negatives too
    r_q = j.num_relevant(threshold).astype(np.float64)
    negatives = j.collection_size - r_q
    zeros = np.zeros((j.num_queries, 1))
    ones = np.ones((j.num_queries, 1))
    tpr = np.hstack([zeros, divide(tp, r_q[:, None]), ones])
    fpr = np.hstack([zeros, divide(fp, negatives[:, None], where_zero=0.0), ones])
    auc = np.trapezoid(tpr, fpr, axis=1)
    auc[r_q == 0] = np.nan
    tpr[r_q == 0] = np.nan
    return RocCurves(fpr, tpr, auc)


@dataclass(frozen=True)
class LiftCurves:
    """Serrà's normalised lift curves: x = r/|A|, y = TP(r)/R_q for r = 0..|A| (queries × depth+1,
    NaN past each list's end), and their mean on a common grid of x."""

    x: np.ndarray
    y: np.ndarray
    grid: np.ndarray
    mean: np.ndarray


def lift_curves(j: JudgedRanking, threshold: int = 1, grid_points: int = 101) -> LiftCurves:
    """Normalised lift (Serrà 2007, Fig. 1). The mean interpolates every curve linearly onto
    ``grid_points`` values of x in [0, 1] (exact when all lists have the same length and the
    grid contains their points)."""
    chi = j.grades >= threshold
    tp = np.hstack([np.zeros((j.num_queries, 1)), np.cumsum(chi, axis=1)])
    r = np.arange(j.depth + 1, dtype=np.float64)
    inside = r[None, :] <= j.lengths[:, None]
    x = np.where(inside, divide(r[None, :], j.lengths[:, None].astype(np.float64)), np.nan)
    y = np.where(inside, divide(tp, j.num_relevant(threshold)[:, None]), np.nan)
    grid = np.linspace(0.0, 1.0, grid_points)
    if j.depth and len(np.unique(j.lengths)) == 1:
        grid = np.union1d(grid, r / j.depth)  # keep every answer set's own points
    # y is linear between ranks, so interpolate at rank g·|A| for every query and grid point
    at = grid[None, :] * j.lengths[:, None]
    low = np.floor(at).astype(np.int64)
    high = np.minimum(low + 1, j.lengths[:, None])
    frac = at - low
    tp_at = (np.take_along_axis(tp, low, axis=1) * (1 - frac)
             + np.take_along_axis(tp, high, axis=1) * frac)
    usable = (j.lengths > 0) & (j.num_relevant(threshold) > 0)
    curves = divide(tp_at[usable], j.num_relevant(threshold)[usable, None])
    mean = curves.mean(axis=0) if usable.any() else np.full(len(grid), np.nan)
    return LiftCurves(x, y, grid, mean)
