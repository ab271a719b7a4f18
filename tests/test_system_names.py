"""System names (issue 32, part 3): a run's tag, else its file's name; names never collide, in
the engine's upload, the command line's compare and several embedding models at once."""

import io
import json

import numpy as np
import pandas as pd
import pytest

from metrics.cli import main
from metrics.errors import InputError
from metrics.loaders import load_run
from metrics.loaders.runs import system_names
from uploads import judge_upload

QRELS = b"q1 0 d1 1\nq1 0 d2 0\n"


def trec(tags, items=("d1", "d2")) -> bytes:
    return "".join(f"q1 Q0 {d} {i + 1} {1 - i / 10} {t}\n"
                   for i, (d, t) in enumerate(zip(items, tags))).encode()


def npy(array) -> bytes:
    out = io.BytesIO()
    np.save(out, np.asarray(array, dtype=np.float64))
    return out.getvalue()


# ---- the tag ----------------------------------------------------------------------------------

@pytest.mark.parametrize("content, tag", [
    (trec(["bm25", "bm25"]), "bm25"),                    # the fast reader
    (trec(["bm25", "bm25"]).rstrip(b"\n"), "bm25"),      # no line end at the end
    (trec(["bm25", "bm25"]).replace(b" ", b"\t"), "bm25"),
    (b"# comment\n" + trec(["bm25", "bm25"]), "bm25"),   # the careful reader
    (trec(["tag", "tag"]), "tag"),                       # a tag named "tag" is no header
    (trec(["bm25", "bm25x"]), None),                     # two tags: no tag
    (trec(["xbm25", "bm25"]), None),
    (b"# comment\n" + trec(["a", "b"]), None),
])
def test_a_trec_run_has_a_tag_when_every_line_has_the_same_one(content, tag):
    run = load_run(content, "sys.run")
    assert run.tag == tag and run.name == "sys"
    assert run.system_name == (tag or "sys")
    assert run.item_ids.tolist() == ["d1", "d2"]


def test_csv_and_parquet_tag_or_run_id_column(tmp_path):
    assert load_run(b"query_id,item_id,score,tag\nq1,d1,1,a\nq1,d2,0.5,a\n", "x.csv").tag == "a"
    assert load_run(b"query_id,item_id,score,run_id\nq1,d1,1,a\nq1,d2,0.5,b\n",
                    "x.csv").tag is None
    assert load_run(b"query_id,item_id,score\nq1,d1,1\n", "x.csv").tag is None
    frame = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"],
                          "score": [1.0, 0.5], "run_id": ["dense", "dense"]})
    frame.to_parquet(tmp_path / "p.parquet")
    run = load_run(tmp_path / "p.parquet")
    assert (run.tag, run.name, run.system_name) == ("dense", "p", "dense")


# ---- the rule ---------------------------------------------------------------------------------

@pytest.mark.parametrize("systems, expected", [
    ([("bm25", "a.run"), ("dense", "b.run")], ["bm25", "dense"]),
    ([("run", "run"), ("run", "run.trec")], ["run", "run.trec"]),
    ([("run", "a/run.trec"), ("run", "b/run.trec"), ("x", "x")],
     ["a/run.trec", "b/run.trec", "x"]),
    ([("run", "run"), ("run", "run"), ("run", "run")], ["run", "run (2)", "run (3)"]),
    # a file name that another system already has as its name moves that one too
    ([("run.trec", "x.trec"), ("run", "run"), ("run", "run.trec")],
     ["x.trec", "run", "run.trec"]),
    # issue 40, defect 15: two runs of one tag are named by their files without the extension,
    # and only when those collide too by the files' names, then by the paths
    ([("sys", "alpha.run"), ("sys", "beta.run")], ["alpha", "beta"]),
    ([("sys", "a/alpha.run"), ("sys", "b/beta.run.gz"), ("bm25", "c.run")],
     ["alpha", "beta", "bm25"]),
    ([("sys", "alpha.run"), ("sys", "alpha.trec")], ["alpha.run", "alpha.trec"]),
    ([("sys", "a/alpha.run"), ("sys", "b/alpha.run")], ["a/alpha.run", "b/alpha.run"]),
    # a numbered name is never one that a system already has
    ([("a", "a"), ("a", "a"), ("a (2)", "f")], ["a", "a (3)", "a (2)"]),
])
def test_names_never_collide(systems, expected):
    assert system_names(systems) == expected


def test_an_upload_of_run_and_run_trec_gives_two_systems():
    files = {"qrels": [("qrels", QRELS)],
             "runs": [("run", trec(["a", "b"])), ("run.trec", trec(["a", "b"], ("d2", "d1"))),
                      ("other.txt", trec(["bm25", "bm25"]))]}
    judged = judge_upload("runs+qrels", files)
    assert list(judged) == ["run", "run.trec", "bm25"]
    assert [j.name for j in judged.values()] == ["run", "run.trec", "bm25"]
    # d1 (relevant) ranked first by "run", second by "run.trec"
    assert judged["run"].hit_grades.tolist() == [1, 0]
    assert judged["run.trec"].hit_grades.tolist() == [0, 1]


def test_an_upload_of_two_runs_of_one_tag_names_them_by_their_files():
    files = {"qrels": [("qrels", QRELS)],
             "runs": [("alpha.run", trec(["sys", "sys"])),
                      ("beta.run", trec(["sys", "sys"], ("d2", "d1")))]}
    judged = judge_upload("runs+qrels", files)
    assert list(judged) == ["alpha", "beta"]
    assert judged["alpha"].hit_grades.tolist() == [1, 0]   # alpha ranks d1 (relevant) first


