"""IPrec@r, RBP(p=…) with its residual, and infAP (issue 14, item 8): against pytrec_eval
(trec_eval 9), ir_measures, brute force over each query's dense list, and hand computations.

The random runs are those of ``test_ragged_engine.skewed``: grades −1..3 (negative: pooled but not
judged), unjudged retrieved items, ties, one list of 5000 items, truth queries without a list and
without a relevant item. They are ranked with the trec9 tie policy, which is pytrec_eval's."""

from __future__ import annotations

import math
from dataclasses import replace
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
import pytrec_eval
from test_ragged_engine import dense_lists, skewed

from metrics import GroundTruth, Run, evaluate, judge
from metrics.errors import MeasureError
from metrics.measures.names import parse_measure

# levels beyond trec_eval's 11: fractional parts of r·R_q on both sides of 0.1 and 0.5
OTHER_LEVELS = (0.05, 0.15, 0.25, 0.33, 0.45, 0.71, 0.99)


def ranked(seed):
    run, qrels = skewed(seed)
    return run, qrels, judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties="trec9")


def relevant_count(qrels, query, rel=1):
    return sum(g >= rel for g in qrels[query].values())


# ---- IPrec@r -------------------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(3))
def test_iprec_agrees_with_trec_eval_at_its_levels_and_others(seed):
    run, qrels, judged = ranked(seed)
    trec_names = [f"iprec_at_recall_{level:.2f}" for level in np.linspace(0, 1, 11)]
    ours_names = [f"IPrec@{level}" for level in OTHER_LEVELS]
    result = evaluate(judged, trec_names + ours_names)
    levels = ",".join(str(level) for level in OTHER_LEVELS)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"iprec_at_recall"}).evaluate(run)
    others = pytrec_eval.RelevanceEvaluator(qrels, {f"iprec_at_recall.{levels}"}).evaluate(run)
    compared = 0
    for i, query in enumerate(judged.query_ids):
        if query not in expected:   # trec_eval skips a query the run lacks; an empty list scores 0
            assert all(r.values[i] == 0 or math.isnan(r.values[i])
                       for r in result.results.values())
            continue
        if not relevant_count(qrels, query):
            assert all(math.isnan(r.values[i]) for r in result.results.values())
            continue
        for name in trec_names:
            assert result.results[name].values[i] == pytest.approx(
                expected[query][name], abs=1e-12), (query, name)
            compared += 1
        for level, name in zip(OTHER_LEVELS, ours_names):
            assert result.results[name].values[i] == pytest.approx(
                others[query][f"iprec_at_recall_{level:.2f}"], abs=1e-12), (query, name)
            compared += 1
    assert compared > 300


def brute_iprec(grades: list, r_q: int, level: float, rel: int = 1,
                rounding: str = "trec9") -> float:
    """trec_eval's rule written out on the dense list: n = max(1, ⌊level·R + 0.9⌋) relevant
    items (trec_eval 10: level·R rounded half up, C's lround) must be retrieved; then the highest
    precision at any rank from the n-th relevant one."""
    relevant = [g is not None and g >= rel for g in grades]
    x = level * r_q
    need = max(1, math.floor(x + 0.9) if rounding == "trec9" else
               int(Decimal(x).to_integral_value(ROUND_HALF_UP)))
    ranks = [i + 1 for i, x in enumerate(relevant) if x]
    if len(ranks) < need:
        return 0.0
    tp = np.cumsum(relevant)
    return max(tp[i - 1] / i for i in range(ranks[need - 1], len(grades) + 1))


