"""The ragged engine on skewed runs (one list a thousand times longer than the rest, see
``skewed_runs``): trec_eval's measures against trec_eval (pytrec_eval) on every query at once, one
rule for queries without a relevant item, and the curves against each query's dense list;
streamed embeddings against a brute-force sort and against the same rankings judged as a full run.

Each measure's own tests, the brute-force references over the dense lists among them, are in the
module of its family, tests/test_measures_*.py."""

from __future__ import annotations

import numpy as np
import pytest
from scipy.integrate import trapezoid   # numpy's own is 2.0+, numpy 1.26 is supported
import pytrec_eval
from skewed_runs import LONG, dense_lists, skewed

from metrics import GroundTruth, Run, evaluate, judge
from metrics.evaluation.curves import (RECALL_LEVELS, interpolated_precision, lift_curve, mean_lift,
                            rank_curves, roc_auc, roc_curve)
from metrics.errors import InputError
from metrics.ranking.embeddings import EmbeddingScores
from metrics.ranking.streaming import judge_streamed
from metrics.data.ties import TiePolicy

TREC = {"map": "AP", "P_5": "P@5", "P_10": "P@10", "recall_10": "R@10", "recip_rank": "RR",
        "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10", "Rprec": "Rprec", "bpref": "Bpref",
        "num_rel_ret": "NumRelRet", "map_cut_10": "AP@10", "num_rel": "NumRel",
        "num_ret": "NumRet", "P_1000": "P@1000", "recall_1000": "R@1000",
        "success_1": "Success@1", "success_10": "Success@10"}


@pytest.mark.parametrize("seed", range(3))
def test_skewed_runs_agree_with_trec_eval(seed):
    run, qrels = skewed(seed)
    truth = GroundTruth.from_dict(qrels)
    judged = judge(Run.from_dict(run), truth, ties="trec")
    assert judged.lengths.max() == LONG and np.median(judged.lengths) <= 5
    ours = evaluate(judged, ",".join(TREC.values()))
    interp = interpolated_precision(judged)
    expected = pytrec_eval.RelevanceEvaluator(
        qrels, (set(TREC) - {"success_1", "success_10"}) | {"iprec_at_recall", "success"}
    ).evaluate(run)
    compared = 0
    for i, query in enumerate(judged.query_ids):
        if query not in expected:   # trec_eval skips a query the run lacks
            continue
        if not any(g >= 1 for g in qrels[query].values()):
            assert np.isnan(ours.results["AP"].values[i])   # R_q = 0: undefined, not 0
            continue
        for theirs, mine in TREC.items():
            tolerance = 1e-6 if theirs == "bpref" else 1e-12   # trec_eval's bpref is C float
            assert ours.results[mine].values[i] == pytest.approx(
                expected[query][theirs], abs=tolerance), (query, theirs)
            compared += 1
        for level, value in zip(RECALL_LEVELS, interp[i]):
            assert value == pytest.approx(expected[query][f"iprec_at_recall_{level:.2f}"],
                                          abs=1e-12), (query, level)
    assert compared > 300


def test_one_rule_for_queries_without_relevant_items_at_the_threshold():
    """rel=2: a query whose items are all of grade 1 is undefined on every measure with rel=2,
    and the warning counts it."""
    run = Run.from_dict({"a": {"x": 2.0, "y": 1.0}, "b": {"x": 2.0, "y": 1.0}})
    truth = GroundTruth.from_dict({"a": {"x": 2, "y": 1}, "b": {"x": 1, "y": 1}})
    names = "R(rel=2),F(rel=2),AP(rel=2),Rprec(rel=2),Bpref(rel=2),P(rel=2)@1,RR(rel=2)," \
            "NumRelRet(rel=2),AP"
    result = evaluate(judge(run, truth), names)
    for name, r in result.results.items():
        assert not np.isnan(r.values[0]), name
        assert np.isnan(r.values[1]) == (name != "AP"), name
    assert any("1 quer(ies) have no relevant item of grade >= 2" in w for w in result.warnings)


@pytest.mark.parametrize("seed", range(2))
def test_curves_agree_with_dense_lists(seed):
    run, qrels = skewed(seed)
    size = 4 * LONG
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties="trec",
                   collection_size=size)
    lists = dense_lists(run, qrels)
    auc = roc_auc(judged)
    lifts = []
    for i, query in enumerate(judged.query_ids):
        r_q = sum(g >= 1 for g in qrels[query].values())
        chi = np.array([g is not None and g >= 1 for g in lists[query]], dtype=float)
        curves = rank_curves(judged, i)
        np.testing.assert_array_equal(curves.chi, chi)
        if not r_q:
            assert np.isnan(auc[i])
            continue
        tp = np.cumsum(chi)
        tpr = np.r_[0, tp / r_q, 1]
        fpr = np.r_[0, (np.arange(1, len(chi) + 1) - tp) / (size - r_q), 1]
        assert auc[i] == pytest.approx(trapezoid(tpr, fpr), abs=1e-12)
        roc = roc_curve(judged, i)
        np.testing.assert_allclose(roc.tpr, tpr, atol=1e-12)
        if len(chi):
            x, y = lift_curve(judged, i)
            grid = np.linspace(0, 1, 101)
            lifts.append(np.interp(grid * len(chi), np.arange(len(chi) + 1), np.r_[0, tp]) / r_q)
            np.testing.assert_allclose(y, np.r_[0, tp] / r_q)
    grid, mean = mean_lift(judged)
    np.testing.assert_allclose(mean, np.mean(lifts, axis=0), atol=1e-12)


# ---- streamed rankings from embeddings ------------------------------------------------------------

