"""Hostile metadata tables (issue 42, items 3, 12, 14, 15 and 17's Parquet structs): cells kept
as written, Parquet lists and structs read as text, a table held as columns in about its file's
memory, a footer of very many row groups refused, and excerpt bounds the player cannot take."""

import io
import json
import subprocess
import sys
import tracemalloc
from pathlib import Path

import pandas as pd
import pyarrow as pa
import pyarrow.parquet as pq
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.players import excerpt
from dashboard.safe import md
from metrics import GroundTruth, InputError, Run, judge
from metrics.evaluation.groups import grouping
from metrics.loaders import metadata
from metrics.loaders.metadata import read_item_table, read_query_table

ROOT = Path(__file__).resolve().parents[1]

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def _parquet(table: pa.Table, **options) -> bytes:
    buffer = io.BytesIO()
    pq.write_table(table, buffer, **options)
    return buffer.getvalue()


# ---- item 3: cells as written ------------------------------------------------------------------

@pytest.mark.parametrize("name, content", [
    ("items.csv", b'item_id,title,genre\n d1 ,"  quoted  ", a\nd2,plain\t,a\n'),
    ("items.tsv", b"item_id\ttitle\tgenre\n d1 \t  quoted  \t a\nd2\tplain \ta\n"),
])
def test_cells_are_kept_as_written_and_ids_are_stripped_as_every_loader_strips_them(name, content):
    table = read_item_table(content, name)
    assert table.index.tolist() == ["d1", "d2"]          # a run's CSV id " d1 " is d1 too
    assert table.loc["d1", "title"] == "  quoted  "
    assert table.loc["d2", "title"] in ("plain\t", "plain ")
    assert table["genre"].tolist() == [" a", "a"]


def test_a_genre_with_a_space_is_its_own_group_not_merged():
    queries = read_query_table(b"query_id,genre\nq1, a\nq2,a\nq3,a\n", "q.csv")
    ids = ["q1", "q2", "q3"]
    judged = judge(Run.from_dict({q: {"d": 1.0} for q in ids}),
                   GroundTruth.from_dict({q: {"d": 1} for q in ids}))
    genre = grouping("genre", judged, queries)
    assert genre.labels.tolist() == [" a", "a", "a"]
    assert set(genre.groups) == {" a", "a"}


# ---- items 14 and 17: Parquet lists, structs and maps are text ----------------------------------

def _nested_table() -> pa.Table:
    return pa.table({
        "query_id": ["q1", "q2"],
        "tags": pa.array([[1, 2], None], pa.list_(pa.int64())),
        "info": pa.array([{"year": 1990, "n": None}, {"year": None, "n": 3}],
                         pa.struct([("year", pa.int64()), ("n", pa.int64())])),
        "counts": pa.array([[("a", 1)], []], pa.map_(pa.string(), pa.int64())),
        "weight": pa.array([1959.0, float("nan")]),
        "live": pa.array([True, None]),
    })


def test_parquet_lists_structs_and_maps_are_read_as_json_text_integers_as_integers():
    table = read_query_table(_parquet(_nested_table()), "q.parquet")
    assert table.loc["q1"].tolist() == ["[1, 2]", '{"year": 1990, "n": null}', '[["a", 1]]',
                                        "1959", "true"]
    q2 = table.loc["q2"]
    assert pd.isna(q2["tags"]) and q2["info"] == '{"year": null, "n": 3}' and q2["counts"] == "[]"
    assert pd.isna(q2["weight"]) and pd.isna(q2["live"])   # NaN and null: an empty cell
    assert json.loads(table.loc["q1", "info"]) == {"year": 1990, "n": None}


def test_the_command_line_groups_by_a_struct_column(tmp_path):
    (tmp_path / "q.parquet").write_bytes(_parquet(_nested_table()))
    (tmp_path / "a.run").write_text("q1 Q0 d1 1 2 s\nq1 Q0 d2 2 1 s\nq2 Q0 d1 1 2 s\n")
    (tmp_path / "a.qrels").write_text("q1 0 d2 1\nq2 0 d1 1\n")
    done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", tmp_path / "a.run",
                           tmp_path / "a.qrels", "-m", "AP", "--query-metadata",
                           tmp_path / "q.parquet", "--group-by", "info", "--format", "json"],
                          cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    groups = json.loads(done.stdout)["groups"]["info"]
    assert groups['{"year": 1990, "n": null}']["AP"] == 0.5        # d2 at rank 2
    assert groups['{"year": null, "n": 3}']["AP"] == 1.0


