"""The app in a real headless Chromium, started the way the README says."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.parse import urlparse
from urllib.request import urlopen

import numpy as np
import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from dashboard.permalink import PAGE_PARAMS

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
PAGES = [("", "Data", "Validation summary"), ("explorer", "Query explorer", "Why this query fails"),
         ("curves", "Curves", "Precision"), ("answer_sets", "Answer sets", "Kendall"),
         ("compare", "Compare systems", "Compare systems"),
         ("leaderboard", "Leaderboard", "Leaderboard"),
         ("groups", "Groups of queries", "Groups of queries"),
         ("conventions", "Conventions", "Conventions")]  # url path, navigation title, text shown
SAMPLE_TITLES = ["FMP toy examples (Müller, C7S3)", "Serrà's six answer sets (2007)",
                 "Cover songs: all-vs-all similarity",
                 "Instrument retrieval with a two-level taxonomy",
                 "Text-to-music retrieval from embeddings"]

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def launch_app(*extra):
    """Start a server (without waiting for it): (process, url, log path)."""
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / f"streamlit_{port}.log"   # a file, not a pipe: a full pipe would stall it
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1", *extra],
        cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    return server, f"http://127.0.0.1:{port}", log


def await_app(server, url, log):
    # a server imports what its pages run with before it answers (dashboard/warm_up.py): a few
    # seconds of CPU, and eight start at once for the deep-link tests, on two cores
    deadline = time.time() + 180
    while time.time() < deadline:
        try:
            if urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return server, url
        except OSError:
            time.sleep(0.5)
    server.kill()
    pytest.fail("streamlit did not start: " + log.read_text()[-2000:])


def start_app(*extra):
    return await_app(*launch_app(*extra))


def stop_app(server):
    server.terminate()
    server.wait(timeout=20)


@pytest.fixture(scope="module")
def app_url():
    server, url = start_app()
    yield url
    server.terminate()
    server.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
        pytest.skip("Debian chromium is not installed (.ci/run installs it)")
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield chromium
        chromium.close()


# Installed in each document the tests drive: counts the script runs that start (the app's
# data-test-script-state turning to "running") and notes when the page last changed, so that a
# wait ends as soon as the page is settled instead of after fixed pauses (about 1 s a step, of
# hundreds of steps)
_WATCH = """() => {
  if (window.__mreRuns !== undefined) return;
  window.__mreRuns = 0;
  window.__mreChanged = performance.now();
  window.__mreDoc = Math.random().toString(36).slice(2);
  let state = null;
  new MutationObserver(() => {
    window.__mreChanged = performance.now();
    const app = document.querySelector('[data-testid="stApp"]');
    const now = app && app.getAttribute('data-test-script-state');
    if (now === 'running' && state !== 'running') window.__mreRuns++;
    state = now;
  }).observe(document, {subtree: true, childList: true, attributes: true, characterData: true});
}"""
_RUN_STARTED = """([doc, runs]) => window.__mreDoc === doc ? window.__mreRuns > runs
  : window.__mreRuns > 0 || document.querySelector(
      '[data-testid="stApp"][data-test-script-state="running"]') !== null"""
# settled: nothing on the page has changed for QUIET ms and no element waits for its code
QUIET = 250
_SETTLED = """(quiet) => performance.now() - window.__mreChanged > quiet
  && !document.querySelector('[data-testid="stSkeleton"]')"""


def watch(page) -> None:
    """Watch the documents that ``page`` opens from now on from their start (see _WATCH)."""
    if not getattr(page, "_mre_watched", False):
        page.add_init_script(f"window.__mreEarly = true; ({_WATCH})();")
        page._mre_watched = True


def wait_for_app(page):
    """Wait until the script run that the last action started (if any) has finished and the page
    has settled: its figures drawn, its text laid out in the web font."""
    watch(page)
    page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
    page.evaluate(_WATCH)
    seen = getattr(page, "_mre_seen", None) or ("", 0)
    # a new document watched from its start always runs its script: wait for that run however
    # long it takes to start; otherwise a click's rerun may not have started yet: 400 ms
    early = page.evaluate("(doc) => window.__mreDoc !== doc && window.__mreEarly === true",
                          seen[0])
    try:
        page.wait_for_function(_RUN_STARTED, arg=list(seen), polling=25,
                               timeout=60_000 if early else 400)
    except PlaywrightTimeout:
        pass   # nothing reran, or a run too quick to be seen (the settling below covers it)
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=90_000)
    page.evaluate("document.fonts.ready.then(() => true)")   # text measured in the web font
    try:
        page.wait_for_function(_SETTLED, arg=QUIET, polling=50, timeout=5_000)
    except PlaywrightTimeout:
        pass   # a page that keeps changing (a player playing): its test waits for what it needs
    page._mre_seen = page.evaluate("() => [window.__mreDoc, window.__mreRuns]")


def open_page(browser, url, width: int = 1400, height: int = 1100, scheme: str = "light"):
    """A page of its own context (closing the page closes it) at ``url``, its run finished."""
    page = browser.new_page(viewport={"width": width, "height": height}, color_scheme=scheme)
    watch(page)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    wait_for_app(page)
    return page, errors


def assert_healthy(page, errors, text):
    try:
        page.wait_for_function("(t) => document.querySelector('[data-testid=\"stMain\"]') && "
                               "document.querySelector('[data-testid=\"stMain\"]').innerText"
                               ".includes(t)", arg=text, timeout=60_000)
    except PlaywrightTimeout:   # say what the page showed instead, so a CI failure can be read
        shoot(page, "failed_" + "".join(c if c.isalnum() else "_" for c in text))
        pytest.fail(f"the page never showed {text!r}; it showed:\n"
                    + page.inner_text("body")[:3000])
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not errors, errors


# the app's charts (dashboard/chart_in_place.py) once drawn
CHARTS = '.chart-in-place.js-plotly-plot'
VISIBLE_CHARTS = """() => Array.from(document.querySelectorAll('""" + CHARTS + """'))
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .length"""


def wait_for_charts(page, count: int, timeout: int = 30_000) -> None:
    """Wait until the page shows ``count`` Plotly charts (those of closed tabs not counted): a
    page's last rerun (a permalink's settings arriving, a fragment) can replace its elements just
    after the run reports done."""
    try:
        page.wait_for_function(f"(n) => ({VISIBLE_CHARTS})() === n", arg=count, timeout=timeout)
    except PlaywrightTimeout:
        shoot(page, f"failed_charts_{count}")
        pytest.fail(f"the page never showed {count} charts; it showed "
                    f"{page.evaluate(VISIBLE_CHARTS)}")


def shoot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def choose_sample(page, title):
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name=title).click()
    wait_for_app(page)


def upload(page, run_path, qrels_path=None):
    """Choose the run (or a list of runs), then the qrels right away (no wait for the first
    upload, as a quick person or a script would), wait until all have arrived, and press the
    form's button. Without ``qrels_path`` the qrels chosen before stays, and the run chosen
    before is removed first (the run uploader takes several files: a new one is added to the
    old)."""
    runs = run_path if isinstance(run_path, list) else [run_path]
    if page.locator('[data-testid="stFileUploaderDropzoneInput"]').count() == 0:
        page.get_by_text("Upload your own runs and ground truth").click()
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).wait_for(state="attached", timeout=30_000)
    if qrels_path is None:
        old_runs = page.locator('[data-testid="stFileUploader"]').first.locator(
            '[data-testid="stFileChipDeleteBtn"]')
        while old_runs.count():
            old_runs.first.click()
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === 1")
    inputs.nth(0).set_input_files([str(run) for run in runs])
    if qrels_path is not None:
        inputs.nth(1).set_input_files(str(qrels_path))
    # On a busy machine an upload can take longer than any fixed pause (the button is disabled
    # until then, but a click on a disabled button would wait for nothing)
    try:
        page.wait_for_function(
            "(n) => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === n && "
            "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')",
            arg=len(runs) + 1, timeout=120_000)
    except PlaywrightTimeout:
        shoot(page, "failed_upload_" + "".join(c if c.isalnum() else "_" for c in runs[0].stem))
        pytest.fail("the uploads never all arrived; the page showed:\n"
                    + page.inner_text("body")[:3000])
    page.get_by_role("button", name="Evaluate these files").click()
    wait_for_app(page)


def test_two_files_chosen_in_quick_succession_are_both_evaluated(app_url, browser, tmp_path):
    # Before the uploaders sat in a form, a file chosen while the other uploader's upload
    # reran the page was sometimes lost (about one pair in twenty): five fresh pages here.
    for attempt in range(5):
        run = tmp_path / f"quick{attempt}.run"
        run.write_text("".join(f"q{q} Q0 d{d} {d} {20 - d} quick{attempt}\n" for q in (1, 2)
                               for d in range(1, 11)))
        qrels = tmp_path / f"quick{attempt}.qrels"
        qrels.write_text("q1 0 d2 1\nq2 0 d9 1\n")
        page, errors = open_page(browser, app_url)
        upload(page, run, qrels)
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0, (
            f"attempt {attempt}: " + page.inner_text('[data-testid="stMain"]')[:2000])
        assert_healthy(page, errors, "Uploaded files")
        page.wait_for_function("(t) => document.body.innerText.includes(t)",
                               arg=f"quick{attempt}", timeout=60_000)
        page.close()


def go(page, title):
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    wait_for_app(page)


def every_page(page, errors):
    """Each page in the navigation's order, the first as it is open and the others reached
    through the navigation, each checked healthy: yields (url path, title)."""
    for path, title, text in PAGES:
        if path:
            go(page, title)
        assert_healthy(page, errors, text)
        yield path, title


def test_upload_trec_files(app_url, browser, tmp_path):
    run = tmp_path / "mysystem.run"
    run.write_text("".join(f"q{q} Q0 d{d} {d} {20 - d} me\n" for q in (1, 2) for d in range(1, 11)))
    qrels = tmp_path / "my.qrels"
    qrels.write_text("q1 0 d2 1\nq1 0 d5 2\nq1 0 d3 0\nq2 0 d9 1\n")
    page, errors = open_page(browser, app_url)
    upload(page, run, qrels)
    assert_healthy(page, errors, "Uploaded files")
    page.wait_for_function("() => document.body.innerText.includes('mysystem')", timeout=60_000)
    shoot(page, "upload_data")
    for path, title, text in PAGES[1:]:
        go(page, title)
        assert_healthy(page, errors, text)
        shoot(page, f"upload_{path}")
    page.close()


HOSTILE = ["<img/src=x/onerror=window.__xss=1>", "<script>window.__xss=2</script>",
           "[click](javascript:window.__xss=3)"]


def test_ids_with_html_and_script_are_shown_as_text(app_url, browser, tmp_path):
    run = tmp_path / "hostile.run"
    run.write_text("".join(f"{q} Q0 {q}-d{d} {d} {10 - d} x\n" for q in HOSTILE
                           for d in range(1, 6)))
    qrels = tmp_path / "hostile.qrels"
    qrels.write_text("".join(f"{q} 0 {q}-d2 1\n" for q in HOSTILE) + f"{HOSTILE[0]} 0 zz 1\n"
                     + "\n".join(f"{q} 0 {q}-d1 0" for q in HOSTILE) + "\n")
    page, errors = open_page(browser, app_url)
    dialogs = []
    page.on("dialog", lambda d: (dialogs.append(d.message), d.dismiss()))
    upload(page, run, qrels)
    assert_healthy(page, errors, "Uploaded files")
    for _, title in every_page(page, errors):
        assert page.evaluate("() => window.__xss") is None, title
        assert page.locator("img[src='x']").count() == 0
    go(page, "Query explorer")
    page.locator('[data-testid="stSelectbox"]').filter(has_text="Query").first.click()
    options = page.get_by_role("option").all_inner_texts()
    assert any(HOSTILE[0] in o for o in options) and any(HOSTILE[1] in o for o in options)
    page.keyboard.press("Escape")
    shoot(page, "hostile_ids")
    assert not dialogs and page.evaluate("() => window.__xss") is None
    page.close()


OWN_HOSTS = {"127.0.0.1", "localhost"}


def record_requests(page) -> list[str]:
    """Every address the page asks for from now on (requests and websockets); data: URLs load
    nothing, and a blob: URL is the page's own memory."""
    asked = []
    page.on("request", lambda request: asked.append(request.url))
    page.on("websocket", lambda socket: asked.append(socket.url))
    return asked