def brute_ranks(scores: np.ndarray, pairs, item_ids, ties):
    """Each (query row, item column) pair's rank by sorting the whole row."""
    out = []
    for row, col in pairs:
        s = scores[row].astype(np.float32) if ties == "trec" else scores[row]
        if ties == "stable":
            key = list(range(len(s)))
        elif ties == "id":
            key = list(item_ids)   # not all integers: string order
        else:
            key = [[-ord(c) for c in x] + [0] for x in item_ids]
        order = sorted(range(len(s)), key=lambda j: (-float(s[j]), key[j]))
        out.append(order.index(col) + 1)
    return out


@pytest.mark.parametrize("ties", [TiePolicy.STABLE, TiePolicy.ID, TiePolicy.TREC9])
@pytest.mark.parametrize("memory", [None, 1])
def test_streamed_embeddings_rank_as_a_full_sort(ties, memory, monkeypatch):
    """Every block size (down to one query per block) and rows with many judged items (sorted
    instead of scanned) give the ranks of a full sort, ties included."""
    from metrics.ranking import streaming
    rng = np.random.default_rng(5)
    n_q, n_items = 23, 300
    queries = np.round(rng.standard_normal((n_q, 4)), 1).astype(np.float32)
    items = np.round(rng.standard_normal((n_items, 4)), 1).astype(np.float32)
    items[50:60] = items[0]   # exact ties
    item_ids = np.array([f"d{(i * 37) % n_items}" for i in range(n_items)], dtype=object)
    query_ids = [f"q{i}" for i in range(n_q)]
    pairs = {}
    for q in range(n_q):
        many = 40 if q % 5 == 0 else 3   # rows past HEAVY judged items are sorted
        for col in rng.choice(n_items, many, replace=False).tolist() + [0, 55]:
            pairs[(q, col)] = int(rng.integers(0, 3))
    truth = GroundTruth.build([query_ids[q] for q, _ in pairs], [item_ids[c] for _, c in pairs],
                              list(pairs.values()))
    if memory is not None:   # one query row per block
        monkeypatch.setattr(streaming, "block_rows", lambda *args: 1)
    scores = EmbeddingScores(queries, items, "cosine")
    judged = judge_streamed(scores, query_ids, item_ids, truth, ties)
    dense = scores.rows(np.arange(n_q))
    for (q, col), rank in zip(pairs, brute_ranks(dense, list(pairs), list(item_ids), ties)):
        at = slice(judged.offsets[q], judged.offsets[q + 1])
        grades = dict(zip(judged.hit_ranks[at].tolist(), judged.hit_grades[at].tolist()))
        assert grades.get(rank) == pairs[(q, col)], (q, col, rank)
        listed = judged.ranked_list(q)[0]
        assert listed[rank - 1] == item_ids[col]
    assert judged.ties.tie_groups > 0


def test_streamed_embeddings_give_iprec_rbp_and_infap_of_the_full_run():
    """Rankings streamed from embeddings in blocks (only the judged items' ranks are counted) give
    IPrec, RBP and its residual, and infAP the values of the same rankings judged as a full run."""
    rng = np.random.default_rng(11)
    queries = rng.standard_normal((12, 6)).astype(np.float32)
    items = rng.standard_normal((400, 6)).astype(np.float32)
    query_ids = [f"q{i}" for i in range(12)]
    item_ids = [f"d{i}" for i in range(400)]
    qrels = {q: {item_ids[c]: int(rng.integers(-1, 3)) for c in rng.choice(400, 25, replace=False)}
             for q in query_ids}
    truth = GroundTruth.from_dict(qrels)
    scores = EmbeddingScores(queries, items, "cosine")
    names = "IPrec@0.3,iprec_at_recall_1.00,RBP(p=0.9),RBPResidual(p=0.9)@50,infAP,infAP@20"
    streamed = evaluate(judge_streamed(scores, query_ids, item_ids, truth), names)
    dense = scores.rows(np.arange(12))
    run = Run.from_dict({q: {d: float(dense[i, c]) for c, d in enumerate(item_ids)}
                         for i, q in enumerate(query_ids)})
    full = evaluate(judge(run, truth), names)
    for name in streamed.results:
        np.testing.assert_allclose(streamed.results[name].values, full.results[name].values,
                                   rtol=0, atol=1e-12, err_msg=name)
    assert np.nanmax(streamed.results["infAP"].values) > 0


def test_bad_embeddings_are_named(tmp_path):
    from metrics.ranking.pipelines import judge_embeddings
    rng = np.random.default_rng(0)
    queries = rng.standard_normal((3, 4)).astype(np.float32)
    items = rng.standard_normal((5, 4)).astype(np.float32)
    items[3, 2] = np.nan
    np.save(tmp_path / "q.npy", queries)
    np.save(tmp_path / "i.npy", items)
    (tmp_path / "q.txt").write_text("a\nb\nc\n")
    (tmp_path / "i.txt").write_text("w\nx\ny\nz\nv\n")
    truth = GroundTruth.from_dict({"a": {"x": 1}})
    args = [tmp_path / "q.npy", tmp_path / "q.txt", tmp_path / "i.npy", tmp_path / "i.txt"]
    with pytest.raises(InputError, match=r"i\.npy: value at index \(3, 2\) is nan"):
        judge_embeddings(*args, truth)
    np.save(tmp_path / "i.npy", rng.standard_normal((5, 3)))
    with pytest.raises(InputError, match="dimension 4 .* have 3"):
        judge_embeddings(*args, truth)
    np.save(tmp_path / "i.npy", rng.standard_normal((4, 4)))
    with pytest.raises(InputError, match=r"i\.txt.*lists 5 ids but .* has 4 rows"):
        judge_embeddings(*args, truth)
