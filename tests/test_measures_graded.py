"""The graded measures (metrics/measures/graded.py), one measure at a time: DCG in its forms,
nDCG, ERR, EP and GAP.

Expected values come from hand computations in the comments, from trec_eval (through
pytrec_eval), or from brute force over each query's dense list, written here from the definitions
of docs/measures.md and run on the skewed runs of ``skewed_runs``; never from our code. The worked
examples of the instrument-retrieval task (ERR, EP and GAP on a taxonomy) are in test_seed_examples.py."""

from __future__ import annotations

import math

import pytest
import pytrec_eval
from skewed_runs import SEEDS_AND_CUTOFFS, assert_agrees_with_brute_force


@SEEDS_AND_CUTOFFS
def test_dcg_form_burges_agrees_with_brute_force_on_skewed_runs(seed, k):
    def dcg_burges(q):
        return sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(q.gains))
    assert_agrees_with_brute_force("DCG(form=burges)", dcg_burges, seed, k)


@SEEDS_AND_CUTOFFS
def test_dcg_form_jarvelin_base_e_agrees_with_brute_force_on_skewed_runs(seed, k):
    def dcg_jarvelin(q):
        return sum(g / (1 if i == 0 else math.log(i + 1)) for i, g in enumerate(q.gains))
    assert_agrees_with_brute_force("DCG(form=jarvelin,base=e)", dcg_jarvelin, seed, k)


# b (grade 1), c (0), a (2); d (2) is relevant too but not retrieved
QRELS = {"q": {"a": 2, "b": 1, "c": 0, "d": 2}}
RUN = {"q": {"b": 3.0, "c": 2.0, "a": 1.0}}


def test_dcg_at_k_in_its_three_forms_by_hand(values_of):
    got = values_of(RUN, QRELS, "DCG@1,DCG@3,DCG(form=burges)@3,DCG(form=jarvelin)@3")
    # trec: Σ g_i/log2(i + 1) = 1/1 + 0 + 2/2; burges: (2^g − 1) gains, 1/1 + 3/2;
    # jarvelin: g_1 + Σ_{i>=2} g_i/log2(i) = 1 + 0 + 2/log2(3)
    assert got["DCG@1"] == pytest.approx([1.0], abs=1e-12)
    assert got["DCG@3"] == pytest.approx([2.0], abs=1e-12)
    assert got["DCG(form=burges)@3"] == pytest.approx([2.5], abs=1e-12)
    assert got["DCG(form=jarvelin)@3"] == pytest.approx([1 + 2 / math.log2(3)], abs=1e-12)


def test_ndcg_at_k_divides_by_the_dcg_of_the_ideal_ranking_of_every_relevant_item(values_of):
    # DCG@3 = 1/log2(2) + 0 + 2/log2(4) = 2. The ideal ranking holds the truth's relevant items
    # best first, d included though it is not retrieved: 2, 2, 1, so IDCG@3 = 2/log2(2) +
    # 2/log2(3) + 1/log2(4), the whole ideal DCG (c, grade 0, adds no rank); at k = 1, 1/2
    got = values_of(RUN, QRELS, "nDCG@1,nDCG@3,nDCG")
    ideal = 2 + 2 / math.log2(3) + 1 / 2
    assert got["nDCG@1"] == pytest.approx([1 / 2], abs=1e-12)
    assert got["nDCG@3"] == pytest.approx([2 / ideal], abs=1e-12)
    assert got["nDCG"] == pytest.approx([2 / ideal], abs=1e-12)
    theirs = pytrec_eval.RelevanceEvaluator(QRELS, {"ndcg_cut.1,3", "ndcg"}).evaluate(RUN)["q"]
    assert [theirs["ndcg_cut_1"], theirs["ndcg_cut_3"], theirs["ndcg"]] == pytest.approx(
        got["nDCG@1"] + got["nDCG@3"] + got["nDCG"], abs=1e-12)


@SEEDS_AND_CUTOFFS
def test_err_agrees_with_brute_force_on_skewed_runs(seed, k):
    def err(q):
        value, reach = 0.0, 1.0
        for i, g in enumerate(q.gains):
            stop = (2 ** g - 1) / 2 ** q.gmax
            value += reach * stop / (i + 1)
            reach *= 1 - stop
        return value
    assert_agrees_with_brute_force("ERR", err, seed, k)


def user_weights(gmax: int) -> list[float]:
    """p_t ∝ t for the thresholds t = 1..gmax (index 0 unused)."""
    return [t / sum(range(1, gmax + 1)) for t in range(gmax + 1)]


@SEEDS_AND_CUTOFFS
def test_ep_agrees_with_brute_force_on_skewed_runs(seed, k):
    def ep(q):
        weights, depth = user_weights(q.gmax), q.k if q.k is not None else len(q.grades)
        return (sum(weights[t] * sum(g >= t for g in q.gains) / depth
                    for t in range(1, q.gmax + 1)) if depth else 0.0)
    assert_agrees_with_brute_force("EP", ep, seed, k)


@SEEDS_AND_CUTOFFS
def test_gap_agrees_with_brute_force_on_skewed_runs(seed, k):
    def gap(q):
        weights, numerator = user_weights(q.gmax), 0.0
        for i, g in enumerate(q.gains):
            for t in range(1, min(g, q.gmax) + 1):
                numerator += weights[t] * sum(x >= t for x in q.gains[:i + 1]) / (i + 1)
        denominator = sum(count * sum(weights[1:g + 1]) for g, count in q.grade_counts.items()
                          if g >= 1)
        return numerator / denominator
    assert_agrees_with_brute_force("GAP", gap, seed, k)
