import json
"""The teaching mode on a projector and its "what if" edits: the Query explorer with AppTest (the
logic), and the query figure's coinciding markers, 11-point curve and legend (its JSON).
Expected values come from pytrec_eval on edited run and qrels dicts built here, and from FMP
C7S3's toy 1 by hand (relevant at ranks 1, 2, 4 and 8 of 10)."""

from urllib.parse import parse_qs

import numpy as np
import pytest
import pytrec_eval

from charts import Confusion, PRCurve, StripRow, query_figure
from apptest import (address_params, app, chart_figures, confusion_cells, explorer_chart_data,
                     explorer_figure, figure_panel, figure_values, linked)

TOY1 = ["9", "2", "6", "8", "3", "10", "5", "7", "4", "1"]   # sample_data/fmp/toys.run
TOY1_RELEVANT = {"9", "2", "8", "7"}


def _trec_ap(items: list[str], relevant: set[str]) -> dict[str, float]:
    run = {"toy1": {item: float(len(items) - i) for i, item in enumerate(items)}}
    qrels = {"toy1": {item: int(item in relevant) for item in TOY1}}
    return pytrec_eval.RelevanceEvaluator(qrels, {"map", "Rprec", "P.10"}).evaluate(run)["toy1"]


def _metrics(at) -> dict[str, tuple[str, str | None]]:
    return {m.label: (m.value, m.proto.delta or None) for m in at.metric}


def _changes(at):
    [table] = [d.value for d in at.dataframe if "change" in d.value.columns]
    return table.set_index("measure")


def _teaching(**params):
    at = app("pages/explorer.py", sample="fmp", query="toy1", cutoff=4, teaching=True, **params)
    assert not at.exception, at.exception
    return at


def test_toggling_relevance_moves_every_number_and_one_button_goes_back():
    at = _teaching()
    at.number_input(key="teach_rank_box").set_value(3).run()
    at.button(key="whatif_toggle").click().run()          # rank 3 (item 6) judged relevant
    assert not at.exception, at.exception
    assert at.session_state["whatif_edits"] == "g3:1"
    expected = _trec_ap(TOY1, TOY1_RELEVANT | {"6"})
    changes = _changes(at)
    assert changes.loc["AP", "edited"] == pytest.approx(expected["map"], abs=1e-12)
    assert changes.loc["Rprec", "edited"] == pytest.approx(expected["Rprec"], abs=1e-12)
    assert changes.loc["AP", "original"] == pytest.approx(0.8125)   # FMP: AP of toy 1
    # relevant at 1, 2, 3, 4, 8 of R_q = 5: AP = (1 + 1 + 1 + 1 + 5/8)/5 = 0.925
    assert expected["map"] == pytest.approx(0.925)
    shown = " ".join(m.value for m in at.markdown)
    assert "ΔAP = +0.113" in shown and "rank 3 judged grade 1" in shown
    # the row's numbers at r = 3 follow, with their change: χ 0 → 1, TP 2 → 3, P 2/3 → 1,
    # R 2/4 → 3/5
    metrics = _metrics(at)
    assert metrics["χ(r), r = 3"] == ("1", "+1")
    assert metrics["P(r), r = 3"] == ("1.000", "+0.333")
    assert metrics["R(r), r = 3"] == ("0.600", "+0.100")
    # the confusion matrix (|D| = 10, R_q = 5) and the PR curve's break-even point follow
    assert confusion_cells(at) == [["TP = 3", "FN = 2"], ["FP = 0", "TN = 5"]]
    bep = next(t for t in figure_panel(at, "x2") if t["name"].startswith("break-even"))
    assert figure_values(bep["y"]) == [0.8]                # P(5) = 4/5 at r = R_q = 5
    # the link carries the edit; the chart puts it in the address bar
    assert parse_qs(explorer_chart_data(at)["address"])["edits"] == ["g3:1"]
    at.button(key="whatif_reset").click().run()
    assert at.session_state["whatif_edits"] == ""
    assert not [d for d in at.dataframe if "change" in d.value.columns]
    assert confusion_cells(at) == [["TP = 2", "FN = 2"], ["FP = 1", "TN = 5"]]


