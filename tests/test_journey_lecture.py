"""The lecture, as a lecturer lives it: one session in a real headless Chromium on a projector
(1024 × 768, the sidebar open as the app opens), light and dark. FMP's toy 1 in the Query
explorer, teaching mode on, r stepped, typed and played, the ranking edited at several r
(relevance, grade, up, down, to a typed rank), then Curves and back by the sidebar, Back,
reload, a shared link and "back to the original".

After every step, every number the step changes is read off the screen and checked against the
list as edited, recomputed here by brute force (tests/oracles.py) and, for AP, P@4, R@4 and
nDCG, by pytrec_eval; so is the address bar (r= and edits=) and, at the key steps, that the
stepper, the numbers at r, the rows around r and the rank strip share the screen."""

import math
from urllib.parse import parse_qs, urlparse

import pytest
import pytrec_eval

from oracles import one_list_by_hand
from test_browser import SIZES, app_url, browser, open_page, shoot, wait_for_app  # noqa: F401
from test_browser_teaching import CHART, RANK_BOX, TEACHING, teaching_block_in_view

pytestmark = pytest.mark.browser

TOY1 = ["9", "2", "6", "8", "3", "10", "5", "7", "4", "1"]     # sample_data/fmp/toys.run
TOY1_GRADES = {"9": 1, "2": 1, "8": 1, "7": 1}                  # toys.qrels; the rest 0
K = 4
MEASURES = f"AP,P@{K},R@{K},nDCG,BEP,Fmax"
ROW = ("χ(r)", "TP(r)", "P(r)", "R(r)", "F(r)")
COUNTS = ("χ(r)", "TP(r)")
WORKED = "Worked measures at K"   # a view below the figure


class Lecture:
    """What the list should be after the lecturer's edits so far: the oracle's side."""

    def __init__(self):
        self.items, self.grades, self.edits, self.r = list(TOY1), dict(TOY1_GRADES), [], 1

    def grade(self, value: int) -> None:
        item = self.items[self.r - 1]
        self.grades[item] = value
        self.edits.append(f"g{self.r}:{value}")

    def move(self, to: int) -> None:
        self.items.insert(to - 1, self.items.pop(self.r - 1))
        self.edits.append(f"m{self.r}:{to}")
        self.r = to

    def numbers(self, items=None, grades=None) -> dict[str, float]:
        items, grades = items or self.items, grades or self.grades
        graded = [grades.get(i, 0) for i in items]
        found = one_list_by_hand(graded, [grades.get(i, 0) for i in TOY1], K, self.r, len(TOY1))
        # pytrec_eval agrees on the measures it has (scores falling with the rank)
        qrels = {"q": {i: grades.get(i, 0) for i in TOY1}}
        run = {"q": {item: float(len(items) - n) for n, item in enumerate(items)}}
        trec = pytrec_eval.RelevanceEvaluator(qrels, {"map", f"P.{K}", f"recall.{K}",
                                                      "ndcg"}).evaluate(run)["q"]
        for ours, theirs in (("AP", "map"), (f"P@{K}", f"P_{K}"), (f"R@{K}", f"recall_{K}"),
                             ("nDCG", "ndcg")):
            assert found[ours] == pytest.approx(trec[theirs], abs=1e-12), ours
        return found

    def original(self) -> dict[str, float]:
        return self.numbers(TOY1, TOY1_GRADES)


