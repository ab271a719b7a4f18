"""Relevance, the one owner of what a grade means: judged (g >= 0; a negative grade is pooled but
not judged), relevant (g >= the threshold, at least 1) and judged not relevant (0 <= g < t).
Every expected value is worked out by hand from the grades below."""

import numpy as np
import pytest

from metrics import GroundTruth, Relevance, Run, evaluate, judge
from metrics.explain.summaries import dataset_summary, failure_report, relevant_retrieved

GRADES = np.array([-2, -1, 0, 1, 2, 3])


@pytest.mark.parametrize("threshold, relevant, judged_nonrelevant", [
    # grade:     -2     -1     0      1      2      3
    (1, [False, False, False, True, True, True], [False, False, True, False, False, False]),
    # an item graded exactly at the threshold (2) is relevant; grade 1 is now judged not relevant
    (2, [False, False, False, False, True, True], [False, False, True, True, False, False]),
    # grade 0 is judged not relevant whatever the threshold: a threshold of 0 means 1
    (0, [False, False, False, True, True, True], [False, False, True, False, False, False]),
])
def test_which_grades_are_relevant_and_which_judged_not_relevant(threshold, relevant,
                                                                 judged_nonrelevant):
    relevance = Relevance(threshold)
    assert relevance.relevant(GRADES).tolist() == relevant
    assert relevance.judged_nonrelevant(GRADES).tolist() == judged_nonrelevant
    # negative grades are neither: pooled but not judged
    assert relevance.judged(GRADES).tolist() == [False, False, True, True, True, True]


def test_a_threshold_below_one_is_one():
    assert Relevance(0) == Relevance(1) == Relevance(-3) == Relevance()
    assert Relevance(0).threshold == 1 and Relevance(2).threshold == 2


def test_answers_keep_the_shape_of_the_grades():
    """Vectorised: one query's grade, a list, or a queries × ranks table alike."""
    assert Relevance(2).relevant(2) and not Relevance(2).relevant(1)
    table = np.array([[0, 2], [3, -1]])
    assert Relevance(2).relevant(table).tolist() == [[False, True], [True, False]]
    assert Relevance(2).judged_nonrelevant(table).tolist() == [[True, False], [False, False]]


# One query. Retrieved, in rank order: a (1), b (0), c (-1, pooled but not judged), d (2) and x,
# which the truth lacks. Not retrieved: e (2), f (0), g (-1).
RUN = Run.from_dict({"q": {"a": 5.0, "b": 4.0, "c": 3.0, "d": 2.0, "x": 1.0}})
TRUTH = GroundTruth.from_dict({"q": {"a": 1, "b": 0, "c": -1, "d": 2, "e": 2, "f": 0, "g": -1}})


@pytest.mark.parametrize("threshold, r_q, n, ranks, grades", [
    (1, 3, 2, [1, 4], [1, 2]),      # relevant: a, d, e; judged not relevant: b, f
    (2, 2, 3, [4], [2]),            # relevant: d, e; judged not relevant: a, b, f
    (0, 3, 2, [1, 4], [1, 2]),      # as at 1
])
def test_the_judged_ranking_counts_and_finds_the_relevant_items(threshold, r_q, n, ranks,
                                                                grades):
    judged = judge(RUN, TRUTH)
    assert judged.num_relevant(threshold).tolist() == [r_q]
    assert judged.num_judged_nonrelevant(threshold).tolist() == [n]
    found_ranks, found_grades = relevant_retrieved(judged, 0, threshold)
    assert found_ranks.tolist() == ranks and found_grades.tolist() == grades
    report = failure_report(judged, 0, threshold)
    assert (report.num_relevant, report.found, report.judged_nonrelevant) == (r_q, len(ranks), n)
    summary = dataset_summary(judged, threshold)
    assert summary["relevant items retrieved"] == len(ranks)
    assert summary["unjudged items retrieved"] == 2          # c (grade -1) and x


def test_the_strip_row_holds_the_relevant_items_the_engine_found():
    from dashboard.failure import strip_row

    row = strip_row(judge(RUN, TRUTH), "s", 0, 2)
    assert (list(row.ranks), list(row.grades), row.length, row.num_relevant) == ([4], [2], 5, 2)


def test_bpref_counts_judged_nonrelevant_items_at_the_threshold():
    """Bpref = (1/R) Σ over retrieved relevant r of (1 − min(n_r, R)/min(R, N)).
    rel=1: R = 3, N = 2; a at rank 1 (n = 0) gives 1; d at rank 4 has b above it (c, grade −1,
    is not judged), n = 1: 1 − 1/min(3, 2) = 0.5; (1 + 0.5)/3 = 0.5.
    rel=2: R = 2, N = 3; d has a and b above it, n = 2: 1 − min(2, 2)/min(2, 3) = 0."""
    values = evaluate(judge(RUN, TRUTH), "Bpref,Bpref(rel=2)").aggregate()
    assert values == pytest.approx({"Bpref": 0.5, "Bpref(rel=2)": 0.0})
