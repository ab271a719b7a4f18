"""Graded measures: DCG and nDCG in three forms, ERR, expected precision and graded AP."""

from __future__ import annotations

import math

import numpy as np

from ..registry import Param, choice, log_base, register
from .common import divide

FORM = Param("trec", choice("trec", "burges", "jarvelin"), "gain and discount")
BASE = Param(2.0, log_base, "logarithm base of the jarvelin discount (a number or e)")


def _gain_and_discount(grades: np.ndarray, form: str, base: float):
    gains = np.clip(grades, 0, None).astype(np.float64)
    ranks = np.arange(1, grades.shape[1] + 1, dtype=np.float64)
    if form == "burges":
        gains = np.exp2(gains) - 1.0
    if form == "jarvelin":
        discount = np.ones_like(ranks)
        discount[1:] = np.log(ranks[1:]) / math.log(base)
    else:
        discount = np.log2(ranks + 1.0)
    return gains, discount


def _dcg(grades, form, base):
    gains, discount = _gain_and_discount(grades, form, base)
    return (gains / discount).sum(axis=1)


def ideal_grades(j, cutoff):
    """queries × min(k, max R_q) matrix of the ideal ranking: every relevant item of the ground
    truth in decreasing grade, then zeros."""
    r_q = j.num_relevant(1)
    width = int(r_q.max(initial=0)) if cutoff is None else min(cutoff, int(r_q.max(initial=0)))
    if j.max_grade < 1 or width == 0:
        return np.zeros((j.num_queries, max(width, 0)), dtype=np.int64)
    by_grade_desc = np.cumsum(j.grade_counts[:, :0:-1], axis=1)  # grades gmax..1
    positions = np.arange(width)[None, :, None]
    passed = (positions >= by_grade_desc[:, None, :]).sum(axis=2)
    return np.where(passed < j.max_grade, j.max_grade - passed, 0)


@register("DCG", meaning="discounted cumulative gain of the top k",
          convention="form=trec (default): Σ g_i/log2(i+1); burges: Σ (2^g_i − 1)/log2(i+1); "
                     "jarvelin: g_1 + Σ_{i>=2} g_i/log_base(i) (Serrà's Table 2 uses base=e)",
          reference="Järvelin & Kekäläinen (2002); Burges et al. (2005); trec_eval",
          formula=r"DCG@k = \sum_{i=1}^{k} \frac{g_i}{\log_2(i+1)}",
          params={"form": FORM, "base": BASE})
def dcg(j, cutoff, form="trec", base=2.0):
    """DCG@k with gain g_i (the grade; 2^g − 1 for ``burges``) and discount log2(i + 1) (for
    ``jarvelin``: 1 at rank 1, log_base(i) after). Ref: Järvelin & Kekäläinen (2002)."""
    return _dcg(j.top(cutoff), form, base)


@register("nDCG", meaning="normalised DCG of the top k",
          convention="DCG@k / ideal DCG@k, the ideal ranking built from all judged relevant items "
                     "(trec_eval ndcg, ndcg_cut_k with form=trec)",
          reference="Järvelin & Kekäläinen (2002); trec_eval ndcg",
          formula=r"nDCG@k = \frac{DCG@k}{IDCG@k}", params={"form": FORM, "base": BASE})
def ndcg(j, cutoff, form="trec", base=2.0):
    """nDCG@k = DCG@k / IDCG@k, IDCG from every relevant item of the ground truth sorted by grade;
    undefined when there is none. Ref: trec_eval ``ndcg`` / ``ndcg_cut``."""
    return divide(_dcg(j.top(cutoff), form, base), _dcg(ideal_grades(j, cutoff), form, base))


def _satisfaction(grades, gmax, p):
    g = np.clip(grades, 0, None).astype(np.float64)
    if gmax < 1:
        return np.zeros_like(g)
    if p == "linear":
        return g / gmax
    return (np.exp2(g) - 1.0) / 2.0 ** gmax