def test_moving_an_item_up_and_to_a_typed_rank():
    at = _teaching()
    at.number_input(key="teach_rank_box").set_value(8).run()
    at.button(key="whatif_up").click().run()                # item 7: rank 8 -> 7; r follows it
    assert at.session_state["teach_rank"] == 7
    at.number_input(key="whatif_to").set_value(3).run()
    at.button(key="whatif_move").click().run()              # then to rank 3
    assert not at.exception, at.exception
    assert at.session_state["whatif_edits"] == "m8:7,m7:3"
    items = TOY1[:]
    items.insert(2, items.pop(7))
    expected = _trec_ap(items, TOY1_RELEVANT)
    changes = _changes(at)
    assert changes.loc["AP", "edited"] == pytest.approx(expected["map"], abs=1e-12)
    assert changes.loc["P@10", "edited"] == pytest.approx(expected["P_10"], abs=1e-12)
    # the worked measures read the edited list too
    at.segmented_control(key="explorer_view").set_value("Worked measures at K").run()
    assert any(r"\tfrac{3}{3}" in latex.value for latex in at.latex)   # 3rd relevant at rank 3


def test_a_link_with_edits_opens_them_in_teaching_mode():
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", k="4", edits="g3:1,m8:5")
    assert not at.exception, at.exception
    assert at.session_state["teaching"] and at.session_state["whatif_edits"] == "g3:1,m8:5"
    assert _changes(at).loc["AP", "edited"] == pytest.approx(1.0)    # relevant at ranks 1–5
    assert address_params(at)["edits"] == ["g3:1,m8:5"]    # the address bar keeps them


@pytest.mark.parametrize("edits,message", [
    ("g3:1,banana", "'banana', is not g<rank>:<grade>"),
    ("m12:1", "rank 12 is not in the list, which has ranks 1 to 10"),
])
def test_a_malformed_edit_in_a_link_gets_a_note_not_a_traceback(edits, message):
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", edits=edits)
    assert not at.exception, at.exception
    notes = " ".join(w.value for w in at.warning)
    assert message in notes.replace("\\", "") and "shown as it is" in notes
    assert not [d for d in at.dataframe if "change" in d.value.columns]
    assert "edits" not in address_params(at)              # the link drops what it cannot show


def test_edits_belong_to_their_query():
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", edits="g3:1")
    assert at.session_state["whatif_edits"] == "g3:1"
    at.session_state["query"] = "toy2"                      # another query: unedited
    at.run()
    assert not at.exception and at.session_state["whatif_edits"] == ""
    assert not [d for d in at.dataframe if "change" in d.value.columns]


@pytest.mark.parametrize("how", ["steps", "typed"])
def test_the_what_if_controls_follow_r_at_once(how):
    # FMP toy 1 (relevant at 1, 2, 4, 8): r goes from 1 to 3, item 6, not relevant. Before, the
    # controls stood outside the stepper's fragment: the button still read "Make rank 1 not
    # relevant", ↑ Up stayed disabled, "Move to rank" said 1, and a click edited rank 1
    at = _teaching()
    if how == "steps":
        at.button(key="teach_next").click().run()
        at.button(key="teach_next").click().run()
    else:
        at.number_input(key="teach_rank_box").set_value(3).run()
    assert at.session_state["teach_rank"] == 3
    assert at.button(key="whatif_toggle").label == "Make rank 3 relevant"
    assert not at.button(key="whatif_up").disabled and not at.button(key="whatif_down").disabled
    assert at.number_input(key="whatif_to").value == 3
    at.button(key="whatif_toggle").click().run()
    assert at.session_state["whatif_edits"] == "g3:1"
    assert at.button(key="whatif_toggle").label == "Make rank 3 not relevant"
    at.number_input(key="teach_rank_box").set_value(10).run()    # the last rank: no ↓
    assert at.button(key="whatif_down").disabled and at.number_input(key="whatif_to").value == 10


def test_a_links_edits_for_a_query_that_is_not_shown_are_dropped_with_a_note():
    # the link's query does not exist, so toy2 is shown; the edits were toy1's (ΔAP −0.049 on
    # toy2 before): they are dropped, and the link says so
    at = linked("pages/explorer.py", dataset="fmp", query="nosuchquery", k="4",
                edits="g3:1,m8:5")
    assert not at.exception, at.exception
    assert at.session_state["query"] != "nosuchquery"
    notes = " ".join(w.value for w in at.warning).replace("\\", "")
    assert "'nosuchquery'" in notes and "dropped" in notes
    assert at.session_state["whatif_edits"] == ""
    assert not [d for d in at.dataframe if "change" in d.value.columns]
    assert "edits" not in address_params(at)


