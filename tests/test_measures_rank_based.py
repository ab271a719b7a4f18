"""The rank-based measures (metrics/measures/rank_based.py), one measure at a time: AP and its
normalisations, infAP, RR, Rprec, BEP, Fmax, Bpref and its variants (Bpref10, BprefStar,
BprefUncapped), and the ranks of the relevant items (FirstRank, MedianRank, MeanRank).

Expected values come from hand computations in the comments, from trec_eval (through
pytrec_eval), or from brute force over each query's dense list, written here from the definitions
of docs/measures.md and run on the skewed runs of ``skewed_runs`` (one list of 5000 items among lists of
1..5, grades −1..3, ties); never from our code."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval
from skewed_runs import (SEEDS_AND_CUTOFFS, assert_agrees_with_brute_force, dense_lists, ranked,
                         relevant_count)

from metrics import GroundTruth, Run, evaluate, judge

# q: relevant items at ranks 1, 3 and 6 (y, at rank 4, is judged non-relevant; x and z are
# unjudged); d, relevant too, is not retrieved, so R_q = 4. r: a list of two relevant items
# shorter than its R_q = 3.
RUN = {"q": {"a": 6.0, "x": 5.0, "b": 4.0, "y": 3.0, "z": 2.0, "c": 1.0},
       "r": {"e": 2.0, "f": 1.0}}
QRELS = {"q": {"a": 1, "b": 1, "c": 1, "d": 1, "y": 0}, "r": {"e": 1, "f": 1, "g": 1}}


def trec_eval(*measures):
    """pytrec_eval's values of RUN: {measure: [q, r]}."""
    got = pytrec_eval.RelevanceEvaluator(QRELS, set(measures)).evaluate(RUN)
    return {name: [got["q"][name], got["r"][name]] for name in got["q"]}


# ---- AP ----------------------------------------------------------------------------------------

def test_ap_at_k_counts_only_the_top_k_and_divides_by_r_q(values_of):
    got = values_of(RUN, QRELS, "AP@2,AP@5,AP")
    # q: P(1) = 1 and P(3) = 2/3 in the top 5, P(6) = 3/6 past it; always ÷ R_q = 4.
    # r: P(1) = P(2) = 1, ÷ R_q = 3
    assert got["AP@2"] == pytest.approx([1 / 4, 2 / 3], abs=1e-12)
    assert got["AP@5"] == pytest.approx([(1 + 2 / 3) / 4, 2 / 3], abs=1e-12)
    assert got["AP"] == pytest.approx([(1 + 2 / 3 + 3 / 6) / 4, 2 / 3], abs=1e-12)
    theirs = trec_eval("map_cut.2,5", "map")
    assert theirs["map_cut_2"] == pytest.approx(got["AP@2"], abs=1e-12)
    assert theirs["map_cut_5"] == pytest.approx(got["AP@5"], abs=1e-12)
    assert theirs["map"] == pytest.approx(got["AP"], abs=1e-12)


# q1: a (relevant), x, b (relevant); c and d, relevant too, are not retrieved: R_q = 4. q2 has a
# relevant item and no list.
AP_RUN = {"q1": {"a": 3.0, "x": 2.0, "b": 1.0}}
AP_QRELS = {"q1": {"a": 1, "b": 1, "c": 1, "d": 1}, "q2": {"e": 1}}


def test_ap_divides_by_r_q_and_norm_retrieved_by_the_relevant_items_retrieved(values_of):
    values = values_of(AP_RUN, AP_QRELS, "AP,AP(norm=retrieved)")
    assert values["AP"] == pytest.approx([(1 + 2 / 3) / 4, 0.0])
    assert values["AP(norm=retrieved)"] == pytest.approx([(1 + 2 / 3) / 2, 0.0])


def test_ap_norm_min_divides_by_min_k_and_r_q(values_of):
    values = values_of(AP_RUN, AP_QRELS, "AP(norm=min),AP(norm=min)@2")
    assert values["AP(norm=min)"] == pytest.approx([(1 + 2 / 3) / 3, 0.0])   # min(|A|=3, R=4)
    assert values["AP(norm=min)@2"] == pytest.approx([1 / 2, 0.0])          # min(k=2, R=4)


