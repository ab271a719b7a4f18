"""Tie-aware evaluation (--ties optimistic | pessimistic | expected) against explicit orderings.

Small random runs with many ties: scores from {0, 1, 2}, grades from {-1, 0, 1, 2}, unjudged
items, relevant items the run misses, short and long lists. Expected values are computed by brute
force: every ordering of the tied items (permutations inside each group, their product across
groups) becomes a list of its own with distinct scores, evaluated under ``stable``, and the
values are averaged. Optimistic and pessimistic are checked against lists reordered by hand.
"""

from __future__ import annotations

import itertools
import math

import numpy as np
import pytest

from metrics import GroundTruth, Run, evaluate, judge
from metrics.errors import MeasureError
from metrics.evaluation.evaluate import tie_range
from metrics.measures.registry import REGISTRY
from metrics.measures.names import parse_measure
from metrics.ranking.streaming import judge_all_vs_all, judge_streamed
from metrics.data.ties import TiePolicy

COLLECTION = 40

# every measure that supports --ties expected, with cutoffs and parameters
EXPECTED = ["P", "P@1", "P@3", "R@2", "R", "F@3", "F(beta=2)@2", "F", "NumRel", "NumRet",
            "NumRet@3", "NumRelRet@2", "NumRelRet", "Success@1", "Success@2", "Success@4",
            "Success", "Judged@3", "Judged", "NumQ", "AP", "AP@3", "AP(norm=min)@3",
            "AP(norm=min)", "AP(norm=retrieved)", "AP(rel=2)@4", "RR", "RR@2", "RR(rel=2)",
            "RR(form=serra)@3", "RR(form=serra)", "Rprec", "BEP", "Rprec(rel=2)", "FirstRank",
            "FirstRank(rel=2)", "MeanRank", "DCG@3", "DCG", "nDCG", "nDCG(form=burges)@2",
            "DCG(form=jarvelin,base=e)@4", "EP@3", "EP", "TP@3", "FP@3", "FN@2", "TN@3",
            "Accuracy@3", "Sensitivity@2", "Specificity@3", "Fallout@3", "P(rel=2)@2",
            "BprefStar", "BprefStar@3", "BprefUncapped", "BprefUncapped(rel=2)@4", "GAP",
            "GAP@3", "RBP", "RBP(p=0.5)@3", "RBP(rel=2)", "RBPResidual", "RBPResidual(p=0.5)@3",
            "Utility", "RelP@2", "RelP", "SetAP", "NumNonrelJudgedRet@3", "Unjudged@3"]
# refused under expected: no closed form (or not for these parameters)
REFUSED = ["Fmax", "Fmax@3", "Bpref", "Bpref10", "MedianRank",
           "MedianRank@3", "ERR@3", "ERR", "AP(norm=retrieved)@3",
           "FirstRank@3", "MeanRank@3", "IPrec@0.5", "infAP", "infAP@3", "IPrecAvg", "GMAP",
           "GMBpref", "BinG", "G", "nDCGRel", "RnDCG", "YAAP"]
ALL = EXPECTED + REFUSED + ["Bpref(rel=2)", "ERR(p=linear)@2"]
# averages over the relevant items within k: moving a tie can push one out and raise the mean,
# so the optimistic and pessimistic orders need not be the extremes; and Järvelin's discount with
# base e is ln 2 < 1 at rank 2, so a gain counts more at rank 2 than at rank 1; infAP estimates
# the precision above a relevant item from the judged items there, so an unjudged item moved above
# it (pessimistic) can raise the estimate; the optimistic order puts the judged non-relevant
# items above the unjudged ones, the most NumNonrelJudgedRet@k can count
NOT_MONOTONE = {"MedianRank@3", "AP(norm=retrieved)@3", "FirstRank@3", "MeanRank@3",
                "DCG(form=jarvelin,base=e)@4", "infAP", "infAP@3", "NumNonrelJudgedRet@3"}


