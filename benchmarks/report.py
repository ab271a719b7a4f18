"""Write the report: the targets each section checks (kept as they are met or missed), the
machine and the versions measured, and the page that puts the sections under them."""

from __future__ import annotations

import os
import platform
import re
import subprocess
import time
from dataclasses import dataclass, field
from pathlib import Path

from harness import ROOT
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


def _machine() -> tuple[str, str, str]:
    """(the machine, the versions measured, the commit) of this run, for its row of Runs."""
    from importlib import metadata

    cpu = next((line.split(":", 1)[1].strip() for line in
                Path("/proc/cpuinfo").read_text().splitlines() if line.startswith("model name")),
               platform.processor() or "?")
    versions = [f"Python {platform.python_version()}"]
    for package in ("numpy", "polars", "pytrec_eval-terrier", "pytrec_eval", "ranx",
                    "ir_measures"):
        try:
            versions.append(f"{package} {metadata.version(package)}")
        except metadata.PackageNotFoundError:
            pass
    versions.append(f"trec_eval: {TREC_EVAL['note']}")
    dirty = _git("status", "--porcelain", "--untracked-files=no")
    commit = f"`{_git('rev-parse', '--short', 'HEAD')}`" + (
        " (with uncommitted changes)" if dirty not in ("", "?") else "")
    machine = (f"{platform.platform()}, {cpu}, {os.cpu_count()} cores, "
               f"{round(os.sysconf('SC_PAGE_SIZE') * os.sysconf('SC_PHYS_PAGES') / 2**30)} GiB")
    return machine, "; ".join(versions), commit


INTRO = """\
# Benchmarks

What is true now: each workload's table is from its latest run, ours and the peers side by side,
and says which run that was; **Runs** gives each run's machine, commit and load. Earlier runs are
in the history of this file (`git log -p BENCHMARKS.md`). `python benchmarks/run_benchmarks.py`
writes this page; with `--update` it replaces only the sections of the workloads it ran (and
their rows of Targets), so the page stays one table per workload.

Every measurement is a fresh process, its address space capped at 16 GB (8 with `--quick`, or
`--mem-cap-gb`) and killed after 900 s (`--timeout`); times are medians of the repeats in
seconds; *whole process* is from start to printed result (parse + evaluate + print), measured
from outside; peak memory is the process's max RSS (from /usr/bin/time). The 2 cores of these
machines are shared with other work: the load average says how much. Before any timing, the
project's Python files are compiled to bytecode (`compileall`), as an installation has them:
these machines set PYTHONDONTWRITEBYTECODE, under which every process would compile the
toolkit's modules again (about 0.3 s), and the trec_eval binary is measured compiled too.
From run 26 on, the commands whose ratio is a target (W1 and W2: ours, pytrec_eval, the trec_eval
binary and trec-eval) are run in turn, one of each per round, so that a ratio compares runs made
under the same load; before, each tool's repeats came one after another, minutes apart.
"""
RUNS_HEADER = ["| run | when | commit | machine | load average at the start | versions | command |",
               "| --- | --- | --- | --- | --- | --- | --- |"]
TARGETS_HEADER = ["| workload | target | measured | met? | run |", "| --- | --- | --- | --- | --- |"]
RUN_LINE = "*Run {run}* (see Runs)."
SCALE_NOTES = "## Scale beyond one machine"   # benchmarks/scale_notes.md, appended after


@dataclass
class Page:
    """BENCHMARKS.md in parts: the runs, the targets and each workload's section (by heading)."""
    runs: dict[int, str] = field(default_factory=dict)                  # run -> its table row
    targets: dict[tuple[str, str], str] = field(default_factory=dict)   # (workload, target) -> row
    sections: dict[str, list[str]] = field(default_factory=dict)        # heading -> its lines

    def text(self) -> str:
        # a run stays listed while a section or a target cites it ("*Run 3*", "run 6's", a
        # target's run column); the others are history, kept in git
        cited = "\n".join([*self.targets.values(), *(line for lines in self.sections.values()
                                                       for line in lines)])
        used = {int(n) for n in re.findall(r"\b[Rr]un (\d+)\b", cited)}
        used |= {int(_cells(row)[-1]) for row in self.targets.values()}
        lines = [INTRO, "## Runs", "", *RUNS_HEADER,
                 *(row for run, row in sorted(self.runs.items()) if run in used), ""]
        if self.targets:
            lines += ["## Targets", "", *TARGETS_HEADER, *self.targets.values(), ""]
        for section in self.sections.values():
            lines += "\n".join(section).rstrip("\n").split("\n") + [""]
        return "\n".join(lines).rstrip("\n") + "\n"


def _cells(row: str) -> list[str]:
    return [cell.strip() for cell in re.split(r"(?<!\\)\|", row.strip())[1:-1]]


def read_page(text: str) -> Page:
    """The parts of a page this module wrote (the scale notes after them are left out)."""
    page = Page()
    text = text.split("\n" + SCALE_NOTES, 1)[0]
    blocks = re.split(r"^(?=## )", text, flags=re.M)[1:]
    for block in blocks:
        lines = block.rstrip("\n").split("\n")
        heading = lines[0]
        if heading == "## Runs":
            page.runs = {int(_cells(row)[0]): row for row in lines[4:] if row.startswith("|")}
        elif heading == "## Targets":
            page.targets = {tuple(_cells(row)[:2]): row for row in lines[4:]
                            if row.startswith("|")}
        else:
            page.sections[heading] = lines
    return page


def write_report(sections: list[list[str]], command: str, previous: str | None = None) -> str:
    """The page: this run's sections and targets, over ``previous`` (the page as it was) when
    given, replacing its sections of the same heading and its rows of the same target."""
    page = read_page(previous) if previous else Page()
    run = max(page.runs, default=0) + 1
    machine, versions, commit = _machine()
    page.runs[run] = (f"| {run} | {time.strftime('%Y-%m-%d %H:%M UTC', time.gmtime())} | {commit} | "
                      f"{machine} | {os.getloadavg()[0]:.1f} | {versions} | `{command}` |")
    for workload, what, measured, met in TARGETS:
        page.targets[(workload, what)] = f"| {workload} | {what} | {measured} | {met} | {run} |"
    for section in sections:
        page.sections[section[0]] = [section[0], "", RUN_LINE.format(run=run), *section[1:]]
    return page.text()
