"""The team's session (issue 40): the five-system sample (version identification) on the
Leaderboard under each correction, another baseline and α, a heatmap cell opened in the Query
explorer and the way back (Back, the sidebar), the pairwise matrix, the power for a typed
difference on Compare, and the table for a paper — at 1400 × 1000 the whole walk, at 1024 × 768
the table's fit and the choices kept through reload, a shared link and the sidebar.

Every number a step changes is checked against an oracle outside the app: pytrec_eval's per-query
values (ties broken as trec_eval does: ties=trec9), scipy's paired t-tests corrected by Holm by
hand or by statsmodels' multipletests (Benjamini–Hochberg), Tukey's HSD paired by query (on
statsmodels' two-way ANOVA and scipy's studentized range), statsmodels'
TTestPower; and after each step the address bar, which holds the choices."""

from __future__ import annotations

import re
from itertools import combinations
from urllib.parse import parse_qs, urlparse

import numpy as np
import pytest
import pytrec_eval
from scipy import stats

from oracles import holm_by_hand, paired_tukey_by_statsmodels
from test_browser import (ROOT, app_url, assert_healthy, browser, go, open_page,  # noqa: F401
                          shoot, wait_for_app, wait_for_charts)

pytestmark = pytest.mark.browser

VERSIONS = ROOT / "sample_data" / "versions"
SYSTEMS = ["baseline", "chroma_dtw", "cqt_net", "cqt_net_aug", "transformer"]
PYTREC = {"AP": "map", "P@10": "P_10"}
DEFAULT_MEASURES = "AP,P@10,R@10,RR,nDCG@10,Rprec,Bpref"   # the widest table
# the walk at 1400 px on the two measures pytrec_eval checks (each run of the page is quicker)
LEADERBOARD = "leaderboard?dataset=versions&ties=trec9"
START = f"{LEADERBOARD}&measures=AP,P@10"


# ---- oracles -----------------------------------------------------------------------------------

def _read_trec(path, columns):
    table = {}
    for line in path.read_text().splitlines():
        fields = line.split()
        table.setdefault(fields[0], {})[fields[columns[0]]] = float(fields[columns[1]])
    return table


@pytest.fixture(scope="module")
def per_query() -> dict[str, dict[str, np.ndarray]]:
    """system → measure → per-query values (queries sorted), from pytrec_eval."""
    qrels = {q: {d: int(g) for d, g in docs.items()}
             for q, docs in _read_trec(VERSIONS / "qrels.txt", (2, 3)).items()}
    out = {}
    for system in SYSTEMS:
        run = _read_trec(VERSIONS / f"{system}.run", (2, 4))
        values = pytrec_eval.RelevanceEvaluator(qrels, set(PYTREC.values())).evaluate(run)
        out[system] = {m: np.array([values.get(q, {}).get(name, 0.0) for q in sorted(qrels)])
                       for m, name in PYTREC.items()}
    return out


def against(values: dict[str, np.ndarray], reference: str, correction: str) -> dict[str, float]:
    """Each other system's corrected p against ``reference`` (a family of k − 1 tests)."""
    others = [s for s in SYSTEMS if s != reference]
    if correction == "tukey":
        p = paired_tukey_by_statsmodels([values[s] for s in SYSTEMS])
        return {s: p[SYSTEMS.index(reference), SYSTEMS.index(s)] for s in others}
    raw = np.array([stats.ttest_rel(values[s], values[reference]).pvalue for s in others])
    if correction == "holm":
        adjusted = holm_by_hand(raw)
    else:
        from statsmodels.stats.multitest import multipletests
        adjusted = multipletests(raw, method="fdr_bh")[1]
    return dict(zip(others, adjusted))


def pairwise(values: dict[str, np.ndarray], correction: str) -> dict[tuple[int, int], float]:
    """Every pair's corrected p (one family of k(k − 1)/2 tests, or Tukey's HSD)."""
    pairs = list(combinations(range(len(SYSTEMS)), 2))
    if correction == "tukey":
        p = paired_tukey_by_statsmodels([values[s] for s in SYSTEMS])
        return {(i, j): p[i, j] for i, j in pairs}
    raw = np.array([stats.ttest_rel(values[SYSTEMS[j]], values[SYSTEMS[i]]).pvalue
                    for i, j in pairs])
    if correction == "holm":
        adjusted = holm_by_hand(raw)
    else:
        from statsmodels.stats.multitest import multipletests
        adjusted = multipletests(raw, method="fdr_bh")[1]
    return dict(zip(pairs, adjusted))


