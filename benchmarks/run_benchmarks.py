"""Time this project and its peers on the same workloads in one run; write BENCHMARKS.md.

    python benchmarks/run_benchmarks.py --trec-eval /path/to/trec_eval   # everything but W5-big
    python benchmarks/run_benchmarks.py --big                             # ... and W5-big (slow)
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
(10,000 × 200,000 × 512, with --big); W6-cluster, the same W6 job on one process and on a Dask
LocalCluster of 1 and 2 workers, with a cost model for larger jobs on a cluster; the memory curve (peak memory against lines read, balanced
and skewed runs of 1, 3 and 10 M lines); the dashboard (script time, AppTest); the dashboard in
headless Chromium (dashboard-browser: two W2-sized runs uploaded to a real server, the Query
explorer's clicks timed in the browser, beside the same clicks on floor_app.py, Streamlit's
floor); how cost grows.

The trec_eval binary is not part of this repository: build it from its public source
(github.com/usnistgov/trec_eval, `make`) and give its path with --trec-eval or $TREC_EVAL (else
trec_eval on PATH is used; without one that peer is skipped with a note).

Every timed job runs in its own process under /usr/bin/time, so the wall time includes start-up
where the phase is "whole process" and the peak memory (max RSS) is the job's own. Each process
has its address space capped (RLIMIT_AS, --mem-cap-gb, default 16 GB, 8 with --quick) and is
killed after --timeout seconds; a failure is reported ("failed: out of memory / timeout") and the
run goes on. Reported: the median of the repeats and ratios; a Targets table at the top says
which targets are met. A full run writes BENCHMARKS.md; --quick and --only write
benchmarks/workloads/BENCHMARKS.partial.md unless --out is given.
"""

from __future__ import annotations

import argparse
import contextlib
import json
import math
import os
import platform
import resource
import shutil
import signal
import statistics
import subprocess
import sys
import tempfile
import time
from pathlib import Path

HERE = Path(__file__).resolve().parent
ROOT = HERE.parent
sys.path.insert(0, str(HERE))
sys.path.insert(0, str(ROOT))


OUR_MEASURES = "AP,P@10,RR,nDCG@10,Bpref,Rprec"
TREC_MEASURES = {"map": "AP", "P_10": "P@10", "recip_rank": "RR", "ndcg_cut_10": "nDCG@10",
                 "bpref": "Bpref", "Rprec": "Rprec"}
RANX_MEASURES = {"map": "AP", "precision@10": "P@10", "mrr": "RR", "ndcg@10": "nDCG@10",
                 "bpref": "Bpref", "r-precision": "Rprec"}
IRM_MEASURES = {"AP": "AP", "P@10": "P@10", "RR": "RR", "nDCG@10": "nDCG@10", "Bpref": "Bpref",
                "Rprec": "Rprec"}
MATRIX_MEASURES = "AP,FirstRank,P@10,MedianRank"


# ---- jobs: each runs in its own process and prints one JSON line --------------------------------

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


def job_pytrec(run, qrels, out, measures=",".join(TREC_MEASURES)):
    """pytrec_eval on a run; ``measures`` are trec_eval names (keys of TREC_MEASURES); per-query
    values are written to ``out`` under our names ("-": not written)."""
    names = measures.split(",")
    t0 = time.perf_counter()
    import pytrec_eval
    t1 = time.perf_counter()
    with open(run) as f:
        parsed_run = pytrec_eval.parse_run(f)
    with open(qrels) as f:
        parsed_qrels = pytrec_eval.parse_qrel(f)
    t2 = time.perf_counter()
    evaluator = pytrec_eval.RelevanceEvaluator(parsed_qrels, set(names))
    result = evaluator.evaluate(parsed_run)
    t3 = time.perf_counter()
    if out != "-":
        Path(out).write_text(json.dumps({q: {TREC_MEASURES[m]: v[m] for m in names}
                                         for q, v in result.items()}))
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2}


def job_ranx(run, qrels, out):
    t0 = time.perf_counter()
    from ranx import Qrels, Run, evaluate
    t1 = time.perf_counter()
    r = Run.from_file(run, kind="trec")
    q = Qrels.from_file(qrels, kind="trec")
    t2 = time.perf_counter()
    evaluate(q, r, list(RANX_MEASURES), make_comparable=True)
    t3 = time.perf_counter()
    evaluate(q, r, list(RANX_MEASURES), make_comparable=True)   # the same, now compiled
    t4 = time.perf_counter()
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2, "evaluate_again": t4 - t3}


def job_ir_measures(run, qrels, out):
    t0 = time.perf_counter()
    import ir_measures
    t1 = time.perf_counter()
    r = list(ir_measures.read_trec_run(run))
    q = list(ir_measures.read_trec_qrels(qrels))
    t2 = time.perf_counter()
    ir_measures.calc_aggregate([ir_measures.parse_measure(m) for m in IRM_MEASURES], q, r)
    t3 = time.perf_counter()
    return {"import": t1 - t0, "load": t2 - t1, "evaluate": t3 - t2}


def job_matrix(method, matrix, labels, out):
    """One W3 method; "kernel" is the time after imports: reading the labels and the matrix and
    computing (the floor reads the matrix only)."""
    import numpy as np
    if method != "floor":
        from metrics import GroundTruth, JudgedRanking, evaluate  # noqa: F401
        from metrics.ranking import allvsall  # noqa: F401
        from metrics.ranking.allvsall import clique_partners  # noqa: F401
        from metrics.loaders import load_labels  # noqa: F401
        from metrics.ranking.pipelines import judge_matrix  # noqa: F401
        if method == "counting, NumPy":   # as when the C extension was not built
            allvsall._counting = None
    t0 = time.perf_counter()
    if method.startswith("counting"):
        evaluate(judge_matrix(matrix, labels, "stable", keep_lists=False), MATRIX_MEASURES)
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
    return {"kernel": elapsed, **({"code": allvsall.counting_kernel()} if method != "floor" else {})}