@pytest.mark.parametrize("rounding", ["trec9", "trec10"])
@pytest.mark.parametrize("rel", [1, 2])
def test_iprec_agrees_with_brute_force_at_any_level(rel, rounding):
    run, qrels, judged = ranked(7)
    levels = (0.0, 0.01, 0.1, 0.125, 0.3, 0.5, 0.7, 2 / 3, 0.95, 1.0)
    names = [f"IPrec(rounding={rounding},rel={rel})@{level!r}" for level in levels]
    result = evaluate(judged, names)
    lists = dense_lists(run, qrels)
    checked = 0
    for i, query in enumerate(judged.query_ids):
        r_q = relevant_count(qrels, query, rel)
        for level, name in zip(levels, names):
            got = result.results[name].values[i]
            if not r_q:
                assert math.isnan(got)
                continue
            assert got == pytest.approx(brute_iprec(lists[query], r_q, level, rel, rounding),
                                        abs=1e-12), (query, name)
            checked += 1
    assert checked > 200


def test_iprec_rule_differs_from_exact_recall_where_the_docstring_says():
    """By hand: R_q = 10, relevant at ranks 1, 3, 4, 5, 6, 7, 8, 9, 10 and 12 (P = 1, 2/3, 3/4, …,
    9/10 and 10/12 there). At r = 0.905 the rule needs ⌊9.05 + 0.9⌋ = 9 relevant items (the 9th is
    at rank 10): the highest precision from there on is 9/10, where "recall >= 0.905" exactly would
    need all 10 (rank 12, 10/12). At r = 0.705 it needs 7 (rank 8): max(7/8, 8/9, 9/10, …) = 9/10;
    at r = 1, all 10: 10/12."""
    grades = [1, 0, 1, 1, 1, 1, 1, 1, 1, 1, 0, 1]
    judged = GroundTruth.from_dict({"q": {f"d{i}": g for i, g in enumerate(grades)}})
    run = Run.from_dict({"q": {f"d{i}": float(100 - i) for i in range(len(grades))}})
    result = evaluate(judge(run, judged), "IPrec@0.705,IPrec@0.905,IPrec@1")
    assert result.results["IPrec@0.705"].values[0] == pytest.approx(0.9)
    assert result.results["IPrec@0.905"].values[0] == pytest.approx(0.9)
    assert result.results["IPrec@1"].values[0] == pytest.approx(10 / 12)


def test_trec10_rounding_by_hand():
    """R_q = 4, relevant at ranks 1 and 5. At r = 0.3, r·R_q = 1.2: trec_eval 9 needs
    ⌊1.2 + 0.9⌋ = 2 relevant items (P(5) = 2/5), trec_eval 10 rounds to 1 (P(1) = 1). At r = 0.5
    both need 2; at r = 0.1 (0.4) both need 1 (trec_eval 10's 0 is read as 1, as its loop does)."""
    truth = GroundTruth.from_dict({"q": {"a": 1, "e": 1, "y": 1, "z": 1}})
    run = Run.from_dict({"q": dict(zip("abcde", [5.0, 4.0, 3.0, 2.0, 1.0]))})
    result = evaluate(judge(run, truth), "IPrec@0.3,IPrec(rounding=trec10)@0.3,"
                      "IPrec@0.5,IPrec(rounding=trec10)@0.5,IPrec(rounding=trec10)@0.1").aggregate()
    assert result["IPrec@0.3"] == pytest.approx(0.4)
    assert result["IPrec(rounding=trec10)@0.3"] == pytest.approx(1.0)
    assert result["IPrec@0.5"] == result["IPrec(rounding=trec10)@0.5"] == pytest.approx(0.4)
    assert result["IPrec(rounding=trec10)@0.1"] == pytest.approx(1.0)


@pytest.mark.parametrize("written,canonical", [
    ("IPrec@0.1", "IPrec@0.1"), ("IPrec@.1", "IPrec@0.1"), ("iprec_at_recall_0.10", "IPrec@0.1"),
    ("iprec_at_recall.0.1", "IPrec@0.1"), ("IPrec@1", "IPrec@1"), ("IPrec@1.00", "IPrec@1"),
    ("IPrec(rel=2)@0", "IPrec(rel=2)@0")])
def test_iprec_names_print_back_as_given(written, canonical):
    measure = parse_measure(written)
    assert str(measure) == written
    assert measure.canonical == canonical
    assert measure.rank_cutoff is None   # a recall level is no rank cutoff


