"""Measure names, the registry, tie policies and the tie report."""

import math

import numpy as np
import pytest

from metrics import (REGISTRY, GroundTruth, MeasureError, Run, evaluate, judge, parse_measure,
                     rank_run, split_measure_list)
from metrics.streaming import judge_all_vs_all


def test_split_on_commas_outside_parentheses():
    assert split_measure_list("AP, P@10,DCG(form=jarvelin,base=e)@10,nDCG@10") == [
        "AP", "P@10", "DCG(form=jarvelin,base=e)@10", "nDCG@10"]


@pytest.mark.parametrize("text,printed", [
    ("AP", "AP"), ("P@10", "P@10"), ("DCG(base=e,form=jarvelin)@10", "DCG(form=jarvelin,base=e)@10"),
    ("F(beta=2)@5", "F(beta=2)@5"), ("AP(norm=min)@10", "AP(norm=min)@10"),
    (" nDCG @ 10 ", "nDCG@10"), ("ERR(p=linear)@20", "ERR(p=linear)@20"),
])
def test_parse_and_print(text, printed):
    assert str(parse_measure(text)) == printed


@pytest.mark.parametrize("text,words", [
    ("Foo", "unknown measure 'Foo'"), ("ap", "did you mean AP"), ("P@0", "at least 1"),
    ("P@x", "not a whole number"), ("Rprec@10", "takes no cutoff"), ("AP(norm=max)", "not one of"),
    ("AP(x=1)", "has no parameter 'x'"), ("AP(norm)", "name=value"), ("DCG(base=1)", "cannot be 1"),
    ("AP(rel=1,rel=2)", "given twice"), ("P@10@2", "not a whole number"), ("P(@10", "cannot read"),
])
def test_bad_measure_names(text, words):
    with pytest.raises(MeasureError, match=words):
        parse_measure(text)


def test_unbalanced_parentheses():
    with pytest.raises(MeasureError, match="unbalanced"):
        split_measure_list("DCG(form=trec,P@10")


def test_every_measure_is_documented():
    for name, definition in REGISTRY.items():
        assert definition.meaning and definition.convention and definition.reference, name
        assert definition.compute.__doc__, name


def test_every_measure_runs_on_an_empty_list_and_a_full_one():
    run = Run.from_dict({"q1": {"a": 2.0, "b": 1.0}})
    truth = GroundTruth.from_dict({"q1": {"a": 1, "c": 2}, "q2": {"a": 1}})
    judged = judge(run, truth, collection_size=10)
    for name, definition in REGISTRY.items():
        text = name + ("@5" if definition.cutoff == "required" else "")
        values = evaluate(judged, text).results[text].values
        assert values.shape == (2,)


# ---- ties ---------------------------------------------------------------------------------------

TIED = Run.build(["q"] * 4, ["b", "c", "a", "d"], [1.0, 1.0, 1.0, 0.5])


def items(run, ties):
    ranked = rank_run(run, ties)
    return ranked.item_ids.tolist()


def test_stable_keeps_input_order():
    assert items(TIED, "stable") == ["b", "c", "a", "d"]


def test_id_ascending():
    assert items(TIED, "id") == ["a", "b", "c", "d"]


def test_id_ascending_is_numeric_for_integer_ids():
    run = Run.build(["q"] * 3, ["10", "9", "100"], [1.0, 1.0, 1.0])
    assert items(run, "id") == ["9", "10", "100"]


def test_trec_is_id_descending_after_float32_rounding():
    assert items(TIED, "trec") == ["c", "b", "a", "d"]
    # distinct in float64, equal in float32: trec_eval sees a tie and orders by id descending
    run = Run.build(["q", "q"], ["a", "b"], [0.1 + 1e-12, 0.1])
    assert items(run, "stable") == ["a", "b"]
    assert items(run, "trec") == ["b", "a"]


