"""Benchmark protocols against values derived by hand from each reference code's formula.

The fixture: five queries, each a list of 12 items (scores 12 … 1, so no ties), where
χ marks the relevant ranks and R_q counts the relevant items of the ground truth:

    q1: relevant at ranks 1, 3        R_q = 2
    q2: relevant at ranks 2, 11       R_q = 3 (one relevant item never retrieved)
    q3: relevant at rank 5            R_q = 1
    q4: nothing relevant retrieved    R_q = 1
    q5: nothing relevant              R_q = 0 (a "song without a cover": judged, none relevant)

Shared hand values:
    first relevant rank: q1 1, q2 2, q3 5, q4 none, q5 none
    covers in the top 10 (TP@10): 2, 1, 1, 0, 0;  at rank 1 (TP@1): 1, 0, 0, 0, 0
    AP (÷ R_q): q1 (1/1 + 2/3)/2 = 5/6; q2 (1/2 + 2/11)/3 = 15/66; q3 (1/5)/1 = 1/5; q4 0
        → mean over q1..q4 = (5/6 + 15/66 + 1/5 + 0)/4
"""

import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics import GroundTruth, Run, judge
from metrics.evaluation.protocol_columns import (floored_zero_based_median, jackknife_median,
                                                 lower_median, sum_over_every_query)
from metrics.evaluation.protocols import PROTOCOLS, evaluate_protocol
from metrics.errors import MeasureError

ROOT = Path(__file__).resolve().parents[1]
RELEVANT_RANKS = {"q1": [1, 3], "q2": [2, 11], "q3": [5], "q4": [], "q5": []}
UNRETRIEVED_RELEVANT = {"q2": 1, "q4": 1}
MAP = (5 / 6 + 15 / 66 + 1 / 5 + 0) / 4


def fixture_data():
    run, truth = {}, {}
    for q, ranks in RELEVANT_RANKS.items():
        run[q] = {f"{q}_{r}": float(13 - r) for r in range(1, 13)}
        truth[q] = {f"{q}_{r}": int(r in ranks) for r in range(1, 13)}
        for i in range(UNRETRIEVED_RELEVANT.get(q, 0)):
            truth[q][f"{q}_missing{i}"] = 1
    return run, truth


@pytest.fixture(scope="module")
def judged():
    run, truth = fixture_data()
    return judge(Run.from_dict(run), GroundTruth.from_dict(truth))


def aggregates(judged, name):
    return evaluate_protocol(judged, name).aggregate()


def test_mirex(judged):
    got = aggregates(judged, "mirex-cover")
    assert list(got) == ["Total covers in top 10", "Mean covers in top 10", "MAP", "MR1"]
    assert got["Total covers in top 10"] == 4             # 2 + 1 + 1 + 0 (q5 is no query)
    assert got["Mean covers in top 10"] == pytest.approx(1.0)   # 4 / 4 queries with a cover
    assert got["MAP"] == pytest.approx(MAP)
    assert got["MR1"] == pytest.approx((1 + 2 + 5) / 3)  # q4 retrieves no cover: no first rank


def test_acoss(judged):
    got = aggregates(judged, "acoss")
    assert got["MR"] == pytest.approx(8 / 3)              # ranks[i] = iranks[0]
    # MRR = 1/N Σ 1/rank with N = every song (5), q4 contributing 0 and q5 never a query
    assert got["MRR"] == pytest.approx((1 + 1 / 2 + 1 / 5 + 0) / 5)
    assert got["MDR"] == pytest.approx(2)                 # np.median([1, 2, 5])
    assert got["MAP"] == pytest.approx(MAP)
    assert got["Top-1"] == 1                              # count of ranks <= 1: q1
    assert got["Top-10"] == 3                             # q1, q2, q3 (queries, not covers)
    assert got["Top-100"] == 3 and got["Top-1000"] == 3


def test_re_move(judged):
    got = aggregates(judged, "re-move")
    assert got["mAP"] == pytest.approx(MAP)               # ap[sum(ytrue) > 0]
    # sel = topk(found - ramp, 1) is 0 for q4 and q5 (no cover found): rank 1, 1/rank 1
    assert got["MRR"] == pytest.approx((1 + 1 / 2 + 1 / 5 + 1 + 1) / 5)
    assert got["MR"] == pytest.approx((1 + 2 + 5 + 1 + 1) / 5)
    assert got["Top1"] == 1                               # Σ found[:, 0]
    assert got["Top10"] == 4                              # Σ found[:, :10] = 2 + 1 + 1


