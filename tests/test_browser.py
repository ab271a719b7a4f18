"""The app in a real headless Chromium, started the way the README says."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
PAGES = [("", "Data", "Validation summary"), ("explorer", "Query explorer", "At cutoff K"),
         ("curves", "Curves", "Precision"), ("answer_sets", "Answer sets", "Kendall"),
         ("compare", "Compare systems", "Compare systems")]  # url path, navigation title, text the page shows
SAMPLE_TITLES = ["FMP toy examples (Müller, C7S3)", "Serrà's six answer sets (2007)",
                 "Cover songs: all-vs-all similarity",
                 "Instrument retrieval with a two-level taxonomy",
                 "Text-to-music retrieval from embeddings"]

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


def start_app(*extra):
    port = free_port()
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    log = ARTIFACTS / f"streamlit_{port}.log"   # a file, not a pipe: a full pipe would stall it
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1", *extra],
        cwd=ROOT, stdout=log.open("wb"), stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                return server, url
        except OSError:
            time.sleep(0.5)
    server.kill()
    pytest.fail("streamlit did not start: " + log.read_text()[-2000:])


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


def wait_for_app(page):
    """Wait until the script run has finished and the figures have drawn."""
    page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
    page.wait_for_timeout(400)  # a click's rerun may not have started yet
    page.wait_for_selector('[data-testid="stApp"][data-test-script-state="notRunning"]',
                           timeout=90_000)
    page.wait_for_timeout(1200)


def open_page(browser, url):
    page = browser.new_page(viewport={"width": 1400, "height": 1100})
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


def shoot(page, name):
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{name}.png"), full_page=True)


def choose_sample(page, title):
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name=title).click()
    wait_for_app(page)


def upload(page, run_path, qrels_path):
    page.get_by_text("Upload your own runs and ground truth").click()
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(0).set_input_files(str(run_path))
    inputs.nth(1).set_input_files(str(qrels_path))
    # On a busy machine an upload can take longer than any fixed pause: clicking before both
    # files have reached the server evaluates without them.
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === 2 && "
        "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')", timeout=60_000)
    wait_for_app(page)
    page.get_by_role("button", name="Evaluate these files").click()
    wait_for_app(page)


def go(page, title):
    page.locator('[data-testid="stSidebarNav"]').get_by_text(title, exact=True).click()
    wait_for_app(page)


@pytest.mark.parametrize("path,title,text", PAGES)
def test_every_page_opens_without_exception(app_url, browser, path, title, text):
    page, errors = open_page(browser, f"{app_url}/{path}")
    assert_healthy(page, errors, text)
    shoot(page, title.lower().replace(" ", "_"))
    page.close()


@pytest.mark.parametrize("index", range(len(SAMPLE_TITLES)))
def test_every_page_on_every_sample(app_url, browser, index):
    page, errors = open_page(browser, app_url)
    choose_sample(page, SAMPLE_TITLES[index])
    for path, title, text in PAGES:
        go(page, title)
        assert_healthy(page, errors, text)
        assert page.locator('[data-testid="stAlertContentError"]').count() == 0, title
        shoot(page, f"sample{index}_{path or 'data'}")
    page.close()


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
    for path, title, text in PAGES:
        if path:
            go(page, title)
            assert_healthy(page, errors, text)
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
    for _, title, text in PAGES[1:3] + PAGES[:1]:
        go(page, title)
        assert_healthy(page, errors, text)
        assert box.input_value() == "AP,RR,P@5", title
    assert "P@5" in page.inner_text('[data-testid="stMain"]') or \
        page.locator('[data-testid="stDataFrame"]').count() >= 2
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
