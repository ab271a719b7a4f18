"""Pools (metrics/judgments/pools.py, ``python -m metrics pool``): depth-K pooling against
trectools' TrecPoolMaker, Take@N against a round-robin written out here, the dashboard's judging
queue against its stated rule, and bad input as one line and exit status 2."""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pytest

from cli_in_process import run_cli
from metrics.data.ties import TiePolicy
from metrics.judgments import QueueEntry, depth_pool, judging_queue, take_pool
from metrics.loaders import load_qrels, load_run

# trectools (the oracle) sorts in place, which pandas 3 deprecates: its warning, not ours
pytestmark = pytest.mark.filterwarnings("ignore:The inplace keyword")

QUERIES = ("101", "102", "103", "104", "105")


def random_runs(folder: Path, seed: int, systems: int = 4) -> list[Path]:
    """TREC runs of a few systems over a few queries (some missing from some runs), scores
    drawn from ten values so that ties are common, lines in no particular order."""
    rng = np.random.default_rng(seed)
    paths = []
    for s in range(systems):
        lines = []
        for query in QUERIES:
            if rng.random() < 0.15:
                continue
            items = rng.choice(30, size=int(rng.integers(1, 25)), replace=False)
            for item in items:
                lines.append(f"{query} Q0 d{item:03d} 0 {int(rng.integers(0, 10))} sys{s}\n")
        rng.shuffle(lines)
        path = folder / f"sys{s}.run"
        path.write_text("".join(lines) or f"{QUERIES[0]} Q0 d000 0 1 sys{s}\n")
        paths.append(path)
    return paths


def ranked_lists(path: Path) -> dict[str, list[str]]:
    """A run's ranking written out: score descending, ties by item id ascending (as trectools
    sorts, and as the ``id`` tie policy orders ids that are not all numbers)."""
    rows = [line.split() for line in path.read_text().splitlines()]
    lists: dict[str, list[tuple[float, str]]] = {}
    for query, _, item, _, score, _ in rows:
        lists.setdefault(query, []).append((-float(score), item))
    return {q: [item for _, item in sorted(pairs)] for q, pairs in lists.items()}


def trectools_pool(paths: list[Path], depth: int) -> set[tuple[str, str]]:
    from trectools import TrecPoolMaker, TrecRun

    pool = TrecPoolMaker().make_pool([TrecRun(str(p)) for p in paths], strategy="topX",
                                     topX=depth).pool
    return {(str(q), item) for q, items in pool.items() for item in items}


def take_by_round_robin(paths: list[Path], budget: int, depth: int,
                        judged: set[tuple[str, str]]) -> dict[str, list[str]]:
    """Take@N as stated: rank 1 of every run in order, then rank 2, ...; an item taken or
    judged is passed over; at most ``budget`` items per query, ranks up to ``depth``."""
    lists = [ranked_lists(p) for p in paths]
    queries = list(dict.fromkeys(q for run in lists for q in run))
    taken: dict[str, list[str]] = {}
    for query in queries:
        got: list[str] = []
        for rank in range(depth):
            for run in lists:
                ranking = run.get(query, [])
                if rank < len(ranking) and len(got) < budget:
                    item = ranking[rank]
                    if item not in got and (query, item) not in judged:
                        got.append(item)
        if got:
            taken[query] = got
    return taken


def named_runs(paths):
    return {p.stem: load_run(p) for p in paths}


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("depth", [1, 3, 10, 40])
def test_depth_pool_is_trectools_pool(tmp_path, seed, depth):
    paths = random_runs(tmp_path, seed)
    pool = depth_pool(named_runs(paths), depth, ties=TiePolicy.ID)
    pairs = list(zip(pool["query_id"], pool["item_id"]))
    assert len(pairs) == len(set(pairs))   # each pair once
    assert set(pairs) == trectools_pool(paths, depth)


