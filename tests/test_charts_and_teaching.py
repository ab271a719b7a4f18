"""Figure factories (checked on fig.data / fig.layout) and the worked formulas of the explorer."""

import math
import re

import numpy as np
import pytest

from charts import (Confusion, PRCurve, StripRow, difference_figure, interpolated_pr_figure,
                    lift_curves_figure, paired_scatter_figure, pr_curves_figure, query_figure,
                    roc_figure)
from charts.colours import (DARK_BACKGROUND, HIGHLIGHT_TEXT, LIGHT_BACKGROUND, LOSS_COLOUR,
                            TIE_COLOUR, WIN_COLOUR)
from dashboard.teaching import worked_measures
from metrics import TiePolicy, evaluate
from metrics.explain.answer_sets import judged_answer_sets
from metrics.evaluation.curves import RECALL_LEVELS
from metrics.explain.samples import load_sample
from metrics.explain.summaries import query_table
from metrics.explain.worked import WORKED, worked_examples
from metrics.measures.registry import REGISTRY
from oracles import contrast_ratio


def _query(rows=(([1], [1], 2, 1),), pr=PRCurve([0.5, 1], [1, 0.5]),
           confusion=Confusion(3, 1, 1, 95, k=4), query="q", **options):
    return query_figure([StripRow(f"s{i}", *row) for i, row in enumerate(rows)], pr, confusion,
                        query=query, **options)


def _panel(fig, axis: str) -> list:
    """The traces of one panel: the strip on x, the PR curve on x2, the matrix on x3."""
    return [t for t in fig.data if (t.xaxis or "x") == axis]


def _titles(fig) -> list[str]:
    return [a.text for a in fig.layout.annotations if a.xref == "paper"]


def test_pr_curve_marks_break_even_and_fmax():
    recall = [0.25, 0.5, 0.5, 0.75]
    precision = [1.0, 1.0, 2 / 3, 0.75]
    fig = _query(pr=PRCurve(recall, precision, bep=0.75, fmax=(0.75, 0.75, 4)),
                 query="q <b>1</b>")
    pr = _panel(fig, "x2")
    names = [t.name for t in pr]
    assert names[0] == "P(r) vs R(r)" and list(pr[0].x) == recall
    assert list(pr[0].customdata) == [1, 2, 3, 4]          # the ranks, for the hover
    bep = next(t for t in pr if t.name.startswith("break-even"))
    assert (bep.x[0], bep.y[0]) == (0.75, 0.75)
    star = next(t for t in pr if t.name.startswith("F_max"))
    assert star.name == "F_max 0.750 (r = 4)"
    assert {t.legend for t in pr} == {"legend2"}           # its own legend, under the figure
    assert "<b>PR curve of q &lt;b&gt;1&lt;/b&gt;</b>" in _titles(fig)   # user text literally
    assert fig.layout.xaxis2.title.text == "recall R(r)"
    # the PR curve left, the matrix right, side by side below the strip
    assert fig.layout.xaxis2.domain[1] < fig.layout.xaxis3.domain[0]
    assert fig.layout.yaxis2.domain[1] < fig.layout.yaxis.domain[0]


def test_multi_curve_figures():
    fig = pr_curves_figure({"q1": ([0.5, 1], [1, 0.5])}, mean={"A": np.ones(11),
                                                               "B": np.zeros(11)})
    assert [t.name for t in fig.data] == ["q1", "mean interpolated: A", "mean interpolated: B"]
    assert fig.data[1].line.width > fig.data[0].line.width   # the means thicker
    fig = interpolated_pr_figure(RECALL_LEVELS, {"q": np.ones(11)}, mean={"A": np.ones(11)})
    assert len(fig.data) == 2 and list(fig.data[0].x) == list(RECALL_LEVELS)
    fig = lift_curves_figure({"A1": ([0, 0.5, 1], [0, 1, 1])}, mean={"s": ([0, 1], [0, 1])})
    assert fig.data[1].name == "mean: s" and fig.data[0].line.dash == "solid"
    fig = roc_figure({"q": ([0, 0.5, 1], [0, 1, 1], 0.75)})
    assert fig.data[1].name == "q (AUC 0.750)" and fig.data[0].name == "chance"


