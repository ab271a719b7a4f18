"""Addresses in user text, in Chromium (issue 42, items 6 and 7): a title, an artist and a query
text holding URLs and e-mail addresses are shown as written and made no link, and a clip on
another host is not asked for until its "Play from HOST" button is pressed."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from test_browser import (app_url, assert_healthy, browser, elsewhere, free_port,  # noqa: F401
                          go, open_page, record_requests, shoot, upload, wait_for_app)

pytestmark = pytest.mark.browser

# the user's text as a person should read it on the page
SHOWN = ["find https://query.example or write to q@query.example", "Live at https://title.example/x",
         "mailto:bob@mail.example"]
LINKS_FROM_TEXT = """() => [...document.querySelectorAll('a[href]')]
    .map(a => a.getAttribute('href')).filter(address => address.includes('example'))"""


def test_no_link_from_user_text_and_no_request_to_another_host_before_play(app_url, browser,
                                                                           tmp_path):
    # "another host" for the browser, on a loopback address: nothing leaves the machine, and
    # nothing listens there (a request is seen as the browser makes it)
    clip = f"http://127.0.0.2:{free_port()}/tone.wav"
    run, qrels = tmp_path / "mine.run", tmp_path / "mine.qrels"
    run.write_text("".join(f"{q} Q0 d{d} {d} {10 - d} mine\n" for q in ("q1", "q2")
                           for d in range(1, 6)))
    qrels.write_text("q1 0 d2 1\nq1 0 d9 1\nq2 0 d1 1\n")
    items, queries = tmp_path / "items.csv", tmp_path / "queries.csv"
    items.write_text("item_id,title,artist,audio\n"
                     f"d1,Live at https://title.example/x,www.artist.example,{clip}\n"
                     "d2,Mail ann@mail.example,mailto:bob@mail.example,\n")
    queries.write_text("query_id,text,genre\n"
                       f"q1,{SHOWN[0]},https://genre.example\nq2,{SHOWN[0]},www.genre.example\n")
    page, errors = open_page(browser, app_url)
    asked = record_requests(page)
    upload(page, run, qrels)
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(2).set_input_files(str(items))
    inputs.nth(3).set_input_files(str(queries))
    page.wait_for_function(
        "() => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === 4 && "
        "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')", timeout=120_000)
    page.get_by_role("button", name="Evaluate these files").click()
    wait_for_app(page)

    go(page, "Query explorer")
    assert_healthy(page, errors, "Query text")
    # the ranked list's player (the judging panel offers the unjudged item's clip too)
    play = page.get_by_role("button", name="Play from 127.0.0.2").first
    play.wait_for(timeout=30_000)
    # as written (the word joiners that keep it from being linked are invisible)
    shown = page.inner_text('[data-testid="stMain"]').replace("\u2060", "")
    assert all(text in shown for text in SHOWN), shown
    assert not page.evaluate(LINKS_FROM_TEXT)          # no <a href> made from the user's text
    assert not elsewhere(asked), elsewhere(asked)      # the clip's host not asked, not even once
    play.scroll_into_view_if_needed()   # the app scrolls inside its main block
    shoot(page, "hostile_links_before_play")

    play.click()
    wait_for_app(page)
    try:   # now, and only now, the browser asks the clip's host
        page.wait_for_function("() => document.querySelector('audio')", timeout=30_000)
        page.wait_for_timeout(1000)
    except PlaywrightTimeout:
        shoot(page, "failed_hostile_play")
        pytest.fail("no player after pressing play: " + page.inner_text("body")[:2000])
    assert elsewhere(asked) and set(elsewhere(asked)) == {clip}, elsewhere(asked)
    assert "From 127.0.0.2" in page.inner_text('[data-testid="stMain"]')
    page.locator("audio").first.scroll_into_view_if_needed()
    shoot(page, "hostile_links_after_play")
    page.close()
