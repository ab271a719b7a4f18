"""A fresh server's first page (first-page): the time from a page's request, as a server's very
first, to the end of its run with its figures drawn, in headless Chromium; and where the server
spends a first page's time, phase by phase, in a fresh process as the server's is."""

from __future__ import annotations

import os
import statistics
import sys
import time

from browser import launch_chromium, streamlit_server
from harness import ROOT, fmt
from report import TARGETS

# the README's first page, and every page as a shared link opens it (issue 40: every page as a
# deep link), each on a sample that gives it its full first view: the slowest sample's Curves,
# the five systems' Leaderboard, the cover songs' Compare (two systems) and groups (clique sizes)
FIRST_PAGES = ("/", "/data", "/explorer", "/curves?dataset=text2music", "/answer_sets",
               "/compare?dataset=covers", "/leaderboard?dataset=versions",
               "/groups?dataset=covers", "/conventions?dataset=covers&ties=trec9")
FIRST_PAGE_TARGET = 3.0   # seconds (issues 33 and 40)

# done: the script has run, the page has its title, every element's code has loaded (Streamlit
# shows an stSkeleton where an element waits for its chunk of JavaScript: before run 24 these
# were not waited for, and a chart still a skeleton was not yet a chart, so a page with charts
# counted as done up to 2 s before they were drawn), and every chart has drawn its traces (a
# heatmap's: an image). A chart is dashboard/chart_in_place.py's element, known by its key's
# class (st-key-chart-…) before its script has made the chart; before run 29 the charts were
# st.plotly_chart's, and the Query explorer's (already this element) was not waited for
_DONE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  if (!app || app.getAttribute('data-test-script-state') !== 'notRunning') return false;
  if (!document.querySelector('[data-testid="stMain"] h1')) return false;
  if (document.querySelector('[data-testid="stSkeleton"]')) return false;
  return Array.from(document.querySelectorAll(
      '[data-testid="stElementContainer"][class*="st-key-chart-"]'))
    .every(c => c.querySelector('.main-svg .trace, .main-svg .hm, .main-svg image'));
}"""
# the page's title is shown: the server has imported the frame's and the page's modules, run the
# sidebar and started the page (the part of the time before it is the browser's and Streamlit's)
_TITLE = """() => !!document.querySelector('[data-testid="stMain"] h1')"""
# Streamlit's floor (floor_app.py, no title, no chart): its script has run and its text is shown
_FLOOR_DONE = """() => {
  const app = document.querySelector('[data-testid="stApp"]');
  return !!app && app.getAttribute('data-test-script-state') === 'notRunning'
    && !!document.querySelector('[data-testid="stMain"] p');
}"""
FLOOR = "floor_app.py (Streamlit's floor)"


def _phases(sample: str) -> dict[str, float]:
    """Seconds of each step of a first page's server work, in this (fresh) process: Streamlit
    itself and the warm-up (dashboard/warm_up.py: the pages' imports, the libraries' first use),
    both done before the server answers, then loading the sample and its first evaluation with
    the default measures, the first page's own."""
    sys.path.insert(0, str(ROOT))
    out, t = {}, time.perf_counter()

    def lap(name):
        nonlocal t
        now = time.perf_counter()
        out[name], t = now - t, now

    import streamlit  # noqa: F401
    lap("streamlit (before the server answers)")
    from dashboard.warm_up import warm
    warm()
    lap("warm-up (before the server answers)")
    from metrics.explain.samples import load_sample
    data = load_sample(sample)
    lap("sample loading")
    from metrics import evaluate
    from metrics.measures.registry import DEFAULT_MEASURES
    for judged in data.values():
        evaluate(judged, DEFAULT_MEASURES)
    lap("first evaluation")
    heavy = sorted({m.split(".")[0] for m in sys.modules} & {
        "scipy", "statsmodels", "dask", "distributed", "polars", "numba", "matplotlib"})
    out["heavy modules imported"] = ", ".join(heavy) or "none"
    return out


def job_first_page(out, repeats="3", sample="fmp"):
    """Each page of FIRST_PAGES ``repeats`` times, each time as the first request of a new
    server (Chromium, 1400 × 1000, a new page); then the server phases of ``sample``'s first
    page."""
    from playwright.sync_api import sync_playwright

    load_start = os.getloadavg()[0]
    times: dict[str, list[float]] = {path: [] for path in (FLOOR, *FIRST_PAGES)}
    titles: dict[str, list[float]] = {path: [] for path in FIRST_PAGES}
    starts: dict[str, list[float]] = {path: [] for path in (FLOOR, *FIRST_PAGES)}
    with sync_playwright() as p:
        browser = launch_chromium(p)
        for _ in range(int(repeats)):
            for path in (FLOOR, *FIRST_PAGES):
                floor = path == FLOOR
                script = str(ROOT / "benchmarks" / "floor_app.py") if floor else "app.py"
                launched = time.perf_counter()
                with streamlit_server(script) as (url, _):
                    starts[path].append(time.perf_counter() - launched)
                    page = browser.new_page(viewport={"width": 1400, "height": 1000})
                    start = time.perf_counter()
                    page.goto(url + ("/" if floor else path))
                    if not floor:
                        page.wait_for_function(_TITLE, polling="raf", timeout=120_000)
                        titles[path].append(time.perf_counter() - start)
                    page.wait_for_function(_FLOOR_DONE if floor else _DONE, polling="raf",
                                           timeout=120_000)
                    times[path].append(time.perf_counter() - start)
                    page.close()
        browser.close()
    load = os.getloadavg()[0]
    return {"times": times, "titles": titles, "starts": starts, "phases": _phases(sample),
            "sample": sample,
            "load": load, "load_start": load_start}