def test_confusion_matrix_panel():
    fig = _query(confusion=Confusion(3, 1, 1, 95, k=4))
    [matrix] = _panel(fig, "x3")
    assert list(matrix.text[0]) == ["TP = 3", "FN = 1"]
    assert list(matrix.text[1]) == ["FP = 1", "TN = 95"]
    assert "<b>Confusion matrix at K = 4</b>" in _titles(fig)
    unknown = _query(confusion=Confusion(3, 1, 1, None, k=4))
    assert _panel(unknown, "x3")[0].text[1][1] == "TN = ?<br>(|D| unknown)"
    teaching = _query(confusion=Confusion(3, 1, 1, 95, k=7, name="r"))
    assert "<b>Confusion matrix at r = 7</b>" in _titles(teaching)


def _strip(*rows, **options):
    return _query(rows, **options)


def test_rank_strip_separates_relevant_items():
    # a strip row holds the relevant items the engine found (grades 1 and 2 of a list graded
    # 1, 0, -1, 2: tests/test_relevance.py); the chart draws them apart from every other rank
    fig = _strip(([1, 4], [1, 2], 4, 3))
    by_name = {t.name: list(t.x) for t in _panel(fig, "x")}
    assert by_name == {"not relevant / unjudged": [2, 3], "grade 1": [1], "grade 2": [4]}
    assert _titles(fig)[0] == "<b>2 of 3 relevant items retrieved in a list of 4</b>"
    assert not fig.layout.yaxis.visible                   # one row: no row names


def test_two_systems_share_one_strip_figure_a_row_each():
    # system A finds grades 1 and 2 at ranks 1 and 4; B finds grade 1 at rank 3 of a list of 5
    fig = _strip(([1, 4], [1, 2], 4, 3), ([3], [1], 5, 3), cutoff=2, current=2)
    rows = [(t.name, list(t.x), set(t.y), t.showlegend is not False) for t in _panel(fig, "x")]
    assert rows == [("not relevant / unjudged", [2, 3], {0}, True),
                    ("grade 1", [1], {0}, True), ("grade 2", [4], {0}, True),
                    ("not relevant / unjudged", [1, 2, 4, 5], {1}, False),
                    ("grade 1", [3], {1}, False),          # one legend entry per meaning
                    ("rank r = 2", [2], {0}, True)]        # the ring marks the first row only
    assert list(fig.layout.yaxis.ticktext) == ["s0<br>2 of 3 found", "s1<br>1 of 3 found"]
    assert _titles(fig)[0] == "<b>Relevant items by rank: s0 and s1</b>"
    assert fig.layout.xaxis.range == (0, 6)               # the longer list sets the axis
    assert fig.layout.shapes[0].x0 == 2.5                 # K = 2 across both rows


def test_a_long_rank_strip_draws_the_other_ranks_as_one_line():
    short = _strip(([3, 7], [1, 1], 150, 2), cutoff=5)
    assert len(short.data[0].x) == 148 and short.data[0].mode == "markers"   # a tick each
    long = _strip(([3, 7], [1, 1], 1000, 2), cutoff=5)
    assert list(long.data[0].x) == [1, 1000] and long.data[0].mode == "lines"
    assert list(long.data[1].x) == [3, 7]                                     # still marked
    # the K line as plotly's add_vline draws it
    expected = _strip(([3, 7], [1, 1], 1000, 2))
    expected.add_vline(x=5.5, line=dict(color=long.layout.shapes[0].line.color, dash="dash",
                                        width=2),
                       annotation_text="K = 5", annotation_position="top right")
    assert long.to_dict()["layout"] == expected.to_dict()["layout"]


