"""Page logic with streamlit.testing.v1.AppTest."""

import json
import re
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.safe import md
from dashboard.settings import DataSource
from metrics.explain.samples import SAMPLES
from oracles import holm_by_hand

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["pages/data.py", "pages/explorer.py", "pages/curves.py", "pages/answer_sets.py",
         "pages/compare.py", "pages/leaderboard.py", "pages/conventions.py", "pages/groups.py"]


# AppTest forgets between runs that app.py declared its pages (it resets Streamlit's pages/
# folder detection before every run, as a fresh server would), so after the first run it runs the
# page script without app.py. A page is therefore tested inside a frame that does what app.py
# does around a page (permalink, sidebar, mark); the real navigation is exercised by the browser
# test.
FRAME = """
import runpy
from dashboard.frame import PageEnded, mark_frame
from dashboard.permalink import read_permalink, write_permalink
from dashboard.sidebar import sidebar
read_permalink({key!r})
sidebar({key!r})
mark_frame()
try:
    runpy.run_path({page!r}, run_name="__main__")
except PageEnded:
    pass
finally:
    write_permalink({key!r})
"""
URL_PATHS = {script: path for script, _, _, path in __import__("dashboard.frame").frame.PAGES}


def app(page: str | None = None, **state) -> AppTest:
    if page:
        at = AppTest.from_string(FRAME.format(page=str(ROOT / page), key=URL_PATHS[page]),
                                 default_timeout=90)
    else:
        at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


@pytest.mark.parametrize("sample", list(SAMPLES))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_every_sample(page, sample):
    at = app(page, sample=sample)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # the grid draws a missing value as "None" unless the table says what to show instead
    for frame in at.dataframe:
        if _drawn(frame).isna().any().any():
            assert frame.proto.HasField("placeholder"), (page, _drawn(frame).columns.tolist())


def test_data_page_shows_the_means():
    # the grid is handed each mean as printed to four decimals: (0.8125 + 0.60833…)/2 = 0.71041…
    at = app(sample="fmp", measures="AP,BEP")
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["fmp", "AP"] == 0.7104
    assert table.loc["fmp", "BEP"] == (0.75 + 0.5) / 2


def test_bad_measure_shows_an_error_not_a_traceback():
    at = app(measures="AP,Nope@3")
    assert not at.exception
    shown = at.error[0].value.replace("\\", "")
    assert "unknown measure 'Nope'" in shown
    # the app names its own list of names, the picker beside the box, not a command
    assert "Pick a measure from the list" in shown and "python -m" not in shown


def _chart_data(at) -> dict:
    """The data of the explorer's chart redrawn in place (dashboard.chart_in_place)."""
    [chart] = [c for c in at.get("bidi_component") if c.proto.component_name == "chart_in_place"]
    return json.loads(chart.proto.json)


def _query_figure(at) -> dict:
    """The explorer's query figure (strip, PR curve, confusion matrix) as the JSON its chart
    drew: the chart carries it as its data."""
    return json.loads(_chart_data(at)["spec"])


def _panel(at, axis: str) -> list[dict]:
    """The traces of one panel of the explorer's query figure: the rank strip on x, the PR
    curve on x2, the confusion matrix on x3."""
    return [t for t in _query_figure(at)["data"] if t.get("xaxis", "x") == axis]


def _confusion(at):
    return _panel(at, "x3")[0]["text"]


def _panel_titles(at) -> list[str]:
    return [a["text"].removeprefix("<b>").removesuffix("</b>")
            for a in _query_figure(at)["layout"]["annotations"]]


WORKED = "Worked measures at K"   # the explorer's view of worked formulas (built only when chosen)


def test_k_slider_drives_the_confusion_matrix():
    # FMP toy 1 (query toy1): relevant at ranks 1, 2, 4, 8 of 10
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    # every document of the toy is judged, so |D| = 10: TN = |D| − K − FN
    at.slider(key="cutoff_slider").set_value(4).run()
    assert _confusion(at) == [["TP = 3", "FN = 1"], ["FP = 1", "TN = 5"]]
    at.slider(key="cutoff_slider").set_value(8).run()
    assert _confusion(at) == [["TP = 4", "FN = 0"], ["FP = 4", "TN = 2"]]
    assert not at.latex                    # the worked formulas are built when their view is chosen
    at.session_state["explorer_view"] = WORKED
    at.run()
    latex = " ".join(m.value for m in at.latex)
    assert r"P@8 &= \frac{TP}{K} \\ &= \frac{4}{8} = 0.5" in latex


def test_k_number_box_and_slider_show_the_same_cutoff():
    # K up to 1,000 cannot be reached by dragging: the number box sets it, the slider follows
    at = app("pages/explorer.py", sample="covers", measures="AP", explorer_view=WORKED)
    at.number_input(key="cutoff_box").set_value(137).run()
    assert at.slider(key="cutoff_slider").value == 137 and at.session_state["cutoff"] == 137
    assert "At cutoff K = 137" in [h.value for h in at.subheader]
    at.slider(key="cutoff_slider").set_value(5).run()
    assert at.number_input(key="cutoff_box").value == 5
    assert not at.sidebar.slider   # K lives in the main column, not in the sidebar


def test_confusion_with_collection_size_on_answer_sets():
    at = app("pages/explorer.py", sample="serra", query="A2")
    at.slider(key="cutoff_slider").set_value(14).run()
    assert _confusion(at) == [["TP = 4", "FN = 3"], ["FP = 10", "TN = 2037"]]


def _query_box(at):
    return next(box for box in at.main.selectbox if box.label == "Query")


def test_choosing_another_query_changes_the_table():
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    first = _frames_with(at, "χ")[0]
    assert first["item"].tolist()[:4] == ["9", "2", "6", "8"]
    _query_box(at).set_value("toy2").run()
    second = _frames_with(at, "χ")[0]
    assert second["item"].tolist()[:4] == ["6", "3", "4", "5"]
    assert second["χ"].tolist() == [0, 1, 1, 0, 1, 1, 0, 0]


def test_a_query_switch_does_not_send_the_query_box_again():
    # The script sets a widget's state only when it differs from the setting: a box whose state
    # the script set is sent to the browser again with all its options (the Query box's
    # thousand labels on a long run, every query switch)
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    _query_box(at).set_value("toy2").run()
    assert not _query_box(at).proto.set_value and at.session_state["query"] == "toy2"
    at.session_state["query"] = "toy1"     # the setting changed elsewhere (a link, a click)
    at.run()
    assert _query_box(at).proto.set_value and _query_box(at).value == "toy1"


def test_queries_are_listed_worst_first():
    at = app("pages/explorer.py", sample="serra", measures="AP(norm=retrieved)")
    options = _query_box(at).options
    assert options[0].startswith("A6") and options[-1].startswith("A2")


def test_bad_upload_shows_an_error():
    # AppTest cannot drive st.file_uploader: hand over what the upload callback stores
    candidate = DataSource.of_upload("runs+qrels", (("runs", "bad.run", b"q1 Q0 d1 1 high s\n"),
                                                    ("qrels", "q.qrels", b"q1 0 d1 1\n")),
                                     None, False, "cosine")
    for page in [p for p in PAGES if p != "pages/answer_sets.py"]:  # that page has its own data
        at = app(page, upload=candidate, sample="upload")
        assert not at.exception
        shown = [e.value.replace("\\", "") for e in at.error]   # as rendered: escapes dropped
        assert any("bad.run, line 1, column 'score': score 'high' is not a number" in text
                   for text in shown), page


def _small_upload(collection_size):   # the system is named by the run's tag, "mine"
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} mine\n".encode() for i in range(1, 6))
    qrels = b"".join(f"q1 0 d{i} {int(i == 2)}\n".encode() for i in range(1, 7))
    return DataSource.of_upload("runs+qrels", (("runs", "mine.run", run),
                                               ("qrels", "q.qrels", qrels)),
                                collection_size, False, "cosine")


def test_an_upload_without_collection_size_says_where_to_give_it():
    at = app("pages/data.py", upload=_small_upload(None), sample="upload", measures="TN@3")
    assert not at.exception
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "TN@3 needs the collection size |D|" in shown and "On the Data page" in shown
    assert "--collection-size" not in shown                # the app names its own control
    curves = app("pages/curves.py", upload=_small_upload(None), sample="upload", curve_tab="ROC")
    info = " ".join(i.value for i in curves.info)
    assert "ROC needs the collection size |D|" in info and "--collection-size" not in info
    explorer = app("pages/explorer.py", upload=_small_upload(None), sample="upload", cutoff=3)
    assert _confusion(explorer) == [["TP = 1", "FN = 0"], ["FP = 2", "TN = ?<br>(|D| unknown)"]]


def test_an_upload_whose_qrels_judge_every_item_has_its_collection_size():
    # six documents judged, d2 relevant, five retrieved: at K = 3 TN = 6 − 3 − 0 = 3
    at = app("pages/data.py", upload=_small_upload("judged"), sample="upload",
             measures="TN@3,Accuracy@3")
    assert not at.exception and not at.error
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["mine", "TN@3"] == 3
    assert table.loc["mine", "Accuracy@3"] == 0.6667          # 4/6, as printed
    summary = at.table[0].value            # Markdown, escaped: "|D|" is written "\|D\|"
    assert summary.loc["collection size \\|D\\|", "mine"] == "6"


def test_fmp_curves_draw_roc_with_each_toys_collection():
    import json

    at = app("pages/curves.py", sample="fmp", curve_tab="ROC")
    assert not at.exception and not at.error
    assert not [i.value for i in at.info if "collection size" in i.value]
    roc = [json.loads(c.proto.spec) for c in at.get("plotly_chart")
           if "ROC along the ranking" in c.proto.spec][0]
    names = " ".join(str(t.get("name")) for t in roc["data"])
    # toy1: relevant at 1, 2, 4, 8 of 10, six negatives: (6 + 6 + 5 + 2)/(4·6) = 19/24;
    # toy2: relevant at 2, 3, 5, 6 of 8, four negatives: (3 + 3 + 2 + 2)/(4·4) = 10/16
    assert f"AUC {19 / 24:.3f}" in names and f"AUC {10 / 16:.3f}" in names, names


