"""Blocks of queries as tasks on a real Dask cluster: a scheduler and two worker processes on
127.0.0.1 (never a mock, never another address). The cluster's results must equal one process's,
under every tie policy, with ties everywhere; a worker killed mid-run changes nothing; a wrong
scheduler address is one line and exit status 2, quickly.

The embeddings here are vectors of four ±1 among eight zeros and ones (norm 2): every cosine, dot
product and distance is exact in float32, so the scores cannot depend on how BLAS splits its work
and any difference would be the cluster's. (With other embeddings, scores computed by different
BLAS threads or kernels can differ in the last bit; see docs/performance.md, "Beyond one machine".)

These tests never skip: dask[distributed] is a dependency, and a missing one fails here."""

import logging
import os
import signal
import time

import distributed
import numpy as np
import pytest

from metrics.cli import main
from metrics.ranking.cluster import Cluster
from metrics.errors import InputError
from metrics.evaluation.evaluate import evaluate
from metrics.loaders import load_label_truth, load_qrels
from metrics.ranking.pipelines import judge_embeddings, judge_matrix
from metrics.data.ties import TiePolicy

MEASURES = "AP,P@5,RR,nDCG@10,FirstRank,R@10"


@pytest.fixture(scope="module")
def client():
    with distributed.LocalCluster(n_workers=2, threads_per_worker=1, processes=True,
                                  host="127.0.0.1", dashboard_address="127.0.0.1:0",
                                  memory_limit="1GiB", silence_logs=logging.ERROR) as local, \
            distributed.Client(local, set_as_default=False) as connected:
        connected.wait_for_workers(2, timeout=60)
        yield connected


def cluster_of(client, block_rows=None) -> Cluster:
    return Cluster(client, block_rows=block_rows)


def exact_vectors(rng, n: int) -> np.ndarray:
    """n × 8 float32 rows of four ±1 and four 0: few distinct scores, all exact."""
    out = np.zeros((n, 8), dtype=np.float32)
    for row in out:
        row[rng.choice(8, 4, replace=False)] = rng.choice([-1.0, 1.0], 4)
    return out


@pytest.fixture(scope="module")
def data(tmp_path_factory):
    rng = np.random.default_rng(17)
    folder = tmp_path_factory.mktemp("cluster")
    n_items, n_queries = 300, 40
    items, queries = exact_vectors(rng, n_items), exact_vectors(rng, n_queries)
    np.save(folder / "items.npy", items)
    np.save(folder / "queries.npy", queries)
    (folder / "item_ids.txt").write_text("".join(f"d{(i * 7) % n_items:03d}\n"
                                                 for i in range(n_items)))
    (folder / "query_ids.txt").write_text("".join(f"q{i:02d}\n" for i in range(n_queries)))
    lines = [f"q{q:02d} 0 d{d:03d} {rng.integers(0, 3)}"
             for q in range(n_queries - 2) for d in rng.choice(n_items, 6, replace=False)]
    lines += ["q99 0 d001 1", "q00 0 missing 2"]   # a query and an item without embeddings
    (folder / "qrels.txt").write_text("\n".join(lines) + "\n")
    labels = rng.integers(0, 70, n_items)
    (folder / "labels.csv").write_text("item_id,label\n" + "".join(
        f"d{(i * 7) % n_items:03d},w{label}\n" for i, label in enumerate(labels)))
    matrix = np.round(rng.random((n_items, n_items)), 1)   # one decimal: ties everywhere
    np.save(folder / "matrix.npy", matrix)
    return folder


def embedding_args(folder, truth: str):
    if truth == "labels":
        return (folder / "items.npy", folder / "item_ids.txt", folder / "items.npy",
                folder / "item_ids.txt")
    return (folder / "queries.npy", folder / "query_ids.txt", folder / "items.npy",
            folder / "item_ids.txt")


def same_evaluation(one, other) -> None:
    a, b = evaluate(one, MEASURES), evaluate(other, MEASURES)
    assert list(a.query_ids) == list(b.query_ids)
    for measure in a.results:
        np.testing.assert_array_equal(a.results[measure].values, b.results[measure].values)
    assert a.warnings == b.warnings
    for part in ("tied_items", "queries_with_ties", "first_positions", "last_positions"):
        np.testing.assert_array_equal(getattr(one.ties, part), getattr(other.ties, part))


@pytest.mark.parametrize("ties", TiePolicy.orderings())
@pytest.mark.parametrize("kind", ["cosine", "dot", "euclidean"])
def test_embeddings_with_qrels(client, data, ties, kind):
    truth = load_qrels(data / "qrels.txt")
    here = judge_embeddings(*embedding_args(data, "qrels"), truth, kind, ties)
    there = judge_embeddings(*embedding_args(data, "qrels"), truth, kind, ties,
                             cluster=cluster_of(client, block_rows=3))
    same_evaluation(here, there)
    assert here.ties.tied_items > 0   # the test means something only with ties


