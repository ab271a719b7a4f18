"""The Query explorer (AppTest): the cutoff K, the query box and its labels, the query figure and
its permalink, the teaching mode, why a query fails, a list of a million items a page at a time.
(The teaching mode's "what if" edits: test_teaching_what_if.py.)"""

from urllib.parse import parse_qs

import pandas as pd
import pytest

from apptest import (ROOT, address_params, app, confusion_cells, explorer_chart_data,
                     explorer_figure, figure_panel, figure_values, grid_data, grid_text, linked,
                     query_box, upload_of)
from dashboard.settings import DataSource


def _panel_titles(at) -> list[str]:
    return [a["text"].removeprefix("<b>").removesuffix("</b>")
            for a in explorer_figure(at)["layout"]["annotations"]]


WORKED = "Worked measures at K"   # the explorer's view of worked formulas (built only when chosen)


def _frames_with(at, column):
    return [d.value for d in at.dataframe if column in d.value.columns]


def test_k_slider_drives_the_confusion_matrix():
    # FMP toy 1 (query toy1): relevant at ranks 1, 2, 4, 8 of 10
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    # every document of the toy is judged, so |D| = 10: TN = |D| − K − FN
    at.slider(key="cutoff_slider").set_value(4).run()
    assert confusion_cells(at) == [["TP = 3", "FN = 1"], ["FP = 1", "TN = 5"]]
    at.slider(key="cutoff_slider").set_value(8).run()
    assert confusion_cells(at) == [["TP = 4", "FN = 0"], ["FP = 4", "TN = 2"]]
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
    assert confusion_cells(at) == [["TP = 4", "FN = 3"], ["FP = 10", "TN = 2037"]]


def test_choosing_another_query_changes_the_table():
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    first = _frames_with(at, "χ")[0]
    assert first["item"].tolist()[:4] == ["9", "2", "6", "8"]
    query_box(at).set_value("toy2").run()
    second = _frames_with(at, "χ")[0]
    assert second["item"].tolist()[:4] == ["6", "3", "4", "5"]
    assert second["χ"].tolist() == [0, 1, 1, 0, 1, 1, 0, 0]


def test_a_query_switch_does_not_send_the_query_box_again():
    # The script sets a widget's state only when it differs from the setting: a box whose state
    # the script set is sent to the browser again with all its options (the Query box's
    # thousand labels on a long run, every query switch)
    at = app("pages/explorer.py", sample="fmp", query="toy1")
    query_box(at).set_value("toy2").run()
    assert not query_box(at).proto.set_value and at.session_state["query"] == "toy2"
    at.session_state["query"] = "toy1"     # the setting changed elsewhere (a link, a click)
    at.run()
    assert query_box(at).proto.set_value and query_box(at).value == "toy1"


def test_queries_are_listed_worst_first():
    at = app("pages/explorer.py", sample="serra", measures="AP(norm=retrieved)")
    options = query_box(at).options
    assert options[0].startswith("A6") and options[-1].startswith("A2")


def test_query_labels_follow_the_system_and_the_sort():
    # the box is keyed on system and sort: its labels always hold the current system's values
    from metrics import evaluate
    from metrics.explain.samples import load_sample

    at = app("pages/explorer.py", sample="instruments", measures="AP,P@10")
    chosen = query_box(at).value
    at.selectbox(key="system_box").set_value("system_b").run()
    box = query_box(at)
    ap = evaluate(load_sample("instruments")["system_b"], "AP").per_query().set_index(
        "query_id")["AP"]
    assert box.value == chosen                                 # the query stays
    assert f"{chosen}  (AP = {ap[chosen]:.4f})" in box.options
    assert all(f"(AP = {ap[o.split()[0]]:.4f})" in o for o in box.options)
    at.selectbox(key="sort_by").set_value("P@10").run()
    assert query_box(at).value == chosen
    assert all("(P@10 = " in o for o in query_box(at).options)


def test_a_permalink_restores_dataset_query_and_k():
    at = linked("pages/explorer.py", dataset="covers", query="c0042", k="25", ties="trec",
                measures="AP,RR", threshold="1")
    assert not at.exception and not at.error
    state = at.session_state
    assert (state["sample"], state["query"], state["cutoff"], state["ties"], state["measures"]) \
        == ("covers", "c0042", 25, "trec9", "AP,RR")   # "trec" is trec9's former name
    assert query_box(at).value == "c0042"
    assert at.number_input(key="cutoff_box").value == 25
    assert "Confusion matrix at K = 25" in _panel_titles(at)


def test_the_url_follows_the_settings():
    at = linked("pages/explorer.py", dataset="instruments")
    at.number_input(key="cutoff_box").set_value(7).run()
    at.selectbox(key="system_box").set_value("system_b").run()
    query = query_box(at).options[2].split()[0]
    query_box(at).set_value(query).run()
    params = address_params(at)
    assert params["dataset"] == ["instruments"] and params["k"] == ["7"]
    assert params["systems"] == ["system_b"] and params["query"] == [query]
    assert params["measures"] == [at.session_state["measures"]]


def test_the_explorers_chart_carries_the_permalink():
    # a query switch or a change of K reruns the explorer's fragment only: its chart, not
    # st.query_params, puts the link in the address bar (the browser test checks it does)
    at = linked("pages/explorer.py", dataset="instruments")
    at.number_input(key="cutoff_box").set_value(7).run()
    query = query_box(at).options[2].split()[0]
    query_box(at).set_value(query).run()
    address = parse_qs(explorer_chart_data(at)["address"])
    assert address["k"] == ["7"] and address["query"] == [query]
    assert address == address_params(at)   # what the frame writes after a full run


