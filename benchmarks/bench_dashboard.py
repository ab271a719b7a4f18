"""The dashboard's script time with a W2-sized upload, through Streamlit's AppTest (no browser):
the job (first load, switching the query, moving K) and its report."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from harness import ROOT, fmt


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
