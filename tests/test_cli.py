"""The command line contract: output formats, exit status 2 and one stderr line on bad input."""

import csv
import io
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from oracles import holm_by_hand, paired_tukey_by_statsmodels

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
    (["-m", "AP,Bogus@3"], "unknown measure 'Bogus'; 'python -m metrics measures' lists"),
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


def test_run_and_truth_errors_reported_in_order(tmp_path, files):
    # the ground truth is read first (a run is judged against it as it is read): when both are
    # bad, the ground truth's error is the one reported
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


def test_collection_size_per_query_from_complete_qrels(tmp_path):
    fmp = ROOT / "sample_data" / "fmp"
    code, out, err = cli("evaluate", fmp / "toys.run", fmp / "toys.qrels", "-m", "TN@4,Accuracy@4",
                         "--collection-size", "judged", "-f", "json", "--per-query")
    assert code == 0, err
    # toy1: 10 documents, relevant at ranks 1, 2, 4, 8 -> TP 3, FP 1, FN 1, TN 10 − 4 − 1 = 5;
    # toy2: 8 documents, relevant at ranks 2, 3, 5, 6 -> TP 2, FP 2, FN 2, TN 8 − 4 − 2 = 2
    assert json.loads(out)["per_query"] == {"toy1": {"TN@4": 5.0, "Accuracy@4": 0.8},
                                            "toy2": {"TN@4": 2.0, "Accuracy@4": 0.5}}
    code, _, err = cli("evaluate", fmp / "toys.run", fmp / "toys.qrels", "-m", "TN@4")
    assert code == 2 and err.count("\n") == 1
    assert "TN@4 needs the collection size |D|" in err and "--collection-size" in err
    partial = tmp_path / "partial.qrels"
    partial.write_text("".join(line for line in (fmp / "toys.qrels").read_text().splitlines(True)
                               if line.split()[2] != "6"))
    code, _, err = cli("evaluate", fmp / "toys.run", partial, "-m", "TN@4",
                       "--collection-size", "judged")
    assert code == 2 and err.count("\n") == 1
    assert "query 'toy1' retrieves item '6', which the ground truth does not judge" in err


def test_collection_size_judged_is_refused_for_embeddings(tmp_path):
    np.save(tmp_path / "q.npy", np.array([[1.0, 0.0]]))
    np.save(tmp_path / "d.npy", np.array([[0.9, 0.1], [0.1, 0.9]]))
    (tmp_path / "qids.txt").write_text("q1\n")
    (tmp_path / "dids.txt").write_text("d1\nd2\n")
    (tmp_path / "qrels.csv").write_text("query_id,item_id,relevance\nq1,d1,1\nq1,d2,0\n")
    code, _, err = cli("evaluate-embeddings", tmp_path / "q.npy", tmp_path / "qids.txt",
                       tmp_path / "d.npy", tmp_path / "dids.txt", tmp_path / "qrels.csv",
                       "-m", "TN@1", "--collection-size", "judged")
    assert code == 2 and "'judged' is for runs" in err


def test_compare_json(tmp_path, files):
    run, qrels = files
    better = tmp_path / "better.run"
    order = (2, 7, 8, 9, 1, 3, 4, 5, 6, 10)   # the relevant items first
    better.write_text("".join(f"Q Q0 {i} 0 {10 - r} better\n" for r, i in enumerate(order)))
    better.write_text(better.read_text() + "".join(f"R Q0 {i} 0 {i} better\n"
                                                 for i in range(1, 4)))
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
                          "ci", "effect_size", "n", "wins", "ties", "losses", "seed",
                          "undefined"}
    assert first["mean_diff"] == pytest.approx(((1 - 0.8125) + (1 - 1 / 3)) / 2)
    assert (first["wins"], first["ties"], first["losses"], first["n"]) == (2, 0, 0, 2)


def test_compare_needs_two_runs(files):
    code, _, err = cli("compare", *files)
    assert code == 2 and "at least two runs" in err


