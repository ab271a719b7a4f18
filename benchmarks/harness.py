"""Run one measured process and keep its record: the job's command line, a fresh process under
/usr/bin/time (or sampled with its children, for a cluster), its address space capped and a
timeout; the records' medians and failures, and the numbers' formatting shared by the reports."""

from __future__ import annotations

import json
import os
import resource
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
SCRIPT = HERE / "run_benchmarks.py"   # the entry point: ``--job NAME ...`` runs one job

LIMITS = {"timeout": 900.0, "mem_cap_gb": 16.0}
OOM_SIGNS = ("MemoryError", "Unable to allocate", "not enough memory", "out of memory",
             "memory allocation of", "Cannot allocate memory", "bad_alloc", "malloc")
NAN = float("nan")
EXTRA = [2]   # more repeats for the timings a target compares (none with --quick)


def _cap_address_space(cap_bytes: int):
    def apply():
        resource.setrlimit(resource.RLIMIT_AS, (cap_bytes, cap_bytes))
    return apply


def timed(args: list[str], env=None, stdout_path=None, timeout=None, cap=True) -> dict:
    """Run a command in a fresh process (a session of its own) under /usr/bin/time, its address
    space capped with RLIMIT_AS (--mem-cap-gb; not with ``cap`` False: Chromium reserves more
    address space than it uses) and killed after --timeout seconds. Returns the
    wall seconds, the peak RSS in MB (max RSS of the process, from /usr/bin/time), the JSON line
    the command printed (unless its stdout goes to ``stdout_path``), and "failed": None or why
    ("out of memory", "timeout", "error: …") — the command's failure never raises."""
    timeout = timeout or LIMITS["timeout"]
    limit = int(LIMITS["mem_cap_gb"] * 2 ** 30)
    with tempfile.NamedTemporaryFile("r", suffix=".time") as stats, \
            tempfile.TemporaryFile("w+") as err, \
            (open(stdout_path, "w+") if stdout_path else tempfile.TemporaryFile("w+")) as out:
        start = time.perf_counter()
        proc = subprocess.Popen(["/usr/bin/time", "-f", "%e %M", "-o", stats.name, *args],
                                stdout=out, stderr=err, text=True, env=env, cwd=ROOT,
                                start_new_session=True,
                                preexec_fn=_cap_address_space(limit) if cap else None)
        timed_out = False
        try:
            proc.wait(timeout=timeout)
        except subprocess.TimeoutExpired:
            timed_out = True
            os.killpg(proc.pid, signal.SIGKILL)
            proc.wait()
        wall = time.perf_counter() - start
        report = [x for x in stats.read().splitlines() if x.strip()]
        rss = NAN
        if report and len(report[-1].split()) == 2:
            rss = int(report[-1].split()[1]) / 1024
        err.seek(0)
        stderr = err.read()
        signalled = next((x for x in report if "terminated by signal" in x), "")
        failed = _failure(timed_out, timeout, proc.returncode, stderr, signalled)
        info = {} if stdout_path or failed else _json_line(out)
    return {"wall": wall, "rss_mb": rss, "failed": failed, "stderr": stderr[-2000:], **info}


def _failure(timed_out: bool, timeout: float, returncode: int, stderr: str,
             signalled: str = "") -> str | None:
    """Why a timed command failed ("timeout", "out of memory", "error: …"), or None.
    ``signalled``: /usr/bin/time's "terminated by signal N" line, when there is one."""
    if timed_out:
        return f"timeout ({timeout:g} s)"
    if returncode == 0:
        return None
    if any(sign in stderr for sign in OOM_SIGNS) or signalled.endswith("signal 9"):
        return "out of memory"
    last = [x for x in stderr.splitlines() if x.strip()]
    return "error: " + (last[-1][:200] if last else signalled or f"exit status {returncode}")


def _json_line(out) -> dict:
    """The last JSON object a command printed on a line of its own (its phases' timings)."""
    out.seek(0)
    line = [x for x in out.read().splitlines() if x.startswith("{") and x.endswith("}")]
    return json.loads(line[-1]) if line else {}


