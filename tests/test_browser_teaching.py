"""The teaching mode as a class sees it on a projector, in a real headless Chromium: the stepping
controls, the row's numbers and the figure in one screen; the break-even point visible on the
opening view; the PR legend clear of its axis title; a what-if link opening with its edits."""

from urllib.parse import parse_qs, urlparse

import pytest

from test_browser import (SIZES, app_url, assert_healthy, browser, full_shot,  # noqa: F401
                          open_page, wait_for_app)

pytestmark = pytest.mark.browser

CHART = ".chart-in-place.js-plotly-plot"
TEACHING = "Teaching mode: step through the ranking rank by rank"
RANK_BOX = '[data-testid="stNumberInput"]:has(input[aria-label="Rank r"])'

# where the header ends and each part of the teaching block lies in the viewport: the stepper,
# the numbers at r, the rows of the list around r and the rank strip (the band of the figure's
# first y axis, where the markers of the ranks lie)
PLACES = """() => {
  const box = e => { const r = e.getBoundingClientRect(); return [r.top, r.bottom]; };
  const q = s => document.querySelector(s);
  const window_ = q('.st-key-teaching_block [data-testid="stDataFrame"]');
  const gd = q('""" + CHART + """');
  const chart = gd.getBoundingClientRect(), size = gd._fullLayout._size;
  const domain = gd._fullLayout.yaxis.domain;
  return {header: q('header').getBoundingClientRect().bottom, height: window.innerHeight,
          rank: box(q('""" + RANK_BOX + """')),
          play: box(Array.from(document.querySelectorAll('button'))
                    .find(b => b.innerText.includes('Play'))),
          metrics: Array.from(document.querySelectorAll('[data-testid="stMetric"]')).map(box),
          window: window_ ? box(window_) : null,
          sideways: window_ ? Math.max(0, ...Array.from(window_.querySelectorAll('.dvn-scroller'))
                                          .map(e => e.scrollWidth - e.clientWidth)) : null,
          strip: [chart.top + size.t + (1 - domain[1]) * size.h,
                  chart.top + size.t + (1 - domain[0]) * size.h]};
}"""
TEACHING_PARTS = ("rank", "play", "window", "strip")


def teaching_block_in_view(page) -> dict:
    """Once the block brought to the top has settled: where its parts lie, asserting that the
    stepper, the five numbers at r, the rows around r and the rank strip are all in view
    (without the test scrolling)."""
    page.wait_for_timeout(1200)
    at = page.evaluate(PLACES)
    top, bottom = at["header"] - 1, at["height"] + 1
    for part in TEACHING_PARTS:
        assert at[part] and top <= at[part][0] and at[part][1] <= bottom, (part, at)
    assert at["sideways"] is not None and at["sideways"] <= 1, at   # the rows fit across
    assert len(at["metrics"]) == 5
    assert all(top <= m[0] and m[1] <= bottom for m in at["metrics"]), at
    return at


def wait_for_figure(page):
    page.wait_for_function(f"() => document.querySelector('{CHART}') && "
                           f"document.querySelector('{CHART}').calcdata")


def collapse_sidebar(page):
    page.locator('[data-testid="stSidebar"]').hover()
    page.locator('[data-testid="stSidebarCollapseButton"] button').click()
    page.wait_for_timeout(800)


def teaching(page):
    page.get_by_text(TEACHING).click()
    wait_for_app(page)
    page.wait_for_selector(RANK_BOX)
    page.wait_for_function(f"() => document.querySelector('{CHART}') && "
                           f"document.querySelector('{CHART}').getBoundingClientRect().height > 300")


# toy 1 at 1024 × 768 with the sidebar, light and dark: the lecture journey
@pytest.mark.parametrize("sample,query,size,scheme,sidebar", [
    ("fmp", "toy1", "projector", "dark", False), ("fmp", "toy1", "wide", "light", True),
    ("instruments", None, "projector", "dark", True),
    ("instruments", None, "wide", "dark", False)])
def test_stepper_numbers_rows_around_r_and_strip_share_one_screen(app_url, browser, sample, query, size,
                                                      scheme, sidebar):
    url = f"{app_url}/explorer?dataset={sample}" + (f"&query={query}" if query else "")
    page, errors = open_page(browser, url, *SIZES[size], scheme)
    if not sidebar:
        collapse_sidebar(page)
    teaching(page)
    name = f"teaching_screen_{sample}_{size}_{scheme}_{'sidebar' if sidebar else 'collapsed'}"
    teaching_block_in_view(page)
    page.screenshot(path=f"tests/artifacts/{name}.png")
    assert_healthy(page, errors, "P(r), r = 1")
    page.close()