def test_readme_example_output_is_true():
    code, out, _ = cli("evaluate", "sample_data/fmp/toy1.run", "sample_data/fmp/toy1.qrels",
                       "--measures", "AP,BEP,Fmax")
    assert code == 0
    assert out.strip() in (ROOT / "README.md").read_text()


# ---- trec_eval's language (issue 14, items 5 and 6) ---------------------------------------------

@pytest.fixture
def trec_files(tmp_path):
    """Three queries, each with a relevant item, named so that strcmp order (q1, q10, q2) differs
    from the file's order."""
    qrels = tmp_path / "t.qrels"
    qrels.write_text("q1 0 d1 1\nq1 0 d2 0\nq1 0 d3 1\nq10 0 d1 1\nq2 0 d9 1\n")
    run = tmp_path / "t.run"
    run.write_text("q2 Q0 d9 1 5 r\nq1 Q0 d1 1 3 r\nq1 Q0 d2 2 2 r\nq1 Q0 d5 3 1 r\n"
                   "q10 Q0 d3 1 5 r\n")
    return run, qrels


def _trec_line(name, query, value, count=False):
    # trec_eval's printf formats: "%-22s\t%s\t%6.4f" and, for counts, "%-22s\t%s\t%ld"
    return f"{name:<22}\t{query}\t{value:d}" if count else f"{name:<22}\t{query}\t{value:6.4f}"


def test_trec_format_is_what_trec_eval_q_prints(trec_files):
    code, out, err = cli("evaluate", *trec_files, "-m", "num_ret,num_rel,num_rel_ret,map,P_2",
                         "-f", "trec", "--per-query")
    assert code == 0, err
    # by hand: q1 retrieves d1 (rel), d2, d5 with R = 2: AP = (1/1)/2, P@2 = 1/2;
    # q10 retrieves d3 (not judged for q10) with R = 1; q2 retrieves d9 (rel) with R = 1
    per_query = {"q1": (3, 2, 1, 0.5, 0.5), "q10": (1, 1, 0, 0.0, 0.0), "q2": (1, 1, 1, 1.0, 0.5)}
    names = ["num_ret", "num_rel", "num_rel_ret", "map", "P_2"]
    expected = []
    for q in ("q1", "q10", "q2"):                       # strcmp order
        expected += [_trec_line(n, q, v, n.startswith("num")) for n, v in zip(names, per_query[q])]
    sums = [sum(per_query[q][i] for q in per_query) for i in range(3)]
    means = [sum(per_query[q][i] for q in per_query) / 3 for i in (3, 4)]
    expected += [_trec_line(n, "all", v, True) for n, v in zip(names[:3], sums)]
    expected += [_trec_line(n, "all", v) for n, v in zip(names[3:], means)]
    assert out.splitlines() == expected
    code, out, _ = cli("evaluate", *trec_files, "-m", "num_ret,map", "-f", "trec")
    assert out.splitlines() == [_trec_line("num_ret", "all", 5, True),
                                _trec_line("map", "all", 0.5)]


def test_trec_format_prints_iprec_infap_and_rbp_under_the_names_given(trec_files):
    code, out, err = cli("evaluate", *trec_files, "-m", "iprec_at_recall_0.10,infAP,RBP(p=0.8)",
                         "-f", "trec", "--per-query")
    assert code == 0, err
    # by hand: q1 retrieves d1 (rel), d2 (judged not rel), d5 (unjudged), R = 2: IPrec at 0.1
    # needs ⌊0.2 + 0.9⌋ = 1 relevant item, P(1) = 1; infAP = 1/2; RBP = 0.2·0.8⁰. q10: nothing
    # relevant retrieved, all 0. q2: d9 (rel) first, R = 1: 1, 1, 0.2.
    per_query = {"q1": (1.0, 0.5, 0.2), "q10": (0.0, 0.0, 0.0), "q2": (1.0, 1.0, 0.2)}
    names = ["iprec_at_recall_0.10", "infAP", "RBP(p=0.8)"]
    expected = [_trec_line(n, q, v) for q in ("q1", "q10", "q2")
                for n, v in zip(names, per_query[q])]
    expected += [_trec_line(n, "all", sum(per_query[q][i] for q in per_query) / 3)
                 for i, n in enumerate(names)]
    assert out.splitlines() == expected