def expected_marks(values, baseline: str, correction: str, alpha: float) -> dict[str, str]:
    """The marks of the Leaderboard's caption for one measure (higher is better): ★ best, ▲/▼
    significantly above/below the baseline, † significantly different from the best."""
    means = {s: values[s].mean() for s in SYSTEMS}
    best = max(SYSTEMS, key=means.get)
    p_base, p_best = against(values, baseline, correction), against(values, best, correction)
    marks = {}
    for s in SYSTEMS:
        mark = " ★" if s == best else ""
        if s != baseline and p_base[s] < alpha:
            mark += " ▲" if means[s] > means[baseline] else " ▼"
        if s != best and p_best[s] < alpha:
            mark += " †"
        marks[s] = mark
    return marks


# ---- the screen --------------------------------------------------------------------------------

TABLE = '[data-testid="stMain"] [data-testid="stTable"]'
READ_TABLE = """(sel) => { const t = document.querySelector(sel + ' table');
  const rows = Array.from(t.querySelectorAll('tr')).map(r =>
    Array.from(r.querySelectorAll('th, td')).map(c => c.innerText.trim()));
  return rows; }"""
# the table, or the grid it was before (issue 40: a grid that scrolled sideways inside itself)
FIT = """() => { const e = document.querySelector('[data-testid="stMain"] [data-testid="stTable"]')
    || document.querySelector('[data-testid="stMain"] [data-testid="stDataFrame"]');
  const scrollers = [e, ...e.querySelectorAll('.dvn-scroller')];
  const heads = Array.from(e.querySelectorAll('thead th')).map(h => h.getBoundingClientRect().right);
  return {scroll: Math.max(...scrollers.map(s => s.scrollWidth - s.clientWidth)),
          right: Math.max(e.getBoundingClientRect().right, ...heads),
          viewport: document.documentElement.clientWidth}; }"""


def table_cells(page) -> dict[tuple[str, str], str]:
    """(system, measure) → the cell's text, whichever way the table runs (once the table is
    there: after a reload or a page switch it arrives after the run has reported done)."""
    page.wait_for_selector(TABLE + " table", timeout=30_000)
    rows = page.evaluate(READ_TABLE, TABLE)
    header, body = rows[0][1:], rows[1:]
    cells = {}
    across = header[0] in SYSTEMS
    for row in body:
        for column, text in zip(header, row[1:]):
            key = (column, row[0]) if across else (row[0], column)
            cells[key] = text
    return cells


def assert_fits(page) -> None:
    """No sideways scrolling, every column header in view, once the layout has settled (a
    table is laid out again as its web font and the columns' widths arrive), and once the table
    is there (a rerun after the first can leave its place empty for a while)."""
    page.wait_for_selector(TABLE + " table", timeout=60_000)
    try:
        page.wait_for_function(f"() => {{ const f = ({FIT})();"
                               " return f.scroll <= 0 && f.right <= f.viewport; }",
                               timeout=10_000)
    except Exception:
        shoot(page, "failed_team_fit")
        pytest.fail(f"the leaderboard's table does not fit: {page.evaluate(FIT)}")


def params(page) -> dict[str, list[str]]:
    return parse_qs(urlparse(page.url).query)


def wait_for_address(page, **expected) -> None:
    """Wait until the address bar holds ``expected`` (the frame writes it after the run)."""
    try:
        page.wait_for_function(
            "(e) => { const p = new URLSearchParams(location.search);"
            " return Object.entries(e).every(([k, v]) => p.get(k) === v); }",
            arg=expected, timeout=15_000)
    except Exception:
        shoot(page, "failed_team_address")
        pytest.fail(f"the address never held {expected}: {page.url}")


def assert_marks(page, per_query, baseline, correction, alpha, measure="AP") -> None:
    cells = table_cells(page)
    marks = expected_marks(per_query_of(per_query, measure), baseline, correction, alpha)
    for s in SYSTEMS:
        mean = per_query[s][measure].mean()
        text = cells[(s, measure)]
        first = text.split("[")[0].strip()
        assert first == f"{mean:.4f}{marks[s]}", (s, measure, text, marks[s])


