"""Time this project and its peers on the same workloads in one run; write BENCHMARKS.md.

    python benchmarks/run_benchmarks.py --trec-eval /path/to/trec_eval   # all but W5-big, W7
    python benchmarks/run_benchmarks.py --big                       # ... and W5-big, W7 (slow)
    python benchmarks/run_benchmarks.py --quick                           # small sizes, ~3-5 min
    python benchmarks/run_benchmarks.py --only W4,W5 [--quick]            # a subset
    python benchmarks/run_benchmarks.py --only dashboard-browser --browser-slowdown 3
                                        # the dashboard's clicks with Chromium's CPU slowed 3×

Workloads (seeded, generated into benchmarks/workloads/, not committed; see workloads.py):
W1 10,000 queries × 1,000 results (10 M lines) and W2 1,000 × 1,000 against pytrec_eval, ranx,
ir_measures and the trec_eval binary; W3 all-vs-all N×N matrices against a streaming floor;
W4 a skewed run (10,000 × 10 plus one list of 1,000,000) against pytrec_eval and the trec_eval
binary, per-query values compared; W5 text-to-music embeddings (2,000 × 50,000 × 128) and W6
cover songs from embeddings (20,000 items in cliques) against a NumPy-only floor process; W5-big
(10,000 × 200,000 × 512, with --big); W7 a run larger than memory (100,000 × 1,000, 100 M lines,
about 3.7 GB, sorted by query, and its gzip; with --big; $W7_DIR puts it elsewhere) against the
trec_eval binary; W6-cluster, the same W6 job on one process and on a Dask
LocalCluster of 1 and 2 workers, with a cost model for larger jobs on a cluster; the memory
curve (peak memory against lines read, balanced and skewed runs of 1, 3 and 10 M lines); the
dashboard (script time, AppTest); the dashboard in headless Chromium (dashboard-browser: two
W2-sized runs uploaded to a real server, the Query explorer's clicks timed in the browser,
beside the same clicks on floor_app.py, Streamlit's floor); a fresh server's first page
(first-page: each of a few pages as a new server's first request, in Chromium, and where the
server's time goes); how cost grows; metadata tables (an item table of 1 M rows as CSV and
Parquet, and Parquet in one-row groups: time and peak memory beside the file's size); media
clips (media: a real server's peak memory beside the size of a clip it plays, 64 MB to 4 GB);
hostile inputs (hostile: issue 42's items 9-11, one query of 20 M lines gzipped, runs of a 2 GB
line and of 2 GB of NULs refused, a 2 GB clip on the Query explorer; time and peak memory beside
the input's size).

The trec_eval binary is not part of this repository: build it from its public source
(github.com/usnistgov/trec_eval, `make`) and give its path with --trec-eval or $TREC_EVAL (else
trec_eval on PATH is used; without one that peer is skipped with a note).

Every timed job runs in its own process under /usr/bin/time, so the wall time includes start-up
where the phase is "whole process" and the peak memory (max RSS) is the job's own. Each process
has its address space capped (RLIMIT_AS, --mem-cap-gb, default 16 GB, 8 with --quick) and is
killed after --timeout seconds; a failure is reported ("failed: out of memory / timeout") and the
run goes on. Reported: the median of the repeats and ratios; a Targets table at the top says
which targets are met. A full run writes BENCHMARKS.md; --quick and --only write
benchmarks/workloads/BENCHMARKS.partial.md unless --out is given; --update (with --only) replaces
the sections of the workloads run, and their targets, in BENCHMARKS.md and keeps the others, so
that the page holds each workload's latest run.
"""

# The entry point only: its options, and which bench and report each chosen workload runs. A
# timed job is this script again, `--job NAME ARGS...` (harness.job_command), in a fresh process.
# The rest is in the modules beside it: harness.py (measured processes and their records),
# report.py (targets, machine, the page), peers.py (pytrec_eval, ranx, ir_measures, the
# trec_eval binary), bench_trec.py (W1/W2, W4), bench_matrix.py (W3), bench_embeddings.py (W5,
# W5-big, W6), bench_cluster.py (W6-cluster), bench_growth.py (memory curve, how cost grows),
# bench_dashboard.py (AppTest), bench_browser.py with browser.py and dashboard_browser.js
# (dashboard-browser); workloads.py makes the inputs.