def test_ties_change_measures_and_are_reported():
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    assert evaluate(judge(TIED, truth, "stable"), "RR").aggregate()["RR"] == pytest.approx(1 / 3)
    assert evaluate(judge(TIED, truth, "id"), "RR").aggregate()["RR"] == 1.0
    report = judge(TIED, truth, "stable").ties
    assert (report.tied_items, report.tie_groups, report.queries_with_ties) == (3, 1, 1)
    assert [report.straddling(k) for k in (1, 2, 3, 4)] == [1, 1, 0, 0]
    assert "straddle rank 1" in report.describe([1, 3])
    result = evaluate(judge(TIED, truth), "P@2,P@3")
    assert any("1 straddle rank 2" in w for w in result.warnings)
    assert not any("rank 3" in w for w in result.warnings)


def test_no_ties():
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    report = judge(Run.build(["q", "q"], ["a", "b"], [2.0, 1.0]), truth).ties
    assert report.tie_groups == 0 and report.describe() == "no score ties"


def test_trec_ties_counted_in_float32():
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    run = Run.build(["q", "q", "q"], ["a", "b", "c"], [0.1 + 1e-12, 0.1, 0.05])
    assert judge(run, truth, "stable").ties.tie_groups == 0
    assert judge(run, truth, "trec").ties.straddling(1) == 1


def test_matrix_excludes_the_query_and_breaks_ties():
    scores = np.array([[9, 1, 1, 0], [1, 9, 2, 3], [1, 2, 9, 1], [0, 3, 1, 9]], dtype=float)
    ids = ["w", "x", "y", "z"]
    labels = ["A", "B", "A", "B"]
    judged = judge_all_vs_all(scores, ids, labels, ties="stable")
    assert judged.ranked_list(0)[0].tolist() == ["x", "y", "z"]   # x and y tie: column order
    trec = judge_all_vs_all(scores, ids, labels, ties="trec")
    assert trec.ranked_list(0)[0].tolist() == ["y", "x", "z"]
    assert judged.dense_grades(0)[0].tolist() == [0, 1, 0]
    assert trec.dense_grades(0)[0].tolist() == [1, 0, 0]
    assert judged.collection_size == 3
    assert evaluate(judged, "FirstRank").results["FirstRank"].values.tolist() == [2, 1, 2, 1]
    distance = judge_all_vs_all(-scores, ids, labels, larger_is_better=False)
    for q in range(4):
        assert distance.ranked_list(q)[0].tolist() == judged.ranked_list(q)[0].tolist()
    # w: x and y tie at 1 (y a mate); y: w and z tie at 1 (w a mate)
    assert judged.ties.tie_groups == 2 and judged.ties.judged_only


def test_undefined_values_are_nan_and_excluded():
    run = Run.from_dict({"q1": {"a": 1.0}, "q2": {"b": 1.0}})
    truth = GroundTruth.from_dict({"q1": {"a": 1}, "q2": {"b": 0}})
    result = evaluate(judge(run, truth), "AP,P@1")
    assert math.isnan(result.results["AP"].values[1])
    assert result.undefined() == {"AP": 1, "P@1": 1}
    assert result.aggregate() == {"AP": 1.0, "P@1": 1.0}
    assert any("no relevant item" in w for w in result.warnings)


def test_ap_normalisations_by_hand():
    run = Run.from_dict({"q1": {"a": 3.0, "x": 2.0, "b": 1.0}})
    truth = GroundTruth.from_dict({"q1": {"a": 1, "b": 1, "c": 1, "d": 1}, "q2": {"e": 1}})
    got = evaluate(judge(run, truth), "AP,AP(norm=retrieved),AP(norm=min),AP(norm=min)@2")
    values = {m: r.values.tolist() for m, r in got.results.items()}
    assert values["AP"] == pytest.approx([(1 + 2 / 3) / 4, 0.0])
    assert values["AP(norm=retrieved)"] == pytest.approx([(1 + 2 / 3) / 2, 0.0])
    assert values["AP(norm=min)"] == pytest.approx([(1 + 2 / 3) / 3, 0.0])   # min(|A|=3, R=4)
    assert values["AP(norm=min)@2"] == pytest.approx([1 / 2, 0.0])          # min(k=2, R=4)
