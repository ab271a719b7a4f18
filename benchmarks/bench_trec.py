"""TREC runs, ours against the peers: W1/W2 (runs with about 1,000 results per query) and W4 (a
skewed run), each a bench (the measured processes) and a report (its section); and the job that
times our loading and evaluating in a process of its own."""

from __future__ import annotations

import json
import os
import sys
import tempfile
import time
from pathlib import Path

from harness import (EXTRA, HERE, NAN, failure, fmt, job_command, mb, measure, measure_in_turn,
                     median_of, ratio)
from peers import BINARY_MEASURES, TREC_EVAL, read_trec_eval, trec_eval_args
from report import TARGETS, target


OUR_MEASURES = "AP,P@10,RR,nDCG@10,Bpref,Rprec"
TREC_EVAL_OURS = "ours: python -m metrics trec-eval"


def job_ours(run, qrels, out):
    t0 = time.perf_counter()
    from metrics import evaluate
    from metrics.loaders import load_qrels, load_run
    from metrics.ranking.rank import judge
    t1 = time.perf_counter()
    r, q = load_run(run), load_qrels(qrels)
    t2 = time.perf_counter()
    result = evaluate(judge(r, q, ties="trec"), OUR_MEASURES)
    t3 = time.perf_counter()
    per_query = {str(qid): {m: float(res.values[i]) for m, res in result.results.items()}
                 for i, qid in enumerate(result.query_ids)}
    Path(out).write_text(json.dumps(per_query))
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2}


# ---- W1/W2: runs with ~1,000 results per query --------------------------------------------------

def bench_runs(label: str, paths: dict, repeats: int, cache_dir: str, quick: bool,
               targets: str | None) -> dict:
    """W1/W2; ``targets``: the workload name under which W1's targets are checked, or None."""
    rows = {}
    out_ours = tempfile.mktemp(suffix=".json")
    out_trec = tempfile.mktemp(suffix=".json")
    env = dict(os.environ, NUMBA_CACHE_DIR=cache_dir)
    run, qrels = str(paths["run"]), str(paths["graded"])
    cli = [sys.executable, "-m", "metrics", "evaluate", run, qrels,
           "--measures", OUR_MEASURES, "--ties", "trec", "--format", "json"]
    # the timings the targets compare get two more repeats (their medians decide them), taken in
    # turn with the trec_eval binary's so that a ratio compares runs made under the same load
    in_turn = {"ours, whole command line": (cli, {}),
               "pytrec_eval": (job_command("pytrec_eval", run, qrels, out_trec), {})}
    identical = None
    if TREC_EVAL["path"]:
        binary_out, ours_out = tempfile.mktemp(suffix=".trec_eval"), tempfile.mktemp()
        args = trec_eval_args(run, qrels, BINARY_MEASURES)
        in_turn["trec_eval binary"] = (args, {"stdout_path": binary_out})
        # trec_eval's own command line on our engine, beside the binary in the same run
        in_turn["ours, trec-eval"] = ([sys.executable, "-m", "metrics", "trec-eval", *args[1:]],
                                      {"stdout_path": ours_out})
    timings = measure_in_turn(in_turn, repeats + EXTRA[0])
    rows["ours: whole command line"] = timings["ours, whole command line"]
    rows["ours: phases"] = measure("ours, phases", job_command("ours", run, qrels, out_ours),
                                   repeats)
    rows["pytrec_eval"] = timings["pytrec_eval"]
    if TREC_EVAL["path"]:
        rows["trec_eval 10 (binary)"] = timings["trec_eval binary"]
        rows[TREC_EVAL_OURS] = timings["ours, trec-eval"]
        if not failure(rows[TREC_EVAL_OURS]) and not failure(rows["trec_eval 10 (binary)"]):
            identical = Path(ours_out).read_bytes() == Path(binary_out).read_bytes()
    if not quick:
        cold_dir = tempfile.mkdtemp(prefix="numba_cold_")
        rows["ranx cold (JIT compile)"] = measure(
            "ranx cold", job_command("ranx", run, qrels, "-"), 1,
            env=dict(os.environ, NUMBA_CACHE_DIR=cold_dir))
    rows["ranx warm (cached JIT)"] = measure("ranx warm", job_command("ranx", run, qrels, "-"),
                                             repeats, env=env)
    rows["ir_measures"] = measure("ir_measures", job_command("ir_measures", run, qrels, "-"),
                                  max(1, repeats - 1))
    worst, compared = NAN, 0
    if Path(out_ours).exists() and Path(out_trec).exists():
        ours = json.loads(Path(out_ours).read_text())
        trec = json.loads(Path(out_trec).read_text())
        worst = max(abs(ours[q][m] - v) if q in ours else float("inf")
                    for q, values in trec.items() for m, v in values.items())
        compared = sum(len(v) for v in trec.values())
    return {"label": label, "rows": rows, "agreement": worst, "compared": compared,
            "targets": targets, "identical": identical}


