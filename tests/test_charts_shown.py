"""Every chart of the app is drawn by dashboard/chart_in_place.py with plotly.js's cartesian
bundle (dashboard/plotly_js): the bundle is the plotly.js release the plotly package writes its
figures for, it draws every trace type the app makes, and no page draws with st.plotly_chart
(which brings the whole of plotly.js, 4.7 MB, to a first page: issue 40, defect 14)."""

from __future__ import annotations

import ast
import gzip
import hashlib
import re
import urllib.request
from pathlib import Path

import numpy as np
import plotly
import pytest

from test_browser import app_url  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
BUNDLE = ROOT / "dashboard" / "plotly_js" / "plotly-cartesian.min.js"
SOURCES = [*ROOT.joinpath("pages").glob("*.py"), *ROOT.joinpath("dashboard").glob("*.py"),
           *ROOT.joinpath("charts").glob("*.py"), ROOT / "app.py"]


def _version(script: Path) -> str:
    """The version in a plotly.js bundle's header comment ("plotly.js … v4.1.1")."""
    match = re.search(r"plotly\.js[^\n]*? v(\d+\.\d+\.\d+)", script.read_text()[:400])
    assert match, f"{script}: no plotly.js version in its header"
    return match.group(1)


def test_the_bundle_is_the_plotly_js_release_of_the_plotly_package():
    full = Path(plotly.__file__).parent / "package_data" / "plotly.min.js"
    assert _version(BUNDLE) == _version(full)
    assert BUNDLE.with_name("LICENSE").read_text().startswith("MIT License")


def test_the_bundle_draws_every_trace_type_the_app_makes():
    drawn = set(re.findall(r'moduleType:"trace",name:"([a-z0-9]+)"', BUNDLE.read_text()))
    assert {"scatter", "bar", "heatmap"} <= drawn
    made = set()
    for source in SOURCES:
        for node in ast.walk(ast.parse(source.read_text(encoding="utf-8"))):
            # go.Scatter(...), go.Bar(...): a trace class of plotly.graph_objects
            if (isinstance(node, ast.Call) and isinstance(node.func, ast.Attribute)
                    and isinstance(node.func.value, ast.Name) and node.func.value.id == "go"
                    and node.func.attr not in {"Figure", "Layout"}):
                made.add(node.func.attr.lower())
    assert made and made <= drawn, sorted(made - drawn)


def test_no_page_draws_with_st_plotly_chart():
    calls = [f"{source.relative_to(ROOT)}:{node.lineno}" for source in SOURCES
             for node in ast.walk(ast.parse(source.read_text(encoding="utf-8")))
             if isinstance(node, ast.Attribute) and node.attr == "plotly_chart"]
    assert not calls, calls


def test_every_figure_draws_its_tick_labels_without_measuring_each():
    # Plotly's default (off category axes) measures every tick label to hide one that passes
    # the chart's edge, a forced layout of the page per label: 0.4 s of a first Groups page
    import plotly.io as pio

    from charts.groups import group_means_figure

    figure = group_means_figure([f"artist {i}" for i in range(137)], [2] * 137, ["a"],
                                np.full((137, 1), 0.5), np.full((137, 1), 0.4),
                                np.full((137, 1), 0.6), measure="AP",
                                grouping="artist", level=0.95)
    layout = pio.to_json(figure, validate=False)
    template = figure.layout.template.layout
    assert template.xaxis.ticklabeloverflow == template.yaxis.ticklabeloverflow == "allow"
    assert '"ticklabeloverflow":"allow"' in layout


def _get(url: str, encoding: str | None):
    request = urllib.request.Request(url, headers={"Accept-Encoding": encoding} if encoding else {})
    with urllib.request.urlopen(request, timeout=30) as response:
        return response.headers, response.read()


@pytest.mark.browser
def test_the_server_serves_the_bundle_compressed_once_at_an_address_named_by_its_content(
        app_url):  # noqa: F811
    # dashboard/plotly_route.py, installed by app.py's st.App from the server's start (no page
    # run needed first, as Streamlit's component files were)
    from dashboard.plotly_route import PLOTLY_ROUTE

    bundle = BUNDLE.read_bytes()
    headers, body = _get(app_url + PLOTLY_ROUTE, "gzip")
    assert headers["Content-Encoding"] == "gzip" and gzip.decompress(body) == bundle
    assert "immutable" in headers["Cache-Control"] and headers["Content-Type"].startswith(
        "text/javascript")
    headers, body = _get(app_url + PLOTLY_ROUTE, None)
    assert headers.get("Content-Encoding") is None and body == bundle
    assert hashlib.sha256(bundle).hexdigest()[:16] in PLOTLY_ROUTE

