"""Agreement with the reference implementations: trec_eval (through pytrec_eval) and ranx.

Seeded random runs and graded qrels (grades 0/1/2) exercise what usually goes wrong: short lists
(fewer items than the cutoff), ground-truth queries absent from the run, unjudged retrieved items,
judged non-relevant items, and score ties — exact ties (scores rounded to 1 or 2 decimals) and ties
that only exist in float32, which trec_eval uses to store scores (``ties="trec9"``: score
descending after float32 rounding, then item id descending as ``strcmp``). Every ground-truth query
has at least one relevant item, so R_q > 0 and no value is undefined on our side.

Every expected value comes from pytrec_eval or ranx, never from this project's code.
"""

from __future__ import annotations

import math

import numpy as np
import pytest
import pytrec_eval

from metrics.evaluation.evaluate import evaluate
from metrics.data.truth import GroundTruth
from metrics.data.run import Run
from metrics.ranking.rank import judge

# Item ids whose strcmp order differs from their numeric order ("d9" > "d149"), so the trec
# tie-break (id descending as strings) is really tested.
POOL = [f"d{i}" for i in range(150)]
N_QUERIES = 30
MAX_ITEMS = 50
ABSENT_EVERY = 6      # query q5, q11, ... is in the ground truth but not in the run
SHORT_EVERY = 3       # query q0, q3, ... gets a list of 1..9 items (shorter than the cutoff 10)

# (seed, decimals the scores are rounded to): 1 decimal gives many ties, 2 decimals fewer.
TREC_CASES = [(0, 1), (1, 2), (2, 1), (3, 2), (4, 1), (5, 2), (2024, 1), (31337, 2)]
RANX_SEEDS = [0, 1, 2, 3]

# trec_eval measure -> ours (docs/measures.md lists the aliases)
TREC_TO_OURS = {
    "map": "AP",
    "map_cut_5": "AP@5",
    "map_cut_10": "AP@10",
    "P_5": "P@5",
    "P_10": "P@10",
    "recall_5": "R@5",
    "recall_10": "R@10",
    "recip_rank": "RR",
    "Rprec": "Rprec",
    "ndcg": "nDCG",
    "ndcg_cut_10": "nDCG@10",
    "bpref": "Bpref",
    "num_rel": "NumRel",
    "num_ret": "NumRet",
    "num_rel_ret": "NumRelRet",
}
TREC_REQUEST = {"map", "map_cut.5,10", "P.5,10", "recall.5,10", "recip_rank", "Rprec", "ndcg",
                "ndcg_cut.10", "bpref", "num_rel", "num_ret", "num_rel_ret"}
# trec_eval computes bpref's fraction in C float; allow for it. Everything else is double.
TOLERANCE = {"bpref": 1e-6}
DEFAULT_TOLERANCE = 1e-9

# ranx measure -> ours. ranx's "ndcg" is Järvelin's gain = grade with log2(i+1), as trec_eval's.
RANX_TO_OURS = {
    "map": "AP",
    "map@10": "AP@10",
    "precision@10": "P@10",
    "recall@10": "R@10",
    "mrr": "RR",
    "ndcg": "nDCG",
    "ndcg@10": "nDCG@10",
}


