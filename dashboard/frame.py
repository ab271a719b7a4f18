"""The app's frame: its pages, its navigation and what every page does first.

Streamlit has two ways to find pages. ``app.py`` names them with ``st.navigation``; but on a
freshly started server, before any script has called ``st.navigation``, Streamlit still serves a
``pages/`` folder by itself: a deep link such as ``/explorer`` as the server's first request runs
``pages/explorer.py`` directly, with a navigation of file names and without ``app.py``'s sidebar
or state. The first ``st.navigation`` call anywhere switches that off for the whole server.

So ``app.py`` leaves a mark in the session before it runs a page, and every page starts with
:func:`page_setup`: a page that finds no mark was run without the frame, so it declares the app's
own navigation (which switches Streamlit to it for good) and reruns: the rerun runs ``app.py``,
which opens the same page (the page's script hash comes from its URL path, the same in both
ways) with the app's navigation, sidebar and state. The URL's query string is kept.

The default page (Data) is served at "/", and Streamlit gives it an empty URL path in the
navigation, so its own path (``/data``, which the pages/ fallback and the other pages' pattern
give it) matched no page: Streamlit ran the default page under a "Page not found" notice.
:func:`declare_navigation` turns a request for that path into a request for the default page
before the navigation resolves it; the address bar then shows the page's address, "/".
"""

from __future__ import annotations

import gc
from pathlib import Path
from typing import NoReturn

import streamlit as st

from dashboard.permalink import show_permalink_notes
from dashboard.settings import init_state

FRAME_MARK = "_frame_ran"   # set by the frame before each page run, consumed by the page
FRAME_RERUN = "_frame_rerun"   # the session has already rerun once to reach the frame
FRAMED = "_framed"   # the page running now was run by the frame (which catches PageEnded)

# (script, title, icon, url path); the first is the default page, served at "/". Each url path is
# the one Streamlit's pages/ fallback derives from the file name, so that a deep link reaches the
# same script both ways (a path the fallback does not know shows it a "page not found" notice).
PAGES = [
    ("pages/data.py", "Data", ":material/folder_open:", "data"),
    ("pages/explorer.py", "Query explorer", ":material/manage_search:", "explorer"),
    ("pages/curves.py", "Curves", ":material/show_chart:", "curves"),
    ("pages/answer_sets.py", "Answer sets", ":material/table_chart:", "answer_sets"),
    ("pages/compare.py", "Compare systems", ":material/compare_arrows:", "compare"),
    ("pages/leaderboard.py", "Leaderboard", ":material/leaderboard:", "leaderboard"),
    ("pages/groups.py", "Groups of queries", ":material/category:", "groups"),
    ("pages/conventions.py", "Conventions", ":material/rule:", "conventions"),
]


ROOT = Path(__file__).resolve().parents[1]

# The tab's title and icon. The icon is an emoji, which the browser draws itself: the browser
# fetches a ":material/…:" favicon from Google's font server (fonts.gstatic.com), on every page
# load, and so it fetches a page's own material icon when no page icon is configured before
# the navigation is declared. The navigation's icons come with Streamlit's own files. The app
# makes no request outside its own server (tests/test_browser.py).
PAGE_CONFIG = dict(page_title="Music Retrieval Evaluation", page_icon="🎵", layout="wide")


def configure_page() -> None:
    """The tab's title and icon and the wide layout, before any navigation is declared."""
    st.set_page_config(**PAGE_CONFIG)


def app_pages() -> list:
    # absolute paths: a relative one is read against the running main script's folder
    return [st.Page(ROOT / script, title=title, icon=icon, url_path=path, default=i == 0)
            for i, (script, title, icon, path) in enumerate(PAGES)]


def declare_navigation(position: str = "sidebar"):
    """``st.navigation`` of the app's pages (the page to run), where a request for the default
    page by its own path ("/data") opens the default page, with no "Page not found" notice.

    Streamlit matches a first request's path against each page's public path, and the default
    page's is "" (it is served at "/"); but it matches a page script hash first, and the default
    page's hash is still that of its own path. So a request by that path, with no hash, is made
    a request for that hash. (Streamlit has no public way to do this; the deep-link browser
    tests, /data included, would fail if its page manager changed.)"""
    from streamlit.runtime.scriptrunner import get_script_run_ctx

    pages = app_pages()
    default = pages[0]
    ctx = get_script_run_ctx()
    manager = ctx.pages_manager if ctx else None
    if (manager is not None and manager.intended_page_name == PAGES[0][3]
            and not manager.intended_page_script_hash):
        manager.set_script_intent(default._script_hash, "")
    return st.navigation(pages, position=position)


def mark_frame() -> None:
    """Called by the frame (app.py, or a test's stand-in) right before it runs a page."""
    st.session_state[FRAME_MARK] = True


def page_setup() -> None:
    """The first line of every page: make sure the page runs inside the app's frame, then make
    sure every shared setting has a value (so no page can meet a missing session_state key)."""
    framed = st.session_state[FRAMED] = st.session_state.pop(FRAME_MARK, False)
    if not framed and not st.session_state.get(FRAME_RERUN):
        st.session_state[FRAME_RERUN] = True             # once: never a loop of reruns
        configure_page()                                 # or a page's icon becomes the favicon
        declare_navigation(position="hidden")           # Streamlit now uses the app's pages
        st.rerun()                                        # … and runs app.py for this page
    init_state()
    show_permalink_notes()


_frozen = False


def freeze_imported_objects() -> None:
    """Move the objects of the libraries out of the garbage collector's reach, once per server.

    With Streamlit, Plotly and pandas imported the server holds some 130,000 objects that live as
    long as it does, and every full collection walks them all: 100–190 ms on a small machine,
    holding the GIL in the middle of somebody's click. Frozen (``gc.freeze``), they are skipped;
    a full collection then walks only what the sessions made since. Done once, at the first
    page run, after importing what the pages draw with, and before any dataset is loaded (the
    sidebar calls it before it loads the current one): a frozen object is never collected, so
    nothing a session makes may be frozen. Freezing first also makes the collection that follows
    the first load (dashboard/memory_cache.py) walk only the dataset, not the libraries."""
    global _frozen
    if not _frozen:
        import charts              # noqa: F401  Plotly, imported by the pages that draw
        import metrics.ranking.pipelines   # noqa: F401  the loaders and the engine

        gc.collect()
        gc.freeze()
        _frozen = True


class PageEnded(Exception):
    """Raised by :func:`end_page`, caught by the frame."""


def end_page() -> NoReturn:
    """End the page here, after it has said why (no data for it, nothing chosen). In place of
    ``st.stop()``: after that nothing more reaches the browser, not even the frame's address
    bar, so the link lost the dataset and the settings of a page that stopped early. A page run
    without the frame (Streamlit's pages/ fallback) stops as before."""
    if st.session_state.get(FRAMED):
        raise PageEnded
    st.stop()


def page_path(url_path: str):
    """The app's page at ``url_path``, for ``st.switch_page``."""
    return next(page for page in app_pages() if page.url_path == url_path)