def test_trec_format_matches_the_trec_eval_binary(trec_files, trec_eval_binary):
    binary = trec_eval_binary   # built from tests/trec_eval_source once per session
    run, qrels = trec_files
    done = subprocess.run([binary, "-q", "-m", "num_ret", "-m", "num_rel", "-m", "num_rel_ret",
                           "-m", "map", "-m", "P.2", "-m", "ndcg_cut.10", str(qrels), str(run)],
                          capture_output=True, text=True, check=True)
    code, out, _ = cli("evaluate", run, qrels, "-m",
                       "num_ret,num_rel,num_rel_ret,map,P_2,ndcg_cut_10", "-f", "trec",
                       "--per-query", "--ties", "trec10")
    assert out == done.stdout   # byte for byte (the fixture's scores have no ties)


def test_trec_format_never_prints_nan(tmp_path, trec_files):
    run, _ = trec_files
    qrels = tmp_path / "some_empty.qrels"
    qrels.write_text("q1 0 d1 1\nq10 0 d1 0\nq2 0 d9 0\n")   # q10 and q2: no relevant item
    code, out, err = cli("evaluate", run, qrels, "-m", "map,num_rel", "-f", "trec", "--per-query")
    assert code == 0
    assert out.splitlines() == [
        _trec_line("map", "q1", 1.0), _trec_line("num_rel", "q1", 1, True),
        _trec_line("map", "all", 1.0), _trec_line("num_rel", "all", 1, True)]
    assert "nan" not in out.lower() and "no relevant item" in err


def test_counts_are_summed_in_every_format(trec_files):
    code, out, _ = cli("evaluate", *trec_files, "-m", "NumRel,num_ret,AP", "-f", "json")
    data = json.loads(out)
    assert data["aggregate"]["NumRel"] == 4 and data["aggregate"]["num_ret"] == 5
    assert data["aggregate"]["AP"] == pytest.approx(0.5)
    assert data["summed"] == ["NumRel", "num_ret"]
    code, out, _ = cli("evaluate", *trec_files, "-m", "NumRel,AP", "-f", "csv")
    assert list(csv.reader(io.StringIO(out)))[-1] == ["all (mean)", "4.0", "0.5"]
    code, out, _ = cli("evaluate", *trec_files, "-m", "NumRel,AP")
    assert "mean (counts: sum)" in out and out.splitlines()[2].split()[:2] == ["NumRel", "4"]


def test_aliases_are_printed_back_as_given(trec_files):
    code, out, err = cli("evaluate", *trec_files, "-m", "map,P.2,MRR@10,MAP@10,ndcg_cut_10",
                         "-f", "json", "--per-query")
    assert code == 0, err
    data = json.loads(out)
    assert data["measures"] == ["map", "P.2", "MRR@10", "MAP@10", "ndcg_cut_10"]
    assert list(data["per_query"]["q1"]) == data["measures"]
    assert data["aggregate"]["map"] == data["aggregate"]["MAP@10"] == pytest.approx(0.5)
    assert data["aggregate"]["MRR@10"] == pytest.approx(2 / 3)
    assert data["conventions"]["map"].startswith("norm=rq")
    assert any(w.startswith("MAP@10 is read as AP@10") for w in data["warnings"])


@pytest.mark.parametrize("name,words", [
    ("NDCG@10", "unknown measure 'NDCG' (did you mean nDCG@10, ndcg@10"),
    ("ndcg_cut10", "did you mean ndcg_cut_k"),
    ("IPrec@1.5", "recall level '1.5' is past 1"),
    ("iprec_at_recall_2",
     "iprec_at_recall_2 (= IPrec(rounding=trec10)@2): recall level '2' is past 1"),
])
def test_unknown_or_bad_name_is_one_line_with_a_hint(trec_files, name, words):
    code, out, err = cli("evaluate", *trec_files, "-m", f"AP,{name}")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and words in err