SCREEN = """() => {
  const grid = g => Array.from(g.querySelectorAll('table tr'))
    .map(tr => Array.from(tr.querySelectorAll('th,td')).map(c => c.innerText));
  const grids = Array.from(document.querySelectorAll('[data-testid="stDataFrame"]')).map(grid);
  const metrics = Array.from(document.querySelectorAll('[data-testid="stMetric"]')).map(m => ({
    label: m.querySelector('[data-testid="stMetricLabel"]').innerText.trim(),
    value: m.querySelector('[data-testid="stMetricValue"]').innerText.trim(),
    delta: (m.querySelector('[data-testid="stMetricDelta"]') || {innerText: ''})
             .innerText.trim()}));
  const gd = document.querySelector('""" + CHART + """');
  const confusion = gd && gd.data ? (gd.data.find(t => t.xaxis === 'x3') || {}).text : null;
  const captions = Array.from(document.querySelectorAll('[data-testid="stCaptionContainer"]'))
    .map(c => c.innerText);
  const buttons = Array.from(document.querySelectorAll('[data-testid="stButton"] button'))
    .map(b => ({text: b.innerText.trim(), disabled: b.disabled}));
  const box = label => { const i = document.querySelector(`input[aria-label="${label}"]`);
                         return i ? i.value : null; };
  return {grids, metrics, confusion, captions, buttons, rank: box('Rank r'),
          moveTo: box('Move to rank'), grade: box('Grade'),
          markdown: document.querySelector('[data-testid="stMain"]').innerText};
}"""

def printed(name: str, value: float) -> str:
    return f"{int(value)}" if name in COUNTS else f"{value:.3f}"


def signed(change: float, whole: bool) -> str:
    """The change as st.metric shows it: +0.250 / -1; nothing when there is none."""
    if change == 0:
        return ""
    text = f"{abs(change):g}" if whole else f"{abs(change):.3f}"
    return ("+" if change > 0 else "-") + text


def mismatches(screen: dict, lecture: Lecture) -> list[str]:
    """What the screen shows that the oracle does not say (empty: all agree)."""
    wrong = []
    now, before = lecture.numbers(), lecture.original()
    r = lecture.r
    if screen["rank"] != str(r):
        wrong.append(f"Rank box {screen['rank']!r}, expected {r}")
    # the numbers at r, each with its change from the original list
    metrics = {m["label"]: m for m in screen["metrics"]}
    for name in ROW:
        shown = metrics.get(f"{name}, r = {r}")
        if shown is None:
            wrong.append(f"no {name} at r = {r}: {list(metrics)}")
            continue
        if shown["value"] != printed(name, now[name]):
            wrong.append(f"{name} = {shown['value']}, expected {printed(name, now[name])}")
        change = now[name] - before[name]
        expected = signed(change, name in COUNTS) if lecture.edits else ""
        if shown["delta"].replace("−", "-").lstrip("↑↓ ") != expected:
            wrong.append(f"change of {name} {shown['delta']!r}, expected {expected!r}")
    # the confusion matrix at r
    counts = [[f"TP = {now['TP']}", f"FN = {now['FN']}"], [f"FP = {now['FP']}",
                                                           f"TN = {now['TN']}"]]
    if screen["confusion"] != counts:
        wrong.append(f"confusion {screen['confusion']}, expected {counts}")
    # the break-even point and F_max under the figure
    caption = " ".join(screen["captions"])
    bep = f"r = R_q = {sum(g >= 1 for g in lecture.grades.values())}: {now['BEP']:.4f}"
    if bep not in caption:
        wrong.append(f"BEP: {bep!r} not in {caption[:300]!r}")
    if f"F_max = {now['Fmax']:.4f}" not in caption:
        wrong.append(f"F_max {now['Fmax']:.4f} not in {caption[:300]!r}")
    # the row of rank r in the window of the list: its item and grade
    # (the first list on the page: the whole ranked list is further down)
    window = next((g for g in screen["grids"] if g and "in top K" in g[0]), [])
    rows = {row[0]: row for row in window[1:]}
    head = window[0] if window else []
    if str(r) not in rows:
        wrong.append(f"rank {r} is not in the window {list(rows)}")
    else:
        row = dict(zip(head, rows[str(r)]))
        item = lecture.items[r - 1]
        if row.get("item") != item or row.get("grade") != str(lecture.grades.get(item, 0)):
            wrong.append(f"row {r}: {row}, expected item {item}")
    # the what-if controls name and edit rank r
    buttons = {b["text"]: b["disabled"] for b in screen["buttons"]}
    toggle = f"Make rank {r} {'not relevant' if now['χ(r)'] else 'relevant'}"
    if toggle not in buttons:
        wrong.append(f"no {toggle!r} among {list(buttons)}")
    if buttons.get("↑ Up") != (r == 1) or buttons.get("↓ Down") != (r == len(TOY1)):
        wrong.append(f"Up/Down disabled {buttons.get('↑ Up')}/{buttons.get('↓ Down')} at r={r}")
    if screen["moveTo"] != str(r):
        wrong.append(f"Move to rank {screen['moveTo']!r}, expected {r}")
    # the table of every measure before and after the edits
    changes = next((g for g in screen["grids"] if g and g[0][:2] == ["measure", "original"]),
                   [])
    if lecture.edits:
        table = {row[0]: row for row in changes[1:]}
        for name in ("AP", f"P@{K}", f"R@{K}", "nDCG", "BEP", "Fmax"):
            if name not in table:
                wrong.append(f"{name} not in the what-if table {list(table)}")
                continue
            _, original, edited, change = table[name]
            if not math.isclose(float(original), before[name], abs_tol=1e-12) or \
                    not math.isclose(float(edited), now[name], abs_tol=1e-12):
                wrong.append(f"{name}: {original} → {edited}, expected {before[name]} → "
                             f"{now[name]}")
        delta = now["AP"] - before["AP"]
        headline = "ΔAP = " + ("0" if delta == 0 else
                               ("+" if delta > 0 else "−") + f"{abs(delta):.3f}")
        if headline not in screen["markdown"]:
            wrong.append(f"{headline!r} not on the page")
    elif changes:
        wrong.append("a what-if table without edits")
    return wrong