@pytest.mark.parametrize("ties", TiePolicy.orderings())
def test_embeddings_with_labels(client, data, ties):
    truth = load_label_truth(data / "labels.csv")
    here = judge_embeddings(*embedding_args(data, "labels"), truth, "cosine", ties)
    there = judge_embeddings(*embedding_args(data, "labels"), truth, "cosine", ties,
                             cluster=cluster_of(client, block_rows=23))
    same_evaluation(here, there)
    assert here.ties.tied_items > 0


@pytest.mark.parametrize("ties", TiePolicy.orderings())
@pytest.mark.parametrize("distance", [False, True])
def test_matrices(client, data, ties, distance):
    here = judge_matrix(data / "matrix.npy", data / "labels.csv", ties, distance)
    there = judge_matrix(data / "matrix.npy", data / "labels.csv", ties, distance,
                         cluster=cluster_of(client))
    same_evaluation(here, there)
    assert here.ties.tied_items > 0


def test_a_file_the_workers_cannot_see_is_sent_by_value(client, data, monkeypatch):
    cluster = cluster_of(client, block_rows=50)
    monkeypatch.setattr(cluster, "sees", lambda path: False)   # as if not on a shared path
    mapped = np.load(data / "matrix.npy", mmap_mode="r")
    assert isinstance(cluster.place(mapped), np.ndarray)
    assert not isinstance(cluster.place(mapped), np.memmap)
    same_evaluation(judge_matrix(data / "matrix.npy", data / "labels.csv", TiePolicy.ID),
                    judge_matrix(data / "matrix.npy", data / "labels.csv", TiePolicy.ID,
                                 cluster=cluster))


def test_shared_file_travels_as_its_path(client, data):
    from metrics.loaders.arrays import MappedFile

    placed = cluster_of(client).place(np.load(data / "matrix.npy", mmap_mode="r"))
    assert isinstance(placed, MappedFile)
    assert os.path.samefile(placed.path, data / "matrix.npy")


def test_bad_values_found_by_a_worker_name_the_file(client, tmp_path, data):
    matrix = np.load(data / "matrix.npy")
    matrix[250, 3] = np.nan
    np.save(tmp_path / "bad.npy", matrix)
    with pytest.raises(InputError, match=r"bad\.npy.*\(250, 3\).*finite"):
        judge_matrix(tmp_path / "bad.npy", data / "labels.csv", cluster=cluster_of(client))


def run_cli(capsys, *args):
    code = main([str(a) for a in args])
    captured = capsys.readouterr()
    return code, captured.out, captured.err


@pytest.mark.parametrize("command", ["qrels", "labels", "matrix"])
def test_cli_prints_the_same_bytes(client, data, capsys, command):
    if command == "matrix":
        args = ["evaluate-matrix", data / "matrix.npy", data / "labels.csv", "--distance"]
    else:
        truth = data / ("labels.csv" if command == "labels" else "qrels.txt")
        args = ["evaluate-embeddings", *embedding_args(data, command), truth]
    args += ["--measures", MEASURES, "--ties", "trec9", "--per-query", "--format", "trec"]
    alone = run_cli(capsys, *args)
    assert alone[0] == 0 and alone[1]
    assert run_cli(capsys, *args, "--scheduler", client.scheduler.address) == alone


def test_cli_starts_a_local_cluster_with_workers(data, capsys):
    args = ["evaluate-matrix", data / "matrix.npy", data / "labels.csv", "--ties", "id",
            "--format", "json", "--per-query"]
    alone = run_cli(capsys, *args)
    assert run_cli(capsys, *args, "--workers", "1") == alone


def test_a_killed_worker_costs_time_not_correctness(client, data):
    truth = load_label_truth(data / "labels.csv")
    args = (*embedding_args(data, "labels"), truth, "euclidean", TiePolicy.TREC10)
    expected = judge_embeddings(*args)
    pids = client.run(os.getpid)
    victim_address, victim = sorted(pids.items())[0]
    done, killed_at = [], []

    def progress(rows):   # after the first block's result: kill a worker process outright
        done.append(rows)
        if not killed_at:
            killed_at.append(sum(done))
            os.kill(victim, signal.SIGKILL)

    got = judge_embeddings(*args, progress=progress, cluster=cluster_of(client, block_rows=4))
    assert killed_at and killed_at[0] < 300   # killed with most of the blocks still to come
    assert sum(done) == 300                   # every block counted once
    same_evaluation(expected, got)
    client.wait_for_workers(2, timeout=60)    # the nanny started a new process
    assert victim not in client.run(os.getpid).values()


def test_a_wrong_scheduler_address_is_one_line_and_exit_2(data, capsys):
    start = time.monotonic()
    code, out, err = run_cli(capsys, "evaluate-matrix", data / "matrix.npy",
                             data / "labels.csv", "--scheduler", "tcp://127.0.0.1:1")
    assert code == 2 and out == ""
    assert err.count("\n") == 1 and err.startswith("error: ")
    assert "tcp://127.0.0.1:1" in err
    assert time.monotonic() - start < 20
