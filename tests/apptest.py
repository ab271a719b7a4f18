"""What the AppTest files (tests/test_app_*.py, test_players.py, …) share: a page run inside the
app's frame, opened with a session state or through a link, and the readers of what it drew (the
explorer's figure, a grid's cells, the address bar, Plotly's arrays)."""

from __future__ import annotations

import base64
import json
from pathlib import Path
from urllib.parse import parse_qs

import numpy as np
import pandas as pd
from streamlit.testing.v1 import AppTest

from dashboard.settings import DataSource

ROOT = Path(__file__).resolve().parents[1]
PAGES = ["pages/data.py", "pages/explorer.py", "pages/curves.py", "pages/answer_sets.py",
         "pages/compare.py", "pages/leaderboard.py", "pages/conventions.py", "pages/groups.py"]


# AppTest forgets between runs that app.py declared its pages (it resets Streamlit's pages/
# folder detection before every run, as a fresh server would), so after the first run it runs the
# page script without app.py. A page is therefore tested inside a frame that does what app.py
# does around a page (permalink, sidebar, mark); the real navigation is exercised by the browser
# test.
FRAME = """
import runpy
from dashboard.frame import PageEnded, mark_frame
from dashboard.permalink import read_permalink, write_permalink
from dashboard.sidebar import sidebar
read_permalink({key!r})
sidebar({key!r})
mark_frame()
try:
    runpy.run_path({page!r}, run_name="__main__")
except PageEnded:
    pass
finally:
    write_permalink({key!r})
"""
URL_PATHS = {script: path for script, _, _, path in __import__("dashboard.frame").frame.PAGES}


def _framed(page: str) -> AppTest:
    return AppTest.from_string(FRAME.format(page=str(ROOT / page), key=URL_PATHS[page]),
                               default_timeout=90)


def app(page: str | None = None, **state) -> AppTest:
    """``page`` (a script under pages/; app.py itself when None) run in the frame, with
    ``state`` set in its session first."""
    at = _framed(page) if page else AppTest.from_file(str(ROOT / "app.py"), default_timeout=90)
    for key, value in state.items():
        at.session_state[key] = value
    return at.run()


def linked(page: str, **params) -> AppTest:
    """``page`` opened through a link carrying ``params``."""
    at = _framed(page)
    for name, value in params.items():
        at.query_params[name] = value
    return at.run()


def address_params(at) -> dict[str, list[str]]:
    """The query string the frame put in the address bar (dashboard.in_page.show_address)."""
    addresses = {json.loads(c.proto.json)["address"] for c in at.get("bidi_component")
                 if c.proto.component_name == "address_bar"}
    [address] = addresses    # the frame's, and the explorer's fragment's when it writes one
    return parse_qs(address)


def upload_of(runs: dict[str, bytes], qrels: bytes, collection_size=None) -> DataSource:
    """What the Data page's upload stores for TREC runs (file name → bytes) and their qrels
    (AppTest cannot drive st.file_uploader)."""
    return DataSource.of_upload("runs+qrels", (*(("runs", name, run) for name, run in
                                                 runs.items()), ("qrels", "q.qrels", qrels)),
                                collection_size, False, "cosine")


def markdown_texts(at) -> list[str]:
    """Every string of the page that Streamlit reads as Markdown: text elements, labels and help
    of widgets, expanders and metrics, and every cell and header of an st.table."""
    from streamlit.testing.v1 import element_tree as tree

    text_kinds = (tree.Markdown, tree.Title, tree.Header, tree.Subheader, tree.AlertBase)
    texts = []

    def walk(node):
        for child in getattr(node, "children", {}).values():
            walk(child)
        if isinstance(node, text_kinds):
            texts.append(node.value)
        if isinstance(node, tree.Table):
            frame = node.value
            texts.extend(str(x) for x in [*frame.columns, *frame.index, *frame.to_numpy().ravel()])
        for attr in ("label", "help"):
            if isinstance(getattr(node, attr, None), str):
                texts.append(getattr(node, attr))

    walk(at.main)
    walk(at.sidebar)
    return texts


# ---- the Query explorer -----------------------------------------------------------------------

def query_box(at):
    return next(box for box in at.main.selectbox if box.label == "Query")


def chart_figures(at) -> list[dict]:
    """Every chart the run drew (dashboard.chart_in_place), as the figure JSON it sent, in page
    order."""
    return [json.loads(json.loads(c.proto.json)["spec"]) for c in at.get("bidi_component")
            if c.proto.component_name == "chart_in_place"]


def explorer_chart_data(at) -> dict:
    """The data of the explorer's chart redrawn in place (dashboard.chart_in_place)."""
    [chart] = [c for c in at.get("bidi_component") if c.proto.component_name == "chart_in_place"]
    return json.loads(chart.proto.json)


def explorer_figure(at) -> dict:
    """The explorer's query figure (strip, PR curve, confusion matrix) as the JSON its chart
    drew: the chart carries it as its data."""
    return json.loads(explorer_chart_data(at)["spec"])


def figure_panel(at, axis: str) -> list[dict]:
    """The traces of one panel of the explorer's query figure: the rank strip on x, the PR
    curve on x2, the confusion matrix on x3."""
    return [t for t in explorer_figure(at)["data"] if t.get("xaxis", "x") == axis]


def confusion_cells(at):
    return figure_panel(at, "x3")[0]["text"]


# ---- what a page drew: figures' arrays, grids' cells ------------------------------------------

def figure_array(value) -> np.ndarray:
    """A figure's array as sent to the browser: a list, or Plotly's binary {dtype, bdata,
    shape}."""
    if isinstance(value, dict) and "bdata" in value:
        flat = np.frombuffer(base64.b64decode(value["bdata"]), dtype=value["dtype"])
        shape = [int(n) for n in str(value.get("shape", len(flat))).split(",")]
        return flat.reshape(shape)
    return np.asarray(value, dtype=float)


def figure_values(data) -> list:
    """A figure's one-dimensional array as a list."""
    return figure_array(data).tolist()


def grid_data(frame) -> pd.DataFrame:
    """The data under a st.dataframe: the grid draws a missing value there as the element's
    placeholder, whatever a Styler's display string for that cell says."""
    import pyarrow as pa

    return pa.ipc.open_stream(frame.proto.arrow_data.data).read_pandas()


def grid_text(frame) -> pd.DataFrame:
    """The cells of a styled st.dataframe as the browser shows them (the Styler's strings)."""
    import pyarrow as pa

    return pa.ipc.open_stream(frame.proto.arrow_data.styler.display_values).read_pandas()