def test_every_measure_is_covered_and_flagged():
    covered = {parse_measure(m).name for m in EXPECTED + REFUSED}
    assert covered == set(REGISTRY)
    for m in REFUSED:
        definition = parse_measure(m).definition
        assert definition.expected == "" or parse_measure(m).cutoff is not None \
            or dict(parse_measure(m).params).get("norm") == "retrieved"
    assert all(REGISTRY[parse_measure(m).name].expected for m in EXPECTED)


# ---- random data -------------------------------------------------------------------------------

def random_queries(seed: int, queries: int = 7, long: bool = False):
    """{query: [(item, score, grade or None)]} in input order, and {query: {item: grade}} with
    some relevant items that the run does not retrieve. Orderings per query stay few enough to
    enumerate."""
    rng = np.random.default_rng(seed)
    lists, qrels = {}, {}
    for q in range(queries):
        while True:
            n = int(rng.integers(8, 13) if long else rng.integers(1, 7))
            scores = rng.integers(0, 3 if not long else 6, size=n).astype(float)
            _, sizes = np.unique(scores, return_counts=True)
            if math.prod(math.factorial(int(s)) for s in sizes) <= 800:
                break
        items = []
        judged = {}
        for i in range(n):
            grade = None
            if rng.random() < 0.7:
                grade = int(rng.choice([-1, 0, 1, 1, 2, 2]))
                judged[f"d{i}"] = grade
            items.append((f"d{i}", float(scores[i]), grade))
        for extra in range(int(rng.integers(0, 3))):
            judged[f"missed{extra}"] = int(rng.integers(1, 3))
        if not any(g >= 1 for g in judged.values()):
            judged["missed_r"] = 1
        lists[f"q{q}"], qrels[f"q{q}"] = items, judged
    return lists, qrels


def as_run(lists) -> Run:
    return Run.from_dict({q: {d: s for d, s, _ in items} for q, items in lists.items()})


def groups_in_rank_order(items):
    """The tie groups of one query's list, best score first, input order inside each."""
    scores = sorted({s for _, s, _ in items}, reverse=True)
    return [[it for it in items if it[1] == s] for s in scores]


def explicit(orderings: dict[str, list[list]], qrels) -> tuple[Run, GroundTruth]:
    """One query per given ordering (named query#n), with distinct descending scores."""
    scores, truth = {}, {}
    for q, orders in orderings.items():
        for n, order in enumerate(orders):
            scores[f"{q}#{n}"] = {d: float(len(order) - r) for r, (d, _, _) in enumerate(order)}
            truth[f"{q}#{n}"] = qrels[q]
    return Run.from_dict(scores), GroundTruth.from_dict(truth)


def every_ordering(items):
    groups = groups_in_rank_order(items)
    for parts in itertools.product(*(itertools.permutations(g) for g in groups)):
        yield [it for part in parts for it in part]


def hand_ordered(items, policy):
    """Inside each group: judged by grade, best first, unjudged last (optimistic), or the
    reverse (pessimistic)."""
    def key(item):
        return -math.inf if item[2] is None else item[2]
    out = []
    for group in groups_in_rank_order(items):
        out += sorted(group, key=key, reverse=policy == "optimistic")
    return out


def values(run, truth, ties, measures):
    judged = judge(run, truth, ties, collection_size=COLLECTION)
    return evaluate(judged, measures).per_query().set_index("query_id")


# ---- the three policies against explicit lists --------------------------------------------------