def report_runs(res: dict) -> list[str]:
    rows = res["rows"]
    whole_runs = rows["ours: whole command line"]
    ours_whole, ours_rss = median_of(whole_runs, "wall"), median_of(whole_runs, "rss_mb")
    lines = [f"## {res['label']}", "",
             "| tool | load (in process) | evaluate (in process) | whole process | "
             "peer ÷ ours (whole) | peak memory MB |", "| --- | --- | --- | --- | --- | --- |"]
    for name, runs in rows.items():
        if name == "ours: whole command line":
            continue
        ours_row = name == "ours: phases"
        shown = "ours (python -m metrics)" if ours_row else name
        if failure(runs) and not ours_row:
            lines.append(f"| {shown} | — | — | {failure(runs)} | — | — |")
            continue
        whole = ours_whole if ours_row else median_of(runs, "wall")
        extra = (f" (again: {fmt(median_of(runs, 'evaluate_again'))})"
                 if any("evaluate_again" in r for r in runs) else "")
        whole_cell = failure(whole_runs) or fmt(whole) if ours_row else fmt(whole)
        rss = ours_rss if ours_row else median_of(runs, "rss_mb")
        lines.append(f"| {shown} | {fmt(median_of(runs, 'load'))} | "
                     f"{fmt(median_of(runs, 'evaluate'))}{extra} | {whole_cell} | "
                     f"{'1.00' if ours_row else fmt(ratio(whole, ours_whole))} | {mb(rss)} |")
    trec = median_of(rows["pytrec_eval"], "wall")
    ranx = median_of(rows["ranx warm (cached JIT)"], "wall")
    binary = rows.get("trec_eval 10 (binary)")
    if binary is None:
        lines += ["", f"trec_eval binary: {TREC_EVAL['note']}."]
    workload = res["targets"]
    if not workload:
        lines += ["", f"Whole process: ours is {fmt(ratio(ours_whole, trec))} of pytrec_eval's "
                      f"time, {fmt(ratio(ours_whole, ranx))} of ranx warm's" + (
                      f" and {fmt(ratio(ours_whole, median_of(binary, 'wall')))} of the "
                      f"trec_eval binary's ({fmt(ratio(ours_rss, median_of(binary, 'rss_mb')))}"
                      f" of its peak memory)." if binary else ".")]
    else:
        why = failure(whole_runs)
        lines += [""]
        for what, value, limit in (
                ("ours ÷ pytrec_eval, whole-process time", ratio(ours_whole, trec), 0.15),
                ("ours ÷ ranx warm, whole-process time", ratio(ours_whole, ranx), 0.50)):
            lines += [f"- {target(workload, what, value, limit, why)}"]
        if binary is not None:   # issue 34's targets against the binary
            why = why or failure(binary)
            for what, value, limit in (
                    ("ours ÷ trec_eval binary, whole-process time",
                     ratio(ours_whole, median_of(binary, "wall")), 0.10),
                    ("ours ÷ trec_eval binary, peak memory",
                     ratio(ours_rss, median_of(binary, "rss_mb")), 0.50)):
                lines += [f"- {target(workload, what, value, limit, why)}"]
            ours_trec = rows.get(TREC_EVAL_OURS)
            if ours_trec is not None:   # issue 43's: the drop-in command, same workload
                why = failure(ours_trec) or failure(binary)
                for what, value, limit in (
                        ("trec-eval ÷ trec_eval binary, whole-process time",
                         ratio(median_of(ours_trec, "wall"), median_of(binary, "wall")), 0.10),
                        ("trec-eval ÷ trec_eval binary, peak memory",
                         ratio(median_of(ours_trec, "rss_mb"), median_of(binary, "rss_mb")),
                         0.50)):
                    lines += [f"- {target(workload, what, value, limit, why)}"]
    if res.get("identical") is not None:
        lines += ["", "trec-eval's output (the binary's arguments) is "
                      + ("byte-identical to the binary's." if res["identical"] else
                         "NOT byte-identical to the binary's.")]
    lines += ["", f"Agreement with trec_eval (pytrec_eval): largest per-query difference "
                  f"{res['agreement']:.2e} over {res['compared']} values "
                  f"(AP, P@10, RR, nDCG@10, Bpref, Rprec; ties as trec_eval)." if res["compared"]
              else "Agreement with pytrec_eval: not compared (a run failed).", ""]
    return lines


