"""Item and query tables in the app, and the Groups page (streamlit.testing.v1.AppTest)."""

import json

import numpy as np
import pandas as pd
import pytest

from apptest import address_params, app, chart_figures, linked
from dashboard.grouped import GROUP_OF_QUERIES
from dashboard.safe import md
from dashboard.settings import DataSource

RUN_A = b"".join(f"q{q} Q0 d{i} {i} {10 - i} mine\n".encode() for q in (1, 2, 3)
                 for i in range(1, 6))
RUN_B = b"".join(f"q{q} Q0 d{6 - i} {i} {10 - i} other\n".encode() for q in (1, 2, 3)
                 for i in range(1, 6))
QRELS = b"q1 0 d2 1\nq1 0 d9 1\nq2 0 d1 1\nq3 0 d5 1\n"
ITEMS = (b"item_id,title,artist,audio,year\n"
         b"d1,First [x](http://127.0.0.1/) <b>song</b>,Ann,x.mp3,1999\n"
         b"d2,Second,Bob,,2000\nd9,Lost one,Cy,,\nzz,Elsewhere,Dee,,\n")
QUERIES = b"query_id,text,genre\nq1,a rock query,rock\nq2,jazz **night**,jazz\nq3,more rock,rock\n"


def _upload(items=ITEMS, queries=QUERIES) -> DataSource:
    files = [("runs", "mine.run", RUN_A), ("runs", "other.run", RUN_B), ("qrels", "q.qrels", QRELS)]
    files += [("items", "items.csv", items)] if items is not None else []
    files += [("queries", "queries.csv", queries)] if queries is not None else []
    return DataSource.of_upload("runs+qrels", tuple(files))


def _frames(at) -> list[pd.DataFrame]:
    return [d.value.data if hasattr(d.value, "data") else d.value for d in at.dataframe]


def test_the_data_page_shows_the_tables_and_counts_the_ids_matching_nothing():
    at = app("pages/data.py", upload=_upload(), sample="upload", measures="AP")
    assert not at.exception and not at.error
    labels = [e.label for e in at.expander]
    assert "Item table: 4 rows, columns title, artist, audio, year" in labels
    assert "Query table: 3 rows, columns text, genre" in labels
    warnings = [w.value.replace("\\", "") for w in at.warning]
    assert any("items.csv: 1 of its 4 items match nothing in the run or ground truth "
               "(first: 'zz')" in w for w in warnings), warnings


def test_a_bad_table_is_an_error_naming_file_and_line_and_the_ranking_is_not_redone():
    at = app("pages/data.py", upload=_upload(items=b"item_id,title\nd1,a\nd1,b\n"),
             sample="upload", measures="AP")
    assert not at.exception
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "items.csv, line 3: item 'd1' is listed twice (first on line 2)" in shown
    # the means are still there: a metadata table ranks nothing
    assert any("AP" in f.columns for f in _frames(at))


def test_the_ranking_cache_ignores_the_metadata_tables():
    with_tables, without = _upload(), _upload(items=None, queries=None)
    assert with_tables != without and with_tables.unnamed() == without.unnamed()
    assert with_tables.metadata_files() == (("items", "items.csv", ITEMS),
                                            ("queries", "queries.csv", QUERIES))


def test_the_explorer_shows_titles_beside_ids_and_finds_queries_by_their_text():
    at = app("pages/explorer.py", upload=_upload(), sample="upload", measures="AP", query="q2")
    assert not at.exception and not at.error
    ranked = next(f for f in _frames(at) if "rank" in f.columns and "title" in f.columns)
    assert list(ranked.columns[:4]) == ["rank", "item", "title", "artist"]
    assert ranked.set_index("item").loc["d1", "title"] == "First [x](http://127.0.0.1/) <b>song</b>"
    box = next(s for s in at.selectbox if s.label == "Query")
    assert any(o.startswith("q2 — jazz **night**") for o in box.options), box.options
    text = [m.value for m in at.markdown if "Query text" in m.value]
    assert text == [f"**Query text:** “{md('jazz **night**')}”"]
    assert any(c.value == "genre: jazz" for c in at.caption)


def test_the_missed_items_and_the_compare_lists_carry_titles():
    at = app("pages/explorer.py", upload=_upload(), sample="upload", measures="AP", query="q1",
             explorer_view="Relevant items not retrieved")
    assert not at.exception and not at.error
    missed = next(f for f in _frames(at) if "grade" in f.columns and "rank" not in f.columns)
    assert missed.iloc[0][["item", "title", "artist"]].tolist() == ["d9", "Lost one", "Cy"]
    compare = app("pages/compare.py", upload=_upload(), sample="upload", measures="AP",
                  query="q1")
    assert not compare.exception and not compare.error
    lists = [f for f in _frames(compare) if "rank in other" in f.columns]
    assert len(lists) == 2 and all(list(f.columns[:3]) == ["rank", "item", "title"]
                                   for f in lists)


def test_more_item_columns_on_demand():
    at = app("pages/explorer.py", upload=_upload(), sample="upload", measures="AP", query="q2",
             explorer_item_columns=["year"])
    assert not at.exception and not at.error
    ranked = next(f for f in _frames(at) if "rank" in f.columns and "year" in f.columns)
    assert "title" not in ranked.columns and ranked.set_index("item").loc["d2", "year"] == "2000"
    assert "audio" not in at.multiselect[0].options     # played, never shown as text


