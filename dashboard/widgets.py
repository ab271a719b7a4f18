"""Widgets bound to a setting: the setting, not the widget, holds the value (see :func:`bound`)."""

from __future__ import annotations

import streamlit as st

from dashboard.permalink import check_link_value

from metrics.data.judged import JudgedRanking

VALUE_WIDGETS = {"number_input", "slider", "text_input"}   # widgets that take value=


def _copy(widget_key: str, name: str) -> None:
    st.session_state[name] = st.session_state[widget_key]


def bound(widget, label: str, name: str, key: str, **kwargs):
    """Draw ``widget`` for the setting ``name``. The widget has a key of its own, set from the
    setting before it is drawn and copied back when it changes: a widget's own state is dropped
    by Streamlit on any run that does not draw it (a page that hides the control), and two
    widgets (a slider and a number box) can show the same setting.

    The widget's state is set only when it differs from the setting: a widget whose state the
    script sets is sent to the browser again in full (the Query box with its thousand labels,
    21 kB, on every query switch, the browser rebuilding its list of options), an unchanged one
    is not."""
    if key not in st.session_state or st.session_state[key] != st.session_state[name]:
        st.session_state[key] = st.session_state[name]
    if getattr(widget, "__name__", "") in VALUE_WIDGETS:
        # the value as the default too: on a session's first run the browser showed a number
        # box's default (its minimum) although the box's state held the setting
        kwargs["value"] = st.session_state[name]
    return widget(label, key=key, on_change=_copy, args=(key, name), **kwargs)


def choose(label: str, name: str, options: list, default, key: str, noun: str = "", **kwargs):
    """A selectbox for the setting ``name``; a value that is not among ``options`` (another
    dataset's system, a link's query) gives way to ``default``. ``noun``: what an option is, for
    the note on a link's value (default: a query or a system)."""
    usable = st.session_state.get(name) in options
    if not usable:
        st.session_state[name] = default
    noun = noun or ("query" if name == "query" else "system")
    check_link_value(name, usable, f"this data has no such {noun}; "
                                   + ("none" if default is None else repr(default)) + " is shown")
    return bound(st.selectbox, label, name, key, options=options, **kwargs)


def max_list_length(data: dict[str, JudgedRanking] | None) -> int:
    """The longest ranked list of the data (the largest useful cutoff K)."""
    return max((int(j.lengths.max(initial=1)) for j in (data or {}).values()), default=10)


CUTOFF_BOX_WIDTH = 200   # pixels: room for a K of seven digits beside the box's − and + buttons


def cutoff_control(data: dict[str, JudgedRanking]) -> int:
    """Cutoff K in the main column: a number box (any K, up to lists of 1,000 and more) beside a
    slider. Returns K."""
    depth = max(max_list_length(data), 1)
    asked = int(st.session_state["cutoff"])
    st.session_state["cutoff"] = min(max(asked, 1), depth)
    check_link_value("cutoff", asked <= depth,
                     f"the longest list has {depth:,} items, so K = {depth:,}")
    if depth == 1:
        return 1
    # one row: a rerun sends it as one block, where columns are three the browser lays out again
    with st.container(horizontal=True, vertical_alignment="bottom"):
        bound(st.number_input, "Cutoff K", "cutoff", "cutoff_box", min_value=1, max_value=depth,
              step=1, width=CUTOFF_BOX_WIDTH,
              help="the top K items count as retrieved (confusion matrix, measures at K)")
        bound(st.slider, "Cutoff K (slider)", "cutoff", "cutoff_slider", min_value=1,
              max_value=depth, label_visibility="collapsed")
    return int(st.session_state["cutoff"])


def fit_precision_toggle(key: str, curves: str = "PR curves'") -> bool:
    """The switch that runs a PR chart's precision axis from 0 to the highest precision drawn
    (``curves``: the chart's curves, possessive, for its help): a failing query's precision
    (0.03) otherwise lies flat along an axis running to 1."""
    return st.toggle("Precision axis: fit to the data", key=key,
                     help=f"the {curves} precision axis from 0 to the highest precision drawn, "
                          "instead of 0 to 1")