def test_clap(judged):
    got = aggregates(judged, "clap")
    # preds (0-based rank of the first relevant item): q1 0, q2 1, q3 4, q4 not found
    assert got["R@1"] == pytest.approx(1 / 4)             # mean(preds < 1) over q1..q4
    assert got["R@5"] == pytest.approx(3 / 4)
    assert got["R@10"] == pytest.approx(3 / 4)
    assert got["mAP@10"] == pytest.approx((1 + 1 / 2 + 1 / 5 + 0) / 4)
    assert got["mean_rank"] == pytest.approx(8 / 3)       # preds.mean() + 1 over q1..q3
    assert got["median_rank"] == 2                        # floor(median(0, 1, 4)) + 1


def test_ttmr(judged):
    got = aggregates(judged, "ttmr")
    assert got["R@1"] == pytest.approx(1 / 4)             # Σ preds[:1]: 1, 0, 0, 0
    assert got["R@5"] == pytest.approx((2 + 1 + 1 + 0) / 4)   # counts, not ÷ R_q
    assert got["R@10"] == pytest.approx((2 + 1 + 1 + 0) / 4)
    # Σ_j j / position_j in the top 10: q1 1/1 + 2/3, q2 1/2, q3 1/5, q4 0 (not ÷ anything)
    assert got["mAP@10"] == pytest.approx((1 + 2 / 3 + 1 / 2 + 1 / 5 + 0) / 4)
    # 0-based ranks [0, 1, 4]: median 1; leave-one-out medians 2.5, 2, 0.5 (mean 5/3);
    # jackknife estimate 3·1 − 2·5/3 = −1/3
    assert got["medRank"] == pytest.approx(-1 / 3)


def test_muscall(judged):
    got = aggregates(judged, "muscall")
    # 100 · Σ bool[:, :k] / num_items, num_items = the 5 rows
    assert got["R@1"] == pytest.approx(100 * 1 / 5)
    assert got["R@5"] == pytest.approx(100 * (2 + 1 + 1) / 5)
    assert got["R@10"] == pytest.approx(100 * (2 + 1 + 1) / 5)
    assert got["Median Rank"] == 2                        # torch.median([1, 2, 5])


def test_reference_medians_by_hand():
    # CLAP: ranks 1 and 2 are 0-based 0 and 1; median 0.5 floored to 0, + 1 = 1 (numpy: 1.5)
    assert floored_zero_based_median(np.array([1.0, 2.0])) == 1
    # torch.median is the lower middle value: [1, 2, 3, 4] → 2 (numpy: 2.5)
    assert lower_median(np.array([4.0, 1.0, 3.0, 2.0, np.nan])) == 2
    # acoss MRR: NaN queries still count in the denominator
    assert sum_over_every_query(np.array([1.0, 0.5, np.nan, np.nan])) == pytest.approx(1.5 / 4)


def leave_one_out_estimate(x) -> float:
    """astropy's jackknife estimate by brute force: n·median − (n − 1)·mean of the n medians
    with one value left out."""
    n = len(x)
    loo = [np.median(np.delete(x, i)) for i in range(n)]
    return float(n * np.median(x) - (n - 1) * np.mean(loo))


def test_jackknife_median_against_leave_one_out():
    rng = np.random.default_rng(3)
    for n in range(2, 9):
        x = rng.integers(0, 6, size=n).astype(float)
        assert float(jackknife_median(x)) == pytest.approx(leave_one_out_estimate(x))
    rows = rng.integers(0, 6, size=(4, 7)).astype(float)
    rows[1, 3] = np.nan   # vectorised along the axis, NaN left out row by row
    # Plain floats on both sides: pytest 9.2's approx refuses a list of 0-d arrays.
    expected = [leave_one_out_estimate(r[~np.isnan(r)]) for r in rows]
    np.testing.assert_allclose(jackknife_median(rows, axis=1), expected, rtol=1e-12)