def test_good_upload_is_evaluated():   # the system is named by the run's tag, "mine"
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} mine\n".encode() for i in range(1, 6))
    qrels = b"q1 0 d2 1\nq1 0 d9 1\n"
    candidate = DataSource.of_upload("runs+qrels", (("runs", "mine.run", run),
                                                    ("qrels", "q.qrels", qrels)),
                                     None, False, "cosine")
    at = app("pages/data.py", upload=candidate, sample="upload", measures="AP,RR")
    assert not at.exception and not at.error
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["mine", "AP"] == pytest.approx(0.5 / 2)
    assert table.loc["mine", "RR"] == pytest.approx(0.5)


def _preferred_order(at):
    return next(box for box in at.text_input if box.label.startswith("Your preferred order"))


def test_answer_sets_page_shows_paper_beside_ours():
    # at.dataframe[0] is the answer-set editor, [1] Table 2 computed, [2] as printed, [3] the
    # agreement
    at = app("pages/answer_sets.py")
    computed, printed = at.dataframe[1].value, at.dataframe[2].value
    assert list(computed.columns) == list(printed.columns) == [f"A{i}" for i in range(1, 7)]
    assert computed.loc["FN", "A6"] == 4 and printed.loc["FN", "A6"] == 14
    assert computed.loc["bpref", "A1"] == pytest.approx(-2.0)
    errata = " ".join(m.value for m in at.markdown)
    assert "FN, A6" in errata and "Specificity, A1" in errata
    assert "bpref = BprefUncapped" in " ".join(c.value for c in at.caption)


def test_answer_sets_curves_name_their_means():
    import json

    at = app("pages/answer_sets.py")
    assert not at.exception
    names = [t.get("name") for c in at.get("plotly_chart")
             for t in json.loads(c.proto.spec)["data"]]
    assert "mean: answer sets" in names and "mean interpolated: answer sets" in names
    assert not any(n and n.endswith(": mean") for n in names), names
    assert [n for n in names if n in {f"A{i}" for i in range(1, 7)}] == [
        f"A{i}" for i in range(1, 7)] * 2     # each answer set in both figures


def _shown(frame) -> pd.DataFrame:
    """The cells of a styled st.dataframe as the browser shows them (the Styler's strings)."""
    import pyarrow as pa

    return pa.ipc.open_stream(frame.proto.arrow_data.styler.display_values).read_pandas()


def test_answer_sets_counts_are_whole_numbers():
    at = app("pages/answer_sets.py")
    for frame in at.dataframe[1:3]:
        shown = _shown(frame)
        assert shown.loc["TN", "A1"] == "2040" and shown.loc["FP", "A1"] == "13"
        assert shown.loc["Accuracy", "A1"] == "0.994"   # the rates keep three decimals


def test_answer_sets_agreement_puts_the_bpref_variants_first():
    at = app("pages/answer_sets.py")
    agreement = at.dataframe[3].value
    assert set(agreement["measure"][:2]) == {"bpref-10", "bpref*"}
    assert agreement["Kendall τ"][:2].tolist() == pytest.approx([1.0, 1.0])
    _preferred_order(at).set_value("A6, A5, A4, A3, A2, A1").run()
    reversed_order = at.dataframe[3].value
    assert reversed_order["measure"].iloc[-1] in ("bpref-10", "bpref*")
    assert reversed_order["Kendall τ"].iloc[-1] == pytest.approx(-1.0)


def test_answer_sets_without_the_papers_collection_size_hide_the_paper():
    at = app("pages/answer_sets.py")
    at.number_input(key="answer_collection_size").set_value(5000).run()
    assert len(at.dataframe) == 3   # editor, computed, agreement: no printed table
    table = at.dataframe[1].value
    assert table.loc["TN", "A1"] == 5000 - 14


def test_compare_page_statistics_match_scipy():
    from scipy import stats

    from metrics import evaluate
    from metrics.explain.samples import load_sample
    at = app("pages/compare.py", sample="instruments", measures="AP,nDCG@10")
    assert not at.exception and not at.error
    tests = at.dataframe[0].value     # one column per test, one row per quantity
    assert list(tests.columns) == ["t-test", "Wilcoxon", "randomisation"]
    data = load_sample("instruments")
    a = evaluate(data["system_a"], "AP").results["AP"].values
    b = evaluate(data["system_b"], "AP").results["AP"].values
    assert float(tests.loc["p", "t-test"]) == pytest.approx(stats.ttest_rel(b, a).pvalue, 1e-3)
    assert float(tests.loc["p", "Wilcoxon"]) == pytest.approx(stats.wilcoxon(b, a).pvalue, 1e-3)
    assert tests.loc["mean B − A", "t-test"] == f"{(b - a).mean():.4f}"
    wins, ties, losses = map(int, tests.loc["wins / ties / losses", "t-test"].split(" / "))
    assert wins + ties + losses == len(a) and wins == int((b > a).sum())
    # each test in words above the table, its p from scipy
    words = [m.value.replace("\\", "") for m in at.markdown if "average" in m.value]
    [t_test] = [line for line in words[0].splitlines() if "(paired t-test)" in line]
    assert stats.ttest_rel(b, a).pvalue < 0.001 and "p < 0.001" in t_test
    assert f"system_b is {(b - a).mean():.3g} AP better than system_a" in t_test


def test_compare_says_one_verdict_then_the_tests():
    # issue 40, defect 10: the same sentence was printed once per test
    from scipy import stats

    from metrics import evaluate
    from metrics.explain.samples import load_sample
    at = app("pages/compare.py", sample="instruments", measures="AP")
    said = [m.value.replace("\\", "") for m in at.markdown if "on average" in m.value]
    assert len(said) == 1 and said[0].count("on average") == 1, said
    data = load_sample("instruments")
    a, b = (evaluate(data[s], "AP").results["AP"].values for s in ("system_a", "system_b"))
    p = stats.wilcoxon(b, a).pvalue
    for test in ("(paired t-test)", "(Wilcoxon signed-rank test)", "(randomisation test)"):
        assert said[0].count(test) == 1
    assert ((f"p = {p:.2g}" if p >= 0.001 else "p < 0.001") + " (Wilcoxon signed-rank test)"
            in said[0])
    assert list(at.dataframe[0].value.columns) == ["t-test", "Wilcoxon", "randomisation"]


def test_compare_page_of_five_systems_shows_holm_over_the_ten_pairs():
    from scipy import stats

    from metrics import evaluate
    from metrics.explain.samples import load_sample
    at = app("pages/compare.py", sample="versions", measures="AP")
    assert not at.exception and not at.error
    tests = at.dataframe[0].value
    assert list(tests.index) == ["mean B − A", "95% interval", "p", "p (Holm)", "d",
                                 "wins / ties / losses"]
    # Holm by hand over the ten paired t-tests of five systems, from scipy's p-values
    data = load_sample("versions")
    ap = {s: evaluate(run, "AP").results["AP"].values for s, run in data.items()}
    names = list(ap)
    raw = {(a, b): stats.ttest_rel(ap[b], ap[a]).pvalue
           for i, a in enumerate(names) for b in names[i + 1:]}
    assert len(raw) == 10
    holm = dict(zip(raw, holm_by_hand(np.array(list(raw.values())))))
    a, b = at.selectbox(key="system_a_box").value, at.selectbox(key="system_b_box").value
    pair = (a, b) if (a, b) in holm else (b, a)
    assert float(tests.loc["p (Holm)", "t-test"]) == pytest.approx(holm[pair], rel=1e-3)


def test_compare_side_by_side_changes_with_the_query():
    at = app("pages/compare.py", sample="covers", measures="AP")
    first = at.selectbox(key="compare_query_box").value
    tables = at.main.dataframe
    left, right = tables[-2].value, tables[-1].value
    assert "rank in other" in left.columns and len(left) == len(right) == 299
    other = "c0001" if first != "c0001" else "c0002"   # the options' labels hold the titles
    at.selectbox(key="compare_query_box").set_value(other).run()
    assert at.selectbox(key="compare_query_box").value == other != first


def test_compare_needs_two_systems():
    at = app("pages/compare.py", sample="fmp")
    assert not at.exception
    assert "one system" in at.info[0].value


@pytest.mark.parametrize("page", PAGES)
def test_a_page_run_without_the_frame_never_fails(page):
    # what a deep link as a fresh server's first request does: the page script runs alone,
    # with an empty session (the browser test checks the real navigation that follows)
    at = AppTest.from_file(str(ROOT / page), default_timeout=90).run()
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    assert at.session_state["sample"] == "fmp" and at.session_state["_frame_rerun"]


def _highlight_rules(at) -> list[dict[str, str]]:
    """The declarations of every Styler rule that sets a background, over the page's tables."""
    import re

    rules = []
    for frame in at.dataframe:
        if not frame.proto.arrow_data.HasField("styler"):
            continue
        for body in re.findall(r"\{([^}]*)\}", frame.proto.arrow_data.styler.styles):
            css = dict((k.strip(), v.strip()) for k, v in
                       (d.split(":", 1) for d in body.split(";") if ":" in d))
            if "background-color" in css:
                rules.append(css)
    return rules


@pytest.mark.parametrize("page,state", [("pages/explorer.py", {"sample": "fmp"}),
                                        ("pages/compare.py", {"sample": "instruments"}),
                                        ("pages/answer_sets.py", {})])
def test_highlighted_cells_carry_a_legible_text_colour(page, state):
    # the dark theme's text is white: a light background alone would make the cell unreadable
    from charts.colours import contrast_ratio

    rules = _highlight_rules(app(page, **state))
    assert rules
    for css in rules:
        assert "color" in css, css
        assert contrast_ratio(css["color"], css["background-color"]) >= 4.5, css


