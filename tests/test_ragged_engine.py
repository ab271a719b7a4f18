"""The ragged engine on skewed runs (one list a thousand times longer than the rest), against
trec_eval (pytrec_eval), ranx and a brute-force reference written here from the definitions of
SPEC §4 over each query's dense list; streamed embeddings against a brute-force sort."""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from metrics import GroundTruth, Run, evaluate, judge
from metrics.evaluation.curves import (RECALL_LEVELS, interpolated_precision, lift_curve, mean_lift,
                            rank_curves, roc_auc, roc_curve)
from metrics.errors import InputError
from metrics.ranking.streaming import EmbeddingScores, judge_streamed

LONG = 5000   # the long list; the others hold 1..5 items


def skewed(seed: int, n_queries: int = 40):
    """{query: {item: score}} and {query: {item: grade}}: grades -1..3 (negative: pooled but not
    judged), scores rounded so that ties occur, one list of LONG items with relevant items deep
    in it, some truth queries without a list and some without a relevant item."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for qi in range(n_queries):
        query = f"q{qi}"
        length = LONG if qi == 3 else int(rng.integers(1, 6))
        items = [f"d{i}" for i in rng.choice(3 * LONG, length, replace=False)]
        judged = list(rng.choice(items, min(length, int(rng.integers(1, 8))), replace=False))
        judged += [f"u{qi}_{i}" for i in range(int(rng.integers(0, 3)))]   # never retrieved
        grades = rng.integers(-1, 4, len(judged))
        if qi == 3:   # relevant items deep in the long list
            judged += items[-3:]
            grades = np.r_[grades, [2, 1, 3]]
        qrels[query] = {d: int(g) for d, g in zip(judged, grades)}
        if qi % 9 == 8:
            continue   # a truth query the run lacks
        scores = np.round(rng.uniform(0, 1, length), 2 if qi % 2 else 6)
        run[query] = {d: float(s) for d, s in zip(items, scores)}
    return run, qrels


def trec_order(items: dict[str, float]) -> list[str]:
    """trec_eval 9's ranking: score as float32 descending, ties by item id descending."""
    return sorted(items, key=lambda d: (-float(np.float32(items[d])), [-ord(c) for c in d] + [0]))


def dense_lists(run, qrels):
    """query -> grades down the list (None for unjudged)."""
    return {q: [qrels[q].get(d) for d in trec_order(run.get(q, {}))] for q in qrels}


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


@pytest.mark.parametrize("seed", range(2))
def test_judged_share_agrees_with_ir_measures(seed):
    import ir_measures
    run, qrels = skewed(seed)
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties="trec")
    ours = evaluate(judged, "Judged@5,Judged@100")
    theirs = {(m.query_id, str(m.measure)): m.value for m in ir_measures.iter_calc(
        [ir_measures.Judged @ 5, ir_measures.Judged @ 100], qrels, run)}
    compared = 0
    for i, query in enumerate(judged.query_ids):
        if (query, "Judged@5") in theirs and not np.isnan(ours.results["Judged@5"].values[i]):
            for k in (5, 100):
                assert ours.results[f"Judged@{k}"].values[i] == pytest.approx(
                    theirs[(query, f"Judged@{k}")], abs=1e-12), (query, k)
                compared += 1
    assert compared > 40


def test_bpref_reads_negative_grades_as_pooled_but_unjudged():
    """The case of the issue: trec_eval gives 0.5 (d1, grade −1, is not judged non-relevant)."""
    qrels = {"q1": {"d1": -1, "d2": 1, "d3": 0, "d4": 1}}
    run = {"q1": {"d1": 4.0, "d2": 3.0, "d3": 2.0, "d4": 1.0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"bpref"}).evaluate(run)["q1"]["bpref"]
    got = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels), "trec"), "Bpref")
    assert expected == pytest.approx(0.5)
    assert got.aggregate()["Bpref"] == pytest.approx(0.5)


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


# ---- brute force over dense lists ---------------------------------------------------------------