def agrees(page, lecture: Lecture, what: str, timeout: float = 20) -> None:
    """Wait until the screen agrees with the oracle (a step's rerun may still be arriving), then
    check the address bar: it holds r and the edits."""
    deadline = page.evaluate("Date.now()") + timeout * 1000
    while True:
        wrong = mismatches(page.evaluate(SCREEN), lecture)
        if not wrong:
            break
        if page.evaluate("Date.now()") > deadline:
            shoot(page, "journey_lecture_" + "".join(c if c.isalnum() else "_" for c in what))
            pytest.fail(f"after {what}: " + "; ".join(wrong))
        page.wait_for_timeout(300)
    params = parse_qs(urlparse(page.url).query)
    assert params.get("r") == [str(lecture.r)], (what, page.url)
    assert params.get("edits", [""]) == [",".join(lecture.edits)], (what, page.url)
    assert params.get("query") == ["toy1"] and params.get("k") == [str(K)], (what, page.url)


def click(page, name: str) -> None:
    page.get_by_role("button", name=name, exact=True).click()
    wait_for_app(page)


def type_into(page, label: str, value: int) -> None:
    box = page.locator(f'input[aria-label="{label}"]')
    box.fill(str(value))
    box.press("Enter")
    wait_for_app(page)


@pytest.mark.parametrize("scheme", ["light", "dark"])
def test_a_lecture_on_fmp_toy1(app_url, browser, scheme):
    full = scheme == "light"
    lecture = Lecture()
    start = f"{app_url}/explorer?dataset=fmp&query=toy1&k={K}&measures={MEASURES}"
    page, errors = open_page(browser, start, *SIZES["projector"], scheme)
    assert "r" not in parse_qs(urlparse(page.url).query)       # not teaching yet

    # 1. teaching mode on: r = 1, and the block fits the projector's screen
    page.get_by_text(TEACHING).click()
    wait_for_app(page)
    page.wait_for_selector(RANK_BOX)
    agrees(page, lecture, "teaching mode on")
    teaching_block_in_view(page)

    # 2-3. r + 1 twice: the controls follow at once (they used to edit rank 1)
    for _ in range(2):
        click(page, "r + 1 →")
        lecture.r += 1
        agrees(page, lecture, f"r + 1 to {lecture.r}")

    # 4. rank 3 (item 6) made relevant: R_q 4 → 5
    click(page, "Make rank 3 relevant")
    lecture.grade(1)
    agrees(page, lecture, "rank 3 made relevant")

    if full:   # the dark walk takes the steps that move the layout, not every edit
        # 5. r − 1, then item 2 one rank down: r follows it to 3
        click(page, "← r − 1")
        lecture.r = 2
        agrees(page, lecture, "r − 1")
        click(page, "↓ Down")
        lecture.move(3)
        agrees(page, lecture, "down")

        # 6. a rank typed into the Rank box, then that item moved to a typed rank
        type_into(page, "Rank r", 6)
        lecture.r = 6
        agrees(page, lecture, "Rank box 6")
        type_into(page, "Move to rank", 1)
        click(page, "Move")
        lecture.move(1)
        agrees(page, lecture, "moved to rank 1")

        # 7. a grade: the item at rank 1 graded 2 (nDCG follows, the binary measures do not)
        type_into(page, "Grade", 2)
        click(page, "Set grade")
        lecture.grade(2)
        agrees(page, lecture, "grade 2 at rank 1")

        # 8. up from rank 5 (item 3, not relevant), then ▶ Play and ⏸ Pause
        type_into(page, "Rank r", 5)
        lecture.r = 5
        click(page, "↑ Up")
        lecture.move(4)
        agrees(page, lecture, "up from 5")
        page.get_by_role("button", name="▶ Play").click()
        page.wait_for_function("() => document.querySelector('input[aria-label=\"Rank r\"]')"
                               ".value >= '6'", timeout=20_000)
        page.get_by_role("button", name="⏸ Pause").click()
        wait_for_app(page)
        page.wait_for_timeout(1500)            # a tick already under way lands before the pause
        lecture.r = int(page.locator('input[aria-label="Rank r"]').input_value())
        assert 6 <= lecture.r <= len(TOY1)
        agrees(page, lecture, "play and pause")
    edits, r = list(lecture.edits), lecture.r

    # 9. Curves and back by the sidebar: teaching mode, r, the edits and the view below the
    # figure (the worked measures, chosen before leaving) are all still there
    page.get_by_role("radio", name=WORKED).or_(page.get_by_role("button", name=WORKED)).click()
    wait_for_app(page)
    page.get_by_text(f"At cutoff K = {K}").wait_for()
    page.locator('[data-testid="stSidebarNav"] a', has_text="Curves").click()
    wait_for_app(page)
    assert urlparse(page.url).path.endswith("/curves")
    assert "edits" not in parse_qs(urlparse(page.url).query)
    page.locator('[data-testid="stSidebarNav"] a', has_text="Query explorer").click()
    wait_for_app(page)
    agrees(page, lecture, "back by the sidebar")
    page.get_by_text(f"At cutoff K = {K}").wait_for(timeout=10_000)
    teaching_block_in_view(page)

    # 10. Curves again, then the browser's Back
    page.locator('[data-testid="stSidebarNav"] a', has_text="Curves").click()
    wait_for_app(page)
    page.go_back()
    wait_for_app(page)
    agrees(page, lecture, "Back")
    teaching_block_in_view(page)

    # 11. reload: a new session, from the address alone
    page.reload()
    wait_for_app(page)
    agrees(page, lecture, "reload")
    teaching_block_in_view(page)

    if full:
        # 12. the link shared: another browser opens the same list at the same rank
        shared, shared_errors = open_page(browser, page.url, *SIZES["projector"], scheme)
        agrees(shared, lecture, "shared link")
        shared.close()
        assert not shared_errors, shared_errors

    # 13. back to the original: every number as FMP's table has it, no change shown
    click(page, "↺ Original")
    lecture.items, lecture.grades, lecture.edits = list(TOY1), dict(TOY1_GRADES), []
    agrees(page, lecture, "back to the original")
    assert lecture.numbers()["AP"] == pytest.approx(0.8125)        # FMP C7S3: AP of toy 1
    assert edits and r == lecture.r
    shoot(page, f"journey_lecture_{scheme}")
    assert page.locator('[data-testid="stException"]').count() == 0
    assert not errors, errors
    page.close()
