"""Listening in a real headless Chromium: the bundled cover-song sample's failing query plays its
own clip and its top hits', each ``<audio>`` element loads its clip (a positive duration) from
the app's own server, at both sizes and in both themes; a path out of the media folder is refused
(a message, no request); an http URL is handed to the browser, which plays it."""

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
