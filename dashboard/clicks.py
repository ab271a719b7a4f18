"""Clicks on figures that open a query: each selection is applied once (a selection persists
over reruns, and the query box must stay free to change afterwards), and the page can scroll to
the view that shows the query (:func:`dashboard.in_page.scroll_to`)."""

from __future__ import annotations

import numpy as np
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


def open_clicked(key: str, event, queries: np.ndarray) -> bool:
    """Make the clicked query the chosen one, once per click; True when that happened."""
    index = clicked_index(event)
    clicked = str(queries[index]) if index is not None and 0 <= index < len(queries) else None
    seen = f"_clicked:{key}"
    new = clicked is not None and clicked != st.session_state.get(seen)
    if new:
        st.session_state["query"] = clicked
    st.session_state[seen] = clicked
    return new
