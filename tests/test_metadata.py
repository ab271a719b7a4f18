"""Item and query tables: reading them (metrics/loaders/metadata.py), the samples' tables, and
what is shown beside an id (metrics/explain/described.py)."""

import io

import numpy as np
import pandas as pd
import pytest

from metrics import InputError
from metrics.explain.described import (beside_ids, default_columns, metadata_warnings,
                                       query_words, shown_columns)
from metrics.explain.samples import SAMPLES, load_sample, sample_metadata
from metrics.loaders.metadata import (query_metadata, read_item_table, read_metadata,
                                      read_query_table, unmatched_ids)


def _parquet(frame: pd.DataFrame) -> bytes:
    buffer = io.BytesIO()
    frame.to_parquet(buffer, index=False)
    return buffer.getvalue()


def test_an_item_table_keeps_every_column_as_written():
    table = read_item_table(b'docno,title,year,audio\n7,"Blue, in Green",1959,a/7.mp3\n'
                            b"8,1e3,,\n", "items.csv")
    assert table.index.name == "item_id" and table.index.tolist() == ["7", "8"]
    assert list(table.columns) == ["title", "year", "audio"]          # the alias docno is the id
    assert table.loc["7", "title"] == "Blue, in Green"
    assert table.loc["8", "title"] == "1e3"                             # text, never a number
    assert pd.isna(table.loc["8", "year"]) and pd.isna(table.loc["8", "audio"])   # empty
    assert table.attrs["source"] == "items.csv"


def test_a_query_table_from_tsv_and_from_parquet_reads_the_same():
    tsv = read_query_table(b"qid\ttext\tgenre\n1\tslow jazz piano\tjazz\n2\tloud\trock\n",
                           "q.tsv")
    parquet = read_query_table(_parquet(pd.DataFrame({"query_id": [1.0, 2.0], "text": [
        "slow jazz piano", "loud"], "genre": ["jazz", "rock"]})), "q.parquet")
    # ids of a float column are whole numbers (10.0 is '10'), as every loader reads them
    assert parquet.index.tolist() == tsv.index.tolist() == ["1", "2"]
    pd.testing.assert_frame_equal(tsv, parquet, check_dtype=False)


def test_a_parquet_table_with_a_missing_id_names_its_row():
    content = _parquet(pd.DataFrame({"item_id": ["a", None], "title": ["x", "y"]}))
    with pytest.raises(InputError, match=r"items.parquet, row 2, column 'item_id': the item_id "
                                         r"is empty"):
        read_item_table(content, "items.parquet")


@pytest.mark.parametrize("content, words", [
    (b"item_id,title,item\nd1,x,y\n", "2 columns that name the item_id (item_id, item)"),
    (b"item_id,title,title\nd1,x,y\n", "names column 'title' twice"),
    (b"item_id,,artist\nd1,x,y\n", "column 2 of the header has no name"),
    (b"item_id,title\n", "has a header but no rows"),
])
def test_a_header_that_cannot_be_read_says_why(content, words):
    with pytest.raises(InputError) as caught:
        read_item_table(content, "items.csv")
    assert words in str(caught.value) and str(caught.value).startswith("items.csv")


def test_uploaded_tables_by_role():
    items, queries = read_metadata([("items", "i.csv", b"item_id,title\nd1,One\n")])
    assert items.loc["d1", "title"] == "One" and queries is None
    with pytest.raises(InputError, match="give one item table, not two"):
        read_metadata([("items", "i.csv", b"item_id\nd1\n"), ("items", "j.csv", b"item_id\nd2\n")])


def test_ids_that_match_nothing_are_counted():
    table = read_item_table(b"item_id,title\nd1,a\nd2,b\nd3,c\n", "items.csv")
    assert unmatched_ids(table, ["d1", "d2", "d3", "d4"], "items") is None
    warning = unmatched_ids(table, ["d1"], "items")
    assert warning.startswith("items.csv: 2 of its 3 items match nothing") and "'d2'" in warning
    assert "another collection" in unmatched_ids(table, ["x"], "items")


