"""Rank-based binary measures: AP, RR, R-precision, break-even point, F_max, bpref and its
variants, and the rank statistics of the relevant items."""

from __future__ import annotations

import numpy as np

from metrics.errors import MeasureError
from metrics.data.relevance import Relevance
from metrics.data.ties import TiePolicy
from metrics.measures.registry import (LINEAR, MCSHERRY_NAJORK, REL, Param, choice, positive_float,
                                       register)
from metrics.ranking.tie_aware import (expected_first_rank, expected_nonrelevant_above,
                                       expected_reciprocal_rank)
from metrics.measures.common import (before_in_query, divide, f_measure, first_relevant_rank, per_query_count,
                     per_query_sum, precision_sum, relevant_hits, true_positives)


@register(
    "AP", meaning="average precision",
    convention="norm=rq (default): sum of P(r) at relevant ranks / R_q (trec_eval map, map_cut_k); "
               "norm=retrieved: / relevant retrieved (Serrà 2007, Table 2); norm=min: / min(k, R_q) "
               "(MAP@K of recommender and text-to-music papers)",
    reference="trec_eval map; FMP C7S3; Serrà (2007)",
    formula=r"AP@K = \frac{1}{R_q}\sum_{r \le K} P(r)\,\chi(r)",
    params={"norm": Param("rq", choice("rq", "retrieved", "min"), "denominator"), "rel": REL},
    expected=MCSHERRY_NAJORK + "; norm=retrieved only without @k")
def average_precision(j, cutoff, norm="rq", rel=1):
    """AP = (1/n) Σ_r P(r)·χ(r) over the first k ranks, where n is R_q (``norm=rq``), the relevant
    items retrieved (``norm=retrieved``, 0 when none is) or min(k, R_q) (``norm=min``, with
    k = |A| without a cutoff). Undefined for R_q = 0. Under expected ties the numerator is its
    mean over the orderings (:func:`metrics.ranking.tie_aware.expected_precision_sum`); n is fixed except
    for ``norm=retrieved`` with a cutoff, which is refused. Ref: trec_eval ``map``; Müller, FMP
    (2015) §7.3.3; Serrà (2007) Table 2; McSherry & Najork (2008)."""
    hits = relevant_hits(j, rel, cutoff)
    if j.tie_policy is TiePolicy.EXPECTED and norm == "retrieved" and cutoff is not None:
        raise MeasureError("AP(norm=retrieved)@k divides by the relevant items in the top k, "
                           "which tied items change, so it has no closed-form mean over their "
                           "orderings; use AP@k or AP(norm=min)@k, or --ties optimistic / "
                           "pessimistic")
    total = precision_sum(j, rel, cutoff)
    r_q = j.num_relevant(rel)
    if norm == "retrieved":
        value = divide(total, per_query_count(j, hits.query), where_zero=0.0)
        return np.where(r_q == 0, np.nan, value)
    if norm == "min":  # an empty list scores 0, like the other normalisations
        k = j.lengths if cutoff is None else cutoff
        return np.where(r_q == 0, np.nan, divide(total, np.minimum(k, r_q), where_zero=0.0))
    return divide(total, r_q)


INFAP_EPSILON = 0.00001   # trec_eval's INFAP_EPSILON (trec_eval.h)


@register(
    "infAP", meaning="inferred AP: AP estimated from a random sample of the judgement pool",
    convention="(1/R_q) Σ over retrieved relevant r of 1/r + (pooled above/r)·(rel above + ε)/"
               "(judged above + 2ε), ε = 0.00001, as trec_eval infAP: a negative grade is pooled "
               "but not judged (in 'pooled above' only), an item the ground truth lacks is outside "
               "the pool (counts only in r)",
    reference="Yilmaz & Aslam (2006), CIKM; trec_eval infAP (m_infap.c)",
    formula=r"infAP@K = \frac{1}{R_q}\sum_{r \le K:\,\chi(r)=1}\left(\frac{1}{r} + \frac{r-1}{r}"
            r"\cdot\frac{|d_{<r}|}{r-1}\cdot\frac{rel_{<r} + \epsilon}"
            r"{rel_{<r} + nonrel_{<r} + 2\epsilon}\right)",
    params={"rel": REL})