from __future__ import annotations

import argparse
import json
import os
import sys
import tempfile
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))

from bench_browser import job_dashboard_browser, report_dashboard_browser  # noqa: E402
from bench_cluster import bench_cluster, job_cluster, report_cluster  # noqa: E402
from bench_dashboard import (groups_workload, job_dashboard, job_groups,  # noqa: E402
                             report_dashboard, report_groups)
from bench_first_page import job_first_page, report_first_page  # noqa: E402
from bench_hostile import bench_hostile, job_refusal, report_hostile  # noqa: E402
from bench_embeddings import bench_embeddings, job_floor_embeddings, report_embeddings  # noqa: E402
from bench_growth import bench_curve, bench_scaling, report_curve, report_scaling  # noqa: E402
from bench_matrix import bench_matrix, job_matrix, report_matrix  # noqa: E402
from bench_media import bench_media, job_media, report_media  # noqa: E402
from bench_metadata import (bench_metadata, job_metadata, make_metadata_workload,  # noqa: E402
                            report_metadata)
from bench_trec import (W7_QUERIES, bench_large, bench_runs, bench_skewed, job_ours,  # noqa: E402
                        report_large, report_runs, report_skewed)
from harness import EXTRA, LIMITS, job_command, timed  # noqa: E402
from peers import find_trec_eval, job_ir_measures, job_pytrec, job_ranx  # noqa: E402
from report import write_report  # noqa: E402

JOBS = {"ours": job_ours, "cluster": job_cluster, "dashboard": job_dashboard,
        "dashboard_browser": job_dashboard_browser, "pytrec_eval": job_pytrec, "ranx": job_ranx,
        "ir_measures": job_ir_measures, "matrix": job_matrix,
        "floor_embeddings": job_floor_embeddings, "first_page": job_first_page,
        "metadata": job_metadata, "groups": job_groups, "media": job_media,
        "hostile_refusal": job_refusal}

WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W5-big", "W6", "W6-cluster", "W7", "curve",
             "dashboard", "dashboard-browser", "first-page", "scaling", "metadata", "groups",
             "media", "hostile")
BIG = ("W5-big", "W7")   # run with --big or --only


def options() -> argparse.ArgumentParser:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true",
                        help="small versions of every workload, one repeat (a few minutes)")
    parser.add_argument("--only", help="comma-separated subset of " + ",".join(WORKLOADS))
    parser.add_argument("--big", action="store_true", help="also run W5-big and W7 (slow)")
    parser.add_argument("--repeats", type=int, default=3)
    parser.add_argument("--trec-eval", help="the trec_eval binary (default: $TREC_EVAL, then "
                                            "trec_eval on PATH); skipped with a note if absent")
    parser.add_argument("--timeout", type=float, default=900.0,
                        help="seconds before a measured process is killed (W5-big: 4×)")
    parser.add_argument("--mem-cap-gb", type=float,
                        help="address-space cap of every measured process (default 16, "
                             "--quick 8)")
    parser.add_argument("--browser-slowdown", type=float, default=1.0,
                        help="dashboard-browser: slow Chromium's CPU this many times (its "
                             "DevTools' throttling), to see the dashboard on a slower machine")
    parser.add_argument("--update", action="store_true",
                        help="replace the sections (and targets) of the workloads run in "
                             "BENCHMARKS.md (or --out) and keep the rest")
    parser.add_argument("--out", help="report file (default BENCHMARKS.md for a full run, "
                                      "benchmarks/workloads/BENCHMARKS.partial.md with --quick "
                                      "or --only)")
    return parser


