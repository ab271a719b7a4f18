"""Property tests (hypothesis) of the measures: bounds, identities between measures, and
invariances of the input (the conventions of docs/conventions.md).

Where a property needs a ranking, R_q or a true-positive count, the test computes it itself from
the generated data (``oracle_ranking``, ``r_q``), never from the engine.
"""

from __future__ import annotations

import math
import random

import numpy as np
from hypothesis import HealthCheck, example, given, settings
from hypothesis import strategies as st

from metrics.evaluation.evaluate import evaluate
from metrics.data.truth import GroundTruth
from metrics.data.run import Run
from metrics.ranking.rank import judge
from metrics.measures.registry import REGISTRY
import metrics.measures  # noqa: F401  (registers the measures)

SETTINGS = settings(max_examples=80, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow, HealthCheck.data_too_large])
TIES = ("stable", "id", "trec")
CUTOFFS = (1, 2, 3, 5, 10, 20)
N_ITEMS = 12
COLLECTION_SIZE = 100

# Measures whose values are bounded to [0, 1] (docs/measures.md), with @k where they take it.
BOUNDED = ("P@{k}", "R@{k}", "F@{k}", "P", "R", "F", "AP", "AP@{k}", "RR", "RR@{k}", "nDCG",
           "nDCG@{k}", "Rprec", "BEP", "Fmax", "Fmax@{k}", "ERR", "ERR@{k}", "EP@{k}", "EP", "GAP",
           "GAP@{k}", "Bpref", "Bpref@{k}", "Bpref10", "Bpref10@{k}", "IPrec@0.5", "IPrec@0",
           "RBP", "RBP@{k}", "RBPResidual", "RBPResidual@{k}", "infAP", "infAP@{k}")
# Measures with a value for an empty list, and that value (a truth query missing from
# the run scores 0 where a measure has a value for an empty list; FirstRank is then undefined).
EMPTY_LIST_VALUE = {"P@5": 0.0, "R@5": 0.0, "F@5": 0.0, "AP": 0.0, "AP@5": 0.0, "RR": 0.0,
                    "nDCG": 0.0, "nDCG@5": 0.0, "Rprec": 0.0, "BEP": 0.0, "Fmax": 0.0, "ERR": 0.0,
                    "EP@5": 0.0, "GAP": 0.0, "Bpref": 0.0, "Bpref10": 0.0, "TP@5": 0.0,
                    "NumRet": 0.0, "NumRelRet": 0.0, "FirstRank": math.nan}


def every_measure() -> list[str]:
    """Every registered measure with default parameters, with and without @5 where allowed
    (@0.5 where @ gives a recall level)."""
    names = []
    for name, definition in REGISTRY.items():
        if definition.cutoff != "required":
            names.append(name)
        if definition.cutoff != "none":
            names.append(f"{name}@0.5" if definition.at == "recall" else f"{name}@5")
    return names


# ---- data --------------------------------------------------------------------------------------

SCORES = st.one_of(st.sampled_from([0.0, -0.0, 0.5, 1.0, -1.0]),
                   st.floats(-1e6, 1e6, allow_nan=False, allow_infinity=False))