def make_dataset(seed: int, decimals: int, float32_nudge: float = 0.15):
    """Random ``run`` ({query: {item: score}}) and graded ``qrels`` ({query: {item: grade}}).

    Each query judges 1..39 items of the pool (grades 0, 1, 2, at least one >= 1). Every
    ABSENT_EVERY-th query is left out of the run; every SHORT_EVERY-th gets 1..9 items, the others
    10..50. About half of a list is drawn from the judged items, the rest from the whole pool (so
    many retrieved items are unjudged). Scores are uniform in [-1, 1] rounded to ``decimals``;
    a share ``float32_nudge`` of them gets 1e-12 added, which changes the double but not the float32
    value. Items are inserted in a random order, so input order says nothing about the ranking.
    """
    rng = np.random.default_rng(seed)
    qrels: dict[str, dict[str, int]] = {}
    run: dict[str, dict[str, float]] = {}
    for qi in range(N_QUERIES):
        query = f"q{qi}"
        n_judged = int(rng.integers(1, 40))
        judged = rng.choice(len(POOL), size=n_judged, replace=False)
        grades = rng.integers(0, 3, size=n_judged)
        if not (grades >= 1).any():
            grades[int(rng.integers(n_judged))] = int(rng.integers(1, 3))
        qrels[query] = {POOL[i]: int(g) for i, g in zip(judged, grades)}
        if qi % ABSENT_EVERY == ABSENT_EVERY - 1:
            continue
        if qi % SHORT_EVERY == 0:
            n = int(rng.integers(1, 10))
        else:
            n = int(rng.integers(10, MAX_ITEMS + 1))
        from_judged = rng.choice(judged, size=min(n_judged, n // 2 + 1), replace=False)
        from_pool = rng.choice(len(POOL), size=n, replace=False)
        items = list(dict.fromkeys([*from_judged.tolist(), *from_pool.tolist()]))[:n]
        scores = np.round(rng.uniform(-1.0, 1.0, size=len(items)), decimals)
        nudge = rng.random(len(items)) < float32_nudge
        scores = np.where(nudge, scores + 1e-12, scores)
        order = rng.permutation(len(items))
        run[query] = {POOL[items[i]]: float(scores[i]) for i in order}
    return run, qrels


def distinct_scores(run: dict[str, dict[str, float]], seed: int) -> dict[str, dict[str, float]]:
    """The same lists with scores replaced by a random permutation of distinct, well-separated
    values (ranx breaks ties its own way, so its comparison must have none)."""
    rng = np.random.default_rng(seed + 10_000)
    out = {}
    for query, items in run.items():
        values = (rng.permutation(len(items)) + 1) / len(items)
        out[query] = {item: float(v) for item, v in zip(items, values)}
    return out


def ours_per_query(run, qrels, measures, ties):
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties=ties)
    table = evaluate(judged, ",".join(measures)).per_query()
    return {row["query_id"]: row for row in table.to_dict("records")}


def trec_eval(run, qrels):
    return pytrec_eval.RelevanceEvaluator(qrels, TREC_REQUEST).evaluate(run)


def close(a: float, b: float, tol: float) -> bool:
    return not math.isnan(a) and abs(a - b) <= tol


# ---- the data really has the features the comparisons rely on ----------------------------------

@pytest.mark.parametrize("seed,decimals", TREC_CASES)
def test_dataset_exercises_the_edge_cases(seed, decimals):
    run, qrels = make_dataset(seed, decimals)
    assert all(any(g >= 1 for g in judged.values()) for judged in qrels.values())
    absent = [q for q in qrels if q not in run]
    assert absent, "some ground-truth queries must be missing from the run"
    lengths = [len(items) for items in run.values()]
    assert min(lengths) < 5 and any(5 <= n < 10 for n in lengths) and max(lengths) >= 30
    retrieved = [(q, d) for q, items in run.items() for d in items]
    assert any(d not in qrels[q] for q, d in retrieved), "unjudged retrieved items"
    assert any(qrels[q].get(d) == 0 for q, d in retrieved), "judged non-relevant retrieved items"
    assert any(qrels[q].get(d) == 2 for q, d in retrieved)
    assert any(qrels[q].get(d) == 1 for q, d in retrieved)

    exact_mixed = f32_only_mixed = 0
    for query, items in run.items():
        entries = list(items.items())
        for i, (a, sa) in enumerate(entries):
            for b, sb in entries[i + 1:]:
                mixed = (qrels[query].get(a, -1) >= 1) != (qrels[query].get(b, -1) >= 1)
                if sa == sb and mixed:
                    exact_mixed += 1
                elif sa != sb and np.float32(sa) == np.float32(sb) and mixed:
                    # the float32 tie overturns the double order only when the higher double
                    # score has the smaller id
                    higher, lower = (a, b) if sa > sb else (b, a)
                    f32_only_mixed += higher < lower
    assert exact_mixed > 0, "ties between a relevant and a non-relevant item"
    assert f32_only_mixed > 0, "float32-only ties that change the ranking of a relevant item"


# ---- trec_eval ---------------------------------------------------------------------------------

@pytest.mark.parametrize("seed,decimals", TREC_CASES)
def test_agrees_with_trec_eval_per_query(seed, decimals):
    run, qrels = make_dataset(seed, decimals)
    reference = trec_eval(run, qrels)
    ours = ours_per_query(run, qrels, TREC_TO_OURS.values(), ties="trec")
    assert set(ours) == set(qrels)
    # pytrec_eval reports exactly the queries with a non-empty list
    assert set(reference) == set(run)
    mismatches = []
    for query in qrels:
        for trec_name, our_name in TREC_TO_OURS.items():
            value = float(ours[query][our_name])
            if query in reference:
                expected = reference[query][trec_name]
            elif trec_name == "num_rel":
                expected = float(sum(g >= 1 for g in qrels[query].values()))
            else:
                expected = 0.0  # a truth query missing from the run scores 0
            if not close(value, expected, TOLERANCE.get(trec_name, DEFAULT_TOLERANCE)):
                mismatches.append((query, our_name, trec_name, value, expected))
    assert not mismatches, f"{len(mismatches)} disagreements, first: {mismatches[:5]}"


@pytest.mark.parametrize("seed,decimals", TREC_CASES[:4])
def test_tie_breaking_is_exercised(seed, decimals):
    """The data is tie-sensitive: the input-order (stable) policy does NOT reproduce trec_eval,
    so the agreement above really depends on the trec tie policy."""
    run, qrels = make_dataset(seed, decimals)
    reference = trec_eval(run, qrels)
    ours = ours_per_query(run, qrels, TREC_TO_OURS.values(), ties="stable")
    differences = sum(
        not close(float(ours[q][ours_name]), reference[q][trec_name], 1e-9)
        for q in reference for trec_name, ours_name in TREC_TO_OURS.items())
    assert differences > 0


def test_trec_tie_policy_on_a_float32_tie():
    """Two scores distinct as doubles but equal as float32: trec_eval orders them by id
    descending ("d2" before "d10" under strcmp), not by the double value."""
    run = {"q1": {"d10": 0.5 + 1e-12, "d2": 0.5, "d3": 0.25}}
    qrels = {"q1": {"d2": 1, "d10": 0, "d7": 2}}
    reference = trec_eval(run, qrels)["q1"]
    ours = ours_per_query(run, qrels, TREC_TO_OURS.values(), ties="trec")["q1"]
    assert reference["recip_rank"] == 1.0  # the oracle really puts d2 first
    for trec_name, our_name in TREC_TO_OURS.items():
        assert close(float(ours[our_name]), reference[trec_name],
                     TOLERANCE.get(trec_name, DEFAULT_TOLERANCE)), (our_name, trec_name)


# ---- ranx --------------------------------------------------------------------------------------

@pytest.fixture(scope="module")
def ranx():
    """ranx is a declared test dependency (pyproject [test]): missing, the test fails."""
    try:
        import ranx as module
    except ImportError as exc:  # pragma: no cover - only when the environment is broken
        pytest.fail(f"ranx is a declared test dependency and cannot be imported: {exc}")
    return module


@pytest.mark.filterwarnings("ignore:unsafe cast:Warning")
@pytest.mark.parametrize("seed", RANX_SEEDS)
def test_agrees_with_ranx_per_query(ranx, seed):
    run, qrels = make_dataset(seed, decimals=2)
    run = distinct_scores(run, seed)
    assert all(len(set(items.values())) == len(items) for items in run.values())
    rx_run = ranx.Run(run)
    # ranx keeps grade-0 judgements but counts only grades >= 1 (rel_lvl 1) as relevant
    rx_qrels = ranx.Qrels(qrels)
    reference = ranx.evaluate(rx_qrels, rx_run, list(RANX_TO_OURS), return_mean=False,
                              make_comparable=True)  # empty lists for queries absent from the run
    rx_queries = list(rx_run.get_query_ids())
    assert sorted(rx_queries) == sorted(qrels)
    ours = ours_per_query(run, qrels, RANX_TO_OURS.values(), ties="stable")
    mismatches = []
    for rx_name, our_name in RANX_TO_OURS.items():
        values = reference[rx_name]
        assert len(values) == len(rx_queries)
        for query, expected in zip(rx_queries, values):
            value = float(ours[query][our_name])
            if query not in run:
                assert expected == 0.0  # ranx, too, gives an empty list 0
            if not close(value, float(expected), DEFAULT_TOLERANCE):
                mismatches.append((query, our_name, rx_name, value, float(expected)))
    assert not mismatches, f"{len(mismatches)} disagreements, first: {mismatches[:5]}"
