"""Graded measures: DCG and nDCG in three forms, ERR, expected precision and graded AP."""

from __future__ import annotations

import math

import numpy as np

from metrics.measures import trec_gains
from metrics.measures.registry import (LINEAR, LevelGains, Param, choice, level_gains,
                                       log_base, register)
from metrics.data.judged import expand, tie_groups
from metrics.errors import MeasureError
from metrics.measures.common import (before_in_query, divide, earlier_by_level, per_query_sum,
                                     place_in_query, sum_before)

FORM = Param("trec", choice("trec", "burges", "jarvelin"), "gain and discount")
BASE = Param(2.0, log_base, "logarithm base of the jarvelin discount (a number or e)")
NO_GAINS = LevelGains()   # every grade its own gain
GAINS = Param(NO_GAINS, level_gains, "a gain per grade, grade:gain;... (trec_eval's "
              "ndcg.1=3,2=9); other grades keep the grade as gain; form=trec only")
LARGEST_BURGES_GRADE = 1023   # 2^1024 − 1 is beyond the largest double (about 1.8e308)


def _gain(grades: np.ndarray, form: str, top: np.ndarray | None = None) -> np.ndarray:
    """The gain of each grade: the grade, or for ``burges`` 2^g − 1 divided by 2^top (``top``:
    the scale of each entry's query, no lower than its grade), computed as 2^(g − top) − 2^−top
    so that it never overflows: a ratio of two sums with the same top is unchanged, and it is
    exact where 2^g − 1 is."""
    gains = np.clip(grades, 0, None)
    if form != "burges":
        return gains.astype(np.float64)
    with np.errstate(under="ignore"):
        return np.exp2((gains - top).astype(np.float64)) - np.exp2(-top.astype(np.float64))


def _discount(ranks: np.ndarray, form: str, base: float) -> np.ndarray:
    ranks = ranks.astype(np.float64)
    if form == "jarvelin":   # 1 at rank 1, log_base(i) after
        return np.where(ranks <= 1, 1.0, np.log(np.maximum(ranks, 1.0)) / math.log(base))
    return np.log2(ranks + 1.0)


def _dcg(j, cutoff, form, base, top=None):
    """Σ gain/discount over the judged hits within the cutoff (others have gain 0); for
    ``burges``, divided by 2^top of each query (see :func:`_gain`)."""
    gaining = j.hit_grades > 0
    weight = j.rank_weights(cutoff, lambda r: 1.0 / _discount(r, form, base))[gaining]
    query = j.hit_query[gaining]
    scale = None if top is None else top[query]
    return per_query_sum(j, query, _gain(j.hit_grades[gaining], form, scale) * weight)


def ideal_items(j, cutoff=None) -> tuple[np.ndarray, np.ndarray]:
    """The ideal ranking as (query, grade) per item: every relevant item of the ground truth
    (grade >= 1), best grade first within each query, within the first k ranks. Built from the
    grade counts, one entry per relevant item of the ground truth (so it grows with the truth,
    not with the lists)."""
    counts = j.truth_grades
    positive = counts.grade >= 1
    query, grade, count = counts.query[positive], counts.grade[positive], counts.count[positive]
    order = np.lexsort((-grade, query))   # best grade first within each query
    query, grade, count = query[order], grade[order], count[order]
    if cutoff is not None:   # no query needs more than k entries
        before = before_in_query(query, count, j.num_queries)
        count = np.clip(cutoff - before, 0, count)
    return np.repeat(query, count), np.repeat(grade, count)


def ideal_dcg(j, cutoff, form="trec", base=2.0, top=None):
    """DCG of the ideal ranking (:func:`ideal_items`) within the first k ranks; for ``burges``
    divided by 2^top of each query (see :func:`_gain`)."""
    item_query, item_grade = ideal_items(j, cutoff)
    rank = place_in_query(item_query, j.num_queries) + 1
    scale = None if top is None else top[item_query]
    return per_query_sum(j, item_query,
                         _gain(item_grade, form, scale) / _discount(rank, form, base))


def _highest_grade(query: np.ndarray, grade: np.ndarray, num_queries: int) -> np.ndarray:
    """Each query's highest of the grades given for it (0 when none is positive)."""
    top = np.zeros(num_queries, dtype=np.int64)
    np.maximum.at(top, query, grade)
    return top


def _burges_dcg(j, cutoff, base):
    """DCG(form=burges) where it fits a double: summed with each query's gains divided by 2^top,
    top its highest grade with a weight, then multiplied back; refused where the sum is beyond
    the largest double."""
    counted = (j.hit_grades > 0) & (j.rank_weights(cutoff) > 0)
    top = _highest_grade(j.hit_query[counted], j.hit_grades[counted], j.num_queries)
    scaled = _dcg(j, cutoff, "burges", base, top)
    with np.errstate(over="ignore"):
        value = np.ldexp(scaled, np.minimum(top, 2 * LARGEST_BURGES_GRADE))
    beyond = np.flatnonzero(~np.isfinite(value))
    if len(beyond):
        q = beyond[0]
        raise MeasureError(
            f"DCG(form=burges) of query {j.query_ids[q]!r} is about "
            f"2^{math.log2(scaled[q]) + top[q]:.0f}, beyond the largest double (about 1.8e308): "
            f"its list reaches grade {top[q]}, and the gains 2^g − 1 only fit a double for "
            f"grades up to {LARGEST_BURGES_GRADE} (and their sum must fit too); "
            f"nDCG(form=burges) has a value for any grade, or use form=trec")
    return value


