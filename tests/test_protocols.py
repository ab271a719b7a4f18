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
from metrics.evaluation.protocol_columns import (floored_zero_based_median, jackknife_mean,
                                                 jackknife_median, lower_median,
                                                 sum_over_every_query)
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
    # q1..q3 of the fixture (q4 and q5 have no relevant item in their lists: rank_eval fails)
    got = aggregates(judged.subset(np.arange(3)), "ttmr")
    assert got["R@1"] == pytest.approx(1 / 3)             # Σ preds[:1]: 1, 0, 0
    assert got["R@5"] == pytest.approx((2 + 1 + 1) / 3)   # counts, not ÷ R_q
    assert got["R@10"] == pytest.approx((2 + 1 + 1) / 3)
    # Σ_j j / position_j in the top 10: q1 1/1 + 2/3, q2 1/2, q3 1/5 (not ÷ anything)
    assert got["mAP@10"] == pytest.approx((1 + 2 / 3 + 1 / 2 + 1 / 5) / 3)
    # 0-based ranks [0, 1, 4]: median 1; leave-one-out medians 2.5, 2, 0.5 (mean 5/3);
    # jackknife estimate 3·1 − 2·5/3 = −1/3
    assert got["medRank"] == pytest.approx(-1 / 3)


def test_muscall_refuses_several_relevant_items(judged):
    # q1 has two relevant items: MusCALL's ground truth is the diagonal, one item per query
    for name in ("muscall", "muscall-text-to-music"):
        with pytest.raises(MeasureError, match="query 'q1' has 2 relevant items"):
            aggregates(judged, name)


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
        if protocol.refuses is None:   # MusCALL and TTMR refuse the fixture (tested below)
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
    code, out, err = cli("evaluate", *files, "--protocol", "clap", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["measures"] == ["R@1", "R@5", "R@10", "mAP@10", "mean_rank", "median_rank"]
    assert data["aggregate"]["R@5"] == pytest.approx(3 / 4)
    assert data["protocol"]["name"] == "clap" and "get_metrics" in data["protocol"]["source"]
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
# (their sorts have no fixed order for equal scores; these use a stable one, the matrix's columns,
# which is what --ties stable gives)


def _cover_labels(rng):
    sizes = [5, 4, 3, 3, 2, 2, 1, 1, 1]   # three songs without a cover
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(labels)
    return labels


def _judged_matrix(tmp_path, scores, labels, **options):
    np.save(tmp_path / "m.npy", scores)
    (tmp_path / "labels.csv").write_text(
        "item_id,label\n" + "".join(f"s{i},c{l}\n" for i, l in enumerate(labels)))
    from metrics.ranking.pipelines import judge_matrix
    return judge_matrix(tmp_path / "m.npy", tmp_path / "labels.csv", **options)


def acoss_and_re_move_by_their_code(scores, labels) -> tuple[dict, dict]:
    """What acoss' getEvalStatistics and re-move's average_precision print for a similarity
    matrix, from their published code: the scores cast to float32 first (np.array(D,
    dtype=np.float32); .float()), the diagonal set to −inf, rows sorted descending."""
    n = len(labels)
    same = labels[:, None] == labels[None, :]
    np.fill_diagonal(same, False)
    d = np.array(scores, dtype=np.float32)
    np.fill_diagonal(d, -np.inf)                   # both codes: the song itself last
    order = np.argsort(-d, axis=1, kind="stable")
    found = np.take_along_axis(same, order, axis=1).astype(float)
    positions = np.arange(1, n + 1)
    # acoss getEvalStatistics: songs of cliques of two or more; first-cover rank; AP ÷ (K − 1)
    queries = same.sum(1) > 0
    first = np.array([positions[f > 0][0] for f in found[queries]])
    ap = np.array([np.mean(np.arange(1, f.sum() + 1) / positions[f > 0]) for f in found[queries]])
    acoss = {"MR": first.mean(), "MRR": np.sum(1 / first) / n, "MDR": np.median(first),
             "MAP": ap.mean(), **{f"Top-{x}": np.sum(first <= x) for x in (1, 10, 100, 1000)}}
    # re-move average_precision: sel = topk(found − ramp, 1), every row
    sel = np.argmax(found - np.arange(n) * 1e-6, axis=1)
    precision = np.cumsum(found, 1) / positions
    r = same.sum(1)
    ap_all = (precision * found).sum(1) / (r + 1e-10)
    re_move = {"mAP": ap_all[r > 0].mean(), "MRR": np.mean(1 / (sel + 1)),
               "MR": np.mean(sel + 1), "Top1": found[:, 0].sum(), "Top10": found[:, :10].sum()}
    return acoss, re_move


def assert_matches(got: dict, expected: dict):
    assert list(got) == list(expected)
    for name, value in expected.items():
        assert got[name] == pytest.approx(value), name


def test_acoss_and_re_move_match_their_code_on_random_matrices(tmp_path):
    rng = np.random.default_rng(0)
    labels = _cover_labels(rng)
    scores = rng.random((len(labels), len(labels)))
    judged = _judged_matrix(tmp_path, scores, labels, float32_scores=True)
    acoss, re_move = acoss_and_re_move_by_their_code(scores, labels)
    assert_matches(evaluate_protocol(judged, "acoss").aggregate(), acoss)
    assert_matches(evaluate_protocol(judged, "re-move").aggregate(), re_move)


def test_acoss_and_re_move_rank_scores_equal_as_float32_as_ties(tmp_path):
    # in most rows a non-cover scores 1e-12 above a cover, in a later column: above it as a
    # double, equal to it as float32 (where the stable order puts the cover first)
    rng = np.random.default_rng(1)
    labels = _cover_labels(rng)
    n = len(labels)
    scores = rng.random((n, n)).astype(np.float32).astype(np.float64)
    for i in range(n):
        covers = np.flatnonzero((labels == labels[i]) & (np.arange(n) != i))
        others = np.flatnonzero(labels != labels[i])
        if len(covers) and (others > covers[0]).any():
            scores[i, others[others > covers[0]][0]] = scores[i, covers[0]] + 1e-12
    acoss, re_move = acoss_and_re_move_by_their_code(scores, labels)
    judged = _judged_matrix(tmp_path, scores, labels, float32_scores=True)
    assert_matches(evaluate_protocol(judged, "acoss").aggregate(), acoss)
    assert_matches(evaluate_protocol(judged, "re-move").aggregate(), re_move)
    as_doubles = evaluate_protocol(_judged_matrix(tmp_path, scores, labels), "acoss").aggregate()
    assert as_doubles["MR"] > acoss["MR"]   # the planted near-ties do move the first covers
    # the command line casts for these two protocols
    code, out, err = cli("evaluate-matrix", tmp_path / "m.npy", tmp_path / "labels.csv",
                         "--protocol", "re-move", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["aggregate"]["MR"] == pytest.approx(re_move["MR"])


# The issue's example: labels a, b, a, b; t3's cover t1 scores 0.7 and the non-cover t4
# 0.7 + 1e-12. As doubles t4 comes first (t3's first cover at rank 2: MR 1.25, MAP 0.875); as
# float32 they tie, and the matrix's column order puts t1 first: MR 1, MAP 1, as acoss prints.
ISSUE_MATRIX = np.array([[1.0, 0.1, 0.9, 0.1],
                         [0.1, 1.0, 0.1, 0.9],
                         [0.7, 0.1, 1.0, 0.7 + 1e-12],
                         [0.1, 0.9, 0.1, 1.0]])


@pytest.fixture
def issue_matrix(tmp_path):
    np.save(tmp_path / "issue.npy", ISSUE_MATRIX)
    (tmp_path / "issue.csv").write_text("item_id,label\nt1,a\nt2,b\nt3,a\nt4,b\n")
    return tmp_path / "issue.npy", tmp_path / "issue.csv"


def test_acoss_example_of_the_issue_on_the_command_line(issue_matrix):
    def aggregate(*options):
        code, out, err = cli("evaluate-matrix", *issue_matrix, *options, "-f", "json")
        assert code == 0, err
        return json.loads(out)["aggregate"]

    acoss = aggregate("--protocol", "acoss")
    assert acoss["MR"] == 1.0 and acoss["MAP"] == 1.0
    re_move = aggregate("--protocol", "re-move")
    assert re_move["MR"] == 1.0 and re_move["mAP"] == 1.0
    # ties then follow --ties: trec10 orders equal scores by id descending, t4 before t1
    assert aggregate("--protocol", "acoss", "--ties", "trec10")["MR"] == 1.25
    # our measures compare the scores as given (doubles)
    ours = aggregate("--measures", "FirstRank,AP")
    assert ours == {"FirstRank": 1.25, "AP": 0.875}


def test_the_float32_cast_travels_to_a_clusters_workers(issue_matrix):
    pytest.importorskip("distributed")
    code, out, err = cli("evaluate-matrix", *issue_matrix, "--protocol", "acoss", "--workers", "1",
                         "-f", "json")
    assert code == 0, err
    assert json.loads(out)["aggregate"]["MR"] == 1.0    # as in one process (the test above)


def test_a_score_beyond_float32_is_refused_where_a_protocol_casts(tmp_path):
    scores = ISSUE_MATRIX.copy()
    scores[0, 1] = 1e300
    np.save(tmp_path / "big.npy", scores)
    (tmp_path / "big.csv").write_text("item_id,label\nt1,a\nt2,b\nt3,a\nt4,b\n")
    code, _, err = cli("evaluate-matrix", tmp_path / "big.npy", tmp_path / "big.csv",
                       "--protocol", "acoss")
    assert code == 2 and err.count("\n") == 1
    assert "big.npy" in err and "(0, 1)" in err and "float32" in err
    code, _, err = cli("evaluate-matrix", tmp_path / "big.npy", tmp_path / "big.csv")
    assert code == 0, err      # as doubles it is a score like any other
    (tmp_path / "big.run").write_text("q1 Q0 d1 1 1e300 x\nq1 Q0 d2 2 0.5 x\n")
    (tmp_path / "big.qrels").write_text("q1 0 d1 1\n")
    code, _, err = cli("evaluate", tmp_path / "big.run", tmp_path / "big.qrels",
                       "--protocol", "re-move")
    assert code == 2 and err.count("\n") == 1 and "big.run" in err and "float32" in err


def test_run_files_and_embeddings_are_compared_as_float32_too(tmp_path):
    # a run: the relevant item first in the file at 0.7, a non-relevant one at 0.7 + 1e-12
    (tmp_path / "near.run").write_text("q1 Q0 d1 1 0.7 x\nq1 Q0 d2 2 0.700000000001 x\n")
    (tmp_path / "near.qrels").write_text("q1 0 d1 1\nq1 0 d2 0\n")
    code, out, err = cli("evaluate", tmp_path / "near.run", tmp_path / "near.qrels",
                         "--protocol", "re-move", "-f", "json")
    assert code == 0, err
    assert json.loads(out)["aggregate"]["MRR"] == 1.0     # tied as float32: file order
    code, out, err = cli("evaluate", tmp_path / "near.run", tmp_path / "near.qrels",
                         "--measures", "RR", "-f", "json")
    assert json.loads(out)["aggregate"]["RR"] == 0.5       # as doubles d2 is above d1
    # embeddings (dot product): the scores are the matrix X·Xᵀ, then cast
    x = np.array([[1.0, 0.0], [0.0, 1.0], [0.7, 0.0], [1.0 + 1e-12, 0.0]])
    labels = np.array(["a", "b", "a", "b"])
    np.save(tmp_path / "x.npy", x)
    (tmp_path / "ids.txt").write_text("t1\nt2\nt3\nt4\n")
    (tmp_path / "x.csv").write_text("item_id,label\nt1,a\nt2,b\nt3,a\nt4,b\n")
    _, re_move = acoss_and_re_move_by_their_code(x @ x.T, labels)
    code, out, err = cli("evaluate-embeddings", tmp_path / "x.npy", tmp_path / "ids.txt",
                         tmp_path / "x.npy", tmp_path / "ids.txt", tmp_path / "x.csv",
                         "--similarity", "dot", "--protocol", "re-move", "-f", "json")
    assert code == 0, err
    assert_matches(json.loads(out)["aggregate"], re_move)
    from metrics.ranking.pipelines import judge_embeddings
    from metrics.ranking.pipelines import load_truth
    as_doubles = judge_embeddings(*[tmp_path / f for f in ("x.npy", "ids.txt") * 2],
                                  load_truth(tmp_path / "x.csv"), "dot")
    # t3's cover t1 and the non-cover t4 (0.7 and 0.7 + 7e-13) tie only as float32
    assert evaluate_protocol(as_doubles, "re-move").aggregate()["MR"] > re_move["MR"]


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
    # MusCALL compute_metrics (torch: an integer count divided by an int in float32)
    got = evaluate_protocol(judged, "muscall").aggregate()
    for k in (1, 5, 10):
        assert got[f"R@{k}"] == float(np.float32(100 * hit[:, :k].sum()) / np.float32(n))
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


# ---- MusCALL: both directions, a square matrix or nothing ------------------------------------


def paired(n_queries: int, n_items: int, hits_at_one: int):
    """Queries q0.. each paired with item d{i % n_items}; the first ``hits_at_one`` rank their
    item first, the others second (a full list of every item)."""
    run, truth = {}, {}
    for i in range(n_queries):
        mine = f"d{i % n_items}"
        others = [f"d{j}" for j in range(n_items) if f"d{j}" != mine]
        order = [mine, *others] if i < hits_at_one else [others[0], mine, *others[1:]]
        run[f"q{i}"] = {d: float(n_items - r) for r, d in enumerate(order)}
        truth[f"q{i}"] = {mine: 1}
    return judge(Run.from_dict(run), GroundTruth.from_dict(truth))


def test_muscall_refuses_a_matrix_that_is_not_square():
    # the issue's example: 10 queries against 2 items, 7 paired items first; divided by the
    # queries that is R@1 = 70, by "the matrix's columns" 350; MusCALL's get_ranking fails
    judged = paired(10, 2, 7)
    for name in ("muscall", "muscall-text-to-music"):
        with pytest.raises(MeasureError, match="10 queries but query 'q0' ranks 2 items.*square"):
            evaluate_protocol(judged, name)
    # a square one: 100 · 7 / 10
    assert evaluate_protocol(paired(10, 10, 7), "muscall").aggregate()["R@1"] == 70.0


def test_muscall_refuses_a_paired_item_missing_from_its_list():
    run = {"q0": {"d0": 2.0, "d1": 1.0}, "q1": {"d0": 2.0, "d2": 1.0}}
    truth = {"q0": {"d0": 1}, "q1": {"d1": 1}}
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth))
    with pytest.raises(MeasureError, match="query 'q1'.s paired item is not in its list"):
        evaluate_protocol(judged, "muscall")