@st.composite
def datasets(draw, max_queries=4, max_grade=2, require_relevant=False, force_list=True):
    """A ground truth and a run.

    ``truth``: {query: {item: grade}} with at least one judgement per query (a query without any
    has no R_q = 0 row, it simply is not a truth query). ``rows``: the run as a list of
    (query, item, score) in input order; some truth queries may be absent, and a run-only query
    may be present. Item ids are either all like "d7" or all integers as strings ("7"), so the
    ``id`` policy's numeric order is exercised too.

    ``force_list`` keeps at least one truth query with a non-empty list: the case where no truth
    query has one is tested on its own (test_queries_absent_from_the_run_score_zero).
    """
    numeric = draw(st.booleans())
    ids = [str(i) if numeric else f"d{i}" for i in range(N_ITEMS)]
    n_queries = draw(st.integers(1, max_queries))
    queries = [f"q{i}" for i in range(n_queries)]
    truth = {}
    for q in queries:
        judged = draw(st.dictionaries(st.sampled_from(ids), st.integers(0, max_grade),
                                      min_size=1, max_size=8))
        if require_relevant and not any(g >= 1 for g in judged.values()):
            judged[draw(st.sampled_from(sorted(judged)))] = draw(st.integers(1, max_grade))
        truth[q] = judged
    in_run = [q for q in queries if draw(st.booleans()) or q == queries[0] and force_list]
    if draw(st.booleans()):
        in_run.append("q_run_only")
    rows = []
    for q in in_run:
        min_size = 1 if (q == queries[0] and force_list) else 0
        items = draw(st.lists(st.sampled_from(ids), unique=True, min_size=min_size, max_size=10))
        scores = draw(st.lists(SCORES, min_size=len(items), max_size=len(items)))
        rows.extend((q, d, s) for d, s in zip(items, scores))
    return truth, rows


@st.composite
def datasets_with_ideal_queries(draw, max_grade=2):
    """Every truth query has R_q > 0; some queries' lists are built so that every relevant item
    of the truth leads the ranking, in decreasing grade (the ideal ranking), followed by
    non-relevant or unjudged items. Scores are non-increasing along the intended order, with
    ties, so the ranking is the intended one under the ``stable`` policy."""
    truth, rows = draw(datasets(max_grade=max_grade, require_relevant=True))
    ideal = {q for q in truth if draw(st.booleans())}
    rows = [r for r in rows if r[0] not in ideal]
    ids = sorted({d for judged in truth.values() for d in judged} | {r[1] for r in rows})
    for q in sorted(ideal):
        relevant = [d for d, g in truth[q].items() if g >= 1]
        relevant = draw(st.permutations(relevant))
        relevant = sorted(relevant, key=lambda d: -truth[q][d])  # stable: shuffled within grade
        others = [d for d in ids if truth[q].get(d, 0) == 0]
        tail = draw(st.lists(st.sampled_from(others), unique=True, max_size=5)) if others else []
        order = relevant + tail
        scores = sorted(draw(st.lists(SCORES, min_size=len(order), max_size=len(order))),
                        reverse=True)
        rows.extend((q, d, s) for d, s in zip(order, scores))
    return truth, rows, ideal


