"""Audio players for an item or a query whose metadata row has an ``audio`` cell.

A player is built only where it is called: the pages call it for the rows on screen (a page of
the ranked list, the one item chosen), never for a whole list. A refused path (see
``dashboard/media.py``) is a warning naming the item, and nothing is read.
"""

from __future__ import annotations

import math
import re

import pandas as pd
import streamlit as st

from dashboard.media import folder_for, resolve
from dashboard.safe import md
from dashboard.settings import source
from metrics.errors import InputError


def excerpt(row: pd.Series, item: str) -> tuple[float, float | None]:
    """The ``start``/``end`` seconds of the excerpt to play (0 and None: the whole clip);
    InputError for a value that is not a number of seconds, a negative one, or an end that is
    not after the start."""
    bounds = []
    for column in ("start", "end"):
        value = row.get(column)
        if value is None or (isinstance(value, float) and math.isnan(value)) or \
                str(value).strip() == "":
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
    if row is None or "audio" not in row.index:
        return
    with st.container(key=f"audio_{re.sub(r'[^A-Za-z0-9_-]', '_', key)}"):
        _player(row)


def _player(row: pd.Series) -> None:
    item = str(row.name)
    src = source()
    try:
        clip = resolve(row.get("audio"), folder_for(src.sample if src.is_sample else None), item)
    except InputError as exc:
        st.warning(f"Not played: {md(exc)}")
        return
    if clip is None:
        return
    try:
        start, end = excerpt(row, item)
    except InputError as exc:
        st.warning(md(exc))
        start, end = 0.0, None
    first, last = math.floor(start), (math.ceil(end) if end is not None else None)
    st.audio(clip.location, format=clip.mimetype or "audio/wav", start_time=first,
             end_time=last)
    if start or end is not None:
        span = f"{start:g}–{end:g} s" if end is not None else f"from {start:g} s"
        widened = ""
        if first != start or (end is not None and last != end):
            played = f"{first}–{last} s" if last is not None else f"from {first} s"
            widened = f" (played {played}: the player seeks in whole seconds)"
        st.caption(md(f"Excerpt {span}{widened}"))