def job_dashboard(run, qrels, out):
    """Script time of the query explorer with a W2-sized upload, through AppTest: the first load,
    switching the query, moving K (medians of 5)."""
    from streamlit.testing.v1 import AppTest

    frame = ("import runpy\nfrom dashboard.state import sidebar\nsidebar()\n"
             f"runpy.run_path({str(ROOT / 'pages' / 'explorer.py')!r}, run_name='__main__')\n")
    import hashlib

    store = {hashlib.sha256(b).hexdigest(): b for b in (Path(run).read_bytes(),
                                                         Path(qrels).read_bytes())}
    digests = list(store)
    source = ("upload", "runs+qrels", (("runs", "run.trec", digests[0]),
                                       ("qrels", "qrels.graded", digests[1])),
              None, False, "cosine")
    at = AppTest.from_string(frame, default_timeout=600)
    at.session_state["upload_bytes"] = store
    at.session_state["upload"] = source
    at.session_state["sample"] = "upload"
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


# In-page instrumentation of the browser benchmark: the time of the first pointer or key event
# after the harness arms it (the user's action), when the app's script state left "notRunning"
# after it and came back (the rerun as the browser sees it), and the time a condition on the
# page first held (polled at every animation frame, so drawing is included).
BENCH_JS = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  const b = window.__bench = {armed: false, t0: null, t1: null, started: null, ended: null};
  const action = () => { if (b.armed && b.t0 === null) b.t0 = performance.now(); };
  document.addEventListener('pointerdown', action, true);
  document.addEventListener('keydown', action, true);
  new MutationObserver(records => {
    if (b.t0 === null) return;
    const now = performance.now(), state = app.getAttribute('data-test-script-state');
    if (state !== 'notRunning' && b.started === null) b.started = now;
    if (state === 'notRunning') b.ended = now;
  }).observe(app, {attributes: true, attributeOldValue: true,
                   attributeFilter: ['data-test-script-state']});
}"""
ARM_JS = ("() => Object.assign(window.__bench, {armed: true, t0: null, t1: null, "
          "started: null, ended: null})")
# Whether the page shows an action's new state: plotly titles (drawn SVG text), the main
# column's text, a selectbox's shown value found by its label. The harness checks that it does
# not before the action, so the action's rerun is what makes it true.
SHOWN_JS = """([kind, arg]) => {
  const main = document.querySelector('[data-testid="stMain"]');
  // the Query explorer's one figure titles its panels with annotations
  const titles = Array.from(main.querySelectorAll('.gtitle, .annotation-text'))
    .map(t => t.textContent);
  const box = label => {
    for (const s of main.querySelectorAll('[data-testid="stSelectbox"]')) {
      const l = s.querySelector('[data-testid="stWidgetLabel"]');
      if (l && l.innerText.trim() === label) return s.querySelector('input').value;
    }
    return null;
  };
  return {
    query: () => titles.includes('PR curve of ' + arg)
                 && (box('Query') || '').startsWith(arg + ' '),
    cutoff: () => titles.includes('Confusion matrix at K = ' + arg)
                  && main.innerText.includes('Unjudged in the top K = ' + arg + ':'),
    system: () => box('System') === arg[0]
                  && titles.includes('Relevant items by rank: ' + arg[0] + ' and ' + arg[1]),
    sort: () => main.innerText.includes('worst ' + arg + ' first')
                && (box('Query') || '').includes('(' + arg + ' = '),
    floor_query: () => main.innerText.includes('Shown: ' + arg + ' at'),
    floor_cutoff: () => main.innerText.includes('at K = ' + arg + '.'),
  }[kind]();
}"""
# Done: the new state is shown and the script state is notRunning. Not "the state was seen to
# leave notRunning": when the browser is busy, React may commit a short rerun's start and end in
# one render and the attribute never changes (seen for 2 of about 300 actions on a fast machine,
# which then waited forever); a state shown that was not shown at arming can only come from
# the action's rerun, whose elements arrive after its start.
DONE_JS = """([kind, arg]) => {
  const b = window.__bench;
  const app = document.querySelector('[data-testid="stApp"]');
  if (app.getAttribute('data-test-script-state') !== 'notRunning'
      || !(""" + SHOWN_JS + """)([kind, arg])) return false;
  if (b.t1 === null) b.t1 = performance.now();
  return true;
}"""


def job_dashboard_browser(run_a, run_b, qrels, out, repeats="7", slowdown="1"):
    """The Query explorer in headless Chromium on a W2-sized upload of two systems: a real
    ``streamlit run app.py`` server on 127.0.0.1, the files uploaded on the Data page as a user
    would, then ``repeats`` times each: switch the query, change K in the number box, switch the
    system, change "Sort queries by". Each time runs from the browser's pointer-down (or Enter
    key-down) event that makes the change to the first animation frame at which the app's
    script state is notRunning and the page shows the new state (the drawn figure titles, the
    boxes' values), which the harness checks it did not show before: the server's run, the
    websocket and the browser's drawing are all included. The server's resident memory is
    sampled every 50 ms (psutil).
    Then the floor: the same query switch and K change on benchmarks/floor_app.py, a fragment
    with those two controls only, on a server of its own in the same browser. ``slowdown`` > 1
    slows the pages' CPU that many times (Chromium's own throttling, as its DevTools do): a
    slower machine's browser, where the browser's work is most of a click's time."""
    from playwright.sync_api import sync_playwright

    repeats, slowdown = int(repeats), float(slowdown)
    with sync_playwright() as p:
        browser = p.chromium.launch(
            executable_path="/usr/bin/chromium",
            args=["--headless", "--no-sandbox", "--disable-gpu",
                  "--disable-background-networking"])
        with _streamlit_server("app.py") as (url, peak):
            result = _in_page(browser, slowdown, lambda page: _browse_explorer(
                page, url, Path(run_a), Path(run_b), Path(qrels), repeats))
        result["server_peak_mb"] = peak[0] / 2 ** 20
        with _streamlit_server("benchmarks/floor_app.py") as (url, _):
            result["floor"] = _in_page(browser, slowdown,
                                       lambda page: _browse_floor(page, url, repeats))
        result["slowdown"] = slowdown
        browser.close()
    return result


