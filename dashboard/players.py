"""Audio players for an item or a query whose metadata row has an ``audio`` cell (the columns'
names, in any case, are those of :mod:`metrics.explain.described`).

A player is built only where it is called: the pages call it for the rows on screen (a page of
the ranked list, the one item chosen), never for a whole list. A refused path (see
``dashboard/media.py``) is a warning naming the item, and nothing is read.

A clip on another host (an ``http(s)`` URL) is not a player until the person asks for it: a
browser's ``<audio>`` fetches its clip's start as the page loads (``st.audio`` sets no
``preload``), which would tell that host who is reading the page, and when. So such a clip is a
button "▶ Play from HOST"; pressing it makes the player, which then plays, and says where from.
"""

from __future__ import annotations

import math
import re
import zlib
from typing import Callable
from urllib.parse import urlsplit

import pandas as pd
import streamlit as st

from dashboard.media import Clip, folder_for, resolve
from dashboard.media_route import media_url
from dashboard.safe import md
from dashboard.settings import source
from metrics.errors import InputError
from metrics.explain.described import AUDIO, BESIDE_ID, END, START, column_named

LONGEST = 2 ** 31 - 1   # seconds: the player's bound on start and end (a 32-bit integer, 68 years)
TOP_PLAYERS = 3   # a list's first ranks get a player each; any other item of the page on request
CHOICES = 200     # the items offered for that request, at most (a page of the ranked list)


def excerpt(row: pd.Series, item: str) -> tuple[float, float | None]:
    """The ``start``/``end`` seconds of the excerpt to play (0 and None: the whole clip);
    InputError (naming the item and the cell) for a value that is not a number of seconds, a
    negative one, one beyond the player's :data:`LONGEST`, or an end that is not after the
    start."""
    bounds = []
    for column in (START, END):
        value = _cell(row, column)
        if not value:
            bounds.append(None)
            continue
        try:
            seconds = float(value)
        except (TypeError, ValueError):
            raise InputError(f"item {item!r}, {column} {value!r}: not a number of seconds; "
                             f"playing the whole clip") from None
        if not math.isfinite(seconds) or seconds < 0:
            raise InputError(f"item {item!r}, {column} {value!r}: seconds must be a finite "
                             f"number ≥ 0; playing the whole clip")
        if seconds > LONGEST:
            raise InputError(f"item {item!r}, {column} {value!r}: more seconds than the "
                             f"player's {LONGEST:,} (68 years); playing the whole clip")
        bounds.append(seconds)
    start, end = bounds
    if start is not None and end is not None and end <= start:
        raise InputError(f"item {item!r}: end {end:g} s is not after start {start:g} s; playing "
                         f"the whole clip")
    return start or 0.0, end


def audio_player(row: pd.Series | None, key: str) -> None:
    """A player for ``row``'s ``audio`` (nothing when there is none), playing its ``start``..
    ``end`` excerpt when given. The browser's player seeks in whole seconds, so a fractional
    excerpt is widened to the whole seconds around it, and the caption says so. ``key`` (unique
    on the page: ``"query"``, ``"ranked_3"``…) keys the player's container, whose CSS class
    ``st-key-audio_<key>`` finds it."""
    if row is None or column_named(row.index, AUDIO) is None:
        return
    key = re.sub(r'[^A-Za-z0-9_-]', '_', key)
    with st.container(key=f"audio_{key}"):
        _player(row, key)


def _player(row: pd.Series, key: str) -> None:
    item = str(row.name)
    src = source()
    sample = src.sample if src.is_sample else None
    try:
        clip = resolve(row.get(column_named(row.index, AUDIO)), folder_for(sample), item)
    except InputError as exc:
        st.warning(f"Not played: {md(exc)}")
        return
    if clip is None:
        return
    try:
        start, end = excerpt(row, item)
    except InputError as exc:   # the cell is refused; the clip is still played, whole
        st.error(md(exc))
        start, end = 0.0, None
    first, last = math.floor(start), (math.ceil(end) if end is not None else None)
    if clip.is_url and not _asked_for(clip, key):
        return
    if clip.is_url:   # asked for, so it plays; Streamlit tells autoplaying players apart by
        # their arguments, alt included: the same clip may be asked for in two places
        st.audio(clip.location, start_time=first, end_time=last, autoplay=True,
                 alt=f"Clip of {item} from {host_of(clip)} (player {key})")
        st.caption(f"From {md(host_of(clip))}")
    else:   # an address on the app's own server: the browser asks for the file by ranges, and
        # nothing of it is read as the page runs (dashboard/media_route.py)
        st.audio(media_url(clip, sample), format=clip.mimetype, start_time=first, end_time=last)
    if start or end is not None:
        span = f"{start:g}–{end:g} s" if end is not None else f"from {start:g} s"
        widened = ""
        if first != start or (end is not None and last != end):
            played = f"{first}–{last} s" if last is not None else f"from {first} s"
            widened = f" (played {played}: the player seeks in whole seconds)"
        st.caption(md(f"Excerpt {span}{widened}"))


def host_of(clip: Clip) -> str:
    """The host (and port) a URL clip is fetched from, as written, without a user or password."""
    return urlsplit(clip.location).netloc.rpartition("@")[2]


