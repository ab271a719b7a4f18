"""trec_eval's own measures: those trec_eval 10 defines that no other source does (gm_map,
gm_bpref, utility, binG, G, ndcg_rel, Rndcg, relative_P, set_map, num_nonrel_judged_ret, unj,
yaap), each as trec_eval 10 computes it (its m_*.c, read line by line).

Every value is computed for all queries at once from the judged hits; the order in which a
query's terms are added is trec_eval's (rank order, one by one from 0), so the doubles agree with
its to the last bit where its arithmetic is exact, and to a few units in the last place where it
raises p to a power by repeated multiplication. A query with no relevant item gets the value
trec_eval gives it (``evaluate`` leaves such queries out of its means, as for every measure,
unless asked to score them as trec_eval does)."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np

from metrics.data.relevance import Relevance
from metrics.errors import MeasureError
from metrics.measures.common import (divide, per_query_count, per_query_sum, place_in_query,
                                     precision_sum, relevant_hits, sum_before, true_positives)
from metrics.measures import trec_gains
from metrics.measures.graded import GAINS, NO_GAINS, ideal_items
from metrics.measures.rank_based import average_precision, bpref
from metrics.measures.registry import LINEAR, REL, UNTIED, Param, real_number, register

_TREC = "trec_eval 10 (NIST, Buckley), "
GEOMETRIC_FLOOR = 0.00001   # trec_eval's MIN_GEO_MEAN (trec_eval.h)


def geometric_mean(values: np.ndarray) -> float:
    """trec_eval's geometric mean over queries: exp((Σ log max(v, 0.00001)) / n), the logarithms
    added in query order from 0 as it adds them."""
    logs = np.log(np.maximum(values, GEOMETRIC_FLOOR))
    return float(math.exp(float(np.cumsum(logs)[-1]) / len(values)))


@register("GMAP", meaning="geometric mean average precision: AP per query, the geometric mean "
          "over queries", aggregate="geometric",
          convention="per query AP (÷ R_q); over queries exp(mean of log max(AP, 0.00001)) in "
                     "place of the mean (trec_eval gm_map, which prints only that summary)",
          reference=_TREC + "m_gm_map.c; Robertson (2006), CIKM",
          formula=r"GMAP = \exp\Big(\frac{1}{|Q|}\sum_q \log\max(AP_q, 10^{-5})\Big)",
          params={"rel": REL}, cutoff="none")
def gm_average_precision(j, cutoff, rel=1):
    """AP of each query (the geometric mean is taken over queries: the registry's ``aggregate``
    is "geometric"). 0 for a query without a relevant item, as trec_eval's sum of 0 over none.
    Ref: trec_eval ``gm_map`` (m_gm_map.c)."""
    return np.nan_to_num(average_precision(j, None, rel=rel), nan=0.0)


@register("GMBpref", meaning="bpref per query, the geometric mean over queries",
          aggregate="geometric", cutoff="none",
          convention="per query bpref; over queries exp(mean of log max(bpref, 0.00001)) "
                     "(trec_eval gm_bpref, which prints only that summary)",
          reference=_TREC + "m_gm_bpref.c",
          formula=r"GMBpref = \exp\Big(\frac{1}{|Q|}\sum_q \log\max(bpref_q, 10^{-5})\Big)",
          params={"rel": REL})
def gm_bpref(j, cutoff, rel=1):
    """bpref of each query, 0 without a relevant item; the geometric mean is the aggregate.
    Ref: trec_eval ``gm_bpref`` (m_gm_bpref.c)."""
    return np.nan_to_num(bpref(j, None, rel=rel), nan=0.0)


@register("Utility", meaning="set utility: a weighted count of the contingency table",
          cutoff="none",
          convention="tp·TP + fp·(|A| − TP) + fn·(R_q − TP) + tn·(|D| + TP − |A| − R_q); "
                     "tp=1, fp=−1, fn=0, tn=0 as trec_eval utility (tn ≠ 0 needs |D|, "
                     "trec_eval's -N); averaged over queries as trec_eval does",
          reference=_TREC + "m_utility.c",
          formula=r"U = c_{tp} TP + c_{fp}(|A| - TP) + c_{fn}(R_q - TP) + "
                  r"c_{tn}(|D| + TP - |A| - R_q)",
          params={"tp": Param(1.0, real_number, "worth of a relevant item retrieved"),
                  "fp": Param(-1.0, real_number, "worth of a non-relevant item retrieved"),
                  "fn": Param(0.0, real_number, "worth of a relevant item missed"),
                  "tn": Param(0.0, real_number, "worth of a non-relevant item not retrieved"),
                  "rel": REL}, expected=LINEAR)
def utility(j, cutoff, tp=1.0, fp=-1.0, fn=0.0, tn=0.0, rel=1):
    """tp·a + fp·b + fn·c + tn·d over the contingency table (a relevant retrieved, b other
    retrieved, c relevant missed, d the rest of the collection), the four products added left to
    right as trec_eval adds them. Ref: trec_eval ``utility`` (m_utility.c)."""
    a = true_positives(j, rel, None)
    retrieved = j.lengths.astype(np.float64)
    r_q = j.num_relevant(rel).astype(np.float64)
    if tn != 0 and j.collection_sizes is None:
        raise MeasureError("Utility with tn ≠ 0 counts the items not retrieved, which needs the "
                           "collection size |D| (--collection-size, trec_eval's -N)")
    size = 0.0 if j.collection_sizes is None else j.collection_sizes.astype(np.float64)
    return tp * a + fp * (retrieved - a) + fn * (r_q - a) + tn * (size + a - retrieved - r_q)


@register("BinG", meaning="binary G: each relevant item retrieved, discounted by the "
          "non-relevant items above it", params={"rel": REL},
          convention="(1/R_q) Σ over retrieved relevant items of 1/log2(2 + non-relevant or "
                     "unjudged items ranked above it); trec_eval's experimental binG",
          reference=_TREC + "m_binG.c (experimental, 2008)",
          formula=r"binG = \frac{1}{R_q}\sum_{r:\,\chi(r)=1} \frac{1}{\log_2(2 + r - TP(r))}")
def bin_g(j, cutoff, rel=1):
    """(1/R_q) Σ_r 1/log2(2 + r − TP(r)) over the relevant ranks r within k: r − TP(r) items
    above r are not relevant (unjudged ones included). 0 when none is retrieved (or R_q = 0).
    Ref: trec_eval ``binG`` (m_binG.c)."""
    hits = relevant_hits(j, rel, cutoff)
    terms = 1.0 / np.log2((2 + hits.rank - hits.tp).astype(np.float64))
    return divide(per_query_sum(j, hits.query, terms), j.num_relevant(rel), where_zero=0.0)


def _gains(j):
    """Each hit's gain as trec_eval's default gains give it: the grade, 0 for a negative one."""
    return np.clip(j.hit_grades, 0, None).astype(np.float64)


@dataclass(frozen=True)
class Ideal:
    """The ideal ranking: every judged item of positive grade, best first, as its query, place
    (1..n) and gain, and each query's n and the index of its first place."""

    query: np.ndarray
    place: np.ndarray
    gain: np.ndarray
    n: np.ndarray
    first: np.ndarray

    def running(self, values: np.ndarray) -> np.ndarray:
        """Σ of ``values`` up to and including each place, added from 0 in place order."""
        return sum_before(self.query, values) + values

    def at(self, running: np.ndarray, query: np.ndarray, places: np.ndarray) -> np.ndarray:
        """``running`` at place ``places`` (<= n) of each query; 0 at place 0."""
        if not len(running):
            return np.zeros(len(query))
        return np.where(places > 0, running[np.maximum(self.first[query] + places - 1, 0)], 0.0)