def test_measures_lists_every_alias():
    from metrics.measures.aliases import ALIASES
    code, out, _ = cli("measures")
    assert code == 0 and "map_cut_k, map_cut.k" in out and "MedianRank" in out
    code, out, _ = cli("measures", "--format", "json")
    data = json.loads(out)
    assert len(data["aliases"]) == len(ALIASES)
    listed = {a["alias"]: a for a in data["aliases"]}
    assert listed["map"]["means"] == "AP" and listed["map"]["source"] == "trec_eval"
    assert listed["mAP, mAP@k"]["means"] == "AP(norm=min), AP(norm=min)@k"
    assert listed["MR1"]["means"] == "FirstRank"
    assert {r["name"]: r["aggregate"] for r in data["measures"]}["NumRel"] == "sum"


def test_ties_options(trec_files):
    for ties in ("trec9", "trec10", "trec"):
        code, _, err = cli("evaluate", *trec_files, "-m", "AP", "--ties", ties)
        assert code == 0, err
    code, _, err = cli("evaluate", *trec_files, "-m", "AP", "--ties", "trec11")
    assert code == 2 and "invalid choice" in err


def test_compare_has_no_trec_format(trec_files):
    run, qrels = trec_files
    code, _, err = cli("compare", run, run, qrels, "-f", "trec")
    assert code == 2 and "--format trec is for evaluate" in err


def test_a_panic_in_a_file_reader_is_one_line_not_a_backtrace(monkeypatch, capsys):
    """pyo3 raises a Rust panic (polars, pyarrow) as a BaseException, which `except Exception`
    misses; it must still end as one line on stderr."""
    import metrics.cli as cli_module

    class PanicException(BaseException):   # what pyo3_runtime.PanicException derives from
        pass

    def panics(argv):
        raise PanicException("called `Result::unwrap()` on an `Err` value\nnote: backtrace")

    monkeypatch.setattr(cli_module, "run", panics)
    monkeypatch.delenv("METRICS_DEBUG", raising=False)
    assert cli_module.main(["evaluate", "x", "y"]) == 1
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "a file reader stopped (PanicException" in err
    with pytest.raises(KeyboardInterrupt):
        monkeypatch.setattr(cli_module, "run", lambda argv: (_ for _ in ()).throw(
            KeyboardInterrupt()))
        cli_module.main([])


# ---- many systems and power (issue 32) ---------------------------------------------------------

VERSIONS = ROOT / "sample_data" / "versions"
VERSION_RUNS = [VERSIONS / f"{s}.run" for s in ("baseline", "cqt_net", "cqt_net_aug",
                                                  "transformer")]


def pytrec_ap(run_path):
    """Per-query AP of a run on the versions sample, from pytrec_eval (the oracle)."""
    import pytrec_eval
    qrels, run = {}, {}
    for line in (VERSIONS / "qrels.txt").read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    for line in run_path.read_text().splitlines():
        q, _, d, _, score, _ = line.split()
        run.setdefault(q, {})[d] = float(score)
    ap = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return np.array([ap[q]["map"] for q in sorted(qrels)])