def elsewhere(asked: list[str]) -> list[str]:
    """The addresses on a host other than the app's own server."""
    return [url for url in asked if urlparse(url).scheme not in ("data", "blob")
            and urlparse(url).hostname not in OWN_HOSTS]


# a file's name and a query id that are Markdown: an image (a request to img.example) and links
MARKDOWN_NAMES = ["![i](https:img.example) x", "[md](https:link.example) y"]
MARKDOWN_QUERY = "[q](https:q.example)"
MADE_FROM_TEXT = """() => [...document.querySelectorAll('img, a')]
    .map(e => e.getAttribute('src') || e.getAttribute('href') || '')
    .filter(address => address.includes('example'))"""


def test_user_text_is_never_a_link_or_an_image(app_url, browser, tmp_path):
    runs = []
    for name in MARKDOWN_NAMES:
        runs.append(tmp_path / f"{name}.run")
        runs[-1].write_text("".join(f"{q} Q0 d{d} {d} {10 - d} x\n"
                                    for q in (MARKDOWN_QUERY, "q2") for d in range(1, 6)))
    qrels = tmp_path / "md.qrels"
    qrels.write_text(f"{MARKDOWN_QUERY} 0 d2 1\nq2 0 d4 1\n")
    # both runs carry the tag "x": the systems are named after their files without the
    # extension (metrics.loaders.runs.system_names), so the names are the Markdown as written
    systems = list(MARKDOWN_NAMES)
    page, errors = open_page(browser, app_url)
    asked = record_requests(page)
    upload(page, runs, qrels)
    assert_healthy(page, errors, "Uploaded files")
    for path, title in every_page(page, errors):
        if path == "compare":   # the button that opens the query names the system
            assert_healthy(page, errors, f"of {systems[0]} in the Query explorer")
        shown = page.inner_text('[data-testid="stApp"]')
        if path in ("", "compare"):   # the names as written, not as Markdown
            assert systems[0] in shown and systems[1] in shown, (title, shown)
        if path in ("explorer", "compare"):   # the options of a box: ids and names as text
            box = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').first
            box.click()
            options = page.get_by_role("option").all_inner_texts()
            assert any(MARKDOWN_QUERY in o or systems[0] in o for o in options), options
            made = page.evaluate(MADE_FROM_TEXT)   # while the list is open
            page.keyboard.press("Escape")
            assert not made, (title, made)
        made = page.evaluate(MADE_FROM_TEXT)
        assert not made, (title, made)            # no image, no link from a user's text
    shoot(page, "markdown_names")
    assert not elsewhere(asked), elsewhere(asked)
    page.close()