def test_teaching_an_empty_list_has_no_chart_and_still_links_the_query():
    # q3 is judged but not retrieved: its list is empty, there is no figure to carry the link
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} s\n".encode() for i in range(1, 4))
    qrels = b"q1 0 d1 1\nq3 0 d9 1\n"
    candidate = upload_of({"mine.run": run}, qrels)
    at = app("pages/explorer.py", upload=candidate, sample="upload", query="q3", teaching=True)
    assert not at.exception
    assert any("nothing to step through" in i.value for i in at.info)
    assert not [c for c in at.get("bidi_component") if c.proto.component_name == "chart_in_place"]
    assert address_params(at)["query"] == ["q3"]


def test_teaching_mode_steps_through_the_ranking():
    # FMP toy 1: relevant at ranks 1, 2, 4, 8 of 10 (FMP C7S3's table)
    at = app("pages/explorer.py", sample="fmp", query="toy1", cutoff=4)
    at.toggle(key="teaching_box").set_value(True).run()
    assert not at.exception
    at.number_input(key="teach_rank_box").set_value(4).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics == {"χ(r), r = 4": "1", "TP(r), r = 4": "3", "P(r), r = 4": "0.750",
                       "R(r), r = 4": "0.750", "F(r), r = 4": "0.750"}
    assert confusion_cells(at) == [["TP = 3", "FN = 1"], ["FP = 1", "TN = 5"]]    # |D| = 10
    window = _frames_with(at, "in top K")[0]
    assert window["rank"].tolist() == [2, 3, 4, 5, 6]    # r with two rows either side
    assert window.set_index("rank")["in top K"].to_dict()[4] == "✓"
    assert window.set_index("rank")["in top K"].to_dict()[5] == ""
    at.number_input(key="teach_rank_box").set_value(7).run()
    metrics = {m.label: m.value for m in at.metric}
    assert metrics["P(r), r = 7"] == "0.429" and metrics["χ(r), r = 7"] == "0"   # 3/7
    assert confusion_cells(at) == [["TP = 3", "FN = 1"], ["FP = 4", "TN = 2"]]
    assert "PR curve of toy1" in _panel_titles(at)
    traces = {t.get("name"): t for t in figure_panel(at, "x2")}
    assert figure_values(traces["rank r = 7"]["x"]) == [0.75]
    assert figure_values(traces["rank r = 7"]["y"]) == [3 / 7]
    assert figure_values(traces["cutoff K = 4"]["y"]) == [0.75]
    exact = figure_values(traces["interpolated P (exact)"]["y"])
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
    rows = explorer_figure(at)["layout"]["yaxis"]["ticktext"]
    assert [row.split("<br>")[0] for row in rows] == ["system_a", "system_b"]
    assert np.all(data["system_a"].query_ids == data["system_b"].query_ids)


def test_the_query_text_and_the_unjudged_share_of_text_to_music():
    at = app("pages/explorer.py", sample="text2music", query="t001", system="model_a",
             cutoff=10)
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**Query text:** “dark rock with string ensemble for studying”" in text
    queries = pd.read_csv(ROOT / "sample_data/text2music/queries.csv", dtype=str)
    assert queries.set_index("query_id").at["t001", "text"] == (
        "dark rock with string ensemble for studying")
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
    drawn = figure_panel(explorer, "x2")[0]
    assert len(figure_values(drawn["x"])) < 20                                         # corners
    assert figure_values(drawn["customdata"])[-1] == n
    explorer.session_state["explorer_view"] = "Relevant items not retrieved"
    explorer.run()
    missed = _frames_with(explorer, "grade")
    assert any(m["item"].tolist() == ["gone"] for m in missed)


def test_a_query_without_relevant_items_shows_empty_recall_cells():
    # q2's items are all judged not relevant: R_q = 0, so R(r) and F(r) are undefined
    run = b"".join(f"{q} Q0 d{i} {i} {10 - i} s\n".encode() for q in ("q1", "q2")
                   for i in range(1, 4))
    qrels = b"q1 0 d1 1\nq2 0 d1 0\nq2 0 d2 0\n"
    candidate = upload_of({"mine.run": run}, qrels)
    at = app("pages/explorer.py", upload=candidate, sample="upload", query="q2")
    assert not at.exception
    assert any("no relevant item in the ground truth" in w.value for w in at.warning)
    [table] = [f for f in at.main.dataframe if "R(r)" in grid_data(f).columns]
    assert grid_data(table)["R(r)"].isna().all() and grid_data(table)["F(r)"].isna().all()
    assert table.proto.HasField("placeholder") and table.proto.placeholder == ""   # not "None"
    assert set(grid_text(table)["R(r)"]) == {""}
    # the table of all queries: q2's measures are undefined, and say so
    at.session_state["all_queries_open"] = True
    at.run()
    [queries] = [f for f in at.main.dataframe if "query_id" in grid_data(f).columns]
    assert grid_data(queries).set_index("query_id").loc["q2"].isna().any()
    assert queries.proto.placeholder == "undefined"


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
    at = app("pages/explorer.py", upload=upload_of({"mine.run": run}, qrels), sample="upload",
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
    upload = upload_of({"mine.run": run}, qrels)
    at = app("pages/explorer.py", upload=upload, sample="upload", query="q1",
             measures="AP,Bpref")
    assert not at.exception
    per_query = {o.split()[0]: o for o in query_box(at).options}
    assert "(AP = 0.4500)" in per_query["q1"]
    text = " ".join(m.value for m in at.markdown).replace("\\", "")
    assert "**Nothing judged non-relevant**: Bpref counts only judged non-relevant" in text
    at = app("pages/explorer.py", upload=upload, sample="upload", query="q1", measures="AP")
    assert "Nothing judged non-relevant" not in " ".join(m.value for m in at.markdown)
