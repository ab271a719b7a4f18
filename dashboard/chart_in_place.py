"""A Plotly chart that a rerun redraws in place.

``st.plotly_chart`` gives a figure with a new spec a new element: the browser mounts a new chart
and draws it twice (at the spec's width, then at its column's). On the Query explorer, whose
figure changes with every query switch, change of K and teaching-mode step, that was most of a
click's time. This chart keeps its element (its key is its identity) and redraws with
``Plotly.react``. It uses the plotly.js that ships with the plotly package, served by Streamlit
from that package's directory, and the app's theme (text, background, grid and font).

It has no selection events: the pages whose charts are clicked use ``st.plotly_chart``.

It can also carry its page's permalink (``address``), which it puts in the browser's address bar
itself, in place: a fragment's rerun does not reach the frame, which writes the address after a
full run (:func:`dashboard.permalink.write_permalink`); a new session (a reload, a shared link)
reads the address bar."""

from __future__ import annotations

from pathlib import Path

import plotly
import plotly.graph_objects as go
import plotly.io as pio
import streamlit as st
import streamlit.components.v1 as components_v1


def _plotly_files():
    """Streamlit serves the files of a declared component's directory at
    /component/<name>/<file>: here, plotly's package_data, which holds plotly.min.js. Declared
    on every use, as it registers with the server only inside a script run, and the server
    imports this module before any (app.py's st.App, dashboard/warm_up.py)."""
    return components_v1.declare_component(
        "plotly_js", path=str(Path(plotly.__file__).parent / "package_data"))


_CHART = st.components.v2.component(
    "chart_in_place", js=Path(__file__).with_name("chart_in_place.js").read_text(),
    isolate_styles=False)   # Plotly's own style rules live in the document's head


def _plotly_url() -> str:
    base = st.get_option("server.baseUrlPath").strip("/")
    return "/" + "/".join(part for part in (base, "component", _plotly_files().name,
                                            "plotly.min.js") if part)


def show_chart_in_place(figure: go.Figure, key: str, address: str | None = None) -> None:
    """Show ``figure`` as the chart called ``key``: the first time mounted, then redrawn in
    place whenever the figure changes. ``address``, a query string, replaces the address bar's
    (the page's permalink, :func:`dashboard.permalink.permalink_query`)."""
    _CHART(key=key, data={"spec": pio.to_json(figure, validate=False), "plotly": _plotly_url(),
                          "address": address}, height="content")
