"""W6-cluster, W6 on one process and on a Dask LocalCluster of 1 and 2 workers: the job, the
bench (the process tree's memory sampled), the report and its cost model for larger jobs."""

from __future__ import annotations

import math
import time

from harness import (HERE, NAN, failure, fmt, job_command, mb, measure, median_of, ratio,
                     timed_tree)


def job_cluster(workers, embeddings, ids, labels):
    """W6 in this process (``workers`` 0) or on a Dask LocalCluster of ``workers`` processes of
    one thread each: seconds to start the cluster and to rank (the blocks of queries, as tasks),
    the mean values, and what the tasks moved (:attr:`metrics.ranking.cluster.Cluster.traffic`)."""
    from metrics.ranking.cluster import Cluster
    from metrics.evaluation.evaluate import evaluate
    from metrics.ranking.pipelines import judge_embeddings, load_truth

    workers = int(workers)
    t0 = time.perf_counter()
    truth = load_truth(labels)
    cluster = Cluster.start_local(workers) if workers else None
    t1 = time.perf_counter()
    try:
        judged = judge_embeddings(embeddings, ids, embeddings, ids, truth, "cosine",
                                  keep_lists=False, cluster=cluster)   # ties: stable
        t2 = time.perf_counter()
        values = evaluate(judged, "AP,FirstRank,P@10").aggregate("mean")
        traffic = dict(cluster.traffic) if cluster else {}
    finally:
        if cluster is not None:
            cluster.close()
    n = len(judged.query_ids)
    return {"startup": t1 - t0, "kernel": t2 - t1, "n": n, "traffic": traffic,
            **{m: float(v) for m, v in values.items()}}


TEN_MINUTES = 600.0


def bench_cluster(size: dict, repeats: int) -> dict:
    from workloads import make_cover_workload

    label = (f"W6-cluster — W6 ({size['n']:,} items × {size['dim']} dimensions, all against all) "
             f"on one process and on a Dask LocalCluster")
    print(f"running {label}", flush=True)
    p = make_cover_workload(HERE / "workloads" / f"w6_{size['n']}_{size['dim']}", size["n"],
                            size["dim"], seed=6)
    inputs = [str(p["embeddings"]), str(p["ids"]), str(p["labels"])]
    rows = {}
    for workers in (0, 1, 2):
        name = "one process" if workers == 0 else \
            f"LocalCluster, {workers} worker{'s' if workers > 1 else ''} (1 thread each)"
        rows[name] = measure(name, job_command("cluster", str(workers), *inputs), repeats,
                             runner=timed_tree)
    return {"label": label, "size": size, "rows": rows}


def cost_model(res: dict) -> list[str]:
    """Pairs per second per core from the 1- and 2-worker runs, what a task moves, and the
    cluster sizes that bring two larger jobs under ten minutes."""
    n, dim = res["size"]["n"], res["size"]["dim"]
    pairs = n * (n - 1)
    runs = list(res["rows"].values())
    one_worker, two_workers = runs[1], runs[2]
    t1, t2 = median_of(one_worker, "kernel"), median_of(two_workers, "kernel")
    rate = ratio(pairs, t1)                 # one worker of one thread: pairs/s per core
    rate2 = ratio(pairs, 2 * t2)            # per core with two
    efficiency = min(1.0, ratio(rate2, rate)) if rate2 == rate2 else NAN
    done = next((r for r in two_workers + one_worker if not r.get("failed") and r.get("traffic")),
                None)
    if done is None or rate != rate:
        return ["- Cost model: not computed (the cluster runs failed)."]
    traffic = done["traffic"]
    rows_per_task = n / max(traffic["tasks"], 1)
    out_per_row = traffic["out_of_task"] / rows_per_task
    lines = [
        f"- **Pairs per second per core**: {rate:.3g} (1 worker, {t1:.2f} s of ranking for "
        f"{pairs:.3g} query × item pairs); with 2 workers {rate2:.3g} per core, a scaling "
        f"efficiency of {efficiency:.0%} on this 2-core machine (which other work shares).",
        f"- **Bytes moved**: {traffic['to_each_worker'] / 2 ** 10:,.0f} KB to each worker once "
        f"(the tie keys, the cliques, the embeddings' paths — the embeddings themselves are "
        f"memory-mapped by each worker from the shared path), "
        f"{traffic['into_task']:,.0f} B into each task (its row bounds) and "
        f"{traffic['out_of_task'] / 2 ** 10:,.1f} KB out of each ({traffic['tasks']} tasks of "
        f"{rows_per_task:,.0f} query rows: {out_per_row:,.0f} B per query row).",
    ]
    budget = TEN_MINUTES * rate * efficiency   # pairs one core counts in ten minutes
    for what, big_pairs, items, queries in (
            ("N = 1,000,000 all against all", 1e6 * (1e6 - 1), 1e6, 1e6),
            ("10,000 queries × 10,000,000 tracks", 1e4 * 1e7, 1e7, 1e4)):
        cores = math.ceil(big_pairs / budget)
        embeddings_gb = items * dim * 4 / 2 ** 30
        lines.append(
            f"- **{what}** ({big_pairs:.2g} pairs, {dim} dimensions): {cores:,} worker cores "
            f"(threads) at the rate above bring it under ten minutes "
            f"({big_pairs / (cores * rate * efficiency) / 60:.1f} min of counting), plus each "
            f"worker's start: it maps the {embeddings_gb:,.1f} GB of item embeddings from the "
            f"shared path (the page cache holds what it reads; no copy is made: one norm per "
            f"item, {items * 4 / 2 ** 20:,.0f} MB, is kept per worker process). "
            f"Results coming back: about {queries * out_per_row / 2 ** 20:,.0f} MB in all "
            f"(all-vs-all rows carry each clique mate's counts; with qrels only the judged "
            f"pairs'), so the network is not the limit.")
    lines.append("- The rate is W6's cosine all-vs-all path (BLAS product plus counting, per "
                 "query × item pair); the qrels path (10,000 × 10,000,000) does the same work "
                 "per pair, so the same rate is assumed. Measured on loopback here; planned, not "
                 "run, beyond this machine.")
    return lines


def report_cluster(res: dict) -> list[str]:
    lines = [f"## {res['label']}", "",
             "`python benchmarks/run_benchmarks.py --only W6-cluster`: each run is one process "
             "(the job) that starts the cluster itself "
             "(`metrics.ranking.cluster.Cluster.start_local`, "
             "worker processes of one thread on 127.0.0.1), ranks all queries as Dask tasks and "
             "evaluates; peak memory is the sum over the process and its workers (sampled).", "",
             "| run | start cluster (s) | ranking (s) | whole process (s) | peak memory of the "
             "process tree MB | tasks | AP |", "| --- | --- | --- | --- | --- | --- | --- |"]
    reference = None
    for name, runs in res["rows"].items():
        if failure(runs):
            lines.append(f"| {name} | — | — | {failure(runs)} | — | — | — |")
            continue
        done = next(r for r in runs if not r.get("failed"))
        reference = reference if reference is not None else done.get("AP")
        lines.append(f"| {name} | {fmt(median_of(runs, 'startup'))} | "
                     f"{fmt(median_of(runs, 'kernel'))} | {fmt(median_of(runs, 'wall'))} | "
                     f"{mb(median_of(runs, 'rss_mb'))} | {done['traffic'].get('tasks', 1)} | "
                     f"{done.get('AP', NAN):.6f} |")
    lines += ["", "### Cost model", "", *cost_model(res), ""]
    return lines