def _in_page(browser, slowdown: float, browse):
    """``browse(page)`` in a fresh 1400 × 1000 page whose CPU is ``slowdown`` times slower; an
    error the page raised fails the job."""
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    if slowdown != 1:
        page.context.new_cdp_session(page).send("Emulation.setCPUThrottlingRate",
                                                {"rate": slowdown})
    errors: list[str] = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    result = browse(page)
    if errors:
        raise RuntimeError(f"the page raised: {errors[0][:200]}")
    page.close()
    return result


@contextlib.contextmanager
def _streamlit_server(script: str):
    """``streamlit run script`` on a free port of 127.0.0.1 until the block ends; yields its
    URL and a one-element list holding its peak resident memory so far (sampled every 50 ms)."""
    import socket
    import threading
    from urllib.request import urlopen

    import psutil

    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        port = s.getsockname()[1]
    log = tempfile.NamedTemporaryFile("w+b", suffix=".streamlit.log", delete=False)
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", script, "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1"],
        cwd=ROOT, stdout=log, stderr=subprocess.STDOUT, start_new_session=True)
    peak, watching = [0], [True]

    def watch_memory():
        process = psutil.Process(server.pid)
        while watching[0]:
            try:
                peak[0] = max(peak[0], process.memory_info().rss)
            except psutil.Error:
                return
            time.sleep(0.05)

    watcher = threading.Thread(target=watch_memory, daemon=True)
    watcher.start()
    url = f"http://127.0.0.1:{port}"
    try:
        deadline = time.time() + 120
        while True:
            try:
                if urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                    break
            except OSError:
                if time.time() > deadline or server.poll() is not None:
                    log.seek(0)
                    raise RuntimeError("streamlit did not start: "
                                       + log.read().decode(errors="replace")[-500:])
                time.sleep(0.3)
        yield url, peak
    finally:
        watching[0] = False
        watcher.join()
        server.terminate()
        try:
            server.wait(timeout=30)
        except subprocess.TimeoutExpired:
            server.kill()
        log.close()
        os.unlink(log.name)


def _wait_for_run(page, timeout=600_000):
    """A click's rerun: wait until it has started and finished (a fixed pause first, as the
    rerun may not have started when the click returns; these steps are not timed)."""
    page.wait_for_timeout(500)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)


def _chips(page, count):
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === n && "
        "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')", arg=count,
        timeout=600_000)


def _browse_explorer(page, url, run_a: Path, run_b: Path, qrels: Path, repeats: int) -> dict:
    page.goto(url)
    _wait_for_run(page)
    # the Data page's uploaders, as a user uses them: the two runs, then the qrels, then the
    # button (files are handed over one uploader at a time, each after its rerun)
    page.get_by_text("Upload your own runs and ground truth").click()
    _wait_for_run(page)
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files([str(run_a), str(run_b)])
    _chips(page, 2)
    _wait_for_run(page)
    inputs.nth(1).set_input_files(str(qrels))
    _chips(page, 3)
    _wait_for_run(page)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Evaluate these files").click()
    _wait_for_run(page)
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('Mean over queries')", timeout=600_000)
    evaluated = time.perf_counter() - t0
    t0 = time.perf_counter()
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Query explorer", exact=True).click()
    _wait_for_run(page)
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('Unjudged in the top K')", timeout=600_000)
    page.wait_for_function("() => Array.from(document.querySelectorAll('[data-testid=\"stMain\"] "
                           ".annotation-text')).some(t => t.textContent.startsWith('PR curve of'))",
                           timeout=600_000)
    opened = time.perf_counter() - t0
    page.evaluate(BENCH_JS)
    timer = _ActionTimer(page, ["query", "cutoff", "system", "sort"])
    systems = [run_a.name.split(".")[0], run_b.name.split(".")[0]]   # names of the runs' files
    measures = ["P@10", "RR", "nDCG@10", "AP", "R@10", "Rprec", "Bpref"]
    for i in range(repeats):
        timer.switch_query(i, "query")
        timer.change_cutoff(i, "cutoff")
        system, other = systems[(i + 1) % 2], systems[i % 2]
        timer.selectbox("System").click()
        timer.timed(page.get_by_role("option", name=system, exact=True).click, "system",
                    [system, other])
        measure = measures[i % len(measures)]
        timer.selectbox("Sort queries by").click()
        timer.timed(page.get_by_role("option", name=measure, exact=True).click, "sort",
                    measure)
    return {"evaluated": evaluated, "opened": opened, "times": timer.times,
            "phases": timer.phases}


