"""Rank-based binary measures: AP, RR, R-precision, break-even point, F_max, bpref and its
variants, and the rank statistics of the relevant items."""

from __future__ import annotations

import numpy as np

from ..registry import REL, Param, choice, positive_float, register
from .common import (before_in_query, divide, f_measure, first_relevant_rank, per_query_count,
                     per_query_sum, relevant_hits)


@register(
    "AP", meaning="average precision",
    convention="norm=rq (default): sum of P(r) at relevant ranks / R_q (trec_eval map, map_cut_k); "
               "norm=retrieved: / relevant retrieved (Serrà 2007, Table 2); norm=min: / min(k, R_q) "
               "(MAP@K of recommender and text-to-music papers)",
    reference="trec_eval map; FMP C7S3; Serrà (2007)",
    formula=r"AP = \frac{1}{R_q}\sum_{r=1}^{|A|} P(r)\,\chi(r)",
    params={"norm": Param("rq", choice("rq", "retrieved", "min"), "denominator"), "rel": REL})
def average_precision(j, cutoff, norm="rq", rel=1):
    """AP = (1/n) Σ_r P(r)·χ(r) over the first k ranks, where n is R_q (``norm=rq``), the relevant
    items retrieved (``norm=retrieved``, 0 when none is) or min(k, R_q) (``norm=min``, with
    k = |A| without a cutoff). Undefined for R_q = 0. Ref: trec_eval ``map``; Müller, FMP (2015)
    §7.3.3; Serrà (2007) Table 2."""
    hits = relevant_hits(j, rel, cutoff)
    total = per_query_sum(j, hits.query, hits.tp / hits.rank)  # P(r) = TP(r)/r at relevant r
    r_q = j.num_relevant(rel)
    if norm == "retrieved":
        value = divide(total, per_query_count(j, hits.query), where_zero=0.0)
        return np.where(r_q == 0, np.nan, value)
    if norm == "min":  # an empty list scores 0, like the other normalisations
        k = j.lengths if cutoff is None else cutoff
        return np.where(r_q == 0, np.nan, divide(total, np.minimum(k, r_q), where_zero=0.0))
    return divide(total, r_q)


@register(
    "RR", meaning="reciprocal rank of the first relevant item",
    convention="form=first (default): 1/rank of the first relevant item, 0 if none (trec_eval "
               "recip_rank); form=serra: sum of 1/rank over retrieved relevant items / |A| "
               "(Serrà 2007, Table 2 'RR')",
    reference="trec_eval recip_rank; Serrà (2007)",
    formula=r"RR = \frac{1}{\min\{r : \chi(r) = 1\}}",
    params={"form": Param("first", choice("first", "serra")), "rel": REL})
def reciprocal_rank(j, cutoff, form="first", rel=1):
    """RR = 1 / (rank of the first relevant item within the first k), 0 if there is none.
    ``form=serra``: (1/|A|) Σ_r χ(r)/r, Serrà's Table 2 "RR". Ref: Voorhees (1999); Serrà (2007)."""
    if form == "serra":
        hits = relevant_hits(j, rel, cutoff)
        total = per_query_sum(j, hits.query, 1.0 / hits.rank)
        return divide(total, j.retrieved(cutoff), where_zero=0.0)
    return np.nan_to_num(1.0 / first_relevant_rank(j, rel, cutoff), nan=0.0)


def _precision_at_rq(j, rel):
    r_q = j.num_relevant(rel)
    hits = relevant_hits(j, rel, None)
    return divide(per_query_sum(j, hits.query, hits.rank <= r_q[hits.query]), r_q)


@register("Rprec", meaning="precision at rank R_q", cutoff="none",
          convention="TP(R_q)/R_q; a list shorter than R_q is padded with non-relevant items",
          reference="trec_eval Rprec", formula=r"R\text{-}prec = P(R_q)", params={"rel": REL})
def r_precision(j, cutoff, rel=1):
    """Rprec = P(R_q) = TP(R_q) / R_q. Ref: trec_eval ``Rprec``."""
    return _precision_at_rq(j, rel)


@register("BEP", meaning="break-even point of the PR curve, where P(r) = R(r)", cutoff="none",
          convention="P(r) = R(r) exactly at r = R_q, so BEP = P(R_q) = Rprec (FMP C7S3)",
          reference="Müller, FMP (2015) §7.3.3", formula=r"BEP = P(R_q) = R(R_q)",
          params={"rel": REL})
