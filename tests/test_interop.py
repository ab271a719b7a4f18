"""Moving data in and out of a notebook: pandas and polars DataFrames, the nested dicts of
pytrec_eval / ir_measures / ranx, ir_measures' namedtuples, ranx's objects and saved files, and
``EvaluationResult.to_dataframe`` (issue 14, item 9). Expected values come from pytrec_eval, ranx,
ir_measures or a hand computation."""

from __future__ import annotations

import json
import math

import numpy as np
import pandas as pd
import pytest

from metrics import GroundTruth, InputError, Run, evaluate, judge
from metrics.loaders import load_qrels, load_run

RUN = {"q1": {"a": 0.9, "b": 0.8, "c": 0.1, "x": 0.5}, "q2": {"d": 1.0, "e": 0.5}}
QRELS = {"q1": {"a": 1, "b": 0, "c": 2}, "q2": {"e": 1, "f": 1}, "q3": {"g": 1}}
# by hand: q1 ranks a(1) x(-) b(0) c(2), R = 2: AP = (1/1 + 2/4) / 2 = 0.75
#          q2 ranks d(-) e(1), R = 2: AP = (1/2) / 2 = 0.25;  q3 is not in the run: AP = 0
AP_BY_HAND = {"q1": 0.75, "q2": 0.25, "q3": 0.0}


def _rows(mapping):
    return [(q, d, v) for q, items in mapping.items() for d, v in items.items()]


def _ap(run: Run, truth: GroundTruth) -> dict[str, float]:
    result = evaluate(judge(run, truth, "trec9"), "AP")
    return dict(zip(result.query_ids, result.results["AP"].values.tolist()))


def test_from_dict_matches_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    expected = pytrec_eval.RelevanceEvaluator(QRELS, {"map"}).evaluate(RUN)
    got = _ap(Run.from_dict(RUN), GroundTruth.from_dict(QRELS))
    want = {q: v["map"] for q, v in expected.items()}
    assert {q: got[q] for q in expected} == pytest.approx(want)
    assert got == pytest.approx(AP_BY_HAND)


@pytest.mark.parametrize("library", ["pandas", "polars"])
def test_from_dataframe(library):
    run = pd.DataFrame(_rows(RUN), columns=["query_id", "item_id", "score"])
    qrels = pd.DataFrame(_rows(QRELS), columns=["query_id", "item_id", "relevance"])
    if library == "polars":
        pl = pytest.importorskip("polars")
        run, qrels = pl.from_pandas(run), pl.from_pandas(qrels)
    got = _ap(Run.from_dataframe(run), GroundTruth.from_dataframe(qrels))
    assert got == pytest.approx(AP_BY_HAND)


def test_from_dataframe_with_other_column_names_and_bare_lists():
    run = pd.DataFrame({"qid": ["q1", "q1", "q1"], "docno": ["c", "a", "b"], "pos": [3, 1, 2]})
    qrels = pd.DataFrame({"qid": ["q1", "q1"], "doc_id": ["a", "c"], "grade": [1, 1]})
    truth = GroundTruth.from_dataframe(qrels, query="qid")          # doc_id and grade found
    ranked = Run.from_dataframe(run, query="qid", item="docno", score=None, rank="pos")
    # ranked a, b, c with a and c relevant: AP = (1/1 + 2/3) / 2
    assert _ap(ranked, truth) == pytest.approx({"q1": (1 + 2 / 3) / 2})
    in_row_order = Run.from_dataframe(run, query="qid", item="docno", score=None)
    # ranked c, a, b: AP = (1/1 + 2/2) / 2
    assert _ap(in_row_order, truth) == pytest.approx({"q1": 1.0})


def test_numeric_ids_become_strings():
    run = pd.DataFrame({"query_id": [1, 1], "doc_id": [10, 20], "score": [2.0, 1.0]})
    truth = GroundTruth.from_dict({"1": {"20": 1}})
    assert _ap(Run.from_dataframe(run), truth) == pytest.approx({"1": 0.5})


@pytest.mark.parametrize("frame,kwargs,words", [
    (pd.DataFrame({"query_id": ["q"], "item_id": ["a"]}), {}, "no score column 'score'"),
    (pd.DataFrame({"q": ["q"], "item_id": ["a"], "score": [1.0]}), {}, "no query column"),
    (pd.DataFrame({"query_id": ["q"], "x": ["a"], "score": [1.0]}), {},
     "no item column (looked for item_id, doc_id"),
    (pd.DataFrame({"query_id": ["q", None], "item_id": ["a", "b"], "score": [1.0, 2.0]}), {},
     "row 2, column 'query_id': missing value"),
    (pd.DataFrame({"query_id": ["q", "q"], "item_id": ["a", "b"], "score": [1.0, None]}), {},
     "row 2, column 'score': missing value"),
    (pd.DataFrame({"query_id": ["q", "q"], "item_id": ["a", "b"], "score": ["1", "high"]}), {},
     "row 2, column 'score': 'high' is not a number"),
    (pd.DataFrame({"query_id": ["q"], "item_id": ["a"], "score": [math.inf]}), {},
     "not a finite number"),
    ({"q": {"a": 1.0}}, {}, "expected a pandas or polars DataFrame, not dict"),
])
def test_bad_run_frames(frame, kwargs, words):
    with pytest.raises(InputError, match=__import__("re").escape(words)) as info:
        Run.from_dataframe(frame, **kwargs)
    assert "\n" not in str(info.value)