def test_query_labels_follow_the_system_and_the_sort():
    # the box is keyed on system and sort: its labels always hold the current system's values
    from metrics import evaluate
    from metrics.explain.samples import load_sample

    at = app("pages/explorer.py", sample="instruments", measures="AP,P@10")
    chosen = _query_box(at).value
    at.selectbox(key="system_box").set_value("system_b").run()
    box = _query_box(at)
    ap = evaluate(load_sample("instruments")["system_b"], "AP").per_query().set_index(
        "query_id")["AP"]
    assert box.value == chosen                                 # the query stays
    assert f"{chosen}  (AP = {ap[chosen]:.4f})" in box.options
    assert all(f"(AP = {ap[o.split()[0]]:.4f})" in o for o in box.options)
    at.selectbox(key="sort_by").set_value("P@10").run()
    assert _query_box(at).value == chosen
    assert all("(P@10 = " in o for o in _query_box(at).options)


def linked(page: str, **params) -> AppTest:
    """``page`` opened through a link carrying ``params``."""
    at = AppTest.from_string(FRAME.format(page=str(ROOT / page), key=URL_PATHS[page]),
                             default_timeout=90)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def _params(at) -> dict[str, list[str]]:
    """The query string the frame put in the address bar (dashboard.in_page.show_address)."""
    addresses = {json.loads(c.proto.json)["address"] for c in at.get("bidi_component")
                 if c.proto.component_name == "address_bar"}
    [address] = addresses    # the frame's, and the explorer's fragment's when it writes one
    return parse_qs(address)


def test_a_permalink_restores_dataset_query_and_k():
    at = linked("pages/explorer.py", dataset="covers", query="c0042", k="25", ties="trec",
                measures="AP,RR", threshold="1")
    assert not at.exception and not at.error
    state = at.session_state
    assert (state["sample"], state["query"], state["cutoff"], state["ties"], state["measures"]) \
        == ("covers", "c0042", 25, "trec9", "AP,RR")   # "trec" is trec9's former name
    assert _query_box(at).value == "c0042"
    assert at.number_input(key="cutoff_box").value == 25
    assert "Confusion matrix at K = 25" in _panel_titles(at)


def test_the_url_follows_the_settings():
    at = linked("pages/explorer.py", dataset="instruments")
    at.number_input(key="cutoff_box").set_value(7).run()
    at.selectbox(key="system_box").set_value("system_b").run()
    query = _query_box(at).options[2].split()[0]
    _query_box(at).set_value(query).run()
    params = _params(at)
    assert params["dataset"] == ["instruments"] and params["k"] == ["7"]
    assert params["systems"] == ["system_b"] and params["query"] == [query]
    assert params["measures"] == [at.session_state["measures"]]


def test_the_explorers_chart_carries_the_permalink():
    # a query switch or a change of K reruns the explorer's fragment only: its chart, not
    # st.query_params, puts the link in the address bar (the browser test checks it does)
    at = linked("pages/explorer.py", dataset="instruments")
    at.number_input(key="cutoff_box").set_value(7).run()
    query = _query_box(at).options[2].split()[0]
    _query_box(at).set_value(query).run()
    address = parse_qs(_chart_data(at)["address"])
    assert address["k"] == ["7"] and address["query"] == [query]
    assert address == _params(at)   # what the frame writes after a full run


def test_teaching_an_empty_list_has_no_chart_and_still_links_the_query():
    # q3 is judged but not retrieved: its list is empty, there is no figure to carry the link
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} s\n".encode() for i in range(1, 4))
    qrels = b"q1 0 d1 1\nq3 0 d9 1\n"
    candidate = DataSource.of_upload("runs+qrels", (("runs", "mine.run", run),
                                                    ("qrels", "q.qrels", qrels)),
                                     None, False, "cosine")
    at = app("pages/explorer.py", upload=candidate, sample="upload", query="q3", teaching=True)
    assert not at.exception
    assert any("nothing to step through" in i.value for i in at.info)
    assert not [c for c in at.get("bidi_component") if c.proto.component_name == "chart_in_place"]
    assert _params(at)["query"] == ["q3"]


def test_a_link_with_two_systems_opens_compare_on_them():
    at = linked("pages/compare.py", dataset="instruments", systems=["system_b", "system_a"])
    assert not at.exception and not at.error
    assert at.selectbox(key="system_a_box").value == "system_b"
    assert at.selectbox(key="system_b_box").value == "system_a"
    assert _params(at)["systems"] == ["system_b", "system_a"]


def test_a_link_to_uploaded_data_says_it_cannot_hold_the_files():
    at = linked("pages/data.py", dataset="upload")
    assert not at.exception and not at.error
    assert any("uploaded files, which cannot be stored in a link" in i.value.replace("\\", "")
               for i in at.info)
    assert at.session_state["sample"] == "fmp"


def test_a_link_with_unusable_values_warns_and_shows_the_defaults():
    at = linked("pages/explorer.py", dataset="nope", k="-3", ties="random", query="missing")
    assert not at.exception and not at.error
    warnings = " ".join(w.value.replace("\\", "") for w in at.warning)
    assert "'nope'" in warnings and "'-3'" in warnings and "'random'" in warnings
    assert at.session_state["sample"] == "fmp" and at.session_state["cutoff"] == 4
    assert _query_box(at).value in ("toy1", "toy2")


def test_tie_notices_name_their_system():
    at = app("pages/data.py", sample="covers", measures="AP,P@10")   # ties straddle K = 10
    notices = [i.value.replace("\\", "") for i in at.info if "score ties" in i.value]
    assert len(notices) == 1 and notices[0].startswith("**system_a** — score ties")


def test_the_means_say_how_many_queries_they_average():
    # Serrà's A6 retrieves no relevant item: FirstRank is undefined there, AP is not
    at = app("pages/data.py", sample="serra", measures="AP,FirstRank")
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["answer sets", "queries averaged"] == "5–6"
    assert "answer sets — FirstRank: 5 of 6" in " ".join(c.value.replace("\\", "")
                                                        for c in at.caption)
    at = app("pages/data.py", sample="serra", measures="AP")
    assert at.dataframe[0].value.set_index("system").loc["answer sets", "queries averaged"] == 6


def test_the_randomisation_caption_says_when_the_test_is_exact():
    at = app("pages/compare.py", sample="instruments", measures="AP")   # 12 queries: 4,096
    caption = " ".join(c.value for c in at.caption)
    assert "exact (all 2^12 = 4,096 sign assignments" in caption and "10,000" not in caption
    at = app("pages/compare.py", sample="covers", measures="AP")        # 300 queries
    assert "10,000 seeded random sign assignments" in " ".join(c.value for c in at.caption)


def test_sidebar_shows_only_the_controls_a_page_uses():
    sidebar = app("pages/answer_sets.py").sidebar
    assert not sidebar.selectbox and not sidebar.text_input and not sidebar.number_input
    assert "its own data" in sidebar.caption[0].value
    sidebar = app("pages/curves.py", sample="instruments").sidebar
    assert [b.label for b in sidebar.selectbox] == ["Dataset", "Ties"]
    assert not sidebar.text_input                  # no measures: the curves do not use them
    sidebar = app("pages/explorer.py", sample="instruments").sidebar
    assert [b.label for b in sidebar.text_input] == ["Measures"]
    picker = {"picker_name", "picker_cutoff"}     # the measure picker, beside the measures box
    assert [b.label for b in sidebar.number_input if b.key not in picker] == \
        ["Relevance threshold"]
    assert {b.key for b in sidebar.selectbox} - picker == {"sample_box", "ties_box"}


SWITCHING_FRAME = """
import runpy
import streamlit as st
from dashboard.frame import mark_frame
from dashboard.sidebar import sidebar
from dashboard.frame import PageEnded
page, key = st.session_state["_test_page"]
sidebar(key)
mark_frame()
try:
    runpy.run_path(page, run_name="__main__")
except PageEnded:
    pass
"""


def _switch(at, page: str) -> None:
    script = f"pages/{page}.py"
    at.session_state["_test_page"] = (str(ROOT / script), URL_PATHS[script])
    at.run()
    assert not at.exception, (page, at.exception)


def test_a_page_is_as_it_was_left_after_another_page():
    # the explorer in teaching mode at r = 3 with an edit, the worked measures open below the
    # figure and the queries sorted by RR; Curves; the explorer again. Before, the teaching
    # mode, and with it r and the edits, were gone (the switch was a widget's state, which
    # Streamlit drops on a run that does not draw it), and so were the view and the sort
    at = AppTest.from_string(SWITCHING_FRAME, default_timeout=90)
    at.session_state["sample"], at.session_state["query"] = "fmp", "toy1"
    _switch(at, "explorer")
    at.toggle(key="teaching_box").set_value(True).run()
    at.number_input(key="teach_rank_box").set_value(3).run()
    at.button(key="whatif_toggle").click().run()
    at.segmented_control(key="explorer_view").set_value("Worked measures at K").run()
    at.selectbox(key="sort_by").set_value("RR").run()
    _switch(at, "curves")
    at.radio(key="curve_mode").set_value("choose").run()
    at.multiselect(key="curve_queries").set_value(["toy2"]).run()
    _switch(at, "explorer")
    assert at.toggle(key="teaching_box").value and at.session_state["teach_rank"] == 3
    assert at.session_state["whatif_edits"] == "g3:1"
    assert at.button(key="whatif_toggle").label == "Make rank 3 not relevant"
    assert at.segmented_control(key="explorer_view").value == "Worked measures at K"
    assert at.selectbox(key="sort_by").value == "RR"
    _switch(at, "curves")
    assert at.radio(key="curve_mode").value == "choose"
    assert at.multiselect(key="curve_queries").value == ["toy2"]


@pytest.mark.parametrize("page", ["compare", "leaderboard"])
def test_a_page_that_ends_early_still_writes_its_link(page):
    # FMP has one system: the page says so and shows nothing more. Before, it ended with
    # st.stop(), after which nothing reached the browser, the address bar neither: the link
    # lost the dataset, and a reload showed the default one
    at = linked(f"pages/{page}.py", dataset="serra", measures="AP,RR")
    assert not at.exception, at.exception
    assert "one system" in " ".join(i.value for i in at.info)
    params = _params(at)
    assert params["dataset"] == ["serra"] and params["measures"] == ["AP,RR"]