def test_the_teaching_window_shows_each_items_title():
    # the rows around r on the cover-song sample: each item with its title from the sample's
    # item table, read here from the file
    from oracles import covers_by_hand, covers_items

    listed = covers_by_hand("system_a")
    query = listed.index[0]
    at = app("pages/explorer.py", sample="covers", query=query, teaching=True, teach_rank=4)
    assert not at.exception, at.exception
    window = next(d.value for d in at.dataframe if "in top K" in d.value.columns)
    items = covers_items()
    assert window["rank"].tolist() == [2, 3, 4, 5, 6]
    assert window["item"].tolist() == listed.loc[query, "list"][1:6]
    assert window["title"].tolist() == items.loc[window["item"], "title"].tolist()
    # narrow enough for a projector: the full list below has the scores and the artists
    assert not {"score", "artist"} & set(window.columns)


# --- the query figure ---------------------------------------------------------------------------

def _figure(pr: PRCurve, width_rows=1, **options):
    rows = [StripRow(f"s{i}", [1, 2, 4, 8], [1, 1, 1, 1], 10, 4) for i in range(width_rows)]
    return query_figure(rows, pr, Confusion(3, 1, 1, 5, k=4), query="toy1", cutoff=4, **options)


TOY1_PR = PRCurve([0.25, 0.5, 0.5, 0.75, 0.75, 0.75, 0.75, 1, 1, 1],
                  [1, 1, 2 / 3, 0.75, 0.6, 0.5, 3 / 7, 0.5, 4 / 9, 0.4],
                  bep=0.75, fmax=(0.75, 0.75, 4), cutoff=(0.75, 0.75, 4),
                  interpolated=[1, 1, 1, 1, 1, 1, 0.75, 0.75, 0.5, 0.5, 0.5],
                  exact=[1, 1, 1, 0.75, 0.75, 0.75, 0.75, 0.5, 0.5, 0.5])


def test_coinciding_markers_stay_visible_as_nested_outlines_with_one_label():
    # toy 1 at K = R_q = 4: the K square, the F_max star and the break-even circle share (0.75,
    # 0.75)
    fig = _figure(TOY1_PR)
    marks = [t for t in fig.data if t.xaxis == "x2" and t.mode == "markers"]
    at_point = [t for t in marks if (t.x[0], t.y[0]) == (0.75, 0.75)]
    assert len(at_point) == 3
    # nested outlines, innermost first: the star (whose points reach 1.4 times its size), the
    # break-even circle, the K square; each reaches at least 8 px beyond the one inside it
    nested = sorted(at_point, key=lambda t: t.marker.size)
    assert [t.marker.symbol for t in nested] == ["star-open", "circle-open", "square-open"]
    reach = [t.marker.size * (1.4 if t.marker.symbol == "star-open" else 1) for t in nested]
    assert all(outer - inner >= 8 for inner, outer in zip(reach, reach[1:])), reach
    assert all(t.cliponaxis is False for t in at_point)          # not cut at the axes' edge
    labels = [a.text for a in fig.layout.annotations if a.xref == "x2"]
    assert labels == ["break-even = F_max = K = 4 here"]
    apart = _figure(PRCurve(TOY1_PR.recall, TOY1_PR.precision, bep=0.75,
                            cutoff=(0.5, 2 / 3, 3)))
    assert not [a for a in apart.layout.annotations if a.xref == "x2"]


def test_the_11_point_curve_is_points_joined_straight_and_named_as_samples():
    fig = _figure(TOY1_PR)
    pr = {t.name: t for t in fig.data if t.xaxis == "x2"}
    eleven = pr["its 11-point samples"]
    assert "markers" in eleven.mode and eleven.line.shape in (None, "linear")
    assert list(eleven.x) == pytest.approx(np.linspace(0, 1, 11))
    assert "interpolated P (exact)" in pr


@pytest.mark.parametrize("compact", [False, True])
@pytest.mark.parametrize("rows", [1, 2])
def test_the_pr_legend_sits_below_the_axis_title_within_the_margin(compact, rows):
    fig = _figure(TOY1_PR, width_rows=rows, compact=compact)
    layout = fig.layout
    plot = layout.height - layout.margin.t - layout.margin.b
    legend_top = -layout.legend2.y * plot                     # pixels below the plot area
    assert legend_top >= 55                                    # below ticks and "recall R(r)"
    # three columns of the eight entries: three rows, all inside the bottom margin (a legend
    # that overflowed it would push the plot up under it)
    assert layout.legend2.entrywidthmode == "fraction" and layout.legend2.entrywidth <= 1 / 3
    assert layout.margin.b >= legend_top + 3 * 20
    if compact:     # the teaching figure fits a projector's screen under the rank controls
        assert layout.height <= 530


