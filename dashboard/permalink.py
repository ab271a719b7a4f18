"""Permalinks: the settings of the page shown live in the URL's query string.

At the start of a session (a fresh tab, a reload, a shared link) :func:`read_permalink` copies
the query string into the session's settings; after every run :func:`write_permalink` puts the
settings the page uses back, so the address bar is always a link to what is on the screen. The
page itself is the URL's path (``/explorer``), so a link names the page too.

Uploaded files cannot travel in a URL: a link made on uploaded data says ``dataset=upload``, and
opening it in another session shows a note saying so (and the default sample instead).
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from dashboard.settings import UPLOAD, WHATIF_EDITS, WHATIF_FOR
from metrics.data.ties import ALIASES, TiePolicy
from metrics.explain.samples import SAMPLES

READ = "_permalink_read"      # the session has read its URL once
NOTES = "_permalink_notes"    # what the link asked for that cannot be shown, for the page to say

# the URL parameters each page writes (the page itself is the path)
PAGE_PARAMS = {
    "data": ("dataset", "measures", "threshold", "ties"),
    "explorer": ("dataset", "measures", "threshold", "ties", "systems", "query", "k", "edits"),
    "curves": ("dataset", "threshold", "ties", "systems"),
    "answer_sets": (),
    "compare": ("dataset", "measures", "threshold", "ties", "systems", "query"),
    "leaderboard": ("dataset", "measures", "threshold", "ties", "systems"),
    "groups": ("dataset", "measures", "threshold", "ties", "group_by"),
}
# the session-state settings that hold a page's "systems"
SYSTEM_KEYS = {"explorer": ("system",), "compare": ("system_a", "system_b"),
               "curves": ("curve_systems",), "leaderboard": ("baseline",)}


def _positive_int(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 1 else None


def read_permalink(page: str) -> None:
    """Once per session: the URL's settings into session_state (unusable values are noted and
    left at their defaults)."""
    if st.session_state.get(READ):
        return
    st.session_state[READ] = True
    params = st.query_params
    state = st.session_state
    notes: list[tuple[str, str]] = []
    dataset = params.get("dataset")
    if dataset == UPLOAD and "upload" not in state:
        notes.append(("info", "This link was made on uploaded files, which cannot be stored in a "
                              "link: upload them again on the Data page. Until then the page "
                              "shows a bundled sample."))
    elif dataset in SAMPLES:
        state["sample"] = dataset
    elif dataset:
        notes.append(("warning", f"The link names a dataset that does not exist: {dataset!r}."))
    if params.get("measures"):
        state["measures"] = params["measures"]
    for name, key in (("threshold", "threshold"), ("k", "cutoff")):
        if name in params:
            value = _positive_int(params[name])
            if value is None:
                notes.append(("warning", f"The link's {name} is not a positive whole number: "
                                         f"{params[name]!r}."))
            else:
                state[key] = value
    offered = TiePolicy.ordering_names()
    ties = ALIASES.get(params.get("ties"), params.get("ties"))   # links made before a rename
    if ties in offered:
        state["ties"] = str(ties)
    elif "ties" in params:
        notes.append(("warning", f"The link's tie policy is not one of "
                                 f"{', '.join(offered)}: {params['ties']!r}."))
    if params.get("query"):
        state["query"] = params["query"]
    if params.get("edits"):   # the teaching mode's "what if" (dashboard/what_if_view.py)
        state[WHATIF_EDITS], state[WHATIF_FOR], state["teaching"] = params["edits"], None, True
    if params.get("group_by"):   # the Groups page falls back to its first option if unknown
        state["group_by"] = params["group_by"]
    systems = [s for s in params.get_all("systems") if s]
    if systems:
        keys = SYSTEM_KEYS.get(page, ())
        if keys == ("curve_systems",):
            state["curve_systems"] = systems
        else:
            for key, system in zip(keys, systems):
                state[key] = system
    state[NOTES] = notes


def show_permalink_notes() -> None:
    """What the link asked for that cannot be shown (once, on the page the link opened)."""
    from dashboard.safe import md

    for kind, text in st.session_state.pop(NOTES, []):
        (st.info if kind == "info" else st.warning)(md(text))


def permalink_params(page: str) -> dict[str, str | list[str]]:
    """The query string that reproduces what the page shows."""
    state = st.session_state
    values = {
        "dataset": state.get("sample"),
        "measures": state.get("measures"),
        "threshold": state.get("threshold"),
        "ties": state.get("ties"),
        "k": state.get("cutoff"),
        "query": state.get("query"),
        "edits": state.get(WHATIF_EDITS) if state.get("teaching") else None,
        "group_by": state.get("group_by"),
    }
    keys = SYSTEM_KEYS.get(page, ())
    chosen = state.get("curve_systems") if keys == ("curve_systems",) else \
        [state.get(k) for k in keys]
    if chosen and all(isinstance(s, str) for s in chosen):
        values["systems"] = list(chosen)   # repeated: systems=a&systems=b
    return {name: values[name] if name == "systems" else str(values[name])
            for name in PAGE_PARAMS.get(page, ()) if values.get(name) not in (None, "")}


def permalink_query(page: str) -> str:
    """:func:`permalink_params` as the URL's query string (``systems`` repeated), encoded as
    ``st.query_params`` encodes it."""
    return urlencode(permalink_params(page), doseq=True)


def write_permalink(page: str, always: bool = False) -> None:
    """The page's settings into the URL, only when they changed (each write is a message) unless
    ``always``: after a fragment's reruns the address bar may hold what the Query explorer's
    chart put there, ahead of ``st.query_params``."""
    wanted = permalink_params(page)
    current = {name: st.query_params.get_all(name) if name == "systems" else st.query_params[name]
               for name in st.query_params}
    if always or current != wanted:
        st.query_params.from_dict(wanted)