def test_two_sessions_never_see_each_others_uploads(app_url, browser, tmp_path):
    pages = []
    for name in ("alpha", "beta"):
        run = tmp_path / f"{name}.run"
        run.write_text("".join(f"{name}q Q0 d{d} {d} {10 - d} x\n" for d in range(1, 6)))
        qrels = tmp_path / f"{name}.qrels"
        qrels.write_text(f"{name}q 0 d{'2' if name == 'alpha' else '4'} 1\n")
        context = browser.new_context(viewport={"width": 1400, "height": 1100})
        page = context.new_page()
        page.goto(app_url)
        wait_for_app(page)
        upload(page, run, qrels)
        pages.append((name, page, context))
    for name, page, context in pages:
        go(page, "Data")
        other = "beta" if name == "alpha" else "alpha"
        page.wait_for_function("(t) => document.body.innerText.includes(t)", arg=name,
                               timeout=60_000)
        text = page.inner_text('[data-testid="stMain"]')
        assert name in text and other not in text
        go(page, "Query explorer")
        shown = page.inner_text('[data-testid="stMain"]') + page.evaluate(
            "() => Array.from(document.querySelectorAll('input')).map(i => i.value).join(' ')")
        assert f"{name}q" in shown and f"{other}q" not in shown
        context.close()


def test_sidebar_state_survives_page_switches(app_url, browser):
    page, errors = open_page(browser, app_url)
    box = page.locator('[data-testid="stSidebar"] [data-testid="stTextInput"] input')
    box.fill("AP,RR,P@5")
    box.press("Enter")
    wait_for_app(page)
    choose_sample(page, "Serrà's six answer sets (2007)")
    for _, title, text in PAGES[1:] + PAGES[:1]:
        go(page, title)
        assert_healthy(page, errors, text)
        if title in ("Curves", "Answer sets"):   # pages that do not use the measures hide them
            assert box.count() == 0, title
        else:                                    # and the setting survives those pages
            assert box.input_value() == "AP,RR,P@5", title
    # the means table (drawn on a canvas: its header is not text) of the measures listed
    assert page.locator('[data-testid="stDataFrame"]').count() >= 1
    assert "AP · RR · P@5" in page.inner_text('[data-testid="stSidebar"]')
    page.close()