def chosen_workloads(args, parser) -> set[str]:
    chosen = set(WORKLOADS) - set(BIG) - ({"scaling"} if args.quick else set())
    if args.big:
        chosen.update(BIG)
    if args.only:
        lookup = {w.lower(): w for w in WORKLOADS}
        wanted = [x.strip().lower() for x in args.only.split(",") if x.strip()]
        unknown = [x for x in wanted if x not in lookup]
        if unknown:
            parser.error(f"unknown workload(s) {unknown}; choose from {','.join(WORKLOADS)}")
        chosen = {lookup[x] for x in wanted}
    return chosen


def run_workloads(chosen: set[str], args) -> list[list[str]]:
    """Each chosen workload's bench, then its report: the report's sections in order."""
    # only the driver generates workloads: a timed job must not pay for their imports (pandas)
    from workloads import make_run_workload

    quick = args.quick
    repeats = 1 if quick else args.repeats
    EXTRA[0] = 0 if quick else 2
    cache_dir = tempfile.mkdtemp(prefix="numba_warm_")
    sections: list[list[str]] = []
    runs = []
    if "W2" in chosen or (quick and "W1" in chosen):
        runs.append((1000, "W2 — 1,000 queries × 1,000 results (interactive size)"
                     + (" — with --quick, W1's targets are checked on it" if quick and "W1" in
                        chosen else ""), "W1 (--quick: on W2)" if quick and "W1" in chosen
                     else None))
    if "W1" in chosen and not quick:
        runs.append((10000, "W1 — 10,000 queries × 1,000 results (10 M lines)", "W1"))
    for queries, label, with_targets in runs:
        paths = make_run_workload(HERE / "workloads" / f"q{queries}", queries, seed=queries)
        print(f"running {label}", flush=True)
        # warm the ranx cache once so that 'warm' means compiled code on disk
        timed(job_command("ranx", str(paths["run"]), str(paths["graded"]), "-"),
              env=dict(os.environ, NUMBA_CACHE_DIR=cache_dir))
        sections.append(report_runs(bench_runs(label, paths, repeats, cache_dir, quick,
                                               with_targets)))
    if "W4" in chosen:
        short, long_depth = (1_000, 100_000) if quick else (10_000, 1_000_000)
        sections.append(report_skewed(bench_skewed(
            f"W4 — skewed run: {short:,} queries × 10 results plus one list of {long_depth:,}",
            short, long_depth, repeats)))
    if "W7" in chosen:
        queries = 10_000 if quick else W7_QUERIES
        sections.append(report_large(bench_large(
            f"W7 — a run larger than memory: {queries:,} queries × 1,000 results, plain and "
            f"gzip", queries, 1)))
    if "W5" in chosen:
        size = {"queries": 300, "items": 5_000, "dim": 64} if quick else \
            {"queries": 2_000, "items": 50_000, "dim": 128}
        sections.append(report_embeddings(bench_embeddings(
            "W5", f"W5 — text-to-music from embeddings: {size['queries']:,} queries × "
                  f"{size['items']:,} items × {size['dim']} dimensions", size, repeats)))
    if "W5-big" in chosen:
        size = {"queries": 1_000, "items": 20_000, "dim": 512} if quick else \
            {"queries": 10_000, "items": 200_000, "dim": 512}
        sections.append(report_embeddings(bench_embeddings(
            "W5-big", f"W5-big — {size['queries']:,} queries × {size['items']:,} items × "
                      f"{size['dim']} dimensions (time and memory only)", size, 1,
            timeout=4 * LIMITS["timeout"], targets=False)))
    if "W6" in chosen:
        size = {"n": 2_000, "dim": 64} if quick else {"n": 20_000, "dim": 128}
        sections.append(report_embeddings(bench_embeddings(
            "W6", f"W6 — cover songs from embeddings: {size['n']:,} items in cliques of about "
                  f"four, {size['dim']} dimensions, all against all (query excluded)", size,
            repeats)))
    if "W6-cluster" in chosen:
        size = {"n": 2_000, "dim": 64} if quick else {"n": 20_000, "dim": 128}
        sections.append(report_cluster(bench_cluster(size, repeats)))
    if "curve" in chosen:
        points = [100_000, 300_000, 1_000_000] if quick else [1_000_000, 3_000_000, 10_000_000]
        sections.append(report_curve(bench_curve(points, pytrec_points=2)))
    if "W3" in chosen:
        for n in ([5000] if quick else [10000, 20000]):
            print(f"running W3 N={n}", flush=True)
            sections.append(report_matrix(bench_matrix(n, repeats, seed=n)))
    if "dashboard" in chosen:
        print("running the dashboard", flush=True)
        paths = make_run_workload(HERE / "workloads" / "q1000", 1000, seed=1000)
        sections.append(report_dashboard(timed(job_command(
            "dashboard", str(paths["run"]), str(paths["graded"]), "-"))))
    if "dashboard-browser" in chosen:
        print("running the dashboard in a browser", flush=True)
        from workloads import make_second_run

        paths = make_run_workload(HERE / "workloads" / "q1000", 1000, seed=1000)
        second = make_second_run(paths, seed=1001)
        sections.append(report_dashboard_browser(timed(job_command(
            "dashboard_browser", str(paths["run"]), str(second), str(paths["graded"]), "-",
            "3" if quick else "7", str(args.browser_slowdown)), cap=False)))
    if "first-page" in chosen:
        print("running a fresh server's first pages", flush=True)
        sections.append(report_first_page(timed(job_command(
            "first_page", "-", "1" if quick else str(repeats)), cap=False)))
    if "metadata" in chosen:
        rows = 200_000 if quick else 1_000_000
        sections.append(report_metadata(bench_metadata(make_metadata_workload(
            HERE / "workloads" / "metadata", rows, (30_000,) if quick else (30_000, 70_000)),
            repeats)))
    if "media" in chosen:
        sections.append(report_media(bench_media(quick)))
    if "hostile" in chosen:
        sections.append(report_hostile(bench_hostile(HERE / "workloads" / "hostile", quick,
                                                     repeats)))
    if "groups" in chosen:
        print("running the Groups page with many groups", flush=True)
        count = 1_000 if quick else 10_000
        paths = groups_workload(HERE / "workloads" / f"groups{count}", count)
        sections.append(report_groups(count, timed(job_command(
            "groups", *(str(paths[k]) for k in ("a", "b", "qrels", "queries")), "-"))))
    if "scaling" in chosen:
        print("running how cost grows", flush=True)
        sections.append(report_scaling(bench_scaling()))
    return sections