def ideal_ranking(j, gains=NO_GAINS) -> Ideal:
    """The ideal ranking of each query: by grade, or as trec_eval orders ``gains`` given per
    grade (:func:`metrics.measures.trec_gains.ideal_gains`)."""
    query, grade = trec_gains.ideal_gains(j, gains) if gains else ideal_items(j)
    return Ideal(query, place_in_query(query, j.num_queries) + 1, grade.astype(np.float64),
                 per_query_count(j, query), np.searchsorted(query, np.arange(j.num_queries)))


@register("G", meaning="normalised gain G: each item's gain discounted by how far the list "
          "so far falls short of the ideal one",
          convention="Σ_i g_i / log2(2 + C(i) − Σ_{t<=i} g_t) ÷ Σ of the ideal gains, C(i) = "
                     "Σ_{t<=i} max(ideal gain at t, 1); gain = grade, as trec_eval's "
                     "experimental G with its default gains",
          reference=_TREC + "m_G.c (experimental, 2008)",
          formula=r"G = \frac{1}{\sum_t g^*_t}\sum_{i:\,g_i \ne 0}"
                  r"\frac{g_i}{\log_2\big(2 + \sum_{t \le i}\max(g^*_t, 1) - "
                  r"\sum_{t\le i} g_t\big)}",
          params={"gains": GAINS})
