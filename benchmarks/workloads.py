"""Seeded generation of the benchmark workloads (written on demand, never committed).

W1/W2: a TREC run of Q queries × 1000 items drawn from a 1,000,000-item collection, sorted by
score as TREC runs are, and qrels with ~20 relevant items per query (about 12 retrieved, most of
them near the top, and 8 not retrieved) plus ~30 judged non-relevant retrieved items; binary and
graded (0/1/2) versions. W3: an N×N float32 similarity matrix of items in cliques of 2–14.
"""

from __future__ import annotations

import json
from pathlib import Path

import numpy as np
import pandas as pd

COLLECTION = 1_000_000
DEPTH = 1000
RELEVANT = 20


def _distinct_rows(rng, rows: int, width: int, high: int) -> np.ndarray:
    """rows × width distinct integers in [0, high) per row, in random order."""
    draw = np.sort(rng.integers(0, high, (rows, width + width // 5 + 10)), axis=1)
    fresh = np.ones_like(draw, dtype=bool)
    fresh[:, 1:] = draw[:, 1:] != draw[:, :-1]
    first = np.argsort(~fresh, axis=1, kind="stable")[:, :width]
    picked = np.take_along_axis(draw, first, axis=1)
    return np.take_along_axis(picked, rng.permuted(np.tile(np.arange(width), (rows, 1)), axis=1),
                              axis=1)


def make_run_workload(folder: Path, queries: int, seed: int, depth: int = DEPTH) -> dict[str, Path]:
    """Write run.trec, qrels.binary and qrels.graded for ``queries`` queries × ``depth`` results;
    reuse if present."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"run": folder / "run.trec", "qrels": folder / "qrels.binary",
             "graded": folder / "qrels.graded"}
    meta = folder / "meta.json"
    expected = {"queries": queries, "seed": seed, "depth": depth, "collection": COLLECTION}
    if meta.exists() and json.loads(meta.read_text()) == expected and \
            all(p.exists() for p in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    items = _distinct_rows(rng, queries, depth + RELEVANT, COLLECTION)
    retrieved, unretrieved = items[:, :depth], items[:, depth:depth + 8]
    # scores: decreasing along each list, 6 decimals as most TREC runs print them
    scores = np.sort(rng.random((queries, depth)), axis=1)[:, ::-1] * 10
    qid = np.repeat(np.char.add("q", np.arange(queries).astype(str)), depth)
    run = pd.DataFrame({"q": qid, "z": "Q0", "d": np.char.add("d", retrieved.ravel().astype(str)),
                        "r": np.tile(np.arange(1, depth + 1), queries),
                        "s": np.round(scores.ravel(), 6), "t": "bench"})
    run.to_csv(paths["run"], sep=" ", header=False, index=False, float_format="%.6f")
    # relevant: 12 retrieved (ranks skewed to the top) + 8 unretrieved; 30 judged non-relevant
    rel_ranks = np.minimum((rng.exponential(120, (queries, 12))).astype(int), depth - 1)
    rows = []
    for kind, grades in (("qrels", None), ("graded", rng.integers(1, 3, (queries, 20)))):
        q_rel = np.repeat(np.arange(queries), 20)
        rel_items = np.concatenate([np.take_along_axis(retrieved, rel_ranks, axis=1),
                                    unretrieved], axis=1)
        non_ranks = rng.integers(0, depth, (queries, 30))
        non_items = np.take_along_axis(retrieved, non_ranks, axis=1)
        frame = pd.DataFrame({
            "q": np.concatenate([q_rel, np.repeat(np.arange(queries), 30)]),
            "d": np.concatenate([rel_items.ravel(), non_items.ravel()]),
            "g": np.concatenate([np.ones(queries * 20, dtype=int) if grades is None
                                 else grades.ravel(), np.zeros(queries * 30, dtype=int)])})
        frame = frame.drop_duplicates(["q", "d"], keep="first")  # a relevant item wins
        frame = frame.sort_values(["q"], kind="stable")
        out = pd.DataFrame({"q": np.char.add("q", frame["q"].to_numpy().astype(str)), "z": 0,
                            "d": np.char.add("d", frame["d"].to_numpy().astype(str)),
                            "g": frame["g"].to_numpy()})
        out.to_csv(paths[kind], sep=" ", header=False, index=False)
        rows.append(len(out))
    meta.write_text(json.dumps(expected))
    return paths


def make_matrix_workload(folder: Path, n: int, seed: int) -> dict[str, Path]:
    """labels.csv and an N×N float32 similarity matrix (written in row blocks); reuse if present."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"matrix": folder / f"sim_{n}.npy", "labels": folder / f"labels_{n}.csv"}
    meta = folder / f"meta_{n}.json"
    expected = {"n": n, "seed": seed}
    if meta.exists() and json.loads(meta.read_text()) == expected and \
            all(p.exists() for p in paths.values()):
        return paths
    rng = np.random.default_rng(seed)
    sizes = []
    while sum(sizes) < n:
        sizes.append(int(rng.integers(2, 15)))
    sizes[-1] -= sum(sizes) - n
    if sizes[-1] < 2:
        sizes[-2] += sizes.pop()
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(labels)
    dim = 32
    centres = rng.normal(size=(len(sizes), dim)).astype(np.float32)
    vectors = centres[labels] + rng.normal(scale=1.1, size=(n, dim)).astype(np.float32)
    vectors /= np.linalg.norm(vectors, axis=1, keepdims=True)
    pd.DataFrame({"item_id": [f"i{i}" for i in range(n)],
                  "label": [f"w{x}" for x in labels]}).to_csv(paths["labels"], index=False)
    out = np.lib.format.open_memmap(paths["matrix"], mode="w+", dtype=np.float32, shape=(n, n))
    for start in range(0, n, 2048):
        out[start:start + 2048] = vectors[start:start + 2048] @ vectors.T
    out.flush()
    del out
    meta.write_text(json.dumps(expected))
    return paths