@pytest.mark.parametrize("teaching", [False, True])
@pytest.mark.parametrize("length", [0, 5, 150, 1000])
def test_the_query_figure_passes_plotlys_validation(length, teaching):
    """query_figure skips Plotly's checks for speed: every kind of it must pass them."""
    import plotly.graph_objects as go

    ranks = [r for r in (1, 3, 7) if r <= length]
    rows = [(ranks, [2] * len(ranks), length, 4), (ranks[:1], [1] * len(ranks[:1]), length, 4)]
    recall = np.linspace(0, 1, length)
    fig = _query(rows=rows, pr=PRCurve(recall, recall[::-1], bep=0.5, fmax=(0.5, 0.5, 2),
                                       interpolated=np.ones(11), exact=recall,
                                       cutoff=(0.2, 0.4, 2), current=(0.1, 0.3, 1)),
                 confusion=Confusion(2, 1, 2, None, k=3, name="r" if teaching else "K"),
                 cutoff=2, current=1 if teaching else None)
    go.Figure(fig.to_dict())                      # raises on any property Plotly does not know
    with pytest.raises(ValueError, match="colr"):  # as it would on a misspelt one
        go.Figure({"data": [dict(fig.to_dict()["data"][0], colr="red")]})


def test_figures_carry_plotly_white_in_full_with_tick_labels_drawn_as_they_are():
    import copy

    import plotly.io as pio

    wanted = copy.deepcopy(pio.templates["plotly_white"].to_plotly_json())
    for axis in ("xaxis", "yaxis"):   # charts/base.py: no label measured to be hidden
        wanted["layout"][axis]["ticklabeloverflow"] = "allow"
    for fig in _every_figure():
        assert fig.to_dict()["layout"]["template"] == wanted


def _evaluated(numbers: str) -> float:
    """The value of a worked formula's numbers: \\frac, \\tfrac, \\cdot, \\log_2 and a factor
    \\left( … \\right) turned into Python arithmetic (a term list in full: no \\dots)."""
    text = re.sub(r"\\;\(\\text\{[^}]*\}\)", "", numbers)
    text = text.replace(r"\left(", "*(").replace(r"\right)", ")").replace(r"\cdot", "*")
    text = re.sub(r"\\log_2 (\d+)", r"log2(\1)", text)
    while "frac{" in text:   # innermost first: no brace left inside
        text, done = re.subn(r"\\t?frac\{([^{}]*)\}\{([^{}]*)\}", r"((\1)/(\2))", text)
        assert done, numbers
    assert not set("\\{}") & set(text), (numbers, text)
    return eval(text, {"__builtins__": {}, "log2": math.log2})


def _queries():
    yield judged_answer_sets(), 1                      # Serrà's answer sets, |D| known
    for key, system in (("fmp", "fmp"), ("instruments", "system_a"), ("text2music", "model_a")):
        judged = load_sample(key)[system]
        for threshold in range(1, judged.max_grade + 1):   # fmp at 2: no relevant item
            yield judged, threshold


@pytest.mark.parametrize("k", [1, 4, 8, 14, 1000])
def test_worked_numbers_evaluate_to_the_registrys_value(k):
    """The numbers shown, evaluated, give the value the registry's measure computes; the value
    is undefined exactly where they divide by 0 or the query has no relevant item."""
    seen = set()
    for judged, threshold in _queries():
        for q in range(min(judged.num_queries, 12)):
            r_q = int(judged.num_relevant(threshold)[q])
            for w in worked_examples(judged, q, k, threshold, limit=None):
                seen.add(w.name)
                if w.value is None:
                    if r_q:
                        with pytest.raises(ZeroDivisionError):
                            _evaluated(w.numbers)
                    continue
                # P and R enter F, and IDCG enters nDCG, as shown: to 4 decimals
                assert _evaluated(w.numbers) == pytest.approx(w.value, rel=1e-3, abs=1e-4), \
                    (w.label, w.numbers, w.value)
    assert seen == set(WORKED)


@pytest.mark.parametrize("query", range(6))
@pytest.mark.parametrize("k", [1, 4, 8, 14])
def test_worked_formulas_agree_with_the_engine(query, k):
    judged = judged_answer_sets()
    worked = {w.name: w for w in worked_measures(judged, query, k)}
    engine = evaluate(judged.subset(np.array([query])),
                      f"P@{k},R@{k},F@{k},AP@{k},RR@{k},nDCG@{k},Accuracy@{k},"
                      f"Specificity@{k},Fallout@{k}").aggregate()
    assert list(worked) == list(engine)
    for name, value in engine.items():
        assert worked[name].value == value, name
        assert worked[name].latex.endswith(f"{value:.4f}".rstrip("0").rstrip(".")) or \
            worked[name].latex.endswith(f"{value:g}"), (name, worked[name].latex)