def _browse_floor(page, url: str, repeats: int) -> dict:
    """The query switch and the K change of :func:`_browse_explorer` on floor_app.py."""
    page.goto(url)
    _wait_for_run(page)
    page.evaluate(BENCH_JS)
    timer = _ActionTimer(page, ["query", "cutoff"], prefix="floor_")
    for i in range(repeats):
        timer.switch_query(i, "query")
        timer.change_cutoff(i, "cutoff")
    return {"times": timer.times, "phases": timer.phases}


class _ActionTimer:
    """Times actions on a page armed with BENCH_JS, each until DONE_JS's condition of its kind
    (``prefix`` + kind) holds: the whole time and its three parts, until the browser sees the
    rerun start, the rerun (script state running), after it until the new state is drawn."""

    def __init__(self, page, kinds: list[str], prefix: str = ""):
        self.page, self.prefix = page, prefix
        self.times: dict[str, list[float]] = {kind: [] for kind in kinds}
        self.phases: dict[str, list[list[float]]] = {kind: [] for kind in kinds}

    def selectbox(self, label: str):
        return self.page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
            has=self.page.get_by_text(label, exact=True))

    def timed(self, act, kind: str, arg) -> None:
        page = self.page
        if page.evaluate(SHOWN_JS, [self.prefix + kind, arg]):
            raise RuntimeError(f"the {kind} action to {arg!r} would change nothing shown")
        page.evaluate(ARM_JS)
        act()
        page.wait_for_function(DONE_JS, arg=[self.prefix + kind, arg], polling="raf",
                               timeout=120_000)
        b = page.evaluate("() => window.__bench")
        # no split where the browser drew the rerun's start and end at once (see DONE_JS)
        self.phases[kind].append(
            None if b["started"] is None or b["ended"] is None else
            [(b["started"] - b["t0"]) / 1000, (b["ended"] - b["started"]) / 1000,
             (b["t1"] - b["ended"]) / 1000])
        page.wait_for_timeout(300)   # let any follow-up (the URL's update) settle
        self.times[kind].append((b["t1"] - b["t0"]) / 1000)

    def switch_query(self, i: int, kind: str) -> None:
        """Pick one of the Query box's first six options other than the first and the query
        shown."""
        box = self.selectbox("Query")
        shown = box.locator("input").input_value().split()[0]
        box.click()
        options = self.page.get_by_role("option")
        option = options.nth(1 + i % 5)
        if option.inner_text().split()[0] == shown:
            option = options.nth(2 + i % 5)
        self.timed(option.click, kind, option.inner_text().split()[0])

    def change_cutoff(self, i: int, kind: str) -> None:
        """Type a new K in the Cutoff K box and press Enter."""
        k = str(5 + 3 * i)
        box = self.page.get_by_label("Cutoff K", exact=True)
        box.fill(k)
        self.timed(lambda: box.press("Enter"), kind, k)

