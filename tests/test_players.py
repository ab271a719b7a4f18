"""The players on the pages (AppTest): the query's and the listed items' clips, excerpts, and a
refused path shown as a warning without a player."""

import pandas as pd
import pytest
from streamlit.testing.v1 import AppTest

from dashboard.safe import md
from test_app import app

pytestmark = pytest.mark.filterwarnings("ignore::DeprecationWarning")


def players(at) -> list:
    return list(at.get("audio"))


def test_the_explorer_plays_the_query_and_the_top_of_its_list():
    at = app("pages/explorer.py", sample="covers", query="c0001")
    assert not at.exception and not at.error
    shown = [m.value for m in at.markdown]
    assert "**Listen to the query**" in shown
    assert len(players(at)) == 1 + 3            # the query and the list's first three
    assert all(p.proto.url.endswith(".wav") for p in players(at))
    headings = [c.value for c in at.caption if c.value.startswith("rank ")]
    assert [h.split(" · ")[0] for h in headings] == ["rank 1", "rank 2", "rank 3"]
    # the items' own titles (sample_data/covers/items.csv), not only their ids
    items = pd.read_csv("sample_data/covers/items.csv", dtype=str).set_index("item_id")
    first = headings[0].split(" · ")[1]
    assert items.loc[first, "title"] in headings[0]


def test_another_item_of_the_page_is_played_on_request():
    at = app("pages/explorer.py", sample="covers", query="c0001")
    box = [s for s in at.selectbox if s.label == "Another item of this list"][0]
    box.set_value(10).run()
    assert len(players(at)) == 1 + 3 + 1


def test_a_sample_without_audio_builds_no_player():
    at = app("pages/explorer.py", sample="versions")
    assert not at.exception and not players(at)


def test_the_compare_page_plays_both_lists():
    at = app("pages/compare.py", sample="covers")
    assert not at.exception and not at.error
    assert len(players(at)) == 1 + 3 + 3


def _one_player(row: dict, sample: str = "covers"):
    def script(row, sample):
        import pandas as pd
        import streamlit as st
        from dashboard.players import audio_player
        st.session_state["sample"] = sample
        audio_player(pd.Series(row, name="it1"), "one")
    return AppTest.from_function(script, args=(row, sample), default_timeout=30).run()


def test_an_excerpt_plays_from_start_to_end():
    at = _one_player({"audio": "audio/c0001.wav", "start": "0.5", "end": "1.2"})
    (player,) = players(at)
    assert (player.proto.start_time, player.proto.end_time) == (0, 2)   # whole seconds around
    assert md("Excerpt 0.5–1.2 s (played 0–2 s") in at.caption[0].value


def test_a_path_out_of_the_folder_is_a_warning_and_no_player():
    at = _one_player({"audio": "../instruments/audio/x0001.wav"})
    assert not players(at)
    (warning,) = at.warning
    assert "it1" in warning.value and "refused" in warning.value


def test_a_url_goes_to_the_browser_as_it_is():
    at = _one_player({"audio": "http://127.0.0.1:9/a.ogg"})
    assert players(at)[0].proto.url == "http://127.0.0.1:9/a.ogg"
