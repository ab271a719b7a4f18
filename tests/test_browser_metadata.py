"""Item and query tables end to end in Chromium: a run, qrels, an item table and a query table
uploaded on the Data page; titles beside the ids, the query box searching by text, and the
Groups page's chart, whose click opens a group in the Query explorer."""

import sys
from pathlib import Path

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

sys.path.insert(0, str(Path(__file__).parent))
from test_browser import (app_url, assert_healthy, browser, go, open_page,  # noqa: E402,F401
                          query_box, shoot, wait_for_app, wait_for_charts)

pytestmark = pytest.mark.browser

TITLES = {"d1": "Blue in Green", "d2": "So What", "d3": "<b>Freddie</b> [x](http://127.0.0.1/)",
          "d9": "Flamenco Sketches"}


@pytest.fixture(scope="module")
def files(tmp_path_factory):
    folder = tmp_path_factory.mktemp("metadata")
    run = folder / "modal.run"
    run.write_text("".join(f"q{q} Q0 d{d} {d} {20 - d} modal\n" for q in (1, 2, 3)
                           for d in range(1, 9)))
    qrels = folder / "modal.qrels"
    qrels.write_text("q1 0 d2 1\nq1 0 d9 1\nq2 0 d1 1\nq3 0 d3 1\nq3 0 d7 1\n")
    items = folder / "items.csv"
    items.write_text("item_id,title,artist,audio\n" + "".join(
        f'{i},"{t}",Miles Davis,http://127.0.0.1:9/{i}.mp3\n' for i, t in TITLES.items()))
    queries = folder / "queries.csv"
    queries.write_text("query_id,text,genre\nq1,trumpet ballad at night,jazz\n"
                       "q2,cool jazz with piano,jazz\nq3,spanish modal piece,flamenco\n")
    return run, qrels, items, queries


def upload_all(page, paths):
    """Run, qrels, item table and query table in the Data page's four uploaders, then the
    form's button once all have arrived."""
    page.get_by_text("Upload your own runs and ground truth").click()
    inputs = page.locator('[data-testid="stFileUploaderDropzoneInput"]')
    inputs.nth(3).wait_for(state="attached", timeout=30_000)
    for i, path in enumerate(paths):
        inputs.nth(i).set_input_files(str(path))
    page.wait_for_function(
        "(n) => document.querySelectorAll('[data-testid=\"stFileChip\"]').length === n && "
        "!document.querySelector('[data-testid=\"stFileChipIconSpinner\"]')",
        arg=len(paths), timeout=120_000)
    page.get_by_role("button", name="Evaluate these files").click()
    wait_for_app(page)


def main_text(page) -> str:
    return page.inner_text('[data-testid="stMain"]')


def wait_for_text(page, text: str, name: str) -> None:
    try:
        page.wait_for_function("(t) => document.querySelector('[data-testid=\"stMain\"]')"
                               ".innerText.includes(t)", arg=text, timeout=60_000)
    except PlaywrightTimeout:
        shoot(page, f"failed_{name}")
        pytest.fail(f"{text!r} never shown; the page showed:\n{main_text(page)[:3000]}")


@pytest.mark.parametrize("width, height, scheme", [(1400, 1000, "light"), (1024, 768, "dark")])
def test_metadata_upload_end_to_end(app_url, browser, files, width, height, scheme):
    name = f"metadata_{width}_{scheme}"
    page, errors = open_page(browser, app_url, width, height, scheme)
    upload_all(page, files)
    assert_healthy(page, errors, "Item table: 4 rows")
    assert page.locator('[data-testid="stAlertContentError"]').count() == 0, main_text(page)
    shoot(page, f"{name}_data")

    go(page, "Query explorer")
    assert_healthy(page, errors, "Why this query fails")
    # the query box shows each query's text, and the query's text and genre are shown
    wait_for_text(page, "Query text", f"{name}_explorer")
    assert "genre: " in main_text(page)
    # the ranked list's grid carries the titles beside the ids (its cells are drawn on a
    # canvas; the grid keeps their text in an accessible table)
    grids = page.locator('[data-testid="stDataFrame"]')
    # the first visible one (the judging panel's table of measures waits in a closed expander)
    page.locator('[data-testid="stDataFrame"]:visible').first.wait_for(timeout=30_000)
    cells = " ".join(grids.nth(i).text_content() or "" for i in range(grids.count()))
    assert "Blue in Green" in cells or "So What" in cells, cells[:500]
    assert "<b>Freddie</b>" in cells or "Freddie" not in cells       # shown as text
    if width == 1400 and scheme == "light":
        # typing words of a query's text in the Query box finds it
        box = query_box(page)
        box.click()
        page.keyboard.type("spanish")
        options = page.get_by_role("option")
        assert options.count() == 1 and options.first.inner_text().startswith(
            "q3 — spanish modal piece")
        options.first.click()
        wait_for_app(page)
        wait_for_text(page, "“spanish modal piece”", f"{name}_query_search")
        assert "genre: flamenco" in main_text(page)
    shoot(page, f"{name}_explorer")
    grids.last.scroll_into_view_if_needed()   # the app scrolls inside its main block
    page.wait_for_timeout(300)
    shoot(page, f"{name}_explorer_list")

    go(page, "Groups of queries")
    assert_healthy(page, errors, "Groups of queries")
    wait_for_charts(page, 1)
    assert "genre" in main_text(page)
    assert page.locator("a[href*='127.0.0.1/']").count() == 0         # no title became a link
    shoot(page, f"{name}_groups")
    if width == 1400 and scheme == "light":
        # a click on a group's marker opens the explorer on that group's queries
        point = page.locator('.chart-in-place .scatterlayer .point').first
        box = point.bounding_box()   # Plotly's drag layer lies over the points: click there
        page.mouse.click(box["x"] + box["width"] / 2, box["y"] + box["height"] / 2)
        wait_for_app(page)
        wait_for_text(page, "(from the Groups page)", f"{name}_group_click")
        assert_healthy(page, errors, "Why this query fails")
        shoot(page, f"{name}_group_opened")
    page.close()