def test_upload_past_the_size_limit_says_so(browser, tmp_path):
    server, url = start_app("--server.maxUploadSize", "1")   # 1 MB instead of the 200 configured
    try:
        big = tmp_path / "big.run"
        big.write_bytes(b"q1 Q0 d1 1 0.5 s\n" * 150_000)   # 2.6 MB
        page, errors = open_page(browser, url)
        page.get_by_text("Upload your own runs and ground truth").click()
        page.locator('[data-testid="stFileUploaderDropzoneInput"]').nth(0).set_input_files(
            str(big))
        page.wait_for_function("() => document.body.innerText.includes('1.0MB or smaller')",
                               timeout=30_000)
        shoot(page, "upload_too_large")
        assert page.locator('[data-testid="stException"]').count() == 0 and not errors
        page.close()
    finally:
        server.terminate()
        server.wait(timeout=20)


# --- layout and legibility: every page, two sizes, two themes ---------------------------------

SIZES = {"wide": (1400, 1000), "projector": (1024, 768)}
# every size with both themes (every sample on every page is AppTest's job, tests/test_app_frame.py);
# instruments (100-item lists, two systems) and fmp have highlighted rows; text2music's lists
# are longer than 200 and shown with a tick column instead
LAYOUTS = [("wide", "light", "instruments"), ("wide", "dark", "fmp"),
           ("projector", "light", "text2music"), ("projector", "dark", "instruments")]
SAMPLE_KEYS = ["fmp", "serra", "covers", "instruments", "text2music"]   # as SAMPLE_TITLES
MIN_CHART_WIDTH = 280
TWO_SYSTEMS = {"covers", "instruments", "text2music"}
SHORT_LISTS = {"fmp", "instruments"}   # ranked lists drawn with highlighted rows


def expected_charts(path: str, sample: str) -> int:
    """Plotly charts a page shows (Curves: the open tab's one; Compare: none for one system)."""
    return {"": 0, "explorer": 1,   # one figure: rank strip, PR curve, confusion matrix
            "curves": 1, "answer_sets": 2, "compare": 3 if sample in TWO_SYSTEMS else 0,
            "leaderboard": 2 if sample in TWO_SYSTEMS else 0,   # the matrix, the heatmap
            "groups": 1,                # the groups' means with their intervals
            "conventions": 0}[path]


def expected_highlight(path: str, sample: str) -> str | None:
    if path == "answer_sets":
        return "differs"            # its own data: cells that differ from the paper
    if path == "explorer" and sample in SHORT_LISTS or \
            path == "compare" and sample in SHORT_LISTS & TWO_SYSTEMS:
        return "relevant"
    return None


def rgb(colour: str) -> tuple[int, int, int]:
    """'#rrggbb' or 'rgb(r, g, b)' as numbers."""
    if colour.startswith("#"):
        return tuple(int(colour[i:i + 2], 16) for i in (1, 3, 5))
    return tuple(int(c) for c in colour[colour.index("(") + 1:-1].split(",")[:3])


def _luminance(channels) -> float:
    from oracles import luminance

    return luminance("#%02x%02x%02x" % tuple(int(v) for v in channels))


def highlighted_contrast(png: bytes, background: str) -> tuple[float | None, int]:
    """(lowest contrast between a highlighted band's background and its text, number of bands)
    in a screenshot of a dataframe. Streamlit draws tables on a canvas: the text colour is read
    from the pixels. Rows of pixels mostly in the highlight colour form a band; inside it, pixel
    columns mostly in that colour are cells (grid lines are not); the strongest contrast of any
    pixel there with the background is the text's (anti-aliasing only lowers it)."""
    import io

    import numpy as np
    from PIL import Image

    from oracles import contrast_ratio

    image = np.asarray(Image.open(io.BytesIO(png)).convert("RGB")).astype(int)
    colour = np.array(rgb(background))
    is_bg = np.abs(image - colour).sum(axis=2) <= 6
    rows = np.flatnonzero(is_bg.mean(axis=1) > 0.15)
    if not len(rows):
        return None, 0
    lowest, count = None, 0
    for band in np.split(rows, np.flatnonzero(np.diff(rows) > 1) + 1):
        if len(band) < 24:      # a row is about 35 px; a sliver cut off by the scroll has no text
            continue
        inside = is_bg[band[1]:band[-1]]
        cells = inside.mean(axis=0) > 0.3
        text = image[band[1]:band[-1]][:, cells][~inside[:, cells]]
        if not len(text):
            continue
        best = max(contrast_ratio("#%02x%02x%02x" % tuple(p), background)
                   for p in np.unique(text, axis=0))
        lowest = best if lowest is None else min(lowest, best)
        count += 1
    return lowest, count


def full_shot(page, name):
    """A screenshot of the whole page: Streamlit scrolls inside its main block, so the window is
    made as tall as the content for the picture, then put back."""
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    size = page.viewport_size
    tall = page.evaluate("() => document.querySelector('[data-testid=\"stMain\"]').scrollHeight")
    page.set_viewport_size({"width": size["width"], "height": max(size["height"], tall)})
    page.wait_for_timeout(400)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"))
    page.set_viewport_size(size)