def report_first_page(result: dict) -> list[str]:
    lines = ["## A fresh server's first page", ""]
    if result.get("failed"):
        TARGETS.append(("First page of a fresh server (issues 33, 40)",
                        f"< {FIRST_PAGE_TARGET:g} s", f"failed: {result['failed']}", "no"))
        return lines + [f"The measurement failed: {result['failed']}.", ""]
    times = result["times"]
    lines += [
        "Each page as the very first request of a new `streamlit run app.py` server (started and "
        "healthy before the clock starts), in a new headless Chromium page at 1400 × 1000: from "
        "`page.goto` to the first animation frame at which the script has run, the page shows "
        "its title, no element waits for its code (no `stSkeleton`) and every chart has "
        "drawn its traces (before run 24 the skeletons were not waited for: a chart not yet "
        "loaded did not count, and pages with charts were reported done up to 2 s early; "
        "from run 29 the charts are dashboard/chart_in_place.py's, drawn with plotly.js's "
        "cartesian bundle, and the Query explorer's chart, not waited for before, is). The "
        "browser's load of Streamlit's own files is included. Load average (1 min) at the "
        "start and the end: "
        f"{result.get('load_start', float('nan')):.1f} and {result['load']:.1f} on this "
        f"machine's {os.cpu_count()} cores; each page once per repeat, the pages interleaved.",
        "",
        "The first row is Streamlit's floor: `benchmarks/floor_app.py` (a line of text, no "
        "chart) timed the same way, the part of every page that is the browser's and "
        "Streamlit's. *Title* is when the page's title is shown: the server has imported what "
        "the frame and the page use, run the sidebar (loading the sample) and started the page; "
        "the rest, to *done*, is the page's own work and its charts' drawing. *Above the "
        "floor* is the page's median less the floor's: on a busy machine both grow, and this "
        "is the part the app adds.", "",
        "*Server start* is the time from launching `streamlit run` to its first healthy answer, "
        "before the clock: the app's server imports what the pages run with before it says it "
        "is ready (dashboard/warm_up.py), so that work is there and not in a first page.", "",
        "| page | server start, median (s) | title, median (s) | done, median (s) | "
        "done, max (s) | above the floor (s) | target (s) | met? |",
        "| --- | --- | --- | --- | --- | --- | --- | --- |"]
    met_all = []
    titles, starts = result.get("titles", {}), result.get("starts", {})
    floor = statistics.median(times[FLOOR])
    for path, values in times.items():
        median = statistics.median(values)
        title = fmt(statistics.median(titles[path])) if titles.get(path) else "—"
        start = fmt(statistics.median(starts[path])) if starts.get(path) else "—"
        if path == FLOOR:
            lines.append(f"| {path} | {start} | {title} | {fmt(median)} | {fmt(max(values))} "
                         f"| — | — | — |")
            continue
        met_all.append(median < FIRST_PAGE_TARGET)
        lines.append(f"| `{path}` | {start} | {title} | {fmt(median)} | {fmt(max(values))} | "
                     f"{fmt(median - floor)} | < {FIRST_PAGE_TARGET:g} | "
                     f"{'yes' if met_all[-1] else 'no'} |")
    phases = result["phases"]
    lines += ["", f"Where a first page's server time goes ({result['sample']} sample), in a "
                  "fresh process: Streamlit and the warm-up are done before the server "
                  "answers; the rest is the first page's.", "",
              "| phase | seconds |", "| --- | --- |"]
    lines += [f"| {name} | {fmt(value)} |" for name, value in phases.items()
              if isinstance(value, float)]
    lines += ["", f"Heavy libraries loaded by then (the warm-up's, for the pages that test and "
                  f"read tables): {phases['heavy modules imported']}.", ""]
    TARGETS.append(("First page of a fresh server (issues 33, 40)",
                    f"median < {FIRST_PAGE_TARGET:g} s",
                    ", ".join(f"{p} {fmt(statistics.median(v))} s" for p, v in times.items()
                              if p != FLOOR),
                    "yes" if all(met_all) else "no"))
    return lines
