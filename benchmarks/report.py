"""Write the report: the targets each section checks (kept as they are met or missed), the
machine and the versions measured, and the page that puts the sections under them."""

from __future__ import annotations

import os
import platform
import subprocess
import time
from pathlib import Path

from harness import LIMITS, ROOT
from peers import TREC_EVAL


TARGETS: list[tuple[str, str, str, str]] = []   # (workload, target, measured, met?)


def target(workload: str, what: str, value: float, limit: float, why_missing: str | None = None,
           unit: str = "×") -> str:
    """Record a ≤ target; returns the sentence for the report."""
    if value == value:
        met = "yes" if value <= limit else "no"
        measured = f"{value:.2f}{unit}"
    else:
        met, measured = "no", f"not measured ({why_missing or 'failed'})"
    TARGETS.append((workload, f"{what} ≤ {limit:g}{unit}", measured, met))
    return f"{what}: {measured} (target ≤ {limit:g}{unit}) — target met? **{met}**"


def _git(*args: str) -> str:
    done = subprocess.run(["git", *args], capture_output=True, text=True, cwd=ROOT)
    return done.stdout.strip() if done.returncode == 0 else "?"


def machine_lines() -> list[str]:
    from importlib import metadata

    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
               platform.processor() or "?")
    versions = []
    for package in ("numpy", "polars", "pytrec_eval-terrier", "pytrec_eval", "ranx",
                    "ir_measures"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            pass
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    return [f"- {platform.platform()}, {cpu}, {os.cpu_count()} cores, "
            f"{round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB; "
            f"load average at the start {os.getloadavg()[0]:.2f}",
            f"- Python {platform.python_version()}; " + ", ".join(versions),
            f"- measured commit `{_git('rev-parse', 'HEAD')}` on branch "
            f"`{_git('rev-parse', '--abbrev-ref', 'HEAD')}`"
            + (" (with uncommitted changes)" if dirty not in ("", "?") else ""),
            f"- trec_eval binary: {TREC_EVAL['note']}",
            f"- every measurement a fresh process, address space capped at "
            f"{LIMITS['mem_cap_gb']:g} GB (RLIMIT_AS), killed after {LIMITS['timeout']:.0f} s",
            f"- {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())}"]


def write_report(sections: list[list[str]], command: str) -> str:
    lines = ["# Benchmarks", "", f"Produced by `{command}` in one run on this machine:", "",
             *machine_lines(), "",
             "Times are medians of the repeats in seconds; *whole* is a fresh process from start "
             "to printed result (parse + evaluate + print), measured from outside; peak memory "
             "is the process's max RSS (from /usr/bin/time). Ratios are stated with each table.",
             ""]
    if TARGETS:
        lines += ["## Targets", "", "| workload | target | measured | met? |",
                  "| --- | --- | --- | --- |"]
        lines += [f"| {w} | {t} | {m} | {ok} |" for w, t, m, ok in TARGETS]
        lines.append("")
    for section in sections:
        lines += section
    return "\n".join(lines)