CHECK_LAYOUT = """() => {
  const visible = e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; };
  const charts = Array.from(document.querySelectorAll('""" + CHARTS + """'))
    .filter(visible).map(e => Math.round(e.getBoundingClientRect().width));
  const formulas = Array.from(document.querySelectorAll('.katex-html')).filter(visible).map(k => {
    const box = k.closest('[data-testid="stElementContainer"]').getBoundingClientRect();
    const r = k.getBoundingClientRect();
    return {left: r.left - box.left, right: box.right - r.right, text: k.innerText.slice(0, 40)};
  });
  const app = getComputedStyle(document.querySelector('[data-testid="stApp"]')).backgroundColor;
  // a chart's legend entries and its axes' titles must not cover one another (Plotly places a
  // legend below the plot without regard to the x axis's title)
  const meets = (a, b) => a.left < b.right - 1 && b.left < a.right - 1
                          && a.top < b.bottom - 1 && b.top < a.bottom - 1;
  const overlaps = [];
  for (const chart of document.querySelectorAll('.js-plotly-plot')) {
    if (!visible(chart)) continue;
    const titles = Array.from(chart.querySelectorAll('text[class*="xtitle"], '
                                                     + 'text[class*="ytitle"]')).filter(visible);
    for (const entry of chart.querySelectorAll('.legend .traces')) {
      const box = entry.getBoundingClientRect();
      for (const t of titles)
        if (meets(box, t.getBoundingClientRect()))
          overlaps.push(entry.textContent + ' covers ' + t.textContent);
    }
  }
  return {charts, formulas, app, overlaps};
}"""


@pytest.mark.parametrize("size,scheme,sample", LAYOUTS)
def test_every_page_fits_and_is_legible(app_url, browser, size, scheme, sample):
    from charts.colours import DIFFERS_BACKGROUND, RELEVANT_BACKGROUND

    page, errors = open_page(browser, app_url, *SIZES[size], scheme)
    choose_sample(page, SAMPLE_TITLES[SAMPLE_KEYS.index(sample)])
    for path, title, text in PAGES:
        if path:
            go(page, title)
        assert_healthy(page, errors, text)
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0, title
        wait_for_charts(page, expected_charts(path, sample))
        found = page.evaluate(CHECK_LAYOUT)
        shade = _luminance(rgb(found["app"]))
        assert (shade < 0.1) if scheme == "dark" else (shade > 0.8), (title, found["app"])
        assert len(found["charts"]) == expected_charts(path, sample), (title, found["charts"])
        assert all(w >= MIN_CHART_WIDTH for w in found["charts"]), (title, found["charts"])
        for formula in found["formulas"]:
            assert formula["left"] >= -1 and formula["right"] >= -1, (title, formula)
        assert not found["overlaps"], (title, size, found["overlaps"])
        highlight = expected_highlight(path, sample)
        if highlight:
            background = RELEVANT_BACKGROUND if highlight == "relevant" else DIFFERS_BACKGROUND
            bands, lowest = 0, None
            for grid in page.locator('[data-testid="stDataFrame"]').all():
                if not grid.is_visible():    # in a closed expander
                    continue
                contrast, count = highlighted_contrast(grid.screenshot(), background)
                if count:
                    bands += count
                    lowest = contrast if lowest is None else min(lowest, contrast)
            assert bands >= 2, title                      # the highlights were found …
            assert lowest >= 4.5, (title, scheme, lowest)  # … and their text is legible
        full_shot(page, f"{path or 'data'}_{size}_{scheme}_{sample}")
        if path == "explorer":     # the worked formulas are a view of their own
            page.get_by_role("radio", name="Worked measures at K").click()
            wait_for_app(page)
            assert_healthy(page, errors, "At cutoff K = ")
            formulas = page.evaluate(CHECK_LAYOUT)["formulas"]
            assert len(formulas) >= 5, formulas
            for formula in formulas:
                assert formula["left"] >= -1 and formula["right"] >= -1, (title, formula)
            full_shot(page, f"explorer_worked_{size}_{scheme}_{sample}")
            page.get_by_role("radio", name="Ranked list").click()   # as the next sample expects
            wait_for_app(page)
    page.close()


# --- a deep link as the first request of a fresh server, and on a warm one ---------------------

# (path typed, navigation title, text shown, the page's address): the Data page, the default, is
# served at "/", and its own path "/data" opens it too (issue 40, defect 3)
DEEP_LINKS = [("data", "Data", "Validation summary", "")] + \
    [(path, title, text, path) for path, title, text in PAGES[1:]]


@pytest.fixture(scope="module")
def fresh_servers():
    """One server per deep link, started together; each gets exactly one request, its link."""
    launched = {path: launch_app() for path, _, _, _ in DEEP_LINKS}
    try:
        yield {path: await_app(*started)[1] for path, started in launched.items()}
    finally:
        for server, _, _ in launched.values():
            stop_app(server)


def assert_deep_link_opened(page, url, title, address):
    """The app's navigation (not the pages/ folder's: "app", "answer sets", "explorer" …) with
    the page current, no "Page not found" notice, and the page's own address."""
    nav = [line.strip() for line in page.inner_text('[data-testid="stSidebarNav"]')
           .splitlines() if line.strip()]
    assert [line for line in nav if line in {t for _, t, _ in PAGES}] == \
        [t for _, t, _ in PAGES], nav
    assert not {"app", "answer sets", "explorer", "data"} & set(nav), nav
    current = page.locator('[data-testid="stSidebarNav"] a[aria-current="page"]')
    assert current.count() == 1 and title in current.inner_text(), current.all_inner_texts()
    assert page.get_by_text("Page not found").count() == 0
    assert page.url.split("?")[0] == f"{url}/{address}"