def test_muscall_refusal_on_the_command_line(tmp_path):
    (tmp_path / "wide.run").write_text("".join(f"q{i} Q0 d{j} 0 {2 - j} x\n"
                                               for i in range(3) for j in range(2)))
    (tmp_path / "wide.qrels").write_text("q0 0 d0 1\nq1 0 d1 1\nq2 0 d0 1\n")
    code, out, err = cli("evaluate", tmp_path / "wide.run", tmp_path / "wide.qrels",
                         "--protocol", "muscall")
    assert code == 2 and not out and err.count("\n") == 1
    assert "square" in err and "Traceback" not in err


def test_muscall_offers_both_directions_and_says_which_is_which():
    evaluation, validation = PROTOCOLS["muscall"], PROTOCOLS["muscall-text-to-music"]
    # Retrieval.evaluate (scripts/evaluate.py) scores compute_sim_score(text, audio): a row per
    # audio, ranking the captions; run_retrieval (training-time validation) the other way round
    assert "Retrieval.evaluate" in evaluation.source and "scripts/evaluate.py" in evaluation.source
    assert "music-to-text" in evaluation.title and "music-to-text" in evaluation.conventions
    assert "run_retrieval" in validation.source and "text-to-music" in validation.title
    for protocol in (evaluation, validation):
        assert "paper" in evaluation.conventions and "refused" in protocol.conventions
    # the same arithmetic, whichever direction the data is; torch divides 100 · 5 by 12 in
    # float32 (an integer tensor divided by an int): 41.66666793823242, not 41.666666666666664
    judged = paired(12, 12, 5)
    r1 = float(np.float32(500) / np.float32(12))
    assert (evaluate_protocol(judged, "muscall").aggregate()
            == evaluate_protocol(judged, "muscall-text-to-music").aggregate()
            == {"R@1": r1, "R@5": 100.0, "R@10": 100.0, "Median Rank": 2.0})