def per_query_of(per_query, measure):
    return {s: per_query[s][measure] for s in SYSTEMS}


def choose_radio(page, label: str) -> None:
    page.locator('[data-testid="stRadio"]').get_by_text(label, exact=True).click()
    wait_for_app(page)


def type_number(page, label: str, value: str) -> None:
    box = page.get_by_role("spinbutton", name=label, exact=True)
    box.fill(value)
    box.press("Enter")
    wait_for_app(page)


def choose_in_box(page, label: str, option: str) -> None:
    page.locator('[data-testid="stMain"] [data-testid="stSelectbox"]').filter(
        has_text=label).first.click()
    page.get_by_role("option", name=option, exact=True).click()
    wait_for_app(page)


def matrix_p_values(page) -> list[str]:
    """The p-values written in the pairwise matrix's cells (each pair twice): "0.028", "< 1e-16"."""
    texts = page.locator('.chart-in-place').first.evaluate(
        "(e) => Array.from(e.querySelectorAll('.heatmaplayer text')).map(t => t.textContent)")
    return sorted(re.findall(r"p (?:= )?(< 1e-16|[^ *<]+)", " ".join(texts)))


def expected_matrix(per_query, measure, correction) -> list[str]:
    p = pairwise(per_query_of(per_query, measure), correction)
    # below 1e-16 a p is written "< 1e-16", never "0" (issue 40)
    return sorted([("< 1e-16" if v < 1e-16 else f"{v:.2g}") for v in p.values()] * 2)


# ---- the walks ---------------------------------------------------------------------------------

def test_the_team_at_1400(app_url, browser, per_query):
    page, errors = open_page(browser, f"{app_url}/{START}", 1400, 1000)
    assert_healthy(page, errors, "Where every query stands")
    wait_for_charts(page, 2)
    # 1. the five systems, Holm, α = 0.05: the means and marks are the oracle's
    wait_for_address(page, correction="holm", alpha="0.05", systems="baseline")
    for measure in ("AP", "P@10"):
        assert_marks(page, per_query, "baseline", "holm", 0.05, measure)
    assert matrix_p_values(page) == expected_matrix(per_query, "AP", "holm")
    # 2. each correction: the marks and the pairwise matrix follow, the address holds it
    for correction, label in (("bh", "Benjamini–Hochberg"), ("tukey", "Tukey's HSD"),
                              ("holm", "Holm")):
        choose_radio(page, label)
        wait_for_address(page, correction=correction)
        assert_marks(page, per_query, "baseline", correction, 0.05)
        assert matrix_p_values(page) == expected_matrix(per_query, "AP", correction)
    # 3. another baseline and α
    choose_in_box(page, "Baseline", "cqt_net")
    wait_for_address(page, systems="cqt_net")
    assert_marks(page, per_query, "cqt_net", "holm", 0.05)
    type_number(page, "α", "0.001")
    wait_for_address(page, alpha="0.001")
    assert_marks(page, per_query, "cqt_net", "holm", 0.001)
    assert "α = 0.001" in page.inner_text('[data-testid="stMain"]')
    chosen = page.url
    # 4. a heatmap cell opens the Query explorer on that query and system; Back comes back
    order = np.argsort(np.mean([per_query[s]["AP"] for s in SYSTEMS], axis=0), kind="stable")
    queries = sorted(_read_trec(VERSIONS / "qrels.txt", (2, 3)))
    index = len(SYSTEMS) * 0 + 3        # the hardest query, the fourth system
    cells = page.locator('.chart-in-place').nth(1).locator(
        ".scatterlayer .trace .points path")
    cells.nth(index).click(force=True)
    page.wait_for_function("() => location.pathname.endsWith('/explorer')", timeout=30_000)
    wait_for_app(page)
    query = queries[order[0]]
    assert params(page).get("query") == [query] and params(page).get("systems") == ["cqt_net_aug"]
    page.go_back()
    wait_for_app(page)
    page.wait_for_function("() => location.pathname.endsWith('/leaderboard')", timeout=30_000)
    wait_for_app(page)
    wait_for_address(page, correction="holm", alpha="0.001", systems="cqt_net")
    assert_marks(page, per_query, "cqt_net", "holm", 0.001)
    # … and by the sidebar, there and back
    go(page, "Query explorer")
    go(page, "Leaderboard")
    wait_for_address(page, correction="holm", alpha="0.001", systems="cqt_net")
    assert_marks(page, per_query, "cqt_net", "holm", 0.001)
    assert params(page) == parse_qs(urlparse(chosen).query)
    # 5. the pairwise matrix of another measure
    choose_in_box(page, "Measure", "P@10")
    wait_for_address(page, measure="P@10")
    wait_for_charts(page, 2)
    assert matrix_p_values(page) == expected_matrix(per_query, "P@10", "holm")
    # 6. the table for a paper, at this correction and α
    page.get_by_text("The table for a paper (LaTeX, Markdown)").click()
    code = page.locator('[data-testid="stCode"]').first
    code.wait_for(timeout=10_000)
    latex = code.inner_text()
    p = {m: pairwise(per_query_of(per_query, m), "holm") for m in ("AP", "P@10")}
    for i, system in enumerate(SYSTEMS):
        row = next(line for line in latex.splitlines()
                   if line.startswith(f"{'abcde'[i]} & {system.replace('_', chr(92) + '_')} &"))
        for measure in ("AP", "P@10"):
            means = {s: per_query[s][measure].mean() for s in SYSTEMS}
            beats = "".join("abcde"[o] for o, other in enumerate(SYSTEMS)
                            if o != i and means[system] > means[other]
                            and p[measure][min(i, o), max(i, o)] < 0.001)
            cell = f"{means[system]:.4f}"
            if means[system] == max(means.values()):
                cell = rf"\textbf{{{cell}}}"
            assert (cell + (f"$^{{{beats}}}$" if beats else "")) in \
                row.removesuffix(r" \\").split(" & "), \
                (system, measure, row)
    assert r"$\alpha = 0.001$" in latex and "Holm's step-down correction" in latex
    # 7. power for a typed difference, on Compare (its first two systems)
    go(page, "Compare systems")
    box = page.get_by_role("spinbutton", name="Difference to detect in AP (optional)")
    box.fill("0.05")
    box.press("Enter")
    wait_for_app(page)
    from statsmodels.stats.power import TTestPower
    a, b = per_query["baseline"]["AP"], per_query["chroma_dtw"]["AP"]
    sd = np.std(b - a, ddof=1)
    n = next(n for n in range(2, 100_000)
             if TTestPower().power(effect_size=0.05 / sd, nobs=n, alpha=0.05,
                                   alternative="two-sided") >= 0.8)
    smallest = TTestPower().solve_power(nobs=60, alpha=0.05, power=0.8,
                                        alternative="two-sided") * sd
    shown = page.inner_text('[data-testid="stMain"]')
    assert f"needs {n:,} queries" in shown, shown[-2000:]
    assert f"differences below {smallest:.3g} in AP" in shown
    assert not errors and page.locator('[data-testid="stException"]').count() == 0
    page.close()


