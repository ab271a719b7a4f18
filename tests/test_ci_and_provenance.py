"""Bootstrap confidence intervals of each aggregate (--ci) and the provenance record."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from metrics import evaluate
from metrics.ranking.pipelines import judge_matrix
from metrics.evaluation.protocols import evaluate_protocol
from metrics.evaluation.stats import DEFAULT_SEED, aggregate_intervals, bootstrap_interval
from oracles import provenance_of_csv

ROOT = Path(__file__).resolve().parents[1]
MATRIX = ROOT / "sample_data/covers/system_a.npy"
LABELS = ROOT / "sample_data/covers/labels.csv"


def cli(*args):
    done = subprocess.run([sys.executable, "-m", "metrics", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture(scope="module")
def judged():
    return judge_matrix(MATRIX, LABELS)


def test_interval_equals_a_direct_scipy_call(judged):
    result = evaluate(judged, "AP,P@10,NumRelRet")
    got = aggregate_intervals(result, 0.9, seed=7, resamples=2000)
    for name, statistic in (("AP", np.mean), ("P@10", np.mean), ("NumRelRet", np.sum)):
        values = result.results[name].values
        direct = stats.bootstrap((values[~np.isnan(values)],), statistic, confidence_level=0.9,
                                 n_resamples=2000, method="percentile",
                                 rng=np.random.default_rng(7)).confidence_interval
        assert got[name] == pytest.approx((direct.low, direct.high), rel=1e-12)
        low, high = got[name]
        assert low <= result.aggregate()[name] <= high


def test_protocol_interval_resamples_every_query_with_the_reference_aggregation(judged):
    result = evaluate_protocol(judged, "acoss")
    got = aggregate_intervals(result, 0.95, seed=3, resamples=1000)
    mrr = result.results["MRR"].values   # Σ 1/rank ÷ every song: NaN queries stay in
    direct = stats.bootstrap((mrr,), lambda v, axis: np.nansum(v, axis) / v.shape[axis],
                             n_resamples=1000, method="percentile",
                             rng=np.random.default_rng(3)).confidence_interval
    assert got["MRR"] == pytest.approx((direct.low, direct.high))
    for name, value in result.aggregate().items():
        assert got[name][0] <= value <= got[name][1]


def test_batches_do_not_change_the_resamples():
    values = np.random.default_rng(1).random(50)
    whole = bootstrap_interval(values, np.mean, seed=5, resamples=3000)
    direct = stats.bootstrap((values,), np.mean, n_resamples=3000, method="percentile",
                             batch=7, rng=np.random.default_rng(5)).confidence_interval
    assert whole == pytest.approx((direct.low, direct.high))


def test_cli_ci_same_seed_same_output_and_seed_matters():
    args = ("evaluate-matrix", MATRIX, LABELS, "-m", "AP,RR", "--ci", "0.95", "-f", "json",
            "--resamples", "2000")
    first, second = cli(*args), cli(*args)
    assert first[0] == 0, first[2]
    assert first[1] == second[1]
    data = json.loads(first[1])
    assert data["seed"] == DEFAULT_SEED and data["ci_method"] == "percentile"
    for name, (low, high) in data["ci"].items():
        assert low <= data["aggregate"][name] <= high
    other = json.loads(cli(*args, "--seed", "1")[1])
    assert other["ci"] != data["ci"] and other["aggregate"] == data["aggregate"]


def test_cli_ci_in_table_and_csv():
    code, out, _ = cli("evaluate-matrix", MATRIX, LABELS, "-m", "AP", "--ci", "0.9")
    assert code == 0 and "90% CI" in out.splitlines()[0]
    code, out, _ = cli("evaluate-matrix", MATRIX, LABELS, "-m", "AP", "--ci", "0.9", "-f", "csv")
    rows = out.splitlines()
    assert rows[-2].startswith("ci low (0.9),") and rows[-1].startswith("ci high (0.9),")
    code, _, err = cli("evaluate-matrix", MATRIX, LABELS, "--ci", "0.9", "-f", "trec")
    assert code == 2 and err.count("\n") == 1
    code, _, err = cli("evaluate-matrix", MATRIX, LABELS, "--ci", "95")
    assert code == 2 and "between 0 and 1" in err


def sha256_of(path):
    import hashlib
    return hashlib.sha256(Path(path).read_bytes()).hexdigest()


def test_provenance_is_byte_identical_and_hashes_are_hashlibs():
    args = ("evaluate-matrix", MATRIX, LABELS, "-m", "AP,P@10,mAP@10", "--ci", "0.95",
            "--resamples", "500", "--provenance", "-f", "json", "--per-query")
    first, second = cli(*args), cli(*args)
    assert first[0] == 0, first[2]
    assert first[1] == second[1]
    record = json.loads(first[1])["provenance"]
    assert [(f["role"], f["name"], f["sha256"]) for f in record["inputs"]] == [
        ("matrix", "system_a.npy", sha256_of(MATRIX)), ("labels", "labels.csv", sha256_of(LABELS))]
    assert record["seed"] == DEFAULT_SEED and record["ci"]["level"] == 0.95
    assert record["ties"] == "stable" and record["relevance_threshold"] == 1
    assert record["measures"][2]["measure"] == "AP(norm=min)@10"
    assert record["measures"][2]["parameters"] == {"norm": "min", "rel": 1}
    assert record["queries"]["evaluated"] == 300
    assert record["software"]["music-retrieval-evaluation"]
    assert any("alias" in w or "read as" in w for w in record["warnings"])   # mAP@10's note


def test_provenance_in_csv_as_comment_lines(tmp_path):
    run, qrels = ROOT / "sample_data/fmp/toys.run", ROOT / "sample_data/fmp/toys.qrels"
    # (clap: TTMR's rank_eval fails on FMP's list of 8 items, and so is refused there)
    args = ("evaluate", run, qrels, "--protocol", "clap", "--provenance", "-f", "csv")
    first, second = cli(*args), cli(*args)
    assert first[0] == 0, first[2]
    assert first[1] == second[1]
    record = provenance_of_csv(first[1])
    assert record["protocol"]["protocol"] == "clap" and record["seed"] is None
    assert [f["sha256"] for f in record["inputs"]] == [sha256_of(run), sha256_of(qrels)]
    body = [line for line in first[1].splitlines() if not line.startswith("#")]
    assert body[0] == "query_id,R@1,R@5,R@10,mAP@10,mean_rank,median_rank"
    code, out, _ = cli("compare", ROOT / "sample_data/instruments/system_a.run",
                       ROOT / "sample_data/instruments/system_b.run",
                       ROOT / "sample_data/instruments/annotations.csv", "--taxonomy",
                       ROOT / "sample_data/instruments/taxonomy.csv", "-m", "AP", "--test", "t",
                       "--provenance", "-f", "csv")
    assert code == 0
    assert [f["role"] for f in provenance_of_csv(out)["inputs"]] == ["run", "run", "truth",
                                                                      "taxonomy"]
    code, _, err = cli("evaluate", run, qrels, "--provenance", "-f", "trec")
    assert code == 2 and err.count("\n") == 1


def test_dashboard_csv_downloads_lead_with_the_record():
    import io

    import pandas as pd

    from dashboard.tables import csv_bytes
    from metrics.evaluation.provenance import record

    frame = pd.DataFrame({"system": ["a"], "AP": [0.5]})
    rec = record(command="dashboard", inputs=[], ties="stable", seed=1)
    text = csv_bytes(frame, rec).decode()
    assert provenance_of_csv(text) == json.loads(json.dumps(rec))
    assert pd.read_csv(io.StringIO(text), comment="#").equals(frame)


def test_answer_sets_downloads_record_the_sets_as_edited():
    # the Answer sets page has its own data: its record hashes the answer sets shown there
    import hashlib

    import pandas as pd

    from dashboard.provenance_records import answer_sets_provenance
    from metrics.explain.answer_sets import TABLE2_MEASURES
    from metrics.explain.samples import SAMPLE_DIR

    sets = pd.read_csv(SAMPLE_DIR / "serra" / "answer_sets.csv", dtype=str,
                       keep_default_na=False)
    rec = answer_sets_provenance(sets, 20, 2054)
    text = sets.to_csv(index=False).encode()
    assert rec["inputs"] == [{"role": "answer_sets",
                              "name": "the answer sets as edited on the page", "rows": 6,
                              "bytes": len(text), "sha256": hashlib.sha256(text).hexdigest()}]
    assert rec["options"] == {"answer_set_length": 20, "collection_size": 2054}
    assert [m["name"] for m in rec["measures"]] == list(dict.fromkeys(TABLE2_MEASURES.values()))
    edited = sets.assign(relevant_positions=["1"] * len(sets))
    assert answer_sets_provenance(edited, 20, 2054)["inputs"][0]["sha256"] != \
        rec["inputs"][0]["sha256"]