def inferred_average_precision(j, cutoff, rel=1):
    """infAP = (1/R_q) Σ over the retrieved relevant items (grade >= rel, within k) at rank r of
    E[P(r)] = 1/r + ((r − 1)/r) · (d/(r − 1)) · (rel + ε)/(rel + nonrel + 2ε), and 1 at r = 1,
    where, among the items ranked above r, d are in the pool (in the ground truth, any grade),
    rel are judged relevant, nonrel judged not relevant (0 <= grade < rel); ε = 0.00001.
    An item the ground truth lacks is outside the pool: it only lengthens r, as a non-relevant
    item would; a negative grade (pooled but not judged) is in d but neither in rel nor nonrel,
    so it counts in the share estimated from the judged sample. When the ground truth judges
    the whole collection, every unlisted item above r is pooled and judged not relevant, and
    infAP is AP but for the ε terms. The expression is trec_eval's, term for term, so the values
    agree to the last bits. Ref: Yilmaz & Aslam (2006); trec_eval ``infAP`` (m_infap.c)."""
    query, relevance = j.hit_query, Relevance(rel)
    relevant = relevance.relevant(j.hit_grades)
    above_rel = before_in_query(query, relevant, j.num_queries)
    above_nonrel = before_in_query(query, relevance.judged_nonrelevant(j.hit_grades),
                                   j.num_queries)
    above_pooled = j.hit_position
    if j.unlisted_judged:   # ranks above that hold no hit hold judged non-relevant items
        unlisted = j.hit_ranks - 1 - j.hit_position
        above_nonrel, above_pooled = above_nonrel + unlisted, above_pooled + unlisted
    keep = relevant & j.within(cutoff)
    fj = (j.hit_ranks[keep] - 1).astype(np.float64)      # trec_eval's 0-based position j
    a_rel = above_rel[keep].astype(np.float64)
    a_nonrel = above_nonrel[keep].astype(np.float64)
    a_pooled = above_pooled[keep].astype(np.float64)
    safe = np.maximum(fj, 1.0)
    term = (1.0 / (fj + 1.0) + (fj / (fj + 1.0)) * (a_pooled / safe)
            * ((a_rel + INFAP_EPSILON) / (a_rel + a_nonrel + 2 * INFAP_EPSILON)))
    term = np.where(fj == 0, 1.0, term)
    return divide(per_query_sum(j, query[keep], term), j.num_relevant(rel))


@register(
    "RR", meaning="reciprocal rank of the first relevant item",
    convention="form=first (default): 1/rank of the first relevant item, 0 if none (trec_eval "
               "recip_rank); form=serra: sum of 1/rank over retrieved relevant items / |A| "
               "(Serrà 2007, Table 2 'RR')",
    reference="trec_eval recip_rank; Serrà (2007)",
    formula=r"RR@K = \frac{1}{\min\{r \le K : \chi(r) = 1\}}\ (0 \text{ if none})",
    params={"form": Param("first", choice("first", "serra")), "rel": REL},
    expected=MCSHERRY_NAJORK + "; form=serra linear")
def reciprocal_rank(j, cutoff, form="first", rel=1):
    """RR = 1 / (rank of the first relevant item within the first k), 0 if there is none.
    ``form=serra``: (1/|A|) Σ_r χ(r)/r, Serrà's Table 2 "RR". Under expected ties, the first form
    is :func:`metrics.ranking.tie_aware.expected_reciprocal_rank`. Ref: Voorhees (1999); Serrà (2007);
    McSherry & Najork (2008)."""
    if form == "serra":
        relevant = Relevance(rel).relevant(j.hit_grades)
        total = per_query_sum(j, j.hit_query[relevant],
                              j.rank_weights(cutoff, lambda r: 1.0 / r)[relevant])
        return divide(total, j.retrieved(cutoff), where_zero=0.0)
    if j.expected_ties:
        return expected_reciprocal_rank(j, rel, cutoff)
    return np.nan_to_num(1.0 / first_relevant_rank(j, rel, cutoff), nan=0.0)


