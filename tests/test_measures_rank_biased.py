"""The rank-biased measures (metrics/measures/rank_biased.py): RBP(p=…) and RBPResidual, against
ir_measures (cwl_eval), brute force over each query's dense list and hand computations.

The random runs are those of ``skewed_runs.skewed``: grades −1..3 (negative: pooled but not
judged), unjudged retrieved items, ties, one list of 5000 items, truth queries without a list and
without a relevant item."""

from __future__ import annotations

import math
from dataclasses import replace

import pytest
from skewed_runs import dense_lists, ranked, relevant_count

from metrics import GroundTruth, Run, evaluate, judge


@pytest.mark.parametrize("seed", range(2))
def test_rbp_agrees_with_ir_measures(seed):
    """ir_measures' RBP(rel=…) (computed by cwl_eval), binary as ours. ir_measures keeps tied
    items in input order, which is our "stable" policy."""
    ir_measures = pytest.importorskip("ir_measures")
    pytest.importorskip("cwl", reason="ir_measures computes RBP(rel=…) with cwl-eval")
    run, qrels, judged = ranked(seed, "stable")
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
def test_rbp_and_rbp_residual_agree_with_brute_force(k):
    run, qrels, judged = ranked(3, "trec9")
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


# Ranks: a (grade 2), b (0), x (unjudged), c (1), d (−1, pooled but not judged)
BY_HAND_QRELS = {"q": {"a": 2, "b": 0, "c": 1, "d": -1}}
BY_HAND_RUN = {"q": {"a": 0.9, "b": 0.8, "x": 0.7, "c": 0.6, "d": 0.5}}


def test_rbp_by_hand(values_of):
    """p = 0.8: RBP = 0.2·(1 + 0.8³) = 0.3024; at k = 3, 0.2. p = 0.5 with rel=2: only a, 0.5."""
    result = values_of(BY_HAND_RUN, BY_HAND_QRELS, "RBP,RBP@3,RBP(p=0.5,rel=2)")
    assert result["RBP"] == pytest.approx([0.3024], abs=1e-12)
    assert result["RBP@3"] == pytest.approx([0.2], abs=1e-12)
    assert result["RBP(p=0.5,rel=2)"] == pytest.approx([0.5], abs=1e-12)


def test_rbp_residual_by_hand(values_of):
    """p = 0.8: residual = 0.2·(0.8² + 0.8⁴) + 0.8⁵ = 0.5376 (x, d and the ranks past the list);
    at k = 3: 0.2·0.8² + 0.8³ = 0.64. Were the unlisted items judged (labels that judge the whole
    collection), only d and the ranks past the list would be unknown: 0.2·0.8⁴ + 0.8⁵."""
    result = values_of(BY_HAND_RUN, BY_HAND_QRELS, "RBPResidual,RBPResidual@3")
    assert result["RBPResidual"] == pytest.approx([0.5376], abs=1e-12)
    assert result["RBPResidual@3"] == pytest.approx([0.64], abs=1e-12)
    judged = judge(Run.from_dict(BY_HAND_RUN), GroundTruth.from_dict(BY_HAND_QRELS))
    labels = replace(judged, unlisted_judged=True)
    residual = evaluate(labels, "RBPResidual").aggregate()["RBPResidual"]
    assert residual == pytest.approx(0.2 * 0.8 ** 4 + 0.8 ** 5, abs=1e-12)


def test_rbp_graded_and_rbp_residual_trec_as_trec_eval_10(values_of):
    """trec_eval 10's rbp: the grade ÷ the query's highest grade (3 here) as gain, p = 0.9; its
    rbp_resid: 0 when every retrieved item is judged. Ranks 1..6 of q: x (unjudged), a (3),
    c (0), e (−1), b (1), y (unjudged); all: two judged items."""
    run = {"q": {"x": 6.0, "a": 5.0, "c": 4.0, "e": 3.0, "b": 2.0, "y": 1.0},
           "all": {"r": 2.0, "n": 1.0}}
    qrels = {"q": {"a": 3, "b": 1, "c": 0, "d": 2, "e": -1, "f": 1}, "all": {"r": 1, "n": 0}}
    p = 0.9
    got = values_of(run, qrels, "rbp,RBP(p=0.9),rbp_resid,RBPResidual(p=0.9)", ties="trec10")
    assert got["rbp"] == [pytest.approx((1 - p) * (p + p ** 4 / 3), abs=1e-15), 1 - p]
    assert got["RBP(p=0.9)"] == [pytest.approx((1 - p) * (p + p ** 4), abs=1e-15), 1 - p]
    unjudged = (1 - p) * (1 + p ** 3 + p ** 5) + p ** 6
    assert got["rbp_resid"] == [pytest.approx(unjudged, abs=1e-15), 0.0]
    assert got["RBPResidual(p=0.9)"] == [pytest.approx(unjudged, abs=1e-15),
                                         pytest.approx(p ** 2, abs=1e-15)]