def test_worked_formulas_are_the_registrys():
    judged = judged_answer_sets()
    for w in worked_examples(judged, 0, 4):
        assert w.formula == REGISTRY[w.name].formula
        assert w.formula.startswith(f"{w.name}@K = ") or w.name == "F", w.formula
        shown = next(s for s in worked_measures(judged, 0, 4) if s.name == w.label)
        assert shown.latex.startswith(f"{w.label} = {w.definition} = {w.numbers} = ")


def test_every_registered_measure_has_a_formula():
    for name, definition in REGISTRY.items():
        formula = definition.formula
        assert formula.strip(), name
        assert " = " in formula, (name, formula)          # its notation, then its definition
        depth = 0
        for char in formula.replace(r"\{", "").replace(r"\}", ""):
            depth += (char == "{") - (char == "}")
            assert depth >= 0, (name, formula)
        assert depth == 0, (name, formula)


def test_a_query_without_relevant_items_shows_its_measures_undefined():
    fmp = load_sample("fmp")["fmp"]
    assert int(fmp.num_relevant(2)[0]) == 0
    worked = {w.name: w for w in worked_examples(fmp, 0, 4, threshold=2)}
    assert "F" not in worked and "AP" not in worked
    assert all(w.value is None for n, w in worked.items() if n != "nDCG")   # nDCG takes no rel
    assert worked["nDCG"].value == pytest.approx(evaluate(fmp.subset(np.array([0])),
                                                          "nDCG@4").aggregate()["nDCG@4"])


def test_worked_measures_show_the_listed_order_under_expected_ties():
    tied = load_sample("instruments", TiePolicy.EXPECTED)["system_a"]
    plain = load_sample("instruments")["system_a"]
    for q in range(plain.num_queries):
        assert worked_examples(tied, q, 4) == worked_examples(plain, q, 4)


def test_paired_scatter_and_differences():
    from charts import difference_figure, paired_scatter_figure

    a, b = [0.2, 0.5, 0.9], [0.4, 0.5, 0.1]
    fig = paired_scatter_figure(a, b, ["q1", "q2", "<q3>"], name_a="A", name_b="B", measure="AP")
    groups = {t.name: t for t in fig.data[1:]}   # one trace and one fixed colour per outcome
    assert list(groups) == ["B better (1)", "tie (1)", "A better (1)"]
    assert [t.marker.color for t in groups.values()] == [WIN_COLOUR, TIE_COLOUR, LOSS_COLOUR]
    assert [list(t.customdata) for t in groups.values()] == [[0], [1], [2]]   # indices
    assert list(groups["A better (1)"].text) == ["&lt;q3&gt;"]
    assert (groups["B better (1)"].x[0], groups["B better (1)"].y[0]) == (0.2, 0.4)
    fig = difference_figure(np.array(b) - np.array(a), ["q1", "q2", "q3"], name_a="A",
                            name_b="B", measure="AP")
    assert list(fig.data[0].y) == pytest.approx([-0.8, 0.0, 0.2])
    assert list(fig.data[0].customdata) == [2, 1, 0] and list(fig.data[0].text) == ["q3", "q2",
                                                                                    "q1"]
    assert list(fig.data[0].marker.color) == [LOSS_COLOUR, TIE_COLOUR, WIN_COLOUR]
    assert fig.layout.title.text == "AP, B − A: 1 wins, 1 ties, 1 losses"


def test_the_compare_figures_hover_values_as_the_tables_print_them():
    # 0.65625 is a double exactly; "%.4f" (trec_eval, the tables) rounds the tie to even: 0.6562,
    # where Plotly's "%{y:.4f}" (JavaScript's toFixed) shows 0.6563
    fig = paired_scatter_figure([0.65625], [0.0], ["<q>"], name_a="A", name_b="B", measure="AP")
    assert list(fig.data[3].hovertext) == ["query &lt;q&gt;<br>A 0.6562<br>B 0.0000"]
    assert "{x" not in fig.data[3].hovertemplate and "{y" not in fig.data[3].hovertemplate
    fig = difference_figure([0.65625, -0.65625], ["q1", "q2"], name_a="A", name_b="B",
                            measure="AP")
    assert list(fig.data[0].hovertext) == ["query q2<br>B − A = -0.6562",
                                           "query q1<br>B − A = 0.6562"]
    assert "{y" not in fig.data[0].hovertemplate