def _precision_at_rq(j, rel):
    r_q = j.num_relevant(rel)
    return divide(true_positives(j, rel, r_q), r_q)


@register("Rprec", meaning="precision at rank R_q (at rank ⌊x·R_q + 0.9⌋ with mult=x)",
          cutoff="none",
          convention="TP(R_q)/R_q; a list shorter than R_q is padded with non-relevant items. "
                     "mult=x: TP(c)/c at c = ⌊x·R_q + 0.9⌋ in double, 0 when c = 0, as "
                     "trec_eval Rprec_mult_x (its rounding in trec_eval 9 and 10 alike)",
          reference="trec_eval Rprec, Rprec_mult (m_Rprec_mult.c)", formula=r"Rprec = P(R_q)",
          params={"mult": Param(1.0, positive_float, "the rank as a multiple of R_q"),
                  "rel": REL},
          expected=LINEAR)
def r_precision(j, cutoff, mult=1.0, rel=1):
    """Rprec = P(R_q) = TP(R_q) / R_q; with ``mult`` = x, TP(c) / c at c = ⌊x·R_q + 0.9⌋ (0 when
    c = 0), trec_eval's ``Rprec_mult_x``. x = 1 gives c = R_q. Ref: trec_eval ``Rprec``,
    ``Rprec_mult``."""
    if mult == 1.0:
        return _precision_at_rq(j, rel)
    r_q = j.num_relevant(rel)
    rank = np.floor(mult * r_q + 0.9).astype(np.int64)
    value = divide(true_positives(j, rel, rank), rank, where_zero=0.0)
    return np.where(r_q == 0, np.nan, value)


@register("BEP", meaning="break-even point of the PR curve, where P(r) = R(r)", cutoff="none",
          convention="P(r) = R(r) exactly at r = R_q, so BEP = P(R_q) = Rprec (FMP C7S3)",
          reference="Müller, FMP (2015) §7.3.3", formula=r"BEP = P(R_q) = R(R_q)",
          params={"rel": REL}, expected=LINEAR)
def break_even_point(j, cutoff, rel=1):
    """BEP: the point of the PR curve where precision equals recall; since P(r)·r = R(r)·R_q it is
    at r = R_q, so BEP = P(R_q). Ref: Müller, FMP (2015) §7.3.3."""
    return _precision_at_rq(j, rel)


@register("Fmax", meaning="largest F(r) along the list (within the top k)",
          convention="max over r of F_β(P(r), R(r)); 0 for an empty list",
          reference="Müller, FMP (2015) §7.3.3", formula=r"F_{max}@K = \max_{r \le K} F_\beta(r)",
          params={"beta": Param(1.0, positive_float), "rel": REL})
def f_max(j, cutoff, beta=1.0, rel=1):
    """F_max = max_r F_β(r) over the ranks of the list. F(r) rises only at a relevant rank (TP
    grows) and falls between them (P falls), so the maximum is at a relevant rank.
    Ref: Müller, FMP (2015) §7.3.3."""
    hits = relevant_hits(j, rel, cutoff)
    r_q = j.num_relevant(rel)
    f = f_measure(hits.tp / hits.rank, divide(hits.tp, r_q[hits.query]), beta)
    best = np.zeros(j.num_queries)
    np.maximum.at(best, hits.query, f)
    return np.where(r_q == 0, np.nan, best)


def _bpref_terms(j, cutoff, rel):
    """The query and n_r (judged non-relevant items ranked above it) of every retrieved relevant
    item, and R_q. Judged non-relevant means a grade 0 <= g < rel: a negative grade (trec_eval's
    "pooled but not judged") is not, and neither is an unjudged item — unless the truth judges
    every unlisted item (labels, taxonomies), where the items between the hits count too."""
    relevance = Relevance(rel)
    nonrel = relevance.judged_nonrelevant(j.hit_grades)
    above = before_in_query(j.hit_query, nonrel, j.num_queries)
    if j.unlisted_judged:   # ranks above that hold no hit hold judged non-relevant items
        above = above + (j.hit_ranks - 1 - j.hit_position)
    relevant = relevance.relevant(j.hit_grades) & j.within(cutoff)
    return (j.hit_query[relevant], above[relevant].astype(np.float64),
            j.num_relevant(rel).astype(np.float64))


