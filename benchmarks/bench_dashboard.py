"""The dashboard's script time with a W2-sized upload, through Streamlit's AppTest (no browser):
the job (first load, switching the query, moving K) and its report."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from harness import ROOT, fmt, mb


def job_dashboard(run, qrels, out):
    """Script time of the query explorer with a W2-sized upload, through AppTest: the first load,
    switching the query, moving K (medians of 5)."""
    from streamlit.testing.v1 import AppTest

    from dashboard.settings import UPLOAD, DataSource

    frame = ("import runpy\nfrom dashboard.sidebar import sidebar\nsidebar()\n"
             f"runpy.run_path({str(ROOT / 'pages' / 'explorer.py')!r}, run_name='__main__')\n")
    import hashlib

    store = {hashlib.sha256(b).hexdigest(): b for b in (Path(run).read_bytes(),
                                                         Path(qrels).read_bytes())}
    digests = list(store)
    source = DataSource.of_upload("runs+qrels", (("runs", "run.trec", digests[0]),
                                                 ("qrels", "qrels.graded", digests[1])),
                                  None, False, "cosine")
    at = AppTest.from_string(frame, default_timeout=600)
    at.session_state["upload_bytes"] = store
    at.session_state["upload"] = source
    at.session_state["sample"] = UPLOAD
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0

    def query_box():   # keyed on system and sort order: found by its label
        return next(box for box in at.main.selectbox if box.label == "Query")

    options = query_box().options
    switch, cutoff = [], []
    for i in range(5):
        t0 = time.perf_counter()
        query_box().set_value(options[i + 1].split("  (")[0]).run()
        switch.append(time.perf_counter() - t0)
        t0 = time.perf_counter()
        at.slider(key="cutoff_slider").set_value(5 + i).run()
        cutoff.append(time.perf_counter() - t0)
    assert not at.exception
    return {"first": first, "switch": statistics.median(switch),
            "cutoff": statistics.median(cutoff)}


def report_dashboard(dashboard: dict) -> list[str]:
    lines = ["## Dashboard with a W2-sized run (1,000 queries × 1,000 results)", ""]
    if dashboard.get("failed"):
        return lines + [f"The query explorer's measurement failed: {dashboard['failed']}.", ""]
    return lines + [
        "Server-side script time of the query explorer, measured with "
        "`streamlit.testing.v1.AppTest` (medians of 5; the browser's drawing is not included): ",
        "", "| action | seconds | target |", "| --- | --- | --- |",
        f"| first load (parse, rank, evaluate; shows a spinner) | {fmt(dashboard['first'])} | — |",
        f"| switch the query | {fmt(dashboard['switch'])} | < 0.5 |",
        f"| move K | {fmt(dashboard['cutoff'])} | < 0.3 |", ""]


# ---- the Groups page with many groups (issue 42, item 13) ---------------------------------------

GROUPS_FRAME = """
import runpy
from dashboard.frame import PageEnded, mark_frame
from dashboard.sidebar import sidebar
sidebar()
mark_frame()
try:
    runpy.run_path({page!r}, run_name="__main__")
except PageEnded:
    pass
"""


def groups_workload(folder: Path, groups: int, per_group: int = 2, seed: int = 42) -> dict:
    """Two runs (three items a query), their qrels (one relevant item a query) and a query table
    putting the queries in ``groups`` groups of ``per_group``: the paths."""
    import numpy as np

    folder.mkdir(parents=True, exist_ok=True)
    rng = np.random.default_rng(seed)
    queries = [f"q{i:06d}" for i in range(groups * per_group)]
    paths = {}
    for name in ("a", "b"):
        scores = rng.random((len(queries), 3))
        paths[name] = folder / f"{name}.run"
        paths[name].write_text("".join(f"{q} Q0 d{d} {d + 1} {scores[i, d]:.6f} {name}\n"
                                       for i, q in enumerate(queries) for d in range(3)))
    relevant = rng.integers(0, 3, len(queries))
    paths["qrels"] = folder / "q.qrels"
    paths["qrels"].write_text("".join(f"{q} 0 d{relevant[i]} 1\n"
                                      for i, q in enumerate(queries)))
    paths["queries"] = folder / "queries.csv"
    paths["queries"].write_text("query_id,genre\n" + "".join(
        f"{q},g{i // per_group:06d}\n" for i, q in enumerate(queries)))
    return paths


def job_groups(run_a, run_b, qrels, queries, out):
    """The Groups page grouped by a column of many groups, through AppTest: its first run (parse,
    evaluate, group, draw) and a move to another page of its table; then the command line's
    every group: ``evaluate --group-by --ci`` (every group's interval). (``compare --group-by``
    is left out: compare's own BCa interval of the mean difference over all the queries, not
    the groups, is most of its time and memory.)"""
    import hashlib
    import subprocess
    import sys

    from streamlit.testing.v1 import AppTest

    from dashboard.settings import UPLOAD, DataSource

    files = [("runs", "a.run", Path(run_a).read_bytes()),
             ("runs", "b.run", Path(run_b).read_bytes()),
             ("qrels", "q.qrels", Path(qrels).read_bytes()),
             ("queries", "queries.csv", Path(queries).read_bytes())]
    store = {hashlib.sha256(b).hexdigest(): b for _, _, b in files}
    source = DataSource.of_upload("runs+qrels", tuple((role, name, hashlib.sha256(b).hexdigest())
                                                      for role, name, b in files))
    at = AppTest.from_string(GROUPS_FRAME.format(page=str(ROOT / "pages" / "groups.py")),
                             default_timeout=600)
    for key, value in dict(upload_bytes=store, upload=source, sample=UPLOAD, measures="AP",
                           group_by="genre").items():
        at.session_state[key] = value
    t0 = time.perf_counter()
    at.run()
    first = time.perf_counter() - t0
    assert not at.exception and not at.error, (at.exception, [e.value for e in at.error])
    t0 = time.perf_counter()
    at.selectbox(key="groups_table_page").set_value(1).run()
    page = time.perf_counter() - t0
    assert not at.exception

    def command(*args):
        t0 = time.perf_counter()
        subprocess.run([sys.executable, "-m", "metrics", *map(str, args), "-m", "AP",
                        "--query-metadata", str(queries), "--group-by", "genre", "-f", "json"],
                       cwd=ROOT, check=True, capture_output=True)
        return time.perf_counter() - t0

    return {"first": first, "page": page,
            "cli_ci": command("evaluate", run_a, qrels, "--ci", "0.95")}


def report_groups(groups: int, result: dict) -> list[str]:
    lines = [f"## The Groups page with {groups:,} groups of two queries", ""]
    if result.get("failed"):
        return lines + [f"The measurement failed: {result['failed']}.", ""]
    return lines + [
        "Two runs of three items a query and a query table putting the queries in groups of two; "
        "server-side script time through `streamlit.testing.v1.AppTest` (the browser's drawing "
        "is not included), then the command line over every group. The page computes every "
        "group's mean and t-test for all the groups of one size at once and draws intervals for "
        "the chart's groups (the 10 largest, best and worst) and the table's page of 200 only "
        "(issue 42, item 13: 61 s before).", "",
        "| action | seconds | target |", "| --- | --- | --- |",
        f"| first run (parse, evaluate, group, draw) | {fmt(result['first'])} | < 5 |",
        f"| another page of the table | {fmt(result['page'])} | — |",
        f"| `evaluate --group-by --ci 0.95` (every group's interval) | "
        f"{fmt(result['cli_ci'])} | — |",
        f"| peak RSS, the largest of the job's processes (MB) | {mb(result['rss_mb'])} | — |",
        ""]