@SEEDS_AND_CUTOFFS
def test_ap_norm_min_agrees_with_brute_force_on_skewed_runs(seed, k):
    def ap_norm_min(q):
        depth = min(q.k or len(q.grades), q.r_q)
        return sum((j + 1) / r for j, r in enumerate(q.ranks)) / depth if depth else 0.0
    assert_agrees_with_brute_force("AP(norm=min)", ap_norm_min, seed, k)


# ---- infAP -------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_infap_agrees_with_trec_eval(seed, rel):
    """Grades −1..3: pooled-but-not-judged items, judged non-relevant and relevant ones, and
    retrieved items outside the pool; ``rel`` is trec_eval's relevance level (-l)."""
    run, qrels, judged = ranked(seed, "trec9")
    assert any(g < 0 for judged_items in qrels.values() for g in judged_items.values())
    name = "infAP" if rel == 1 else f"infAP(rel={rel})"
    ours = evaluate(judged, [name, f"AP(rel={rel})"])
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"infAP", "map"},
                                              relevance_level=rel).evaluate(run)
    compared = differs_from_ap = 0
    for i, query in enumerate(judged.query_ids):
        value = ours.results[name].values[i]
        if not relevant_count(qrels, query, rel):
            assert math.isnan(value)   # trec_eval gives 0 (no R_q to divide by): undefined here
            continue
        if query not in expected:
            assert value == 0.0
            continue
        assert value == pytest.approx(expected[query]["infAP"], abs=1e-12), query
        differs_from_ap += abs(expected[query]["infAP"] - expected[query]["map"]) > 1e-3
        compared += 1
    assert compared > 15 and differs_from_ap >= 2  # the sample's inference is really exercised


def brute_infap(grades: list, r_q: int, rel: int, k: int | None) -> float:
    """trec_eval's loop (m_infap.c) over one dense list: None is outside the pool, a negative
    grade is pooled but not judged."""
    eps, total = 0.00001, 0.0
    n_rel = n_nonrel = n_unjudged = 0
    for j, g in enumerate(grades if k is None else grades[:k]):
        if g is None:
            continue
        if g < 0:
            n_unjudged += 1
        elif g < rel:
            n_nonrel += 1
        else:
            n_rel += 1
            if j == 0:
                total += 1.0
            else:
                pooled = n_rel - 1 + n_nonrel + n_unjudged
                total += 1 / (j + 1) + (j / (j + 1)) * (pooled / j) * (
                    (n_rel - 1 + eps) / (n_rel - 1 + n_nonrel + 2 * eps))
    return total / r_q


@pytest.mark.parametrize("k", [None, 2, 10])
def test_infap_at_k_agrees_with_trec_eval_s_loop_cut_at_k(k):
    run, qrels, judged = ranked(5, "trec9")
    at = "" if k is None else f"@{k}"
    result = evaluate(judged, [f"infAP{at}", f"infAP(rel=3){at}"])
    lists = dense_lists(run, qrels)
    checked = 0
    for i, query in enumerate(judged.query_ids):
        for rel, name in ((1, f"infAP{at}"), (3, f"infAP(rel=3){at}")):
            r_q = relevant_count(qrels, query, rel)
            got = result.results[name].values[i]
            if not r_q:
                assert math.isnan(got)
                continue
            assert got == pytest.approx(brute_infap(lists[query], r_q, rel, k), abs=1e-12)
            checked += 1
    assert checked > 40


