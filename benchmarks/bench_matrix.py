"""W3, all-vs-all N×N similarity matrices: the job that times one method (the counting kernel,
with and without its C extension, a full sort of every row, a streaming floor), the bench and
its report."""

from __future__ import annotations

import os
import sys
import time

from harness import EXTRA, HERE, failure, fmt, job_command, mb, measure, median_of, ratio
from report import target


MATRIX_MEASURES = "AP,FirstRank,P@10,MedianRank"


def job_matrix(method, matrix, labels, out):
    """One W3 method; "kernel" is the time after imports: reading the labels and the matrix and
    computing (the floor reads the matrix only)."""
    import numpy as np
    if method != "floor":
        from metrics import GroundTruth, JudgedRanking, evaluate  # noqa: F401
        from metrics.ranking import allvsall  # noqa: F401
        from metrics.ranking.cliques import clique_partners  # noqa: F401
        from metrics.loaders import load_labels  # noqa: F401
        from metrics.ranking.pipelines import judge_matrix  # noqa: F401
        if method == "counting, NumPy":   # as when the C extension was not built
            allvsall._counting = None
    t0 = time.perf_counter()
    if method.startswith("counting"):
        evaluate(judge_matrix(matrix, labels, keep_lists=False), MATRIX_MEASURES)
    elif method == "full-sort":
        ids, lab = load_labels(labels)
        m = np.load(matrix, mmap_mode="r")
        partners = clique_partners(lab)
        ranks = np.full(partners.shape, np.nan)
        for start in range(0, m.shape[0], 512):   # acoss-style: argsort every row
            block = np.array(m[start:start + 512])
            rows = np.arange(len(block))
            block[rows, rows + start] = -np.inf      # the query itself goes last
            order = np.argsort(-block, axis=1, kind="stable")
            position = np.empty_like(order)
            np.put_along_axis(position, order, np.arange(order.shape[1])[None, :], axis=1)
            cols = partners[start:start + 512]
            ranks[start:start + 512] = np.where(
                cols >= 0, np.take_along_axis(position, np.maximum(cols, 0), axis=1) + 1, np.nan)
        query, _ = np.nonzero(~np.isnan(ranks))   # the sorted rows' ranks as the engine's hits
        counts = GroundTruth.from_labels(ids, lab).grade_counts()
        evaluate(JudgedRanking.from_hits(ids, np.full(len(ids), len(ids) - 1), query,
                                         ranks[~np.isnan(ranks)].astype(np.int64),
                                         np.ones(len(query), dtype=np.int64), counts,
                                         unlisted_judged=True), MATRIX_MEASURES)
    elif method == "floor":  # one streaming pass, a row-wise reduction
        m = np.load(matrix, mmap_mode="r")
        for start in range(0, m.shape[0], 64):  # the counting kernel's chunk size
            np.asarray(m[start:start + 64]).max(axis=1)
    else:  # "floor, all cores": the same pass over row parts on the counting kernel's threads
        from metrics.parallel import over_parts
        m = np.load(matrix, mmap_mode="r")

        def reduce_rows(begin, end):
            for start in range(begin, end, 64):
                np.asarray(m[start:min(start + 64, end)]).max(axis=1)
        over_parts(reduce_rows, m.shape[0], m.shape[1])
    elapsed = time.perf_counter() - t0
    return {"kernel": elapsed,
            **({"code": allvsall.counting_kernel()} if method != "floor" else {})}


def bench_matrix(n: int, repeats: int, seed: int) -> dict:
    from workloads import make_matrix_workload

    paths = make_matrix_workload(HERE / "workloads" / "w3", n, seed)
    rows = {}
    # the floor and the counting kernel take tenths of a second: two more repeats steady them
    counts = {"floor": repeats + EXTRA[0], "counting": repeats + EXTRA[0],
              "full-sort": max(1, repeats - 1)}
    for method in ("floor", "floor, all cores", "counting", "counting, NumPy", "full-sort"):
        rows[method] = measure(method, job_command("matrix", method, str(paths["matrix"]),
                                                   str(paths["labels"]), "-"),
                               counts.get(method, repeats))
    cli = [sys.executable, "-m", "metrics", "evaluate-matrix", str(paths["matrix"]),
           str(paths["labels"]), "--measures", MATRIX_MEASURES, "--format", "json"]
    return {"n": n, "rows": rows, "command_line": measure("command line", cli, repeats)}


def report_matrix(res: dict) -> list[str]:
    rows = res["rows"]
    lines = [f"## W3 — all-vs-all, N = {res['n']:,} ({MATRIX_MEASURES})", "",
             "*Kernel* is the time inside the process after imports (reading labels and "
             "matrix, computing); *whole process* adds interpreter start-up and imports "
             "(the floor imports NumPy only, the others the whole toolkit).", "",
             "| method | kernel | ÷ floor | full sort ÷ this | whole process | ÷ floor | "
             "full sort ÷ this | peak memory MB |",
             "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    floor = {k: median_of(rows["floor"], k) for k in ("kernel", "wall")}
    sort = {k: median_of(rows["full-sort"], k) for k in ("kernel", "wall")}
    for name, runs in rows.items():
        if failure(runs):
            lines.append(f"| {name} | {failure(runs)} | | | | | | |")
            continue
        cells = []
        for key in ("kernel", "wall"):
            t = median_of(runs, key)
            cells += [fmt(t), fmt(ratio(t, floor[key])), fmt(ratio(sort[key], t))]
        lines.append(f"| {name} | {' | '.join(cells)} | {mb(median_of(runs, 'rss_mb'))} |")
    kernel = median_of(rows["counting"], "kernel")
    parallel_floor = median_of(rows["floor, all cores"], "kernel")
    code = next((r["code"] for r in rows["counting"] if "code" in r), "?")
    lines += ["", f"Counting kernel ({code}): "
                  f"{fmt(ratio(kernel, floor['kernel']))}× the streaming floor "
                  f"(target ≤ 3), {fmt(ratio(sort['kernel'], kernel))}× faster than sorting every "
                  f"row (target ≥ 10). It splits its rows over the "
                  f"machine's {os.cpu_count()} cores; the floor's pass split the same way "
                  f"takes {fmt(parallel_floor)} s, and against that the kernel is "
                  f"{fmt(ratio(kernel, parallel_floor))}×. *Counting, NumPy* is the same method "
                  f"without the C extension (what runs where it could not be built).", "",
              "- " + target(f"W3 N={res['n']:,}", "counting kernel ÷ floor (kernel time)",
                            ratio(kernel, floor["kernel"]), 3.0, failure(rows["counting"])),
              ""]
    command_line = median_of(res["command_line"], "wall")
    lines += [f"The command line, `python -m metrics evaluate-matrix` with these measures, "
              f"takes {failure(res['command_line']) or fmt(command_line) + ' s'} as a whole "
              f"process: {fmt(ratio(command_line, floor['wall']))}× the floor's whole process and "
              f"{fmt(ratio(sort['wall'], command_line))}× faster than the full sort's.", ""]
    return lines