def test_the_team_at_1024_keeps_its_choices(app_url, browser, per_query):
    """The table of the default measures fits at 1400 and at 1024 px; the choices survive."""
    page, errors = open_page(browser, f"{app_url}/{LEADERBOARD}&measures={DEFAULT_MEASURES}",
                             1400, 1000)
    assert_healthy(page, errors, "Where every query stands")
    assert_fits(page)
    page.set_viewport_size({"width": 1024, "height": 768})
    page.wait_for_timeout(500)
    assert_fits(page)
    choose_radio(page, "Benjamini–Hochberg")
    type_number(page, "α", "0.01")
    wait_for_address(page, correction="bh", alpha="0.01")
    assert_fits(page)
    assert_marks(page, per_query, "baseline", "bh", 0.01)
    link = page.url
    page.reload()                                   # reload
    wait_for_app(page)
    wait_for_address(page, correction="bh", alpha="0.01")
    assert_marks(page, per_query, "baseline", "bh", 0.01)
    go(page, "Curves")                              # leave by the sidebar and come back
    go(page, "Leaderboard")
    wait_for_address(page, correction="bh", alpha="0.01")
    assert_marks(page, per_query, "baseline", "bh", 0.01)
    page.close()
    shared, errors = open_page(browser, link, 1024, 768)   # a shared link, a new context
    assert_healthy(shared, errors, "Where every query stands")
    wait_for_address(shared, correction="bh", alpha="0.01")
    assert_marks(shared, per_query, "baseline", "bh", 0.01)
    assert_fits(shared)
    shared.close()