def normalized_gain(j, cutoff, gains=NO_GAINS):
    """G = Σ_i g_i / log2(2 + C(i) − S(i)) / Σ_t g*_t over the ranks i (within k) of items with a
    gain, where S(i) is the gain retrieved up to rank i, g*_t the ideal ranking's gain at place t
    (0 past its end) and C(i) = Σ_{t<=i} max(g*_t, 1) = i + Σ_{t<=min(i, n)} (g*_t − 1) for
    whole grades. The ideal ranking comes from the whole ground truth. NaN when it has no gain.
    With ``gains`` (trec_eval's G.1=3,2=9), each grade's gain is the one given, negative ones
    included, and the ideal ranking trec_eval's under them. Ref: trec_eval ``G`` (m_G.c)."""
    given = trec_gains.hit_gains(j, gains) if gains else _gains(j)
    keep = (given != 0) & j.within(cutoff)
    query, rank, gain = j.hit_query[keep], j.hit_ranks[keep], given[keep]
    retrieved_gain = sum_before(query, gain) + gain
    ideal = ideal_ranking(j, gains)
    extra = ideal.at(ideal.running(np.maximum(ideal.gain, 1.0) - 1.0), query,
                     np.minimum(rank, ideal.n[query]))
    terms = gain / np.log2(2 + (rank + extra) - retrieved_gain)
    return divide(per_query_sum(j, query, terms), per_query_sum(j, ideal.query, ideal.gain))


def _dcg_terms(gains, ranks):
    return gains / np.log2(np.asarray(ranks, dtype=np.float64) + 1.0)


def _dcg_within(j, running, query, k):
    """DCG of the top k of each (query, k) pair, from ``running``, the DCG up to and including
    each hit: the hits of the query ranked within k are found by one search of the
    (query, rank) keys, which are ascending."""
    if not len(running):
        return np.zeros(len(query))
    scale = int(j.hit_ranks.max()) + 2
    keys = j.hit_query * scale + j.hit_ranks
    within = np.searchsorted(keys, query * scale + np.minimum(k, scale - 1), side="right")
    counted = within - j.offsets[query]
    return np.where(counted > 0, running[np.maximum(within - 1, 0)], 0.0)


@register("nDCGRel", meaning="nDCG averaged over the relevant items (trec_eval's ndcg_rel)",
          cutoff="none",
          convention="(1/n) (Σ over retrieved items with a gain of nDCG at their rank + (n − "
                     "those retrieved) · nDCG of the whole list), n = judged items with a gain; "
                     "gain = grade; 0 when the sum is 0",
          reference=_TREC + "m_ndcg_rel.c (experimental)",
          formula=r"nDCG_{rel} = \frac{1}{n}\Big(\sum_{i:\,g_i>0} nDCG@i + (n - n_{ret})\,"
                  r"nDCG\Big)", params={"gains": GAINS})
def ndcg_rel(j, cutoff, gains=NO_GAINS):
    """(1/n) [Σ over the retrieved items of positive gain at rank r of DCG@r / IDCG@min(r, n)
    + (n − their number) · DCG / IDCG], n the items of positive grade in the ground truth, the
    gain the grade (trec_eval's default gains) or the one ``gains`` gives it, n then the places
    of trec_eval's ideal ranking under them. NaN when n = 0.
    Ref: trec_eval ``ndcg_rel`` (m_ndcg_rel.c)."""
    ideal = ideal_ranking(j, gains)
    gains = trec_gains.hit_gains(j, gains) if gains else _gains(j)
    terms = _dcg_terms(gains, j.hit_ranks)
    running = sum_before(j.hit_query, terms) + terms
    ideal_terms = _dcg_terms(ideal.gain, ideal.place)
    ideal_running = ideal.running(ideal_terms)
    positive = gains > 0
    query, rank = j.hit_query[positive], j.hit_ranks[positive]
    at_hits = running[positive] / ideal.at(ideal_running, query,
                                           np.minimum(rank, ideal.n[query]))
    whole = divide(per_query_sum(j, j.hit_query, terms),
                   per_query_sum(j, ideal.query, ideal_terms), where_zero=0.0)
    total = (per_query_sum(j, query, at_hits)
             + (ideal.n - per_query_count(j, query)) * whole)
    return np.where(ideal.n == 0, np.nan, np.where(total > 0, divide(total, ideal.n), 0.0))