def break_even_point(j, cutoff, rel=1):
    """BEP: the point of the PR curve where precision equals recall; since P(r)·r = R(r)·R_q it is
    at r = R_q, so BEP = P(R_q). Ref: Müller, FMP (2015) §7.3.3."""
    return _precision_at_rq(j, rel)


@register("Fmax", meaning="largest F(r) along the list (within the top k)",
          convention="max over r of F_β(P(r), R(r)); 0 for an empty list",
          reference="Müller, FMP (2015) §7.3.3", formula=r"F_{max} = \max_r F(r)",
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
    nonrel = (j.hit_grades >= 0) & (j.hit_grades < rel)
    above = before_in_query(j.hit_query, nonrel, j.num_queries)
    if j.unlisted_judged:   # ranks above that hold no hit hold judged non-relevant items
        above = above + (j.hit_ranks - 1 - j.hit_position)
    relevant = (j.hit_grades >= rel) & j.within(cutoff)
    return (j.hit_query[relevant], above[relevant].astype(np.float64),
            j.num_relevant(rel).astype(np.float64))


@register("Bpref", meaning="binary preference (judged non-relevant ranked above relevant)",
          convention="(1/R) Σ over retrieved relevant r of (1 − min(n_r, R)/min(R, N)), "
                     "N = judged non-relevant; unjudged items ignored (trec_eval bpref)",
          reference="Buckley & Voorhees (2004); trec_eval bpref",
          formula=r"bpref = \frac{1}{R}\sum_{r} \left(1 - \frac{\min(n_r, R)}{\min(R, N)}\right)",
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
          formula=r"\frac{1}{R}\sum_r\left(1 - \frac{\min(n_r, R+10)}{R+10}\right)",
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
          formula=r"\frac{1}{R}\sum_r\left(1 - \frac{n_r}{|A| + R}\right)", params={"rel": REL})
def bpref_star(j, cutoff, rel=1):
    """bpref* = (1/R_q) Σ_r (1 − n_r/(|A| + R_q)). Ref: Serrà (2007) eq. (1)."""
    query, above, r = _bpref_terms(j, cutoff, rel)
    denom = (j.retrieved(cutoff) + r)[query]
    term = 1.0 - divide(above, denom, where_zero=0.0)
    return divide(per_query_sum(j, query, term), r)


@register("BprefUncapped", meaning="bpref without the min() caps (can be negative)",
          convention="(1/R) Σ (1 − n_r/R); the form behind Serrà's Table 2 'bpref' (−2.000 for A1)",
          reference="Serrà (2007) Table 2", formula=r"\frac{1}{R}\sum_r\left(1-\frac{n_r}{R}\right)",
          params={"rel": REL})
def bpref_uncapped(j, cutoff, rel=1):
    """(1/R) Σ_r (1 − n_r/R), bpref with neither cap: Serrà's Table 2 "bpref"."""
    query, above, r = _bpref_terms(j, cutoff, rel)
    term = 1.0 - divide(above, r[query])
    return divide(per_query_sum(j, query, term), r)




@register("FirstRank", meaning="rank of the first relevant item (mean over queries: MIREX MR1)",
          convention="undefined when no relevant item is retrieved", higher_is_better=False,
          reference="MIREX cover song identification 'MR1'",
          formula=r"\min\{r : \chi(r) = 1\}", params={"rel": REL})
def first_rank(j, cutoff, rel=1):
    """Rank of the first relevant item; NaN when none is retrieved (within k)."""
    return first_relevant_rank(j, rel, cutoff)


@register("MedianRank", meaning="median rank of the retrieved relevant items",
          convention="median of the ranks r with χ(r) = 1; undefined when none is retrieved",
          higher_is_better=False, reference="seed 000 (text-to-music) 'Median Rank'",
          formula=r"\mathrm{median}\{r : \chi(r) = 1\}", params={"rel": REL})
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
          reference="seed 000 ('mean rank'); not acoss' or re-move's 'MR', the mean rank of the "
                    "first cover (FirstRank; --protocol acoss)",
          formula=r"\mathrm{mean}\{r : \chi(r) = 1\}", params={"rel": REL})
def mean_rank(j, cutoff, rel=1):
    """Mean of the ranks of the retrieved relevant items; NaN when there is none."""
    hits = relevant_hits(j, rel, cutoff)
    return divide(per_query_sum(j, hits.query, hits.rank), per_query_count(j, hits.query))