@register("DCG", meaning="discounted cumulative gain of the top k",
          convention="form=trec (default): Σ g_i/log2(i+1); burges: Σ (2^g_i − 1)/log2(i+1), "
                     "refused where that is beyond a double (a grade above 1023 retrieved; "
                     "nDCG(form=burges) has a value for any grade); jarvelin: g_1 + Σ_{i>=2} "
                     "g_i/log_base(i) (Serrà's Table 2 uses base=e)",
          reference="Järvelin & Kekäläinen (2002); Burges et al. (2005); trec_eval",
          formula=r"DCG@K = \sum_{i=1}^{K} \frac{g_i}{\log_2(i+1)}",
          params={"form": FORM, "base": BASE}, expected=LINEAR)
def dcg(j, cutoff, form="trec", base=2.0):
    """DCG@k with gain g_i (the grade; 2^g − 1 for ``burges``) and discount log2(i + 1) (for
    ``jarvelin``: 1 at rank 1, log_base(i) after); ``burges`` is refused where it is beyond the
    largest double. Ref: Järvelin & Kekäläinen (2002)."""
    return _burges_dcg(j, cutoff, base) if form == "burges" else _dcg(j, cutoff, form, base)


@register("nDCG", meaning="normalised DCG of the top k",
          convention="DCG@k / ideal DCG@k, the ideal ranking built from all judged relevant items "
                     "(trec_eval ndcg, ndcg_cut_k with form=trec)",
          reference="Järvelin & Kekäläinen (2002); trec_eval ndcg",
          formula=r"nDCG@K = \frac{DCG@K}{IDCG@K}",
          params={"form": FORM, "base": BASE,
                  "gains": GAINS},
          expected=LINEAR)
def ndcg(j, cutoff, form="trec", base=2.0, gains=NO_GAINS):
    """nDCG@k = DCG@k / IDCG@k, IDCG from every relevant item of the ground truth sorted by grade;
    undefined when there is none. For ``burges`` both are divided by 2^(the query's highest grade),
    which leaves the ratio as it is and keeps every gain within a double, whatever the grades.
    With ``gains``, each grade's gain is the one given (the grade where none is) and the ideal
    ranking is trec_eval 10's under those gains (:mod:`metrics.measures.trec_gains`).
    Ref: trec_eval ``ndcg`` / ``ndcg_cut``."""
    if gains:
        return _ndcg_given_gains(j, cutoff, form, base, gains)
    counts = j.truth_grades
    top = (_highest_grade(counts.query, counts.grade, j.num_queries) if form == "burges"
           else None)
    return divide(_dcg(j, cutoff, form, base, top), ideal_dcg(j, cutoff, form, base, top))


def _ndcg_given_gains(j, cutoff, form, base, gains):
    """nDCG@k with a gain per grade given, as trec_eval 10's ndcg with gain parameters: every
    hit of non-zero gain within k, over the ideal DCG of :func:`trec_gains.ideal_gains` within k;
    undefined when that is 0."""
    if form != "trec":
        raise MeasureError(f"nDCG: gains are trec_eval's and go with form=trec, not form={form}")
    gain = trec_gains.hit_gains(j, gains)
    counted = gain != 0
    weight = j.rank_weights(cutoff, lambda r: 1.0 / _discount(r, form, base))[counted]
    found = per_query_sum(j, j.hit_query[counted], gain[counted] * weight)
    query, ideal = trec_gains.ideal_gains(j, gains)
    place = place_in_query(query, j.num_queries) + 1
    within = place <= (cutoff if cutoff is not None else np.inf)
    best = per_query_sum(j, query[within], ideal[within] / _discount(place[within], form, base))
    return divide(found, best)

def _satisfaction(grades, gmax, p):
    """The stop probability of each grade: g/gmax, or (2^g − 1)/2^gmax computed as
    2^(g − gmax) − 2^−gmax, which a double holds for any int64 grade (exact where 2^g − 1 is)."""
    g = np.clip(grades, 0, max(gmax, 0))
    if gmax < 1:
        return np.zeros(len(g))
    if p == "linear":
        return g / gmax
    with np.errstate(under="ignore"):
        return np.exp2((g - gmax).astype(np.float64)) - np.exp2(-float(gmax))