def brute(grades: list, r_q: dict, n_judged_nonrel: int, gmax: int, k: int | None):
    """Measures computed from one query's dense list by their definitions (SPEC §4)."""
    top = grades if k is None else grades[:k]
    rel = [g is not None and g >= 1 for g in top]
    ranks = [i + 1 for i, x in enumerate(rel) if x]
    R = r_q
    out = {}
    out["AP(norm=min)"] = (sum((j + 1) / r for j, r in enumerate(ranks)) / min(k or len(grades), R)
                           if min(k or len(grades), R) else 0.0)
    out["RR(form=serra)"] = sum(1 / r for r in ranks) / len(top) if top else 0.0
    f = [0.0] + [2 * (j + 1) / r * (j + 1) / R / ((j + 1) / r + (j + 1) / R)
                 for j, r in enumerate(ranks)]
    out["Fmax"] = max(f)
    out["FirstRank"] = ranks[0] if ranks else math.nan
    out["MedianRank"] = float(np.median(ranks)) if ranks else math.nan
    out["MeanRank"] = float(np.mean(ranks)) if ranks else math.nan
    nonrel_above = [sum(1 for g in top[:r - 1] if g is not None and 0 <= g < 1) for r in ranks]
    out["Bpref10"] = sum(1 - min(n, R + 10) / (R + 10) for n in nonrel_above) / R
    out["BprefStar"] = sum(1 - n / (len(top) + R) for n in nonrel_above) / R
    out["BprefUncapped"] = sum(1 - n / R for n in nonrel_above) / R
    gains = [max(g or 0, 0) for g in top]
    out["DCG(form=burges)"] = sum((2 ** g - 1) / math.log2(i + 2) for i, g in enumerate(gains))
    out["DCG(form=jarvelin,base=e)"] = sum(g / (1 if i == 0 else math.log(i + 1))
                                           for i, g in enumerate(gains))
    p = [(2 ** g - 1) / 2 ** gmax for g in gains]
    err, reach = 0.0, 1.0
    for i, pi in enumerate(p):
        err += reach * pi / (i + 1)
        reach *= 1 - pi
    out["ERR"] = err
    weights = [t / sum(range(1, gmax + 1)) for t in range(gmax + 1)]
    depth = k if k is not None else len(grades)
    out["EP"] = (sum(weights[t] * sum(g >= t for g in gains) / depth for t in range(1, gmax + 1))
                 if depth else 0.0)
    gap = 0.0
    for i, g in enumerate(gains):
        for t in range(1, min(g, gmax) + 1):
            gap += weights[t] * sum(x >= t for x in gains[:i + 1]) / (i + 1)
    total_weight = sum(count * sum(weights[1:g + 1]) for g, count in r_q_by_grade.items()
                       if g >= 1)
    out["GAP"] = gap / total_weight
    return out


r_q_by_grade: dict[int, int] = {}


@pytest.mark.parametrize("seed", range(2))
@pytest.mark.parametrize("k", [None, 3, 10])
def test_skewed_runs_agree_with_brute_force(seed, k):
    global r_q_by_grade
    run, qrels = skewed(seed)
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties="trec")
    gmax = max(g for judged_items in qrels.values() for g in judged_items.values())
    names = ["AP(norm=min)", "RR(form=serra)", "Fmax", "FirstRank", "MedianRank", "MeanRank",
             "Bpref10", "BprefStar", "BprefUncapped", "DCG(form=burges)",
             "DCG(form=jarvelin,base=e)", "ERR", "EP", "GAP"]
    suffix = "" if k is None else f"@{k}"
    result = evaluate(judged, [n + suffix for n in names])
    lists = dense_lists(run, qrels)
    checked = 0
    for i, query in enumerate(judged.query_ids):
        grades = [g for g in qrels[query].values()]
        r_q = sum(g >= 1 for g in grades)
        if not r_q:
            continue
        r_q_by_grade = {g: grades.count(g) for g in set(grades)}
        nonrel = sum(0 <= g < 1 for g in grades)
        expected = brute(lists[query], r_q, nonrel, gmax, k)
        for name in names:
            got = result.results[name + suffix].values[i]
            want = expected[name]
            assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(
                want, rel=1e-9, abs=1e-12), (query, name, k)
            checked += 1
    assert checked > 200


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
        assert auc[i] == pytest.approx(np.trapezoid(tpr, fpr), abs=1e-12)
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


@pytest.mark.parametrize("ties", ["stable", "id", "trec"])
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