def test_many_query_lines_stay_out_of_the_legend():
    few = {f"q{i}": ([0, 1], [1, 0]) for i in range(3)}
    many = {f"q{i}": ([0, 1], [1, 0]) for i in range(20)}
    assert all(t.showlegend is not False for t in pr_curves_figure(few).data)
    fig = pr_curves_figure(many, mean={"A": np.ones(11)})
    assert [t.showlegend for t in fig.data[:20]] == [False] * 20
    assert fig.data[20].showlegend is not False


# --- legible in the light and the dark theme ------------------------------------------------



def test_contrast_ratio_is_wcags():
    assert contrast_ratio("#000000", "#ffffff") == pytest.approx(21.0)
    assert contrast_ratio("#777777", "#ffffff") == pytest.approx(4.48, abs=0.01)
    assert contrast_ratio("#ffffff", "#d9f2d9") < 1.3   # the old highlight under dark text


def _css_colours(css: str) -> dict[str, str]:
    out = {}
    for part in css.split(";"):
        if ":" in part:
            key, value = part.split(":", 1)
            out[key.strip()] = value.strip()
    return out


def _line_colours(fig) -> list[str]:
    colours = []
    for trace in fig.data:
        for colour in (getattr(getattr(trace, "line", None), "color", None),
                       getattr(getattr(trace, "marker", None), "color", None)):
            if isinstance(colour, str):
                colours.append(colour)
            elif colour is not None and not isinstance(colour, (int, float)):
                colours.extend(c for c in colour if isinstance(c, str))
    return colours


def _every_figure():
    curves = {f"q{i}": ([0.5, 1], [1, 0.5]) for i in range(8)}
    yield _query((([1, 4], [1, 2], 4, 3), ([2], [1], 6, 3)),
                 PRCurve([0.5, 1], [1, 0.5], bep=0.5, fmax=(1, 0.5, 2),
                         interpolated=np.linspace(1, 0, 11), exact=[1, 0.5],
                         cutoff=(0.5, 1, 1), current=(1, 0.5, 2)), cutoff=1, current=2)
    yield pr_curves_figure(curves, mean={"A": np.ones(11)})
    yield pr_curves_figure(curves, mean={"A": np.ones(11), "B": np.zeros(11)})
    yield interpolated_pr_figure(RECALL_LEVELS, {"q": np.ones(11)}, mean={"A": np.ones(11)})
    yield lift_curves_figure(curves, mean={"s": ([0, 1], [0, 1])})
    yield roc_figure({f"q{i}": ([0, 1], [0, 1], 0.5) for i in range(8)})
    yield paired_scatter_figure([0.1, 0.5, 0.5], [0.2, 0.5, 0.1], ["a", "b", "c"],
                                name_a="A", name_b="B", measure="AP")
    yield difference_figure([0.1, 0.0, -0.2], ["a", "b", "c"], name_a="A", name_b="B",
                            measure="AP")


def test_figure_lines_and_markers_stand_out_on_both_backgrounds():
    # Streamlit keeps a figure's own colours and draws it on the theme's background
    checked = 0
    for fig in _every_figure():
        for colour in _line_colours(fig):
            if colour == "white":   # the scatter's marker outline
                continue
            for background in (LIGHT_BACKGROUND, DARK_BACKGROUND):
                assert contrast_ratio(colour, background) >= 3, (colour, background)
            checked += 1
    assert checked > 30


def test_confusion_matrix_text_is_dark_on_light_cells():
    [matrix] = _panel(_query(confusion=Confusion(3, 1, 1, None, k=4)), "x3")
    text = matrix.textfont.color
    assert text == HIGHLIGHT_TEXT
    for _, colour in matrix.colorscale:
        assert contrast_ratio(text, colour) >= 4.5