def job_floor_embeddings(truth_kind, queries, query_ids, items, item_ids, truth):
    """The floor of W5/W6: NumPy only (plus the standard library). Memory-maps the arrays,
    multiplies a block of queries by all items in float32 (BLAS), divides by the item norms
    (cosine: the query's norm does not change its ranking), and for each relevant item counts
    the items scoring strictly above it (the query itself excluded when the two sides are one
    file); AP, P@10, R@10 and the first relevant rank follow from those ranks. ``truth_kind`` is
    "qrels" (query_id,item_id,relevance CSV) or "labels" (item_id,label CSV: every item a
    query, its clique mates relevant)."""
    import csv

    import numpy as np

    t0 = time.perf_counter()
    same = (queries, query_ids) == (items, item_ids)
    q_ids = Path(query_ids).read_text().split()
    i_ids = q_ids if same else Path(item_ids).read_text().split()
    Q = np.load(queries, mmap_mode="r")
    X = Q if same else np.load(items, mmap_mode="r")
    item_index = {x: i for i, x in enumerate(i_ids)}
    pairs_q, pairs_i = [], []
    with open(truth, newline="") as f:
        reader = csv.reader(f)
        next(reader)
        if truth_kind == "qrels":
            query_index = {x: i for i, x in enumerate(q_ids)}
            for qid, iid, rel in reader:
                if float(rel) > 0:
                    pairs_q.append(query_index[qid])
                    pairs_i.append(item_index[iid])
        else:
            cliques: dict[str, list[int]] = {}
            for iid, label in reader:
                cliques.setdefault(label, []).append(item_index[iid])
            for members in cliques.values():
                for a in members:
                    for b in members:
                        if a != b:
                            pairs_q.append(a)
                            pairs_i.append(b)
    pq, pi = np.asarray(pairs_q, dtype=np.int64), np.asarray(pairs_i, dtype=np.int64)
    order = np.argsort(pq, kind="stable")
    pq, pi = pq[order], pi[order]
    per_query = np.bincount(pq, minlength=len(q_ids))
    starts = np.concatenate([[0], np.cumsum(per_query)])
    slot = np.arange(len(pq)) - starts[pq]
    width = int(per_query.max())
    padded = np.full((len(q_ids), width), -1, dtype=np.int64)
    padded[pq, slot] = pi
    inv_norm = np.empty(len(i_ids), dtype=np.float32)
    for s in range(0, len(i_ids), 65536):
        inv_norm[s:s + 65536] = 1 / np.linalg.norm(np.asarray(X[s:s + 65536]), axis=1)
    t1 = time.perf_counter()
    ranks = np.zeros(padded.shape, dtype=np.int64)
    block = max(1, min(len(q_ids), 2 ** 23 // len(i_ids)))   # ≈ 32 MB of scores
    for s in range(0, len(q_ids), block):
        e = min(s + block, len(q_ids))
        scores = np.asarray(Q[s:e], dtype=np.float32) @ X.T
        scores *= inv_norm
        rows = np.arange(e - s)
        if same:
            scores[rows, rows + s] = -np.inf
        for j in range(width):   # the j-th relevant item of each query that has one
            cols = padded[s:e, j]
            live = np.nonzero(cols >= 0)[0]
            if len(live) == 0:
                continue
            part = scores if len(live) == e - s else scores[live]
            threshold = part[np.arange(len(live)), cols[live]]
            ranks[s + live, j] = np.count_nonzero(part > threshold[:, None], axis=1) + 1
    t2 = time.perf_counter()
    ranks = np.where(padded >= 0, ranks, np.iinfo(np.int64).max)
    ranks.sort(axis=1)
    live = np.arange(width)[None, :] < per_query[:, None]
    position = np.arange(1, width + 1)[None, :]
    has = per_query > 0
    with np.errstate(divide="ignore", invalid="ignore"):
        ap = np.where(live, position / ranks, 0).sum(axis=1) / per_query
    hits10 = (live & (ranks <= 10)).sum(axis=1)
    result = {"AP": float(ap[has].mean()), "P@10": float((hits10[has] / 10).mean()),
              "R@10": float((hits10[has] / per_query[has]).mean()),
              "FirstRank": float(ranks[has, 0].mean()), "queries": int(has.sum())}
    return {"load": t1 - t0, "kernel": t2 - t1, **result}


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
        judged = judge_embeddings(embeddings, ids, embeddings, ids, truth, "cosine", "stable",
                                  keep_lists=False, cluster=cluster)
        t2 = time.perf_counter()
        values = evaluate(judged, "AP,FirstRank,P@10").aggregate("mean")
        traffic = dict(cluster.traffic) if cluster else {}
    finally:
        if cluster is not None:
            cluster.close()
    n = len(judged.query_ids)
    return {"startup": t1 - t0, "kernel": t2 - t1, "n": n, "traffic": traffic,
            **{m: float(v) for m, v in values.items()}}


JOBS = {"ours": job_ours, "cluster": job_cluster, "dashboard": job_dashboard,
        "dashboard_browser": job_dashboard_browser, "pytrec_eval": job_pytrec, "ranx": job_ranx,
        "ir_measures": job_ir_measures,
        "floor_embeddings": job_floor_embeddings}


# ---- the parent: every measurement is a fresh process under /usr/bin/time ------------------------

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


def job_command(name: str, *args: str) -> list[str]:
    return [sys.executable, str(Path(__file__)), "--job", name, *args]


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


# ---- trec_eval binary ------------------------------------------------------------------------------

TREC_EVAL: dict = {"path": None, "note": ""}
BINARY_MEASURES = {"map": "AP", "P_10": "P@10", "recip_rank": "RR", "ndcg_cut_10": "nDCG@10",
                   "bpref": "Bpref", "Rprec": "Rprec"}


def find_trec_eval(option: str | None) -> None:
    """--trec-eval PATH, else $TREC_EVAL, else trec_eval on PATH; notes why the peer is skipped."""
    candidate = option or os.environ.get("TREC_EVAL") or shutil.which("trec_eval")
    if not candidate or not (Path(candidate).is_file() and os.access(candidate, os.X_OK)):
        looked = candidate or "give --trec-eval PATH or set TREC_EVAL"
        TREC_EVAL.update(path=None,
                         note=f"trec_eval binary not found ({looked}): that peer is skipped")
        print("note: " + TREC_EVAL["note"], flush=True)
        return
    done = subprocess.run([candidate, "-v"], capture_output=True, text=True)
    version = (done.stdout + done.stderr).strip().splitlines()
    source = Path(candidate).resolve().parent / "SOURCE_COMMIT"
    commit = f", source commit {source.read_text().strip()[:12]}" if source.exists() else ""
    TREC_EVAL.update(path=str(Path(candidate).resolve()),
                     note=f"{version[0] if version else 'trec_eval'} at "
                          f"{Path(candidate).resolve()}{commit}")


def trec_eval_args(run, qrels, measures, per_query=False) -> list[str]:
    """trec_eval's -m names: P_10 is asked for as P.10, ndcg_cut_10 as ndcg_cut.10."""
    flags = []
    for m in measures:
        flags += ["-m", m.replace("P_", "P.").replace("cut_", "cut.")]
    return [TREC_EVAL["path"], *(["-q"] if per_query else []), *flags, str(qrels), str(run)]


def read_trec_eval(path) -> dict:
    values: dict = {}
    for line in Path(path).read_text().splitlines():
        parts = line.split()
        if len(parts) == 3 and parts[1] != "all" and parts[0] in BINARY_MEASURES:
            values.setdefault(parts[1], {})[BINARY_MEASURES[parts[0]]] = float(parts[2])
    return values


# ---- W1/W2: runs with ~1,000 results per query -----------------------------------------------------

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
    # the timings the targets compare get two more repeats: their medians decide them
    rows["ours: whole command line"] = measure("ours, whole command line", cli, repeats + EXTRA[0])
    rows["ours: phases"] = measure("ours, phases", job_command("ours", run, qrels, out_ours),
                                   repeats)
    rows["pytrec_eval"] = measure("pytrec_eval", job_command("pytrec_eval", run, qrels,
                                                             out_trec), repeats + EXTRA[0])
    if TREC_EVAL["path"]:
        rows["trec_eval 10 (binary)"] = measure(
            "trec_eval binary", trec_eval_args(run, qrels, BINARY_MEASURES), repeats + EXTRA[0],
            stdout_path=tempfile.mktemp(suffix=".trec_eval"))
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
            "targets": targets}


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
                ("ours ÷ pytrec_eval, whole-process time", ratio(ours_whole, trec), 0.20),
                ("ours ÷ ranx warm, whole-process time", ratio(ours_whole, ranx), 0.50)):
            lines += [f"- {target(workload, what, value, limit, why)}"]
        if binary is not None:
            why = why or failure(binary)
            # reported, not a target of any issue: a C binary that reads one line at a time
            lines += [f"- ours ÷ trec_eval binary, whole-process time: "
                      f"{fmt(ratio(ours_whole, median_of(binary, 'wall')))}×; peak memory: "
                      f"{fmt(ratio(ours_rss, median_of(binary, 'rss_mb')))}×"
                      + (f" ({why})" if why else "")]
    lines += ["", f"Agreement with trec_eval (pytrec_eval): largest per-query difference "
                  f"{res['agreement']:.2e} over {res['compared']} values "
                  f"(AP, P@10, RR, nDCG@10, Bpref, Rprec; ties as trec_eval)." if res["compared"]
              else "Agreement with pytrec_eval: not compared (a run failed).", ""]
    return lines