# ---- TTMR: the jackknife with one query, lists rank_eval fails on ------------------------------


def test_ttmr_with_one_query_is_undefined_as_its_jackknife():
    # astropy's jackknife_stats on one value: no leave-one-out sample, estimate NaN
    run = {"q1": {f"d{r}": float(12 - r) for r in range(12)}}
    judged = judge(Run.from_dict(run), GroundTruth.from_dict({"q1": {"d2": 1}}))
    result = evaluate_protocol(judged, "ttmr")
    assert result.aggregate() == dict.fromkeys(["R@1", "R@5", "R@10", "mAP@10", "medRank"])
    assert any("one query" in w and "NaN" in w for w in result.warnings)
    # per query the values stand: rank 3 (0-based 2), RR 1/3
    assert result.results["mAP@10"].values[0] == pytest.approx(1 / 3)


def test_ttmr_refuses_lists_shorter_than_ten_and_unranked_tracks(tmp_path):
    run = {"q1": {f"d{r}": float(12 - r) for r in range(12)},
           "q2": {f"d{r}": float(9 - r) for r in range(9)}}
    truth = {"q1": {"d0": 1}, "q2": {"d0": 1}}
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth))
    with pytest.raises(MeasureError, match="query 'q2' ranks 9 items.*shorter than 10"):
        evaluate_protocol(judged, "ttmr")
    truth["q2"] = {"elsewhere": 1}
    run["q2"] = run["q1"]
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth))
    with pytest.raises(MeasureError, match="query 'q2' has no relevant item in its list"):
        evaluate_protocol(judged, "ttmr")
    (tmp_path / "short.run").write_text("".join(f"q1 Q0 d{r} 0 {9 - r} x\n" for r in range(9)))
    (tmp_path / "short.qrels").write_text("q1 0 d0 1\n")
    code, _, err = cli("evaluate", tmp_path / "short.run", tmp_path / "short.qrels",
                       "--protocol", "ttmr")
    assert code == 2 and err.count("\n") == 1 and "shorter than 10" in err


