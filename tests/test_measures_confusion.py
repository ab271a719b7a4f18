"""The confusion counts at a cutoff and the rates built from them (metrics/measures/confusion.py),
one measure at a time: TP, FP, FN, TN, Accuracy, Sensitivity, Specificity and Fallout.

The items in the top k (min(k, |A|) of them) are "predicted relevant", every other item of the
collection D "predicted not relevant". Expected values are computed by hand in the comments; the
worked example of Serrà (2007) Table 2 is in test_seed_examples.py."""

from __future__ import annotations

import pytest

# |D| = 20. q: a (relevant), x, b (relevant), y (judged non-relevant), z; c, relevant too, is not
# retrieved: R_q = 3, |A| = 5. r: f, g, neither relevant; h is: R_q = 1, |A| = 2.
RUN = {"q": {"a": 5.0, "x": 4.0, "b": 3.0, "y": 2.0, "z": 1.0}, "r": {"f": 2.0, "g": 1.0}}
QRELS = {"q": {"a": 1, "b": 1, "c": 1, "y": 0}, "r": {"h": 1}}
COLLECTION = 20

# At k = 4, q: TP = 2 (a, b), FP = 4 − 2 = 2, FN = 3 − 2 = 1, TN = 20 − 4 − 1 = 15;
# r: TP = 0, FP = min(4, 2) − 0 = 2, FN = 1, TN = 20 − 2 − 1 = 17.
# Without a cutoff (k = |A| = 5 for q): TP = 2, FP = 3, FN = 1, TN = 20 − 5 − 1 = 14.


def confusion(values_of, measures):
    return values_of(RUN, QRELS, measures, collection_size=COLLECTION)


def test_tp_counts_the_relevant_items_in_the_top_k(values_of):
    got = confusion(values_of, "TP@4,TP@1,TP")
    assert got["TP@4"] == [2.0, 0.0]
    assert got["TP@1"] == [1.0, 0.0]
    assert got["TP"] == [2.0, 0.0]


def test_fp_counts_the_other_items_in_the_top_k_unjudged_included(values_of):
    got = confusion(values_of, "FP@4,FP")
    assert got["FP@4"] == [2.0, 2.0]
    assert got["FP"] == [3.0, 2.0]


def test_fn_counts_the_relevant_items_outside_the_top_k(values_of):
    got = confusion(values_of, "FN@4,FN@1")
    assert got["FN@4"] == [1.0, 1.0]
    assert got["FN@1"] == [2.0, 1.0]   # q: b and c


def test_tn_counts_the_rest_of_the_collection_that_is_not_relevant(values_of):
    got = confusion(values_of, "TN@4,TN")
    assert got["TN@4"] == [15.0, 17.0]
    assert got["TN"] == [14.0, 17.0]


def test_accuracy_is_the_share_of_the_collection_classified_right(values_of):
    got = confusion(values_of, "Accuracy@4,Accuracy@1")
    # (TP + TN)/|D|: (2 + 15)/20 and (0 + 17)/20; at k = 1, q: (1 + 17)/20, r: (0 + 18)/20
    assert got["Accuracy@4"] == pytest.approx([17 / 20, 17 / 20], abs=1e-12)
    assert got["Accuracy@1"] == pytest.approx([18 / 20, 18 / 20], abs=1e-12)


def test_sensitivity_is_tp_over_r_q(values_of):
    got = confusion(values_of, "Sensitivity@4,Sensitivity@1")
    assert got["Sensitivity@4"] == pytest.approx([2 / 3, 0.0], abs=1e-12)
    assert got["Sensitivity@1"] == pytest.approx([1 / 3, 0.0], abs=1e-12)


def test_specificity_is_tn_over_the_items_that_are_not_relevant(values_of):
    # TN/(TN + FP): 15/(15 + 2) and 17/(17 + 2)
    got = confusion(values_of, "Specificity@4")
    assert got["Specificity@4"] == pytest.approx([15 / 17, 17 / 19], abs=1e-12)


def test_fallout_is_fp_over_the_items_that_are_not_relevant(values_of):
    # FP/(FP + TN): 2/17 and 2/19; without a cutoff, q: 3/(3 + 14)
    got = confusion(values_of, "Fallout@4,Fallout")
    assert got["Fallout@4"] == pytest.approx([2 / 17, 2 / 19], abs=1e-12)
    assert got["Fallout"] == pytest.approx([3 / 17, 2 / 19], abs=1e-12)
