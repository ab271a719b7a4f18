"""The app in a real headless Chromium, started the way the README says."""

import os
import socket
import subprocess
import sys
import time
from pathlib import Path
from urllib.request import urlopen

import pytest

ROOT = Path(__file__).resolve().parents[1]
ARTIFACTS = ROOT / "tests" / "artifacts"
CHROMIUM = "/usr/bin/chromium"
PAGES = [("", "Overview", "Mean over queries")]  # url path, title, text the page shows

pytestmark = pytest.mark.browser


def free_port() -> int:
    with socket.socket() as s:
        s.bind(("127.0.0.1", 0))
        return s.getsockname()[1]


@pytest.fixture(scope="module")
def app_url():
    if not os.path.exists(CHROMIUM) and not os.environ.get("CI"):
        pytest.skip("Debian chromium is not installed (.ci/run installs it)")
    port = free_port()
    server = subprocess.Popen(
        [sys.executable, "-m", "streamlit", "run", "app.py", "--server.port", str(port),
         "--server.headless", "true", "--server.address", "127.0.0.1"],
        cwd=ROOT, stdout=subprocess.PIPE, stderr=subprocess.STDOUT)
    url = f"http://127.0.0.1:{port}"
    deadline = time.time() + 60
    while time.time() < deadline:
        try:
            if urlopen(f"{url}/_stcore/health", timeout=2).read() == b"ok":
                break
        except OSError:
            time.sleep(0.5)
    else:
        server.kill()
        pytest.fail("streamlit did not start: " + server.stdout.read().decode()[-2000:])
    yield url
    server.terminate()
    server.wait(timeout=20)


@pytest.fixture(scope="module")
def browser():
    from playwright.sync_api import sync_playwright

    with sync_playwright() as p:
        chromium = p.chromium.launch(
            executable_path=CHROMIUM,
            args=["--headless", "--no-sandbox", "--disable-gpu", "--disable-background-networking"])
        yield chromium
        chromium.close()


def wait_for_app(page):
    page.wait_for_selector('[data-testid="stApp"]', timeout=60_000)
    # Streamlit shows a running indicator while the script runs
    page.wait_for_function(
        "() => !document.querySelector('[data-testid=\"stStatusWidget\"]')", timeout=60_000)
    page.wait_for_timeout(500)


@pytest.mark.parametrize("path,title,text", PAGES)
def test_every_page_opens_without_exception(app_url, browser, path, title, text):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{app_url}/{path}")
    wait_for_app(page)
    page.wait_for_selector('[data-testid="stDataFrame"]', timeout=60_000)
    ARTIFACTS.mkdir(parents=True, exist_ok=True)
    page.screenshot(path=str(ARTIFACTS / f"{title.lower().replace(' ', '_')}.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0
    assert text in page.inner_text('[data-testid="stMain"]')
    assert not errors, errors
    page.close()


def test_switching_sample_keeps_working(app_url, browser):
    page = browser.new_page(viewport={"width": 1400, "height": 1000})
    page.goto(app_url)
    wait_for_app(page)
    page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first.click()
    page.get_by_role("option", name="Cover songs: all-vs-all similarity").click()
    wait_for_app(page)
    page.wait_for_selector('[data-testid="stDataFrame"]', timeout=60_000)
    page.wait_for_timeout(1000)
    page.screenshot(path=str(ARTIFACTS / "overview_covers.png"), full_page=True)
    assert page.locator('[data-testid="stException"]').count() == 0
    page.wait_for_function("() => document.body.innerText.includes('in cliques')",
                           timeout=60_000)
    assert page.locator('[data-testid="stDataFrame"]').count() == 1
    page.close()