def test_settings_survive_a_page_that_hides_their_controls():
    # one session going explorer → answer sets (no sidebar controls) → curves (no measures box)
    # → explorer: Streamlit drops a widget's state on a run that does not draw it; the settings
    # must not go with it
    at = AppTest.from_string(SWITCHING_FRAME, default_timeout=90)
    at.session_state["_test_page"] = (str(ROOT / "pages/explorer.py"), "explorer")
    at.session_state["sample"] = "instruments"
    at.run()
    at.sidebar.text_input(key="measures_box").set_value("AP,RR").run()
    at.number_input(key="cutoff_box").set_value(6).run()
    for page in ("answer_sets", "curves", "explorer"):
        script = f"pages/{page}.py"
        at.session_state["_test_page"] = (str(ROOT / script), URL_PATHS[script])
        at.run()
        assert not at.exception, page
    assert at.sidebar.text_input(key="measures_box").value == "AP,RR"
    assert at.number_input(key="cutoff_box").value == 6
    assert at.sidebar.selectbox(key="sample_box").value == "instruments"


def _drawn(frame) -> pd.DataFrame:
    """The data under a st.dataframe: the grid draws a missing value there as the element's
    placeholder, whatever a Styler's display string for that cell says."""
    import pyarrow as pa

    return pa.ipc.open_stream(frame.proto.arrow_data.data).read_pandas()


def test_items_the_other_system_missed_say_not_retrieved():
    at = app("pages/compare.py", sample="instruments", measures="AP")   # 100 rows: styled
    left = _shown(at.main.dataframe[-2])
    shown = set(left["rank in other"])
    assert "not retrieved" in shown and "None" not in shown
    drawn = _drawn(at.main.dataframe[-2])["rank in other"]
    assert not drawn.isna().any() and "not retrieved" in set(drawn)
    from dashboard.tables import plain_ranked_list   # lists longer than 200 rows

    long = pd.DataFrame({"rank": [1, 2], "item": ["a", "b"], "grade": pd.array([1, None], "Int64"),
                         "χ": [1, 0], "rank in other": pd.array([3, None], dtype="Int64")})
    assert plain_ranked_list(long)["rank in other"].tolist() == ["3", "not retrieved"]
    assert plain_ranked_list(long)["grade"].tolist() == ["1", "unjudged"]


def test_tie_report_shows_how_far_ties_move_each_query():
    from metrics import evaluate
    from metrics.explain.samples import load_sample
    from metrics.ranking.tie_aware import reordered
    at = app("pages/data.py", sample="covers", measures="AP,P@10")
    boxes = [e for e in at.expander if "how far tied scores can move" in e.label]
    assert len(boxes) == 1 and boxes[0].label.startswith(md("system_a"))
    moves = boxes[0].dataframe[0].value
    judged = load_sample("covers", "stable")["system_a"]
    for policy in ("pessimistic", "optimistic"):
        values = evaluate(reordered(judged, policy), "AP,P@10").per_query().set_index("query_id")
        for _, row in moves.iterrows():   # shown to four decimals
            assert row[policy] == pytest.approx(values.loc[row["query_id"], row["measure"]],
                                                abs=5e-5)
    ap = moves[moves["measure"] == "AP"]
    assert len(ap) and (ap["pessimistic"] < ap["optimistic"]).all()


def test_data_page_shows_each_mean_with_its_interval():
    closed = app(sample="covers", measures="AP,P@10")   # closed: no bootstrap on a first page
    assert not any("CI low" in d.value.columns for d in closed.main.dataframe)
    at = app(sample="covers", measures="AP,P@10", intervals_open=True)
    assert not at.exception, at.exception
    table = next(d.value for d in at.main.dataframe if "CI low" in d.value.columns)
    assert set(table["measure"]) == {"AP", "P@10"} and len(table) == 2 * table["system"].nunique()
    assert ((table["CI low"] <= table["mean"]) & (table["mean"] <= table["CI high"])).all()
    assert (table["CI low"] < table["CI high"]).all()


def test_conventions_page_shows_every_protocol_and_tie_policy():
    from metrics.data.ties import TiePolicy
    TIE_POLICIES = TiePolicy.names()
    from metrics.evaluation.protocols import PROTOCOLS

    at = app("pages/conventions.py", sample="fmp", measures="AP,P@5")
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # one tab per protocol, in the registry's order, then the tie-policy table
    tables = [d.value for d in at.main.dataframe]
    assert len(tables) == len(PROTOCOLS) + 1
    grid = pd.concat({name: t.set_index("printed as") for name, t in zip(PROTOCOLS, tables)})
    assert set(TIE_POLICIES) <= set(grid.columns)
    for name, protocol in PROTOCOLS.items():
        assert list(grid.loc[name].index) == [c.name for c in protocol.columns]
    # FMP's toys: relevant at ranks 1, 2, 4, 8 and 2, 3, 5, 6 (R_q = 4 each), no ties;
    # lists of 10 and 8 items. MusCALL (one paired item per query, a square matrix) and TTMR
    # (lists of at least 10) fail on them: empty, with the reason
    for name in ("muscall", "muscall-text-to-music", "ttmr"):
        assert grid.loc[name, list(TIE_POLICIES)].isna().all().all(), name
    assert grid.loc[("clap", "median_rank"), "stable"] == "1"      # floor(median(0, 1)) + 1
    assert grid.loc[("ttmr", "R@5"), "ours"] == "0.7500"           # (3/4 + 3/4)/2
    assert grid.loc[("clap", "median_rank"), "ours"] == "1.5000"   # median of 1 and 2
    # a count as an integer: toy1 has 4 relevant in its top 10 (ranks 1, 2, 4, 8), toy2 all 4
    # of its 8 items' relevant ones
    assert grid.loc[("mirex-cover", "Total covers in top 10"), "stable"] == "8"
    ties = tables[-1].set_index("measure")
    assert ties.loc["AP", "stable"] == "0.7104"    # (0.8125 + 0.60833…)/2, as printed
    assert not ties["changes with ties"].any()
    notes = " ".join(m.value for m in at.markdown)
    assert all(p in notes for p in TIE_POLICIES)
    assert "torch\\.median" in notes and "jackknife" in notes   # each difference, one line
    assert "exactly one item" in notes and "shorter than 10" in notes   # why none printed


# --- teaching mode, why a query fails, a list of a million ------------------------------------

def _values(data) -> list:
    """A figure's array as a list (Plotly sends numpy arrays base64-encoded)."""
    import base64

    import numpy as np

    if isinstance(data, dict) and "bdata" in data:
        return np.frombuffer(base64.b64decode(data["bdata"]), dtype=data["dtype"]).tolist()
    return list(data)


def _frames_with(at, column):
    return [d.value for d in at.dataframe if column in d.value.columns]


def test_teaching_mode_steps_through_the_ranking():
    # FMP toy 1: relevant at ranks 1, 2, 4, 8 of 10 (FMP C7S3's table)
    at = app("pages/explorer.py", sample="fmp", query="toy1", cutoff=4)
    at.toggle(key="teaching_box").set_value(True).run()
    assert not at.exception
    at.number_input(key="teach_rank_box").set_value(4).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"χ(r), r = 4": "1", "TP(r), r = 4": "3", "P(r), r = 4": "0.750",
                       "R(r), r = 4": "0.750", "F(r), r = 4": "0.750"}
    assert _confusion(at) == [["TP = 3", "FN = 1"], ["FP = 1", "TN = 5"]]    # |D| = 10
    window = _frames_with(at, "in top K")[0]
    assert window["rank"].tolist() == [2, 3, 4, 5, 6]    # r with two rows either side
    assert window.set_index("rank")["in top K"].to_dict()[4] == "✓"
    assert window.set_index("rank")["in top K"].to_dict()[5] == ""
    at.number_input(key="teach_rank_box").set_value(7).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["P(r), r = 7"] == "0.429" and metrics["χ(r), r = 7"] == "0"   # 3/7
    assert _confusion(at) == [["TP = 3", "FN = 1"], ["FP = 4", "TN = 2"]]
    assert "PR curve of toy1" in _panel_titles(at)
    traces = {t.get("name"): t for t in _panel(at, "x2")}
    assert _values(traces["rank r = 7"]["x"]) == [0.75]
    assert _values(traces["rank r = 7"]["y"]) == [3 / 7]
    assert _values(traces["cutoff K = 4"]["y"]) == [0.75]
    exact = _values(traces["interpolated P (exact)"]["y"])
    # max precision at recall >= R(r): R = 0.25, 0.5, 0.5, 0.75 (ranks 4-7), 1 (ranks 8-10);
    # P at the relevant ranks 1, 2, 4, 8 is 1, 1, 0.75, 0.5 and falls after each
    assert exact == pytest.approx([1, 1, 1, 0.75, 0.75, 0.75, 0.75, 0.5, 0.5, 0.5])


def test_teaching_mode_play_advances_and_stops_at_the_end():
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    at.toggle(key="teaching_box").set_value(True).run()
    at.number_input(key="teach_rank_box").set_value(9).run()
    at.button(key="teach_play").click().run()
    assert at.session_state["teach_playing"]
    assert at.button(key="teach_play").label == "⏸ Pause"
    at.run()                                 # a tick of the timer: one rank on
    assert at.session_state["teach_rank"] >= 10
    at.run()                                 # at the end: the player stops itself
    assert not at.session_state["teach_playing"] and at.session_state["teach_rank"] == 10
    assert not at.exception


def test_a_pause_handled_twice_stays_paused():
    import streamlit as st

    from dashboard.query_view import _set_playing

    st.session_state["teach_rank"], st.session_state["teach_playing"] = 5, True
    _set_playing(10, False)
    _set_playing(10, False)                  # the same click again: still paused
    assert st.session_state["teach_playing"] is False and st.session_state["teach_rank"] == 5
    _set_playing(10, True)
    assert st.session_state["teach_playing"] is True