@pytest.mark.parametrize("correction", ["holm", "bh", "tukey"])
def test_compare_correction_matrix_agrees_with_scipy_on_pytrec_eval_values(correction):
    from scipy import stats
    code, out, err = cli("compare", *VERSION_RUNS, VERSIONS / "qrels.txt", "-m", "AP",
                         "--test", "t", "--correction", correction, "--baseline", "cqt_net",
                         "--ties", "trec9", "--format", "json")   # ties as pytrec_eval breaks them
    assert code == 0, err
    data = json.loads(out)
    ap = [pytrec_ap(p) for p in VERSION_RUNS]
    pairs = [(i, j) for i in range(4) for j in range(i + 1, 4)]
    if correction == "tukey":
        expected = paired_tukey_by_statsmodels(ap)
        got = np.array(data["matrix"]["AP"]["p_adjusted"])
        np.testing.assert_allclose(got, expected, rtol=1e-9)
    else:
        raw = np.array([stats.ttest_rel(ap[j], ap[i]).pvalue for i, j in pairs])
        if correction == "bh":
            adjusted = stats.false_discovery_control(raw)
        else:
            adjusted = holm_by_hand(raw)
        got = np.array([data["matrix"]["AP"]["p_adjusted"][i][j] for i, j in pairs])
        np.testing.assert_allclose(got, adjusted, rtol=1e-9)
    diff = np.array(data["matrix"]["AP"]["mean_diff"])
    assert diff[0][3] == pytest.approx(ap[3].mean() - ap[0].mean(), abs=1e-12)
    assert data["baseline"] == "cqt_net" and data["correction"] == correction
    best = [r["system"] for r in data["against"] if r["best"]]
    assert best == ["transformer"]


def test_compare_csv_keeps_its_numbers_whole():
    # the CSV is read by programs: each p is the number scipy gives (never the text table's
    # "< 1e-16" or its rounding), the mean difference the exact one
    from scipy import stats
    code, out, err = cli("compare", *VERSION_RUNS[:2], VERSIONS / "qrels.txt", "-m", "AP",
                         "--test", "t", "--ties", "trec9", "--format", "csv")
    assert code == 0, err
    rows = list(csv.DictReader(line for line in out.splitlines() if not line.startswith("#")))
    [row] = rows
    ap = [pytrec_ap(p) for p in VERSION_RUNS[:2]]
    assert float(row["p"]) == pytest.approx(stats.ttest_rel(ap[1], ap[0]).pvalue, rel=1e-12)
    assert float(row["B−A"]) == pytest.approx(ap[1].mean() - ap[0].mean(), abs=1e-15)


def test_compare_baseline_needs_a_correction_and_a_known_system():
    code, _, err = cli("compare", *VERSION_RUNS[:2], VERSIONS / "qrels.txt", "--baseline", "x")
    assert code == 2 and "--baseline goes with --correction" in err
    code, _, err = cli("compare", *VERSION_RUNS[:2], VERSIONS / "qrels.txt", "--correction",
                       "holm", "--baseline", "nope")
    assert code == 2 and "'nope' is not one of the systems" in err and err.count("\n") == 1