# bpref* and uncapped bpref are linear in n_r; bpref and bpref-10 cap it with min(), which is not
_LINEAR_IN_N_R = ("closed form: linear in n_r, whose mean at each offset of a tie group is "
                  "known (see metrics.ranking.tie_aware.expected_nonrelevant_above)")


@register("Bpref", meaning="binary preference (judged non-relevant ranked above relevant)",
          convention="(1/R) Σ over retrieved relevant r of (1 − min(n_r, R)/min(R, N)), "
                     "N = judged non-relevant; unjudged items ignored (trec_eval bpref)",
          reference="Buckley & Voorhees (2004); trec_eval bpref",
          formula=r"bpref = \frac{1}{R_q}\sum_{r:\,\chi(r)=1}"
                  r"\left(1 - \frac{\min(n_r, R_q)}{\min(R_q, N)}\right)",
          params={"rel": REL})
def bpref(j, cutoff, rel=1):
    """bpref = (1/R) Σ_r (1 − min(n_r, R) / min(R, N)), a term being 1 when n_r = 0.
    Ref: Buckley & Voorhees (2004); trec_eval ``bpref``."""
    query, above, r = _bpref_terms(j, cutoff, rel)
    n = j.num_judged_nonrelevant(rel).astype(np.float64)
    cap = np.minimum(r, n)[query]
    term = np.where(above > 0, 1.0 - divide(np.minimum(above, r[query]), cap, 0.0), 1.0)
    return divide(per_query_sum(j, query, term), r)


@register("Bpref10", meaning="bpref-10, for queries with few relevant items",
          convention="(1/R) Σ (1 − min(n_r, R+10)/(R+10)) over retrieved relevant r",
          reference="Buckley & Voorhees (2004); Serrà (2007) 'bpref-10'",
          formula=r"bpref_{10} = \frac{1}{R_q}\sum_{r:\,\chi(r)=1}"
                  r"\left(1 - \frac{\min(n_r, R_q+10)}{R_q+10}\right)",
          params={"rel": REL})
def bpref10(j, cutoff, rel=1):
    """bpref-10 = (1/R) Σ_r (1 − min(n_r, R+10)/(R+10)). Ref: Buckley & Voorhees (2004)."""
    query, above, r = _bpref_terms(j, cutoff, rel)
    cap = (r + 10)[query]
    term = 1.0 - np.minimum(above, cap) / cap
    return divide(per_query_sum(j, query, term), r)


@register("BprefStar", meaning="Serrà's bpref*",
          convention="(1/R) Σ (1 − n_r/(|A| + R)) over retrieved relevant r",
          reference="Serrà (2007), eq. 1",
          formula=r"bpref^{*} = \frac{1}{R_q}\sum_{r:\,\chi(r)=1}"
                  r"\left(1 - \frac{n_r}{|A| + R_q}\right)", params={"rel": REL},
          expected=_LINEAR_IN_N_R)
def bpref_star(j, cutoff, rel=1):
    """bpref* = (1/R_q) Σ_r (1 − n_r/(|A| + R_q)). Ref: Serrà (2007) eq. (1)."""
    if j.expected_ties:
        retrieved, above = expected_nonrelevant_above(j, rel, cutoff)
        r = j.num_relevant(rel).astype(np.float64)
        return divide(retrieved - divide(above, j.retrieved(cutoff) + r, 0.0), r)
    query, above, r = _bpref_terms(j, cutoff, rel)
    denom = (j.retrieved(cutoff) + r)[query]
    term = 1.0 - divide(above, denom, where_zero=0.0)
    return divide(per_query_sum(j, query, term), r)


