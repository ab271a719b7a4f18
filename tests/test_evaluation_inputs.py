"""One way from files to judged rankings: the command line and the Data page each describe their
files as :class:`~metrics.ranking.inputs.EvaluationInputs`, and
:func:`~metrics.ranking.pipelines.judge_inputs` judges them; the same files give the same judged
rankings whichever door they came in by."""

from __future__ import annotations

from pathlib import Path

import numpy as np
import pytest

import dashboard.datasets as datasets
import metrics.cli.commands as commands
from dashboard.settings import DataSource
from dashboard.uploads import UPLOADS
from metrics import InputError
from metrics.data.ties import TiePolicy
from metrics.evaluation.evaluate import evaluate
from metrics.measures.names import parse_measures
from metrics.ranking.inputs import KINDS, EvaluationInputs
from metrics.ranking.pipelines import judge_inputs, renamed
from uploads import judge_upload

S = Path(__file__).resolve().parents[1] / "sample_data"
MEASURES = parse_measures(["AP", "P@10", "nDCG@10", "RR"])


def test_the_form_offers_every_kind_the_engine_reads_with_its_roles_in_order():
    assert {kind: tuple(r.role for r in upload.roles) for kind, upload in UPLOADS.items()} \
        == KINDS


@pytest.fixture
def calls(monkeypatch):
    """Every call of the one function from the command line and from the Data page:
    (door, inputs, judged rankings)."""
    seen = []

    def spy(door):
        def judged(inputs, *args, **kwargs):
            out = judge_inputs(inputs, *args, **kwargs)
            seen.append((door, inputs, out.systems))
            return out
        return judged

    monkeypatch.setattr(commands, "judge_inputs", spy("cli"))
    monkeypatch.setattr(datasets, "judge_inputs", spy("app"))
    return seen


# (command line, the same files uploaded as (role, path), kind)
DOORS = [
    (["compare", "versions/baseline.run", "versions/cqt_net.run", "versions/qrels.txt"],
     [("runs", "versions/baseline.run"), ("runs", "versions/cqt_net.run"),
      ("qrels", "versions/qrels.txt")], "runs+qrels"),
    # instruments' runs are tagged as their files are named: the evaluate command's name, the
    # file's, is the Data page's, the tag's
    (["evaluate", "instruments/system_a.run", "instruments/annotations.csv",
      "--taxonomy", "instruments/taxonomy.csv"],
     [("runs", "instruments/system_a.run"), ("taxonomy", "instruments/taxonomy.csv"),
      ("annotations", "instruments/annotations.csv")], "runs+taxonomy"),
    (["evaluate-matrix", "covers/system_b.npy", "covers/labels.csv", "--ties", "optimistic"],
     [("matrices", "covers/system_b.npy"), ("labels", "covers/labels.csv")],
     "matrices+labels"),
    (["evaluate-embeddings", "text2music/model_a_queries.npy", "text2music/query_ids.txt",
      "text2music/model_a_items.npy", "text2music/item_ids.txt", "text2music/qrels.csv",
      "--similarity", "dot"],
     [("query_embeddings", "text2music/model_a_queries.npy"),
      ("query_ids", "text2music/query_ids.txt"),
      ("item_embeddings", "text2music/model_a_items.npy"),
      ("item_ids", "text2music/item_ids.txt"), ("qrels", "text2music/qrels.csv")],
     "embeddings+qrels"),
]


@pytest.mark.parametrize("argv, files, kind", DOORS, ids=[d[2] for d in DOORS])
def test_the_command_line_and_the_data_page_judge_the_same_files_alike(calls, capsys, argv,
                                                                      files, kind):
    options = {"ties": TiePolicy.OPTIMISTIC if "optimistic" in argv else TiePolicy.STABLE,
               "similarity": "dot" if "dot" in argv else "cosine"}
    cli_argv = [str(S / a) if "/" in a else a for a in argv] + ["-m", "AP"]
    assert commands.run(cli_argv) == 0
    capsys.readouterr()
    upload = DataSource.of_upload(kind, tuple((role, Path(p).name, (S / p).read_bytes())
                                              for role, p in files),
                                  similarity=options["similarity"])
    app_judged = datasets.load_source(upload, options["ties"])

    # each door described the files to the one function, and nothing judged them another way
    assert [door for door, _, _ in calls] == ["cli", "app"]
    (_, cli, cli_systems), (_, app, app_systems) = calls
    for inputs in (cli, app):
        assert (inputs.kind, inputs.ties, inputs.similarity) == (kind, options["ties"],
                                                                 options["similarity"])
    assert [(role, Path(name).name) for role, name, _ in cli.files] == \
        [(role, name) for role, name, _ in app.files]
    assert [(role, Path(name).name) for role, name, _ in cli.files] == \
        [(role, Path(path).name) for role, path in files]
    assert app_systems.keys() == app_judged.keys()

    # the same systems, judged alike (the command line keeps no full lists: what they judge is
    # compared, through the measures). The evaluate commands call a system by its file
    # (model_a_queries), the Data page an embedding model by its name (model_a).
    assert len(cli_systems) == len(app_systems)
    for a, b in zip(cli_systems.values(), app_systems.values()):
        assert a.name == (Path(files[0][1]).stem if argv[0].startswith("evaluate") else b.name)
        assert a.query_ids.tolist() == b.query_ids.tolist()
        assert renamed(a, b.name).warnings == b.warnings
        got, expected = evaluate(a, MEASURES), evaluate(b, MEASURES)
        for measure in got.results:
            np.testing.assert_array_equal(got.results[measure].values,
                                          expected.results[measure].values)


def test_a_path_given_twice_is_refused_but_content_uploaded_twice_is_two_systems(tmp_path):
    run = (S / "versions/baseline.run").read_bytes()
    qrels = S / "versions/qrels.txt"
    twice = judge_upload("runs+qrels", {"runs": [("a.run", run), ("a.run", run)],
                                        "qrels": [("qrels.txt", qrels.read_bytes())]})
    assert list(twice) == ["a.run", "a.run (2)"]   # one tag, one file name: numbered
    path = str(S / "versions/baseline.run")
    with pytest.raises(InputError, match="is given twice; give each run once"):
        judge_inputs(EvaluationInputs("runs+qrels", (("runs", path, path), ("runs", path, path),
                                                     ("qrels", str(qrels), qrels))))


def test_the_qrels_role_reads_a_labels_file_in_every_kind():
    """"Qrels" is one role with one reading: qrels, or clique labels (as the command line's
    ground truth always was); with labels, each item is a query whose relevant items share its
    label."""
    run = b"a Q0 b 1 0.9 s\na Q0 c 2 0.5 s\n"
    labels = b"item_id,label\na,x\nb,x\nc,y\n"
    (judged,) = judge_upload("runs+qrels", {"runs": [("s.run", run)],
                                            "qrels": [("labels.csv", labels)]}).values()
    # by hand: a's clique is {a, b}: b, ranked first, is its only relevant item (AP 1); b's
    # relevant item a is not retrieved (AP 0); c's clique is c alone (no relevant item)
    assert judged.hit_ranks.tolist() == [1]
    assert judged.query_ids.tolist() == ["a", "b", "c"]
    np.testing.assert_array_equal(
        evaluate(judged, parse_measures(["AP"])).results["AP"].values, [1.0, 0.0, np.nan])


def test_an_unknown_kind_is_named_with_the_known_ones():
    with pytest.raises(InputError, match="unknown kind of upload 'runs'; use one of "
                                         "runs\\+qrels, runs\\+labels"):
        EvaluationInputs("runs", ())
