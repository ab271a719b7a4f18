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


def make_second_run(paths: dict[str, Path], seed: int) -> Path:
    """A second system for the run of :func:`make_run_workload` (the same queries and qrels):
    its items re-scored with Gaussian noise (σ = 2 on scores in [0, 10)) and re-ranked, so the
    two systems disagree on most queries. Written beside the run as run_b.trec; reused if
    present."""
    path = paths["run"].with_name("run_b.trec")
    meta = path.with_suffix(".json")
    expected = {"seed": seed, "of": paths["run"].stat().st_size}
    if meta.exists() and json.loads(meta.read_text()) == expected and path.exists():
        return path
    rng = np.random.default_rng(seed)
    run = pd.read_csv(paths["run"], sep=" ", header=None, names=["q", "z", "d", "r", "s", "t"])
    position = pd.factorize(run["q"])[0]   # keep the queries in the order of the first run
    run["s"] = np.round(run["s"].to_numpy() + rng.normal(0, 2, len(run)), 6)
    run = run.iloc[np.lexsort((-run["s"].to_numpy(), position))]
    run["r"] = run.groupby("q", sort=False).cumcount() + 1
    run["t"] = "bench_b"
    run.to_csv(path, sep=" ", header=False, index=False, float_format="%.6f")
    meta.write_text(json.dumps(expected))
    return path


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


# ---- W7: a run larger than memory ---------------------------------------------------------------

def make_large_run_workload(folder: Path, queries: int, seed: int, depth: int = DEPTH,
                            chunk: int = 1000, gzipped: bool = False) -> dict[str, Path]:
    """W7 shape: W1's (``queries`` × ``depth``, sorted by query and score, about 20 relevant
    items per query, graded 1–2, plus judged non-relevant ones), generated and written ``chunk``
    queries at a time so that a run of 100 M lines (about 4 GB) is made in bounded memory;
    with ``gzipped``, also run.trec.gz (gzip's default level). Reused if present."""
    import gzip as gzip_module
    import shutil

    folder.mkdir(parents=True, exist_ok=True)
    paths = {"run": folder / "run.trec", "graded": folder / "qrels.graded"}
    meta = folder / "meta.json"
    expected = {"queries": queries, "seed": seed, "depth": depth, "chunk": chunk,
                "collection": COLLECTION, "version": 1}
    if not _up_to_date(meta, expected, paths):
        rng = np.random.default_rng(seed)
        width = len(str(max(queries - 1, 1)))
        with open(paths["run"], "w") as run_out, open(paths["graded"], "w") as qrels_out:
            for first in range(0, queries, chunk):
                count = min(chunk, queries - first)
                qids = np.char.add("q", np.char.zfill(np.arange(first, first + count).astype(str),
                                                      width))
                items = _distinct_rows(rng, count, depth + RELEVANT, COLLECTION)
                retrieved, unretrieved = items[:, :depth], items[:, depth:depth + 8]
                scores = np.sort(rng.random((count, depth)), axis=1)[:, ::-1] * 10
                pd.DataFrame({"q": np.repeat(qids, depth), "z": "Q0",
                              "d": np.char.add("d", retrieved.ravel().astype(str)),
                              "r": np.tile(np.arange(1, depth + 1), count),
                              "s": np.round(scores.ravel(), 6), "t": "bench"}).to_csv(
                    run_out, sep=" ", header=False, index=False, float_format="%.6f")
                rel_ranks = np.minimum(rng.exponential(120, (count, 12)).astype(int), depth - 1)
                relevant = np.concatenate([np.take_along_axis(retrieved, rel_ranks, axis=1),
                                           unretrieved], axis=1)
                judged_non = np.take_along_axis(retrieved, rng.integers(0, depth, (count, 30)),
                                                axis=1)
                frame = pd.DataFrame({
                    "q": np.concatenate([np.repeat(qids, 20), np.repeat(qids, 30)]),
                    "d": np.concatenate([relevant.ravel(), judged_non.ravel()]),
                    "g": np.concatenate([rng.integers(1, 3, count * 20),
                                         np.zeros(count * 30, dtype=int)])})
                frame = frame.drop_duplicates(["q", "d"], keep="first").sort_values(
                    "q", kind="stable")
                pd.DataFrame({"q": frame["q"], "z": 0,
                              "d": np.char.add("d", frame["d"].to_numpy().astype(str)),
                              "g": frame["g"]}).to_csv(qrels_out, sep=" ", header=False,
                                                       index=False)
        meta.write_text(json.dumps(expected))
    if gzipped:
        paths["gzip"] = folder / "run.trec.gz"
        stamp = folder / "gzip.json"
        if not _up_to_date(stamp, expected, {"gzip": paths["gzip"]}):
            with open(paths["run"], "rb") as plain, \
                    gzip_module.open(paths["gzip"], "wb", compresslevel=6) as out:
                shutil.copyfileobj(plain, out, 1 << 20)
            stamp.write_text(json.dumps(expected))
    return paths


