"""The graded measures (metrics/measures/graded.py), one measure at a time: DCG in its forms,
nDCG, ERR, EP and GAP.

Expected values come from hand computations in the comments, from trec_eval (through
pytrec_eval), or from brute force over each query's dense list, written here from the definitions
of docs/measures.md and run on the skewed runs of ``skewed_runs``, or in exact arithmetic
(``fractions``) where grades are huge; never from our code. The worked examples of the
instrument-retrieval task (ERR, EP and GAP on a taxonomy) are in test_seed_examples.py."""

from __future__ import annotations

import itertools
import math
import sys
from fractions import Fraction

import numpy as np
import pytest
import pytrec_eval
from skewed_runs import SEEDS_AND_CUTOFFS, assert_agrees_with_brute_force

from metrics.errors import MeasureError


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


# ---- huge grades: exact values or a clear refusal, never a NumPy warning -------------------------
# Brute force in exact arithmetic (fractions.Fraction on Python's unbounded integers), from the
# definitions of docs/measures.md; these tests turn warnings into errors, so a NumPy
# RuntimeWarning (overflow, invalid value) fails them.

HUGE = {"q": {"a": 1500, "b": 1, "c": 0, "d": 1499, "e": 3}}
HUGE_RUN = {"q": {"b": 5.0, "c": 4.0, "a": 3.0, "e": 2.0}}   # d, grade 1499, is not retrieved


def exact_discount(i: int) -> Fraction:
    """1/log2(i + 1) at 1-based rank i, as the exact value of its double (the discount is not
    rational; the gains, which overflow a double, are exact)."""
    return Fraction(1 / math.log2(i + 1))


def exact_burges_dcg(grades: list[int]) -> Fraction:
    return sum(((2 ** g - 1) * exact_discount(i) for i, g in enumerate(grades, start=1)),
               Fraction(0))


@pytest.mark.filterwarnings("error")
def test_ndcg_form_burges_is_exact_for_grades_beyond_1023(values_of):
    ranked, ideal = [1, 0, 1500, 3], [1500, 1499, 3, 1]   # grades down the list; the ideal list
    got = values_of(HUGE_RUN, HUGE, "nDCG(form=burges),nDCG(form=burges)@2")
    want = exact_burges_dcg(ranked) / exact_burges_dcg(ideal)
    assert got["nDCG(form=burges)"] == pytest.approx([float(want)], rel=1e-12)
    # @2: grades 1 and 0 against 2^1500 − 1 and 2^1499 − 1, about 2^-1500: below the smallest
    # double, so 0.0 is its correctly rounded value (not NaN)
    assert float(exact_burges_dcg(ranked[:2]) / exact_burges_dcg(ideal[:2])) == 0.0
    assert got["nDCG(form=burges)@2"] == [0.0]


@pytest.mark.filterwarnings("error")
def test_ndcg_form_burges_for_small_grades_by_hand(values_of):
    # the list b (1), c (0), a (2) against the ideal 2, 2, 1: the scaled gains are the usual ones
    # times a power of two, so the ratio is the usual one
    got = values_of(RUN, QRELS, "nDCG(form=burges)@3")
    dcg = (2 ** 1 - 1) / math.log2(2) + (2 ** 2 - 1) / math.log2(4)
    idcg = 3 / math.log2(2) + 3 / math.log2(3) + 1 / math.log2(4)
    assert got["nDCG(form=burges)@3"] == pytest.approx([dcg / idcg], rel=1e-15)


