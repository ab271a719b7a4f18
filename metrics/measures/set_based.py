"""Set-based measures of the top k: precision, recall, F and counts."""

from __future__ import annotations

import numpy as np

from metrics.measures.registry import LINEAR, REL, UNTIED, Param, positive_float, register
from metrics.ranking.tie_aware import expected_success
from metrics.measures.common import divide, f_measure, per_query_sum, true_positives

_TREC = "trec_eval 9.0 (Buckley), set_P / P_k, set_recall / recall_k"


def precision(j, cutoff, rel=1):
    """P@k = TP(k) / k: positions past the end of a short list count as non-relevant, as in
    trec_eval's ``P_k``. Without a cutoff, P = TP / |A| (0 for an empty list), Serrà's Precision."""
    tp = true_positives(j, rel, cutoff)
    if cutoff is None:
        return divide(tp, j.lengths, where_zero=0.0)
    return tp / float(cutoff)


def recall(j, cutoff, rel=1):
    """R@k = TP(k) / R_q, with R_q all relevant items of the ground truth; undefined for R_q = 0."""
    return divide(true_positives(j, rel, cutoff), j.num_relevant(rel))


def f_score(j, cutoff, beta=1.0, rel=1):
    """F_β@k = (1 + β²) P R / (β² P + R) of P@k and R@k, 0 when both are 0. With P = TP/k and
    R = TP/R_q this is (1 + β²) TP / (β² R_q + k): linear in TP, so exact under expected ties."""
    return f_measure(precision(j, cutoff, rel), recall(j, cutoff, rel), beta)


register("P", meaning="precision of the top k (of the whole list without @k)",
         convention="TP(k)/k; short lists padded with non-relevant; no @k: TP/|A|, 0 if empty",
         reference=_TREC, formula=r"P@K = \frac{TP}{K}",
         params={"rel": REL}, expected=LINEAR)(precision)
register("R", meaning="recall of the top k (of the whole list without @k)",
         convention="TP(k)/R_q over all relevant items of the ground truth",
         reference=_TREC, formula=r"R@K = \frac{TP}{R_q}",
         params={"rel": REL}, expected=LINEAR)(recall)
register("F", meaning="F-measure of P@k and R@k",
         convention="(1+β²)PR/(β²P+R), 0 when P = R = 0; β = 1 by default",
         reference="van Rijsbergen (1979); FMP C7S3",
         formula=r"F_\beta@K = \frac{(1+\beta^2)\,P\,R}{\beta^2 P + R}",
         params={"beta": Param(1.0, positive_float, "weight of recall"), "rel": REL},
         expected=LINEAR)(f_score)


@register("NumRel", meaning="R_q, the relevant items of the ground truth", cutoff="none",
          convention="count of items with grade >= rel", reference="trec_eval num_rel",
          formula=r"NumRel = R_q", params={"rel": REL}, expected=UNTIED)
def num_rel(j, cutoff, rel=1):
    """R_q: relevant items in the whole ground truth for the query."""
    return j.num_relevant(rel).astype(np.float64)


@register("NumRet", meaning="|A|, the length of the returned list (min(k, |A|) with @k)",
          convention="count of ranked items", reference="trec_eval num_ret",
          formula=r"NumRet@K = \min(K, |A|)",
          expected=UNTIED)
def num_ret(j, cutoff):
    """|A|: items in the returned list, or min(k, |A|) with a cutoff."""
    return j.retrieved(cutoff).astype(np.float64)


@register("NumRelRet", meaning="relevant items retrieved (in the top k with @k)",
          convention="TP over the list", reference="trec_eval num_rel_ret",
          formula=r"NumRelRet@K = \sum_{r \le K}\chi(r)", params={"rel": REL}, expected=LINEAR)
def num_rel_ret(j, cutoff, rel=1):
    """TP: relevant items among the retrieved ones."""
    return true_positives(j, rel, cutoff).astype(np.float64)


@register("Success", meaning="1 if a relevant item is in the top k (the R@k of single-caption "
          "text-to-music papers, HR@k)", convention="1 if TP(k) > 0, else 0",
          reference="trec_eval success_k; ir_measures Success@k", formula=r"Success@K = [TP > 0]",
          params={"rel": REL},
          expected="closed form: 1 − the hypergeometric chance that the group straddling k puts "
                   "none of its relevant items in the top k")
def success(j, cutoff, rel=1):
    """Success@k = 1 when at least one relevant item is in the top k, else 0. Under expected
    ties, P(TP(k) > 0), exactly (:func:`metrics.ranking.tie_aware.expected_success`)."""
    if j.expected_ties and cutoff is not None:
        return expected_success(j, rel, cutoff)
    return (true_positives(j, rel, cutoff) > 0).astype(np.float64)


@register("Judged", meaning="share of the top k that is judged",
          convention="judged items (any grade, negative included) in the top k / min(k, |A|); "
                     "0 for an empty list; every item when the truth judges the whole collection",
          reference="ir_measures Judged@k (Sakai & Kando 2008)",
          formula=r"Judged@K = \frac{|\{r \le K : d_r \text{ judged}\}|}{\min(K, |A|)}",
          expected=LINEAR)
def judged_share(j, cutoff):
    """Judged@k: the judged share of the top min(k, |A|) items."""
    shown = j.retrieved(cutoff)
    if j.unlisted_judged:
        return (shown > 0).astype(np.float64)
    return divide(per_query_sum(j, j.hit_query, j.rank_weights(cutoff)), shown, where_zero=0.0)


@register("NumQ", meaning="number of queries evaluated (summed over queries)", cutoff="none",
          convention="1 per query with a relevant item; summed, as trec_eval num_q",
          reference="trec_eval num_q", formula=r"NumQ = 1", expected=UNTIED)
def num_q(j, cutoff):
    """1 per evaluated query (queries with R_q = 0 are undefined, so the sum counts the others)."""
    return np.ones(j.num_queries)