@register("ERR", meaning="expected reciprocal rank (cascade user model)",
          convention="Σ_i (p_i/i) Π_{j<i}(1 − p_j); p=exp (default): (2^g − 1)/2^gmax, p=linear: "
                     "g/gmax (the instrument-retrieval task uses g/2); gmax = highest grade of "
                     "the whole ground truth",
          reference="Chapelle et al. (2009); the instrument-retrieval task (its text prints a sum; "
                    "the definition, and Chapelle, have a product)",
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
    """EP@k = Σ_t p_t · (1/k) Σ_{i<=k} 1[g_i >= t] = (1/k) Σ_{i<=k} Σ_{t<=g_i} p_t.
    Ref: the instrument-retrieval task."""
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
          expected="closed form: each relevant item's mean over the orders of its tie group, "
                   "pair by pair (McSherry & Najork 2008)")
def graded_average_precision(j, cutoff):
    """GAP = Σ_i Σ_{t<=g_i} p_t·P@i_t / Σ_{relevant d} Σ_{t<=g_d} p_t. With W(g) = Σ_{t<=g} p_t
    the numerator is Robertson's pairwise form Σ_i (1/r_i) Σ_{j<=i} W(min(g_i, g_j)), and
    Σ_{j<=i} W(min(g_i, g_j)) = W(g_i)·#{j <= i: g_j >= g_i} + Σ_{j < i: g_j < g_i} W(g_j), which
    :func:`~metrics.measures.common.earlier_by_level` counts for every hit at once in
    O(n log L) for L distinct grades.

    A hit's term is W(g_i)·(#{...}/r_i) + Σ.../r_i: in a perfect ranking the count is r_i, the
    second sum is 0, and the term is exactly W(g_i); the denominator adds the same W(g) over the
    ideal ranking in the same order, so GAP is then exactly 1. Under ``expected`` ties see
    :func:`_gap_terms_expected`. Ref: Robertson, Kanoulas & Yilmaz (2010)."""
    gmax = j.max_grade
    positive = np.flatnonzero(j.hit_grades > 0)
    grade = np.minimum(j.hit_grades[positive], gmax)
    query = j.hit_query[positive]
    weight = _weight_up_to(grade, gmax)
    if j.expected_ties:
        query, terms = _gap_terms_expected(j, cutoff, positive, grade, weight)
    else:
        level = np.unique(grade, return_inverse=True)[1].reshape(-1)
        at_least, below = earlier_by_level(query, level, weight)
        rank = j.hit_ranks[positive]
        terms = np.where(j.within(cutoff)[positive],
                         weight * ((1 + at_least) / rank) + below / rank, 0.0)
    ideal_query, ideal_grade = ideal_items(j)
    return divide(per_query_sum(j, query, terms),
                  per_query_sum(j, ideal_query, _weight_up_to(ideal_grade, gmax)))


def _gap_terms_expected(j, cutoff, positive, grade, weight):
    """GAP's numerator terms under ``expected`` ties: each hit i's mean over the orders of its tie
    group (first rank s, n items; every offset o equally likely, and every other hit of the group
    before it with probability o/(n − 1)): A·(W(g_i) + Σ_{j in earlier groups} W(min)) +
    B·Σ_{j in its group, j != i} W(min), with A = (1/n) Σ_o 1/(s + o) and
    B = (1/n) Σ_o o/((n − 1)(s + o)) over the offsets within the cutoff. Ordered best grade
    first inside each group, every earlier hit of the group is at least as good: the sums split
    by place. Returns the hits' queries and terms, in that order."""
    groups = tie_groups(j)
    group = groups.hit_group[positive]
    order = np.lexsort((-grade, group))
    group, grade, weight = group[order], grade[order], weight[order]
    query = groups.query[group]
    level = np.unique(grade, return_inverse=True)[1].reshape(-1)
    at_least, below = earlier_by_level(query, level, weight)
    n = len(group)
    new_group = np.r_[True, group[1:] != group[:-1]] if n else np.zeros(0, dtype=bool)
    new_run = new_group | np.r_[True, grade[1:] != grade[:-1]] if n else new_group
    place = np.arange(n) - np.maximum.accumulate(np.where(new_group, np.arange(n), 0))
    run_last = (np.r_[np.flatnonzero(new_run)[1:], n] - 1)[np.cumsum(new_run) - 1]
    equal_later = run_last - np.arange(n)
    weight_before = sum_before(group, weight)
    group_total = np.bincount(np.cumsum(new_group) - 1, weights=weight)[np.cumsum(new_group) - 1]
    lower_later = group_total - (weight_before + weight)[run_last]
    holding, index = np.unique(group, return_inverse=True)
    size = groups.size[holding]
    g, rank, offset = expand(groups.first[holding], size, groups.limit(cutoff)[holding])
    a = np.bincount(g, weights=1.0 / rank, minlength=len(holding)) / size
    pairs = np.maximum(size * (size - 1), 1)
    b = np.bincount(g, weights=offset / rank, minlength=len(holding)) / pairs
    a, b = a[index.reshape(-1)], b[index.reshape(-1)]
    terms = (weight * (a * (1 + at_least - place) + b * (place + equal_later))
             + a * below + b * lower_later)
    return query, terms
