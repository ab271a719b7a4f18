"""A fresh server imports what its pages run with before it says it is ready (issue 40, defect
14: a shared link opened on a server just started took 3.5–7 s, most of it imports), so that a
first page imports nothing: dashboard/warm_up.py, run by app.py's st.App as its server starts."""

from __future__ import annotations

import json
import subprocess
import sys
import textwrap
from pathlib import Path

from tests.test_browser import await_app, launch_app

ROOT = Path(__file__).resolve().parents[1]

# every page as a shared link opens it, on the sample that gives it its full first view (the
# first-page benchmark's pages, benchmarks/bench_first_page.py)
FIRST_PAGES = [("pages/data.py", {}), ("pages/explorer.py", {}),
               ("pages/curves.py", {"dataset": "text2music"}), ("pages/answer_sets.py", {}),
               ("pages/compare.py", {"dataset": "covers"}),
               ("pages/leaderboard.py", {"dataset": "versions"}),
               ("pages/groups.py", {"dataset": "covers"}),
               ("pages/conventions.py", {"dataset": "covers", "ties": "trec9"})]


def test_page_imports_are_read_from_the_scripts_top_level(tmp_path):
    from dashboard.warm_up import page_imports

    (tmp_path / "a.py").write_text("import numpy as np\nfrom charts import figure\n"
                                   "from . import sibling\n"
                                   "def later():\n    import scipy.stats\n")
    (tmp_path / "b.py").write_text("import os, numpy\nfrom dashboard.safe import md\n")
    assert page_imports(tmp_path) == ["numpy", "charts", "os", "dashboard.safe"]


def test_a_first_page_imports_nothing_the_warmed_server_has_not():
    """In a fresh interpreter: app.py imported as the server imports it, the warm-up run, then
    each page opened by its link: no page imports a module (a late import left out of the
    warm-up would be paid for by somebody's first page)."""
    script = textwrap.dedent(f"""
        import importlib, json, sys
        sys.path[:0] = [{str(ROOT)!r}, {str(ROOT / 'tests')!r}]
        from streamlit.testing.v1 import AppTest
        AppTest.from_string("import streamlit as st").run()   # Streamlit's own first run
        importlib.import_module("app")                          # as `streamlit run` imports it
        from dashboard.warm_up import warm
        failed = warm()
        import apptest
        new = {{}}
        for page, params in {FIRST_PAGES!r}:
            before = set(sys.modules)
            at = apptest.linked(page, **params)
            assert not at.exception, (page, [e.value for e in at.exception])
            new[page] = sorted(set(sys.modules) - before - {{"runpy"}})   # the test's frame's
        print(json.dumps({{"failed": failed, "new": new}}))
        """)
    done = subprocess.run([sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=300)
    assert done.returncode == 0, done.stderr[-3000:]
    result = json.loads(done.stdout.strip().splitlines()[-1])
    assert result["failed"] == []
    assert result["new"] == {page: [] for page, _ in FIRST_PAGES}


def test_the_server_has_imported_scipy_stats_before_it_answers():
    """The real server (`streamlit run app.py`), healthy and not yet asked for a page, has SciPy's
    statistics loaded — which only the Compare, Leaderboard and Groups pages' tests import."""
    server, url = await_app(*launch_app())
    try:
        maps = Path(f"/proc/{server.pid}/maps").read_text()
        assert "scipy/stats/_stats." in maps
        assert "pandas/_libs" in maps
    finally:
        server.terminate()
        server.wait(timeout=20)


def test_the_server_watches_no_source_file():
    """Streamlit's watcher of source files, on by default, walks every loaded module's path on
    the server's event loop each time a script run has imported new ones: after the warm-up some
    3,000 modules, 1–2 s before a first page's first element could be sent (py-spy, issue 40
    defect 14). The app's config turns it off; a developer passes
    --server.fileWatcherType auto."""
    done = subprocess.run(
        [sys.executable, "-c", "from streamlit import config; config.get_config_options(); "
                               "print(config.get_option('server.fileWatcherType'))"],
        cwd=ROOT, capture_output=True, text=True, timeout=120)
    assert done.returncode == 0, done.stderr[-2000:]
    assert done.stdout.split()[-1] == "none"
