"""Every Plotly chart of the app: drawn by one component, redrawn in place by a rerun, and
clicked through a one-time event.

``st.plotly_chart`` gives a figure with a new spec a new element: the browser mounts a new chart
and draws it twice (at the spec's width, then at its column's); on the Query explorer, whose
figure changes with every query switch, change of K and teaching-mode step, that was most of a
click's time. It also brings the whole of plotly.js (4.7 MB in Streamlit's own bundle), which
took about 1.1 s of the browser's main thread on a first page with a chart (issue 40, defect
14: a fresh server's first page under 3 s). This chart keeps its element (its key is its
identity), redraws with ``Plotly.react``, and draws with plotly.js's cartesian bundle
(dashboard/plotly_js: scatter, bar and heatmap are all the app draws; about 0.4 s; served by
:mod:`dashboard.plotly_route`), in the app's theme (text, background, grid and font).

A chart that opens something when clicked (a point, a bar, a heatmap's cell) is ``clickable``:
:func:`show_chart` returns the clicked point, once, in the run the click starts (a trigger
value), and None in every other run.

A chart can also carry its page's permalink (``address``), which it puts in the browser's
address bar itself, in place: a fragment's rerun does not reach the frame, which writes the
address after a full run (:func:`dashboard.permalink.write_permalink`); a new session (a reload,
a shared link) reads the address bar."""

from __future__ import annotations

from pathlib import Path

import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st

from dashboard.plotly_route import plotly_url

CHART_KEY_PREFIX = "chart-"

_CHART = st.components.v2.component(
    "chart_in_place", js=Path(__file__).with_name("chart_in_place.js").read_text(),
    isolate_styles=False)   # Plotly's own style rules live in the document's head


def show_chart(figure: go.Figure, key: str, *, clickable: bool = False,
               address: str | None = None) -> dict | None:
    """Show ``figure`` as the chart called ``key``: the first time mounted, then redrawn in
    place whenever the figure changes. ``clickable``: the point, bar or cell clicked, in the run
    the click started (``{"customdata": …, "curve_number": …, "point_index": …}``), else None.
    ``address``, a query string, replaces the address bar's (the page's permalink,
    :func:`dashboard.permalink.permalink_query`)."""
    data = {"spec": pio.to_json(figure, validate=False), "plotly": plotly_url(),
            "clickable": clickable, "address": address}
    # the key names the element too (class st-key-chart-KEY): a test or a benchmark knows a
    # chart by it before the chart's own script has run
    key = CHART_KEY_PREFIX + key
    if not clickable:
        _CHART(key=key, data=data, height="content")
        return None
    # a callback makes the click a value of the result (Streamlit's rule for trigger values)
    return _CHART(key=key, data=data, height="content", on_click_change=_clicked).click


def _clicked() -> None:
    """Nothing to do in the callback: the page reads the click from the chart's result."""