def test_highlighted_rows_set_their_text_colour():
    from dashboard.tables import ranked_list_style

    judged = judged_answer_sets({"A2": [1, 2, 3, 5]}, {"A2": 7}, 14, 2054)
    html_styles = ranked_list_style(query_table(judged, 0))._compute().ctx
    highlighted = [_css_colours("; ".join(f"{k}: {v}" for k, v in css))
                   for css in html_styles.values() if css]
    assert len(highlighted) == 4 * 7   # four relevant rows, seven columns each
    for css in highlighted:
        assert contrast_ratio(css["color"], css["background-color"]) >= 4.5


def test_stacked_formulas_put_the_numbers_on_a_second_line():
    from dashboard.teaching import stacked

    two = stacked(r"AP@4 = \frac{1}{R_q} \sum_{r \le K} P(r) = \frac{1}{4}\left(\tfrac{1}{1}\right)"
                  r" = 0.25")
    assert two == (r"\begin{aligned} AP@4 &= \frac{1}{R_q} \sum_{r \le K} P(r) \\ "
                   r"&= \frac{1}{4}\left(\tfrac{1}{1}\right) = 0.25 \end{aligned}")
    assert stacked("R_q = 4") == "R_q = 4"          # nothing to stack
    assert stacked(r"x = \frac{a = b}{c}") == r"x = \frac{a = b}{c}"   # '=' inside braces


def test_every_worked_formula_names_its_measure():
    worked = worked_measures(judged_answer_sets({"A2": [1, 3]}, {"A2": 3}, 4, 2054), 0, 4)
    assert {w.name.split("@")[0] for w in worked} >= {"Accuracy", "Specificity", "Fallout"}
    for w in worked:
        assert w.latex.startswith(w.name + " = "), w.latex


def test_randomisation_method_is_what_scipy_does():
    from scipy import stats

    from dashboard.captions import randomisation_method
    from metrics.evaluation.stats import DEFAULT_RESAMPLES, paired_test

    rng = np.random.default_rng(3)
    for n, exact in ((8, True), (13, True), (14, False)):
        a, b = rng.random(n), rng.random(n)
        said = randomisation_method(n)
        assert said.startswith("exact") == exact, said
        if exact:   # the p-value is the one of the full enumeration
            full = stats.permutation_test((a, b), lambda x, y, axis: np.mean(y - x, axis=axis),
                                          vectorized=True, permutation_type="samples",
                                          n_resamples=np.inf)
            assert paired_test(a, b, "randomization")[1] == pytest.approx(full.pvalue)
    assert randomisation_method(20) == f"{DEFAULT_RESAMPLES:,} seeded random sign assignments " \
                                       "of the differences"


def test_queries_averaged():
    from dashboard.captions import queries_averaged

    assert queries_averaged(50, {"AP": 1, "RR": 1}) == (49, [])
    assert queries_averaged(50, {"AP": 1, "FirstRank": 4}) == ("46–49", ["FirstRank: 46 of 50"])
    assert queries_averaged(3, {}) == (3, [])


def test_every_worked_measure_says_what_it_rewards():
    worked = worked_measures(load_sample("text2music")["model_a"], 0, 4)
    assert len(worked) == 9
    for w in worked:
        assert 20 < len(w.rewards) < 200 and w.rewards.count(". ") <= 1, w.name


def test_curves_take_their_systems_colour_with_one_legend_entry_per_system():
    from charts.colours import PALETTE

    lines = {f"{s}: q{i}": ([0, 1], [1, 0]) for s in ("A", "B") for i in range(3)}
    groups = {label: label.split(":")[0] for label in lines}
    fig = pr_curves_figure(lines, mean={"A": np.ones(11), "B": np.zeros(11)}, groups=groups)
    per_query = fig.data[:6]
    assert [t.line.color for t in per_query] == [PALETTE[0]] * 3 + [PALETTE[1]] * 3
    assert [t.showlegend for t in per_query] == [True, False, False, True, False, False]
    assert [t.name for t in per_query if t.showlegend] == ["A: each query", "B: each query"]
    assert [t.line.color for t in fig.data[6:]] == [PALETTE[0], PALETTE[1]]   # the means
    roc = roc_figure({k: ([0, 1], [0, 1], 0.5) for k in lines}, groups=groups,
                     mean={"A": ([0, 1], [0, 1]), "B": ([0, 1], [0, 1])})
    assert [t.name for t in roc.data[-2:]] == ["mean: A", "mean: B"]
    assert roc.data[-1].line.color == PALETTE[1] and roc.data[-1].line.width > 3


