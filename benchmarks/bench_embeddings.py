"""W5 (text-to-music) and W6 (cover songs), rankings from embeddings, and W5-big: the NumPy-only
floor job, the bench that times it beside `python -m metrics evaluate-embeddings`, the report."""

from __future__ import annotations

import json
import sys
import tempfile
import time
from pathlib import Path

from harness import EXTRA, HERE, failure, fmt, job_command, mb, measure, median_of, ratio
from report import TARGETS, target


def job_floor_embeddings(truth_kind, queries, query_ids, items, item_ids, truth):
    """The floor of W5/W6: NumPy only (plus the standard library). Memory-maps the arrays,
    multiplies a block of queries by all items in float32 (BLAS), divides by the item norms
    (cosine: the query's norm does not change its ranking), and for each relevant item counts
    the items scoring strictly above it (the query itself excluded when the two sides are one
    file); AP, P@10, R@10 and the first relevant rank follow from those ranks. ``truth_kind`` is
    "qrels" (query_id,item_id,relevance CSV) or "labels" (item_id,label CSV: every item a
    query, its clique mates relevant)."""
    import csv

    import numpy as np

    t0 = time.perf_counter()
    same = (queries, query_ids) == (items, item_ids)
    q_ids = Path(query_ids).read_text().split()
    i_ids = q_ids if same else Path(item_ids).read_text().split()
    Q = np.load(queries, mmap_mode="r")
    X = Q if same else np.load(items, mmap_mode="r")
    item_index = {x: i for i, x in enumerate(i_ids)}
    pairs_q, pairs_i = [], []
    with open(truth, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        if truth_kind == "qrels":
            query_index = {x: i for i, x in enumerate(q_ids)}
            for qid, iid, rel in reader:
                if float(rel) > 0:
                    pairs_q.append(query_index[qid])
                    pairs_i.append(item_index[iid])
        else:
            cliques: dict[str, list[int]] = {}
            for iid, label in reader:
                cliques.setdefault(label, []).append(item_index[iid])
            for members in cliques.values():
                for a in members:
                    for b in members:
                        if a != b:
                            pairs_q.append(a)
                            pairs_i.append(b)
    pq, pi = np.asarray(pairs_q, dtype=np.int64), np.asarray(pairs_i, dtype=np.int64)
    order = np.argsort(pq, kind="stable")
    pq, pi = pq[order], pi[order]
    per_query = np.bincount(pq, minlength=len(q_ids))
    starts = np.concatenate([[0], np.cumsum(per_query)])
    slot = np.arange(len(pq)) - starts[pq]
    width = int(per_query.max())
    padded = np.full((len(q_ids), width), -1, dtype=np.int64)
    padded[pq, slot] = pi
    inv_norm = np.empty(len(i_ids), dtype=np.float32)
    for s in range(0, len(i_ids), 65536):
        inv_norm[s:s + 65536] = 1 / np.linalg.norm(np.asarray(X[s:s + 65536]), axis=1)
    t1 = time.perf_counter()
    ranks = np.zeros(padded.shape, dtype=np.int64)
    block = max(1, min(len(q_ids), 2 ** 23 // len(i_ids)))   # ≈ 32 MB of scores
    for s in range(0, len(q_ids), block):
        e = min(s + block, len(q_ids))
        scores = np.asarray(Q[s:e], dtype=np.float32) @ X.T
        scores *= inv_norm
        rows = np.arange(e - s)
        if same:
            scores[rows, rows + s] = -np.inf
        for j in range(width):   # the j-th relevant item of each query that has one
            cols = padded[s:e, j]
            live = np.nonzero(cols >= 0)[0]
            if len(live) == 0:
                continue
            part = scores if len(live) == e - s else scores[live]
            threshold = part[np.arange(len(live)), cols[live]]
            ranks[s + live, j] = np.count_nonzero(part > threshold[:, None], axis=1) + 1
    t2 = time.perf_counter()
    ranks = np.where(padded >= 0, ranks, np.iinfo(np.int64).max)
    ranks.sort(axis=1)
    live = np.arange(width)[None, :] < per_query[:, None]
    position = np.arange(1, width + 1)[None, :]
    has = per_query > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(live, position / ranks, 0).sum(axis=1) / per_query
    hits10 = (live & (ranks <= 10)).sum(axis=1)
    result = {"AP": float(ap[has].mean()), "P@10": float((hits10[has] / 10).mean()),
              "R@10": float((hits10[has] / per_query[has]).mean()),
              "FirstRank": float(ranks[has, 0].mean()), "queries": int(has.sum())}
    return {"load": t1 - t0, "kernel": t2 - t1, **result}


def bench_embeddings(kind: str, label: str, size: dict, repeats: int, timeout=None,
                     targets: bool = True) -> dict:
    from workloads import make_cover_workload, make_text_to_music_workload

    print(f"running {label}", flush=True)
    if kind == "W6":
        p = make_cover_workload(HERE / "workloads" / f"w6_{size['n']}_{size['dim']}",
                                size["n"], size["dim"], seed=6)
        inputs = [p["embeddings"], p["ids"], p["embeddings"], p["ids"], p["labels"]]
        measures, extra, truth_kind = "AP,FirstRank,P@10", [], "labels"
    else:
        p = make_text_to_music_workload(
            HERE / "workloads" / f"w5_{size['queries']}_{size['items']}_{size['dim']}",
            size["queries"], size["items"], size["dim"], seed=5)
        inputs = [p["queries"], p["query_ids"], p["items"], p["item_ids"], p["qrels"]]
        measures, extra, truth_kind = "AP,R@10,P@10", ["--similarity", "cosine"], "qrels"
    inputs = [str(x) for x in inputs]
    out_ours = tempfile.mktemp(suffix=".json")
    cli = [sys.executable, "-m", "metrics", "evaluate-embeddings", *inputs, "--measures",
           measures, *extra, "--format", "json"]
    runs = repeats + EXTRA[0] if targets else repeats   # W5-big: once each
    rows = {"floor (NumPy: blocks of queries, count items above)": measure(
                "floor", job_command("floor_embeddings", truth_kind, *inputs), runs,
                timeout=timeout),
            "ours (python -m metrics evaluate-embeddings)": measure(
                "ours", cli, runs, stdout_path=out_ours, timeout=timeout)}
    ours_values = {}
    if not failure(rows["ours (python -m metrics evaluate-embeddings)"]):
        ours_values = json.loads(Path(out_ours).read_text()).get("aggregate", {})
    return {"kind": kind, "label": label, "rows": rows, "measures": measures.split(","),
            "ours_values": ours_values, "targets": targets,
            "command": "python -m metrics evaluate-embeddings " + " ".join(
                Path(x).name for x in inputs) + f" --measures {measures} " + " ".join(extra)}


def report_embeddings(res: dict) -> list[str]:
    rows = list(res["rows"].values())
    floor_runs, ours_runs = rows
    floor_t, floor_m = median_of(floor_runs, "wall"), median_of(floor_runs, "rss_mb")
    ours_t, ours_m = median_of(ours_runs, "wall"), median_of(ours_runs, "rss_mb")
    lines = [f"## {res['label']}", "", f"`{res['command'].strip()}` against the floor: a "
             "separate NumPy-only process that memory-maps the arrays, multiplies blocks of "
             "queries by the items in float32 and counts, for each relevant item, the items "
             "scoring above it; mean AP (and P@10, R@10, first rank) from those ranks.", "",
             "| process | in-process kernel (s) | whole process (s) | ÷ floor (time) | "
             "peak memory MB | ÷ floor (memory) |", "| --- | --- | --- | --- | --- | --- |"]
    for name, runs in res["rows"].items():
        if failure(runs):
            lines.append(f"| {name} | — | {failure(runs)} | — | — | — |")
            continue
        t, m = median_of(runs, "wall"), median_of(runs, "rss_mb")
        lines.append(f"| {name} | {fmt(median_of(runs, 'kernel'))} | {fmt(t)} | "
                     f"{fmt(ratio(t, floor_t))} | {mb(m)} | {fmt(ratio(m, floor_m))} |")
    lines.append("")
    why = failure(ours_runs) or failure(floor_runs)
    if res["targets"]:
        lines += ["- " + target(res["kind"], "ours ÷ floor, whole-process time",
                                ratio(ours_t, floor_t), 3.0, why),
                  "- " + target(res["kind"], "ours ÷ floor, peak memory",
                                ratio(ours_m, floor_m), 2.0, why)]
    else:
        finished = not failure(ours_runs)
        TARGETS.append((res["kind"], "finishes on this machine", failure(ours_runs) or
                        f"{fmt(ours_t)} s, {mb(ours_m)} MB", "yes" if finished else "no"))
        lines += [f"- Finishes on this machine: **{'yes' if finished else 'no'}** — ours "
                  f"{failure(ours_runs) or f'{fmt(ours_t)} s and {mb(ours_m)} MB peak'}."]
    floor_values = next((r for r in floor_runs if not r.get("failed")), {})
    shared = [m for m in res["measures"] if m in floor_values and m in res["ours_values"]]
    if shared:
        lines += ["- Mean values, ours / floor (the floor breaks no ties: near-ties in float32 "
                  "may differ): " + ", ".join(
                      f"{m} {res['ours_values'][m]:.6f} / {floor_values[m]:.6f}" for m in shared)]
    return lines + [""]