def watched_page(browser, url):
    """A page at ``url``, its run finished, with its errors and every address it asked for."""
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
    asked = record_requests(page)
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(url)
    wait_for_app(page)
    return page, errors, asked


def assert_nothing_asked_elsewhere(page, asked):
    """The favicon, fonts, icons, scripts and usage statistics all came from the app's own
    server."""
    page.wait_for_timeout(1500)   # a favicon or a font is asked for after the run
    assert asked and not elsewhere(asked), elsewhere(asked)


@pytest.mark.parametrize("path,title,text,address", DEEP_LINKS)
def test_deep_link_as_a_fresh_servers_first_request(browser, fresh_servers, path, title, text,
                                                    address):
    url = fresh_servers[path]     # nothing has run on this server yet
    page, errors, asked = watched_page(browser, f"{url}/{path}?dataset=instruments&k=3")
    assert_healthy(page, errors, text)
    assert_deep_link_opened(page, url, title, address)
    if path == "explorer":   # the link's settings arrived through the fallback's rerun
        assert "Unjudged in the top K = 3:" in page.inner_text('[data-testid="stMain"]')
    wait_for_app(page)       # the frontend may rerun once more for the new navigation
    assert_healthy(page, errors, text)
    assert_deep_link_opened(page, url, title, address)
    if "dataset" in PAGE_PARAMS[path]:   # the link's dataset, kept in the address
        assert "dataset=instruments" in page.url, page.url
    shoot(page, f"deep_link_{path}")
    assert_nothing_asked_elsewhere(page, asked)   # on the pages/ fallback's run as on the frame's
    page.close()


def test_every_deep_link_on_a_warm_server(app_url, browser):
    """The same links once the server has run the app (st.navigation declared): each in a new
    session, each page current in the navigation, no "Page not found"; and every page reached
    through the navigation asks nothing of another host."""
    warm, errors, asked = watched_page(browser, f"{app_url}/?dataset=instruments")
    for _ in every_page(warm, errors):   # the app has run on this server
        pass
    assert_nothing_asked_elsewhere(warm, asked)
    warm.close()
    for path, title, text, address in DEEP_LINKS:
        page, errors = open_page(browser, f"{app_url}/{path}?dataset=instruments")
        assert_healthy(page, errors, text)
        assert_deep_link_opened(page, app_url, title, address)
        page.close()


# --- permalinks ---------------------------------------------------------------------------------

def query_box(page):
    return page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has_text="Query").first.locator("input")


PANEL_TITLES = """() => Array.from(document.querySelectorAll('.chart-in-place .annotation-text'))
  .map(t => t.textContent)"""


def test_a_permalink_restores_dataset_query_and_k_in_a_new_context(app_url, browser):
    first = browser.new_context(viewport={"width": 1400, "height": 1000})
    page = first.new_page()
    page.goto(f"{app_url}/explorer?dataset=covers")
    wait_for_app(page)
    entries = page.evaluate("() => history.length")
    k = page.get_by_label("Cutoff K", exact=True)
    k.fill("37")
    k.press("Enter")
    wait_for_app(page)
    query_box(page).click()
    chosen = page.get_by_role("option").nth(4).inner_text().split()[0]
    page.get_by_role("option").nth(4).click()
    wait_for_app(page)
    page.wait_for_function("(q) => location.search.includes('query=' + q)", arg=chosen,
                           timeout=30_000)
    link = page.url
    assert "dataset=covers" in link and "k=37" in link
    # the address bar follows in place: a change of K or query adds no entry to Back's history
    assert page.evaluate("() => history.length") == entries
    page.reload()                                   # a reload is a new session: same view
    wait_for_app(page)
    assert query_box(page).input_value().startswith(chosen + " ")
    first.close()

    second = browser.new_context(viewport={"width": 1024, "height": 768})
    page = second.new_page()
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(link)
    wait_for_app(page)
    assert_healthy(page, errors, "Unjudged in the top K = 37:")
    assert query_box(page).input_value().startswith(chosen + " ")
    assert page.get_by_label("Cutoff K", exact=True).input_value() == "37"
    dataset = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first
    assert dataset.locator("input").input_value() == SAMPLE_TITLES[2]
    # and its figure, drawn for that query and K once this new context has loaded plotly.js
    page.wait_for_function(
        f"""() => {{ const t = ({PANEL_TITLES})();
          return t.includes('PR curve of ' + {chosen!r})
            && t.includes('Confusion matrix at K = 37'); }}""",
        timeout=60_000)
    shoot(page, "permalink_new_context")
    second.close()