# ---- W4 and the memory curve: skewed runs -------------------------------------------------------

def _up_to_date(meta: Path, expected: dict, paths: dict) -> bool:
    return meta.exists() and json.loads(meta.read_text()) == expected and \
        all(p.exists() for p in paths.values())


def make_skewed_run_workload(folder: Path, short_queries: int, long_depth: int, seed: int,
                             short_depth: int = 10) -> dict[str, Path]:
    """W4 shape: ``short_queries`` queries × ``short_depth`` items plus one query ("qlong") with a
    list of ``long_depth`` items, in the middle of the file; run.trec and qrels (grades 0–2) with
    1–5 relevant items per short query (some not retrieved) and, for the long query, relevant
    items from rank 1 down to the end of its list (plus a few not retrieved). The long list's
    scores are integers (distinct, exact in float32: trec_eval reads scores as floats), the short
    lists' random with six decimals."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"run": folder / "run.trec", "qrels": folder / "qrels"}
    meta = folder / "meta.json"
    expected = {"short_queries": short_queries, "short_depth": short_depth,
                "long_depth": long_depth, "seed": seed, "version": 1}
    if _up_to_date(meta, expected, paths):
        return paths
    rng = np.random.default_rng(seed)
    # short queries
    items = _distinct_rows(rng, short_queries, short_depth + 1, COLLECTION)
    retrieved, unretrieved = items[:, :short_depth], items[:, short_depth]
    scores = np.sort(rng.random((short_queries, short_depth)), axis=1)[:, ::-1] * 10
    width = len(str(max(short_queries - 1, 1)))
    qids = np.char.add("q", np.char.zfill(np.arange(short_queries).astype(str), width))
    short = pd.DataFrame({"q": np.repeat(qids, short_depth), "z": "Q0",
                          "d": np.char.add("d", retrieved.ravel().astype(str)),
                          "r": np.tile(np.arange(1, short_depth + 1), short_queries),
                          "s": np.round(scores.ravel(), 6), "t": "bench"})
    # the long query: distinct items from a collection twice its size, scores long_depth .. 1
    long_collection = max(10 * COLLECTION, 2 * (long_depth + 10))
    long_items = rng.choice(long_collection, long_depth + 3, replace=False)
    half = short_queries // 2 * short_depth
    with open(paths["run"], "w") as out:
        short.iloc[:half].to_csv(out, sep=" ", header=False, index=False, float_format="%.6f")
        for start in range(0, long_depth, 1_000_000):
            stop = min(start + 1_000_000, long_depth)
            ranks = np.arange(start + 1, stop + 1)
            block = pd.DataFrame({"q": "qlong", "z": "Q0",
                                  "d": np.char.add("e", long_items[start:stop].astype(str)),
                                  "r": ranks, "s": long_depth - ranks + 1, "t": "bench"})
            block.to_csv(out, sep=" ", header=False, index=False)
        short.iloc[half:].to_csv(out, sep=" ", header=False, index=False, float_format="%.6f")
    # qrels of the short queries: the first k of a random order of the ranks are relevant, the
    # next one judged non-relevant; half the queries have one more relevant item not retrieved
    order = rng.permuted(np.tile(np.arange(short_depth), (short_queries, 1)), axis=1)
    k = rng.integers(1, min(5, short_depth - 1) + 1, short_queries)
    cols = np.arange(short_depth)[None, :]
    rel_mask, non_mask = cols < k[:, None], cols == k[:, None]
    picked = np.take_along_axis(retrieved, order, axis=1)
    extra = rng.random(short_queries) < 0.5
    q_idx = np.concatenate([np.nonzero(rel_mask)[0], np.nonzero(extra)[0], np.nonzero(non_mask)[0]])
    d_num = np.concatenate([picked[rel_mask], unretrieved[extra], picked[non_mask]])
    grade = np.concatenate([rng.integers(1, 3, rel_mask.sum() + extra.sum()),
                            np.zeros(non_mask.sum(), dtype=int)])
    frame = pd.DataFrame({"q": qids[q_idx], "d": np.char.add("d", d_num.astype(str)), "g": grade})
    frame = frame.sort_values("q", kind="stable")
    # the long query: relevant from the top to the very end of its list, some not retrieved
    deep = sorted({r for r in (1, 2, 5, 10, 30, 100, 1_000, 10_000, 100_000, long_depth // 3,
                               long_depth // 2, long_depth - 1, long_depth)
                   if 1 <= r <= long_depth})
    rel_long = [f"e{long_items[r - 1]}" for r in deep] + [f"e{x}" for x in long_items[long_depth:]]
    non_long = [f"e{long_items[r - 1]}" for r in (3, 50, long_depth // 4) if r not in deep
                and 1 <= r <= long_depth]
    long_frame = pd.DataFrame({"q": "qlong", "d": rel_long + non_long,
                               "g": [1] * len(rel_long) + [0] * len(non_long)})
    frame = pd.concat([frame, long_frame])
    pd.DataFrame({"q": frame["q"], "z": 0, "d": frame["d"], "g": frame["g"]}).to_csv(
        paths["qrels"], sep=" ", header=False, index=False)
    meta.write_text(json.dumps(expected))
    return paths


# ---- W5 and W6: embeddings ----------------------------------------------------------------------

def _write_ids(path: Path, ids) -> None:
    path.write_text("\n".join(ids) + "\n")


def make_text_to_music_workload(folder: Path, queries: int, items: int, dim: int,
                                seed: int) -> dict[str, Path]:
    """W5: queries.npy (queries × dim) and items.npy (items × dim) float32, query_ids.txt and
    item_ids.txt (one id per line) and qrels.csv (query_id,item_id,relevance) with 1–5 relevant
    items per query; a query is the mean of its relevant items plus noise, so ranks vary from 1
    to deep. Items are written in blocks (the big variant is 410 MB)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"queries": folder / "queries.npy", "query_ids": folder / "query_ids.txt",
             "items": folder / "items.npy", "item_ids": folder / "item_ids.txt",
             "qrels": folder / "qrels.csv"}
    meta = folder / "meta.json"
    expected = {"queries": queries, "items": items, "dim": dim, "seed": seed, "version": 1}
    if _up_to_date(meta, expected, paths):
        return paths
    rng = np.random.default_rng(seed)
    out = np.lib.format.open_memmap(paths["items"], mode="w+", dtype=np.float32,
                                    shape=(items, dim))
    for start in range(0, items, 50_000):
        stop = min(start + 50_000, items)
        out[start:stop] = rng.standard_normal((stop - start, dim), dtype=np.float32)
    k = rng.integers(1, 6, queries)
    q_idx = np.repeat(np.arange(queries), k)
    rel = np.concatenate([rng.choice(items, n, replace=False) for n in k])
    summed = np.zeros((queries, dim), dtype=np.float32)
    np.add.at(summed, q_idx, np.asarray(out[rel]))
    out.flush()
    del out
    vectors = summed / k[:, None] + rng.standard_normal((queries, dim), dtype=np.float32)
    np.save(paths["queries"], vectors.astype(np.float32))
    qids = [f"t{i:06d}" for i in range(queries)]
    iids = [f"m{i:07d}" for i in range(items)]
    _write_ids(paths["query_ids"], qids)
    _write_ids(paths["item_ids"], iids)
    pd.DataFrame({"query_id": np.asarray(qids)[q_idx], "item_id": np.asarray(iids)[rel],
                  "relevance": rng.integers(1, 3, len(rel))}).to_csv(paths["qrels"], index=False)
    meta.write_text(json.dumps(expected))
    return paths


