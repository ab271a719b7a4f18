"""The defects a new user met (issue 33, items 6–13), in a real headless Chromium."""

import pytest
from playwright.sync_api import TimeoutError as PlaywrightTimeout

from test_browser import (ARTIFACTS, assert_healthy, browser, launch_app, await_app,  # noqa: F401
                          open_page, shoot, stop_app, wait_for_app)

pytestmark = pytest.mark.browser


@pytest.fixture(scope="module")
def served():
    """A server of this module's own: (url, log path)."""
    server, url, log = launch_app()
    await_app(server, url, log)
    yield url, log
    stop_app(server)


def main_text(page) -> str:
    return page.inner_text('[data-testid="stMain"]')


def test_back_returns_to_the_previous_page_in_one_press(served, browser):
    url, _ = served
    page, errors = open_page(browser, f"{url}/explorer?dataset=covers")
    assert_healthy(page, errors, "Why this query")
    page.locator('[data-testid="stSidebarNav"] a', has_text="Curves").click()
    wait_for_app(page)
    assert_healthy(page, errors, "Precision")
    assert page.url.split("?")[0] == f"{url}/curves"
    assert "systems=system_b" in page.url            # the Curves page's own link
    page.go_back()
    wait_for_app(page)
    assert page.url.split("?")[0] == f"{url}/explorer"
    assert_healthy(page, errors, "Why this query")
    assert "dataset=covers" in page.url and "query=" in page.url
    page.close()


def test_a_conventions_link_survives_a_fresh_server_and_a_reload(browser):
    server, url, log = launch_app()
    await_app(server, url, log)
    try:   # the link is this server's first request
        page, errors = open_page(browser, f"{url}/conventions?dataset=covers&ties=trec9",
                                 width=1024, height=768)
        assert_healthy(page, errors, "Tie policies")
        page.wait_for_timeout(1000)
        assert "dataset=covers" in page.url and "ties=trec9" in page.url, page.url
        page.reload()
        wait_for_app(page)
        assert_healthy(page, errors, "Tie policies")
        dataset = page.locator('[data-testid="stSidebar"] [data-testid="stSelectbox"]').first
        assert dataset.locator("input").input_value() == "Cover songs: all-vs-all similarity"
        assert "dataset=covers" in page.url and "ties=trec9" in page.url, page.url
        page.close()
    finally:
        stop_app(server)


def test_a_click_on_compare_logs_no_deprecation(served, browser):
    url, log = served
    page, errors = open_page(browser, f"{url}/compare?dataset=instruments&measures=AP")
    assert_healthy(page, errors, "One query, both rankings")
    box = page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has_text="Query (largest difference first)").first.locator("input")
    before = box.input_value()
    points = page.locator('.chart-in-place').nth(0).locator(
        ".scatterlayer .trace:not(:first-child) .points path")
    points.first.wait_for(state="attached", timeout=30_000)
    for i in range(points.count()):
        points.nth(i).click(force=True)
        wait_for_app(page)
        if box.input_value() != before:
            break
    assert box.input_value() != before
    heading = None
    for _ in range(50):   # the smooth scroll takes a while on a loaded machine
        heading = page.locator("#both-rankings").bounding_box()
        if heading is not None and 0 <= heading["y"] < 400:
            break
        page.wait_for_timeout(200)
    assert heading is not None and 0 <= heading["y"] < 400   # the page scrolled to the query
    text = log.read_text()
    assert "components.v1" not in text and "will be removed" not in text, text[-2000:]
    page.close()


def test_curves_keep_the_chosen_tab_when_queries_are_chosen(served, browser):
    url, _ = served
    page, errors = open_page(browser, f"{url}/curves?dataset=instruments", width=1024,
                             height=768)
    assert_healthy(page, errors, "Precision")
    page.get_by_role("tab", name="ROC").click()
    wait_for_app(page)
    assert_healthy(page, errors, "Mean AUC")
    page.locator('[data-testid="stRadio"]').get_by_text("choose").click()
    wait_for_app(page)
    assert_healthy(page, errors, "Mean AUC")
    assert page.get_by_role("tab", name="ROC").get_attribute("aria-selected") == "true"
    shoot(page, "curves_choose_keeps_roc")
    page.close()


SIZES = [(1400, 1000, "light"), (1024, 768, "dark")]   # each size once, each theme once
# the text elements inside main and the sidebar that are cut (a line ending in "…" by CSS)
CUT_TEXT = """() => Array.from(document.querySelectorAll(
    '[data-testid="stSidebar"] p, [data-testid="stMain"] label p, [data-testid="stMain"] label'))
  .filter(e => { const r = e.getBoundingClientRect(); return r.width > 0 && r.height > 0; })
  .filter(e => e.scrollWidth > e.clientWidth + 1)
  .map(e => e.innerText.slice(0, 60))"""


