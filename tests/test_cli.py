"""The command line contract: output formats, exit status 2 and one stderr line on bad input."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]


def cli(*args, cwd=ROOT):
    done = subprocess.run([sys.executable, "-m", "metrics", *map(str, args)], cwd=cwd,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def files(tmp_path):
    # FMP's first toy example, as TREC files
    scores = [8, 52, 22, 10, 12, 34, 11, 27, 72, 18]
    run = tmp_path / "toy.run"
    run.write_text("".join(f"Q Q0 {i} 0 {s} fmp\n" for i, s in enumerate(scores, start=1)))
    qrels = tmp_path / "toy.qrels"
    qrels.write_text("".join(f"Q 0 {i} {int(i in (2, 7, 8, 9))}\n" for i in range(1, 11)))
    return run, qrels


def test_json_output(files):
    code, out, err = cli("evaluate", *files, "--measures", "AP,BEP,Fmax,P@5", "--format", "json",
                         "--per-query")
    assert code == 0, err
    data = json.loads(out)
    assert data["measures"] == ["AP", "BEP", "Fmax", "P@5"]
    assert data["aggregate"]["AP"] == pytest.approx(0.8125)
    assert data["aggregate"]["BEP"] == pytest.approx(0.75)
    assert data["aggregate"]["Fmax"] == pytest.approx(0.75)
    assert data["per_query"]["Q"]["P@5"] == pytest.approx(0.6)
    assert data["warnings"] == []


def test_undefined_is_null_in_json(tmp_path, files):
    run, _ = files
    qrels = tmp_path / "none.qrels"
    qrels.write_text("Q 0 1 0\nR 0 1 1\n")
    code, out, _ = cli("evaluate", run, qrels, "-m", "AP,FirstRank", "-f", "json", "--per-query")
    data = json.loads(out)
    assert code == 0
    assert data["per_query"]["Q"] == {"AP": None, "FirstRank": None}
    assert data["per_query"]["R"] == {"AP": 0.0, "FirstRank": None}
    assert "NaN" not in out and any("no relevant item" in w for w in data["warnings"])


def test_table_and_csv(files):
    code, out, _ = cli("evaluate", *files, "-m", "AP,DCG(form=jarvelin,base=e)@10")
    assert code == 0 and "0.8125" in out and "DCG(form=jarvelin,base=e)@10" in out
    code, out, _ = cli("evaluate", *files, "-m", "AP,P@5", "-f", "csv", "--per-query")
    rows = list(csv.reader(io.StringIO(out)))
    assert rows[0] == ["query_id", "AP", "P@5"]
    assert rows[1][0] == "Q" and float(rows[1][1]) == pytest.approx(0.8125)
    assert rows[-1][0] == "all (mean)"


def test_collection_size_and_ties(files):
    code, out, _ = cli("evaluate", *files, "-m", "TN@4,Specificity@4", "-f", "json",
                       "--collection-size", "100", "--ties", "trec")
    data = json.loads(out)
    assert data["aggregate"]["TN@4"] == 100 - 4 - 1       # |D| − k − FN, FN = 4 − 3
    assert data["aggregate"]["Specificity@4"] == pytest.approx(95 / 96)


@pytest.mark.parametrize("args,words", [
    (["-m", "AP,Bogus@3"], "unknown measure 'Bogus'"),
    (["-m", "TN@5"], "needs the collection size"),
    (["-m", "AP", "--ties", "random"], "invalid choice"),
    (["-m", "AP", "--collection-size", "x"], "not a whole number"),
    (["-m", "P(@5"], "unbalanced"),
])
def test_bad_arguments_exit_2_with_one_line(files, args, words):
    code, out, err = cli("evaluate", *files, *args)
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err, err


def test_bad_file_names_file_and_line(tmp_path, files):
    run, qrels = files
    bad = tmp_path / "bad.run"
    bad.write_text(run.read_text() + "Q Q0 11 0 oops fmp\n")
    code, out, err = cli("evaluate", bad, qrels)
    assert code == 2 and err.count("\n") == 1
    assert f"{bad}, line 11, column 'score': score 'oops' is not a number" in err
    code, _, err = cli("evaluate", tmp_path / "missing.run", qrels)
    assert code == 2 and "file not found" in err


def test_run_and_truth_load_together_but_report_in_order(tmp_path, files):
    # the ground truth is read in a worker thread while the run is read: when both are bad, the
    # ground truth's error is still the one reported, as when they were read one after the other
    run, qrels = files
    bad_run = tmp_path / "bad.run"
    bad_run.write_text("Q Q0 1 0 oops fmp\n")
    bad_qrels = tmp_path / "bad.qrels"
    bad_qrels.write_text("Q 0 1 x\n")
    code, _, err = cli("evaluate", bad_run, bad_qrels)
    assert code == 2 and err.count("\n") == 1 and str(bad_qrels) in err, err
    code, _, err = cli("evaluate", bad_run, qrels)
    assert code == 2 and str(bad_run) in err, err
    code, _, err = cli("evaluate", run, bad_qrels)
    assert code == 2 and str(bad_qrels) in err, err


def test_warnings_go_to_stderr_in_table_mode(tmp_path, files):
    run, qrels = files
    dup = tmp_path / "dup.run"
    dup.write_text(run.read_text() + "Q Q0 1 0 99 fmp\n")
    code, out, err = cli("evaluate", dup, qrels, "-m", "AP")
    assert code == 0 and "warning:" in err and "duplicated" in err


def test_evaluate_matrix(tmp_path):
    scores = np.array([[1, .9, .1, .2], [.9, 1, .3, .1], [.1, .3, 1, .8], [.2, .1, .8, 1]])
    np.save(tmp_path / "sim.npy", scores)
    np.save(tmp_path / "dist.npy", 1 - scores)
    (tmp_path / "labels.csv").write_text("item_id,label\na,x\nb,x\nc,y\nd,y\n")
    code, out, err = cli("evaluate-matrix", tmp_path / "sim.npy", tmp_path / "labels.csv",
                         "-m", "AP,FirstRank,P@1", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["aggregate"] == {"AP": 1.0, "FirstRank": 1.0, "P@1": 1.0}
    code, out, _ = cli("evaluate-matrix", tmp_path / "dist.npy", tmp_path / "labels.csv",
                       "-m", "AP", "-f", "json", "--distance")
    assert json.loads(out)["aggregate"]["AP"] == 1.0
    (tmp_path / "short.csv").write_text("item_id,label\na,x\nb,x\n")
    code, _, err = cli("evaluate-matrix", tmp_path / "sim.npy", tmp_path / "short.csv")
    assert code == 2 and "lists 2 ids but" in err


def test_evaluate_embeddings(tmp_path):
    np.save(tmp_path / "q.npy", np.array([[1.0, 0.0], [0.0, 1.0]]))
    np.save(tmp_path / "d.npy", np.array([[0.9, 0.1], [0.1, 0.9], [0.7, 0.7]]))
    (tmp_path / "qids.txt").write_text("q1\nq2\n")
    (tmp_path / "dids.txt").write_text("d1\nd2\nd3\n")
    (tmp_path / "qrels.csv").write_text("query_id,item_id,relevance\nq1,d1,1\nq2,d3,1\n")
    code, out, err = cli("evaluate-embeddings", tmp_path / "q.npy", tmp_path / "qids.txt",
                         tmp_path / "d.npy", tmp_path / "dids.txt", tmp_path / "qrels.csv",
                         "-m", "RR", "-f", "json", "--per-query")
    assert code == 0, err
    assert json.loads(out)["per_query"] == {"q1": {"RR": 1.0}, "q2": {"RR": 0.5}}
    np.save(tmp_path / "d3.npy", np.ones((3, 3)))
    code, _, err = cli("evaluate-embeddings", tmp_path / "q.npy", tmp_path / "qids.txt",
                       tmp_path / "d3.npy", tmp_path / "dids.txt", tmp_path / "qrels.csv")
    assert code == 2 and "dimension 2" in err


def test_compare_json(tmp_path, files):
    run, qrels = files
    better = tmp_path / "better.run"
    order = (2, 7, 8, 9, 1, 3, 4, 5, 6, 10)   # the relevant items first
    better.write_text("".join(f"Q Q0 {i} 0 {10 - r} x\n" for r, i in enumerate(order)))
    better.write_text(better.read_text() + "".join(f"R Q0 {i} 0 {i} x\n" for i in range(1, 4)))
    run.write_text(run.read_text() + "".join(f"R Q0 {i} 0 {-i} x\n" for i in range(1, 4)))
    qrels.write_text(qrels.read_text() + "R 0 3 1\n")
    code, out, err = cli("compare", run, better, qrels, "-m", "AP,P@5", "-f", "json",
                         "--test", "t", "--test", "randomization", "--resamples", "200")
    assert code == 0, err
    data = json.loads(out)
    assert data["systems"] == ["toy", "better"]
    assert data["aggregate"]["better"]["AP"] == 1.0
    assert len(data["tests"]) == 2 * 2
    first = data["tests"][0]
    assert set(first) == {"measure", "a", "b", "test", "statistic", "p", "p_holm", "mean_diff",
                          "ci", "effect_size", "n", "wins", "ties", "losses", "seed"}
    assert first["mean_diff"] == pytest.approx(((1 - 0.8125) + (1 - 1 / 3)) / 2)
    assert (first["wins"], first["ties"], first["losses"], first["n"]) == (2, 0, 0, 2)


def test_compare_needs_two_runs(files):
    code, _, err = cli("compare", *files)
    assert code == 2 and "at least two runs" in err


def test_readme_measure_table_is_in_sync():
    code, out, _ = cli("measures", "--format", "markdown")
    assert code == 0
    readme = (ROOT / "README.md").read_text()
    assert out.strip() in readme


def test_readme_example_output_is_true():
    code, out, _ = cli("evaluate", "sample_data/fmp/toy1.run", "sample_data/fmp/toy1.qrels",
                       "--measures", "AP,BEP,Fmax")
    assert code == 0
    assert out.strip() in (ROOT / "README.md").read_text()