@register("BprefUncapped", meaning="bpref without the min() caps (can be negative)",
          convention="(1/R) Σ (1 − n_r/R); the form behind Serrà's Table 2 'bpref' (−2.000 for A1)",
          reference="Serrà (2007) Table 2",
          formula=r"bpref_{uncapped} = \frac{1}{R_q}\sum_{r:\,\chi(r)=1}"
                  r"\left(1 - \frac{n_r}{R_q}\right)",
          params={"rel": REL}, expected=_LINEAR_IN_N_R)
def bpref_uncapped(j, cutoff, rel=1):
    """(1/R) Σ_r (1 − n_r/R), bpref with neither cap: Serrà's Table 2 "bpref"."""
    if j.expected_ties:
        retrieved, above = expected_nonrelevant_above(j, rel, cutoff)
        r = j.num_relevant(rel).astype(np.float64)
        return divide(retrieved - divide(above, r), r)
    query, above, r = _bpref_terms(j, cutoff, rel)
    term = 1.0 - divide(above, r[query])
    return divide(per_query_sum(j, query, term), r)




@register("FirstRank", meaning="rank of the first relevant item (mean over queries: MIREX MR1)",
          convention="undefined when no relevant item is retrieved", higher_is_better=False,
          reference="MIREX cover song identification 'MR1'",
          formula=r"FirstRank = \min\{r : \chi(r) = 1\}", params={"rel": REL},
          expected="closed form without @k: s + (n − m)/(m + 1) for the first tie group holding "
                   "a relevant item")
def first_rank(j, cutoff, rel=1):
    """Rank of the first relevant item; NaN when none is retrieved (within k). Under expected
    ties, :func:`metrics.ranking.tie_aware.expected_first_rank`."""
    if j.tie_policy is TiePolicy.EXPECTED:   # refuses @k even where nothing ties, as the others do
        return expected_first_rank(j, rel, cutoff)
    return first_relevant_rank(j, rel, cutoff)


@register("MedianRank", meaning="median rank of the retrieved relevant items",
          convention="median of the ranks r with χ(r) = 1; undefined when none is retrieved",
          higher_is_better=False, reference="the text-to-music evaluation tutorial ('Median Rank')",
          formula=r"MedianRank = \mathrm{median}\{r : \chi(r) = 1\}", params={"rel": REL})
def median_rank(j, cutoff, rel=1):
    """Median of the ranks of the retrieved relevant items (the mean of the two middle ones for an
    even count); NaN when there is none."""
    hits = relevant_hits(j, rel, cutoff)
    count = per_query_count(j, hits.query)
    start = np.r_[0, np.cumsum(count)][:-1]
    found = count > 0
    low = start + (count - 1) // 2
    high = start + count // 2
    out = np.full(j.num_queries, np.nan)
    out[found] = (hits.rank[low[found]] + hits.rank[high[found]]) / 2.0
    return out


@register("MeanRank", meaning="mean rank of the retrieved relevant items",
          convention="mean of the ranks r with χ(r) = 1; undefined when none is retrieved",
          higher_is_better=False,
          reference="the text-to-music evaluation tutorial ('mean rank'); not acoss' or re-move's 'MR', the mean rank of the "
                    "first cover (FirstRank; --protocol acoss)",
          formula=r"MeanRank = \mathrm{mean}\{r : \chi(r) = 1\}", params={"rel": REL},
          expected="linear without @k (the count of relevant items retrieved is then fixed)")
def mean_rank(j, cutoff, rel=1):
    """Mean of the ranks of the retrieved relevant items; NaN when there is none."""
    if j.tie_policy is TiePolicy.EXPECTED and cutoff is not None:
        raise MeasureError("MeanRank@k divides by the relevant items in the top k, which tied "
                           "items change, so it has no closed-form mean over their orderings; "
                           "use MeanRank without @k, or --ties optimistic / pessimistic")
    relevant = Relevance(rel).relevant(j.hit_grades)
    query = j.hit_query[relevant]
    return divide(per_query_sum(j, query, j.rank_weights(cutoff, lambda r: r)[relevant]),
                  per_query_sum(j, query, j.rank_weights(cutoff)[relevant]))
