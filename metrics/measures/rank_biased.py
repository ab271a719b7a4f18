"""Rank-biased precision (Moffat & Zobel 2008) and its residual."""

from __future__ import annotations

import numpy as np

from metrics.data.relevance import Relevance
from metrics.measures.registry import LINEAR, REL, Param, persistence, register
from metrics.measures.common import per_query_sum

P = Param(0.8, persistence, "persistence: the chance of going on to the next rank (0 <= p < 1)")
_REF = "Moffat & Zobel (2008), ACM TOIS 27(1); ir_measures RBP(rel=…)"


def _weights(ranks: np.ndarray, p: float) -> np.ndarray:
    """(1 − p)·p^(r − 1), the share of RBP's user who looks at rank r."""
    return (1.0 - p) * np.power(p, ranks.astype(np.float64) - 1.0)


@register("RBP", meaning="rank-biased precision: expected rate of relevant items seen by a user "
          "who goes on to the next rank with probability p",
          convention="binary gain (grade >= rel), (1 − p) Σ_{i<=k} g_i p^(i−1); unjudged items "
                     "count as not relevant (see RBPResidual for their weight); p = 0.8 as "
                     "ir_measures. ir_measures' RBP without rel= is graded (raw grade as gain); "
                     "ours is its RBP(rel=1)",
          reference=_REF, formula=r"RBP@K = (1 - p)\sum_{i=1}^{K} g_i\,p^{\,i-1}",
          params={"p": P, "rel": REL}, expected=LINEAR)
def rbp(j, cutoff, p=0.8, rel=1):
    """RBP = (1 − p) Σ_{i <= k} g_i p^(i − 1), g_i = 1 when the item at rank i has grade >= rel,
    else 0 (unjudged and negative grades included). Binary, as ir_measures' ``RBP(rel=…)``
    (computed there by cwl_eval); its ``RBP`` without ``rel`` uses the raw grade as gain
    (trectools), which can exceed 1, and trec_eval 10's ``rbp`` uses graded gains (rescaled when
    they leave [0, 1]) — neither is this measure. Ref: Moffat & Zobel (2008)."""
    relevant = Relevance(rel).relevant(j.hit_grades)
    weights = j.rank_weights(cutoff, lambda r: _weights(r, p))
    return per_query_sum(j, j.hit_query[relevant], weights[relevant])


@register("RBPResidual", meaning="RBP's residual: how much RBP could still grow if every "
          "item of unknown relevance were relevant", higher_is_better=False,
          convention="(1 − p) Σ over unjudged ranks i <= n of p^(i−1), plus p^n for the ranks past "
                     "n = min(k, |A|); unjudged = not in the ground truth or of negative grade "
                     "(pooled but not judged). RBP <= true RBP <= RBP + residual; ask for both, "
                     "e.g. -m \"RBP(p=0.8),RBPResidual(p=0.8)\"",
          reference="Moffat & Zobel (2008), residuals",
          formula=r"RBPResidual@K = (1-p)\sum_{i \le n,\ i\ \mathrm{unjudged}} p^{\,i-1} + p^{\,n},"
                  r"\ n = \min(K, |A|)",
          params={"p": P}, expected=LINEAR)
def rbp_residual(j, cutoff, p=0.8):
    """Residual = (1 − p) Σ_{i <= n, i unjudged} p^(i − 1) + p^n, n = min(k, |A|): the weight of
    the ranks whose relevance is unknown, within the list (items the ground truth does not judge,
    or judges with a negative grade, trec_eval's "pooled but not judged") and past its end (or past
    k). Since (1 − p) Σ_{i<=n} p^(i−1) = 1 − p^n, it is 1 − (1 − p) Σ over the judged ranks
    within n of p^(i − 1), summed over the hits. When the ground truth judges the whole
    collection (labels), only the ranks past n and those of negative grade are unknown.
    Ref: Moffat & Zobel (2008), residuals."""
    weights = j.rank_weights(cutoff, lambda r: _weights(r, p))
    if j.unlisted_judged:
        unknown = ~Relevance.judged(j.hit_grades)
        return (np.power(p, j.retrieved(cutoff).astype(np.float64))
                + per_query_sum(j, j.hit_query[unknown], weights[unknown]))
    judged = Relevance.judged(j.hit_grades)
    return 1.0 - per_query_sum(j, j.hit_query[judged], weights[judged])
