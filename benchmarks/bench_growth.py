"""How cost grows with the input: the memory curve (peak memory against lines read, balanced and
skewed runs) and how time grows with queries, list depth and matrix size; bench and report."""

from __future__ import annotations

import sys

from bench_trec import OUR_MEASURES
from harness import HERE, NAN, failure, fmt, job_command, mb, measure, median_of, timed
from report import TARGETS


# ---- memory as a curve --------------------------------------------------------------------------

def bench_curve(points: list[int], pytrec_points: int) -> dict:
    from workloads import make_run_workload, make_skewed_run_workload

    results = []
    for shape in ("balanced", "skewed"):
        for i, lines in enumerate(points):
            if shape == "balanced":
                queries = lines // 1000
                paths = make_run_workload(HERE / "workloads" / f"q{queries}", queries,
                                          seed=queries)
                run, qrels, longest = paths["run"], paths["graded"], 1000
            else:
                short = lines // 100
                longest = lines - short * 10
                paths = make_skewed_run_workload(HERE / "workloads" / f"skew_{lines}", short,
                                                 longest, seed=lines)
                run, qrels, queries = paths["run"], paths["qrels"], short + 1
            print(f"running memory curve: {shape}, {lines:,} lines", flush=True)
            cli = [sys.executable, "-m", "metrics", "evaluate", str(run), str(qrels),
                   "--measures", OUR_MEASURES, "--ties", "trec", "--format", "json"]
            row = {"shape": shape, "lines": lines, "queries": queries, "longest": longest,
                   "ours": measure("ours", cli, 1)}
            if i < pytrec_points:
                row["pytrec_eval"] = measure("pytrec_eval", job_command(
                    "pytrec_eval", str(run), str(qrels), "-"), 1)
            results.append(row)
    return {"points": points, "rows": results}


def report_curve(res: dict) -> list[str]:
    import numpy as np

    lines = ["## Memory as a curve: peak memory against lines read", "",
             "`python -m metrics evaluate run qrels --measures " + OUR_MEASURES + " --ties trec "
             "--format json`, one fresh process per point. *Balanced*: queries × 1,000 results; "
             "*skewed*: lines ÷ 100 queries × 10 results plus one query whose list carries the "
             "other 90 % of the lines.", "",
             "| shape | lines | queries | longest list | queries × longest | ours peak MB | "
             "ours s | pytrec_eval peak MB | pytrec_eval s |",
             "| --- | --- | --- | --- | --- | --- | --- | --- | --- |"]
    for r in res["rows"]:
        ours = failure(r["ours"]) or mb(median_of(r["ours"], "rss_mb"))
        py = r.get("pytrec_eval")
        py_cells = ("— | —" if py is None else f"{failure(py)} | —" if failure(py) else
                    f"{mb(median_of(py, 'rss_mb'))} | {fmt(median_of(py, 'wall'))}")
        lines.append(f"| {r['shape']} | {r['lines']:,} | {r['queries']:,} | {r['longest']:,} | "
                     f"{r['queries'] * r['longest']:,} | {ours} | "
                     f"{fmt(median_of(r['ours'], 'wall'))} | {py_cells} |")
    lines += ["", "| shape | MB per million lines (least squares) | intercept MB | largest point "
              "against the line through the two smaller ones | grows linearly with the lines? |",
              "| --- | --- | --- | --- | --- |"]
    for shape in ("balanced", "skewed"):
        rows = [r for r in res["rows"] if r["shape"] == shape]
        ok = [r for r in rows if not failure(r["ours"])]
        x = np.array([r["lines"] / 1e6 for r in ok])
        y = np.array([median_of(r["ours"], "rss_mb") for r in ok])
        if len(ok) < len(rows) or len(ok) < 3:
            bad = next((failure(r["ours"]) for r in rows if failure(r["ours"])), "too few points")
            slope, icpt = (np.polyfit(x, y, 1) if len(ok) >= 2 else (NAN, NAN))
            lines.append(f"| {shape} | {fmt(slope)} | {mb(icpt)} | — | no ({bad}) |")
            TARGETS.append(("memory curve", f"{shape}: memory linear in the lines", bad, "no"))
            continue
        slope, icpt = np.polyfit(x, y, 1)
        # the largest point against the line through the two smallest: linear growth stays on it
        predicted = y[0] + (y[1] - y[0]) / (x[1] - x[0]) * (x[-1] - x[0])
        deviation = (y[-1] - predicted) / predicted
        linear = abs(deviation) <= 0.25
        lines.append(f"| {shape} | {slope:.1f} | {icpt:.0f} | {deviation:+.0%} | "
                     f"{'yes' if linear else 'no'} |")
        TARGETS.append(("memory curve", f"{shape}: memory linear in the lines (largest point "
                        "within ±25 % of the line through the two smaller ones)",
                        f"{slope:.1f} MB per M lines, {deviation:+.0%}", "yes" if linear else "no"))
    return lines + [""]

# ---- how cost grows ------------------------------------------------------------------------------


def bench_scaling() -> list[tuple[str, str, str]]:
    from workloads import make_matrix_workload, make_run_workload

    scaling = []
    for queries in (1000, 3000, 10000):
        paths = make_run_workload(HERE / "workloads" / f"q{queries}", queries, seed=queries)
        t = timed([sys.executable, "-m", "metrics", "evaluate", str(paths["run"]),
                   str(paths["graded"]), "--measures", OUR_MEASURES, "--format", "json"])
        scaling.append(("run (queries × 1,000)", f"{queries:,} queries",
                        t["failed"] or fmt(t["wall"])))
    for depth in (300, 1000, 3000):
        paths = make_run_workload(HERE / "workloads" / f"q1000_d{depth}", 1000, seed=depth,
                                  depth=depth)
        t = timed([sys.executable, "-m", "metrics", "evaluate", str(paths["run"]),
                   str(paths["graded"]), "--measures", OUR_MEASURES, "--format", "json"])
        scaling.append(("run (1,000 queries × depth)", f"depth {depth:,}",
                        t["failed"] or fmt(t["wall"])))
    for n in (5000, 10000, 20000):
        paths = make_matrix_workload(HERE / "workloads" / "w3", n, seed=n)
        t = timed(job_command("matrix", "counting", str(paths["matrix"]),
                              str(paths["labels"]), "-"))
        scaling.append(("all-vs-all", f"N = {n:,}", t["failed"] or fmt(t["wall"])))
    return scaling


def report_scaling(scaling: list[tuple[str, str, str]]) -> list[str]:
    return ["## How cost grows", "", "| workload | size | ours, whole process (s) |",
            "| --- | --- | --- |", *[f"| {w} | {size} | {t} |" for w, size, t in scaling], ""]