# ---- W4: a skewed run ---------------------------------------------------------------------------

W4_MEASURES = {"map": "AP", "P_10": "P@10"}


def bench_skewed(label: str, short_queries: int, long_depth: int, repeats: int) -> dict:
    from workloads import make_skewed_run_workload

    paths = make_skewed_run_workload(HERE / "workloads" / f"w4_{short_queries}_{long_depth}",
                                     short_queries, long_depth, seed=4)
    run, qrels = str(paths["run"]), str(paths["qrels"])
    lines = short_queries * 10 + long_depth
    print(f"running {label} ({lines:,} lines)", flush=True)
    out_ours, out_py = tempfile.mktemp(suffix=".json"), tempfile.mktemp(suffix=".json")
    out_bin = tempfile.mktemp(suffix=".trec_eval")
    rows = {}
    cli = [sys.executable, "-m", "metrics", "evaluate", run, qrels, "--measures", "AP,P@10",
           "--ties", "trec", "--format", "json", "--per-query"]
    rows["ours (python -m metrics evaluate)"] = measure("ours", cli, repeats + EXTRA[0],
                                                        stdout_path=out_ours)
    rows["pytrec_eval"] = measure("pytrec_eval", job_command(
        "pytrec_eval", run, qrels, out_py, ",".join(W4_MEASURES)), repeats + EXTRA[0])
    if TREC_EVAL["path"]:
        rows["trec_eval 10 (binary, -q)"] = measure(
            "trec_eval binary", trec_eval_args(run, qrels, W4_MEASURES, per_query=True),
            repeats + EXTRA[0], stdout_path=out_bin)
    agreement = {"worst": NAN, "compared": 0, "missing": 0, "binary_worst": NAN}
    if not failure(rows["ours (python -m metrics evaluate)"]) and \
            not failure(rows["pytrec_eval"]):
        ours = json.loads(Path(out_ours).read_text())["per_query"]
        py = json.loads(Path(out_py).read_text())
        diffs = []
        for q, values in py.items():
            if q not in ours:
                agreement["missing"] += 1
                continue
            for m, v in values.items():
                mine = ours[q].get(m)
                diffs.append(float("inf") if mine is None else abs(mine - v))
        agreement.update(worst=max(diffs) if diffs else NAN, compared=len(diffs),
                         extra=len(set(ours) - set(py)))
        if "trec_eval 10 (binary, -q)" in rows and not failure(rows["trec_eval 10 (binary, -q)"]):
            binary = read_trec_eval(out_bin)
            agreement["binary_worst"] = max(abs(ours[q][m] - v) for q, values in binary.items()
                                            for m, v in values.items() if q in ours)
    return {"label": label, "lines": lines, "rows": rows, "agreement": agreement}


