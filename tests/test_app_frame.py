"""What the app's frame does around every page (AppTest): every page renders every sample, alone
or framed; the sidebar holds only the controls a page uses; settings and a page's state survive a
switch of pages; links restore what they can and say what they cannot; the libraries are frozen
once, before the first dataset."""

import pytest
from streamlit.testing.v1 import AppTest

from apptest import PAGES, ROOT, URL_PATHS, address_params, app, grid_data, linked, query_box
from metrics.explain.samples import SAMPLES
from oracles import contrast_ratio


@pytest.mark.parametrize("sample", list(SAMPLES))
@pytest.mark.parametrize("page", PAGES)
def test_every_page_renders_every_sample(page, sample):
    at = app(page, sample=sample)
    assert not at.exception, at.exception
    assert not at.error, [e.value for e in at.error]
    # the grid draws a missing value as "None" unless the table says what to show instead
    for frame in at.dataframe:
        if grid_data(frame).isna().any().any():
            assert frame.proto.HasField("placeholder"), (page, grid_data(frame).columns.tolist())


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
    rules = _highlight_rules(app(page, **state))
    assert rules
    for css in rules:
        assert "color" in css, css
        assert contrast_ratio(css["color"], css["background-color"]) >= 4.5, css


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


@pytest.mark.parametrize("page", ["compare", "leaderboard"])
def test_a_page_that_ends_early_still_writes_its_link(page):
    # FMP has one system: the page says so and shows nothing more. Before, it ended with
    # st.stop(), after which nothing reached the browser, the address bar neither: the link
    # lost the dataset, and a reload showed the default one
    at = linked(f"pages/{page}.py", dataset="serra", measures="AP,RR")
    assert not at.exception, at.exception
    assert "one system" in " ".join(i.value for i in at.info)
    params = address_params(at)
    assert params["dataset"] == ["serra"] and params["measures"] == ["AP,RR"]


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
    assert query_box(at).value in ("toy1", "toy2")


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