def test_every_formula_says_what_it_rewards():
    at = app("pages/explorer.py", sample="serra", query="A2", explorer_view=WORKED)
    captions = [c.value for c in at.caption]
    assert any(c.startswith("Rewards only the first relevant item") for c in captions)
    assert len(at.latex) == 9 and sum(c.startswith(("Rewards", "High only", "Counts", "The share"))
                                      for c in captions) == 9


def test_why_a_query_fails_lists_the_missed_items_with_the_other_systems_rank(tmp_path):
    import numpy as np

    from metrics.explain.summaries import failure_report
    from metrics.explain.samples import load_sample

    at = app("pages/explorer.py", sample="instruments", query="violin", measures="AP",
             cutoff=10, explorer_view="Relevant items not retrieved")
    assert not at.exception and "Why this query fails" in [h.value for h in at.subheader]
    missed = _frames_with(at, "rank in system_b")[0]
    data = load_sample("instruments")
    expected = failure_report(data["system_a"], 0, 1, data["system_b"], "system_b").missed
    assert missed["item"].tolist() == expected["item"].tolist()
    ranks = expected["rank in system_b"]
    assert missed["rank in system_b"].tolist() == [
        "not retrieved" if r is pd.NA else f"{int(r):,}" for r in ranks]
    assert "not retrieved" in missed["rank in system_b"].tolist()
    text = " ".join(m.value for m in at.markdown)
    assert "Unjudged in the top K = 10: 0 of 10 (0%)" in text          # taxonomy judges all
    assert "Relevant items by rank: system_a and system_b" in _panel_titles(at)
    rows = _query_figure(at)["layout"]["yaxis"]["ticktext"]
    assert [row.split("<br>")[0] for row in rows] == ["system_a", "system_b"]
    assert np.all(data["system_a"].query_ids == data["system_b"].query_ids)


def test_the_query_text_and_the_unjudged_share_of_text_to_music():
    from metrics.explain.samples import query_texts

    at = app("pages/explorer.py", sample="text2music", query="t001", system="model_a",
             cutoff=10)
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**Query text:** “dark rock with string ensemble for studying”" in text
    assert query_texts("text2music")["t001"] == "dark rock with string ensemble for studying"
    # the qrels judge a few items per query: count the judged ones in model_a's top 10
    from metrics.explain.samples import load_sample

    judged = load_sample("text2music")["model_a"]
    q = list(judged.query_ids).index("t001")
    ranks = judged.hit_ranks[judged.offsets[q]:judged.offsets[q + 1]]
    unjudged = 10 - int((ranks <= 10).sum())
    assert f"Unjudged in the top K = 10: {unjudged} of 10 ({unjudged / 10:.0%})**" in text


def test_a_list_of_a_million_items_is_shown_a_page_at_a_time(tmp_path):
    import numpy as np

    n = 1_000_000
    run = tmp_path / "long.run"
    ranks = np.arange(1, n + 1)
    with run.open("w") as f:   # one query with a list of a million, one with ten
        f.write("".join(f"big Q0 d{r} {r} {n - r} s\n" for r in ranks))
        f.write("".join(f"small Q0 d{r} {r} {10 - r} s\n" for r in range(1, 11)))
    qrels = tmp_path / "long.qrels"
    qrels.write_text("big 0 d3 1\nbig 0 d500123 2\nbig 0 d999999 1\nbig 0 gone 1\n"
                     "small 0 d2 1\n")
    candidate = DataSource.of_upload("runs+qrels", (("runs", "long.run", run.read_bytes()),
                                                    ("qrels", "long.qrels", qrels.read_bytes())),
                                     None, False, "cosine")
    explorer = app("pages/explorer.py", upload=candidate, sample="upload", query="big",
                   measures="AP")
    assert not explorer.exception, explorer.exception
    table = _frames_with(explorer, "in top K")[0]
    assert len(table) == 50 and table["rank"].tolist() == list(range(1, 51))   # the first page
    explorer.number_input(key="ranking_page").set_value(10_003).run()   # ranks 500,101-500,150
    table = _frames_with(explorer, "in top K")[0]
    assert table["rank"].tolist()[0] == 500_101 and len(table) == 50
    row = table.set_index("rank").loc[500_123]
    assert row["item"] == "d500123" and row["χ"] == 1 and row["grade"] == "2"
    assert row["P(r)"] == pytest.approx(2 / 500_123) and row["R(r)"] == pytest.approx(2 / 4)
    assert "PR curve of big" in _panel_titles(explorer)
    drawn = _panel(explorer, "x2")[0]
    assert len(_values(drawn["x"])) < 20 and _values(drawn["customdata"])[-1] == n   # corners
    explorer.session_state["explorer_view"] = "Relevant items not retrieved"
    explorer.run()
    missed = _frames_with(explorer, "grade")
    assert any(m["item"].tolist() == ["gone"] for m in missed)


def test_curves_draw_each_systems_mean_roc_and_say_only_what_is_drawn():
    import json

    at = app("pages/curves.py", sample="instruments", curve_tab="ROC")
    assert not at.exception and not at.error
    roc = [json.loads(c.proto.spec) for c in at.get("plotly_chart")
           if "ROC along the ranking" in c.proto.spec][0]
    names = [t.get("name") for t in roc["data"]]
    assert "mean: system_a" in names and "mean: system_b" in names
    assert "system_a: each query" in names and "system_b: each query" in names
    captions = " ".join(c.value for c in at.caption)
    assert "in its system's colour" in captions and "mean ROC curve" in captions
    many = app("pages/curves.py", sample="covers")        # 300 queries: means only
    captions = " ".join(c.value for c in many.caption)
    assert "Per-query lines are left out above 40 queries" in captions
    assert "Thin lines" not in captions


def test_the_measure_picker_adds_a_registered_measure_with_its_cutoff():
    from metrics.measures.registry import REGISTRY

    at = app("pages/data.py", measures="AP")
    picker = at.sidebar.selectbox(key="picker_name")
    assert picker.options[:3] == [f"{n} — {REGISTRY[n].meaning}" for n in list(REGISTRY)[:3]]
    picker.set_value("nDCG").run()
    text = " ".join(m.value for m in at.sidebar.markdown).replace("\\", "")
    assert REGISTRY["nDCG"].convention.replace("\\", "")[:30] in text
    at.sidebar.number_input(key="picker_cutoff").set_value(5).run()
    next(b for b in at.sidebar.button if b.label == "Add to the measures").click().run()
    assert at.session_state["measures"] == "AP,nDCG@5"
    assert at.sidebar.text_input(key="measures_box").value == "AP,nDCG@5"
    assert "nDCG@5" in at.dataframe[0].value.columns          # evaluated at once
    aliases = at.sidebar.dataframe[0].value
    assert aliases.set_index("name").loc["map", "means"] == "AP"
    at.sidebar.text_input(key="measures_box").set_value("map,P_5,MRR").run()   # trec_eval/papers
    assert not at.error and {"map", "P_5", "MRR"} <= set(at.dataframe[0].value.columns)


def test_the_first_page_run_freezes_the_libraries_objects_once(monkeypatch):
    # the server's full garbage collections skip what the imports made (dashboard/frame.py)
    import gc
    import sys

    import dashboard.frame as frame

    freezes = []
    monkeypatch.setattr(gc, "freeze", lambda: freezes.append(set(sys.modules)))
    monkeypatch.setattr(frame, "_frozen", False)
    assert not app("pages/data.py", sample="fmp").exception   # a page that draws nothing …
    assert len(freezes) == 1 and {"plotly.graph_objects", "pandas", "streamlit"} <= freezes[0]
    assert not app("pages/explorer.py", sample="fmp").exception
    assert len(freezes) == 1                        # … and never again, whatever is loaded


def test_the_libraries_are_frozen_before_the_first_dataset_is_loaded(monkeypatch):
    # a frozen object is never collected: the sample the sidebar loads must come after the freeze
    # (and the collection after that load then walks the dataset only, not the libraries)
    import gc

    import dashboard.datasets as datasets
    import dashboard.frame as frame

    events = []
    load_source = datasets.load_source
    monkeypatch.setattr(gc, "freeze", lambda: events.append("freeze"))
    monkeypatch.setattr(datasets, "load_source",
                        lambda *args, **kw: events.append("load") or load_source(*args, **kw))
    monkeypatch.setattr(frame, "_frozen", False)
    assert not app("pages/explorer.py", sample="covers").exception
    assert events[0] == "freeze" and events.count("freeze") == 1 and "load" in events


def test_a_query_without_relevant_items_shows_empty_recall_cells():
    # q2's items are all judged not relevant: R_q = 0, so R(r) and F(r) are undefined
    run = b"".join(f"{q} Q0 d{i} {i} {10 - i} s\n".encode() for q in ("q1", "q2")
                   for i in range(1, 4))
    qrels = b"q1 0 d1 1\nq2 0 d1 0\nq2 0 d2 0\n"
    candidate = DataSource.of_upload("runs+qrels", (("runs", "mine.run", run),
                                                    ("qrels", "q.qrels", qrels)),
                                     None, False, "cosine")
    at = app("pages/explorer.py", upload=candidate, sample="upload", query="q2")
    assert not at.exception
    assert any("no relevant item in the ground truth" in w.value for w in at.warning)
    [table] = [f for f in at.main.dataframe if "R(r)" in _drawn(f).columns]
    assert _drawn(table)["R(r)"].isna().all() and _drawn(table)["F(r)"].isna().all()
    assert table.proto.HasField("placeholder") and table.proto.placeholder == ""   # not "None"
    assert set(_shown(table)["R(r)"]) == {""}
    # the table of all queries: q2's measures are undefined, and say so
    at.session_state["all_queries_open"] = True
    at.run()
    [queries] = [f for f in at.main.dataframe if "query_id" in _drawn(f).columns]
    assert _drawn(queries).set_index("query_id").loc["q2"].isna().any()
    assert queries.proto.placeholder == "undefined"