def test_the_query_figure_is_redrawn_in_place(app_url, browser):
    """A query switch and a change of K redraw the explorer's figure on the same element, once
    each (st.plotly_chart mounted a new chart per figure and drew it twice)."""
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=instruments&k=5")
    wait_for_charts(page, 1)
    page.evaluate("""() => { const chart = document.querySelector('.chart-in-place');
      chart.dataset.first = 'yes'; window.__draws = 0;
      chart.on('plotly_afterplot', () => { window.__draws += 1; }); }""")
    query_box(page).click()
    chosen = page.get_by_role("option").nth(3).inner_text().split()[0]
    page.get_by_role("option").nth(3).click()
    page.wait_for_function(f"() => ({PANEL_TITLES})().includes('PR curve of ' + {chosen!r})",
                           timeout=30_000)
    k = page.get_by_label("Cutoff K", exact=True)
    k.fill("7")
    k.press("Enter")
    page.wait_for_function(f"() => ({PANEL_TITLES})().includes('Confusion matrix at K = 7')",
                           timeout=30_000)
    wait_for_app(page)
    page.wait_for_timeout(500)
    charts = page.evaluate("""() => Array.from(document.querySelectorAll('.chart-in-place'),
                                               c => c.dataset.first || 'new')""")
    assert charts == ["yes"]                    # the same element, never remounted …
    assert page.evaluate("() => window.__draws") == 2   # … drawn once per change
    # contained (its redraws leave the page's layout and paint alone), and so clipped to its
    # box: a hover label on the PR curve's first point must be drawn inside that box
    contain = page.evaluate(
        "() => getComputedStyle(document.querySelector('.chart-in-place')).contain")
    assert contain == "content" or "paint" in contain, contain   # content: layout paint style
    label, chart = page.evaluate("""() => { const c = document.querySelector('.chart-in-place');
      const pr = c.data.findIndex(t => t.xaxis === 'x2');
      Plotly.Fx.hover(c, [{curveNumber: pr, pointNumber: 0}], 'x2y2');
      const box = e => { const r = e.getBoundingClientRect();
                         return [r.left, r.top, r.right, r.bottom]; };
      const hover = c.querySelector('.hoverlayer .hovertext');
      return [hover && box(hover), box(c)]; }""")
    assert label is not None
    assert (label[0] >= chart[0] and label[1] >= chart[1] and label[2] <= chart[2]
            and label[3] <= chart[3]), (label, chart)
    # a narrower column (here the window's) redraws it at the column's width
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_function("""() => { const c = document.querySelector('.chart-in-place');
      const width = c.getBoundingClientRect().width;
      return width < 900 && Math.abs(c._fullLayout.width - width) < 1
             && c.querySelector('.main-svg').getBoundingClientRect().width <= width + 1; }""",
                           timeout=30_000)
    # the browser turning dark redraws it on the dark theme's background
    light = page.evaluate("() => document.querySelector('.chart-in-place')._fullLayout"
                          ".paper_bgcolor")
    page.emulate_media(color_scheme="dark")
    page.wait_for_function("""(light) => { const c = document.querySelector('.chart-in-place');
      return c._fullLayout.paper_bgcolor !== light; }""", arg=light, timeout=30_000)
    dark = page.evaluate("() => getComputedStyle(document.querySelector('[data-testid=\"stApp\"]'))"
                         ".backgroundColor")
    drawn = page.evaluate("() => document.querySelector('.chart-in-place')._fullLayout"
                          ".paper_bgcolor")
    assert rgb(drawn) == rgb(dark), (drawn, dark)
    assert not errors
    page.close()


def test_query_label_follows_the_system(app_url, browser):
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=instruments")
    before = query_box(page).input_value()
    page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has_text="System").click()
    page.get_by_role("option", name="system_b").click()
    wait_for_app(page)
    shown = query_box(page).input_value()
    query_box(page).click()
    options = [" ".join(o.split()) for o in page.get_by_role("option").all_inner_texts()]
    page.keyboard.press("Escape")
    assert shown.split()[0] == before.split()[0]            # same query …
    assert " ".join(shown.split()) in options, (shown, options)   # … with system_b's value
    assert not errors
    page.close()


# --- teaching mode, why a query fails, clicks that open a query ---------------------------------

def band_contrast(page, background):
    """(lowest text contrast, bands) of cells highlighted in ``background`` in the visible
    dataframes."""
    bands, lowest = 0, None
    for grid in page.locator('[data-testid="stDataFrame"]').all():
        if not grid.is_visible():
            continue
        contrast, count = highlighted_contrast(grid.screenshot(), background)
        if count:
            bands += count
            lowest = contrast if lowest is None else min(lowest, contrast)
    return lowest, bands


# the projector in light: the lecture journey (tests/test_journey_lecture.py)
@pytest.mark.parametrize("size,scheme", [("projector", "dark"), ("wide", "dark")])
def test_teaching_mode_plays_through_the_ranking(app_url, browser, size, scheme):
    from charts.colours import CURRENT_BACKGROUND

    page, errors = open_page(browser, f"{app_url}/explorer?dataset=instruments&k=5",
                             *SIZES[size], scheme)
    page.get_by_text("Teaching mode: step through the ranking rank by rank").click()
    wait_for_app(page)
    rank = page.get_by_label("Rank r", exact=True)
    assert rank.input_value() == "1"
    rank.fill("3")
    rank.press("Enter")
    wait_for_app(page)
    main = page.inner_text('[data-testid="stMain"]')
    assert "P(r), r = 3" in main and "Confusion matrix at r = 3" in main
    found = page.evaluate(CHECK_LAYOUT)
    assert len(found["charts"]) == 1 and all(w >= MIN_CHART_WIDTH for w in found["charts"])
    for formula in found["formulas"]:
        assert formula["left"] >= -1 and formula["right"] >= -1, formula
    # the K control stays in the main column, beside the teaching controls
    assert page.locator('[data-testid="stMain"]').get_by_label("Cutoff K", exact=True).count()
    lowest, bands = band_contrast(page, CURRENT_BACKGROUND)
    assert bands >= 1 and lowest >= 4.5, (scheme, lowest)   # row r: amber, legible
    full_shot(page, f"teaching_{size}_{scheme}")
    page.get_by_role("button", name="▶ Play").click()
    page.wait_for_function("() => { const box = document.querySelector("
                           "'input[aria-label=\"Rank r\"]'); return box && +box.value >= 5; }",
                           timeout=30_000)
    page.get_by_role("button", name="⏸ Pause").click()
    wait_for_app(page)
    stopped = int(rank.input_value())
    page.wait_for_timeout(2500)
    assert int(rank.input_value()) == stopped    # paused: r stays
    assert page.locator('[data-testid="stException"]').count() == 0 and not errors
    page.close()