def _asked_for(clip: Clip, key: str) -> bool:
    """Whether the person has asked to play the URL ``clip`` of the player ``key``; until then,
    a button that asks. Remembered for the session, per player and URL: another query's clip
    in the same place asks again."""
    asked = f"_play_{key}_{zlib.crc32(clip.location.encode()):08x}"
    if st.session_state.get(asked):
        return True
    st.button(f"▶ Play from {md(host_of(clip))}", key=f"play_{key}",
              on_click=st.session_state.__setitem__, args=(asked, True),
              help="The clip is on another server: nothing is asked of it until you press play.")
    return False


# ---- what the pages call, with the tables of dashboard.metadata.current_metadata() ------------

def _row(table: pd.DataFrame | None, key: str) -> pd.Series | None:
    if table is None or key not in table.index:
        return None
    return table.loc[key]


def _has_audio(table: pd.DataFrame | None) -> bool:
    return table is not None and column_named(table.columns, AUDIO) is not None


def _cell(row: pd.Series | None, column: str) -> str:
    """The cell of ``column`` (a name of the vocabulary, in any case) as text; empty where the
    row, the column or the value is missing."""
    name = None if row is None else column_named(row.index, column)
    value = None if name is None else row.get(name)
    return "" if value is None or (isinstance(value, float) and math.isnan(value)) \
        else str(value).strip()


def label(item: str, row: pd.Series | None) -> str:
    """``c0123 · Bright Tides — Ana Ruiz`` (what of title and artist the table gives)."""
    said = [_cell(row, c) for c in BESIDE_ID if _cell(row, c)]
    return " · ".join([item, " — ".join(said)] if said else [item])


def query_player(query_id: str, items: pd.DataFrame | None,
                 queries: pd.DataFrame | None) -> None:
    """The query's own clip (query-by-example, cover songs): from the query table, else from the
    item table when the query is an item."""
    row = _row(queries, query_id) if _has_audio(queries) else None
    if row is None and _has_audio(items):
        row = _row(items, query_id)
    if not _cell(row, AUDIO):
        return
    st.markdown("**Listen to the query**")   # its title is in the query's description above
    audio_player(row, "query")


def list_players(table: pd.DataFrame, key: str, items: pd.DataFrame | None,
                 title: str = "Listen", row_at: Callable[[int], pd.DataFrame] | None = None,
                 length: int | None = None) -> None:
    """Players, under ``title``, for the first :data:`TOP_PLAYERS` items of ``table`` (a page of
    a ranked list, or the missed items) and, on request, for one other item of the list, from
    the item table ``items``: chosen by name from a list that is all here and short, else by
    rank, anywhere in the whole ranked list, with ``row_at`` (a rank → that row of the list,
    ``length`` items long). Nothing when the items have no ``audio`` column."""
    if not _has_audio(items) or table.empty:
        return
    st.markdown(f"**{md(title)}**")
    for i in range(min(TOP_PLAYERS, len(table))):
        row = table.iloc[i]
        st.caption(md(heading(row, items)))
        audio_player(_row(items, str(row["item"])), f"{key}_{i}")
    whole = len(table) if length is None else int(length)
    if whole <= TOP_PLAYERS:
        return
    if row_at is not None and not (len(table) == whole <= CHOICES):
        # a page of a ranked list, or one too long to offer item by item: any rank of it, by
        # number; keyed on the list (its length and first item)
        first = str(row_at(1)["item"].iloc[0])
        rank = st.number_input(
            f"Another item of this list: its rank (1 to {whole:,})", min_value=1,
            max_value=whole, value=None, step=1, placeholder="a rank, to hear that item",
            key=f"listen_{key}_rank_{zlib.crc32(f'{whole}:{first}'.encode()):08x}")
        row = None if rank is None else row_at(int(rank)).iloc[0]
    else:
        ids = [str(i) for i in table["item"]]
        # keyed on the list: another query's or page's list starts with nothing chosen
        chosen = st.selectbox(
            "Another item of this list" if len(ids) <= CHOICES else
            f"Another of this list's first {CHOICES} items",
            range(TOP_PLAYERS, min(len(ids), CHOICES)), index=None,
            format_func=lambda i: heading(table.iloc[i], items),
            placeholder="Choose an item to hear it",
            key=f"listen_{key}_{zlib.crc32(chr(10).join(ids).encode()):08x}")
        row = None if chosen is None else table.iloc[chosen]
    if row is not None:
        st.caption(md(heading(row, items)))
        audio_player(_row(items, str(row["item"])), f"{key}_chosen")


def heading(row: pd.Series, items: pd.DataFrame | None) -> str:
    """A listed item in words: ``rank 3 · c0123 · Bright Tides — Ana Ruiz · relevant`` for a
    ranked list's row (rank, item, χ); for a missed item's (rank or none, item, grade, the other
    systems' ranks) ``rank 135 · … · grade 1 · system_b: rank 2``, "not retrieved" where a list
    does not hold it."""
    def where(rank) -> str:
        return "not retrieved" if pd.isna(rank) else f"rank {int(rank):,}"

    item = str(row["item"])
    words = [where(row["rank"])] if "rank" in row.index else []
    words.append(label(item, _row(items, item)))
    if "χ" in row.index:
        words.append("relevant" if row["χ"] else "not relevant")
    elif "grade" in row.index and not pd.isna(row["grade"]):
        words.append(f"grade {int(row['grade'])}")
    words += [f"{column.removeprefix('rank in ')}: {where(row[column])}"
              for column in row.index if str(column).startswith("rank in ")]
    return " · ".join(words)