# --- issue 29: huge grades, answer sets that cannot add up, user text, CSV, rounding ----------

def _upload(runs: dict[str, bytes], qrels: bytes, collection_size=None) -> DataSource:
    return DataSource.of_upload("runs+qrels", (*(("runs", name, run) for name, run in
                                                 runs.items()), ("qrels", "q.qrels", qrels)),
                                collection_size, False, "cosine")


@pytest.mark.parametrize("page", PAGES)
def test_grades_of_2_to_the_53_and_beyond_render_every_page(page):
    # a grade of 2^53 (which the docs allow) and of 2^62: the threshold box holds at most
    # 2^53 − 1, the largest integer a browser's numbers hold exactly (a larger bound ended every
    # page with StreamlitJSNumberBoundsError); a link's threshold of 2^62 gives way to it
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} s\n".encode() for i in range(1, 6))
    qrels = f"q1 0 d1 {2**53}\nq1 0 d2 {2**62}\nq1 0 d3 1\n".encode()
    at = app(page, upload=_upload({"mine.run": run}, qrels), sample="upload", threshold=2**62)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    if page != "pages/answer_sets.py":   # that page has data of its own, and no threshold
        box = at.sidebar.number_input(key="threshold_box")
        assert box.max == 2**53 - 1 and box.value == 2**53 - 1
        assert f"AP(rel={2**62})" in box.help          # how to ask for a higher threshold
    if page == "pages/data.py":           # the engine keeps the grade exact
        assert at.table[0].value.iloc[:, 0]["highest grade"] == str(2**62)


def _no_negative_count(at) -> None:
    for frame in at.dataframe[1:]:
        counts = frame.value.loc[[r for r in ("TP", "FP", "FN", "TN") if r in frame.value.index]]
        assert (counts.to_numpy(dtype=float) >= 0).all(), counts


def _edit_answer_sets(edits: dict, size: int | None = None):
    at = app("pages/answer_sets.py")
    at.session_state["answer_sets_editor"] = {"edited_rows": edits, "added_rows": [],
                                              "deleted_rows": []}
    if size is not None:
        at.number_input(key="answer_collection_size").set_value(size)
    return at.run()


@pytest.mark.parametrize("edits,size,message", [
    ({0: {"num_relevant": 1_000_000}}, None,
     "answer set A1: R_q = 1,000,000 is larger than the collection |D| = 2,054"),
    # 2,050 relevant and the list's 13 non-relevant items do not fit in 2,054: TN would be −9
    ({0: {"num_relevant": 2_050}}, None, "answer set A1: R_q = 2,050 relevant items and the "
                                         "list's 13 non-relevant ones are 2,063 items"),
    ({1: {"num_relevant": 3}}, None, "answer set A2: the list has 4 relevant items but R_q is 3"),
    ({0: {"num_relevant": 10**18}}, None, "answer set A1: R_q = 1,000,000,000,000,000,000 is "
                                          "beyond 9,007,199,254,740,991"),
    ({}, 10, "|A| = 14 is larger than the collection |D| = 10"),
    ({5: {"answer_set": "A1"}}, None, "the name 'A1' is given twice"),
])
def test_answer_sets_that_cannot_add_up_are_refused_with_what_to_fix(edits, size, message):
    # before: TN −997,959 and Accuracy −485.9 for an R_q of 10^6 (TP + FN + FP + TN = |D|
    # broken), a MemoryError for 10^15
    at = _edit_answer_sets(edits, size)
    assert not at.exception, at.exception
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    assert message in shown, shown
    assert len(at.dataframe) == 1        # the editor only: no table of impossible counts


def test_answer_sets_with_an_r_q_of_10_to_the_15_are_counted_not_allocated():
    # |D| = 2·10^15, R_q(A1) = 10^15, A1 relevant at rank 4 of 14: TP = 1, FP = 13,
    # FN = 10^15 − 1, TN = |D| − |A| − FN = 2·10^15 − 14 − (10^15 − 1) = 10^15 − 13
    at = _edit_answer_sets({0: {"num_relevant": 10**15}}, 2 * 10**15)
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[1].value
    assert table.loc[["TP", "FP", "FN", "TN"], "A1"].tolist() == [1, 13, 10**15 - 1, 10**15 - 13]
    _no_negative_count(at)


def _markdown_texts(at) -> list[str]:
    """Every string of the page that Streamlit reads as Markdown: text elements, labels and help
    of widgets, expanders and metrics, and every cell and header of an st.table."""
    from streamlit.testing.v1 import element_tree as tree

    text_kinds = (tree.Markdown, tree.Title, tree.Header, tree.Subheader, tree.AlertBase)
    texts = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            walk(child)
        if isinstance(node, text_kinds):
            texts.append(node.value)
        if isinstance(node, tree.Table):
            frame = node.value
            texts.extend(str(x) for x in [*frame.columns, *frame.index, *frame.to_numpy().ravel()])
        for attr in ("label", "help"):
            if isinstance(getattr(node, attr, None), str):
                texts.append(getattr(node, attr))

    walk(at.main)
    walk(at.sidebar)
    return texts


# file names (a name holds no "/": the browser would send only what follows it)
LINKS = ["![i](https:img.example) x", "[md](https:link.example) y"]
QUERY_LINK = "[q](https://q.example/)"


@pytest.mark.parametrize("page", [p for p in PAGES if p != "pages/answer_sets.py"])
def test_user_text_reaches_markdown_escaped_on_every_page(page):
    # file names (so system names), query ids and tie notices that are Markdown links and images
    runs = {f"{name}.run": b"".join(f"{q} Q0 d{i} {i} {5 - (i > 2)} s\n".encode()
                                    for q in (QUERY_LINK, "**b**") for i in range(1, 6))
            for name in LINKS}
    qrels = f"{QUERY_LINK} 0 d2 1\n**b** 0 d3 1\n**b** 0 d9 1\n".encode()
    at = app(page, upload=_upload(runs, qrels), sample="upload", query=QUERY_LINK,
             system=LINKS[0], all_queries_open=True)
    assert not at.exception, at.exception
    texts = _markdown_texts(at)
    unescaped = [t for t in texts if re.search(r"(?<!\\)\]\(", t)]
    assert not unescaped, unescaped               # no live link, no image request
    joined = "\n".join(texts)
    if page == "pages/data.py":                   # the summary's header: each file's name
        assert all(md(name) in joined for name in LINKS), joined
    if page == "pages/compare.py":                # the button that opens the query
        assert md(QUERY_LINK) in joined


def test_csv_downloads_neutralise_formulas_and_keep_numbers():
    import csv
    import io

    from dashboard.tables import csv_bytes
    from metrics.evaluation.provenance import read_comment_lines

    ids = ['=HYPERLINK("https://evil.example/","x")', "+SUM(1)", "-2+3", "@cmd", "-1", "q7"]
    frame = pd.DataFrame({"query_id": ids, "AP": [0.5, -0.25, 1.0, None, -3.0, 0.0],
                          "n": [1, -2, 3, 4, 5, 6], "grade": ["-1", "unjudged", "2", "=1", "",
                                                              "4"]})
    record = {"inputs": [{"name": "a,=cmd|' /C calc'!A0.run"}], "order": ["=1+1", "A2"]}
    text = csv_bytes(frame.rename(columns={"AP": "=AP"}), record).decode()
    rows = list(csv.reader(io.StringIO(text)))
    body = [row for row in rows if not row[0].startswith("# ")]
    assert body[0] == ["query_id", "'=AP", "n", "grade"]
    assert [row[0] for row in body[1:]] == ["'" + ids[0], "'+SUM(1)", "'-2+3", "'@cmd", "-1",
                                            "q7"]
    assert [row[1] for row in body[1:]] == ["0.5", "-0.25", "1.0", "", "-3.0", "0.0"]
    assert [row[2] for row in body[1:]] == ["1", "-2", "3", "4", "5", "6"]
    assert [row[3] for row in body[1:]] == ["-1", "unjudged", "2", "'=1", "", "4"]
    # the provenance lines: no cell a spreadsheet splits off at a comma starts a formula, and
    # the record reads back as it was
    for row in rows:
        if row[0].startswith("# "):
            assert not [cell for cell in row[1:] if cell.lstrip('"').startswith(("=", "+", "@"))]
    assert read_comment_lines(text) == record


def test_every_download_is_written_by_the_one_csv_writer():
    sources = [*ROOT.glob("pages/*.py"), *ROOT.glob("dashboard/*.py"), ROOT / "app.py"]
    writers = [p.name for p in sources if "st.download_button(" in p.read_text()]
    assert writers == ["tables.py"]


def _browser_fixed(value: float, digits: int) -> str:
    """What a browser's ``Number.prototype.toFixed`` writes (ECMAScript: the n with n / 10^f − x
    closest to zero, the larger n on a tie), which the grid's "%.4f" format uses."""
    from fractions import Fraction

    exact = abs(Fraction(value)) * 10**digits
    n = int(exact + Fraction(1, 2))               # ties: the larger n
    text = f"{n // 10**digits}.{n % 10**digits:0{digits}d}"
    return ("-" if value < 0 else "") + text


def _cell_shown(element, row: int, column: str) -> str:
    """A cell as the browser shows it: a Styler's text, or the grid's printf format applied."""
    if element.proto.arrow_data.styler.display_values:
        return _shown(element).iloc[row][column]
    digits = int(json.loads(element.proto.columns)[column]["type_config"]["format"][2:-1])
    return _browser_fixed(float(element.value.iloc[row][column]), digits)