def test_warnings_name_the_system_by_its_final_name():
    files = {"qrels": [("qrels", QRELS)],
             "runs": [("run", trec(["a", "b"]) + b"q9 Q0 d1 1 1 a\n"),
                      ("run.trec", trec(["a", "b"]))]}
    warnings = judge_upload("runs+qrels", files)["run"].warnings
    assert any(w.startswith("run: 1 run quer") for w in warnings), warnings
    warnings = judge_upload("runs+qrels", {**files, "runs": files["runs"][:1] * 2})
    assert list(warnings) == ["run", "run (2)"]
    assert any(w.startswith("run (2): 1 run quer") for w in warnings["run (2)"].warnings)


def test_matrices_of_one_name_are_told_apart():
    labels = [("labels.csv", b"item_id,label\na,1\nb,1\nc,2\n")]
    judged = judge_upload("matrices+labels", {"labels": labels, "matrices": [
        ("m.npy", npy(np.eye(3))), ("m.npy.gz", npy(np.eye(3)))]})
    assert list(judged) == ["m.npy", "m.npy.gz"]


# ---- several embedding models ------------------------------------------------------------------

def embedding_files(queries: dict, items: dict) -> dict:
    return {"qrels": [("qrels.csv", b"query_id,item_id,relevance\nq1,d1,1\nq2,d2,1\n")],
            "query_ids": [("query_ids.txt", b"q1\nq2\n")],
            "item_ids": [("item_ids.txt", b"d1\nd2\n")],
            "query_embeddings": [(n, npy(a)) for n, a in queries.items()],
            "item_embeddings": [(n, npy(a)) for n, a in items.items()]}


def test_several_embedding_models_are_paired_by_name():
    eye, swapped = np.eye(2), np.eye(2)[::-1]
    judged = judge_upload("embeddings+qrels", embedding_files(
        {"good_queries.npy": eye, "bad_queries.npy": eye},
        {"bad_items.npy": swapped, "good_items.npy": eye}))
    # by hand: "good" ranks each query's relevant item first, "bad" second
    assert {m: j.hit_ranks.tolist() for m, j in judged.items()} == {"good": [1, 1],
                                                                    "bad": [2, 2]}
    one = judge_upload("embeddings+qrels", embedding_files({"clap_queries.npy": eye},
                                                           {"clap_items.npy": eye}))
    assert list(one) == ["clap"]
    any_names = judge_upload("embeddings+qrels", embedding_files({"q.npy": eye}, {"i.npy": eye}))
    assert list(any_names) == ["q"]


@pytest.mark.parametrize("queries, items, message", [
    (["a_queries.npy", "b_queries.npy"], ["a_items.npy"],
     "b_queries.npy: has no items file of its model: expected b_items.npy"),
    (["a_queries.npy"], ["a_items.npy", "b_items.npy"],
     "b_items.npy: has no queries file of its model: expected b_queries.npy"),
    (["a_queries.npy", "b.npy"], ["a_items.npy", "b_items.npy"],
     "b.npy: with several embedding models each file is named MODEL_queries.npy"),
    (["a_queries.npy", "a_queries.npy.gz"], ["a_items.npy", "b_items.npy"],
     "model 'a' has two files of queries: a_queries.npy and a_queries.npy.gz"),
])
def test_unpaired_embedding_files_are_refused_by_name(queries, items, message):
    eye = np.eye(2)
    with pytest.raises(InputError) as caught:
        judge_upload("embeddings+qrels", embedding_files(dict.fromkeys(queries, eye),
                                                         dict.fromkeys(items, eye)))
    assert message in str(caught.value)


# ---- the command line -------------------------------------------------------------------------

def test_compare_names_run_and_run_trec_apart(tmp_path, capsys):
    (tmp_path / "a").mkdir(), (tmp_path / "b").mkdir()
    (tmp_path / "a" / "run").write_bytes(trec(["x", "y"]))
    (tmp_path / "b" / "run.trec").write_bytes(trec(["x", "y"], ("d2", "d1")))
    (tmp_path / "c.run").write_bytes(trec(["bm25", "bm25"]))
    (tmp_path / "qrels").write_bytes(QRELS)
    code = main(["compare", str(tmp_path / "a" / "run"), str(tmp_path / "b" / "run.trec"),
                 str(tmp_path / "c.run"), str(tmp_path / "qrels"), "--measures", "AP",
                 "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["systems"] == ["run", "run.trec", "bm25"]
    assert out["aggregate"]["run"]["AP"] == 1.0 and out["aggregate"]["run.trec"]["AP"] == 0.5


def test_compare_names_two_runs_of_one_tag_by_their_files(tmp_path, capsys):
    (tmp_path / "alpha.run").write_bytes(trec(["sys", "sys"]))
    (tmp_path / "beta.run").write_bytes(trec(["sys", "sys"], ("d2", "d1")))
    (tmp_path / "qrels").write_bytes(QRELS)
    code = main(["compare", str(tmp_path / "alpha.run"), str(tmp_path / "beta.run"),
                 str(tmp_path / "qrels"), "--measures", "AP", "--format", "json"])
    out = json.loads(capsys.readouterr().out)
    assert code == 0 and out["systems"] == ["alpha", "beta"]
    # by hand: alpha has d1 (relevant) at rank 1, beta at rank 2
    assert out["aggregate"]["alpha"]["AP"] == 1.0 and out["aggregate"]["beta"]["AP"] == 0.5
