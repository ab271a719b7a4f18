"""The judged ground truth (metrics/judgments/truth.py) and ``python -m metrics judgments export``:
the original merged with the judgments, the new ones alone, one judge's; each against qrels
written out by hand. Bad input: exit status 2 and one line on stderr."""

from __future__ import annotations

import hashlib
from pathlib import Path

import pytest
import pytrec_eval

from cli_in_process import run_cli
from metrics import evaluate, judge
from metrics.data.run import Run
from metrics.data.truth import GroundTruth
from metrics.errors import InputError
from metrics.judgments import (Judgment, JudgmentStore, dataset_digest, merged_qrels,
                               qrels_text)
from metrics.loaders import load_qrels

ORIGINAL = "q1 0 d1 1\nq1 0 d2 0\nq1 0 d5 -1\nq2 0 x 2\n"


@pytest.fixture
def judged(tmp_path) -> tuple[Path, Path, str]:
    """A database with two judges' judgments of the dataset of ``original.qrels`` (and one of
    another dataset), re-judgings among them."""
    original = tmp_path / "original.qrels"
    original.write_text(ORIGINAL)
    dataset = hashlib.sha256(ORIGINAL.encode()).hexdigest()
    database = tmp_path / "judgments.db"
    with JudgmentStore(str(database)) as store:
        for query, item, grade, who in [
                ("q1", "d3", 1, "ann"),     # new pair
                ("q1", "d2", 2, "ann"),     # changes the original's 0
                ("q3", "y", 0, "bob"),      # a query the original lacks
                ("q1", "d5", 0, "bob"),     # judges a pooled, unjudged pair (-1)
                ("q1", "d3", 0, "bob"),     # re-judged by another: the latest counts
                ("q2", "x", 2, "ann"),      # the original's grade again
                ("q1", "d4", 1, "ann")]:
            store.add(Judgment(dataset, query, item, grade, who, "explorer top 10"))
        store.add(Judgment("f" * 64, "q1", "zzz", 1, "ann", "other"))
    return database, original, dataset


def test_dataset_digest_is_sha256sum():
    assert dataset_digest(b"q1 0 d1 1\n") == hashlib.sha256(b"q1 0 d1 1\n").hexdigest()
    two = dataset_digest(b"a", b"b")
    assert two == hashlib.sha256((hashlib.sha256(b"a").hexdigest() + "\n" +
                                  hashlib.sha256(b"b").hexdigest() + "\n").encode()).hexdigest()
    assert two != dataset_digest(b"ab") and two != dataset_digest(b"b", b"a")


def test_merged_qrels_by_hand():
    truth = load_qrels(ORIGINAL.encode(), "original.qrels")
    merged = merged_qrels(truth, {("q1", "d3"): 0, ("q1", "d2"): 2, ("q3", "y"): 0,
                                  ("q1", "d5"): 0, ("q2", "x"): 2, ("q1", "d4"): 1})
    assert qrels_text(merged) == ("q1 0 d1 1\nq1 0 d2 2\nq1 0 d5 0\nq1 0 d3 0\nq1 0 d4 1\n"
                                  "q2 0 x 2\nq3 0 y 0\n")
    assert qrels_text(truth) == ORIGINAL   # the original is left as it was
    assert qrels_text(merged_qrels(None, {("b", "1"): 1, ("a", "2"): 0, ("b", "3"): 2})) == \
        "b 0 1 1\nb 0 3 2\na 0 2 0\n"


def test_merged_qrels_measures_are_pytrec_evals_on_the_merged_file():
    truth = load_qrels(ORIGINAL.encode(), "original.qrels")
    judgments = {("q1", "d3"): 1, ("q1", "d2"): 2, ("q1", "d5"): 0}
    run = {"q1": {"d3": 5.0, "d5": 4.0, "d2": 3.0, "d1": 2.0, "d9": 1.0},
           "q2": {"x": 2.0, "w": 1.0}}
    merged = merged_qrels(truth, judgments)
    ours = evaluate(judge(Run.from_dict(run), merged), "AP,P@2").per_query().set_index(
        "query_id").to_dict("index")
    by_hand = {"q1": {"d1": 1, "d2": 2, "d5": 0, "d3": 1}, "q2": {"x": 2}}
    theirs = pytrec_eval.RelevanceEvaluator(by_hand, {"map", "P_2"}).evaluate(run)
    for query in ("q1", "q2"):
        assert ours[query]["AP"] == pytest.approx(theirs[query]["map"], rel=1e-12)
        assert ours[query]["P@2"] == pytest.approx(theirs[query]["P_2"], rel=1e-12)


def test_merged_qrels_refuses_a_truth_of_labels():
    labels = GroundTruth.from_labels(["a", "b", "c"], ["x", "x", "y"])
    with pytest.raises(InputError, match="nothing to judge"):
        merged_qrels(labels, {("a", "c"): 1})


def test_qrels_text_refuses_an_id_with_white_space():
    with pytest.raises(InputError, match="item id 'my song' has white space"):
        qrels_text(merged_qrels(None, {("q1", "my song"): 1}))