def build(truth, rows):
    run = Run.build([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    return run, GroundTruth.from_dict(truth)


def run_eval(truth, rows, measures, ties="stable", collection_size=None) -> dict[str, dict]:
    run, gt = build(truth, rows)
    result = evaluate(judge(run, gt, ties=ties, collection_size=collection_size), measures)
    return {row["query_id"]: row for row in result.per_query().to_dict("records")}


# ---- oracles computed from the generated data --------------------------------------------------

def r_q(truth, query, threshold=1) -> int:
    return sum(g >= threshold for g in truth[query].values())


def oracle_ranking(rows, query, ties) -> list[str]:
    """The items of ``query`` in rank order under a tie policy, by Python's stable sort.
    stable: score desc, input order; id: score desc, id asc (numeric when all ids are integers);
    trec: float32 score desc, id desc as strings."""
    entries = [(d, s) for q, d, s in rows if q == query]
    if ties == "id":
        all_ids = [d for _, d, _ in rows]
        numeric = all(d.lstrip("-").isdigit() for d in all_ids)
        entries.sort(key=(lambda e: int(e[0])) if numeric else (lambda e: e[0]))
    elif ties == "trec":
        entries.sort(key=lambda e: e[0], reverse=True)
        entries = [(d, float(np.float32(s))) for d, s in entries]
    entries.sort(key=lambda e: -e[1])
    return [d for d, _ in entries]


def is_relevant(truth, query, item, threshold=1) -> bool:
    return truth[query].get(item, 0) >= threshold


def same(a: float, b: float) -> bool:
    return (math.isnan(a) and math.isnan(b)) or a == b


# ---- properties --------------------------------------------------------------------------------

@SETTINGS
@given(data=datasets(), k=st.sampled_from(CUTOFFS), ties=st.sampled_from(TIES))
def test_bounded_measures_stay_in_unit_interval(data, k, ties):
    truth, rows = data
    measures = [m.format(k=k) for m in BOUNDED]
    table = run_eval(truth, rows, measures, ties=ties)
    assert set(table) == set(truth)
    for query, row in table.items():
        for m in measures:
            value = row[m]
            if r_q(truth, query) == 0:
                assert math.isnan(value), (query, m, value)  # R_q = 0: undefined, by design
            else:
                assert 0.0 <= value <= 1.0, (query, m, value)


@SETTINGS
@given(data=datasets_with_ideal_queries(max_grade=1), ties=st.sampled_from(TIES))
def test_ap_is_one_iff_relevant_items_lead(data, ties):
    truth, rows, _ = data
    table = run_eval(truth, rows, ["AP"], ties=ties)
    for query, row in table.items():
        relevant = {d for d, g in truth[query].items() if g >= 1}
        ranking = oracle_ranking(rows, query, ties)
        leads = set(ranking[: len(relevant)]) == relevant
        assert (row["AP"] == 1.0) == leads, (query, row["AP"], ranking, relevant)


@SETTINGS
@given(data=datasets(), seed=st.integers(0, 2**32 - 1))
def test_renaming_items_changes_nothing(data, seed):
    truth, rows = data
    names = sorted({d for judged in truth.values() for d in judged} | {r[1] for r in rows})
    rng = random.Random(seed)
    targets = [f"item-{i}" for i in rng.sample(range(10 * len(names) + 10), len(names))]
    rename = dict(zip(names, targets))
    assert len(set(rename.values())) == len(rename)  # a bijection
    renamed_truth = {q: {rename[d]: g for d, g in judged.items()} for q, judged in truth.items()}
    renamed_rows = [(q, rename[d], s) for q, d, s in rows]
    measures = every_measure()
    before = run_eval(truth, rows, measures, "stable", COLLECTION_SIZE)
    after = run_eval(renamed_truth, renamed_rows, measures, "stable", COLLECTION_SIZE)
    assert before.keys() == after.keys()
    for query in before:
        for m in measures:
            assert same(before[query][m], after[query][m]), (query, m)


@SETTINGS
@given(data=datasets(), k=st.sampled_from(CUTOFFS), ties=st.sampled_from(TIES))
def test_precision_recall_f_and_true_positives_at_k(data, k, ties):
    truth, rows = data
    names = [f"P@{k}", f"R@{k}", f"F@{k}", f"TP@{k}", "NumRel"]
    table = run_eval(truth, rows, names, ties=ties)
    for query, row in table.items():
        rq = r_q(truth, query)
        if rq == 0:
            assert all(math.isnan(row[m]) for m in names)
            continue
        p, r, f, tp = row[f"P@{k}"], row[f"R@{k}"], row[f"F@{k}"], row[f"TP@{k}"]
        ranking = oracle_ranking(rows, query, ties)
        oracle_tp = sum(is_relevant(truth, query, d) for d in ranking[:k])
        assert tp == oracle_tp
        assert row["NumRel"] == rq
        assert math.isclose(p * k, tp, rel_tol=1e-12, abs_tol=1e-12)
        assert math.isclose(r * row["NumRel"], tp, rel_tol=1e-12, abs_tol=1e-12)
        expected_f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        assert math.isclose(f, expected_f, rel_tol=1e-12, abs_tol=1e-15)


@SETTINGS
@given(data=datasets_with_ideal_queries(max_grade=2))
def test_ndcg_is_one_for_an_ideal_ranking(data):
    truth, rows, ideal = data
    measures = ["nDCG"] + [f"nDCG@{k}" for k in CUTOFFS]
    table = run_eval(truth, rows, measures, ties="stable")
    for query in ideal:
        for m in measures:
            assert abs(table[query][m] - 1.0) <= 1e-12, (query, m, table[query][m])


@SETTINGS
@given(data=datasets(), k=st.sampled_from(CUTOFFS), ties=st.sampled_from(TIES))
def test_first_rank_is_the_reciprocal_of_rr(data, k, ties):
    truth, rows = data
    names = ["RR", "FirstRank", f"RR@{k}", f"FirstRank@{k}"]
    table = run_eval(truth, rows, names, ties=ties)
    for query, row in table.items():
        if r_q(truth, query) == 0:
            continue
        ranking = oracle_ranking(rows, query, ties)
        hits = [i + 1 for i, d in enumerate(ranking) if is_relevant(truth, query, d)]
        for rr_name, fr_name, cut in (("RR", "FirstRank", None), (f"RR@{k}", f"FirstRank@{k}", k)):
            rr, first = row[rr_name], row[fr_name]
            oracle_first = hits[0] if hits and (cut is None or hits[0] <= cut) else None
            if rr > 0:
                assert math.isclose(first, 1.0 / rr, rel_tol=1e-12)
                assert first == oracle_first
            else:
                assert rr == 0.0 and math.isnan(first) and oracle_first is None


@SETTINGS
@given(data=datasets(), ties=st.sampled_from(TIES))
def test_rprec_equals_bep(data, ties):
    truth, rows = data
    table = run_eval(truth, rows, ["Rprec", "BEP"], ties=ties)
    for query, row in table.items():
        assert same(row["Rprec"], row["BEP"]), (query, row)
        rq = r_q(truth, query)
        if rq:
            ranking = oracle_ranking(rows, query, ties)
            hits = sum(is_relevant(truth, query, d) for d in ranking[:rq])
            assert math.isclose(row["Rprec"], hits / rq, rel_tol=1e-12)


@SETTINGS
@given(data=datasets(), ties=st.sampled_from(TIES), seed=st.integers(0, 2**32 - 1))
def test_order_of_query_rows_changes_nothing(data, ties, seed):
    """Reordering the queries of the run (and interleaving their rows) changes no value; with a
    policy that does not look at input order (id, trec), any shuffle of the rows changes nothing."""
    truth, rows = data
    rng = random.Random(seed)
    if ties == "stable":
        blocks = {}
        for row in rows:
            blocks.setdefault(row[0], []).append(row)
        queues = [list(b) for b in blocks.values()]
        rng.shuffle(queues)
        shuffled = []
        while queues:  # interleave, keeping each query's own order
            queue = rng.choice(queues)
            shuffled.append(queue.pop(0))
            queues = [q for q in queues if q]
    else:
        shuffled = rows[:]
        rng.shuffle(shuffled)
    measures = every_measure()
    before = run_eval(truth, rows, measures, ties, COLLECTION_SIZE)
    after = run_eval(truth, shuffled, measures, ties, COLLECTION_SIZE)
    assert before.keys() == after.keys()
    for query in before:
        for m in measures:
            assert same(before[query][m], after[query][m]), (query, m)


@SETTINGS
@given(data=datasets(force_list=False), disjoint=st.booleans())
@example(data=({"q1": {"a": 1, "b": 0}}, [("other", "a", 1.0)]), disjoint=True)
@example(data=({"q1": {"a": 1}}, []), disjoint=True)
def test_queries_absent_from_the_run_score_zero(data, disjoint):
    """A truth query missing from the run scores 0 on every measure with a value for an
    empty list (FirstRank has none). ``disjoint`` drops every truth query from the run, leaving
    only run-only queries — then no evaluated query has a single retrieved item."""
    truth, rows = data
    if disjoint:
        rows = [r for r in rows if r[0] not in truth]
    present = {r[0] for r in rows}
    table = run_eval(truth, rows, list(EMPTY_LIST_VALUE))
    for query, row in table.items():
        if query in present or r_q(truth, query) == 0:
            continue
        for m, expected in EMPTY_LIST_VALUE.items():
            assert same(row[m], expected), (query, m, row[m], expected)
        assert row["NumRet"] == 0.0