@pytest.mark.filterwarnings("error")
def test_dcg_form_burges_up_to_grade_1023_is_exact_and_beyond_is_refused(values_of):
    run = {"q": {"a": 2.0, "b": 1.0}}
    got = values_of(run, {"q": {"a": 1023, "b": 1}}, "DCG(form=burges)")
    assert got["DCG(form=burges)"] == [float(exact_burges_dcg([1023, 1]))]
    # a grade of 1024 retrieved: 2^1024 − 1 is beyond the largest double
    with pytest.raises(MeasureError, match=r"DCG\(form=burges\).*'q'.*1023"):
        values_of(run, {"q": {"a": 1024, "b": 1}}, "DCG(form=burges)")
    # three items of grade 1023: each gain fits, their discounted sum does not
    assert exact_burges_dcg([1023] * 3) > Fraction(sys.float_info.max)
    with pytest.raises(MeasureError, match=r"DCG\(form=burges\)"):
        values_of({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": 1023, "b": 1023, "c": 1023}},
                  "DCG(form=burges)")
    # a grade of 5000 that is judged but not retrieved changes nothing: DCG reads the list
    got = values_of(run, {"q": {"a": 3, "b": 1, "z": 5000}}, "DCG(form=burges)")
    assert got["DCG(form=burges)"] == [float(exact_burges_dcg([3, 1]))]


def exact_err(grades: list[int], gmax: int) -> Fraction:
    """Σ_i (p_i/i) Π_{j<i}(1 − p_j) with p = (2^g − 1)/2^gmax, in exact arithmetic."""
    value, reach = Fraction(0), Fraction(1)
    for i, g in enumerate(grades, start=1):
        stop = Fraction(2 ** max(g, 0) - 1, 2 ** gmax)
        value += reach * stop / i
        reach *= 1 - stop
    return value


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("grades", [[0, 2, 1, 3], [1024, 3, 0, 1023], [2000, 1999, 1, 2000],
                                    [5, 70, 69, 40000], [0, 1, 1, 2]])
def test_err_equals_exact_arithmetic_for_small_and_huge_grades(values_of, grades):
    items = [f"d{i}" for i in range(len(grades))]
    run = {"q": {d: float(len(items) - i) for i, d in enumerate(items)}}
    got = values_of(run, {"q": dict(zip(items, grades))}, "ERR,ERR@2")
    assert got["ERR"] == pytest.approx([float(exact_err(grades, max(grades)))], rel=1e-12)
    assert got["ERR@2"] == pytest.approx([float(exact_err(grades[:2], max(grades)))], rel=1e-12)


@pytest.mark.filterwarnings("error")
def test_err_with_a_grade_near_the_int64_limit_by_hand(values_of):
    # gmax = 2^62: the item of grade gmax stops every user who reaches it (p = 1 − 2^−gmax, 1 in
    # a double); grade 2^62 − 60 stops a share 2^−60 − 2^−gmax, 2^−60 in a double
    g = 2 ** 62
    got = values_of({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}, {"q": {"a": g - 60, "b": g, "c": 1}},
                    "ERR")
    stop = 2.0 ** -60
    assert got["ERR"] == pytest.approx([stop + (1 - stop) / 2], rel=1e-15)


# ---- GAP: Robertson, Kanoulas & Yilmaz (2010) ----------------------------------------------------

def exact_gap(grades: list[int], truth_grades: list[int], gmax: int,
              k: int | None = None) -> Fraction:
    """GAP by its definition, in exact arithmetic: Σ_i Σ_{t<=g_i} p_t·P@i_t over the ranks i
    within k, P@i_t counting grades >= t, divided by Σ over the truth's relevant items of
    Σ_{t<=g} p_t; p_t = t / Σ_{s<=gmax} s, gmax the whole ground truth's highest grade."""
    p = [Fraction(t, gmax * (gmax + 1) // 2) for t in range(gmax + 1)]
    top = grades if k is None else grades[:k]
    numerator = sum((p[t] * Fraction(sum(x >= t for x in top[:i]), i)
                     for i, g in enumerate(top, start=1) for t in range(1, max(g, 0) + 1)),
                    Fraction(0))
    return numerator / sum(sum(p[1:g + 1]) for g in truth_grades if g >= 1)


def test_gap_by_hand(values_of):
    # gmax = 2: p_1 = 1/3, p_2 = 2/3, so Σ_{t<=1} p_t = 1/3 and Σ_{t<=2} p_t = 1. The list
    # b (1), c (0), a (2); d (2) is relevant and missed. Numerator: rank 1, b: (1/3)/1; rank 3,
    # a: p_1·2/3 + p_2·1/3 = 4/9; 7/9 in all. Denominator: 1 + 1/3 + 1 = 7/3. GAP = 1/3;
    # GAP@2 = (1/3)/(7/3) = 1/7
    got = values_of(RUN, QRELS, "GAP,GAP@2")
    assert got["GAP"] == pytest.approx([1 / 3], rel=1e-15)
    assert got["GAP@2"] == pytest.approx([1 / 7], rel=1e-15)
    assert exact_gap([1, 0, 2], [2, 1, 0, 2], 2) == Fraction(1, 3)


def random_graded_lists(seed: int, queries: int = 12, top: int = 40):
    """A run and qrels of lists with many distinct grades (-1..top), some relevant items
    missed; each query's list as grades and its truth's grades."""
    rng = np.random.default_rng(seed)
    run, qrels, lists, truths = {}, {}, {}, {}
    for q in (f"q{i}" for i in range(queries)):
        n = int(rng.integers(1, 14))
        grades = [int(g) if rng.random() < 0.7 else 0 for g in rng.integers(-1, top, n)]
        missed = [int(g) for g in rng.integers(1, top, int(rng.integers(0, 3)))]
        items = [f"d{i}" for i in range(n)]
        run[q] = {d: float(n - i) for i, d in enumerate(items)}
        qrels[q] = {**dict(zip(items, grades)), **{f"m{i}": g for i, g in enumerate(missed)}}
        lists[q], truths[q] = grades, grades + missed
    return run, qrels, lists, truths


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("seed", range(6))
def test_gap_agrees_with_exact_arithmetic_on_lists_with_many_grades(values_of, seed):
    run, qrels, lists, truths = random_graded_lists(seed)
    gmax = max(max(t) for t in truths.values())
    got = values_of(run, qrels, "GAP,GAP@5")
    for i, q in enumerate(qrels):
        for name, k in (("GAP", None), ("GAP@5", 5)):
            if not any(g >= 1 for g in truths[q]):
                assert math.isnan(got[name][i])
            else:
                want = float(exact_gap(lists[q], truths[q], gmax, k))
                assert got[name][i] == pytest.approx(want, rel=1e-12), (q, name)


def every_order_of_tied_groups(scores: dict[str, float]):
    """Every ranking of the items when each group of equal scores may come in any order."""
    levels = sorted(set(scores.values()), reverse=True)
    groups = [[d for d in scores if scores[d] == s] for s in levels]
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [d for part in parts for d in part]


@pytest.mark.filterwarnings("error")
@pytest.mark.parametrize("seed", range(4))
def test_gap_under_expected_ties_is_the_mean_over_every_order_with_many_grades(values_of, seed):
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for q in (f"q{i}" for i in range(8)):
        n = int(rng.integers(2, 9))
        items = [f"d{i}" for i in range(n)]
        scores = rng.integers(0, 4, n).astype(float)   # ties of up to 4 items (4! orders)
        while max(np.unique(scores, return_counts=True)[1]) > 4:
            scores = rng.integers(0, 4, n).astype(float)
        run[q] = dict(zip(items, scores.tolist()))
        qrels[q] = {d: int(g) for d, g in zip(items, rng.integers(-1, 25, n)) if rng.random() < .8}
        qrels[q][f"missed{q}"] = int(rng.integers(1, 25))
    gmax = max(g for judged in qrels.values() for g in judged.values())
    got = values_of(run, qrels, "GAP,GAP@3", ties="expected")
    for i, q in enumerate(qrels):
        truth = list(qrels[q].values())
        orders = list(every_order_of_tied_groups(run[q]))
        for name, k in (("GAP", None), ("GAP@3", 3)):
            want = sum(exact_gap([qrels[q].get(d, 0) for d in order], truth, gmax, k)
                       for order in orders) / len(orders)
            assert got[name][i] == pytest.approx(float(want), rel=1e-12), (q, name)


@pytest.mark.filterwarnings("error")
def test_gap_of_a_perfect_ranking_is_exactly_one(values_of):
    # tied scores, listed best grade first (stable keeps that order): the ranking is perfect
    got = values_of({"q1": {"d0": 1.0, "d1": 1.0}}, {"q1": {"d0": 2, "d1": 1}}, "GAP")
    assert got["GAP"] == [1.0]
    rng = np.random.default_rng(3)
    run, qrels = {}, {}
    for q in (f"q{i}" for i in range(200)):
        grades = sorted((int(g) for g in rng.integers(1, 60, int(rng.integers(1, 30)))),
                        reverse=True)
        run[q] = {f"d{i}": float(-i) for i in range(len(grades) + 3)}   # then 3 unjudged
        qrels[q] = {f"d{i}": g for i, g in enumerate(grades)}
    got = values_of(run, qrels, "GAP,GAP@100")
    assert got["GAP"] == [1.0] * 200 and got["GAP@100"] == [1.0] * 200


@pytest.mark.filterwarnings("error")
def test_gap_passes_over_the_bits_of_the_grades_not_over_each_grade(values_of, monkeypatch):
    # 10,000 queries of 5 items, 50,000 distinct grades: the counting passes over the hits once
    # per bit of the grade ranks (16), never once per distinct grade; values against Robertson's
    # pairwise form Σ_i (1/i) Σ_{j<=i} W(min(g_i, g_j)) / Σ_d W(g_d), W(g) = g(g+1)/(G(G+1))
    from metrics.measures import common
    passes = []
    split = common.split_by_bit
    monkeypatch.setattr(common, "split_by_bit", lambda *a: passes.append(1) or split(*a))
    rng = np.random.default_rng(5)
    grades = rng.permutation(50_000).reshape(10_000, 5) + 1
    run = {f"q{q}": {f"d{i}": float(5 - i) for i in range(5)} for q in range(10_000)}
    qrels = {f"q{q}": {f"d{i}": int(g) for i, g in enumerate(row)}
             for q, row in enumerate(grades)}
    got = values_of(run, qrels, "GAP")["GAP"]
    assert 0 < len(passes) <= 16
    top = 50_000 * 50_001

    def pairwise(row):
        weight = [g * (g + 1) / top for g in row]
        numerator = sum(sum(min(weight[i], weight[j]) for j in range(i + 1)) / (i + 1)
                        for i in range(len(row)))
        return numerator / sum(weight)
    assert got == pytest.approx([pairwise(row.tolist()) for row in grades], rel=1e-12)


@pytest.mark.filterwarnings("error")
def test_ndcg_dcg_err_ep_and_gap_with_grades_near_the_int64_limit_by_hand(values_of):
    # the list a (2^62 − 5), b (2^62), c (1), e (0); d (3) is missed. In a double 2^62 − 5 is
    # 2^62 and W(1) = 2/(2^62(2^62 + 1)) is negligible: every value below is that of grades
    # G, G, ~0, 0 against the ideal G, G, 3, 1, worked out with those roundings
    g = 2 ** 62
    run = {"q": {"a": 3.0, "b": 2.0, "c": 1.0, "e": 0.5}}
    qrels = {"q": {"a": g - 5, "b": g, "c": 1, "d": 3, "e": 0}}
    got = values_of(run, qrels, "nDCG,DCG@2,nDCG(form=burges),ERR,ERR(p=linear),EP,EP@2,GAP")
    assert got["nDCG"] == [1.0]                     # 1 − about 1e-18
    assert got["DCG@2"] == pytest.approx([g + g / math.log2(3)], rel=1e-15)
    # burges, divided by 2^G: gains 2^-5 and 1 (a, b) against the ideal 1 and 2^-5
    burges = (2 ** -5 + 1 / math.log2(3)) / (1 + 2 ** -5 / math.log2(3))
    assert got["nDCG(form=burges)"] == pytest.approx([burges], rel=1e-15)
    # stop probabilities 2^-5 and 1 (Chapelle), or (G − 5)/G and 1 (linear)
    assert got["ERR"] == pytest.approx([2 ** -5 + (1 - 2 ** -5) / 2], rel=1e-15)
    assert got["ERR(p=linear)"] == pytest.approx([1.0], rel=1e-15)
    # W(G) = W(G − 5) = 1: EP = (1 + 1)/|A| = 2/4, EP@2 = 1; GAP = (1 + (1 + 1)/2)/(1 + 1)
    assert got["EP"] == [0.5] and got["EP@2"] == [1.0]
    assert got["GAP"] == pytest.approx([1.0], rel=1e-15) and got["GAP"][0] <= 1.0