def make_cover_workload(folder: Path, n: int, dim: int, seed: int) -> dict[str, Path]:
    """W6: embeddings.npy (n × dim float32, not normalised), ids.txt and labels.csv
    (item_id,label) with cliques of 2–6 items (about four on average)."""
    folder.mkdir(parents=True, exist_ok=True)
    paths = {"embeddings": folder / "embeddings.npy", "ids": folder / "ids.txt",
             "labels": folder / "labels.csv"}
    meta = folder / "meta.json"
    expected = {"n": n, "dim": dim, "seed": seed, "version": 1}
    if _up_to_date(meta, expected, paths):
        return paths
    rng = np.random.default_rng(seed)
    sizes = []
    while sum(sizes) < n:
        sizes.append(int(rng.integers(2, 7)))
    sizes[-1] -= sum(sizes) - n
    if sizes[-1] < 2:
        last = sizes.pop()
        sizes[-1] += last
    labels = np.repeat(np.arange(len(sizes)), sizes)
    rng.shuffle(labels)
    centres = rng.standard_normal((len(sizes), dim), dtype=np.float32)
    vectors = centres[labels] + 1.1 * rng.standard_normal((n, dim), dtype=np.float32)
    vectors *= rng.uniform(0.5, 2.0, (n, 1)).astype(np.float32)   # norms vary: cosine matters
    np.save(paths["embeddings"], vectors.astype(np.float32))
    ids = [f"c{i:06d}" for i in range(n)]
    _write_ids(paths["ids"], ids)
    pd.DataFrame({"item_id": ids, "label": [f"w{x}" for x in labels]}).to_csv(paths["labels"],
                                                                               index=False)
    meta.write_text(json.dumps(expected))
    return paths
