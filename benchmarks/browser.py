"""Drive Streamlit pages in headless Chromium for the browser benchmark: a `streamlit run` server
with its memory sampled, a page (CPU throttled if asked), waiting for reruns, and the timer of
one action, with the in-page JavaScript read from dashboard_browser.js."""

from __future__ import annotations

import contextlib
import os
import subprocess
import sys
import tempfile
import time
from pathlib import Path

from harness import HERE, ROOT


def _functions(path: Path) -> dict[str, str]:
    """The JavaScript functions of ``path`` by name: each starts at a line ``// @function NAME``
    and runs to the next; lines starting with ``//`` are the file's notes, left out; ``/*@NAME*/``
    in a function stands for the function NAME."""
    functions: dict[str, list[str]] = {}
    name = None
    for line in path.read_text().splitlines():
        if line.startswith("// @function "):
            name = line.split()[-1]
            functions[name] = []
        elif name is not None and not line.startswith("//"):
            functions[name].append(line)
    texts = {n: "\n".join(lines).strip() for n, lines in functions.items()}
    for n in texts:
        for other, body in texts.items():
            texts[n] = texts[n].replace(f"/*@{other}*/", body)
    return texts


_JS = _functions(HERE / "dashboard_browser.js")
BENCH_JS, ARM_JS, SHOWN_JS, DONE_JS = _JS["BENCH"], _JS["ARM"], _JS["SHOWN"], _JS["DONE"]


def in_page(browser, slowdown: float, browse):
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


def launch_chromium(playwright):
    """The system's headless Chromium, as every browser benchmark drives it."""
    return playwright.chromium.launch(
        executable_path="/usr/bin/chromium",
        args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])


@contextlib.contextmanager
def streamlit_server(script: str, *script_args: str):
    """``streamlit run script`` (``-- script_args`` after it, if any) on a free port of 127.0.0.1
    until the block ends; yields its URL and a one-element list holding its peak resident memory
    so far (sampled every 50 ms)."""
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
         "--server.headless", "true", "--server.address", "127.0.0.1",
         *(("--", *script_args) if script_args else ())],
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


def wait_for_run(page, timeout=600_000):
    """A click's rerun: wait until it has started and finished (a fixed pause first, as the
    rerun may not have started when the click returns; these steps are not timed)."""
    page.wait_for_timeout(500)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=timeout)


def wait_for_chips(page, count):
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === n && "
        "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')", arg=count,
        timeout=600_000)


class ActionTimer:
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