def test_a_click_on_a_figure_names_the_point_by_its_index():
    from dashboard.clicks import clicked_index

    # the click as dashboard/chart_in_place.js sends it (Plotly's point: its customdata)
    assert clicked_index({"curve_number": 2, "point_index": 0, "customdata": 7}) == 7
    assert clicked_index({"curve_number": 0, "point_index": [1, 2], "customdata": [3]}) == 3
    assert clicked_index({"customdata": None}) is None and clicked_index(None) is None
    assert clicked_index({"customdata": "q1"}) is None
    assert clicked_index({"customdata": True}) is None


# --- answer sets: counts that add up, work that does not follow a typed number -------------

@pytest.mark.parametrize("relevant,size,length,message", [
    ({"A1": 1_000_000}, 2054, 14, "answer set A1: R_q = 1,000,000 is larger than the collection "
                                  "|D| = 2,054"),
    # TP + FN + FP + TN = |D|: 2,050 relevant and 13 listed non-relevant leave TN = −9
    ({"A1": 2_050}, 2054, 14, "lower R_q to at most 2,041 or raise |D| to at least 2,063"),
    ({"A1": 0}, 2054, 14, "answer set A1: the list has 1 relevant items but R_q is 0"),
    ({"A1": -1}, 2054, 14, "answer set A1: R_q (relevant items in the collection) is -1"),
    ({"A1": 1}, 10, 14, "|A| = 14 is larger than the collection |D| = 10"),
    ({"A1": 1}, 10**18, 14, "|D| (the collection size) is 1,000,000,000,000,000,000; give a "
                            "whole number from 1 to 9,007,199,254,740,991"),
    ({"A1": 10**16}, None, 14, "R_q (relevant items in the collection) is "
                               "10,000,000,000,000,000"),
    ({"A1": 1}, 2054, 1001, "|A| (the answer list length) is 1,001"),
])
def test_answer_sets_whose_counts_cannot_add_up_are_refused(relevant, size, length, message):
    from metrics.errors import InputError

    with pytest.raises(InputError) as refused:
        judged_answer_sets({"A1": [4]}, relevant, length, size)
    assert message in str(refused.value)


def test_answer_sets_are_built_from_counts_whatever_r_q_and_the_collection_size():
    # R_q = 10^15 in |D| = 2·10^15 (a MemoryError before: an array of R_q ones); A1 relevant at
    # rank 4 of 14, A2 at 1 and 2 with R_q = 3. By hand: A1 TP 1, FP 13, FN 10^15 − 1,
    # TN = |D| − |A| − FN = 10^15 − 13; AP(norm=retrieved) = P(4) = 1/4; A2 FN 1,
    # TN = 2·10^15 − 14 − 1, AP(norm=retrieved) = 1, R = 2/3
    import time
    import tracemalloc

    from metrics.evaluation.curves import (lift_curve, mean_interpolated_precision, mean_lift,
                                           rank_curves)
    from metrics.explain.answer_sets import TABLE2_MEASURES, table2

    table2(judged_answer_sets())     # imports and caches warmed outside the measurement
    tracemalloc.start()
    start = time.perf_counter()
    judged = judged_answer_sets({"A1": [4], "A2": [1, 2]}, {"A1": 10**15, "A2": 3}, 14,
                                2 * 10**15)
    table = table2(judged)
    curves = [lift_curve(judged, 0), rank_curves(judged, 1), mean_lift(judged),
              mean_interpolated_precision(judged)]
    seconds = time.perf_counter() - start
    peak = tracemalloc.get_traced_memory()[1]
    tracemalloc.stop()
    assert peak < 2 * 2**20 and seconds < 2, (peak, seconds)
    assert len(curves[1].chi) == 14
    assert table.loc[["TP", "FP", "FN", "TN"], "A1"].tolist() == [1, 13, 10**15 - 1, 10**15 - 13]
    assert table.loc[["FN", "TN"], "A2"].tolist() == [1, 2 * 10**15 - 15]
    assert table.loc["AP", "A1"] == 0.25 and table.loc["AP", "A2"] == 1.0
    assert table.loc["Recall", "A2"] == pytest.approx(2 / 3)
    assert set(table.index) == set(TABLE2_MEASURES)