# --- per-query curves on a projector, the precision axis, the K label ---------------------------

@pytest.mark.parametrize("make", ["pr", "interpolated", "lift", "roc"])
def test_per_query_curves_are_solid_thick_and_nearly_opaque(make):
    from charts import (interpolated_pr_figure, lift_curves_figure, pr_curves_figure,
                        roc_figure)

    curve = ([0, 0.5, 1], [1, 0.5, 0.2])
    fig = {"pr": lambda: pr_curves_figure({"q1": curve, "q2": curve}),
           "interpolated": lambda: interpolated_pr_figure(np.linspace(0, 1, 11),
                                                          {"q1": np.ones(11)}),
           "lift": lambda: lift_curves_figure({"A1": curve}),
           "roc": lambda: roc_figure({"q": (*curve, 0.5)})}[make]()
    lines = [t for t in fig.data if t.name not in ("chance",)]
    for line in lines:   # Serrà's thin translucent dash-dots vanished on a projector
        assert line.line.dash in (None, "solid") and line.line.width >= 2.5
        assert line.opacity >= 0.8


def test_the_precision_axis_can_fit_the_data():
    from charts import interpolated_pr_figure, pr_curves_figure

    failing = {"q": ([0.1, 0.2], [0.03, 0.02])}    # a query that fails: precision <= 0.03
    assert list(pr_curves_figure(failing).layout.yaxis.range) == [-0.02, 1.05]
    fitted = pr_curves_figure(failing, fit=True).layout.yaxis
    assert fitted.range is None and fitted.autorange is True and fitted.rangemode == "tozero"
    fitted = interpolated_pr_figure(np.linspace(0, 1, 11), {"q": np.full(11, 0.03)},
                                    fit=True).layout.yaxis
    assert fitted.range is None and fitted.autorange is True


@pytest.mark.parametrize("cutoff,anchor", [(4, "left"), (1000, "right"), (990, "right")])
def test_the_k_label_stays_inside_the_rank_strip(cutoff, anchor):
    fig = query_figure([StripRow("s", [3, 7], [1, 1], 1000, 2)], TOY1_PR,
                       Confusion(2, 0, 0, None, k=cutoff), query="q", cutoff=cutoff)
    [label] = [a for a in fig.layout.annotations if a.text == f"K = {cutoff}"]
    assert label.xanchor == anchor     # at the right edge the label is left of the line


def test_the_curves_page_fits_the_precision_axis_when_asked():
    import json

    def axis(at, title):
        [spec] = [f for f in chart_figures(at) if title in json.dumps(f, ensure_ascii=False)]
        return spec["layout"]["yaxis"]

    at = app("pages/curves.py", sample="covers")
    assert axis(at, "Precision–recall")["range"] == [-0.02, 1.05]
    at.toggle(key="pr_fit").set_value(True).run()
    assert not at.exception
    fitted = axis(at, "Precision–recall")
    assert "range" not in fitted and fitted["autorange"] is True, fitted
    # the 11-point tab, built when open, fits too
    at = app("pages/curves.py", sample="covers", curve_tab="11-point interpolated", pr_fit=True)
    fitted = axis(at, "Interpolated precision at 11 recall levels")
    assert "range" not in fitted and fitted["autorange"] is True, fitted


@pytest.mark.parametrize("point,anchor,below", [((0.75, 0.75), "right", True),
                                                ((0.1, 0.9), "left", True),
                                                ((0.2, 0.1), "left", False)])
def test_the_combined_label_points_into_the_panel(point, anchor, below):
    fig = _figure(PRCurve([point[0]], [point[1]], bep=point[1] if point[0] == point[1] else None,
                          fmax=(*point, 1), cutoff=(*point, 1)))
    [label] = [a for a in fig.layout.annotations if a.xref == "x2"]
    assert label.xanchor == anchor and (label.ay > 0) == below


def test_the_explorers_precision_axis_fits_a_failing_query():
    # a query whose precision never exceeds 0.05: its curve lay flat along an axis to 1
    failing = PRCurve([0.5, 0.5, 1.0], [1 / 20, 1 / 40, 2 / 60], bep=0.0, cutoff=(0.5, 0.05, 20))
    assert list(_figure(failing).layout.yaxis2.range) == [-0.02, 1.05]
    fitted = _figure(failing, fit_precision=True).layout.yaxis2.range
    assert fitted[1] == pytest.approx(0.05 * 1.05) and fitted[0] < 0
    # covers, system_a, c0047: its first relevant item comes late, precision stays below 0.01
    at = app("pages/explorer.py", sample="covers", system="system_a", query="c0047")
    assert explorer_figure(at)["layout"]["yaxis2"]["range"] == [-0.02, 1.05]
    at.toggle(key="explorer_pr_fit").set_value(True).run()
    assert not at.exception
    low, high = explorer_figure(at)["layout"]["yaxis2"]["range"]
    assert low < 0 < high < 0.01


