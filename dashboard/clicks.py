"""Clicks on figures that open a query: the clicked point (which
:func:`dashboard.chart_in_place.show_chart` gives once, in the run the click starts) opens what it
stands for, and the page can scroll to the view that shows the query
(:func:`dashboard.in_page.scroll_to`)."""

from __future__ import annotations

from typing import Callable, Sequence

import streamlit as st

RANKINGS_ANCHOR = "both-rankings"


def clicked_index(click: dict | None) -> int | None:
    """The index (the figure's customdata) of the clicked point, bar or cell, or None."""
    data = click.get("customdata") if isinstance(click, dict) else None
    data = data[0] if isinstance(data, list) and data else data
    if isinstance(data, (int, float)) and not isinstance(data, bool):
        return int(data)
    return None


def open_clicked(click: dict | None, choices: Sequence,
                 open_choice: Callable[[str], None] | None = None) -> bool:
    """Open the clicked one of ``choices`` (indexed by the figure's customdata): make it the
    chosen query, or call ``open_choice`` with it (a group of queries); True when that
    happened."""
    index = clicked_index(click)
    if index is None or not 0 <= index < len(choices):
        return False
    clicked = str(choices[index])
    if open_choice is None:
        st.session_state["query"] = clicked
    else:
        open_choice(clicked)
    return True