def test_one_rounding_in_every_table_and_on_the_command_line(tmp_path):
    # P@32 of three queries: 21/32 = 0.65625, 16/32, 26/32; mean 63/96 = 0.65625. trec_eval
    # prints "%.4f": 0.65625 is a double exactly, and C rounds the tie to even: 0.6562
    import subprocess
    import sys

    relevant = {"q1": 21, "q2": 16, "q3": 26}
    run = "".join(f"{q} Q0 d{i} {i} {100 - i} s\n" for q in relevant for i in range(1, 33))
    qrels = "".join(f"{q} 0 d{i} 1\n" for q, n in relevant.items() for i in range(1, n + 1))
    (tmp_path / "mine.run").write_text(run)
    (tmp_path / "q.qrels").write_text(qrels)
    printed = subprocess.run([sys.executable, "-m", "metrics", "evaluate",
                              str(tmp_path / "mine.run"), str(tmp_path / "q.qrels"),
                              "--measures", "P@32", "--per-query"],
                             cwd=ROOT, capture_output=True, text=True, check=True).stdout
    assert "0.6562" in printed and "0.6563" not in printed, printed
    upload = _upload({"mine.run": run.encode()}, qrels.encode())
    data = app("pages/data.py", upload=upload, sample="upload", measures="P@32",
               intervals_open=True)
    means = next(d for d in data.main.dataframe if "P@32" in d.value.columns)
    assert _cell_shown(means, 0, "P@32") == "0.6562"
    bounds = next(d for d in data.main.dataframe if "CI low" in d.value.columns)
    assert _cell_shown(bounds, 0, "mean") == "0.6562"
    explorer = app("pages/explorer.py", upload=upload, sample="upload", measures="P@32",
                   all_queries_open=True)
    per_query = next(d for d in explorer.main.dataframe if "query_id" in d.value.columns)
    row = per_query.value["query_id"].tolist().index("q1")
    assert _cell_shown(per_query, row, "P@32") == "0.6562"
    assert any(o.startswith("q1  (P@32 = 0.6562)") for o in _query_box(explorer).options)


# --- issue 32: many systems at once (the Leaderboard page, the power sentence on Compare) ------

VERSIONS = ROOT / "sample_data" / "versions"
VERSION_SYSTEMS = ["baseline", "chroma_dtw", "cqt_net", "cqt_net_aug", "transformer"]


