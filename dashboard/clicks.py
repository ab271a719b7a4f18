"""Clicks on figures that open a query: each selection is applied once (a selection persists
over reruns, and the query box must stay free to change afterwards), and the page can scroll to
the view that shows the query (:func:`dashboard.in_page.scroll_to`)."""

from __future__ import annotations

from typing import Callable, Sequence

import streamlit as st

RANKINGS_ANCHOR = "both-rankings"


def clicked_index(event) -> int | None:
    """The index (the figure's customdata) of the point or bar a selection event holds."""
    for point in (event.selection.points if event else []):
        data = point.get("customdata")
        data = data[0] if isinstance(data, list) and data else data
        if isinstance(data, (int, float)) and not isinstance(data, bool):
            return int(data)
    return None


def open_clicked(key: str, event, choices: Sequence,
                 open_choice: Callable[[str], None] | None = None) -> bool:
    """Open the clicked one of ``choices`` (indexed by the figure's customdata), once per click:
    make it the chosen query, or call ``open_choice`` with it (a group of queries); True when
    that happened. What was clicked is remembered under ``key``, so that the selection, which
    persists over reruns, does not open it again."""
    index = clicked_index(event)
    clicked = str(choices[index]) if index is not None and 0 <= index < len(choices) else None
    seen = f"_clicked:{key}"
    new = clicked is not None and clicked != st.session_state.get(seen)
    st.session_state[seen] = clicked
    if new:
        if open_choice is None:
            st.session_state["query"] = clicked
        else:
            open_choice(clicked)
    return new