def test_depth_pool_columns_by_hand(tmp_path):
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 x 1 3 a\nq1 Q0 y 2 2 a\nq1 Q0 z 3 1 a\nq2 Q0 u 1 1 a\n")
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 z 1 9 b\nq1 Q0 x 2 8 b\nq1 Q0 w 3 7 b\n")
    pool = depth_pool(named_runs([a, b]), 2)
    assert pool.to_dict("records") == [
        {"query_id": "q1", "item_id": "x", "best_rank": 1, "first_system": "a",
         "num_systems": 2},
        {"query_id": "q1", "item_id": "z", "best_rank": 1, "first_system": "b",
         "num_systems": 1},
        {"query_id": "q1", "item_id": "y", "best_rank": 2, "first_system": "a",
         "num_systems": 1},
        {"query_id": "q2", "item_id": "u", "best_rank": 1, "first_system": "a",
         "num_systems": 1}]


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("budget,depth", [(1, 10), (5, 10), (8, 3), (50, 40)])
def test_take_pool_is_round_robin_by_rank(tmp_path, seed, budget, depth):
    paths = random_runs(tmp_path, seed)
    rng = np.random.default_rng(100 + seed)
    every = {(q, i) for p in paths for q, items in ranked_lists(p).items() for i in items}
    judged = {pair for pair in sorted(every) if rng.random() < 0.3}
    pool = take_pool(named_runs(paths), budget, judged, depth, TiePolicy.ID)
    got: dict[str, list[str]] = {}
    for query, item in zip(pool["query_id"], pool["item_id"]):
        got.setdefault(query, []).append(item)
    assert got == take_by_round_robin(paths, budget, depth, judged)


def test_take_pool_without_depth_reads_as_deep_as_the_budget_needs(tmp_path):
    paths = random_runs(tmp_path, 7)
    lists = [ranked_lists(p) for p in paths]
    # judge the first 12 ranks of every run: the budget lies deeper
    judged = {(q, i) for run in lists for q, items in run.items() for i in items[:12]}
    pool = take_pool(named_runs(paths), 4, judged, ties=TiePolicy.ID)
    got: dict[str, list[str]] = {}
    for query, item in zip(pool["query_id"], pool["item_id"]):
        got.setdefault(query, []).append(item)
    assert got == take_by_round_robin(paths, 4, 30, judged)


def test_pool_command_trec_leaves_out_judged_keeps_pooled_unjudged(tmp_path, capsys):
    paths = random_runs(tmp_path, 3)
    expected = trectools_pool(paths, 5)
    judged_pairs = sorted(expected)[::3]
    unjudged_pairs = sorted(expected)[1::3]   # grade -1: pooled before, still to judge
    qrels = tmp_path / "judged.qrels"
    qrels.write_text("".join(f"{q} 0 {i} {n % 3}\n" for n, (q, i) in enumerate(judged_pairs))
                     + "".join(f"{q} 0 {i} -1\n" for q, i in unjudged_pairs))
    code, out, err = run_cli(capsys, "pool", *paths, "--judged", qrels, "--depth", 5,
                             "--ties", "id")
    assert code == 0, err
    lines = [line.split() for line in out.splitlines()]
    assert all(len(fields) == 4 and fields[1] == "0" and fields[3] == "-1" for fields in lines)
    assert [(q, i) for q, _, i, _ in lines] and \
        {(q, i) for q, _, i, _ in lines} == expected - set(judged_pairs)
    assert len(lines) == len(expected) - len(judged_pairs)
    # what it writes reads back as qrels of "pooled, not judged" pairs
    pooled = tmp_path / "pool.qrels"
    pooled.write_text(out)
    assert set(load_qrels(pooled).pair_grade.tolist()) == {-1}


def test_pool_command_csv_and_json(tmp_path, capsys):
    a = tmp_path / "a.run"
    a.write_text("q1 Q0 x 1 3 a\nq1 Q0 y 2 2 a\nq1 Q0 z 3 1 a\n")
    b = tmp_path / "b.run"
    b.write_text("q1 Q0 z 1 9 b\nq1 Q0 x 2 8 b\nq1 Q0 w 3 7 b\n")
    code, out, err = run_cli(capsys, "pool", a, b, "--depth", 3, "--take", 3, "--format",
                             "csv")
    assert code == 0, err
    assert out == ("query_id,item_id,best_rank,first_system,num_systems\n"
                   "q1,x,1,a,2\nq1,z,1,b,2\nq1,y,2,a,1\n")
    code, out, err = run_cli(capsys, "pool", a, b, "--depth", 1, "--format", "json")
    assert code == 0, err
    assert json.loads(out) == {
        "systems": ["a", "b"], "depth": 1, "take": None,
        "pool": [{"query_id": "q1", "item_id": "x", "best_rank": 1, "first_system": "a",
                  "num_systems": 1},
                 {"query_id": "q1", "item_id": "z", "best_rank": 1, "first_system": "b",
                  "num_systems": 1}]}