# ---- W3: all-vs-all matrices -----------------------------------------------------------------------

def bench_matrix(n: int, repeats: int, seed: int) -> dict:
    from workloads import make_matrix_workload

    paths = make_matrix_workload(HERE / "workloads" / "w3", n, seed)
    rows = {}
    # the floor and the counting kernel take tenths of a second: two more repeats steady them
    counts = {"floor": repeats + EXTRA[0], "counting": repeats + EXTRA[0], "full-sort": max(1, repeats - 1)}
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


# ---- W4: a skewed run --------------------------------------------------------------------------------

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
    for name, runs in rows.items():
        if failure(runs):
            lines.append(f"| {name} | {failure(runs)} | — | — | — |")
            continue
        t, m = median_of(runs, "wall"), median_of(runs, "rss_mb")
        lines.append(f"| {name} | {fmt(t)} | {fmt(ratio(ours_t, t))} | {mb(m)} | "
                     f"{fmt(ratio(ours_m, m))} |")
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


# ---- W5, W6: rankings from embeddings -----------------------------------------------------------------

def bench_embeddings(kind: str, label: str, size: dict, repeats: int, timeout=None,
                     targets: bool = True) -> dict:
    from workloads import make_cover_workload, make_text_to_music_workload

    print(f"running {label}", flush=True)
    if kind == "W6":
        p = make_cover_workload(HERE / "workloads" / f"w6_{size['n']}_{size['dim']}",
                                size["n"], size["dim"], seed=6)
        inputs = [p["embeddings"], p["ids"], p["embeddings"], p["ids"], p["labels"]]
        measures, extra, truth_kind = "AP,FirstRank,P@10", [], "labels"
    else:
        p = make_text_to_music_workload(
            HERE / "workloads" / f"w5_{size['queries']}_{size['items']}_{size['dim']}",
            size["queries"], size["items"], size["dim"], seed=5)
        inputs = [p["queries"], p["query_ids"], p["items"], p["item_ids"], p["qrels"]]
        measures, extra, truth_kind = "AP,R@10,P@10", ["--similarity", "cosine"], "qrels"
    inputs = [str(x) for x in inputs]
    out_ours = tempfile.mktemp(suffix=".json")
    cli = [sys.executable, "-m", "metrics", "evaluate-embeddings", *inputs, "--measures",
           measures, *extra, "--format", "json"]
    runs = repeats + EXTRA[0] if targets else repeats   # W5-big: once each
    rows = {"floor (NumPy: blocks of queries, count items above)": measure(
                "floor", job_command("floor_embeddings", truth_kind, *inputs), runs,
                timeout=timeout),
            "ours (python -m metrics evaluate-embeddings)": measure(
                "ours", cli, runs, stdout_path=out_ours, timeout=timeout)}
    ours_values = {}
    if not failure(rows["ours (python -m metrics evaluate-embeddings)"]):
        ours_values = json.loads(Path(out_ours).read_text()).get("aggregate", {})
    return {"kind": kind, "label": label, "rows": rows, "measures": measures.split(","),
            "ours_values": ours_values, "targets": targets,
            "command": "python -m metrics evaluate-embeddings " + " ".join(
                Path(x).name for x in inputs) + f" --measures {measures} " + " ".join(extra)}