def test_infap_by_hand():
    """q: ranks a (1), b (0), c (outside the pool), d (−1, pooled but not judged), e (2); one more
    relevant item, z, is not retrieved, so R_q = 3. a: 1. e at rank 5: 1/5 + (4/5)·(3/4)·
    (1 + ε)/(2 + 2ε) = 0.2 + 0.6·0.5 = 0.5. infAP = (1 + 0.5)/3 = 0.5 (AP: (1 + 2/5)/3).
    r: ranks a (0), b (1); R_q = 1: 1/2 + (1/2)·(1/1)·ε/(1 + 2ε) = 0.5 + 0.5·0.00001/1.00002."""
    qrels = {"q": {"a": 1, "b": 0, "d": -1, "e": 2, "z": 1}, "r": {"a": 0, "b": 1}}
    run = {"q": {"a": 5, "b": 4, "c": 3, "d": 2, "e": 1}, "r": {"a": 2, "b": 1}}
    result = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels)), "infAP,AP")
    np.testing.assert_allclose(result.results["infAP"].values,
                               [0.5, 0.5 + 0.5 * 0.00001 / 1.00002], rtol=0, atol=1e-15)
    assert result.results["AP"].values[0] == pytest.approx(1.4 / 3)


# ---- RR ----------------------------------------------------------------------------------------

def test_rr_is_one_over_the_rank_of_the_first_relevant_item(values_of):
    qrels = {"q": {"a": 0, "c": 1, "d": 1}, "r": {"e": 1}}
    run = {"q": {"a": 4.0, "b": 3.0, "c": 2.0, "d": 1.0}, "r": {"f": 1.0}}
    got = values_of(run, qrels, "RR,RR@2")
    # q: a (non-relevant), b (unjudged), c (relevant) → 1/3; r retrieves no relevant item → 0
    assert got["RR"] == pytest.approx([1 / 3, 0.0], abs=1e-12)
    assert got["RR@2"] == [0.0, 0.0]   # nothing relevant in either top 2
    theirs = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank"}).evaluate(run)
    assert [theirs[q]["recip_rank"] for q in "qr"] == pytest.approx([1 / 3, 0.0], abs=1e-12)


@SEEDS_AND_CUTOFFS
def test_rr_form_serra_agrees_with_brute_force_on_skewed_runs(seed, k):
    def rr_serra(q):
        return sum(1 / r for r in q.ranks) / len(q.top) if q.top else 0.0
    assert_agrees_with_brute_force("RR(form=serra)", rr_serra, seed, k)


# ---- Rprec and BEP -----------------------------------------------------------------------------

def test_rprec_is_precision_at_rank_r_q_with_short_lists_padded(values_of):
    # q: R_q = 4, the top 4 hold a and b: 2/4. r: R_q = 3, a list of 2 relevant items padded with
    # a non-relevant third: 2/3
    assert values_of(RUN, QRELS, "Rprec")["Rprec"] == pytest.approx([2 / 4, 2 / 3], abs=1e-12)
    assert trec_eval("Rprec")["Rprec"] == pytest.approx([2 / 4, 2 / 3], abs=1e-12)


def test_bep_is_where_precision_equals_recall_at_rank_r_q(values_of):
    # P(r)·r = R(r)·R_q, so P = R at r = R_q: q's P(4) = R(4) = 2/4; r's P(3) = R(3) = 2/3
    assert values_of(RUN, QRELS, "BEP")["BEP"] == pytest.approx([1 / 2, 2 / 3], abs=1e-12)


# ---- Fmax --------------------------------------------------------------------------------------

@SEEDS_AND_CUTOFFS
def test_fmax_agrees_with_brute_force_on_skewed_runs(seed, k):
    def fmax(q):
        return max([0.0] + [2 * (j + 1) / r * (j + 1) / q.r_q / ((j + 1) / r + (j + 1) / q.r_q)
                            for j, r in enumerate(q.ranks)])
    assert_agrees_with_brute_force("Fmax", fmax, seed, k)


# ---- Bpref and its variants --------------------------------------------------------------------

def test_bpref_reads_negative_grades_as_pooled_but_unjudged():
    """The case of the issue: trec_eval gives 0.5 (d1, grade −1, is not judged non-relevant)."""
    qrels = {"q1": {"d1": -1, "d2": 1, "d3": 0, "d4": 1}}
    run = {"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)["q1"]["bpref"]
    got = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels), "trec"), "Bpref")
    assert expected == pytest.approx(0.5)
    assert got.aggregate()["Bpref"] == pytest.approx(0.5)