def test_why_this_query_fails_describes_the_edited_list():
    # toy 1's rank 1 (item 9) judged not relevant: R_q 4 -> 3, all 3 found, the first at rank 2,
    # so the query now fails (its list does not start with a relevant item)
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", k="4", edits="g1:0")
    assert not at.exception, at.exception
    headings = [h.value for h in at.subheader]
    assert "Why this query fails" in headings
    shown = " ".join(m.value for m in at.markdown)
    assert "Found all 3 of its relevant items**, the first at rank 2." in shown
    assert "before the what-if edits" not in " ".join(c.value for c in at.caption)
    # the missed items follow too: the list keeps every relevant item
    at.segmented_control(key="explorer_view").set_value("Relevant items not retrieved").run()
    assert "Every relevant item of this query was retrieved." in \
        " ".join(m.value for m in at.markdown)
    # unedited: toy 1 starts with a relevant item, all 4 found
    at.button(key="whatif_reset").click().run()
    shown = " ".join(m.value for m in at.markdown)
    assert "Found all 4 of its relevant items**, the first at rank 1." in shown
    assert "Why this query fails" not in [h.value for h in at.subheader]


def test_the_answer_sets_page_fits_the_precision_axis_when_asked():
    import json

    def axis(at):
        [spec] = [f for f in chart_figures(at) if "PR curves" in json.dumps(f, ensure_ascii=False)]
        return spec["layout"]["yaxis"]

    at = app("pages/answer_sets.py")
    assert axis(at)["range"] == [-0.02, 1.05]
    at.toggle(key="answer_pr_fit").set_value(True).run()
    assert not at.exception
    fitted = axis(at)
    assert "range" not in fitted and fitted["autorange"] is True, fitted


def test_a_link_opens_the_teaching_mode_at_its_rank_and_follows_each_step():
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", k="4", r="5")
    assert not at.exception, at.exception
    assert at.session_state["teaching"] and at.session_state["teach_rank"] == 5
    assert at.number_input(key="teach_rank_box").value == 5
    # toy 1 at r = 5: relevant at 1, 2, 4 of the top 5, so P(5) = 3/5 (FMP C7S3, Table 7.1)
    assert _metrics(at)["P(r), r = 5"][0] == "0.600"
    assert address_params(at)["r"] == ["5"]
    at.button(key="teach_next").click().run()               # a step reruns the stepper only
    assert parse_qs(explorer_chart_data(at)["address"])["r"] == ["6"]
    # with edits, both travel together
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", edits="g3:1", r="3")
    assert _metrics(at)["χ(r), r = 3"] == ("1", "+1")
    assert address_params(at)["r"] == ["3"] and address_params(at)["edits"] == ["g3:1"]


@pytest.mark.parametrize("r,message", [
    ("banana", "The link's r is not a positive whole number: 'banana'."),
    ("0", "The link's r is not a positive whole number: '0'."),
    ("99", "The link's r = 99 cannot be shown here: this list has 10 ranks, so r = 10 is shown."),
])
def test_a_links_unusable_rank_gets_a_note(r, message):
    at = linked("pages/explorer.py", dataset="fmp", query="toy1", r=r)
    assert not at.exception, at.exception
    assert message in " ".join(w.value for w in at.warning).replace("\\", "")
    if r == "99":
        assert at.session_state["teach_rank"] == 10 and address_params(at)["r"] == ["10"]
    else:   # not a rank: the page opens as it would without one
        assert "r" not in address_params(at) and at.number_input(key="cutoff_box").value == 4


def test_the_conventions_tables_keep_their_row_names_in_view():
    # at 1024 × 768 the seven tie policies scroll sideways: the row's name stays pinned
    import json

    at = app("pages/conventions.py", sample="instruments")
    assert not at.exception
    pinned = []
    for frame in at.main.dataframe:
        config = json.loads(frame.proto.columns)
        pinned.append({name for name, c in config.items() if c.get("pinned")})
    assert pinned[:-1] == [{"printed as"}] * (len(pinned) - 1)     # each protocol's tab
    assert pinned[-1] == {"measure"}                                # the tie policies