def report_embeddings(res: dict) -> list[str]:
    rows = list(res["rows"].values())
    floor_runs, ours_runs = rows
    floor_t, floor_m = median_of(floor_runs, "wall"), median_of(floor_runs, "rss_mb")
    ours_t, ours_m = median_of(ours_runs, "wall"), median_of(ours_runs, "rss_mb")
    lines = [f"## {res['label']}", "", f"`{res['command'].strip()}` against the floor: a "
             "separate NumPy-only process that memory-maps the arrays, multiplies blocks of "
             "queries by the items in float32 and counts, for each relevant item, the items "
             "scoring above it; mean AP (and P@10, R@10, first rank) from those ranks.", "",
             "| process | in-process kernel (s) | whole process (s) | ÷ floor (time) | "
             "peak memory MB | ÷ floor (memory) |", "| --- | --- | --- | --- | --- | --- |"]
    for name, runs in res["rows"].items():
        if failure(runs):
            lines.append(f"| {name} | — | {failure(runs)} | — | — | — |")
            continue
        t, m = median_of(runs, "wall"), median_of(runs, "rss_mb")
        lines.append(f"| {name} | {fmt(median_of(runs, 'kernel'))} | {fmt(t)} | "
                     f"{fmt(ratio(t, floor_t))} | {mb(m)} | {fmt(ratio(m, floor_m))} |")
    lines.append("")
    why = failure(ours_runs) or failure(floor_runs)
    if res["targets"]:
        lines += ["- " + target(res["kind"], "ours ÷ floor, whole-process time",
                                ratio(ours_t, floor_t), 3.0, why),
                  "- " + target(res["kind"], "ours ÷ floor, peak memory",
                                ratio(ours_m, floor_m), 2.0, why)]
    else:
        finished = not failure(ours_runs)
        TARGETS.append((res["kind"], "finishes on this machine", failure(ours_runs) or
                        f"{fmt(ours_t)} s, {mb(ours_m)} MB", "yes" if finished else "no"))
        lines += [f"- Finishes on this machine: **{'yes' if finished else 'no'}** — ours "
                  f"{failure(ours_runs) or f'{fmt(ours_t)} s and {mb(ours_m)} MB peak'}."]
    floor_values = next((r for r in floor_runs if not r.get("failed")), {})
    shared = [m for m in res["measures"] if m in floor_values and m in res["ours_values"]]
    if shared:
        lines += ["- Mean values, ours / floor (the floor breaks no ties: near-ties in float32 "
                  "may differ): " + ", ".join(
                      f"{m} {res['ours_values'][m]:.6f} / {floor_values[m]:.6f}" for m in shared)]
    return lines + [""]


# ---- W6 on a Dask cluster ---------------------------------------------------------------------------

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
             "(the job) that starts the cluster itself (`metrics.ranking.cluster.Cluster.start_local`, "
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


# ---- memory as a curve -----------------------------------------------------------------------------------

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


# ---- the dashboard and how cost grows ---------------------------------------------------------------

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


# (action, what the page must show before the time stops, target in seconds)
BROWSER_ACTIONS = [
    ("query", "switch the query (pick another in the Query box)",
     "the PR curve titled with the new query, the box showing it", 0.3),
    ("cutoff", "change K (type it in the number box, Enter)",
     "the confusion matrix titled with the new K and “Unjudged in the top K = …”", 0.3),
    ("system", "switch the system",
     "the rank strip titled with both systems, the new one first; the System box showing it",
     0.5),
    ("sort", "change “Sort queries by”",
     "the queries' table titled with the measure, the Query box labelled with its value", 0.5),
]


def _median_split(phases: list) -> str:
    """The median of each part of the actions whose rerun the browser was seen to start and end
    (None for the others), and how many of the actions that leaves."""
    seen = [p for p in phases if p is not None]
    if not seen:
        return "rerun's start and end not seen"
    split = " / ".join(fmt(statistics.median(p[i] for p in seen)) for i in range(3))
    return split if len(seen) == len(phases) else f"{split} ({len(seen)} of {len(phases)} seen)"