# ---- item 12: columns, in about the file's memory ----------------------------------------------

def _items_csv(rows: int) -> bytes:
    return "item_id,title,artist,year,audio\n".encode() + "".join(
        f"trk{i},Song number {i},Artist {i % 977},{1950 + i % 70},audio/trk{i}.mp3\n"
        for i in range(rows)).encode()


def test_a_200k_row_item_table_is_held_as_columns_near_its_files_size():
    content = _items_csv(200_000)
    tracemalloc.start()
    try:
        table = read_item_table(content, "items.csv")
        _, peak = tracemalloc.get_traced_memory()   # Python objects: no cell of its own
    finally:
        tracemalloc.stop()
    held = table.memory_usage(deep=True, index=True).sum()
    assert len(table) == 200_000 and table.loc["trk199999", "year"] == str(1950 + 199999 % 70)
    # before: a Python str per cell, 5.4x the file held; now Arrow's buffers (text and 8-byte
    # offsets) and the index's hash, which every look-up needs (1.9x), and Python's objects only
    # for a block of rows at a time (a bound of its own: 2x the file at 200k rows; 7x before)
    assert held < 2.5 * len(content), (held, len(content))
    assert peak < 3 * len(content), (peak, len(content))
    parquet = read_item_table(_parquet(pa.Table.from_pandas(
        table.reset_index(), preserve_index=False)), "items.parquet")
    assert parquet.memory_usage(deep=True, index=True).sum() < 2.5 * len(content)
    pd.testing.assert_frame_equal(parquet, table)


def test_a_parquet_footer_beyond_the_bound_is_refused_before_it_is_parsed(monkeypatch):
    rows = pa.table({"query_id": [f"q{i}" for i in range(300)], "genre": ["g"] * 300})
    many_groups = _parquet(rows, row_group_size=1)   # 300 one-row groups: a footer of ~60 KB
    one_group = _parquet(rows)
    monkeypatch.setattr(metadata, "PARQUET_FOOTER_LIMIT", 16 << 10)
    monkeypatch.setattr(pq, "ParquetFile", None)   # not parsed: refused from its last 8 bytes
    with pytest.raises(InputError, match=r"^q.parquet: its Parquet footer .* is 0 MB, more than "
                                         r"the 0 MB read: a table written in very many small "
                                         r"row groups"):
        read_query_table(many_groups, "q.parquet")
    monkeypatch.undo()
    monkeypatch.setattr(metadata, "PARQUET_FOOTER_LIMIT", 16 << 10)
    assert len(read_query_table(one_group, "q.parquet")) == 300


# ---- item 15: excerpt bounds the player cannot take ---------------------------------------------

@pytest.mark.parametrize("cells, said", [
    ({"start": "3000000000"}, "item 'it1', start '3000000000': more seconds than the player's "
                              "2,147,483,647"),
    ({"end": "1e300"}, "item 'it1', end '1e300': more seconds than the player's 2,147,483,647"),
])
def test_an_excerpt_beyond_the_players_bound_is_refused_naming_item_and_cell(cells, said):
    with pytest.raises(InputError, match=said):
        excerpt(pd.Series(cells, name="it1"), "it1")
    assert excerpt(pd.Series({"start": "2147483647"}, name="it1"), "it1") == (2147483647.0, None)


@pytest.mark.parametrize("cell", [{"start": "3000000000"}, {"end": "1e300"}])
def test_the_page_says_so_and_plays_the_whole_clip(cell):
    def script(row):
        import pandas as pd
        import streamlit as st
        from dashboard.players import audio_player
        st.session_state["sample"] = "covers"
        audio_player(pd.Series(row, name="it1"), "one")

    at = AppTest.from_function(script, args=({"audio": "audio/c0001.wav", **cell},),
                               default_timeout=30).run()
    assert not at.exception                      # before: ValueError: Value out of range
    (error,) = at.error
    column, value = next(iter(cell.items()))
    assert error.value == md(f"item 'it1', {column} '{value}': more seconds than the player's "
                             f"2,147,483,647 (68 years); playing the whole clip")
    (player,) = at.get("audio")
    assert (player.proto.start_time, player.proto.end_time) == (0, 0)