def test_bad_qrels_frames_and_dicts():
    with pytest.raises(InputError, match="not a whole number"):
        GroundTruth.from_dataframe(pd.DataFrame({"query_id": ["q"], "item_id": ["a"],
                                                 "relevance": [1.5]}))
    with pytest.raises(InputError, match="no relevance column"):
        GroundTruth.from_dataframe(pd.DataFrame({"query_id": ["q"], "item_id": ["a"]}))
    with pytest.raises(InputError, match="query 'q1': expected {item: score}, not list"):
        Run.from_dict({"q1": ["a", "b"]})
    with pytest.raises(InputError, match="grade 'high' is not a number"):
        GroundTruth.from_dict({"q1": {"a": "high"}})
    with pytest.raises(InputError, match="expected {query: {item: grade}}, not list"):
        GroundTruth.from_dict([("q1", "a", 1)])


def test_from_ir_measures_namedtuples_dicts_and_frames():
    ir_measures = pytest.importorskip("ir_measures")
    qrels = [ir_measures.Qrel(q, d, g) for q, d, g in _rows(QRELS)]
    run = [ir_measures.ScoredDoc(q, d, s) for q, d, s in _rows(RUN)]
    expected = {m.query_id: m.value for m in ir_measures.iter_calc([ir_measures.AP], qrels, run)}
    got = _ap(Run.from_ir_measures(iter(run)), GroundTruth.from_ir_measures(iter(qrels)))
    assert {q: got[q] for q in expected} == pytest.approx(expected)
    assert got == pytest.approx(AP_BY_HAND)
    frames = (pd.DataFrame(run), pd.DataFrame(qrels))  # query_id, doc_id, score | relevance
    assert _ap(Run.from_ir_measures(frames[0]), GroundTruth.from_ir_measures(frames[1])) == got
    assert _ap(Run.from_ir_measures(RUN), GroundTruth.from_ir_measures(QRELS)) == got
    assert _ap(Run.from_ir_measures([("q1", "c", 1.0)]),
               GroundTruth.from_ir_measures([("q1", "c", 1)])) == {"q1": 1.0}
    with pytest.raises(InputError, match="row 2: expected \\(query_id, doc_id, score\\)"):
        Run.from_ir_measures([("q1", "a", 1.0), ("q1", "b")])


def test_from_ranx_objects_and_saved_files(tmp_path):
    ranx = pytest.importorskip("ranx")
    ranx_run, ranx_qrels = ranx.Run(RUN, name="bm25"), ranx.Qrels(QRELS)
    run, truth = Run.from_ranx(ranx_run), GroundTruth.from_ranx(ranx_qrels)
    assert run.name == "bm25"
    got = _ap(run, truth)
    expected = ranx.evaluate(ranx_qrels, ranx_run, "map", make_comparable=True)  # q3: empty
    assert sum(got.values()) / 3 == pytest.approx(expected)
    assert got == pytest.approx(AP_BY_HAND)
    # ranx's TREC files load with our loaders as they are
    ranx_run.save(str(tmp_path / "run.trec")), ranx_qrels.save(str(tmp_path / "qrels.trec"))
    assert _ap(load_run(tmp_path / "run.trec"), load_qrels(tmp_path / "qrels.trec")) == \
        pytest.approx(AP_BY_HAND)
    # its JSON files (query → item → score, as ranx writes them) through ranx's reader; written
    # here because ranx's writer needs numba's compiled dictionaries, which the suite does
    # without (tests/conftest.py: NUMBA_DISABLE_JIT)
    (tmp_path / "run.json").write_text(json.dumps(RUN))
    assert _ap(Run.from_ranx(ranx.Run.from_file(str(tmp_path / "run.json"))), truth) == \
        pytest.approx(AP_BY_HAND)
    with pytest.raises(InputError, match="expected a ranx Run"):
        Run.from_ranx(RUN)


def test_to_dataframe_is_wide_with_nan_where_undefined_and_an_optional_all_row():
    truth = GroundTruth.from_dict({**QRELS, "q4": {"h": 0}})           # q4: R_q = 0, undefined
    result = evaluate(judge(Run.from_dict(RUN), truth, "trec9"), "AP,num_rel,P_1")
    frame = result.to_dataframe()
    assert list(frame.columns) == ["query_id", "AP", "num_rel", "P_1"]
    assert frame["query_id"].tolist() == ["q1", "q2", "q3", "q4"]
    assert frame["AP"].tolist()[:3] == pytest.approx([0.75, 0.25, 0.0])
    assert np.isnan(frame["AP"].iloc[3]) and np.isnan(frame["num_rel"].iloc[3])
    with_all = result.to_dataframe("mean")
    assert with_all["query_id"].tolist()[-1] == "all"
    last = with_all.iloc[-1]
    # the mean over the three defined queries; num_rel summed (2 + 2 + 1), as trec_eval
    assert (last["AP"], last["num_rel"], last["P_1"]) == pytest.approx((1 / 3, 5, 1 / 3))
    pl = pytest.importorskip("polars")
    assert pl.from_pandas(with_all).shape == (5, 4)