@pytest.mark.parametrize("width,height,scheme", SIZES)
def test_no_cut_text_in_the_sidebar_and_the_upload_form(served, browser, width, height, scheme):
    url, _ = served
    page, errors = open_page(browser, f"{url}/?dataset=fmp", width=width, height=height,
                             scheme=scheme)
    assert_healthy(page, errors, "Validation summary")
    page.get_by_text("Upload your own runs and ground truth").click()
    wait_for_app(page)
    page.get_by_text("Every item is judged").wait_for(timeout=30_000)
    sidebar = page.inner_text('[data-testid="stSidebar"]')
    assert "AP · P@10 · R@10 · RR · nDCG@10 · Rprec · Bpref" in sidebar   # the whole list
    assert page.evaluate(CUT_TEXT) == []
    shoot(page, f"no_cut_text_{width}_{scheme}")
    page.close()


# the tests table's grid: its scroller is wider than its box when columns need a sideways scroll
TESTS_TABLE = """() => {
  const heading = Array.from(document.querySelectorAll('h3')).find(
      h => h.innerText.startsWith('How sure are we'));
  const grids = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]'));
  const grid = heading && grids.find(
      g => heading.compareDocumentPosition(g) & Node.DOCUMENT_POSITION_FOLLOWING);
  const scroller = grid && grid.querySelector('.dvn-scroller');
  return scroller ? {scroll: scroller.scrollWidth, box: scroller.clientWidth} : null;
}"""


def assert_tests_table_fits(page):
    """The tests table, once its layout has settled (on a busy machine the grid first draws in
    a narrower box), has nothing to scroll sideways: it fits within 10 s or the test fails with
    what it measured last."""
    page.wait_for_function(TESTS_TABLE, timeout=30_000)
    try:
        page.wait_for_function(f"() => {{ const f = ({TESTS_TABLE})(); "
                               "return f && f.scroll <= f.box + 1; }", timeout=10_000)
    except PlaywrightTimeout:
        pytest.fail(f"the tests table scrolls sideways: {page.evaluate(TESTS_TABLE)}")


@pytest.mark.parametrize("width,height,scheme", SIZES)
def test_compare_leads_with_words_and_its_tests_table_fits(served, browser, width, height,
                                                           scheme):
    url, _ = served
    page, errors = open_page(browser, f"{url}/compare?dataset=instruments&measures=AP",
                             width=width, height=height, scheme=scheme)
    assert_healthy(page, errors, "(paired t-test)")
    text = main_text(page)
    for test in ("(paired t-test)", "(Wilcoxon signed-rank test)", "(randomisation test)"):
        assert "system_b is 0.117 AP better than system_a on average; the 95% interval" in \
            text.split(test)[0].splitlines()[-1]
    assert_tests_table_fits(page)
    page.locator('[data-testid="stDataFrame"]').first.scroll_into_view_if_needed()
    page.wait_for_timeout(500)
    page.screenshot(path=str(ARTIFACTS / f"compare_tests_{width}_{scheme}.png"))
    page.close()


def test_the_tests_table_of_five_systems_fits_1024_while_the_font_is_loading(served, browser):
    """The grid sizes its columns when it first draws; with the web font late it measured
    fallback-font text and scrolled sideways (CI). Fixed widths fit with the p (Holm) row."""
    url, _ = served
    page = browser.new_page(viewport={"width": 1024, "height": 768})
    page.route("**/*.woff2", lambda route: (page.wait_for_timeout(3000), route.continue_()))
    errors = []
    page.on("pageerror", lambda exc: errors.append(str(exc)))
    page.goto(f"{url}/compare?dataset=versions&measures=AP")
    wait_for_app(page)
    assert_healthy(page, errors, "(paired t-test)")
    assert_tests_table_fits(page)
    page.close()


def test_uploaded_runs_open_at_a_k_that_fits_them(served, browser, tmp_path):
    from test_browser import upload

    url, _ = served
    short = tmp_path / "short.run"   # lists of 6: K = 6
    short.write_text("".join(f"q{q} Q0 d{d} {d} {20 - d} short\n" for q in (1, 2)
                             for d in range(1, 7)))
    qrels = tmp_path / "k.qrels"
    qrels.write_text("q1 0 d2 1\nq2 0 d5 1\n")
    page, errors = open_page(browser, url)
    upload(page, short, qrels)
    assert_healthy(page, errors, "Uploaded files")
    page.locator('[data-testid="stSidebarNav"] a', has_text="Query explorer").click()
    wait_for_app(page)
    assert_healthy(page, errors, "Why this query fails")
    assert page.get_by_label("Cutoff K", exact=True).input_value() == "6"
    long = tmp_path / "long.run"     # lists of 30: K = 10
    long.write_text("".join(f"q{q} Q0 d{d} {d} {40 - d} long\n" for q in (1, 2)
                            for d in range(1, 31)))
    page.locator('[data-testid="stSidebarNav"] a', has_text="Data").click()
    wait_for_app(page)
    upload(page, long, qrels)   # the uploaders were left with the page: both files again
    page.locator('[data-testid="stSidebarNav"] a', has_text="Query explorer").click()
    wait_for_app(page)
    assert_healthy(page, errors, "Unjudged in the top K = 10")
    assert page.get_by_label("Cutoff K", exact=True).input_value() == "10"
    page.close()
