"""Listening in a real headless Chromium: the bundled cover-song sample's failing query plays its
own clip and its top hits', each ``<audio>`` element loads its clip (a positive duration) from
the app's own server, at both sizes and in both themes; a path out of the media folder is refused
(a message, no request); an http URL is handed to the browser, which plays it."""

import threading
import wave
from http.server import SimpleHTTPRequestHandler, ThreadingHTTPServer
from pathlib import Path

import numpy as np
import pytest

from test_browser import (ARTIFACTS, app_url, assert_healthy, browser, elsewhere,  # noqa: F401
                          launch_app, await_app, open_page, record_requests, shoot, stop_app,
                          wait_for_app)

pytestmark = pytest.mark.browser

SIZES = [(1400, 1000), (1024, 768)]
SCHEMES = ["light", "dark"]
PLAYERS = ["audio_query", "audio_ranked_0", "audio_ranked_1", "audio_ranked_2"]


def durations(page, keys, timeout: int = 30_000) -> dict[str, float]:
    """Each keyed player's ``<audio>`` duration once its metadata has loaded."""
    found = {}
    for key in keys:
        selector = f".st-key-{key} audio"
        page.wait_for_selector(selector, state="attached", timeout=timeout)
        page.wait_for_function(
            "(s) => { const a = document.querySelector(s); return a && a.readyState >= 1; }",
            arg=selector, timeout=timeout)            # HAVE_METADATA: loadedmetadata has fired
        found[key] = page.eval_on_selector(selector, "a => a.duration")
    return found


@pytest.fixture(scope="module")
def fresh_server():
    server, url = await_app(*launch_app())
    yield url
    stop_app(server)


def test_the_failing_cover_query_plays_itself_and_its_top_hits(browser, fresh_server):
    first = True
    for width, height in SIZES:
        for scheme in SCHEMES:
            page = browser.new_page(viewport={"width": width, "height": height},
                                    color_scheme=scheme)
            errors = []
            page.on("pageerror", lambda exc: errors.append(str(exc)))
            asked = record_requests(page)
            # the first request of a fresh server; the explorer opens on the worst query
            page.goto(f"{fresh_server}/explorer?dataset=covers")
            wait_for_app(page)
            assert_healthy(page, errors, "Listen to the query")
            main = page.inner_text('[data-testid="stMain"]')
            assert "rank 1 · " in main and "Listen" in main
            found = durations(page, PLAYERS)
            assert all(d > 0.5 for d in found.values()), found     # clips of about 2 s
            media = [u for u in asked if "/media/" in u]
            assert len(media) >= len(PLAYERS), media
            assert not elsewhere(asked), elsewhere(asked)
            name = f"audio_covers_{width}x{height}_{scheme}" + ("_first" if first else "")
            shoot(page, name)                                  # the query's player
            page.locator(".st-key-audio_ranked_2").scroll_into_view_if_needed()
            shoot(page, name + "_list")                         # the top hits' players
            first = False
            page.close()


def test_the_compare_page_plays_both_lists(browser, app_url):
    page, errors = open_page(browser, f"{app_url}/compare?dataset=covers", 1024, 768)
    assert_healthy(page, errors, "One query, both rankings")
    found = durations(page, ["audio_query", "audio_side_a_0", "audio_side_b_0"])
    assert all(d > 0.5 for d in found.values()), found
    page.locator(".st-key-audio_side_a_0").scroll_into_view_if_needed()
    shoot(page, "audio_compare_1024x768_light")
    page.close()


def test_an_instrument_excerpt_plays(browser, app_url):
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=instruments&query=congas",
                             1400, 1000, "dark")
    assert_healthy(page, errors, "Listen")
    found = durations(page, ["audio_ranked_0"])
    assert 1.0 < found["audio_ranked_0"] < 1.5, found     # the excerpts last 1.2 s
    page.close()


# --- uploaded data with an item table: a media folder, a refused path, an http URL -------------

def write_tone(path: Path, seconds: float = 1.0, rate: int = 8000) -> None:
    """A 440 Hz tone as 16-bit mono WAV."""
    t = np.arange(int(seconds * rate)) / rate
    with wave.open(str(path), "wb") as out:
        out.setnchannels(1)
        out.setsampwidth(2)
        out.setframerate(rate)
        out.writeframes((np.sin(2 * np.pi * 440 * t) * 12000).astype("<i2").tobytes())