def test_jackknife_mean_against_leave_one_out():
    def astropy_estimate(x):   # jackknife_stats(x, np.mean): n·mean − (n − 1)·mean(loo means)
        n = len(x)
        loo = [np.mean(np.delete(x, i)) for i in range(n)] if n > 1 else [np.nan]
        return float(np.mean(x) - (n - 1) * (np.mean(loo) - np.mean(x)))

    rng = np.random.default_rng(5)
    for n in range(2, 9):
        x = rng.random(n)
        assert float(jackknife_mean(x)) == pytest.approx(astropy_estimate(x), rel=1e-12)
    assert np.isnan(jackknife_mean(np.array([0.5, np.nan])))   # one value: undefined
    assert np.isnan(astropy_estimate(np.array([0.5])))


# ---- descriptions: where each setup comes from, and where no reference exists -----------------


def test_descriptions_name_their_code_and_what_has_no_reference():
    clap, ttmr = PROTOCOLS["clap"], PROTOCOLS["ttmr"]
    assert "get_metrics" in clap.source and "evaluate_clotho_audiocaps" in clap.source
    assert "five captions" in clap.conventions and "no reference" in clap.conventions
    # its audio-to-text mAP@10 takes the five captions in caption order: ranked (0-based)
    # 4, 3, 2, 1, 0 they give (1/5 + 2/4 + 3/3 + 4/2 + 5/1) / 5 = 1.74, above 1
    assert "exceeds 1" in clap.conventions
    assert "sort_values" in ttmr.conventions and "shorter than 10" in ttmr.conventions
    assert "one query" in ttmr.conventions
    for name in ("acoss", "re-move"):
        assert PROTOCOLS[name].float32_scores and "float32" in PROTOCOLS[name].conventions
    assert not any(PROTOCOLS[n].float32_scores for n in ("clap", "ttmr", "muscall"))