# the marked points of the PR panel, as drawn: each one's box in the viewport
MARKERS = """() => {
  const gd = document.querySelector('""" + CHART + """');
  const svg = gd.querySelector('svg.main-svg').getBoundingClientRect();
  const found = {};
  for (const cd of gd.calcdata) {
    const name = cd[0].trace.name || '';
    const kind = ['break-even', 'cutoff K', 'F_max'].find(k => name.startsWith(k));
    if (!kind) continue;
    const point = cd[0].node3.node().querySelector('.point');
    const r = point.getBoundingClientRect();
    found[kind] = {left: r.left, right: r.right, top: r.top, bottom: r.bottom,
                   opacity: getComputedStyle(point).opacity};
  }
  return {markers: found, svg: {left: svg.left, right: svg.right, top: svg.top,
                                bottom: svg.bottom}};
}"""


def centre(box):
    return (box["left"] + box["right"]) / 2, (box["top"] + box["bottom"]) / 2


@pytest.mark.parametrize("size,scheme", [("projector", "dark"), ("wide", "light")])
def test_the_break_even_point_is_visible_on_the_opening_view(app_url, browser, size, scheme):
    # FMP's toys open at K = 4 = R_q: the K square sits on the break-even point (and on toy 1
    # the F_max star too)
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=fmp&query=toy1", *SIZES[size],
                             scheme)
    for query in ("toy1", "toy2"):
        if query == "toy2":
            page.goto(f"{app_url}/explorer?dataset=fmp&query=toy2")
            wait_for_app(page)
        wait_for_figure(page)
        found = page.evaluate(MARKERS)
        marks, svg = found["markers"], found["svg"]
        bep = marks["break-even"]
        assert float(bep["opacity"]) == 1
        assert svg["left"] <= bep["left"] and bep["right"] <= svg["right"]
        covering = [k for k, m in marks.items() if k != "break-even"
                    and abs(centre(m)[0] - centre(bep)[0]) < 3
                    and abs(centre(m)[1] - centre(bep)[1]) < 3]
        assert covering, (query, marks)        # the case of the issue: they coincide
        # nested: each marker at the point shows outside the one inside it
        nested = sorted([bep] + [marks[k] for k in covering],
                        key=lambda m: m["right"] - m["left"])
        for inner, outer in zip(nested, nested[1:]):
            assert outer["left"] <= inner["left"] - 3 and inner["right"] + 3 <= outer["right"]
            assert outer["top"] <= inner["top"] - 3 and inner["bottom"] + 3 <= outer["bottom"]
        labels = page.evaluate(f"() => Array.from(document.querySelectorAll("
                               f"'{CHART} .annotation-text')).map(a => a.textContent)")
        assert any(label.startswith("break-even = ") for label in labels), labels
        full_shot(page, f"bep_{query}_{size}_{scheme}")
    assert_healthy(page, errors, "PR curve")
    page.close()


PR_LAYOUT = """() => {
  const gd = document.querySelector('""" + CHART + """');
  const box = e => { const r = e.getBoundingClientRect();
                     return {left: r.left, right: r.right, top: r.top, bottom: r.bottom}; };
  return {legend: box(gd.querySelector('g.legend2')), title: box(gd.querySelector('.g-x2title')),
          svg: box(gd.querySelector('svg.main-svg')),
          ticks: Array.from(gd.querySelectorAll('.x3tick text, .y3tick text')).map(box),
          plot: {left: gd.getBoundingClientRect().left + gd._fullLayout.xaxis2._offset,
                 right: gd.getBoundingClientRect().left + gd._fullLayout.xaxis2._offset
                        + gd._fullLayout.xaxis2._length}};
}"""


@pytest.mark.parametrize("sidebar,scheme", [(True, "light"), (False, "dark")])
def test_the_pr_legend_and_the_matrix_labels_fit_a_projector(app_url, browser, sidebar, scheme):
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=fmp&query=toy1",
                             *SIZES["projector"], scheme)
    if not sidebar:
        collapse_sidebar(page)
    wait_for_figure(page)
    page.wait_for_timeout(600)
    at = page.evaluate(PR_LAYOUT)
    assert at["legend"]["top"] >= at["title"]["bottom"], at      # "recall R(r)" not covered
    assert at["legend"]["bottom"] <= at["svg"]["bottom"] + 1
    for tick in at["ticks"]:                                      # the matrix's labels whole
        assert at["svg"]["left"] <= tick["left"] and tick["right"] <= at["svg"]["right"] + 1
        assert tick["bottom"] <= at["svg"]["bottom"] + 1
        assert tick["left"] >= at["plot"]["right"]                # clear of the PR curve
    full_shot(page, f"pr_legend_{scheme}_{'sidebar' if sidebar else 'collapsed'}")
    assert_healthy(page, errors, "PR curve")
    page.close()