def test_power_command_reports_the_figures_of_the_two_runs():
    from metrics.evaluation.power import power_analysis
    code, out, err = cli("power", VERSION_RUNS[1], VERSION_RUNS[2], VERSIONS / "qrels.txt",
                         "--measure", "AP", "--delta", "0.02", "--ties", "trec9",
                         "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    a, b = pytrec_ap(VERSION_RUNS[1]), pytrec_ap(VERSION_RUNS[2])
    expected = power_analysis(a, b, 0.05, 0.8, 0.02)
    assert data["n"] == 60 and data["systems"] == ["cqt_net", "cqt_net_aug"]
    assert data["mean_diff"] == pytest.approx(b.mean() - a.mean(), abs=1e-12)
    assert data["min_detectable"] == pytest.approx(expected.min_detectable, rel=1e-9)
    assert data["queries_needed"] == expected.queries_needed
    assert data["sentence"].startswith("With these 60 queries, differences below 0.077 in AP")
    code, _, err = cli("power", VERSION_RUNS[1], VERSION_RUNS[2], VERSIONS / "qrels.txt",
                       "--alpha", "2")
    assert code == 2 and err.count("\n") == 1


def test_power_table_prints_no_power_of_one_and_no_detectable_difference_above_one(tmp_path):
    """Three queries whose AP moves by 1, −1, 1: the smallest difference detected with power 0.8
    is 3.77 (scipy's noncentral t), which AP, in [0, 1], cannot show; a run against a much better
    one on 60 queries has power 0.99999999998 (statsmodels), which is not 1."""
    (tmp_path / "qrels").write_text("".join(f"q{i} 0 d1 1\n" for i in (1, 2, 3)))
    for name, hits in (("c", (2,)), ("d", (1, 3))):
        (tmp_path / f"{name}.run").write_text("".join(
            f"q{i} Q0 {'d1' if i in hits else 'd9'} 1 3 {name}\n" for i in (1, 2, 3)))
    code, out, err = cli("power", tmp_path / "c.run", tmp_path / "d.run", tmp_path / "qrels",
                         "--measure", "map")
    assert code == 0, err
    assert "none in [0, 1]" in out and "3.77" not in out
    assert "no difference in map can be detected with power 0.8" in out
    code, out, err = cli("power", VERSION_RUNS[0], VERSION_RUNS[1], VERSIONS / "qrels.txt",
                         "--measure", "AP", "--ties", "trec9")
    assert code == 0, err
    a, b = pytrec_ap(VERSION_RUNS[0]), pytrec_ap(VERSION_RUNS[1])   # baseline, cqt_net
    from statsmodels.stats.power import TTestPower
    d = b - a
    observed = TTestPower().power(effect_size=d.mean() / d.std(ddof=1), nobs=60, alpha=0.05,
                                  alternative="two-sided")
    assert observed > 0.99995   # prints as 1.0000 to four decimals
    line = next(x for x in out.splitlines() if x.startswith("power for the observed"))
    assert line.split()[-2:] == [">", "0.9999"]


def test_compare_prints_the_table_for_a_paper_in_latex_and_markdown():
    """Three runs of the versions sample: means from pytrec_eval, the superscripts from scipy's
    paired t-tests with Holm by hand (each system above the ones whose letters it carries)."""
    from scipy import stats
    runs = [VERSIONS / f"{s}.run" for s in ("baseline", "chroma_dtw", "cqt_net")]
    ap = [pytrec_ap(p) for p in runs]
    raw = np.array([stats.ttest_rel(ap[j], ap[i]).pvalue for i, j in ((0, 1), (0, 2), (1, 2))])
    holm = holm_by_hand(raw)
    assert (holm < 0.05).all()   # so b beats a, c beats a and b
    code, out, err = cli("compare", *runs, VERSIONS / "qrels.txt", "-m", "AP", "--ties",
                         "trec9", "--format", "latex")
    assert code == 0, err
    rows = [line for line in out.splitlines() if line.startswith(("a &", "b &", "c &"))]
    assert rows == [f"a & baseline & {ap[0].mean():.4f} \\\\",
                    f"b & chroma\\_dtw & {ap[1].mean():.4f}$^{{a}}$ \\\\",
                    f"c & cqt\\_net & \\textbf{{{ap[2].mean():.4f}}}$^{{ab}}$ \\\\"]
    assert "\\toprule" in out and "Holm's step-down correction of paired t-tests" in out
    code, out, err = cli("compare", *runs, VERSIONS / "qrels.txt", "-m", "AP", "--ties",
                         "trec9", "--format", "markdown", "--alpha", "0.001")
    assert code == 0, err
    assert out.splitlines()[2] == f"| a | baseline | {ap[0].mean():.4f} |"
    # c's letters: (a, c) is the second pair, (b, c) the third
    beats = "".join(x for x, p in zip("ab", holm[1:]) if p < 0.001)
    assert f"**{ap[2].mean():.4f}**" in out.splitlines()[4] and "α = 0.001" in out
    assert out.splitlines()[4].endswith(f"<sup>{beats}</sup> |" if beats else "** |")
    code, _, err = cli("compare", *runs, VERSIONS / "qrels.txt", "--format", "latex",
                       "--provenance")
    assert code == 2 and "table for a paper only" in err