# ---- the Conventions page's grid: float32 protocols under each tie policy ---------------------


def test_conventions_grid_leaves_float32_protocols_empty_where_doubles_differ(issue_matrix,
                                                                                tmp_path):
    from metrics.data.ties import TiePolicy
    from metrics.explain.conventions import protocol_grid
    from metrics.ranking.pipelines import judge_matrix

    def grid(matrix, labels):
        by_policy = {p: judge_matrix(matrix, labels, p) for p in TiePolicy
                     if p is not TiePolicy.EXPECTED}
        return protocol_grid(by_policy, "stable").set_index(["protocol", "printed as"])

    near = grid(*issue_matrix)
    # as doubles stable ranks t4 above t3's cover; acoss' float32 ranking is not among these
    assert near.loc[("acoss", "MR"), ["stable", "id", "trec10", "optimistic"]].isna().all()
    assert "float32" in near.loc[("acoss", "MR"), "why they differ"]
    # trec9 compares float32 (equal scores by id descending: t4 first, t3's cover at rank 2)
    assert near.loc[("acoss", "MR"), "trec9"] == 1.25
    assert near.loc[("clap", "R@1"), "stable"] == pytest.approx(0.75)   # not a float32 protocol
    # no score moves in float32: every policy's ranking is acoss' ranking
    far = ISSUE_MATRIX.copy()
    far[2, 3] = 0.6
    np.save(tmp_path / "far.npy", far)
    spread = grid(tmp_path / "far.npy", issue_matrix[1])
    assert (spread.loc[("acoss", "MR"), ["stable", "id", "trec9", "trec10"]] == 1.0).all()
    # a reference that fails on the data says so on the protocol's first row
    assert "square" in spread.loc[("muscall", "R@1"), "why they differ"]