def _pytrec_ap(system: str) -> dict[str, float]:
    """Per-query AP of one system of the versions sample, by pytrec_eval (the oracle)."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    for line in (VERSIONS / "qrels.txt").read_text().splitlines():
        q, _, item, grade = line.split()
        qrels.setdefault(q, {})[item] = int(grade)
    run: dict[str, dict[str, float]] = {}
    for line in (VERSIONS / f"{system}.run").read_text().splitlines():
        q, _, item, _, score, _ = line.split()
        run.setdefault(q, {})[item] = float(score)
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return {q: values[q]["map"] if q in values else 0.0 for q in qrels}


def _leaderboard_numbers(at) -> pd.DataFrame:
    return next(d.value for d in at.main.dataframe if "p vs baseline" in d.value.columns)


def _leaderboard_caption(at) -> str:
    return next(c.value for c in at.caption if "Significance" in c.value).replace("\\", "")


def test_leaderboard_agrees_with_pytrec_eval_and_scipy_on_the_versions_sample():
    from scipy import stats

    from metrics.evaluation.leaderboard import leaderboard

    at = app("pages/leaderboard.py", sample="versions", measures="AP", ties="trec9")
    assert not at.exception and not at.error
    ap = {s: _pytrec_ap(s) for s in VERSION_SYSTEMS}
    queries = sorted(ap["baseline"])
    per_query = {s: {"AP": np.array([ap[s][q] for q in queries])} for s in VERSION_SYSTEMS}
    shown = _leaderboard_numbers(at).set_index("system")
    assert list(shown.index) == VERSION_SYSTEMS
    # means as printed (four decimals), from pytrec_eval's per-query values
    for s in VERSION_SYSTEMS:
        assert shown.loc[s, "mean"] == float(f"{per_query[s]['AP'].mean():.4f}")
    # Holm over the four paired t-tests against the baseline, by hand from scipy's p-values
    raw = {s: stats.ttest_rel(per_query[s]["AP"], per_query["baseline"]["AP"]).pvalue
           for s in VERSION_SYSTEMS[1:]}
    holm = dict(zip(raw, holm_by_hand(np.array(list(raw.values())))))
    for s in VERSION_SYSTEMS[1:]:
        # below 1e-16 a p prints as "< 1e-16", never as "0" (issue 40)
        assert shown.loc[s, "p vs baseline"] == ("< 1e-16" if holm[s] < 1e-16 else
                                                 f"{holm[s]:.4g}")
    assert shown.loc["baseline", "p vs baseline"] == "—"
    assert shown["best"].tolist() == [False] * 4 + [True]
    # and the whole table is the engine's on those independent values (BH against the best too)
    at.radio(key="leaderboard_correction").set_value("bh").run()
    rows = leaderboard(per_query, ["AP"], "baseline", "bh")
    bh = _leaderboard_numbers(at).set_index("system")
    for row in rows:
        expected = ("—" if row.p_best is None else "< 1e-16" if row.p_best < 1e-16 else
                    f"{row.p_best:.4g}")
        assert bh.loc[row.system, "p vs best"] == expected
    [grid] = at.main.table   # one measure, five systems: the systems run down
    assert grid.value.loc["transformer", "AP"].startswith("**0.9068** ★ ▲\n")


def test_leaderboard_correction_baseline_and_alpha_change_the_tests_and_the_caption():
    at = app("pages/leaderboard.py", sample="versions", measures="AP,nDCG@10")
    holm = _leaderboard_numbers(at)
    assert "Holm's step-down correction" in _leaderboard_caption(at)
    assert "α = 0.05" in _leaderboard_caption(at)
    at.radio(key="leaderboard_correction").set_value("tukey").run()
    tukey = _leaderboard_numbers(at)
    assert "Tukey's HSD" in _leaderboard_caption(at)
    assert not holm["p vs baseline"].equals(tukey["p vs baseline"])
    at.selectbox(key="baseline_box").set_value("cqt_net").run()
    moved = _leaderboard_numbers(at).set_index(["system", "measure"])
    assert moved.loc[("cqt_net", "AP"), "p vs baseline"] == "—"
    assert moved.loc[("baseline", "AP"), "− baseline"] < 0
    at.number_input(key="leaderboard_alpha").set_value(0.01).run()
    assert "α = 0.01" in _leaderboard_caption(at)
    params = _params(at)
    assert params["systems"] == ["cqt_net"]   # the baseline, the correction and α: in the link
    assert (params["correction"], params["alpha"]) == (["tukey"], ["0.01"])


def test_a_leaderboard_link_restores_correction_alpha_baseline_and_measure():
    at = linked("pages/leaderboard.py", dataset="versions", measures="AP,nDCG@10",
                correction="bh", alpha="0.01", systems="cqt_net", measure="nDCG@10")
    assert not at.exception and not at.error and not at.warning
    assert "Benjamini–Hochberg" in _leaderboard_caption(at)
    assert "α = 0.01" in _leaderboard_caption(at)
    assert at.radio(key="leaderboard_correction").value == "bh"
    assert at.selectbox(key="leaderboard_measure_box").value == "nDCG@10"
    params = _params(at)
    assert (params["correction"], params["alpha"], params["systems"], params["measure"]) == \
        (["bh"], ["0.01"], ["cqt_net"], ["nDCG@10"])


def test_a_groups_link_restores_grouping_measure_group_and_systems():
    at = linked("pages/groups.py", dataset="versions", measures="AP,P@10", group_by="R_q",
                measure="P@10", group="5", systems=["cqt_net", "transformer"])
    assert not at.exception and not at.error and not at.warning
    assert at.selectbox(key="group_measure").value == "P@10"
    assert at.selectbox(key="group_open_box").value == "5"
    assert any(b.label == "Open the 12 queries" for b in at.button)
    params = _params(at)
    assert (params["group_by"], params["measure"], params["group"], params["systems"]) == \
        (["R_q"], ["P@10"], ["5"], ["cqt_net", "transformer"])


def test_leaderboard_of_two_systems_and_of_one():
    at = app("pages/leaderboard.py", sample="covers", measures="AP")
    assert not at.exception and not at.error
    assert len(_leaderboard_numbers(at)) == 2
    assert any("Groups that cannot be told apart" in m.value for m in at.markdown)
    single = app("pages/leaderboard.py", sample="fmp")
    assert not single.exception and "one system" in single.info[0].value


def _array(value) -> np.ndarray:
    """A figure's array as sent to the browser: a list, or Plotly's binary {dtype, bdata,
    shape}."""
    import base64

    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", len(flat))).split(",")]
        return flat.reshape(shape)
    return np.asarray(value, dtype=float)


def _figures(at) -> list[dict]:
    return [json.loads(c.proto.spec) for c in at.get("plotly_chart")]


def test_leaderboard_with_twenty_systems_stays_legible():
    rng = np.random.default_rng(32)
    queries, docs = 30, 20
    qrels = "".join(f"q{q} 0 d{d} {int(d < 3)}\n" for q in range(queries) for d in range(docs))
    runs = {}
    for s in range(20):
        lines = []
        for q in range(queries):
            scores = rng.normal(size=docs) + (s / 10) * (np.arange(docs) < 3)
            lines += [f"q{q} Q0 d{d} 1 {scores[d]:.6f} s{s}\n" for d in range(docs)]
        runs[f"system{s:02d}.run"] = "".join(lines).encode()
    at = app("pages/leaderboard.py", upload=_upload(runs, qrels.encode()), sample="upload",
             measures="AP,P@5")
    assert not at.exception and not at.error
    assert len(_leaderboard_numbers(at)) == 40
    matrix, heatmap = _figures(at)
    assert _array(matrix["data"][0]["z"]).shape == (20, 20)
    assert "texttemplate" not in matrix["data"][0]   # 400 cells: the numbers on hover only
    cells, clicks = heatmap["data"]
    assert _array(cells["z"]).shape == (30, 20)
    assert len(_array(clicks["customdata"])) == 600
    # hardest first: the mean over the systems of each row never decreases
    means = _array(cells["z"]).mean(axis=1)
    assert np.all(np.diff(means) >= -1e-12)


def test_compare_says_which_differences_these_queries_can_detect():
    from statsmodels.stats.power import TTestPower

    from metrics import evaluate
    from metrics.explain.samples import load_sample

    at = app("pages/compare.py", sample="covers", measures="AP")
    data = load_sample("covers")
    a = evaluate(data["system_a"], "AP").results["AP"].values
    b = evaluate(data["system_b"], "AP").results["AP"].values
    diff = b - a
    effect = TTestPower().solve_power(nobs=len(diff), alpha=0.05, power=0.8)
    smallest = effect * diff.std(ddof=1)
    sentence = next(m.value for m in at.markdown if "unlikely to be detected" in m.value)
    assert sentence.replace("\\", "") == (
        f"With these {len(diff)} queries, differences below {smallest:.3g} in AP are unlikely "
        f"to be detected (power 0.8 at α = 0.05, paired t-test).")
    at.number_input(key="compare_delta").set_value(0.02).run()
    needed = next(m.value for m in at.markdown if "needs" in m.value).replace("\\", "")
    import math
    by_statsmodels = math.ceil(TTestPower().solve_power(effect_size=0.02 / diff.std(ddof=1),
                                                        alpha=0.05, power=0.8))
    assert f"needs {by_statsmodels:,} queries" in needed


# --- issue 32, part 3: uploads and names for many systems ------------------------------------

def _means(at) -> pd.DataFrame:
    return at.dataframe[0].value.set_index("system")


def test_an_upload_of_run_and_run_trec_gives_two_systems():
    first = b"q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 b\n"   # two tags: named by the file
    second = b"q1 Q0 d2 1 2 a\nq1 Q0 d1 2 1 b\n"
    third = b"q1 Q0 d3 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d1 3 1 b\n"
    # a second file named "run" (from another folder): a system of its own, not a replacement
    upload = DataSource.of_upload("runs+qrels", (
        ("runs", "run", first), ("runs", "run.trec", second), ("runs", "run", third),
        ("qrels", "q.qrels", b"q1 0 d1 1\n")), None, False, "cosine")
    at = app("pages/data.py", upload=upload, sample="upload", measures="AP")
    assert not at.exception and not at.error
    # by hand: d1, the one relevant item, at rank 1, 2 and 3
    assert _means(at)["AP"].to_dict() == {"run": 1.0, "run.trec": 0.5, "run (2)": round(1 / 3, 4)}


def _npy(array) -> bytes:
    import io
    out = io.BytesIO()
    np.save(out, np.asarray(array, dtype=np.float64))
    return out.getvalue()


def test_several_embedding_models_uploaded_at_once():
    eye = np.eye(2)
    files = (("qrels", "qrels.csv", b"query_id,item_id,relevance\nq1,d1,1\nq2,d2,1\n"),
             ("query_ids", "query_ids.txt", b"q1\nq2\n"), ("item_ids", "item_ids.txt",
                                                           b"d1\nd2\n"),
             ("query_embeddings", "good_queries.npy", _npy(eye)),
             ("query_embeddings", "bad_queries.npy", _npy(eye)),
             ("item_embeddings", "good_items.npy", _npy(eye)),
             ("item_embeddings", "bad_items.npy", _npy(eye[::-1])))
    upload = DataSource.of_upload("embeddings+qrels", files, None, False, "cosine")
    at = app("pages/data.py", upload=upload, sample="upload", measures="RR")
    assert not at.exception and not at.error
    # by hand: "good" ranks each query's relevant item first, "bad" second
    assert _means(at)["RR"].to_dict() == {"good": 1.0, "bad": 0.5}


def test_a_system_renamed_on_the_data_page_is_named_so_and_a_duplicate_is_refused():
    runs = {"run": b"q1 Q0 d1 1 2 bm25\nq1 Q0 d2 2 1 bm25\n",     # named by its tag
            "other.run": b"q1 Q0 d2 1 2 a\nq1 Q0 d1 2 1 b\n"}
    at = app("pages/data.py", upload=_upload(runs, b"q1 0 d1 1\n"), sample="upload",
             measures="AP")
    assert list(_means(at).index) == ["bm25", "other"]
    at.text_input(key="system_name_1").input("*my* | system")
    next(b for b in at.button if b.label == "Use these names").click().run()
    assert not at.exception and not at.error
    assert _means(at)["AP"].to_dict() == {"bm25": 1.0, "*my* | system": 0.5}
    assert at.session_state["upload"].names == (("other", "*my* | system"),)
    summary = at.table[0].value
    assert md("*my* | system") in summary.columns   # shown escaped, as written
    compare = app("pages/compare.py", upload=at.session_state["upload"], sample="upload",
                  measures="AP")
    assert not compare.exception
    assert "*my* | system" in [o for box in compare.selectbox for o in box.options]
    at.text_input(key="system_name_1").input("bm25")
    next(b for b in at.button if b.label == "Use these names").click().run()
    assert any("the name 'bm25' is given to 2 systems" in e.value for e in at.error)
    assert list(_means(at).index) == ["bm25", "*my* | system"]    # unchanged
    at.text_input(key="system_name_0").input("  ")
    next(b for b in at.button if b.label == "Use these names").click().run()
    assert any("the name of 'bm25' is empty" in e.value for e in at.error)


@pytest.mark.parametrize("page,params,said", [
    ("pages/explorer.py", {"dataset": "instruments", "query": "kazoo"},
     "The link's query 'kazoo' cannot be shown here: this data has no such query"),
    ("pages/explorer.py", {"dataset": "fmp", "k": "50"},
     "The link's k = 50 cannot be shown here: the longest list has 10 items, so K = 10"),
    ("pages/compare.py", {"dataset": "instruments", "systems": ["system_a", "nobody"]},
     "The link's systems 'nobody' cannot be shown here: this data has no such system"),
    ("pages/leaderboard.py", {"dataset": "versions", "systems": "nobody"},
     "The link's systems 'nobody' cannot be shown here"),
    ("pages/leaderboard.py", {"dataset": "versions", "correction": "bonferroni"},
     "The link's correction is not one of holm, bh, tukey: 'bonferroni'."),
    ("pages/leaderboard.py", {"dataset": "versions", "alpha": "0.9"},
     "The link's α is not a number from 0.0001 to 0.5: '0.9'."),
    ("pages/leaderboard.py", {"dataset": "versions", "measure": "XX"},
     "The link's measure 'XX' cannot be shown here: this data has no such measure; 'AP' is "
     "shown."),
    ("pages/groups.py", {"dataset": "versions", "group_by": "R_q", "group": "99"},
     "The link's group '99' cannot be shown here: this data has no such group; none is shown."),
    ("pages/groups.py", {"dataset": "versions", "group_by": "genre"},
     "The link's grouping 'genre' cannot be shown here: this data has no such grouping"),
    ("pages/curves.py", {"dataset": "instruments", "systems": ["system_a", "nobody"]},
     "The link's systems ['system_a', 'nobody'] cannot be shown here: this data has only "
     "system_a of them"),
])
def test_a_links_unusable_value_gets_a_note(page, params, said):
    at = linked(page, **params)
    assert not at.exception and not at.error
    notes = [w.value.replace("\\", "") for w in at.warning]
    assert any(said in n for n in notes), notes
    at.run()                       # said once: the next run has nothing left to say
    assert not any("The link's" in w.value.replace("\\", "") for w in at.warning)


def test_a_links_usable_values_get_no_note():
    at = linked("pages/explorer.py", dataset="instruments", k="3", query="violin")
    assert not at.exception and not [w.value for w in at.warning if "link" in w.value]


def _runs_and_qrels(run: bytes, qrels: bytes) -> DataSource:
    return DataSource.of_upload("runs+qrels", (("runs", "mine.run", run),
                                               ("qrels", "q.qrels", qrels)), None, False, "cosine")


def test_a_query_that_does_not_fail_is_not_said_to_fail():
    # FMP toy 1: relevant at ranks 1, 2, 4, 8 of 10: all four found, the first at rank 1
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    assert not at.exception
    headings = [h.value for h in at.subheader]
    assert "What this query's list found" in headings and "Why this query fails" not in headings
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**Found all 4 of its relevant items**, the first at rank 1." in text
    # toy 2 starts with a non-relevant item (relevant at 2, 3, 5, 6): it fails
    at = app("pages/explorer.py", sample="fmp", query="toy2")
    assert "Why this query fails" in [h.value for h in at.subheader]


def test_a_query_that_found_nothing_says_so_in_one_phrase():
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} s\n".encode() for i in range(1, 6))
    qrels = b"q1 0 x1 1\nq1 0 x2 1\nq1 0 d3 0\n"
    at = app("pages/explorer.py", upload=_runs_and_qrels(run, qrels), sample="upload",
             query="q1", measures="AP")
    assert not at.exception and "Why this query fails" in [h.value for h in at.subheader]
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**None of its 2 relevant items was retrieved.**" in text
    assert "none of them" not in text and "Found 0" not in text


def test_bpref_of_a_query_with_nothing_judged_non_relevant_gets_its_reason():
    # d2 and d5 relevant, nothing judged non-relevant: Bpref = 1 (every n_r = 0), while
    # AP = (1/2 + 2/5)/2 = 0.45 counts the unjudged d1, d3, d4 above them
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} s\n".encode() for i in range(1, 6))
    qrels = b"q1 0 d2 1\nq1 0 d5 1\n"
    upload = _runs_and_qrels(run, qrels)
    at = app("pages/explorer.py", upload=upload, sample="upload", query="q1",
             measures="AP,Bpref")
    assert not at.exception
    per_query = {o.split()[0]: o for o in _query_box(at).options}
    assert "(AP = 0.4500)" in per_query["q1"]
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**Nothing judged non-relevant**: Bpref counts only judged non-relevant" in text
    at = app("pages/explorer.py", upload=upload, sample="upload", query="q1", measures="AP")
    assert "Nothing judged non-relevant" not in " ".join(m.value for m in at.markdown)