@register("RnDCG", meaning="nDCG averaged at the R levels: where the ideal ranking's gain "
          "changes (trec_eval's Rndcg)", cutoff="none",
          convention="mean of nDCG@b over b = the ideal ranking's last place of each gain (b_1 "
                     "items of the best grade, then b_2 … up to n items of positive grade), and "
                     "of nDCG of the whole list when |A| >= n + 2 (trec_eval's test); gain = "
                     "grade; 0 without an item of grade >= rel",
          reference=_TREC + "m_Rndcg.c (experimental)",
          formula=r"RnDCG = \operatorname{mean}\big(nDCG@b_1, \ldots, nDCG@b_m[, nDCG@|A|]\big)",
          params={"rel": REL, "gains": GAINS})
def r_ndcg(j, cutoff, rel=1, gains=NO_GAINS):
    """The mean of nDCG@b over the places b where the ideal ranking's gain changes (the last
    place of each positive grade, the last being n), with DCG@b = DCG@|A| past the list's end;
    and, when |A| >= n + 2, of DCG / IDCG over the whole list (trec_eval adds this term when its
    loop over the list outlives the ideal one by two ranks, not by one). 0 for a query without
    an item of grade >= rel, as trec_eval. With ``gains``, each grade's gain is the one given and
    the ideal ranking trec_eval's under them. Ref: trec_eval ``Rndcg`` (m_Rndcg.c)."""
    ideal = ideal_ranking(j, gains)
    gains = trec_gains.hit_gains(j, gains) if gains else _gains(j)
    terms = _dcg_terms(gains, j.hit_ranks)
    running = sum_before(j.hit_query, terms) + terms
    ideal_running = ideal.running(_dcg_terms(ideal.gain, ideal.place))
    last = np.r_[(ideal.query[1:] != ideal.query[:-1]) | (ideal.gain[1:] != ideal.gain[:-1]),
                 True] if len(ideal.query) else np.zeros(0, dtype=bool)
    query, place = ideal.query[last], ideal.place[last]
    at_levels = _dcg_within(j, running, query, place) / ideal_running[last]
    whole = divide(per_query_sum(j, j.hit_query, terms),
                   per_query_sum(j, ideal.query, _dcg_terms(ideal.gain, ideal.place)),
                   where_zero=0.0)
    extra = j.lengths >= ideal.n + 2
    total = per_query_sum(j, query, at_levels) + np.where(extra, whole, 0.0)
    count = per_query_count(j, query) + extra
    value = divide(total, count, where_zero=np.nan)
    return np.where(j.num_relevant(rel) == 0, 0.0, value)


@register("RelP", meaning="relative precision: precision of the top k ÷ the highest it could be",
          convention="TP(k) / min(k, R_q): precision up to R_q, recall after; without @k, "
                     "TP / min(|A|, R_q), 0 for an empty list (trec_eval relative_P_k, "
                     "set_relative_P); 0 without a relevant item",
          reference=_TREC + "m_rel_P.c, m_set_rel_P.c",
          formula=r"RelP@K = \frac{TP(K)}{\min(K, R_q)}", params={"rel": REL}, expected=LINEAR)
def relative_precision(j, cutoff, rel=1):
    """TP(k) / min(k, R_q), or TP / min(|A|, R_q) without a cutoff; 0 where the denominator is 0
    (an empty list, or no relevant item). Ref: trec_eval ``relative_P``, ``set_relative_P``."""
    k = j.lengths if cutoff is None else cutoff
    return divide(true_positives(j, rel, cutoff), np.minimum(k, j.num_relevant(rel)),
                  where_zero=0.0)


@register("SetAP", meaning="set average precision: P × R of the whole list", cutoff="none",
          convention="TP² / (|A| · R_q), 0 for an empty list or without a relevant item "
                     "(trec_eval set_map, ir_measures SetAP)",
          reference=_TREC + "m_set_map.c", formula=r"SetAP = \frac{TP^2}{|A|\,R_q}",
          params={"rel": REL}, expected=UNTIED)
