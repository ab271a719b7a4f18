"""Bootstrap confidence intervals of each aggregate (--ci) and the provenance record."""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest
from scipy import stats

from metrics import evaluate
from metrics.pipelines import judge_matrix
from metrics.protocols import evaluate_protocol
from metrics.stats import DEFAULT_SEED, aggregate_intervals, bootstrap_interval

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
