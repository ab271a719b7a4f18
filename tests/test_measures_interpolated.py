"""The interpolated measure (metrics/measures/interpolated.py): IPrec@r, interpolated precision
at any recall level r, against trec_eval 9 (through pytrec_eval) at its 11 levels and others,
brute force over each query's dense list (trec_eval's rule written out, and trec_eval 10's
rounding) and hand computations.

The random runs are those of ``skewed_runs.skewed``: grades −1..3 (negative: pooled but not
judged), unjudged retrieved items, ties, one list of 5000 items, truth queries without a list and
without a relevant item. They are ranked with the trec9 tie policy, which is pytrec_eval's."""

from __future__ import annotations

import math
from decimal import ROUND_HALF_UP, Decimal

import numpy as np
import pytest
import pytrec_eval
from skewed_runs import dense_lists, ranked, relevant_count

from metrics import GroundTruth, Run, evaluate, judge

# levels beyond trec_eval's 11: fractional parts of r·R_q on both sides of 0.1 and 0.5
OTHER_LEVELS = (0.05, 0.15, 0.25, 0.33, 0.45, 0.71, 0.99)


@pytest.mark.parametrize("seed", range(3))
def test_iprec_agrees_with_trec_eval_at_its_levels_and_others(seed):
    run, qrels, judged = ranked(seed, "trec9")
    # pytrec_eval is trec_eval 9: its iprec_at_recall_r is our IPrec@r (trec_eval's names
    # follow trec_eval 10, tests/test_measures_trec_eval_extras.py)
    trec_names = [f"IPrec@{level:.2f}" for level in np.linspace(0, 1, 11)]
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
                expected[query][name.replace("IPrec@", "iprec_at_recall_")], abs=1e-12), \
                (query, name)
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
    precision at any rank from the n-th relevant one. trec_eval 10 with n = 0 and no relevant
    item retrieved: the whole list's precision, 0 / |A| (NaN for an empty list)."""
    relevant = [g is not None and g >= rel for g in grades]
    x = level * r_q
    need = math.floor(x + 0.9) if rounding == "trec9" else int(
        Decimal(x).to_integral_value(ROUND_HALF_UP))
    ranks = [i + 1 for i, x in enumerate(relevant) if x]
    if rounding == "trec10" and need == 0 and not ranks:
        return 0.0 / len(grades) if grades else math.nan
    need = max(1, need)
    if len(ranks) < need:
        return 0.0
    tp = np.cumsum(relevant)
    return max(tp[i - 1] / i for i in range(ranks[need - 1], len(grades) + 1))


@pytest.mark.parametrize("rounding", ["trec9", "trec10"])
@pytest.mark.parametrize("rel", [1, 2])
def test_iprec_agrees_with_brute_force_at_any_level(rel, rounding):
    run, qrels, judged = ranked(7, "trec9")
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
                                        abs=1e-12, nan_ok=True), (query, name)
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


def test_iprec_rounding_trec10_by_hand():
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


def test_iprec_avg_in_trec_eval_10s_and_9s_rounding(values_of):
    """R_q = 4, relevant at ranks 2 (P = 1/2) and 5 (P = 2/5). trec_eval 10 needs
    max(1, round(4r)) relevant items: 1 for r <= 0.3 (1/2), 2 for 0.4..0.6 (2/5), more after
    (0); trec_eval 9 needs ⌊4r + 0.9⌋: 1 for r <= 0.2, 2 for 0.3..0.5."""
    run = {"q": {"x": 6.0, "a": 5.0, "c": 4.0, "e": 3.0, "b": 2.0, "y": 1.0}}
    qrels = {"q": {"a": 3, "b": 1, "c": 0, "d": 2, "e": -1, "f": 1}}
    got = values_of(run, qrels, "11pt_avg,IPrecAvg,iprec_at_recall_0.30,IPrec@0.3",
                    ties="trec10")
    assert got["11pt_avg"] == [pytest.approx((4 * 0.5 + 3 * 0.4) / 11, abs=1e-15)]
    assert got["IPrecAvg"] == [pytest.approx((3 * 0.5 + 3 * 0.4) / 11, abs=1e-15)]
    assert got["iprec_at_recall_0.30"] == [0.5] and got["IPrec@0.3"] == [0.4]