def set_average_precision(j, cutoff, rel=1):
    """TP·TP / (|A|·R_q), each product in double as trec_eval computes it.
    Ref: trec_eval ``set_map`` (m_set_map.c)."""
    tp = true_positives(j, rel, None)
    return divide(tp * tp, j.lengths.astype(np.float64) * j.num_relevant(rel), where_zero=0.0)


@register("NumNonrelJudgedRet", meaning="judged non-relevant items retrieved (summed over "
          "queries)", convention="items of grade 0 <= g < rel in the list (within k), "
                                 "negative grades (pooled, not judged) not counted; every "
                                 "unlisted item when the truth judges the whole collection",
          reference=_TREC + "m_num_nonrel_judged_ret.c",
          formula=r"NumNonrelJudgedRet@K = |\{r \le K : 0 \le g_r < rel\}|",
          params={"rel": REL}, expected=LINEAR)
def num_nonrel_judged_ret(j, cutoff, rel=1):
    """Retrieved items judged not relevant. Ref: trec_eval ``num_nonrel_judged_ret``."""
    nonrel = Relevance(rel).judged_nonrelevant(j.hit_grades)
    count = per_query_sum(j, j.hit_query[nonrel], j.rank_weights(cutoff)[nonrel])
    if j.unlisted_judged:   # the items between the hits are judged non-relevant too
        count = count + j.retrieved(cutoff) - per_query_sum(j, j.hit_query,
                                                            j.rank_weights(cutoff))
    return count


@register("Unjudged", meaning="share of the top k that is not judged (trec_eval's unj_k)",
          cutoff="required", higher_is_better=False,
          convention="unjudged items (absent from the ground truth, or of negative grade) in the "
                     "top k / k: ranks past the end of a short list count as judged (trec_eval "
                     "unj_k; 1 − Judged@k divides by min(k, |A|) instead)",
          reference=_TREC + "m_unjudged.c",
          formula=r"Unjudged@K = \frac{|\{r \le K : d_r \text{ unjudged}\}|}{K}",
          expected=LINEAR)
def unjudged_share(j, cutoff):
    """Unjudged items among the first k ranks, divided by k. Ref: trec_eval ``unj``."""
    judged = Relevance.judged(j.hit_grades)
    if j.unlisted_judged:
        unjudged = per_query_sum(j, j.hit_query[~judged], j.rank_weights(cutoff)[~judged])
    else:
        unjudged = j.retrieved(cutoff) - per_query_sum(j, j.hit_query[judged],
                                                       j.rank_weights(cutoff)[judged])
    return unjudged / float(cutoff)


@register("YAAP", meaning="yet another AP: the log-odds of AP's numerator against the relevant "
          "items it misses", cutoff="none", params={"rel": REL},
          convention="log((1 + S) / (1 + R_q − S)), S = Σ of P(r) at the relevant ranks (AP's "
                     "numerator), as trec_eval yaap",
          reference=_TREC + "m_yaap.c",
          formula=r"YAAP = \log\frac{1 + S}{1 + R_q - S},\ S = \sum_r P(r)\chi(r)")
def yaap(j, cutoff, rel=1):
    """log((1 + S)/(1 + R_q − S)) with S = Σ_r P(r)·χ(r). Ref: trec_eval ``yaap`` (m_yaap.c)."""
    s = precision_sum(j, rel, None)
    return np.log((1.0 + s) / (1.0 + j.num_relevant(rel) - s))


# ---- what trec_eval prints that is not a number --------------------------------------------------

RELSTRING_LENGTH = 10   # trec_eval's default: relstring.10


def relstring(j, query: int, length: int = RELSTRING_LENGTH) -> str:
    """trec_eval's relstring of one query: one character per item of the top ``length``, its
    grade 0-9, '>' above 9, '-' for an item the ground truth lacks (or, when the truth judges
    the whole collection, '0' for it), '.' for a negative grade (in the pool, not judged).
    Ref: trec_eval ``relstring`` (m_relstring.c)."""
    n = min(int(j.lengths[query]), max(length, 0))
    chars = np.full(n, "0" if j.unlisted_judged else "-", dtype="<U1")
    at = slice(j.offsets[query], j.offsets[query + 1])
    ranks, grades = j.hit_ranks[at], j.hit_grades[at]
    shown = ranks <= n
    ranks, grades = ranks[shown], grades[shown]
    chars[ranks - 1] = np.where(grades > 9, ">", np.where(grades < 0, ".",
                                                          grades.clip(0, 9).astype(str)))
    return "".join(chars)
