"""What the server does before it answers its first request: import what the pages run with.

A fresh server's first page paid for every import its run needed: the pages' modules, pandas,
Plotly's figure classes, Arrow's conversion, and SciPy's statistics (some 0.8 s on its own, the
Compare, Leaderboard and Groups pages' tests). That was most of what a first page added to
Streamlit's own floor (BENCHMARKS.md, first-page). `app.py`'s ``st.App`` runs :func:`warm_start`
as its server starts, so the work is done once, before the server says it is ready, and a
first page — a shared link opened on a server just started — runs as fast as a second one.

Which modules: every module a page script imports (read from the scripts themselves, so a new
page is warmed without a list to keep), the libraries the engine imports only where it needs
them (``LATE_IMPORTS``), and the parts of Plotly, pandas and Streamlit that import or build
themselves on first use. Then the libraries' objects are frozen out of the garbage collector's
way (:func:`dashboard.frame.freeze_imported_objects`), before any session holds data.
"""

from __future__ import annotations

import ast
import asyncio
import importlib
import inspect
import logging
from contextlib import asynccontextmanager
from pathlib import Path

PAGES_FOLDER = Path(__file__).resolve().parents[1] / "pages"
APP_SCRIPT = PAGES_FOLDER.parent / "app.py"

# imported inside the functions that need them (so that the command line and the engine do not
# pay for them), and so not seen in the pages' own imports
LATE_IMPORTS = ("scipy.stats", "scipy.special", "scipy.optimize", "polars", "pyarrow",
                "pyarrow.compute", "pyarrow.parquet", "metrics.explain.conventions",
                # the judgments database (metrics.judgments.store) and SQLite's dialect, which
                # SQLAlchemy imports as it opens one
                "sqlalchemy", "sqlalchemy.dialects.sqlite", "sqlite3")

_LOGGER = logging.getLogger(__name__)


def page_imports(folder: Path = PAGES_FOLDER) -> list[str]:
    """The modules the page scripts in ``folder`` import at their top level, in first-seen
    order."""
    return _modules(node for script in sorted(folder.glob("*.py"))
                    for node in ast.parse(script.read_text(encoding="utf-8")).body)


def frame_imports(script: Path = APP_SCRIPT) -> list[str]:
    """The modules app.py imports, those of its run of the frame included (inside its
    ``else:``: the server's own import of app.py imports none of them, as a component declared
    before Streamlit's runtime exists is lost)."""
    return _modules(ast.walk(ast.parse(script.read_text(encoding="utf-8"))))


def _modules(nodes) -> list[str]:
    names: dict[str, None] = {}
    for node in nodes:
        if isinstance(node, ast.Import):
            names.update(dict.fromkeys(alias.name for alias in node.names))
        elif isinstance(node, ast.ImportFrom) and node.module and not node.level:
            names[node.module] = None
    return list(names)


def _first_use() -> None:
    """What Plotly, pandas and Streamlit import or build the first time a page draws: a figure
    with the kinds of traces and the parts of a layout that the charts use, written as JSON (as
    dashboard.chart_in_place sends it; Plotly imports each part's class on first use), a styled
    table (jinja2), a reshaped one, a CSV, a frame converted to Arrow (as ``st.dataframe``
    sends it), and the charts' plotly.js compressed."""
    import pandas as pd
    import plotly.colors  # noqa: F401  the colour scales of the heatmaps
    import plotly.graph_objects as go
    from streamlit import dataframe_util

    from dashboard.plotly_route import compressed_bundle

    frame = pd.DataFrame({"query": ["q", "r"], "system": ["a", "b"], "AP": [0.5, 0.25]})
    figure = go.Figure(   # columns of a frame as data: Plotly reads them through narwhals
        [go.Scatter(x=frame["AP"], y=frame["AP"], line={"width": 1}, error_x={"array": [0, 0]}),
         go.Bar(x=[0], y=[1], marker={"color": "grey"}),
         go.Heatmap(z=[[0, 1]], colorbar={"title": {"text": "p"}}, textfont={"size": 9})],
        layout={"title": {"text": "t"}, "margin": {"l": 0}, "legend": {"font": {"size": 9}},
                "xaxis": {"title": {"text": "x"}}, "yaxis": {"title": {"text": "y"}}})
    figure.to_json()
    frame.style.format(precision=3).to_html()
    frame.pivot(index="query", columns="system", values="AP").stack()
    frame.to_csv()
    dataframe_util.convert_pandas_df_to_arrow_bytes(frame)
    compressed_bundle()   # the charts' plotly.js, compressed once, served from memory
    # Streamlit's first element of the process asks whether it runs in a REPL by walking the
    # stack with inspect, whose first call maps the file of every module loaded (some 3,000 by
    # now: a tenth of a second of realpath calls); later calls find the map made
    inspect.stack(0)


def _first_statistics() -> None:
    """What SciPy builds or imports the first time the tests run (its resampling, Wilcoxon's and
    the studentised range's machinery, the integrals of the power): the Compare, Leaderboard
    and Groups pages' own computations on three systems of twenty queries, a tenth to a quarter
    of a second of a first Compare or Leaderboard page otherwise. Twenty queries and the pages'
    own number of resamples, so that the randomisation test takes its Monte Carlo path (with
    2^n sign patterns at most the resamples, it enumerates them all instead), whose first use
    cost a first Compare page another 0.1 s."""
    import numpy as np

    from metrics.evaluation.leaderboard import leaderboard, pairwise_matrix
    from metrics.evaluation.power import DEFAULT_POWER, power_analysis
    from metrics.evaluation.stats import DEFAULT_ALPHA, TESTS, compare_systems

    systems = dict(zip("abc", np.random.default_rng(0).random((3, 20))))
    per_query = {name: {"AP": values} for name, values in systems.items()}
    compare_systems(per_query, ["AP"], TESTS, 0)
    leaderboard(per_query, ["AP"])
    pairwise_matrix(systems)
    power_analysis(systems["a"], systems["b"], DEFAULT_ALPHA, DEFAULT_POWER, 0.05)


def warm() -> list[str]:
    """Import every page's modules and the late imports, exercise the libraries' first use,
    then freeze what they made. A module that fails to import is logged and left to the page
    that imports it (which shows its error as every page does); the names of those are
    returned."""
    failed = []
    for name in [*frame_imports(), *page_imports(), *LATE_IMPORTS]:
        try:
            importlib.import_module(name)
        except Exception:   # the page that needs it reports it, in the page
            _LOGGER.warning("warm-up: importing %s failed", name, exc_info=True)
            failed.append(name)
    for first_use in (_first_use, _first_statistics):
        try:
            first_use()
        except Exception:
            _LOGGER.warning("warm-up: %s failed", first_use.__name__, exc_info=True)
            failed.append(first_use.__name__)
    from dashboard.frame import freeze_imported_objects

    freeze_imported_objects()
    return failed


@asynccontextmanager
async def warm_start(_app):
    """``st.App``'s lifespan: warm the server (in a worker thread, so that the event loop is
    free) before it takes requests."""
    await asyncio.to_thread(warm)
    yield