@pytest.mark.parametrize("args,message", [
    (["--depth", "0"], "argument --depth: '0' must be at least 1"),
    (["--depth", "3", "--take", "-2"], "argument --take"),
    ([], "the following arguments are required: --depth"),
    (["--depth", "3", "--format", "xml"], "argument --format"),
])
def test_pool_bad_options_one_line_exit_2(tmp_path, capsys, args, message):
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 x 1 3 a\n")
    code, out, err = run_cli(capsys, "pool", run, *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


def test_pool_bad_files_one_line_exit_2(tmp_path, capsys):
    run = tmp_path / "a.run"
    run.write_text("q1 Q0 x 1 3 a\nq1 Q0 y 2 not-a-score a\n")
    code, _, err = run_cli(capsys, "pool", run, "--depth", 3)
    assert code == 2 and len(err.splitlines()) == 1
    assert "a.run" in err and "line 2" in err, err
    good = tmp_path / "b.run"
    good.write_text("q1 Q0 x 1 3 a\n")
    code, _, err = run_cli(capsys, "pool", good, "--depth", 3, "--judged",
                           tmp_path / "missing.qrels")
    assert code == 2 and len(err.splitlines()) == 1 and "missing.qrels" in err, err
    code, _, err = run_cli(capsys, "pool", good, good, "--depth", 3)
    assert code == 2 and "given twice" in err and len(err.splitlines()) == 1


def queue_by_rule(lists: dict[str, list[str]], depth: int, judged: set[str]) -> list[str]:
    """The stated rule, written out: spread of ranks (absent at depth + 1) descending, then
    best rank, then item id."""
    items = {i for ranking in lists.values() for i in ranking[:depth]} - judged

    def rank(system, item):
        top = lists[system][:depth]
        return top.index(item) + 1 if item in top else depth + 1

    def key(item):
        ranks = [rank(s, item) for s in lists]
        return (-(max(ranks) - min(ranks)), min(ranks), item)
    return sorted(items, key=key)


def test_judging_queue_by_hand():
    # depth 4; ranks (absent: 5): x 1,2 (spread 1); y 2,- (3); z 3,- (2); v 4,1 (3); q -,3 (2)
    queue = judging_queue({"a": ["x", "y", "z", "v", "u"], "b": ["v", "x", "q"]}, 4)
    assert [e.item for e in queue] == ["v", "y", "q", "z", "x"]
    assert queue[0] == QueueEntry("v", {"a": 4, "b": 1}, 3, 1)
    assert queue[2] == QueueEntry("q", {"a": None, "b": 3}, 2, 3)
    assert [e.item for e in judging_queue({"a": ["x", "y", "z", "v"], "b": ["v", "x", "q"]},
                                          4, judged={"v", "q"})] == ["y", "z", "x"]
    # one system: its own ranking, judged items left out
    assert [e.item for e in judging_queue({"a": ["c", "b", "a"]}, 10, {"b"})] == ["c", "a"]


@pytest.mark.parametrize("seed", range(20))
def test_judging_queue_follows_its_rule(seed):
    rng = np.random.default_rng(seed)
    lists = {f"s{s}": [f"i{k}" for k in rng.choice(12, size=int(rng.integers(0, 10)),
                                                   replace=False)]
             for s in range(int(rng.integers(1, 4)))}
    depth = int(rng.integers(1, 8))
    judged = {f"i{k}" for k in range(12) if rng.random() < 0.3}
    queue = judging_queue(lists, depth, judged)
    assert [e.item for e in queue] == queue_by_rule(lists, depth, judged)