def timed_tree(args: list[str], timeout=None) -> dict:
    """Like :func:`timed`, for a command that starts other processes (a Dask cluster's workers):
    the peak memory is the largest sum of the resident memory of the process and all its
    descendants, sampled every 50 ms (psutil). Shared pages (libraries, a memory-mapped file
    that several workers read) count once per process, so the sum errs high."""
    import psutil

    timeout = timeout or LIMITS["timeout"]
    cap = int(LIMITS["mem_cap_gb"] * 2 ** 30)
    with tempfile.TemporaryFile("w+") as out, tempfile.TemporaryFile("w+") as err:
        start = time.perf_counter()
        proc = subprocess.Popen(args, stdout=out, stderr=err, text=True, cwd=ROOT,
                                start_new_session=True, preexec_fn=_cap_address_space(cap))
        root, peak, timed_out = psutil.Process(proc.pid), 0, False
        while proc.poll() is None:
            if time.perf_counter() - start > timeout:
                timed_out = True
                os.killpg(proc.pid, signal.SIGKILL)
                proc.wait()
                break
            total = 0
            try:
                family = [root, *root.children(recursive=True)]
            except psutil.Error:
                family = []
            for member in family:
                try:
                    total += member.memory_info().rss
                except psutil.Error:
                    pass
            peak = max(peak, total)
            time.sleep(0.05)
        wall = time.perf_counter() - start
        err.seek(0)
        stderr = err.read()
        failed = _failure(timed_out, timeout, proc.returncode, stderr)
        info = {} if failed else _json_line(out)
    return {"wall": wall, "rss_mb": peak / 2 ** 20, "failed": failed, "stderr": stderr[-2000:],
            **info}


def measure(label: str, args: list[str], repeats: int, runner=None, **kw) -> list[dict]:
    """``repeats`` fresh runs of a command (stops at the first failure) by ``runner`` (default
    :func:`timed`); prints a summary line."""
    runs = []
    for _ in range(max(1, repeats)):
        runs.append((runner or timed)(args, **kw))
        if runs[-1]["failed"]:
            break
    if failure(runs):
        print(f"    {label}: {failure(runs)}", flush=True)
    else:
        print(f"    {label}: {fmt(median_of(runs, 'wall'))} s, "
              f"{median_of(runs, 'rss_mb'):.0f} MB (median of {len(runs)})", flush=True)
    return runs


def measure_in_turn(commands: dict[str, tuple[list[str], dict]], repeats: int
                    ) -> dict[str, list[dict]]:
    """``repeats`` rounds of fresh runs of several commands, one of each per round, in turn
    ({label: (args, keyword arguments of :func:`timed`)}): a ratio of two of them then compares
    runs made under the same conditions (on a shared machine the load comes and goes over
    minutes, and timing one tool's repeats after the other's put their medians in different
    periods). A command that failed is not run again; prints a summary line per command."""
    runs: dict[str, list[dict]] = {label: [] for label in commands}
    for _ in range(max(1, repeats)):
        for label, (args, kw) in commands.items():
            if not failure(runs[label]):
                runs[label].append(timed(args, **kw))
    for label, done in runs.items():
        if failure(done):
            print(f"    {label}: {failure(done)}", flush=True)
        else:
            print(f"    {label}: {fmt(median_of(done, 'wall'))} s, "
                  f"{median_of(done, 'rss_mb'):.0f} MB (median of {len(done)}, in turn)",
                  flush=True)
    return runs


def job_command(name: str, *args: str) -> list[str]:
    return [sys.executable, str(SCRIPT), "--job", name, *args]


def median_of(runs: list[dict], key: str) -> float:
    values = [r[key] for r in runs if not r.get("failed") and key in r and r[key] == r[key]]
    return statistics.median(values) if values else NAN


def failure(runs: list[dict]) -> str | None:
    """'failed: <why> after <s> s (peak <MB> MB)' if any run failed, else None."""
    bad = [r for r in runs if r.get("failed")]
    if not bad:
        return None
    r = bad[0]
    peak = f", peak {r['rss_mb']:.0f} MB" if r["rss_mb"] == r["rss_mb"] else ""
    return f"failed: {r['failed']} after {r['wall']:.1f} s{peak}"


def fmt(seconds: float) -> str:
    return "—" if seconds != seconds else f"{seconds:.2f}"


def mb(value: float) -> str:
    return "—" if value != value else f"{value:.0f}"


def ratio(a: float, b: float) -> float:
    return a / b if a == a and b == b and b > 0 else NAN
