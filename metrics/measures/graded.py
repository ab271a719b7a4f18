"""Graded measures: DCG and nDCG in three forms, ERR, expected precision and graded AP."""

from __future__ import annotations

import math

import numpy as np

from metrics.measures.registry import LINEAR, Param, choice, log_base, register
from metrics.measures.common import (before_in_query, divide, per_query_sum, place_in_query,
                                     precision_sum)

FORM = Param("trec", choice("trec", "burges", "jarvelin"), "gain and discount")
BASE = Param(2.0, log_base, "logarithm base of the jarvelin discount (a number or e)")


def _gain(grades: np.ndarray, form: str) -> np.ndarray:
    gains = np.clip(grades, 0, None).astype(np.float64)
    return np.exp2(gains) - 1.0 if form == "burges" else gains


def _discount(ranks: np.ndarray, form: str, base: float) -> np.ndarray:
    ranks = ranks.astype(np.float64)
    if form == "jarvelin":   # 1 at rank 1, log_base(i) after
        return np.where(ranks <= 1, 1.0, np.log(np.maximum(ranks, 1.0)) / math.log(base))
    return np.log2(ranks + 1.0)


def _dcg(j, cutoff, form, base):
    """Σ gain/discount over the judged hits within the cutoff (others have gain 0)."""
    gaining = j.hit_grades > 0
    weight = j.rank_weights(cutoff, lambda r: 1.0 / _discount(r, form, base))[gaining]
    return per_query_sum(j, j.hit_query[gaining], _gain(j.hit_grades[gaining], form) * weight)


def ideal_dcg(j, cutoff, form="trec", base=2.0):
    """DCG of the ideal ranking: every relevant item of the ground truth (grade >= 1) in
    decreasing grade, within the first k ranks. Built from the grade counts, one entry per
    relevant item of the ground truth (so it grows with the truth, not with the lists)."""
    counts = j.truth_grades
    positive = counts.grade >= 1
    query, grade, count = counts.query[positive], counts.grade[positive], counts.count[positive]
    order = np.lexsort((-grade, query))   # best grade first within each query
    query, grade, count = query[order], grade[order], count[order]
    if cutoff is not None:   # no query needs more than k entries
        before = before_in_query(query, count, j.num_queries)
        count = np.clip(cutoff - before, 0, count)
    item_query = np.repeat(query, count)
    item_grade = np.repeat(grade, count)
    rank = place_in_query(item_query, j.num_queries) + 1
    return per_query_sum(j, item_query, _gain(item_grade, form) / _discount(rank, form, base))


def ideal_grades(j, query: int, cutoff: int | None = None) -> np.ndarray:
    """One query's ideal grade list (every relevant item of the truth, best first), for display."""
    counts = j.truth_grades
    mine = (counts.query == query) & (counts.grade >= 1)
    grades = np.repeat(counts.grade[mine][::-1], counts.count[mine][::-1])
    return grades if cutoff is None else grades[:cutoff]


@register("DCG", meaning="discounted cumulative gain of the top k",
          convention="form=trec (default): Σ g_i/log2(i+1); burges: Σ (2^g_i − 1)/log2(i+1); "
                     "jarvelin: g_1 + Σ_{i>=2} g_i/log_base(i) (Serrà's Table 2 uses base=e)",
          reference="Järvelin & Kekäläinen (2002); Burges et al. (2005); trec_eval",
          formula=r"DCG@K = \sum_{i=1}^{K} \frac{g_i}{\log_2(i+1)}",
          params={"form": FORM, "base": BASE}, expected=LINEAR)
def dcg(j, cutoff, form="trec", base=2.0):
    """DCG@k with gain g_i (the grade; 2^g − 1 for ``burges``) and discount log2(i + 1) (for
    ``jarvelin``: 1 at rank 1, log_base(i) after). Ref: Järvelin & Kekäläinen (2002)."""
    return _dcg(j, cutoff, form, base)


@register("nDCG", meaning="normalised DCG of the top k",
          convention="DCG@k / ideal DCG@k, the ideal ranking built from all judged relevant items "
                     "(trec_eval ndcg, ndcg_cut_k with form=trec)",
          reference="Järvelin & Kekäläinen (2002); trec_eval ndcg",
          formula=r"nDCG@K = \frac{DCG@K}{IDCG@K}", params={"form": FORM, "base": BASE},
          expected=LINEAR)
def ndcg(j, cutoff, form="trec", base=2.0):
    """nDCG@k = DCG@k / IDCG@k, IDCG from every relevant item of the ground truth sorted by grade;
    undefined when there is none. Ref: trec_eval ``ndcg`` / ``ndcg_cut``."""
    return divide(_dcg(j, cutoff, form, base), ideal_dcg(j, cutoff, form, base))


def _satisfaction(grades, gmax, p):
    g = np.clip(grades, 0, None).astype(np.float64)
    if gmax < 1:
        return np.zeros_like(g)
    if p == "linear":
        return g / gmax
    return (np.exp2(g) - 1.0) / 2.0 ** gmax