def test_export_merged_with_the_original(judged, capsys):
    database, original, dataset = judged
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", dataset,
                             "--qrels", original)
    assert code == 0, err
    # the reader's warning about the original's -1 is passed on, nothing else is said
    assert err.splitlines() == [f"warning: {original}: 1 negative grade(s): pooled but not "
                                "judged, as in trec_eval (never relevant; not judged "
                                "non-relevant for bpref)"]
    assert out == ("q1 0 d1 1\nq1 0 d2 2\nq1 0 d5 0\nq1 0 d3 0\nq1 0 d4 1\nq2 0 x 2\n"
                   "q3 0 y 0\n")
    assert original.read_text() == ORIGINAL   # never written to


def test_export_only_new(judged, capsys):
    database, original, dataset = judged
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", dataset,
                             "--only-new")
    assert code == 0, err
    # every pair judged, its latest grade, in the order of those latest judgments, grouped by
    # query (q3's came before q2's)
    assert out == "q1 0 d2 2\nq1 0 d5 0\nq1 0 d3 0\nq1 0 d4 1\nq3 0 y 0\nq2 0 x 2\n"
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", original,
                             "--only-new", "--qrels", original)
    assert code == 0, err
    # with the original: what adds to it or changes it (q2 x 2 was already so)
    assert out == "q1 0 d2 2\nq1 0 d5 0\nq1 0 d3 0\nq1 0 d4 1\nq3 0 y 0\n"


def test_export_one_judge(judged, capsys):
    database, original, dataset = judged
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", dataset,
                             "--judge", "ann")
    assert code == 0, err
    assert out == "q1 0 d3 1\nq1 0 d2 2\nq1 0 d4 1\nq2 0 x 2\n"
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", dataset,
                             "--judge", "bob", "--qrels", original)
    assert code == 0, err
    assert out == "q1 0 d1 1\nq1 0 d2 0\nq1 0 d5 0\nq1 0 d3 0\nq2 0 x 2\nq3 0 y 0\n"


def test_export_from_postgres(postgres_url, tmp_path, capsys):
    dataset = "c" * 64
    with JudgmentStore(postgres_url) as store:
        store.add(Judgment(dataset, "q1", "d1", 1, "ann", "p"))
        store.add(Judgment(dataset, "q1", "d1", 0, "bob", "p"))
        store.add(Judgment(dataset, "q2", "d7", 2, "ann", "p"))
    code, out, err = run_cli(capsys, "judgments", "export", postgres_url, "--dataset", dataset,
                             "--only-new")
    assert code == 0, err
    assert out == "q1 0 d1 0\nq2 0 d7 2\n"


def test_export_warns_when_the_original_is_another_file(judged, tmp_path, capsys):
    database, _, dataset = judged
    other = tmp_path / "other.qrels"
    other.write_text("q1 0 d1 0\n")
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", dataset,
                             "--qrels", other)
    assert code == 0
    assert err.startswith("warning: ") and "other.qrels is not the file of dataset" in err
    assert len(err.splitlines()) == 1
    assert out.startswith("q1 0 d1 0\nq1 0 d2 2\n")


@pytest.mark.parametrize("args,message", [
    (["DB", "--dataset", "0" * 64, "--only-new"], "has no judgments of dataset 000"),
    (["DB", "--dataset", "DATASET", "--judge", "carl"], "judge 'carl' has no judgments"),
    (["DB", "--dataset", "DATASET"], "say what to export: --qrels ORIGINAL"),
    (["missing.db", "--dataset", "DATASET", "--only-new"], "no such judgments database"),
    (["DB", "--only-new"], "the following arguments are required: --dataset"),
    (["DB", "--dataset", "DATASET", "--qrels", "missing.qrels"], "missing.qrels"),
    (["mysql://x@127.0.0.1/db", "--dataset", "DATASET", "--only-new"],
     "a file (SQLite) or a postgresql:// URL"),
    (["postgresql://ann:secret@127.0.0.1:1/none", "--dataset", "DATASET", "--only-new"],
     "cannot open the judgments database postgresql://ann:***@127.0.0.1:1/none"),
])
def test_export_bad_input_one_line_exit_2(judged, tmp_path, capsys, args, message):
    database, _, dataset = judged
    args = [database if a == "DB" else dataset if a == "DATASET" else
            tmp_path / a if a.startswith("missing") else a for a in args]
    code, out, err = run_cli(capsys, "judgments", "export", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err
    assert "secret" not in err


def test_export_of_an_id_with_white_space_is_refused(tmp_path, capsys):
    database = tmp_path / "j.db"
    with JudgmentStore(str(database)) as store:
        store.add(Judgment("d" * 64, "q1", "my song", 1, "ann", "p"))
    code, out, err = run_cli(capsys, "judgments", "export", database, "--dataset", "d" * 64,
                             "--only-new")
    assert code == 2 and out == "" and len(err.splitlines()) == 1
    assert "item id 'my song' has white space" in err