def test_the_item_table_describes_queries_that_are_items():
    items = read_item_table(b"item_id,title\nc1,Song\nc2,Cover\n", "items.csv")
    queries = read_query_table(b"query_id,genre\nc1,pop\n", "q.csv")
    assert query_metadata(items, queries, ["c1"]) is queries
    described = query_metadata(items, None, ["c2", "c9"])
    assert described.index.name == "query_id" and described.loc["c2", "title"] == "Cover"
    assert query_metadata(items, None, ["t001"]) is None     # text queries: not items


def test_every_sample_reads_its_tables_and_the_query_texts_are_their_text_column():
    for key in SAMPLES:
        items, queries = sample_metadata(key)
        assert items is None or items.index.name == "item_id"
        assert queries is None or queries.index.name == "query_id"
    texts = sample_metadata("text2music")[1]["text"]
    assert texts["t001"] == "dark rock with string ensemble for studying"
    assert set(texts.index) == set(load_sample("text2music")["model_a"].query_ids)


def test_title_and_artist_beside_the_id_and_the_players_columns_never_shown():
    items = read_item_table(b"item_id,Artist,audio,title,year,start\nd1,Band,x.mp3,Song,1990,3\n",
                            "items.csv")
    assert default_columns(items) == ["title", "Artist"]
    assert shown_columns(items) == ["Artist", "title", "year"]
    frame = pd.DataFrame({"rank": [1, 2], "item": ["d2", "d1"], "title": ["own", "own"]})
    out = beside_ids(frame, "item", items)
    assert list(out.columns) == ["rank", "item", "title (metadata)", "Artist", "title"]
    assert out["title (metadata)"].tolist() == [None, "Song"]
    assert beside_ids(frame, "item", items, ["year"])["year"].tolist() == [None, "1990"]
    assert beside_ids(frame, "item", None) is frame
    # the title asked for by its name (the teaching window's), written Title in the table
    titled = read_item_table(b"item_id,Title\nd1,Song\n", "items.csv")
    assert beside_ids(frame, "item", titled, ["title"])["Title"].tolist() == [None, "Song"]


def test_the_query_box_finds_a_query_by_its_text_else_its_title():
    texts = read_query_table(b"query_id,text\nq1,\"dark  rock\nwith strings\"\nq2,\n", "q.csv")
    assert query_words(texts, ["q1", "q2", "q3"]) == {"q1": "dark rock with strings"}
    titled = read_item_table(b"item_id,title,artist\nc1,Song,Band\nc2,Tune,\n", "i.csv")
    assert query_words(titled, ["c1", "c2"]) == {"c1": "Song — Band", "c2": "Tune"}


def test_metadata_warnings_know_the_items_of_runs_matrices_and_ground_truth():
    covers = load_sample("covers")
    item_ids = np.asarray(next(iter(covers.values())).truth.self_items, dtype=object)
    items = pd.DataFrame({"title": ["x"] * 3}, index=pd.Index([str(item_ids[0]), str(item_ids[1]),
                                                                "nowhere"], name="item_id"))
    items.attrs["source"] = "items.csv"
    warnings = metadata_warnings(items, None, covers)
    assert warnings == ["items.csv: 1 of its 3 items match nothing in the run or ground truth "
                        "(first: 'nowhere')"]


def test_the_rank_strips_hover_names_each_relevant_item_escaped():
    from charts.query_figure import StripRow, _strip_traces
    from metrics.explain.described import item_labels

    items = read_item_table(b'item_id,title,artist\nd2,"<b>So</b> What",Miles\n', "i.csv")
    labels = item_labels(["d2", "d7"], items)
    assert labels == ["d2 — <b>So</b> What — Miles", "d7"]
    traces, _ = _strip_traces([StripRow("sys", [2, 7], [1, 1], 10, 2, labels)], None)
    graded = next(t for t in traces if t["name"] == "grade 1")
    assert list(graded["customdata"]) == ["d2 — &lt;b&gt;So&lt;/b&gt; What — Miles", "d7"]
    assert "%{customdata}" in graded["hovertemplate"]
    plain, _ = _strip_traces([StripRow("sys", [2], [1], 10, 1)], None)
    assert "customdata" not in next(t for t in plain if t["name"] == "grade 1")