def test_every_protocol_cites_a_source_and_explains_each_column(judged):
    for protocol in PROTOCOLS.values():
        assert protocol.source and protocol.conventions
        assert all(c.explanation for c in protocol.columns)
        assert set(evaluate_protocol(judged, protocol.name).results) == {
            c.name for c in protocol.columns}


def test_unknown_protocol_and_other_aggregates_are_refused(judged):
    with pytest.raises(MeasureError, match="unknown protocol 'clapp'.*did you mean clap"):
        evaluate_protocol(judged, "clapp")
    with pytest.raises(MeasureError, match="reference code"):
        evaluate_protocol(judged, "clap").aggregate("median")


def cli(*args):
    done = subprocess.run([sys.executable, "-m", "metrics", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


@pytest.fixture
def files(tmp_path):
    run, truth = fixture_data()
    run_path, qrels_path = tmp_path / "fixture.run", tmp_path / "fixture.qrels"
    run_path.write_text("".join(f"{q} Q0 {d} 0 {s} x\n" for q, docs in run.items()
                                for d, s in docs.items()))
    qrels_path.write_text("".join(f"{q} 0 {d} {g}\n" for q, docs in truth.items()
                                  for d, g in docs.items()))
    return run_path, qrels_path


def test_cli_prints_the_protocol_in_every_format(files):
    code, out, err = cli("evaluate", *files, "--protocol", "muscall", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["measures"] == ["R@1", "R@5", "R@10", "Median Rank"]
    assert data["aggregate"]["R@5"] == pytest.approx(80.0)
    assert data["protocol"]["name"] == "muscall" and "compute_metrics" in data["protocol"]["source"]
    code, out, _ = cli("evaluate", *files, "--protocol", "acoss", "-f", "csv")
    header = "query_id,MR,MRR,MDR,MAP,Top-1,Top-10,Top-100,Top-1000"
    assert code == 0 and out.splitlines()[0] == header
    assert out.splitlines()[-1].startswith("all (mean),2.6666666666666")
    code, out, _ = cli("evaluate", *files, "--protocol", "re-move")
    assert code == 0 and "Top10" in out
    code, out, _ = cli("evaluate", *files, "--protocol", "re-move", "-f", "trec")
    assert code == 0 and "MRR                   \tall\t0.7400" in out.splitlines()


def test_cli_lists_the_protocols_and_refuses_mixing(files):
    code, out, _ = cli("protocols")
    assert code == 0
    for name in PROTOCOLS:
        assert f"{name}:" in out
    assert "591ce4267e81d37e8d3ab9673027201e83354c64" in out
    code, out, _ = cli("protocols", "-f", "json")
    assert code == 0 and [p["protocol"] for p in json.loads(out)] == list(PROTOCOLS)
    code, _, err = cli("evaluate", *files, "--protocol", "clap", "--measures", "AP")
    assert code == 2 and err.count("\n") == 1 and "not both" in err
    code, _, err = cli("evaluate", *files, "--protocol", "nope")
    assert code == 2 and err.count("\n") == 1


# ---- against the reference codes' formulas, transliterated to numpy, on random scores ------------
# (continuous random scores: no ties, so every sort agrees on the order)


def _cover_matrix(tmp_path, seed=0):
    rng = np.random.default_rng(seed)
    sizes = [5, 4, 3, 3, 2, 2, 1, 1, 1]   # three songs without a cover
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(labels)
    n = len(labels)
    scores = rng.random((n, n))
    np.save(tmp_path / "m.npy", scores)
    (tmp_path / "labels.csv").write_text(
        "item_id,label\n" + "".join(f"s{i},c{l}\n" for i, l in enumerate(labels)))
    from metrics.ranking.pipelines import judge_matrix
    return scores, labels, judge_matrix(tmp_path / "m.npy", tmp_path / "labels.csv")


def test_acoss_and_re_move_match_their_code_on_random_matrices(tmp_path):
    scores, labels, judged = _cover_matrix(tmp_path)
    n = len(labels)
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    d = scores.copy()
    np.fill_diagonal(d, -np.inf)                   # both codes: the song itself last
    order = np.argsort(-d, axis=1, kind="stable")
    found = np.take_along_axis(same, order, axis=1).astype(float)
    positions = np.arange(1, n + 1)
    # acoss getEvalStatistics: songs of cliques of two or more; first-cover rank; AP ÷ (K − 1)
    queries = same.sum(1) > 0
    first = np.array([positions[f > 0][0] for f in found[queries]])
    ap = np.array([np.mean(np.arange(1, f.sum() + 1) / positions[f > 0]) for f in found[queries]])
    got = evaluate_protocol(judged, "acoss").aggregate()
    assert got["MR"] == pytest.approx(first.mean())
    assert got["MRR"] == pytest.approx(np.sum(1 / first) / n)
    assert got["MDR"] == pytest.approx(np.median(first))
    assert got["MAP"] == pytest.approx(ap.mean())
    for x in (1, 10, 100, 1000):
        assert got[f"Top-{x}"] == np.sum(first <= x)
    # re-move average_precision: sel = topk(found − ramp, 1), every row
    sel = np.argmax(found - np.arange(n) * 1e-6, axis=1)
    precision = np.cumsum(found, 1) / positions
    r = same.sum(1)
    ap_all = (precision * found).sum(1) / (r + 1e-10)
    got = evaluate_protocol(judged, "re-move").aggregate()
    assert got["mAP"] == pytest.approx(ap_all[r > 0].mean())
    assert got["MRR"] == pytest.approx(np.mean(1 / (sel + 1)))
    assert got["MR"] == pytest.approx(np.mean(sel + 1))
    assert got["Top1"] == found[:, 0].sum() and got["Top10"] == found[:, :10].sum()


def test_text_to_music_protocols_match_their_code_on_random_scores():
    rng = np.random.default_rng(4)
    n = 31                                          # odd: the jackknife median differs
    scores = rng.random((n, n))                     # query i's paired item is item i
    run = {f"t{i}": {f"a{j}": float(scores[i, j]) for j in range(n)} for i in range(n)}
    truth = {f"t{i}": {f"a{i}": 1} for i in range(n)}
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth))
    ranking = np.argsort(-scores, axis=1, kind="stable")
    hit = ranking == np.arange(n)[:, None]
    preds = np.nonzero(hit)[1]                      # 0-based rank of the paired item
    # CLAP get_metrics
    got = evaluate_protocol(judged, "clap").aggregate()
    assert got["mean_rank"] == pytest.approx(preds.mean() + 1)
    assert got["median_rank"] == np.floor(np.median(preds)) + 1
    for k in (1, 5, 10):
        assert got[f"R@{k}"] == pytest.approx(np.mean(preds < k))
    assert got["mAP@10"] == pytest.approx(np.mean(np.where(preds < 10, 1 / (preds + 1), 0)))
    # MusCALL compute_metrics
    got = evaluate_protocol(judged, "muscall").aggregate()
    for k in (1, 5, 10):
        assert got[f"R@{k}"] == pytest.approx(100 * hit[:, :k].sum() / n)
    assert got["Median Rank"] == np.sort(preds + 1)[(n - 1) // 2]
    # TTMR rank_eval with astropy's jackknife estimate (mean: the mean; median: bias-corrected)
    got = evaluate_protocol(judged, "ttmr").aggregate()
    for k in (1, 5, 10):
        assert got[f"R@{k}"] == pytest.approx(hit[:, :k].sum(1).mean())
    assert got["mAP@10"] == pytest.approx(np.mean(np.where(preds < 10, 1 / (preds + 1), 0)))
    loo = [np.median(np.delete(preds, i)) for i in range(n)]
    assert got["medRank"] == pytest.approx(n * np.median(preds) - (n - 1) * np.mean(loo))


def test_expected_ties_only_where_a_protocol_reduces_linearly():
    # q1's four items tie (score 1): its relevant items 1 and 3 can be anywhere in ranks 1..4
    run = {"q1": {f"d{i}": 1.0 for i in range(1, 5)}}
    truth = {"q1": {"d1": 1, "d3": 1, "d2": 0, "d4": 0}}
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth), "expected")
    got = aggregates(judged, "mirex-cover")
    # first relevant rank over the 6 placements of 2 relevant items in 4 ranks:
    # {1,2}{1,3}{1,4} -> 1, {2,3}{2,4} -> 2, {3,4} -> 3: mean 10/6
    assert got["MR1"] == pytest.approx(10 / 6)
    assert got["Total covers in top 10"] == 2
    with pytest.raises(MeasureError, match="MDR"):   # acoss' median rank: no exact mean
        aggregates(judged, "acoss")
