"""No link from user text, no request to another host before play, no exception box (issue 42,
items 6–8): URLs and e-mail addresses in titles, query texts and genres are shown as text; a clip
on another host is played only when asked, from a button naming the host; a stray bug in a page
is a short st.error."""

import tomllib

import pytest
from streamlit.testing.v1 import AppTest

from apptest import ROOT, app, markdown_texts
from dashboard.safe import md
from dashboard.settings import DataSource
from metrics.errors import InputError
from oracles import MARKDOWN_ESCAPE, autolinks


@pytest.mark.parametrize("text, link", [
    ("live at https://title.example/x?y=1", "https://title.example"),
    ("HTTP://LOUD.example", "HTTP://LOUD.example"),
    ("see www.artist.example now", "www.artist.example"),
    ("write to ann@mail.example", "ann@mail.example"),
    ("mailto:bob@mail.example", "bob@mail.example"),
])
def test_md_makes_no_autolink_and_reads_the_same(text, link):
    assert autolinks(text) == [link]                      # the oracle sees the raw text's link
    assert autolinks(md(text)) == []
    # what a person reads: the escapes dropped, the joiner invisible
    assert MARKDOWN_ESCAPE.sub(r"\1", md(text)).replace("\u2060", "") == text


def test_md_leaves_text_without_links_as_it_was_escaped():
    assert md("a:b www x@ y P@10") == "a\\:b www x@ y P@10"
    assert md("[q](u) **b**") == "\\[q\\]\\(u\\) \\*\\*b\\*\\*"


# ---- the pages, with an item table and a query table full of addresses ------------------------

RUN_A = b"".join(f"q{q} Q0 d{i} {i} {10 - i} mine\n".encode() for q in (1, 2) for i in range(1, 6))
RUN_B = b"".join(f"q{q} Q0 d{6 - i} {i} {10 - i} other\n".encode() for q in (1, 2)
                 for i in range(1, 6))
QRELS = b"q1 0 d2 1\nq1 0 d9 1\nq2 0 d1 1\n"
ITEMS = (b"item_id,title,artist,audio\n"
         b"d1,Live at https://title.example/x,www.artist.example,http://127.0.0.2:9/d1.wav\n"
         b"d2,Mail ann@mail.example,mailto:bob@mail.example,\n"
         b"d9,Lost at http://lost.example,www.lost.example,\n")
QUERIES = (b"query_id,text,genre,audio\n"
           b"q1,find https://query.example or write to q@query.example,https://genre.example,"
           b"http://127.0.0.2:9/d1.wav\n"
           b"q2,www.query.example,www.genre.example,\n")
UPLOAD = DataSource.of_upload("runs+qrels", (("runs", "mine.run", RUN_A),
                                             ("runs", "other.run", RUN_B),
                                             ("qrels", "q.qrels", QRELS),
                                             ("items", "items.csv", ITEMS),
                                             ("queries", "queries.csv", QUERIES)))


def _links_from_user_text(at) -> list[str]:
    return [link for text in markdown_texts(at) for link in autolinks(text)
            if "example" in link]


@pytest.mark.parametrize("page, state", [
    ("pages/explorer.py", dict(query="q1")),
    ("pages/compare.py", {}),
])
def test_no_page_makes_a_link_from_a_title_a_query_text_or_a_genre(page, state):
    at = app(page, upload=UPLOAD, sample="upload", **state)
    assert not at.exception, at.exception
    shown = "\n".join(markdown_texts(at))
    if page == "pages/explorer.py":   # the texts are shown, as text
        assert md("https://query.example") in shown and md("Live at https://title.example/x") \
            in shown, shown
    assert not _links_from_user_text(at)


# ---- a clip on another host: a button naming the host, the player only once pressed -----------

def players(at) -> list:
    return list(at.get("audio"))


def test_a_clip_on_another_host_is_a_button_until_pressed():
    at = app("pages/explorer.py", upload=UPLOAD, sample="upload", query="q1")
    assert not at.exception and not at.error
    assert not [p.proto.url for p in players(at)]          # no <audio>: nothing fetched
    (button,) = [b for b in at.button if b.key == "play_ranked_0"]
    assert button.label == md("▶ Play from 127.0.0.2:9")   # says where it would play from
    button.click().run()
    assert [(p.proto.url, p.proto.autoplay) for p in players(at)] == [
        ("http://127.0.0.2:9/d1.wav", True)]
    assert md("From 127.0.0.2:9") in [c.value for c in at.caption]
    at.run()                                               # it stays a player
    assert [p.proto.url for p in players(at)] == ["http://127.0.0.2:9/d1.wav"]
    # the query's own clip is the same URL: both players at once (Streamlit refuses two
    # autoplaying players with the same arguments)
    at.button(key="play_query").click().run()
    assert not at.exception, at.exception
    assert [p.proto.url for p in players(at)] == ["http://127.0.0.2:9/d1.wav"] * 2


# ---- a stray bug: an st.error, never Streamlit's exception box ---------------------------------

@pytest.mark.parametrize("raised, said", [
    (RuntimeError("/srv/app/secret/module.py: boom"),
     "the app met an error it did not expect (RuntimeError)"),
    (InputError("items.csv, line 3: a cell is bad"), "items.csv, line 3: a cell is bad"),
])
def test_a_page_that_raises_shows_an_error_not_an_exception(monkeypatch, raised, said):
    import dashboard.frame

    def fails():
        raise raised

    # every page starts with page_setup(): the Data page, app.py's first, fails in it
    monkeypatch.setattr(dashboard.frame, "page_setup", fails)
    at = AppTest.from_file(str(ROOT / "app.py"), default_timeout=90).run()
    assert not at.exception, at.exception
    (error,) = at.error
    shown = error.value.replace("\\", "")
    assert said in shown and "/srv" not in shown and "Traceback" not in shown, shown


def test_streamlit_shows_no_error_details_and_no_outside_links():
    # the fallback for what escapes app.py's handling (a callback, a fragment's own rerun)
    config = tomllib.loads((ROOT / ".streamlit" / "config.toml").read_text())
    assert config["client"]["showErrorDetails"] == "none"   # not False: that shows the trace
    assert config["client"]["showErrorLinks"] is False
