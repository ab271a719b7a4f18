"""The set-based measures (metrics/measures/set_based.py), one measure at a time: P, R, F,
NumRel, NumRet, NumRelRet, Success, Judged and NumQ.

Expected values are computed by hand in the comments, and checked against trec_eval (through
pytrec_eval) or ir_measures where they compute the same measure; never taken from our code."""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from skewed_runs import ranked

from metrics import GroundTruth, Run, evaluate, judge

# q: a (relevant), x (unjudged), b (judged non-relevant), c (relevant); d, also relevant, is not
# retrieved, so R_q = 3 and |A| = 4. r: f (non-relevant), y (unjudged), e (relevant); R_q = 1.
RUN = {"q": {"a": 4.0, "x": 3.0, "b": 2.0, "c": 1.0}, "r": {"f": 3.0, "y": 2.0, "e": 1.0}}
QRELS = {"q": {"a": 1, "b": 0, "c": 1, "d": 1}, "r": {"e": 1, "f": 0}}


def trec_eval(*measures):
    """pytrec_eval's values of RUN: {measure: [q, r]}."""
    got = pytrec_eval.RelevanceEvaluator(QRELS, set(measures)).evaluate(RUN)
    return {name: [got["q"][name], got["r"][name]] for name in got["q"]}


def test_p_at_k_pads_short_lists_with_non_relevant_items(values_of):
    got = values_of(RUN, QRELS, "P@2,P@5")
    # q: a, x → 1/2; all 4 items hold 2 relevant, the fifth rank is empty: 2/5. r: f, y → 0; 1/5
    assert got["P@2"] == pytest.approx([1 / 2, 0.0], abs=1e-12)
    assert got["P@5"] == pytest.approx([2 / 5, 1 / 5], abs=1e-12)
    theirs = trec_eval("P.2,5")
    assert theirs["P_2"] == pytest.approx(got["P@2"]) and theirs["P_5"] == pytest.approx(got["P@5"])


def test_p_without_a_cutoff_divides_by_the_list_length(values_of):
    # TP / |A|: 2/4 and 1/3 (trec_eval's set_P)
    assert values_of(RUN, QRELS, "P")["P"] == pytest.approx([2 / 4, 1 / 3], abs=1e-12)
    assert trec_eval("set_P")["set_P"] == pytest.approx([2 / 4, 1 / 3], abs=1e-12)


def test_r_at_k_divides_by_every_relevant_item_of_the_truth(values_of):
    got = values_of(RUN, QRELS, "R@2,R@5,R")
    # q: 1 of R_q = 3 in the top 2, 2 of 3 in the top 5 (d is never retrieved); r: 0, then 1 of 1
    assert got["R@2"] == pytest.approx([1 / 3, 0.0], abs=1e-12)
    assert got["R@5"] == pytest.approx([2 / 3, 1.0], abs=1e-12)
    assert got["R"] == pytest.approx([2 / 3, 1.0], abs=1e-12)
    theirs = trec_eval("recall.2,5", "set_recall")
    assert theirs["recall_2"] == pytest.approx(got["R@2"])
    assert theirs["recall_5"] == pytest.approx(got["R@5"])
    assert theirs["set_recall"] == pytest.approx(got["R"])


def test_f_is_the_harmonic_mean_of_p_and_r_and_beta_weights_recall(values_of):
    got = values_of(RUN, QRELS, "F,F(beta=2)@5")
    # F_β = (1 + β²) TP / (β² R_q + k): without @k, k = |A|: 2·2/(3 + 4) = 4/7 and 2·1/(1 + 3) = 1/2
    assert got["F"] == pytest.approx([4 / 7, 1 / 2], abs=1e-12)
    assert trec_eval("set_F")["set_F"] == pytest.approx([4 / 7, 1 / 2], abs=1e-12)
    # β = 2 at k = 5: 5·2/(4·3 + 5) = 10/17 and 5·1/(4·1 + 5) = 5/9
    assert got["F(beta=2)@5"] == pytest.approx([10 / 17, 5 / 9], abs=1e-12)


def test_num_rel_counts_the_relevant_items_of_the_truth_retrieved_or_not(values_of):
    got = values_of(RUN, QRELS, "NumRel")
    assert got["NumRel"] == [3.0, 1.0]   # a, c, d; e
    assert trec_eval("num_rel")["num_rel"] == [3.0, 1.0]


def test_num_ret_is_the_list_length_or_k_if_shorter(values_of):
    got = values_of(RUN, QRELS, "NumRet,NumRet@2,NumRet@10")
    assert got["NumRet"] == got["NumRet@10"] == [4.0, 3.0]
    assert got["NumRet@2"] == [2.0, 2.0]
    assert trec_eval("num_ret")["num_ret"] == [4.0, 3.0]


def test_num_rel_ret_counts_the_relevant_items_retrieved(values_of):
    got = values_of(RUN, QRELS, "NumRelRet,NumRelRet@2")
    assert got["NumRelRet"] == [2.0, 1.0]   # a, c; e
    assert got["NumRelRet@2"] == [1.0, 0.0]   # a; e is at rank 3
    assert trec_eval("num_rel_ret")["num_rel_ret"] == [2.0, 1.0]


def test_success_at_k_is_one_once_a_relevant_item_is_in_the_top_k(values_of):
    got = values_of(RUN, QRELS, "Success@1,Success@2,Success@3")
    # q's first relevant item is at rank 1, r's at rank 3
    assert got["Success@1"] == got["Success@2"] == [1.0, 0.0]
    assert got["Success@3"] == [1.0, 1.0]
    assert trec_eval("success.1")["success_1"] == [1.0, 0.0]
    ir_measures = pytest.importorskip("ir_measures")
    theirs = {(m.query_id, str(m.measure)): m.value
              for m in ir_measures.iter_calc([ir_measures.Success @ 2, ir_measures.Success @ 3],
                                             QRELS, RUN)}
    assert [theirs[(q, "Success@2")] for q in "qr"] == [1.0, 0.0]
    assert [theirs[(q, "Success@3")] for q in "qr"] == [1.0, 1.0]


def test_num_q_counts_the_queries_with_a_relevant_item():
    # s has no relevant item: undefined, so left out of the sum (trec_eval's num_q counts it: 3)
    qrels, run = dict(QRELS, s={"g": 0}), dict(RUN, s={"g": 1.0})
    result = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels)), "NumQ")
    values = result.results["NumQ"].values.tolist()
    assert values[:2] == [1.0, 1.0] and math.isnan(values[2])
    assert result.aggregate() == {"NumQ": 2.0}


@pytest.mark.parametrize("seed", range(2))
def test_judged_agrees_with_ir_measures_on_skewed_runs(seed):
    import ir_measures
    run, qrels, judged = ranked(seed, "trec")
    ours = evaluate(judged, "Judged@5,Judged@100")
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ 5, ir_measures.Judged @ 100], qrels, run)}
    compared = 0
    for i, query in enumerate(judged.query_ids):
        if (query, "Judged@5") in theirs and not math.isnan(ours.results["Judged@5"].values[i]):
            for k in (5, 100):
                assert ours.results[f"Judged@{k}"].values[i] == pytest.approx(
                    theirs[(query, f"Judged@{k}")], abs=1e-12), (query, k)
                compared += 1
    assert compared > 40
