"""The dashboard in headless Chromium (dashboard-browser): the job that uploads two W2-sized
runs and times the Query explorer's clicks, then the same clicks on floor_app.py (Streamlit's
floor); and the report of those times against the targets."""

from __future__ import annotations

import statistics
import time
from pathlib import Path

from browser import (BENCH_JS, ActionTimer, in_page, launch_chromium, streamlit_server,
                     wait_for_chips, wait_for_run)
from harness import fmt, mb
from report import TARGETS


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
        browser = launch_chromium(p)
        with streamlit_server("app.py") as (url, peak):
            result = in_page(browser, slowdown, lambda page: _browse_explorer(
                page, url, Path(run_a), Path(run_b), Path(qrels), repeats))
        result["server_peak_mb"] = peak[0] / 2 ** 20
        with streamlit_server("benchmarks/floor_app.py") as (url, _):
            result["floor"] = in_page(browser, slowdown,
                                       lambda page: _browse_floor(page, url, repeats))
        result["slowdown"] = slowdown
        browser.close()
    return result


def _browse_explorer(page, url, run_a: Path, run_b: Path, qrels: Path, repeats: int) -> dict:
    page.goto(url)
    wait_for_run(page)
    # the Data page's uploaders, as a user uses them: the two runs, then the qrels, then the
    # button (files are handed over one uploader at a time, each after its rerun)
    page.get_by_text("Upload your own runs and ground truth").click()
    wait_for_run(page)
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files([str(run_a), str(run_b)])
    wait_for_chips(page, 2)
    wait_for_run(page)
    inputs.nth(1).set_input_files(str(qrels))
    wait_for_chips(page, 3)
    wait_for_run(page)
    t0 = time.perf_counter()
    page.get_by_role("button", name="Evaluate these files").click()
    wait_for_run(page)
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('Mean over queries')", timeout=600_000)
    evaluated = time.perf_counter() - t0
    t0 = time.perf_counter()
    page.locator('[data-testid="stSidebarNav"]').get_by_text("Query explorer", exact=True).click()
    wait_for_run(page)
    page.wait_for_function("() => document.querySelector('[data-testid=\"stMain\"]').innerText"
                           ".includes('Unjudged in the top K')", timeout=600_000)
    page.wait_for_function("() => Array.from(document.querySelectorAll('[data-testid=\"stMain\"] "
                           ".annotation-text')).some(t => t.textContent.startsWith('PR curve of'))",
                           timeout=600_000)
    opened = time.perf_counter() - t0
    page.evaluate(BENCH_JS)
    timer = ActionTimer(page, ["query", "cutoff", "system", "sort"])
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
    wait_for_run(page)
    page.evaluate(BENCH_JS)
    timer = ActionTimer(page, ["query", "cutoff"], prefix="floor_")
    for i in range(repeats):
        timer.switch_query(i, "query")
        timer.change_cutoff(i, "cutoff")
    return {"times": timer.times, "phases": timer.phases}


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
        "the two; the sort cycles through the seven measures. Each time is split into: until "
        "the browser sees "
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