def test_the_groups_page_agrees_with_the_per_query_values():
    at = app("pages/groups.py", upload=_upload(), sample="upload", measures="AP",
             group_by="genre")
    assert not at.exception and not at.error
    table = _frames(at)[0]
    # AP by hand: mine ranks d1…d5, other d5…d1; q1's d9 is never retrieved (R_q = 2)
    per_query = {"mine": {"q1": (1 / 2) / 2, "q2": 1.0, "q3": 1 / 5},
                 "other": {"q1": (1 / 4) / 2, "q2": 1 / 5, "q3": 1.0}}
    for system, values in per_query.items():
        rock = table[(table["genre"] == "rock") & (table["system"] == system)].iloc[0]
        assert rock["queries"] == 2
        assert rock["mean"] == pytest.approx(round((values["q1"] + values["q3"]) / 2, 4))
    spec = chart_figures(at)[0]
    assert {t["name"] for t in spec["data"]} == {"mine", "other"}
    # each group a row, named by its tick (the systems lie apart within the row)
    axis = spec["layout"]["yaxis"]
    assert axis["ticktext"] == ["jazz (1)", "rock (2)"] and len(axis["tickvals"]) == 2


def test_a_group_opens_the_explorer_on_its_queries_worst_first():
    at = app("pages/groups.py", upload=_upload(), sample="upload", measures="AP",
             group_by="genre")
    at.selectbox(key="group_open_box").set_value("rock").run()
    at.button(key="open_group").click().run()
    assert not at.exception
    chosen = at.session_state[GROUP_OF_QUERIES]
    assert chosen["group"] == "rock" and sorted(chosen["queries"]) == ["q1", "q3"]
    explorer = app("pages/explorer.py", upload=_upload(), sample="upload", measures="AP",
                   **{GROUP_OF_QUERIES: chosen})
    assert not explorer.exception and not explorer.error
    box = next(s for s in explorer.selectbox if s.label == "Query")
    assert [o.split(" ")[0] for o in box.options] == ["q3", "q1"]       # AP 0.2, then 0.25
    assert any("The 2 queries of genre = rock" in i.value for i in explorer.info)


@pytest.mark.parametrize("sample, grouping", [("covers", "clique_size"),
                                              ("instruments", "parent_class"),
                                              ("text2music", "text_words"),
                                              ("versions", "tie_share")])
def test_the_derived_groupings_of_the_samples(sample, grouping):
    at = app("pages/groups.py", sample=sample, measures="AP", group_by=grouping)
    assert not at.exception and not at.error
    table = _frames(at)[0]
    assert grouping in table.columns and table["queries"].sum() > 0


def test_for_cover_songs_the_item_table_describes_the_queries_and_groups_them():
    import io

    matrix = np.array([[0, .9, .1, .2], [.9, 0, .3, .1], [.1, .3, 0, .8], [.2, .1, .8, 0]])
    buffer = io.BytesIO()
    np.save(buffer, matrix)
    labels = b"item_id,label\nc1,w1\nc2,w1\nc3,w2\nc4,w2\n"
    items = (b"item_id,title,artist,decade\nc1,Yesterday,The Beatles,1960s\n"
             b"c2,Yesterday (live),Ray Charles,1960s\nc3,Hurt,Nine Inch Nails,1990s\n"
             b"c4,Hurt,Johnny Cash,2000s\n")
    src = DataSource.of_upload("matrices+labels", (("matrices", "sim.npy", buffer.getvalue()),
                                                   ("labels", "labels.csv", labels),
                                                   ("items", "items.csv", items)))
    at = app("pages/explorer.py", upload=src, sample="upload", measures="AP", query="c4")
    assert not at.exception and not at.error
    box = next(s for s in at.selectbox if s.label == "Query")
    assert any(o.startswith("c4 — Hurt — Johnny Cash") for o in box.options), box.options
    assert any("Query title" in m.value for m in at.markdown)
    groups = app("pages/groups.py", upload=src, sample="upload", measures="AP",
                 group_by="decade")
    assert not groups.exception and not groups.error
    table = _frames(groups)[0]
    assert dict(zip(table["decade"], table["queries"])) == {"1960s": 2, "1990s": 1, "2000s": 1}
    box = next(s for s in groups.selectbox if s.label == "Group the queries by")
    assert box.options == ["artist", "decade", "R_q (derived)", "clique_size (derived)",
                           "tie_share (derived)"]


def test_the_grouping_is_in_the_link():
    at = linked("pages/groups.py", dataset="instruments", measures="AP", group_by="parent_class")
    assert not at.exception and not at.error
    assert at.selectbox(key="group_by_box").value == "parent_class"
    at.selectbox(key="group_by_box").set_value("R_q").run()
    params = address_params(at)
    assert params["group_by"] == ["R_q"] and params["dataset"] == ["instruments"]


def test_the_list_of_every_query_shows_each_querys_text():
    at = app("pages/explorer.py", upload=_upload(), sample="upload", measures="AP",
             all_queries_open=True)
    assert not at.exception and not at.error
    every = next(f for f in _frames(at) if "query_id" in f.columns)
    assert list(every.columns[:3]) == ["query_id", "text", "AP"]
    assert dict(zip(every["query_id"], every["text"]))["q2"] == "jazz **night**"