@pytest.mark.parametrize("written,message", [
    ("IPrec", "needs a recall level from 0 to 1"),
    ("IPrec@1.5", "'1.5' is past 1"),
    ("iprec_at_recall_1.5", "'1.5' is past 1"),
    ("IPrec@-0.1", "not a number from 0 to 1"),
    ("IPrec@nan", "not a number from 0 to 1"),
    ("P@0.5", "cutoff '0.5' is not a whole number"),   # @k stays a whole number elsewhere
])
def test_bad_recall_levels_are_named(written, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(written)


# ---- RBP and its residual ------------------------------------------------------------------------

@pytest.mark.parametrize("seed", range(2))
def test_rbp_agrees_with_ir_measures(seed):
    """ir_measures' RBP(rel=…) (computed by cwl_eval), binary as ours. ir_measures keeps tied
    items in input order, which is our "stable" policy."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="ir_measures computes RBP(rel=…) with cwl-eval")
    run, qrels = skewed(seed)
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties="stable")
    cases = [(0.8, 1), (0.5, 2), (0.95, 1)]
    ours = evaluate(judged, [f"RBP(p={p},rel={rel})" for p, rel in cases])
    theirs = {(m.query_id, m.measure.params["p"], m.measure.params["rel"]): m.value
              for m in ir_measures.iter_calc([ir_measures.RBP(p=p, rel=rel) for p, rel in cases],
                                             qrels, run)}
    compared = 0
    for i, query in enumerate(judged.query_ids):
        for p, rel in cases:
            value = ours.results[f"RBP(p={p},rel={rel})"].values[i]
            if not relevant_count(qrels, query, rel):
                assert math.isnan(value)   # R_q = 0 at rel: undefined, as every measure
                continue
            expected = theirs.get((query, p, rel), 0.0)   # a query the run lacks scores 0
            assert value == pytest.approx(expected, abs=1e-12), (query, p, rel)
            compared += 1
    assert compared > 60


def brute_rbp(grades: list, p: float, rel: int, k: int | None) -> tuple[float, float]:
    """RBP and its residual from the definitions, rank by rank over the dense list (None:
    unjudged; a negative grade is pooled but not judged, so of unknown relevance too)."""
    top = grades if k is None else grades[:k]
    value = sum((1 - p) * p ** i for i, g in enumerate(top) if g is not None and g >= rel)
    unknown = sum((1 - p) * p ** i for i, g in enumerate(top) if g is None or g < 0)
    return value, unknown + p ** len(top)


@pytest.mark.parametrize("k", [None, 1, 4, 20])
def test_rbp_and_its_residual_agree_with_brute_force(k):
    run, qrels, judged = ranked(3)
    cases = [(0.8, 1), (0.5, 3), (0, 1), (0.99, 2)]
    at = "" if k is None else f"@{k}"
    names = [f"RBP(p={p},rel={rel}){at}" for p, rel in cases] + \
            [f"RBPResidual(p={p}){at}" for p, _ in cases]
    result = evaluate(judged, names)
    lists = dense_lists(run, qrels)
    checked = 0
    for i, query in enumerate(judged.query_ids):
        for p, rel in cases:
            value, residual = brute_rbp(lists[query], p, rel, k)
            got = result.results[f"RBP(p={p},rel={rel}){at}"].values[i]
            got_residual = result.results[f"RBPResidual(p={p}){at}"].values[i]
            if not relevant_count(qrels, query, rel):
                assert math.isnan(got)
            else:
                assert got == pytest.approx(value, abs=1e-12), (query, p, rel, k)
                checked += 1
            if relevant_count(qrels, query):
                assert got_residual == pytest.approx(residual, abs=1e-12), (query, p, k)
                assert 0 <= got_residual <= 1
    assert checked > 100


def test_rbp_by_hand():
    """Ranks: a (grade 2), b (0), x (unjudged), c (1), d (−1, pooled but not judged); p = 0.8.
    RBP = 0.2·(1 + 0.8³) = 0.3024; residual = 0.2·(0.8² + 0.8⁴) + 0.8⁵ = 0.5376. At k = 3:
    RBP = 0.2, residual = 0.2·0.8² + 0.8³ = 0.64. Were the unlisted items judged (labels that
    judge the whole collection), only d and the ranks past the list would be unknown:
    residual = 0.2·0.8⁴ + 0.8⁵."""
    qrels = {"q": {"a": 2, "b": 0, "c": 1, "d": -1}}
    run = Run.from_dict({"q": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "d": 0.5}})
    result = evaluate(judge(run, GroundTruth.from_dict(qrels)),
                      "RBP,RBPResidual,RBP@3,RBPResidual@3,RBP(p=0.5,rel=2)").aggregate()
    assert result["RBP"] == pytest.approx(0.3024, abs=1e-12)
    assert result["RBPResidual"] == pytest.approx(0.5376, abs=1e-12)
    assert result["RBP@3"] == pytest.approx(0.2, abs=1e-12)
    assert result["RBPResidual@3"] == pytest.approx(0.64, abs=1e-12)
    assert result["RBP(p=0.5,rel=2)"] == pytest.approx(0.5, abs=1e-12)
    labels = replace(judge(run, GroundTruth.from_dict(qrels)), unlisted_judged=True)
    residual = evaluate(labels, "RBPResidual").aggregate()["RBPResidual"]
    assert residual == pytest.approx(0.2 * 0.8 ** 4 + 0.8 ** 5, abs=1e-12)


@pytest.mark.parametrize("written,message", [
    ("RBP(p=1)", "must be from 0 up to"), ("RBP(p=-0.1)", "must be from 0 up to"),
    ("RBP(p=x)", "is not a number"), ("RBPResidual(rel=2)", "has no parameter 'rel'")])
def test_bad_rbp_parameters_are_named(written, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(written)


# ---- infAP ---------------------------------------------------------------------------------------

@pytest.mark.parametrize("rel", [1, 2])
@pytest.mark.parametrize("seed", range(3))
def test_infap_agrees_with_trec_eval(seed, rel):
    """Grades −1..3: pooled-but-not-judged items, judged non-relevant and relevant ones, and
    retrieved items outside the pool; ``rel`` is trec_eval's relevance level (-l)."""
    run, qrels, judged = ranked(seed)
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
    run, qrels, judged = ranked(5)
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


# ---- the streamed path reads the same judged ranking ---------------------------------------------

def test_streamed_embeddings_give_the_values_of_the_full_run():
    """Rankings streamed from embeddings in blocks (only the judged items' ranks are counted) give
    the three measures the values of the same rankings judged as a full run."""
    from metrics.ranking.streaming import EmbeddingScores, judge_streamed
    rng = np.random.default_rng(11)
    queries = rng.standard_normal((12, 6)).astype(np.float32)
    items = rng.standard_normal((400, 6)).astype(np.float32)
    query_ids = [f"q{i}" for i in range(12)]
    item_ids = [f"d{i}" for i in range(400)]
    qrels = {q: {item_ids[c]: int(rng.integers(-1, 3)) for c in rng.choice(400, 25, replace=False)}
             for q in query_ids}
    truth = GroundTruth.from_dict(qrels)
    scores = EmbeddingScores(queries, items, "cosine")
    names = "IPrec@0.3,iprec_at_recall_1.00,RBP(p=0.9),RBPResidual(p=0.9)@50,infAP,infAP@20"
    streamed = evaluate(judge_streamed(scores, query_ids, item_ids, truth), names)
    dense = scores.rows(np.arange(12))
    run = Run.from_dict({q: {d: float(dense[i, c]) for c, d in enumerate(item_ids)}
                         for i, q in enumerate(query_ids)})
    full = evaluate(judge(run, truth), names)
    for name in streamed.results:
        np.testing.assert_allclose(streamed.results[name].values, full.results[name].values,
                                   rtol=0, atol=1e-12, err_msg=name)
    assert np.nanmax(streamed.results["infAP"].values) > 0