@register("ERR", meaning="expected reciprocal rank (cascade user model)",
          convention="Σ_i (p_i/i) Π_{j<i}(1 − p_j); p=exp (default): (2^g − 1)/2^gmax, p=linear: "
                     "g/gmax (the instrument-retrieval task uses g/2); gmax = highest grade of the whole ground truth",
          reference="Chapelle et al. (2009); the instrument-retrieval task (its text prints a sum; the "
                    "definition, and Chapelle, have a product)",
          formula=r"ERR@K = \sum_{i=1}^{K} \frac{p_i}{i}\prod_{j<i}(1 - p_j)",
          params={"p": Param("exp", choice("exp", "linear"), "stop probability")})
def err(j, cutoff, p="exp"):
    """ERR = Σ_i (p_i / i) Π_{j<i} (1 − p_j). Only items of grade >= 1 have p_i > 0, so the sum
    and the products run over those hits; a product is carried as a count of factors that are 0
    and a sum of the logarithms of the others. Ref: Chapelle et al. (2009)."""
    inside = j.within(cutoff) & (j.hit_grades > 0)
    query, rank = j.hit_query[inside], j.hit_ranks[inside]
    stop = _satisfaction(j.hit_grades[inside], j.max_grade, p)
    keep = 1.0 - stop
    zero = keep <= 0.0
    zeros_before = before_in_query(query, zero, j.num_queries)
    log_before = before_in_query(query, np.log(np.where(zero, 1.0, keep)), j.num_queries)
    reach = np.where(zeros_before > 0, 0.0, np.exp(log_before))
    return per_query_sum(j, query, stop * reach / rank)


def _weight_up_to(grades, gmax: int) -> np.ndarray:
    """Σ_{t<=g} p_t with p_t ∝ t, t = 1..gmax: g(g+1) / (gmax(gmax+1)), for any grades."""
    g = np.clip(np.asarray(grades, dtype=np.float64), 0, gmax)
    return g * (g + 1) / (gmax * (gmax + 1)) if gmax >= 1 else np.zeros_like(g)


@register("EP", meaning="expected precision over users with different relevance thresholds",
          convention="Σ_t p_t · P@k_t, P@k_t counting grade >= t, p_t ∝ t for t = 1..gmax; "
                     "without @k, k = |A|",
          reference="the instrument-retrieval task; Robertson et al. (2010)",
          formula=r"EP@K = \sum_{t=1}^{g_{max}} p_t \cdot P@K_t", expected=LINEAR)
def expected_precision(j, cutoff):
    """EP@k = Σ_t p_t · (1/k) Σ_{i<=k} 1[g_i >= t] = (1/k) Σ_{i<=k} Σ_{t<=g_i} p_t. Ref: the instrument-retrieval task."""
    gaining = j.hit_grades > 0
    total = per_query_sum(j, j.hit_query[gaining],
                          _weight_up_to(j.hit_grades[gaining], j.max_grade)
                          * j.rank_weights(cutoff)[gaining])
    k = j.lengths if cutoff is None else np.full(j.num_queries, cutoff)
    return divide(total, k, where_zero=0.0)


@register("GAP", meaning="graded average precision",
          convention="Σ_i Σ_{t<=g_i} p_t·P@i_t divided by Σ over every relevant item of the ground "
                     "truth of Σ_{t<=g} p_t; p_t ∝ t",
          reference="Robertson, Kanoulas & Yilmaz (2010); the instrument-retrieval task",
          formula=r"GAP@K = \frac{\sum_{i \le K} \sum_{t \le g_i} p_t\, P@i_t}"
                  r"{\sum_{d \in R} \sum_{t \le g_d} p_t}",
          expected="closed form: a weighted sum of AP numerators, each exact (McSherry & Najork "
                   "2008)")
def graded_average_precision(j, cutoff):
    """GAP = Σ_i Σ_{t<=g_i} p_t·P@i_t / Σ_{relevant d} Σ_{t<=g_d} p_t. P@i_t only changes where t
    passes a grade that occurs, so the inner sum runs over the distinct grades v_1 < v_2 < … of
    the retrieved items: Σ_{v_l <= g_i} (W(v_l) − W(v_{l−1})) · TP_{v_l}(i) / i, with
    W(g) = Σ_{t<=g} p_t. Summed over i, that is Σ_l (W(v_l) − W(v_{l−1})) times AP's numerator
    at threshold v_l, which is also how it is exact under expected ties.
    Ref: Robertson et al. (2010)."""
    levels = np.unique(np.minimum(j.hit_grades[j.hit_grades > 0], j.max_grade))
    numerator = np.zeros(j.num_queries)
    previous = 0.0
    for level in levels:   # a loop over the grades that occur, not over queries
        weight = _weight_up_to(level, j.max_grade) - previous
        previous += weight
        numerator += weight * precision_sum(j, int(level), cutoff)
    counts = j.truth_grades
    relevant = counts.grade >= 1
    denominator = per_query_sum(j, counts.query[relevant],
                                counts.count[relevant] * _weight_up_to(counts.grade[relevant],
                                                                       j.max_grade))
    return divide(numerator, denominator)
