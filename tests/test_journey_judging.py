"""Listen and judge (issue 44), in Chromium at 1400 × 1000: a text-to-music query with holes in
its top 10, one item played, five judged with the keyboard (digits grade, n and p move, space
plays), Judged@10 and AP after each judgment as counting and pytrec_eval give them on the qrels
merged with the judgments; the server restarted on the same SQLite file finds them all; the
exports hold what was judged."""

from __future__ import annotations

import re

import pytest

from oracles import (TEXT2MUSIC, judged_and_ap_by_pytrec_eval, text2music_by_numpy,
                     text2music_qrels_with)
from test_browser import (assert_healthy, browser, open_page, start_app,  # noqa: F401
                          stop_app, wait_for_app)

pytestmark = pytest.mark.browser

QUERY, SYSTEM, K = "t001", "model_a", 10
LINK = f"explorer?dataset=text2music&query={QUERY}&system={SYSTEM}&k={K}&measures=AP"
GRADES = [2, 0, 1, 2, 0]   # the five judgments, in the order made
CHANGE = re.compile(r"ΔJudged@10 = [^(]*\(([0-9.]+) → ([0-9.]+)\).*ΔAP = [^(]*\(([0-9.]+) → "
                    r"([0-9.]+)\)")


def shown_now(page) -> tuple[float, float]:
    """Judged@10 and AP of the query now, as the judging panel prints them."""
    text = page.locator(".st-key-judging_panel").inner_text(timeout=60_000)   # a loaded CI
    found = CHANGE.search(text)
    assert found, text[:2000]
    return float(found.group(2)), float(found.group(4))


def current_item(page) -> str:
    """The id of the item the keys act on (marked ▶)."""
    line = page.locator(".st-key-judging_panel [class*='st-key-judge_item_']").filter(
        has_text="▶").first.inner_text()
    return line.split("·")[0].split(".", 1)[1].strip()


def sidebar_text(page) -> str:
    return page.locator('[data-testid="stSidebar"]').inner_text()


def press(page, key: str) -> None:
    page.evaluate("() => document.activeElement && document.activeElement.blur()")
    page.keyboard.press(key)
    wait_for_app(page)


def assert_as_oracle(page, run, judged: dict) -> tuple[float, float]:
    """Judged@10 and AP shown as the oracle gives them for ``judged``; a judgment's own run
    ends by rerunning the whole page, so the panel is read until that run has drawn it (10 s)."""
    expected = judged_and_ap_by_pytrec_eval(run, text2music_qrels_with(judged), QUERY, K)
    for _ in range(20):
        got = shown_now(page)
        if got == pytest.approx(expected, abs=5e-4):
            break
        page.wait_for_timeout(500)
    assert got == pytest.approx(expected, abs=5e-4), (judged, got, expected)
    return got


def test_listen_judge_restart_and_export(browser, tmp_path):
    database = tmp_path / "judgments.sqlite"
    run = text2music_by_numpy(SYSTEM)
    server, url = start_app("--", "--judgments", str(database))
    try:
        page, errors = open_page(browser, f"{url}/{LINK}", 1400, 1000)
        assert_healthy(page, errors, "Judge the top K = 10")
        name = page.get_by_role("textbox", name="Your name, as a judge")
        name.fill("carol")
        name.press("Enter")
        wait_for_app(page)
        judged: dict[tuple[str, str], int] = {}
        before = assert_as_oracle(page, run, judged)
        assert before[0] < 1   # a query with holes

        # listen: space plays the current item's clip (from the app's own server) and pauses it
        first = current_item(page)
        player = ".st-key-audio_judge_0 audio"
        assert page.locator(player).get_attribute("src").endswith(f"{first}.wav")
        press(page, " ")
        page.wait_for_function("(s) => { const a = document.querySelector(s); "
                               "return !a.paused && a.currentTime > 0; }", arg=player,
                               timeout=15_000)
        press(page, " ")
        assert page.locator(player).evaluate("a => a.paused")

        # judge five with the keys; n skips one and p comes back to it
        for n, grade in enumerate(GRADES):
            if n == 2:
                skipped = current_item(page)
                press(page, "n")
                assert current_item(page) != skipped
                press(page, "p")
                assert current_item(page) == skipped
            item = current_item(page)
            press(page, str(grade))
            judged[(QUERY, item)] = grade
            assert_as_oracle(page, run, judged)
        assert len(judged) == 5
        assert "grown by 5 stored judgments" in sidebar_text(page)
        page.close()
    finally:
        stop_app(server)

    # a new server on the same file: every judgment is there, and the numbers with them
    server, url = start_app("--", "--judgments", str(database))
    try:
        page, errors = open_page(browser, f"{url}/{LINK}", 1400, 1000)
        assert_healthy(page, errors, "Judge the top K = 10")
        assert "grown by 5 stored judgments" in sidebar_text(page)
        last = assert_as_oracle(page, run, judged)
        panel = page.locator(".st-key-judging_panel").inner_text()
        for (_, item), grade in judged.items():
            assert re.search(rf"{item} ·[^\n]*judged {grade}", panel), item

        # the exports: the merged qrels, the new judgments alone, one judge's
        def download(label: str) -> str:
            with page.expect_download() as info:
                page.get_by_role("button", name=label).click()
            return open(info.value.path(), encoding="utf-8").read()

        merged = download("Download the merged qrels")
        expected = text2music_qrels_with(judged)
        assert sorted(merged.splitlines()) == sorted(
            f"{q} 0 {i} {g}" for q, items in expected.items() for i, g in items.items())
        new = {(q, i): int(g) for q, _, i, g in map(str.split, download(
            "Download the new judgments").splitlines())}
        assert new == judged
        carols = {(q, i): int(g) for q, _, i, g in map(str.split, download(
            "Download carol's judgments").splitlines())}
        assert carols == judged
        assert (TEXT2MUSIC / "qrels.csv").read_text().count("\n") == 41   # never written
        assert last[0] > before[0]
        assert not errors, errors
        page.close()
    finally:
        stop_app(server)
