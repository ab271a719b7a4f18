"""Interpolated precision at recall levels: the one implementation, read by the IPrec@r measure
and by the 11-point interpolated PR curve of :mod:`metrics.evaluation.curves`."""

from __future__ import annotations

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.measures.registry import REL, Param, RecallLevels, choice, recall_levels, register
from metrics.measures.common import per_query_count, relevant_hits

# exactly 0.1, 0.2, … as trec_eval reads them
RECALL_LEVELS = np.round(np.linspace(0.0, 1.0, 11), 2)
STANDARD_LEVELS = RecallLevels(RECALL_LEVELS.tolist())


def needed_relevant(levels: np.ndarray, r_q: np.ndarray, rounding: str = "trec9",
                    at_least_one: bool = True) -> np.ndarray:
    """How many relevant items reach recall level L (levels × queries), at least 1: trec_eval 9's
    n = ⌊L·R_q + 0.9⌋ in double precision (its historical rounding: 0.7 of 3 relevant items needs
    2, since 0.7 · 3 + 0.9 is just below 3), or trec_eval 10's n = lround(L·R_q), the nearest
    whole number with halves rounded up (exactly, from the fractional part). ``at_least_one``
    False: 0 where the rule gives 0."""
    x = np.multiply.outer(np.asarray(levels, dtype=np.float64), r_q)
    if rounding == "trec9":
        need = np.floor(x + 0.9)
    else:
        whole = np.floor(x)
        need = whole + (x - whole >= 0.5)
    return np.maximum(need.astype(np.int64), 1 if at_least_one else 0)


def interpolated_precision(j: JudgedRanking, threshold: int = 1,
                           levels: np.ndarray = RECALL_LEVELS,
                           rounding: str = "trec9") -> np.ndarray:
    """queries × levels: the highest P(r) at any rank from the one where the n-th relevant item
    is found, n from :func:`needed_relevant` (trec_eval 9's rounding by default, as pytrec_eval
    and ir_measures), as trec_eval computes ``iprec_at_recall``; 0 when fewer than n relevant
    items are retrieved. NaN for queries with R_q = 0 — except under trec_eval 10's rounding,
    whose arithmetic gives every level that rounds to no relevant item the precision of the
    whole list when no relevant item is retrieved: 0 / |A|, 0.0 / 0 = NaN for an empty list
    (trec_eval prints it as -nan), R_q = 0 included.

    Precision after a rank is highest at a relevant rank, so the value is the largest precision
    at the relevant items from the n-th on (a suffix maximum within each query)."""
    hits = relevant_hits(j, threshold, None)
    r_q = j.num_relevant(threshold)
    found = per_query_count(j, hits.query)
    precision = hits.tp / hits.rank
    # suffix maximum within each query: reversed, every later query's values are lifted above
    # every earlier one's, so one running maximum never crosses a query boundary. The values
    # are lifted as their whole-number ranks among the distinct precisions, so the maximum
    # gives back each precision exactly (a lift in floating point would round its last bits)
    distinct, level = np.unique(precision, return_inverse=True)
    level = level.reshape(-1)
    lift = (len(distinct) + 1) * (j.num_queries - hits.query[::-1]).astype(np.int64)
    best_from = distinct[(np.maximum.accumulate(level[::-1] + lift) - lift)[::-1]]
    start = np.r_[0, np.cumsum(found)][:-1]
    levels = np.atleast_1d(np.asarray(levels, dtype=np.float64))
    needs = needed_relevant(levels, r_q, rounding)
    out = np.zeros((j.num_queries, len(levels)))
    for i, need in enumerate(needs):   # a loop over recall levels, not queries
        reached = (need <= found) & (r_q > 0)
        out[reached, i] = best_from[(start + need - 1)[reached]]
    if rounding == "trec9":
        out[r_q == 0] = np.nan
        return out
    none_needed = needed_relevant(levels, r_q, rounding, at_least_one=False) == 0
    empty_handed = none_needed & (found == 0)   # levels × queries
    with np.errstate(invalid="ignore", divide="ignore"):
        whole_list = 0.0 / j.lengths.astype(np.float64)
    out.T[empty_handed] = np.broadcast_to(whole_list, empty_handed.shape)[empty_handed]
    return out


