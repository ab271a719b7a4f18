"""The dashboard as a lecturer uses it on a projector, in a real headless Chromium: the teaching
mode with what-if edits applied on two-system data (controls, numbers and figure in one screen),
a link that opens at its rank r, and every page at the projector's and a wide screen's size."""

from urllib.parse import parse_qs, urlparse

import pytest

from test_browser import SIZES, app_url, assert_healthy, browser, open_page  # noqa: F401
from test_browser_teaching import (RANK_BOX, collapse_sidebar, teaching_block_in_view,
                                   wait_for_figure)

pytestmark = pytest.mark.browser


@pytest.mark.parametrize("sample,edits,sidebar,scheme", [
    ("instruments", "g2:1,m5:1", True, "light"), ("covers", "g2:1", False, "dark")])
def test_with_edits_applied_the_teaching_block_shares_one_screen(
        app_url, browser, sample, edits, sidebar, scheme):
    # two systems: the strip has two rows; edits: each number shows its change under it
    page, errors = open_page(browser, f"{app_url}/explorer?dataset={sample}&edits={edits}&r=2",
                             *SIZES["projector"], scheme)
    if not sidebar:
        collapse_sidebar(page)
    page.wait_for_selector(RANK_BOX)
    wait_for_figure(page)
    assert parse_qs(urlparse(page.url).query)["r"] == ["2"]       # opened at the link's rank
    teaching_block_in_view(page)
    page.screenshot(path=f"tests/artifacts/lecture_edited_{sample}_{scheme}_"
                         f"{'sidebar' if sidebar else 'collapsed'}.png")
    deltas = page.locator('[data-testid="stMetricDelta"]').count()
    assert deltas >= 1                                              # the changes are shown
    assert_healthy(page, errors, "P(r), r = 2")
    page.close()


@pytest.mark.parametrize("scheme", ["dark"])
def test_each_group_of_a_hundred_has_a_row_its_markers_fit(app_url, browser, scheme):
    # covers grouped by artist: about a hundred groups, two systems' markers side by side in each
    page, errors = open_page(browser, f"{app_url}/groups?dataset=covers&group_by=artist",
                             *SIZES["projector"], scheme)
    page.wait_for_selector('.chart-in-place .ytick text')
    found = page.evaluate("""() => {
      const gd = document.querySelector('.chart-in-place');
      const ticks = Array.from(gd.querySelectorAll('.ytick text'))
        .map(t => t.getBoundingClientRect().top).sort((a, b) => a - b);
      const gaps = ticks.slice(1).map((t, i) => t - ticks[i]);
      const size = gd.data[0].marker.size;
      return {rows: ticks.length, gap: Math.min(...gaps), size: size,
              systems: gd.data.length, top: ticks[0] - gd.getBoundingClientRect().top};
    }""")
    assert found["rows"] >= 90 and found["systems"] == 2, found
    assert found["gap"] >= found["systems"] * (found["size"] + 4), found
    assert found["top"] <= 50 + 2 * found["gap"], found     # no empty rows above the first
    page.locator('.chart-in-place').first.screenshot(
        path=f"tests/artifacts/lecture_groups_{scheme}.png")
    assert_healthy(page, errors, "Groups of queries")
    page.close()


@pytest.mark.parametrize("scheme", ["light"])
def test_each_what_if_box_stays_beside_its_button(app_url, browser, scheme):
    # instruments are graded: "Move to rank" and "Grade" each have a button; at 1024 × 768 with
    # the sidebar the controls wrap, and "Move" had started the next line, away from its box
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=instruments&edits=g2:1&r=2",
                             *SIZES["projector"], scheme)
    # the four elements arrive with the stepper's fragment, not necessarily in one paint: wait
    # until all are there and measure them in the same frame
    boxes = page.wait_for_function("""() => {
      const box = e => { if (!e) return null; const r = e.getBoundingClientRect();
                         return {left: r.left, right: r.right, bottom: r.bottom}; };
      const input = label => box(document.querySelector(
        `[data-testid="stNumberInput"]:has(input[aria-label="${label}"])`));
      const button = name => box(Array.from(document.querySelectorAll('button'))
        .find(b => b.innerText.trim() === name));
      const found = {to: input('Move to rank'), move: button('Move'), grade: input('Grade'),
                     set: button('Set grade')};
      return Object.values(found).every(b => b) ? found : null;
    }""", timeout=30_000).json_value()
    page.get_by_role("button", name="Set grade").screenshot(
        path=f"tests/artifacts/lecture_whatif_set_grade_{scheme}.png")
    for box, button in (("to", "move"), ("grade", "set")):
        assert abs(boxes[box]["bottom"] - boxes[button]["bottom"]) < 4, boxes   # one line
        assert 0 <= boxes[button]["left"] - boxes[box]["right"] < 40, boxes     # side by side
    assert_healthy(page, errors, "What if")
    page.close()