@register("ERR", meaning="expected reciprocal rank (cascade user model)",
          convention="Σ_i (p_i/i) Π_{j<i}(1 − p_j); p=exp (default): (2^g − 1)/2^gmax, p=linear: "
                     "g/gmax (seed 003 uses g/2); gmax = highest grade of the whole ground truth",
          reference="Chapelle et al. (2009); seed 003 (with its erratum: a product, not a sum)",
          formula=r"ERR = \sum_i \frac{p_i}{i}\prod_{j<i}(1 - p_j)",
          params={"p": Param("exp", choice("exp", "linear"), "stop probability")})
def err(j, cutoff, p="exp"):
    """ERR = Σ_i (p_i / i) Π_{j<i} (1 − p_j). Ref: Chapelle et al. (2009)."""
    stop = _satisfaction(j.top(cutoff), j.max_grade, p)
    reach = np.cumprod(1.0 - stop, axis=1)
    reach = np.concatenate([np.ones((stop.shape[0], 1)), reach[:, :-1]], axis=1)
    ranks = np.arange(1, stop.shape[1] + 1, dtype=np.float64)
    return (stop * reach / ranks).sum(axis=1)


def threshold_weights(gmax: int) -> np.ndarray:
    """p_t ∝ t for t = 1..gmax (seed 003: 1/3 and 2/3 for two levels); index 0 unused."""
    weights = np.arange(gmax + 1, dtype=np.float64)
    return weights / weights.sum() if gmax >= 1 else weights


@register("EP", meaning="expected precision over users with different relevance thresholds",
          convention="Σ_t p_t · P@k_t, P@k_t counting grade >= t, p_t ∝ t for t = 1..gmax; "
                     "without @k, k = |A|",
          reference="seed 003; Robertson et al. (2010)",
          formula=r"EP@k = \sum_t p_t \cdot P@k_t")
def expected_precision(j, cutoff):
    """EP@k = Σ_t p_t · (1/k) Σ_{i<=k} 1[g_i >= t]. Ref: seed 003."""
    top = j.top(cutoff)
    weights = threshold_weights(j.max_grade)
    k = j.lengths if cutoff is None else np.full(j.num_queries, cutoff)
    total = np.zeros(j.num_queries)
    for t in range(1, j.max_grade + 1):  # a loop over grade levels, not queries
        total += weights[t] * divide((top >= t).sum(axis=1), k, where_zero=0.0)
    return total


@register("GAP", meaning="graded average precision",
          convention="Σ_i Σ_{t<=g_i} p_t·P@i_t divided by Σ over every relevant item of the ground "
                     "truth of Σ_{t<=g} p_t; p_t ∝ t",
          reference="Robertson, Kanoulas & Yilmaz (2010); seed 003",
          formula=r"GAP = \frac{\sum_i \sum_{t \le g_i} p_t\, P@i_t}"
                  r"{\sum_{d \in R} \sum_{t \le g_d} p_t}")
def graded_average_precision(j, cutoff):
    """GAP = Σ_i Σ_{t<=g_i} p_t·P@i_t / Σ_{relevant d} Σ_{t<=g_d} p_t. Ref: Robertson et al. (2010)."""
    top = j.top(cutoff)
    weights = threshold_weights(j.max_grade)
    ranks = np.arange(1, top.shape[1] + 1, dtype=np.float64)
    numerator = np.zeros(j.num_queries)
    for t in range(1, j.max_grade + 1):
        hit = top >= t
        numerator += weights[t] * (hit * np.cumsum(hit, axis=1) / ranks).sum(axis=1)
    cumulative_weight = np.cumsum(weights)  # Σ_{t<=g} p_t for each grade g
    denominator = (j.grade_counts[:, 1:] * cumulative_weight[1:]).sum(axis=1)
    return divide(numerator, denominator)