# at 1024 × 768 in light: the lecture journey opens, edits and reloads such a link
@pytest.mark.parametrize("size,scheme", [("wide", "dark")])
def test_a_what_if_link_opens_with_its_edits(app_url, browser, size, scheme):
    # toy 1 with rank 3 judged relevant and rank 8 moved to rank 5: relevant at ranks 1–5,
    # AP 0.8125 -> 1 (pytrec_eval agrees: tests/test_what_if.py)
    page, errors = open_page(
        browser, f"{app_url}/explorer?dataset=fmp&query=toy1&k=4&edits=g3:1,m8:5",
        *SIZES[size], scheme)
    assert_healthy(page, errors, "ΔAP = +0.188")
    main = page.inner_text('[data-testid="stMain"]')
    assert "rank 3 judged grade 1; rank 8 moved to rank 5" in main
    page.wait_for_selector(RANK_BOX)   # a loaded machine: the stepper may draw just after
    assert page.locator(RANK_BOX).count() == 1                    # teaching mode is on
    wait_for_figure(page)
    titles = page.evaluate(f"() => Array.from(document.querySelectorAll("
                           f"'{CHART} .annotation-text')).map(a => a.textContent)")
    assert "5 of 5 relevant items retrieved in a list of 10" in titles
    assert parse_qs(urlparse(page.url).query)["edits"] == ["g3:1,m8:5"]
    full_shot(page, f"what_if_link_{size}_{scheme}")
    page.get_by_role("button", name="↺ Original").click()
    wait_for_app(page)
    page.wait_for_function("() => !location.search.includes('edits=')")
    assert "ΔAP" not in page.inner_text('[data-testid="stMain"]')
    page.wait_for_function(f"() => Array.from(document.querySelectorAll('{CHART} "
                           f".annotation-text')).some(a => a.textContent.startsWith('4 of 4'))")
    titles = page.evaluate(f"() => Array.from(document.querySelectorAll("
                           f"'{CHART} .annotation-text')).map(a => a.textContent)")
    assert "4 of 4 relevant items retrieved in a list of 10" in titles
    assert not errors
    page.close()


@pytest.mark.parametrize("scheme", ["dark"])
def test_the_k_label_at_the_end_of_the_list_is_whole(app_url, browser, scheme):
    # covers' lists have 299 items: K = 299 sits at the strip's right edge
    page, errors = open_page(browser, f"{app_url}/explorer?dataset=covers&k=299",
                             *SIZES["projector"], scheme)
    wait_for_figure(page)
    box = page.evaluate(f"""() => {{
      const gd = document.querySelector('{CHART}');
      const label = Array.from(gd.querySelectorAll('.annotation'))
        .find(a => a.textContent === 'K = 299');
      const r = label.getBoundingClientRect(), s = gd.getBoundingClientRect();
      return {{label: [r.left, r.right], chart: [s.left, s.right]}}; }}""")
    assert box["chart"][0] <= box["label"][0] and box["label"][1] <= box["chart"][1], box
    assert_healthy(page, errors, "K = 299")
    page.close()


@pytest.mark.parametrize("path", ["curves?dataset=fmp", "answer_sets"])
def test_per_query_curves_show_in_the_dark_on_a_projector(app_url, browser, path):
    page, errors = open_page(browser, f"{app_url}/{path}", *SIZES["projector"], "dark")
    page.wait_for_selector('.chart-in-place .scatterlayer .trace')
    opacities = page.evaluate("""() => Array.from(document.querySelectorAll(
      '.chart-in-place .scatterlayer .trace')).filter(t => t.getBoundingClientRect()
      .width > 0).map(t => +getComputedStyle(t).opacity)""")
    assert len(opacities) >= 3 and min(opacities) >= 0.8, opacities   # the queries' and mean
    full_shot(page, f"per_query_dark_{path.split('?')[0]}")
    assert not errors
    page.close()