def _peer_rows(rows: dict, ours_t: float, ours_m: float) -> list[str]:
    """A table row per tool: whole-process time and peak memory, and ours ÷ each."""
    out = []
    for name, runs in rows.items():
        if failure(runs):
            out.append(f"| {name} | {failure(runs)} | — | — | — |")
            continue
        t, m = median_of(runs, "wall"), median_of(runs, "rss_mb")
        out.append(f"| {name} | {fmt(t)} | {fmt(ratio(ours_t, t))} | {mb(m)} | "
                   f"{fmt(ratio(ours_m, m))} |")
    return out


def report_skewed(res: dict) -> list[str]:
    rows = res["rows"]
    ours_runs = rows["ours (python -m metrics evaluate)"]
    ours_t, ours_m = median_of(ours_runs, "wall"), median_of(ours_runs, "rss_mb")
    lines = [f"## {res['label']}", "",
             f"{res['lines']:,} lines; `python -m metrics evaluate run qrels --measures AP,P@10 "
             f"--ties trec --format json --per-query`, pytrec_eval (map, P_10) and the trec_eval "
             f"binary (`-q -m map -m P.10`), each a whole process.", "",
             "| tool | whole process (s) | ours ÷ peer (time) | peak memory MB | ours ÷ peer "
             "(memory) |", "| --- | --- | --- | --- | --- |"]
    lines += _peer_rows(rows, ours_t, ours_m)
    if not TREC_EVAL["path"]:
        lines += ["", f"trec_eval binary: {TREC_EVAL['note']}."]
    py = rows["pytrec_eval"]
    why = failure(ours_runs) or failure(py)
    a = res["agreement"]
    same = a["compared"] > 0 and a["worst"] <= 1e-9 and a["missing"] == 0
    TARGETS.append(("W4", "same per-query AP and P@10 as pytrec_eval (≤ 1e-9)",
                    f"largest difference {a['worst']:.1e} over {a['compared']} values, "
                    f"{a['missing']} queries missing" if a["compared"] else
                    f"not compared ({why})", "yes" if same else "no"))
    lines += ["", "- " + target("W4", "ours ÷ pytrec_eval, whole-process time",
                                ratio(ours_t, median_of(py, "wall")), 1.0, why),
              "- " + target("W4", "ours ÷ pytrec_eval, peak memory",
                            ratio(ours_m, median_of(py, "rss_mb")), 1.5, why),
              "- Same per-query values as pytrec_eval (AP and P@10, to 1e-9): "
              + (f"largest difference {a['worst']:.1e} over {a['compared']:,} values, "
                 f"{a['missing']} of pytrec_eval's queries missing from ours — target met? "
                 f"**{'yes' if same else 'no'}**" if a["compared"] else
                 f"not compared ({why}) — target met? **no**")]
    if a["binary_worst"] == a["binary_worst"]:
        lines += [f"- The trec_eval binary (prints 4 decimals): largest difference to ours "
                  f"{a['binary_worst']:.1e}."]
    return lines + [""]


# ---- W7: a run larger than memory (issue 34) -----------------------------------------------------

W7_QUERIES = 100_000


