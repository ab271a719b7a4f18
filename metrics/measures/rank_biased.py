"""Rank-biased precision (Moffat & Zobel 2008) and its residual."""

from __future__ import annotations

import numpy as np

from metrics.data.relevance import Relevance
from metrics.measures.registry import LINEAR, REL, Param, choice, persistence, register
from metrics.measures.common import per_query_count, per_query_sum

P = Param(0.8, persistence, "persistence: the chance of going on to the next rank (0 <= p < 1)")
_REF = "Moffat & Zobel (2008), ACM TOIS 27(1); ir_measures RBP(rel=…)"


def _weights(ranks: np.ndarray, p: float) -> np.ndarray:
    """(1 − p)·p^(r − 1), the share of RBP's user who looks at rank r."""
    return (1.0 - p) * np.power(p, ranks.astype(np.float64) - 1.0)


@register("RBP", meaning="rank-biased precision: expected rate of relevant items seen by a user "
          "who goes on to the next rank with probability p",
          convention="gain=binary (default): grade >= rel, (1 − p) Σ_{i<=k} g_i p^(i−1); unjudged "
                     "items count as not relevant (see RBPResidual for their weight); p = 0.8 as "
                     "ir_measures. ir_measures' RBP without rel= is graded (raw grade as gain); "
                     "ours is its RBP(rel=1). gain=graded: the grade ÷ the query's highest "
                     "grade when that is above 1 (rel unused), trec_eval 10's rbp (p = 0.9)",
          reference=_REF + "; trec_eval 10 rbp (m_rbp.c)",
          formula=r"RBP@K = (1 - p)\sum_{i=1}^{K} g_i\,p^{\,i-1}",
          params={"p": P, "gain": Param("binary", choice("binary", "graded"),
                                        "binary: grade >= rel; graded: the grade scaled into "
                                        "[0, 1], as trec_eval 10"),
                  "rel": REL}, expected=LINEAR)
def rbp(j, cutoff, p=0.8, gain="binary", rel=1):
    """RBP = (1 − p) Σ_{i <= k} g_i p^(i − 1), g_i = 1 when the item at rank i has grade >= rel,
    else 0 (unjudged and negative grades included). Binary, as ir_measures' ``RBP(rel=…)``
    (computed there by cwl_eval); its ``RBP`` without ``rel`` uses the raw grade as gain
    (trectools), which can exceed 1, and trec_eval 10's ``rbp`` uses graded gains (rescaled when
    they leave [0, 1]) — neither is this measure but for ``gain=graded``: trec_eval's gains (the
    grade, divided by the highest grade the query's ground truth gives when that is above 1:
    trec_eval rescales gains into [0, 1] only when one leaves it; rel is not read), (1 − p)
    times the sum, as trec_eval multiplies. Ref: Moffat & Zobel (2008); trec_eval ``rbp``
    (m_rbp.c)."""
    if gain == "graded":
        counts = j.truth_grades
        top = np.zeros(j.num_queries, dtype=np.int64)
        np.maximum.at(top, counts.query, counts.grade)
        gains = np.clip(j.hit_grades, 0, None) / np.maximum(top, 1)[j.hit_query]
        powers = j.rank_weights(cutoff, lambda r: np.power(p, r.astype(np.float64) - 1.0))
        return (1.0 - p) * per_query_sum(j, j.hit_query, gains * powers)
    relevant = Relevance(rel).relevant(j.hit_grades)
    weights = j.rank_weights(cutoff, lambda r: _weights(r, p))
    return per_query_sum(j, j.hit_query[relevant], weights[relevant])


@register("RBPResidual", meaning="RBP's residual: how much RBP could still grow if every "
          "item of unknown relevance were relevant", higher_is_better=False,
          convention="(1 − p) Σ over unjudged ranks i <= n of p^(i−1), plus p^n for the ranks past "
                     "n = min(k, |A|); unjudged = not in the ground truth or of negative grade "
                     "(pooled but not judged). RBP <= true RBP <= RBP + residual; ask for both, "
                     "e.g. -m \"RBP(p=0.8),RBPResidual(p=0.8)\". form=trec: 0 when no retrieved "
                     "item is unjudged, as trec_eval 10's rbp_resid",
          reference="Moffat & Zobel (2008), residuals; trec_eval 10 rbp_resid (m_rbp_resid.c)",
          formula=r"RBPResidual@K = (1-p)\sum_{i \le n,\ i\ \mathrm{unjudged}} p^{\,i-1} + p^{\,n},"
                  r"\ n = \min(K, |A|)",
          params={"p": P, "form": Param("moffat", choice("moffat", "trec"),
                                        "trec: 0 when every retrieved item is judged")},
          expected=LINEAR)
def rbp_residual(j, cutoff, p=0.8, form="moffat"):
    """Residual = (1 − p) Σ_{i <= n, i unjudged} p^(i − 1) + p^n, n = min(k, |A|): the weight of
    the ranks whose relevance is unknown, within the list (items the ground truth does not judge,
    or judges with a negative grade, trec_eval's "pooled but not judged") and past its end (or past
    k). Since (1 − p) Σ_{i<=n} p^(i−1) = 1 − p^n, it is 1 − (1 − p) Σ over the judged ranks
    within n of p^(i − 1), summed over the hits. When the ground truth judges the whole
    collection (labels), only the ranks past n and those of negative grade are unknown.
    ``form=trec`` is trec_eval 10's rbp_resid, which is 0 for a list without an unjudged item
    (the weight past its end left out then, and only then). Ref: Moffat & Zobel (2008),
    residuals; trec_eval ``rbp_resid`` (m_rbp_resid.c)."""
    weights = j.rank_weights(cutoff, lambda r: _weights(r, p))
    judged = Relevance.judged(j.hit_grades)
    if j.unlisted_judged:
        unknown = ~judged
        value = (np.power(p, j.retrieved(cutoff).astype(np.float64))
                 + per_query_sum(j, j.hit_query[unknown], weights[unknown]))
        unjudged_retrieved = per_query_count(j, j.hit_query[unknown & j.within(cutoff)])
    else:
        value = 1.0 - per_query_sum(j, j.hit_query[judged], weights[judged])
        unjudged_retrieved = j.retrieved(cutoff) - per_query_count(
            j, j.hit_query[judged & j.within(cutoff)])
    if form == "trec":
        return np.where(unjudged_retrieved > 0, value, 0.0)
    return value