@pytest.mark.parametrize("seed,long", [(1, False), (2, False), (3, True), (4, False)])
@pytest.mark.parametrize("policy", [TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC])
def test_reordering_equals_the_hand_reordered_list(seed, long, policy):
    lists, qrels = random_queries(seed, long=long)
    got = values(as_run(lists), GroundTruth.from_dict(qrels), policy, ALL)
    run, truth = explicit({q: [hand_ordered(items, policy)] for q, items in lists.items()}, qrels)
    want = values(run, truth, "stable", ALL)
    want.index = [q.split("#")[0] for q in want.index]
    np.testing.assert_allclose(got.loc[want.index].to_numpy(float), want.to_numpy(float),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("seed,long", [(5, False), (6, False), (7, True), (8, True)])
def test_expected_equals_the_mean_over_every_ordering(seed, long):
    lists, qrels = random_queries(seed, long=long)
    got = values(as_run(lists), GroundTruth.from_dict(qrels), "expected", EXPECTED)
    orderings = {q: list(every_ordering(items)) for q, items in lists.items()}
    assert sum(len(o) for o in orderings.values()) > 3 * len(lists)   # the data has ties
    run, truth = explicit(orderings, qrels)
    each = values(run, truth, "stable", EXPECTED)
    mean = each.groupby([q.split("#")[0] for q in each.index]).mean()
    np.testing.assert_allclose(got.loc[mean.index].to_numpy(float), mean.to_numpy(float),
                               rtol=1e-9, atol=1e-12)


@pytest.mark.parametrize("seed", [9, 10])
def test_pessimistic_and_optimistic_bound_every_ordering(seed):
    lists, qrels = random_queries(seed)
    truth = GroundTruth.from_dict(qrels)
    monotone = [m for m in ALL if m not in NOT_MONOTONE]
    low = values(as_run(lists), truth, "pessimistic", monotone)
    high = values(as_run(lists), truth, "optimistic", monotone)
    run, each_truth = explicit({q: list(every_ordering(items)) for q, items in lists.items()},
                               qrels)
    each = values(run, each_truth, "stable", monotone)
    for m in monotone:
        lower_is_better = not parse_measure(m).definition.higher_is_better
        worst = (high if lower_is_better else low)[m]
        best = (low if lower_is_better else high)[m]
        for pseudo, value in each[m].items():
            q = pseudo.split("#")[0]
            if np.isnan(value):
                assert np.isnan(worst[q]) and np.isnan(best[q])
                continue
            assert worst[q] - 1e-12 <= value <= best[q] + 1e-12, (m, pseudo)


def test_hand_computed_example():
    """q1: a (judged 0), b (unjudged), c (grade 1) tie at score 1; d (grade 2) below; R = 2.
    c at rank 1, 2 or 3: AP = (1/1 + 2/4)/2, (1/2 + 2/4)/2, (1/3 + 2/4)/2."""
    run = Run.from_dict({"q1": {"a": 1, "b": 1, "c": 1, "d": 0.5}})
    truth = GroundTruth.from_dict({"q1": {"a": 0, "c": 1, "d": 2}})
    ap = {t: evaluate(judge(run, truth, t), "AP,RR,FirstRank,P@1").aggregate()
          for t in (TiePolicy.STABLE, TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC,
                    TiePolicy.EXPECTED)}
    assert ap["optimistic"]["AP"] == pytest.approx(0.75)
    assert ap["pessimistic"]["AP"] == pytest.approx((1 / 3 + 0.5) / 2)
    assert ap["expected"]["AP"] == pytest.approx((0.75 + 0.5 + (1 / 3 + 0.5) / 2) / 3)
    assert ap["expected"]["RR"] == pytest.approx((1 + 1 / 2 + 1 / 3) / 3)
    assert ap["expected"]["FirstRank"] == pytest.approx(2.0)
    assert ap["expected"]["P@1"] == pytest.approx(1 / 3)


@pytest.mark.parametrize("measure", REFUSED)
def test_refused_measures_raise(measure):
    lists, qrels = random_queries(11)
    judged = judge(as_run(lists), GroundTruth.from_dict(qrels), "expected")
    with pytest.raises(MeasureError, match="orderings"):
        evaluate(judged, measure)


def test_tie_range_is_the_pessimistic_and_optimistic_aggregate():
    lists, qrels = random_queries(12)
    truth = GroundTruth.from_dict(qrels)
    judged = judge(as_run(lists), truth, "stable", collection_size=COLLECTION)
    ranges = tie_range(judged, "AP,P@2,FP@2")
    for policy, side in ((TiePolicy.PESSIMISTIC, 0), (TiePolicy.OPTIMISTIC, 1)):
        means = evaluate(judge(as_run(lists), truth, policy, collection_size=COLLECTION),
                         "AP,P@2,FP@2").aggregate()
        assert {m: r[side] for m, r in ranges.items()} == pytest.approx(means)
    assert ranges["AP"][0] < ranges["AP"][1] and ranges["FP@2"][0] > ranges["FP@2"][1]
    untied = Run.from_dict({q: {d: -i for i, (d, _, _) in enumerate(items)}
                            for q, items in lists.items()})
    assert tie_range(judge(untied, truth), "AP") == {}


@pytest.mark.parametrize("seed", [12, 13])
@pytest.mark.parametrize("give_base", [False, True])
def test_tie_range_with_untied_queries_equals_whole_reorderings(seed, give_base):
    """Queries without a judged tie keep their values; only the tied ones are evaluated again,
    and the aggregate is that of judging every query under each policy (median too)."""
    lists, qrels = random_queries(seed)
    for n in range(6):   # queries whose scores are all distinct: nothing can move
        lists[f"plain{n}"] = [(f"u{n}_{i}", 10.0 - i, None) for i in range(5)]
        qrels[f"plain{n}"] = {f"u{n}_0": 1, f"u{n}_2": 2, f"u{n}_4": 0}
    truth = GroundTruth.from_dict(qrels)
    judged = judge(as_run(lists), truth, "stable", collection_size=COLLECTION)
    tied = np.unique(judged.hit_query[judged.hit_tie_size > 1])
    assert 0 < len(tied) < judged.num_queries   # both kinds of query are there
    measures = "AP,P@2,FP@2,nDCG"
    base = evaluate(judged, measures) if give_base else None
    for how in ("mean", "median"):
        ranges = tie_range(judged, measures, how, base)
        for policy, side in ((TiePolicy.PESSIMISTIC, 0), (TiePolicy.OPTIMISTIC, 1)):
            want = evaluate(judge(as_run(lists), truth, policy, collection_size=COLLECTION),
                            measures).aggregate(how)
            assert {m: r[side] for m, r in ranges.items()} == pytest.approx(want, abs=1e-12)


# ---- streamed paths ----------------------------------------------------------------------------

def _frame(judged, measures):
    return evaluate(judged, measures).per_query().set_index("query_id").to_numpy(float)


@pytest.mark.parametrize("policy", [TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC,
                                    TiePolicy.EXPECTED])
def test_streamed_scores_match_the_run_path(policy):
    rng = np.random.default_rng(13)
    n_queries, n_items = 6, 9
    scores = rng.integers(0, 3, size=(n_queries, n_items)).astype(np.float64)
    qids = [f"q{i}" for i in range(n_queries)]
    dids = [f"d{i}" for i in range(n_items)]
    qrels = {q: {d: int(rng.choice([0, 1, 2])) for d in rng.choice(dids, 5, replace=False)}
             for q in qids}
    for q in qids:
        qrels[q]["d0"] = 1
    truth = GroundTruth.from_dict(qrels)
    run = Run.from_dict({q: {d: scores[i, k] for k, d in enumerate(dids)}
                         for i, q in enumerate(qids)})
    measures = EXPECTED if policy == "expected" else ALL
    streamed = judge_streamed(scores, qids, dids, truth, policy, collection_size=COLLECTION)
    direct = judge(run, truth, policy, collection_size=COLLECTION)
    np.testing.assert_allclose(_frame(streamed, measures), _frame(direct, measures),
                               rtol=1e-12, atol=1e-12)


@pytest.mark.parametrize("policy", [TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC,
                                    TiePolicy.EXPECTED])
def test_all_vs_all_matrix_matches_the_run_path(policy):
    rng = np.random.default_rng(14)
    n = 9
    matrix = rng.integers(0, 3, size=(n, n)).astype(np.float64)
    ids = [f"i{k}" for k in range(n)]
    labels = ["a", "b", "a", "c", "b", "a", "c", "b", "c"]
    truth = GroundTruth.from_labels(ids, labels)
    run = Run.from_dict({ids[i]: {ids[k]: matrix[i, k] for k in range(n)} for i in range(n)})
    measures = (EXPECTED if policy == "expected" else ALL)
    counted = judge_all_vs_all(matrix, ids, labels, policy, collection_size=n - 1)
    direct = judge(run, truth, policy, collection_size=n - 1)
    assert counted.hit_tie_size is not None
    np.testing.assert_allclose(_frame(counted, measures), _frame(direct, measures),
                               rtol=1e-12, atol=1e-12)


# ---- command line ------------------------------------------------------------------------------

def test_command_line_reports_the_tie_range_and_refuses(tmp_path):
    import json
    import subprocess
    import sys
    from pathlib import Path
    (tmp_path / "run.txt").write_text("q1 Q0 a 1 1.0 s\nq1 Q0 b 2 1.0 s\nq1 Q0 c 3 1.0 s\n"
                                      "q1 Q0 d 4 0.5 s\n")
    (tmp_path / "qrels.txt").write_text("q1 0 a 0\nq1 0 c 1\nq1 0 d 2\n")

    def cli(*args):
        done = subprocess.run([sys.executable, "-m", "metrics", "evaluate",
                               str(tmp_path / "run.txt"), str(tmp_path / "qrels.txt"), *args],
                              cwd=Path(__file__).resolve().parents[1], capture_output=True,
                              text=True, timeout=120)
        return done.returncode, done.stdout, done.stderr

    code, out, _ = cli("-m", "AP,P@1", "--ties", "expected", "--format", "json")
    assert code == 0
    data = json.loads(out)
    # c at rank 1, 2 or 3 (see test_hand_computed_example)
    assert data["aggregate"]["AP"] == pytest.approx((0.75 + 0.5 + (1 / 3 + 0.5) / 2) / 3)
    assert data["tie_range"]["AP"] == pytest.approx([(1 / 3 + 0.5) / 2, 0.75])
    assert data["tie_range"]["P@1"] == [0.0, 1.0]
    code, out, _ = cli("-m", "AP", "--ties", "optimistic")
    assert code == 0 and "0.7500" in out and "ties: pessimistic..optimistic" in out
    code, out, err = cli("-m", "AP,ERR", "--ties", "expected")
    assert code == 2 and out == "" and len(err.strip().splitlines()) == 1 and "ERR" in err


def test_query_table_marks_tie_groups():
    from metrics.explain.summaries import query_table
    run = Run.from_dict({"q1": {"a": 1, "b": 1, "c": 1, "d": 0.5, "e": 0.2, "f": 0.2}})
    truth = GroundTruth.from_dict({"q1": {"c": 1}})
    table = query_table(judge(run, truth), 0)
    assert table["tied ranks"].tolist() == ["1–3", "1–3", "1–3", "", "5–6", "5–6"]
    untied = Run.from_dict({"q1": {"a": 2, "b": 1}})
    assert "tied ranks" not in query_table(judge(untied, truth), 0)


def test_all_vs_all_expected_equals_the_mean_over_every_ordering():
    """Clique labels judge every item: the items between the hits are judged non-relevant, which
    the bpref family counts. Brute force: every ordering of each query's list as an answer set
    whose items are all judged (Serrà's form), with the same |D|."""
    from metrics.data.judged import JudgedRanking
    rng = np.random.default_rng(15)
    n = 7
    matrix = rng.integers(0, 3, size=(n, n)).astype(np.float64)
    ids = [f"i{k}" for k in range(n)]
    labels = ["a", "b", "a", "a", "b", "c", "a"]
    got = _frame(judge_all_vs_all(matrix, ids, labels, TiePolicy.EXPECTED, collection_size=n - 1),
                 EXPECTED)
    lists, relevant, owner = [], [], []
    for i in range(n):
        items = [(ids[k], matrix[i, k], int(labels[k] == labels[i])) for k in range(n) if k != i]
        for order in every_ordering(items):
            lists.append([grade for _, _, grade in order])
            relevant.append(sum(int(labels[k] == labels[i]) for k in range(n) if k != i))
            owner.append(i)
    each = _frame(JudgedRanking.from_relevance(lists, relevant, collection_size=n - 1), EXPECTED)
    owner = np.array(owner)
    assert len(owner) > 3 * n   # the data has ties
    with np.errstate(all="ignore"):
        mean = np.array([each[owner == i].mean(axis=0) for i in range(n)])
    np.testing.assert_allclose(got, mean, rtol=1e-9, atol=1e-12)