@SEEDS_AND_CUTOFFS
def test_bpref10_agrees_with_brute_force_on_skewed_runs(seed, k):
    def bpref10(q):
        cap = q.r_q + 10
        return sum(1 - min(n, cap) / cap for n in q.nonrelevant_above) / q.r_q
    assert_agrees_with_brute_force("Bpref10", bpref10, seed, k)


@SEEDS_AND_CUTOFFS
def test_bpref_star_agrees_with_brute_force_on_skewed_runs(seed, k):
    def bpref_star(q):
        return sum(1 - n / (len(q.top) + q.r_q) for n in q.nonrelevant_above) / q.r_q
    assert_agrees_with_brute_force("BprefStar", bpref_star, seed, k)


@SEEDS_AND_CUTOFFS
def test_bpref_uncapped_agrees_with_brute_force_on_skewed_runs(seed, k):
    def bpref_uncapped(q):
        return sum(1 - n / q.r_q for n in q.nonrelevant_above) / q.r_q
    assert_agrees_with_brute_force("BprefUncapped", bpref_uncapped, seed, k)


# ---- the ranks of the relevant items -----------------------------------------------------------

@SEEDS_AND_CUTOFFS
def test_first_rank_agrees_with_brute_force_on_skewed_runs(seed, k):
    def first_rank(q):
        return q.ranks[0] if q.ranks else math.nan
    assert_agrees_with_brute_force("FirstRank", first_rank, seed, k)


@SEEDS_AND_CUTOFFS
def test_median_rank_agrees_with_brute_force_on_skewed_runs(seed, k):
    def median_rank(q):
        return float(np.median(q.ranks)) if q.ranks else math.nan
    assert_agrees_with_brute_force("MedianRank", median_rank, seed, k)


def test_median_rank_of_an_even_count_is_the_mean_of_the_two_middle_ranks(values_of):
    # q: relevant at ranks 1, 3 and 6 → 3; within the top 5, ranks 1 and 3 → 2. r: ranks 1, 2 → 1.5
    got = values_of(RUN, QRELS, "MedianRank,MedianRank@5,MedianRank@1")
    assert got["MedianRank"] == [3.0, 1.5]
    assert got["MedianRank@5"] == [2.0, 1.5]
    assert got["MedianRank@1"] == [1.0, 1.0]


@SEEDS_AND_CUTOFFS
def test_mean_rank_agrees_with_brute_force_on_skewed_runs(seed, k):
    def mean_rank(q):
        return float(np.mean(q.ranks)) if q.ranks else math.nan
    assert_agrees_with_brute_force("MeanRank", mean_rank, seed, k)


def test_rprec_mult_is_precision_at_x_r_plus_0_9_truncated(values_of):
    """trec_eval's Rprec_mult_x: P at rank ⌊x·R_q + 0.9⌋. R_q = 4 (a, b, d, f); ranks 1..6 hold
    x (unjudged), a, c (0), e (−1), b, y."""
    run = {"q": {"x": 6.0, "a": 5.0, "c": 4.0, "e": 3.0, "b": 2.0, "y": 1.0}}
    qrels = {"q": {"a": 3, "b": 1, "c": 0, "d": 2, "e": -1, "f": 1},
             "one": {"r": 1}}   # R_q = 1, and a list of its own below
    run["one"] = {"r": 1.0}
    got = values_of(run, qrels, "Rprec_mult_0.20,Rprec(mult=0.6),Rprec_mult_2.00,Rprec,"
                                "Rprec(mult=0.05)", ties="trec10")
    assert got["Rprec_mult_0.20"] == [0.0, 1.0]       # c = ⌊0.8 + 0.9⌋ = 1: x; r
    assert got["Rprec(mult=0.6)"] == [1 / 3, 1.0]     # c = ⌊2.4 + 0.9⌋ = 3: a; ⌊1.5⌋ = 1
    assert got["Rprec_mult_2.00"] == [2 / 8, 1 / 2]   # c = ⌊8.9⌋ = 8, padded; ⌊2.9⌋ = 2
    assert got["Rprec"] == [1 / 4, 1.0]
    assert got["Rprec(mult=0.05)"] == [0.0, 0.0]      # ⌊0.2 + 0.9⌋ = 1: x; ⌊0.95⌋ = 0: 0