def test_why_a_query_fails_and_the_query_text(app_url, browser):
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=instruments&k=10")
    assert_healthy(page, errors, "Why this query fails")
    assert "Unjudged in the top K = 10: 0 of 10 (0%)" in page.inner_text('[data-testid="stMain"]')
    page.get_by_role("radio", name="Relevant items not retrieved").click()
    assert_healthy(page, errors, "rank in system_b")
    # one figure: the rank strip (both systems), the PR curve and the confusion matrix (the
    # titles are checked by the AppTests (tests/test_app_explorer.py): a chart below the fold is drawn only when scrolled to)
    wait_for_charts(page, 1)
    shoot(page, "why_it_fails_instruments")
    page.goto(f"{app_url}/explorer?dataset=text2music&k=10&query=t001")
    wait_for_app(page)
    assert_healthy(page, errors, "dark rock with string ensemble for studying")
    page.close()


def test_a_click_on_the_scatter_or_a_bar_opens_that_query(app_url, browser):
    page, errors = open_page(browser, f"{app_url}/compare?dataset=instruments&measures=AP")
    assert_healthy(page, errors, "One query, both rankings")
    box = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has_text="Query (largest difference first)").first.locator("input")
    before = box.input_value()
    charts = page.locator('.chart-in-place')
    points = charts.nth(0).locator(".scatterlayer .trace:not(:first-child) .points path")
    # the chart's frame can be in the page before Plotly has drawn its points (a slow CI machine)
    points.first.wait_for(state="attached", timeout=30_000)
    assert points.count() > 0
    shown = []
    for i in range(points.count()):
        points.nth(i).click(force=True)
        wait_for_app(page)
        shown.append(box.input_value())
        if shown[-1] != before:
            break
    assert shown[-1] != before, shown                  # a point opened its query …
    heading = None
    for _ in range(50):   # the smooth scroll takes longer on a loaded machine: up to 10 s
        heading = page.locator("#both-rankings").bounding_box()
        if heading is not None and 0 <= heading["y"] < 400:
            break
        page.wait_for_timeout(200)
    assert heading is not None and 0 <= heading["y"] < 400   # … and the page scrolled to it
    bars = charts.nth(1).locator(".barlayer .trace .point path")
    target = bars.nth(0)
    target.click(force=True)
    wait_for_app(page)
    after_bar = box.input_value()
    assert after_bar != shown[-1]                       # the bar of the largest loss of B
    page.get_by_role("button", name=f"Open {after_bar} of system_a in the Query explorer").click()
    wait_for_app(page)
    assert page.url.split("?")[0].endswith("/explorer")
    assert query_box(page).input_value().startswith(after_bar + " ")
    assert not errors and page.locator('[data-testid="stException"]').count() == 0
    page.close()


# --- the leaderboard: many systems, and a click on the heatmap opens a query -----------------

def _leaderboard_cell(index: int) -> tuple[str, str]:
    """(query, system) of the heatmap's cell with customdata ``index`` on the versions sample,
    from the engine's per-query AP sorted hardest first by hand."""
    from metrics import evaluate
    from metrics.explain.samples import load_sample

    data = load_sample("versions")
    systems = list(data)
    values = np.array([evaluate(data[s], "AP").results["AP"].values for s in systems])
    queries = data[systems[0]].query_ids
    order = np.argsort(values.mean(axis=0), kind="stable")
    return str(queries[order[index // len(systems)]]), systems[index % len(systems)]


def test_leaderboard_deep_link_on_a_fresh_server_at_both_sizes_and_themes(browser):
    server, url = start_app()      # the link is this server's first request
    try:
        for size, scheme in (("wide", "light"), ("projector", "dark"), ("projector", "light"),
                             ("wide", "dark")):
            page, errors = open_page(browser, f"{url}/leaderboard?dataset=versions&measures="
                                              f"AP,P@10,nDCG@10", *SIZES[size], scheme)
            assert_healthy(page, errors, "Where every query stands")
            assert page.url.split("?")[0] == f"{url}/leaderboard"
            wait_for_charts(page, 2)
            found = page.evaluate(CHECK_LAYOUT)
            assert all(w >= MIN_CHART_WIDTH for w in found["charts"]), found["charts"]
            assert not found["overlaps"], found["overlaps"]
            shown = page.inner_text('[data-testid="stMain"]')
            assert "Holm's step-down correction of paired t-tests" in shown and "α = 0.05" in shown
            assert page.locator(".heatmaplayer").count() == 2    # both heatmaps drawn
            full_shot(page, f"leaderboard_{size}_{scheme}")
            page.close()
    finally:
        stop_app(server)


def test_a_click_on_the_leaderboard_heatmap_opens_that_query_and_system(app_url, browser):
    page, errors = open_page(browser, f"{app_url}/leaderboard?dataset=versions&measures=AP",
                             1024, 768)
    assert_healthy(page, errors, "Where every query stands")
    wait_for_charts(page, 2)
    cells = page.locator('.chart-in-place').nth(1).locator(
        ".scatterlayer .trace .points path")
    cells.first.wait_for(state="attached", timeout=30_000)
    assert cells.count() == 60 * 5
    index = 5 * 1 + 2                       # the second hardest query, the third system
    query, system = _leaderboard_cell(index)
    cells.nth(index).click(force=True)
    wait_for_app(page)
    page.wait_for_function("() => location.pathname.endsWith('/explorer')", timeout=30_000)
    wait_for_app(page)
    assert query_box(page).input_value().startswith(query + " ")
    system_box = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has_text="System").first.locator("input")
    assert system_box.input_value() == system
    assert not errors and page.locator('[data-testid="stException"]').count() == 0
    page.close()