def report_dashboard_browser(result: dict) -> list[str]:
    slowdown = result.get("slowdown", 1)
    slowed = f", Chromium's CPU slowed {slowdown:g}×" if slowdown != 1 else ""
    lines = ["## Dashboard in a browser: two systems, 1,000 queries × 1,000 results each"
             + slowed, ""]
    if result.get("failed"):
        TARGETS.append(("Dashboard in Chromium (issue 15)", "query, K < 0.3 s; system, sort "
                        "< 0.5 s", f"failed: {result['failed']}", "no"))
        return lines + [f"The browser measurement failed: {result['failed']}.", ""]
    times = result["times"]
    repeats = len(times["query"])
    lines += [
        "A real `streamlit run app.py` server on 127.0.0.1 and headless Chromium (Playwright, "
        "1400 × 1000" + (f"; its pages' CPU slowed {slowdown:g}× by its own throttling, "
                         "`Emulation.setCPUThrottlingRate`, as on a slower machine"
                         if slowdown != 1 else "")
        + "): the two runs (W2's run and a second one re-scored from it with noise, "
        "35 MB each) and W2's graded qrels are uploaded on the Data page, then the Query "
        f"explorer is opened and each action is done {repeats} times. A time runs from the "
        "browser's pointer-down (Enter key-down for K) that makes the change to the first "
        "animation frame at which the app's script state is *notRunning* and the page shows "
        "the new state, which it did not show before: the server's script run, the websocket "
        "and the browser's drawing of the figures are included; opening a drop-down before the "
        "click is not. K is new each time; the query is one of the first six of the list, "
        "not the one shown (each sort change reorders the list); the system toggles between "
        "the two; the sort cycles through the seven measures. Each time is split into: until the browser sees "
        "the rerun start (the click reaching the server), the rerun as the browser sees it "
        "(the script run, with the browser drawing the elements as they arrive), and the "
        "drawing left after it; an action where the browser drew the rerun's start and end in "
        "one render (the script state never seen to change) is timed but has no split.", "",
        "| action | the time stops when the page shows | median (s) | max (s) | median split: "
        "to the rerun's start / rerun / drawing after it (s) | target (s) | met? |",
        "| --- | --- | --- | --- | --- | --- | --- |"]
    met_all = []
    for key, action, shown, target in BROWSER_ACTIONS:
        median = statistics.median(times[key])
        met = median < target
        met_all.append(met)
        split = _median_split(result["phases"][key])
        lines.append(f"| {action} | {shown} | {fmt(median)} | {fmt(max(times[key]))} | {split} "
                     f"| < {target:g} | {'yes' if met else 'no'} |")
    floor = result.get("floor")
    if floor:
        lines += ["", "**The floor.** The same query switch and K change on "
                      "`benchmarks/floor_app.py`: a server of its own whose page is one fragment "
                      "holding only a Query box of 1,000 labelled options, a Cutoff K box and a "
                      "line of text — what any Streamlit page with these two controls costs on "
                      "this machine and browser, before it shows anything of its own.", "",
                  "| action | floor (s) | floor split (s) | Query explorer (s) | explorer − floor "
                  "(s) | target (s) |", "| --- | --- | --- | --- | --- | --- |"]
        for key, action, _, target in BROWSER_ACTIONS:
            if key not in floor["times"]:
                continue
            base, ours = statistics.median(floor["times"][key]), statistics.median(times[key])
            split = _median_split(floor["phases"][key])
            lines.append(f"| {action} | {fmt(base)} | {split} | {fmt(ours)} | "
                         f"{fmt(ours - base)} | < {target:g} |")
    lines += ["", f"Before these: the upload's evaluation (the button's click to the means "
                  f"shown) took {fmt(result['evaluated'])} s and opening the Query explorer "
                  f"{fmt(result['opened'])} s (both systems evaluated there). The server's peak "
                  f"resident memory over the whole session: {mb(result['server_peak_mb'])} MB "
                  "(sampled every 50 ms).", ""]
    TARGETS.append(("Dashboard in Chromium, 2 systems × W2 (issue 15)" + slowed,
                    "median: query switch and K < 0.3 s, system and sort < 0.5 s",
                    ", ".join(f"{k} {fmt(statistics.median(times[k]))} s"
                              for k, *_ in BROWSER_ACTIONS)
                    + (" (Streamlit's floor on this machine: query "
                       f"{fmt(statistics.median(floor['times']['query']))} s, K "
                       f"{fmt(statistics.median(floor['times']['cutoff']))} s)" if floor else "")
                    + f"; server peak {mb(result['server_peak_mb'])} MB",
                    "yes" if all(met_all) else "no"))
    return lines

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


# ---- the report ------------------------------------------------------------------------------------------

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


# ---- main -----------------------------------------------------------------------------------------------

WORKLOADS = ("W1", "W2", "W3", "W4", "W5", "W5-big", "W6", "W6-cluster", "curve", "dashboard",
             "dashboard-browser", "scaling")


def main() -> None:
    parser = argparse.ArgumentParser(description=__doc__,
                                     formatter_class=argparse.RawDescriptionHelpFormatter)
    parser.add_argument("--job", nargs="+", help=argparse.SUPPRESS)
    parser.add_argument("--quick", action="store_true",
                        help="small versions of every workload, one repeat (a few minutes)")
    parser.add_argument("--only", help="comma-separated subset of " + ",".join(WORKLOADS))
    parser.add_argument("--big", action="store_true", help="also run W5-big (slow)")
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
    parser.add_argument("--out", help="report file (default BENCHMARKS.md for a full run, "
                                      "benchmarks/workloads/BENCHMARKS.partial.md with --quick "
                                      "or --only)")
    args = parser.parse_args()
    if args.job:
        name, *rest = args.job
        if name == "matrix":
            print(json.dumps(job_matrix(*rest)))
        else:
            print(json.dumps(JOBS[name](*rest)))
        return
    chosen = set(WORKLOADS) - {"W5-big"} - ({"scaling"} if args.quick else set())
    if args.big:
        chosen.add("W5-big")
    if args.only:
        lookup = {w.lower(): w for w in WORKLOADS}
        wanted = [x.strip().lower() for x in args.only.split(",") if x.strip()]
        unknown = [x for x in wanted if x not in lookup]
        if unknown:
            parser.error(f"unknown workload(s) {unknown}; choose from {','.join(WORKLOADS)}")
        chosen = {lookup[x] for x in wanted}
    LIMITS.update(timeout=args.timeout,
                  mem_cap_gb=args.mem_cap_gb or (8.0 if args.quick else 16.0))
    find_trec_eval(args.trec_eval)
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
    if "scaling" in chosen:
        print("running how cost grows", flush=True)
        scaling = bench_scaling()
        sections.append(["## How cost grows", "", "| workload | size | ours, whole process (s) |",
                         "| --- | --- | --- |",
                         *[f"| {w} | {size} | {t} |" for w, size, t in scaling], ""])
    command = "python benchmarks/run_benchmarks.py" + "".join(
        f" {a}" for a in sys.argv[1:])
    report = write_report(sections, command)
    report += "\n" + (HERE / "scale_notes.md").read_text()
    partial = quick or bool(args.only)
    out = Path(args.out) if args.out else (HERE / "workloads" / "BENCHMARKS.partial.md"
                                           if partial else ROOT / "BENCHMARKS.md")
    out.parent.mkdir(parents=True, exist_ok=True)
    out.write_text(report + "\n")
    print(report)
    print(f"\nwritten to {out}")


if __name__ == "__main__":
    main()