@register("IPrec", meaning="interpolated precision at recall level r (0 <= r <= 1)",
          cutoff="required", at="recall",
          convention="highest P(i) at or after the rank of the n-th relevant item; 0 if fewer "
                     "than n are retrieved. rounding=trec9 (default): n = max(1, ⌊r·R_q + 0.9⌋), "
                     "trec_eval 9's rule (pytrec_eval, ir_measures) for every level, its 11 "
                     "included; rounding=trec10: n = max(1, r·R_q rounded to the nearest, "
                     "halves up), trec_eval 10's",
          reference="trec_eval iprec_at_recall; Manning, Raghavan & Schütze (2008) §8.4",
          formula=r"IPrec@r = \max_{i \ge i_n} P(i),\ n = \max(1, \lfloor r R_q + 0.9\rfloor)",
          params={"rounding": Param("trec9", choice("trec9", "trec10"),
                                 "how r·R_q becomes a number of relevant items: as trec_eval 9 "
                                 "or as trec_eval 10"),
                  "rel": REL})
def iprec(j, level, rounding="trec9", rel=1):
    """IPrec@r = max P(i) over the ranks i from that of the n-th retrieved relevant item on,
    n = max(1, ⌊r·R_q + 0.9⌋) (``rounding=trec10``: r·R_q rounded to the nearest whole number,
    halves up, as trec_eval 10's ``lround``); 0 when fewer than n relevant items are retrieved.

    Convention for any level r: trec_eval 9's rule, which pytrec_eval and ir_measures share, so
    IPrec@r equals their ``iprec_at_recall_r`` for the 11 standard levels and for any other
    level they are given. The exact "highest precision at recall >= r" would take
    n = ⌈r·R_q⌉; the two differ only when r·R_q has a fractional part below 0.1 (the rule then
    accepts the recall just below r) or lands a hair under a whole number in floating point
    (0.7·3 + 0.9 < 3: trec_eval's historical rounding). Keeping trec_eval's rule everywhere
    makes one convention and keeps every level comparable with it. trec_eval 10 rounds
    r·R_q to the nearest whole number instead (its values differ where the fractional part is
    from 0.1 to 0.5): ``rounding=trec10``. Ref: trec_eval ``iprec_at_recall``."""
    return interpolated_precision(j, rel, np.array([level]), rounding)[:, 0]


@register("IPrecAvg", meaning="interpolated precision averaged over the 11 recall levels 0, "
          "0.1, …, 1 (or the levels given)", cutoff="none",
          convention="mean of IPrec@r over r = 0, 0.1, …, 1, with IPrec's rounding (trec9 by "
                     "default; trec10 is trec_eval 10's 11pt_avg)",
          reference="trec_eval 11pt_avg (m_11pt_avg.c); Manning, Raghavan & Schütze (2008) §8.4",
          formula=r"IPrecAvg = \frac{1}{11}\sum_{r \in \{0, 0.1, \ldots, 1\}} IPrec@r",
          params={"rounding": Param("trec9", choice("trec9", "trec10"),
                                    "how r·R_q becomes a number of relevant items, as IPrec"),
                  "levels": Param(STANDARD_LEVELS, recall_levels,
                                  "the recall levels averaged over, ascending, ';' between "
                                  "(trec_eval's 11pt_avg..25,.5,.75)"),
                  "rel": REL})
def iprec_average(j, cutoff, rounding="trec9", levels=STANDARD_LEVELS, rel=1):
    """The mean of IPrec@r over the recall levels (the 11 standard ones by default), added from
    the highest level down as trec_eval adds them. Ref: trec_eval ``11pt_avg``."""
    values = interpolated_precision(j, rel, np.asarray(levels, dtype=np.float64), rounding)
    return np.cumsum(values[:, ::-1], axis=1)[:, -1] / len(levels)