@pytest.fixture
def clip_server(tmp_path):
    """An http server on 127.0.0.1 serving one clip, and the paths it was asked for."""
    served = tmp_path / "served"
    served.mkdir()
    write_tone(served / "tone.wav", 1.5)
    asked = []

    class Handler(SimpleHTTPRequestHandler):
        def __init__(self, *args, **kwargs):
            super().__init__(*args, directory=str(served), **kwargs)

        def log_message(self, *args):
            asked.append(self.path)

    server = ThreadingHTTPServer(("127.0.0.1", 0), Handler)
    thread = threading.Thread(target=server.serve_forever, daemon=True)
    thread.start()
    yield f"http://127.0.0.1:{server.server_address[1]}", asked
    server.shutdown()
    server.server_close()


def test_uploaded_items_play_from_the_media_folder_or_a_url_and_a_path_out_is_refused(
        browser, tmp_path, clip_server):
    base, served_asked = clip_server
    media = tmp_path / "media"
    (media / "clips").mkdir(parents=True)
    write_tone(media / "clips" / "d2.wav", 2.0)
    (tmp_path / "secret.wav").write_bytes((media / "clips" / "d2.wav").read_bytes())
    run, qrels, items = tmp_path / "a.run", tmp_path / "a.qrels", tmp_path / "items.csv"
    queries = tmp_path / "queries.csv"
    queries.write_text(f"query_id,text,genre,audio\nq1,a steady tone,rock,{base}/tone.wav\n")
    run.write_text("q1 Q0 d1 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\nq1 Q0 d3 3 1.0 sys\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d3 1\n")
    items.write_text("item_id,title,artist,genre,audio\n"
                     f"d1,Tone by URL,Test Server,rock,{base}/tone.wav\n"
                     "d2,Tone in the folder,Media Folder,jazz,clips/d2.wav\n"
                     "d3,Secret,Outside,rock,../secret.wav\n")
    server, url = await_app(*launch_app("--", "--media", str(media)))
    try:
        page, errors = open_page(browser, url, 1400, 1000)
        asked = record_requests(page)
        page.get_by_text("Upload your own runs and ground truth").click()
        inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
        inputs.nth(0).wait_for(state="attached", timeout=30_000)
        inputs.nth(0).set_input_files(str(run))
        inputs.nth(1).set_input_files(str(qrels))
        inputs.nth(2).set_input_files(str(items))      # the item table
        inputs.nth(3).set_input_files(str(queries))    # the query table
        page.wait_for_function(
            "() => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === 4 && "
            "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')",
            timeout=120_000)
        page.get_by_role("button", name="Evaluate these files").click()
        wait_for_app(page)
        page.get_by_role("link", name="Query explorer").click()
        wait_for_app(page)
        assert_healthy(page, errors, "Listen")
        for key in ("audio_query", "audio_ranked_0"):   # a URL's clip: played once asked for
            page.locator(f".st-key-{key}").get_by_role("button", name="Play from").click()
            wait_for_app(page)
        found = durations(page, ["audio_query", "audio_ranked_0", "audio_ranked_1"])
        assert found["audio_query"] == pytest.approx(1.5, abs=0.05)      # the query's own
        assert found["audio_ranked_0"] == pytest.approx(1.5, abs=0.05)   # from the URL
        assert found["audio_ranked_1"] == pytest.approx(2.0, abs=0.05)   # from the folder
        assert "/tone.wav" in served_asked
        main = page.inner_text('[data-testid="stMain"]')
        assert "Not played" in main and "'d3'" in main and "../secret.wav" in main
        assert page.locator(".st-key-audio_ranked_2 audio").count() == 0
        assert not [u for u in asked if "secret" in u], asked
        assert not elsewhere(asked), elsewhere(asked)     # the test server is on 127.0.0.1
        page.locator(".st-key-audio_ranked_2").scroll_into_view_if_needed()
        shoot(page, "audio_upload_refused_1400x1000_light")
        page.close()
    finally:
        stop_app(server)