def test_answer_sets_built_from_counts_keep_serras_table_2():
    # the same answer sets as full grade lists (every listed item a judged hit): the same
    # values for every measure of Table 2, and for every registered measure that takes a K
    from metrics.data.judged import JudgedRanking
    from metrics.explain.answer_sets import (COLLECTION_SIZE, NUM_RELEVANT, RELEVANT_POSITIONS,
                                             TABLE2_MEASURES)

    names = list(RELEVANT_POSITIONS)
    lists = [[int(r in RELEVANT_POSITIONS[n]) for r in range(1, 15)] for n in names]
    full = JudgedRanking.from_relevance(lists, [NUM_RELEVANT[n] for n in names],
                                        COLLECTION_SIZE, names)
    measures = [*dict.fromkeys(TABLE2_MEASURES.values()), "AP", "Bpref", "infAP", "Judged@10",
                "nDCG@10", "RBP", "P@5", "IPrec@0.5"]
    ours = evaluate(judged_answer_sets(), measures).per_query()
    theirs = evaluate(full, measures).per_query()
    assert ours.equals(theirs), (ours, theirs)


def test_the_answer_set_table_is_read_as_typed():
    from metrics.errors import InputError
    from metrics.explain.answer_sets import read_answer_sets

    positions, relevant = read_answer_sets(["A1", " B "], ["4", None], [1.0, 0], 14, 2054)
    assert positions == {"A1": [4], "B": []} and relevant == {"A1": 1, "B": 0}
    for names, r, message in [(["A1", None], [1, 1], "row 2 has no name"),
                              (["A1", "A1"], [1, 1], "the name 'A1' is given twice"),
                              (["A1", "B"], [1, float("nan")], "answer set B: R_q is empty"),
                              (["A1", "B"], [1, 2.5], "R_q = 2.5 is not a whole number")]:
        with pytest.raises(InputError) as refused:
            read_answer_sets(names, ["4", ""], r, 14, 2054)
        assert message in str(refused.value), str(refused.value)


def test_pairwise_matrix_figure_writes_differences_and_p_and_stars_the_significant():
    from charts.leaderboard import pairwise_figure

    diff = np.array([[0.0, 0.25], [-0.25, 0.0]])
    p = np.array([[1.0, 0.003], [0.003, 1.0]])
    fig = pairwise_figure(["a", "<b>"], diff, p, measure="AP", correction="Holm", alpha=0.05)
    cell = fig.data[0]
    assert cell.text[0][1] == "+0.2500<br>p = 0.003 *" and cell.text[1][0].startswith("-0.2500")
    assert cell.text[0][0] == "" and cell.texttemplate == "%{text}"
    assert list(cell.x) == ["a", "&lt;b&gt;"]           # a name is text, never HTML
    assert (cell.zmin, cell.zmax) == (-0.25, 0.25)       # white means no difference
    many = pairwise_figure([f"s{i}" for i in range(11)], np.zeros((11, 11)), np.ones((11, 11)),
                           measure="AP", correction="Holm", alpha=0.05)
    assert many.data[0].texttemplate is None             # 121 cells: numbers on hover


def test_query_heatmap_has_a_clickable_marker_on_every_cell():
    from charts.leaderboard import query_heatmap_figure

    values = np.array([[0.0, 0.1, np.nan], [0.5, 0.7, 0.9]])
    fig = query_heatmap_figure(["q2", "q1"], ["x", "y", "z"], values, measure="AP")
    heatmap, clicks = fig.data
    assert np.array_equal(np.asarray(heatmap.z), values, equal_nan=True)
    assert list(clicks.customdata) == list(range(6))
    # the marker of cell 5 sits on row 1 (q1), column z, and says so on hover
    assert (clicks.x[5], clicks.y[5]) == ("z", 1) and clicks.text[5] == "q1 · z: 0.9000"
    assert clicks.text[2] == "q2 · z: undefined"
    assert list(fig.layout.yaxis.ticktext) == ["q2", "q1"]