def compile_project() -> None:
    """The project's modules as bytecode, as an installation holds them (pip compiles what it
    installs; an editable install writes them on first import): where PYTHONDONTWRITEBYTECODE
    is set, every measured process would compile them again."""
    import compileall

    for folder in ("metrics", "dashboard", "charts", "pages"):
        compileall.compile_dir(str(ROOT / folder), quiet=1)


def main() -> None:
    parser = options()
    args = parser.parse_args()
    if args.job:
        name, *rest = args.job
        print(json.dumps(JOBS[name](*rest)))
        return
    chosen = chosen_workloads(args, parser)
    if args.update and args.quick:
        parser.error("--update replaces sections of the report with full-size runs: not --quick")
    LIMITS.update(timeout=args.timeout,
                  mem_cap_gb=args.mem_cap_gb or (8.0 if args.quick else 16.0))
    find_trec_eval(args.trec_eval)
    compile_project()
    sections = run_workloads(chosen, args)
    command = "python benchmarks/run_benchmarks.py" + "".join(
        f" {a}" for a in sys.argv[1:])
    partial = (args.quick or bool(args.only)) and not args.update
    out = Path(args.out) if args.out else (HERE / "workloads" / "BENCHMARKS.partial.md"
                                           if partial else ROOT / "BENCHMARKS.md")
    previous = out.read_text() if args.update and out.exists() else None
    report = write_report(sections, command, previous)
    report += "\n" + (HERE / "scale_notes.md").read_text()
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report)
    print(report)
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