def bench_large(label: str, queries: int, repeats: int) -> dict:
    """W7 (``queries`` × 1,000, sorted by query) plain and gzipped: ours and the trec_eval binary
    on the plain run, ours on the gzip; per-query values of ours and the binary compared."""
    from workloads import make_large_run_workload

    paths = make_large_run_workload(Path(os.environ.get("W7_DIR") or
                                         HERE / "workloads" / f"w7_{queries}"), queries, seed=7,
                                    gzipped=True)
    run, gz, qrels = str(paths["run"]), str(paths["gzip"]), str(paths["graded"])
    print(f"running {label} ({queries * 1000:,} lines)", flush=True)
    rows = {}
    outputs = {}
    for name, path in (("ours, plain (python -m metrics evaluate)", run),
                       ("ours, gzip (python -m metrics evaluate)", gz)):
        outputs[name] = tempfile.mktemp(suffix=".json")
        rows[name] = measure(name, [sys.executable, "-m", "metrics", "evaluate", path, qrels,
                                    "--measures", OUR_MEASURES, "--ties", "trec", "--format",
                                    "json", "--per-query"], repeats, stdout_path=outputs[name])
    out_bin = tempfile.mktemp(suffix=".trec_eval")
    if TREC_EVAL["path"]:
        rows["trec_eval 10 (binary, -q)"] = measure(
            "trec_eval binary", trec_eval_args(run, qrels, BINARY_MEASURES, per_query=True),
            repeats, stdout_path=out_bin)
    agreement = {"same_gzip": None, "binary_worst": NAN, "compared": 0}
    plain, gzipped = (rows[n] for n in outputs)
    if not failure(plain) and not failure(gzipped):
        first, second = (json.loads(Path(o).read_text())["per_query"] for o in outputs.values())
        agreement["same_gzip"] = first == second
        binary_rows = rows.get("trec_eval 10 (binary, -q)")
        if binary_rows and not failure(binary_rows):
            binary = read_trec_eval(out_bin)
            diffs = [abs(first[q][m] - v) for q, values in binary.items()
                     for m, v in values.items() if q in first]
            agreement.update(binary_worst=max(diffs), compared=len(diffs))
    for o in [*outputs.values(), out_bin]:
        Path(o).unlink(missing_ok=True)
    return {"label": label, "lines": queries * 1000, "rows": rows, "agreement": agreement,
            "bytes": (Path(run).stat().st_size, Path(gz).stat().st_size)}


def report_large(res: dict) -> list[str]:
    rows = res["rows"]
    plain_runs = rows["ours, plain (python -m metrics evaluate)"]
    gzip_runs = rows["ours, gzip (python -m metrics evaluate)"]
    ours_t, ours_m = median_of(plain_runs, "wall"), median_of(plain_runs, "rss_mb")
    size, packed = res["bytes"]
    lines = [f"## {res['label']}", "",
             f"{res['lines']:,} lines, {size / 1e9:.2f} GB ({packed / 1e9:.2f} GB gzipped), sorted "
             f"by query; `python -m metrics evaluate run qrels --measures {OUR_MEASURES} --ties "
             f"trec --format json --per-query` and the trec_eval binary (`-q`, the same six "
             f"measures), each a whole process. pytrec_eval is not run: it holds the whole run "
             f"as Python dictionaries (about 1.7 GB per 10 M lines on W1, so about 17 GB here, "
             f"past the 16 GB cap).", "",
             "| tool | whole process (s) | ours ÷ peer (time) | peak memory MB | ours ÷ peer "
             "(memory) |", "| --- | --- | --- | --- | --- |"]
    lines += _peer_rows(rows, ours_t, ours_m)
    why = failure(plain_runs)
    lines += ["", "- " + target("W7", "ours, peak memory", ours_m / 1024, 1.0, why, " GB")]
    binary = rows.get("trec_eval 10 (binary, -q)")
    if binary is None:
        lines += [f"- trec_eval binary: {TREC_EVAL['note']}."]
    elif failure(binary):
        lines += [f"- trec_eval binary: {failure(binary)}; ours alone is reported."]
    else:
        lines += ["- " + target("W7", "ours ÷ trec_eval binary, whole-process time",
                                ratio(ours_t, median_of(binary, "wall")), 0.2, why)]
    gzip_why = failure(gzip_runs)
    lines += ["- " + target("W7 gzip", "ours, peak memory", median_of(gzip_runs, "rss_mb") / 1024,
                            1.0, gzip_why, " GB"),
              "- " + target("W7 gzip", "ours, gzip ÷ plain, whole-process time",
                            ratio(median_of(gzip_runs, "wall"), ours_t), 1.5, gzip_why or why)]
    a = res["agreement"]
    if a["same_gzip"] is not None:
        lines += [f"- Per-query values from the gzip run identical to the plain run's: "
                  f"**{'yes' if a['same_gzip'] else 'no'}**."]
    if a["compared"]:
        lines += [f"- The trec_eval binary (prints 4 decimals): largest difference to ours "
                  f"{a['binary_worst']:.1e} over {a['compared']:,} values."]
    return lines + [""]
