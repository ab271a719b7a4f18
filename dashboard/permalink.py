"""Permalinks: the settings of the page shown live in the URL's query string.

At the start of a session (a fresh tab, a reload, a shared link) :func:`read_permalink` copies
the query string into the session's settings; after every run :func:`write_permalink` puts the
settings the page uses back into the address bar, in place (no history entry: Back goes to the
previous page, see :mod:`dashboard.in_page`), so the address bar is always a link to what is on
the screen. The page itself is the URL's path (``/explorer``), so a link names the page too.

Uploaded files cannot travel in a URL: a link made on uploaded data says ``dataset=upload``, and
opening it in another session shows a note saying so (and the default sample instead).
"""

from __future__ import annotations

from urllib.parse import urlencode

import streamlit as st

from dashboard.in_page import show_address
from dashboard.settings import (ALPHA, CORRECTION, GROUPS_MEASURE, LEADERBOARD_MEASURE,
                                OPEN_GROUP, TEACH_RANK, TEACHING, UPLOAD, WHATIF_EDITS,
                                WHATIF_FOR, WHATIF_LINK_QUERY)
from metrics.data.ties import TiePolicy
from metrics.errors import InputError
from metrics.evaluation.corrections import Correction
from metrics.explain.samples import SAMPLES

READ = "_permalink_read"      # the session has read its URL once
NOTES = "_permalink_notes"    # what the link asked for that cannot be shown, for the page to say
# what the link asked for that only the page can check against its data (a query, a system, a
# K), by setting, until the end of the session's first run: see :func:`check_link_value`
ASKED = "_permalink_asked"
MIN_ALPHA, MAX_ALPHA = 0.0001, 0.5   # the Leaderboard's α box goes from, to
# what a link calls the settings a page checks (by default "systems")
LINK_WORDS = {"query": "query", "group_by": "grouping", LEADERBOARD_MEASURE: "measure",
              GROUPS_MEASURE: "measure", OPEN_GROUP: "group"}
SHOWN = "_permalink_page"     # the page the session's last run showed
ENTERED = "_permalink_entered"   # this run came to its page from another (or a new session)

# the URL parameters each page writes (the page itself is the path)
PAGE_PARAMS = {
    "data": ("dataset", "measures", "threshold", "ties"),
    "explorer": ("dataset", "measures", "threshold", "ties", "systems", "query", "k", "edits",
                 "r"),
    "curves": ("dataset", "threshold", "ties", "systems"),
    "answer_sets": (),
    "compare": ("dataset", "measures", "threshold", "ties", "systems", "query"),
    "leaderboard": ("dataset", "measures", "threshold", "ties", "systems", "correction",
                    "alpha", "measure"),
    "conventions": ("dataset", "measures", "threshold", "ties"),
    "groups": ("dataset", "measures", "threshold", "ties", "group_by", "measure", "group",
               "systems"),
}
# the session-state settings that hold a page's "systems"
SYSTEM_KEYS = {"explorer": ("system",), "compare": ("system_a", "system_b"),
               "curves": ("curve_systems",), "leaderboard": ("baseline",),
               "groups": ("system_a", "system_b")}
# the session-state setting that holds a page's "measure" (the one its charts show)
MEASURE_KEYS = {"leaderboard": LEADERBOARD_MEASURE, "groups": GROUPS_MEASURE}


def _positive_int(text: str) -> int | None:
    try:
        value = int(text)
    except ValueError:
        return None
    return value if value >= 1 else None


def read_permalink(page: str) -> None:
    """The URL's settings into session_state (unusable values are noted and left as they were):
    at the start of a session (a fresh tab, a reload, a shared link), and whenever the session
    comes to a page with a query string, which is Back or Forward to an entry of the browser's
    history (the sidebar's navigation comes without one): the page shows what its entry's
    address holds. Within a page, the address follows the page, never the other way round."""
    state = st.session_state
    entered = state.get(SHOWN) != page
    state[SHOWN], state[ENTERED] = page, entered
    params = st.query_params
    returning = bool(state.get(READ))
    if returning and not (entered and params):
        return
    state[READ] = True
    notes: list[tuple[str, str]] = []
    asked: dict[str, object] = {}
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
    for name, key in (("threshold", "threshold"), ("k", "cutoff"), ("r", TEACH_RANK)):
        if name in params:
            value = _positive_int(params[name])
            if value is None:
                notes.append(("warning", f"The link's {name} is not a positive whole number: "
                                         f"{params[name]!r}."))
            else:
                state[key] = asked[key] = value
    if "ties" in params:   # a former name too: links made before a rename
        ties = _parsed(TiePolicy.parse, params["ties"])
        if ties in TiePolicy.orderings():
            state["ties"] = ties.value   # by name, as the sidebar's box holds it
        else:
            notes.append(("warning", f"The link's tie policy is not one of "
                                     f"{', '.join(TiePolicy.ordering_names())}: "
                                     f"{params['ties']!r}."))
    if params.get("query"):
        state["query"] = asked["query"] = params["query"]
    teaching = TEACH_RANK in asked or bool(params.get("edits"))
    if page == "explorer" and (teaching or returning):
        # the address says whether the teaching mode is on: r= (and edits=) only while it is,
        # so Back to an entry without them turns it off; the "what if" edits
        # (dashboard/what_if_view.py) belong to the query the link names
        state[TEACHING] = teaching
        state[WHATIF_EDITS] = params.get("edits", "")
        state[WHATIF_FOR] = None
        state[WHATIF_LINK_QUERY] = params.get("query")
    if params.get("group_by"):   # the Groups page falls back to its first option if unknown
        state["group_by"] = asked["group_by"] = params["group_by"]
    _read_leaderboard_and_groups(page, params, returning, notes, asked)
    systems = [s for s in params.get_all("systems") if s]
    if systems:
        keys = SYSTEM_KEYS.get(page, ())
        if keys == ("curve_systems",):
            state["curve_systems"] = asked["curve_systems"] = systems
        else:
            for key, system in zip(keys, systems):
                state[key] = asked[key] = system
    state[NOTES] = notes
    state[ASKED] = asked


def _read_leaderboard_and_groups(page, params, returning: bool, notes: list, asked: dict) -> None:
    """The Leaderboard's correction and α, and the measure and group of the Leaderboard and the
    Groups page (a measure or group the data does not have is for the page to note)."""
    state = st.session_state
    if "correction" in params:
        correction = _parsed(Correction.parse, params["correction"])
        if correction is not None:
            state[CORRECTION] = correction.value
        else:
            notes.append(("warning", f"The link's correction is not one of "
                                     f"{', '.join(Correction.names())}: "
                                     f"{params['correction']!r}."))
    if "alpha" in params:
        alpha = _level(params["alpha"])
        if alpha is None:
            notes.append(("warning", f"The link's α is not a number from {MIN_ALPHA:g} to "
                                     f"{MAX_ALPHA:g}: {params['alpha']!r}."))
        else:
            state[ALPHA] = alpha
    if params.get("measure") and page in MEASURE_KEYS:
        state[MEASURE_KEYS[page]] = asked[MEASURE_KEYS[page]] = params["measure"]
    if page == "groups" and (params.get("group") or returning):
        # Back to an entry that opened no group shows none
        state[OPEN_GROUP] = params.get("group") or None
        if params.get("group"):
            asked[OPEN_GROUP] = params["group"]


def _parsed(parse, text: str):
    """A link's tie policy or correction (``parse``: its type's), or None: the page notes it."""
    try:
        return parse(text)
    except InputError:
        return None


def _level(text: str) -> float | None:
    try:
        value = float(text)
    except ValueError:
        return None
    return value if MIN_ALPHA <= value <= MAX_ALPHA else None


def entered_page() -> bool:
    """Whether the session has just come to the page it shows (a link, a reload, the sidebar,
    Back): once per coming, for the page to bring into view what it was last showing."""
    return bool(st.session_state.pop(ENTERED, False))


def check_link_value(name: str, usable: bool, instead: str) -> None:
    """Where a page decides whether the value of setting ``name`` can be shown: when the session's
    link gave that value and it cannot (a query or system the data does not have, a K beyond its
    longest list), say so beside the control, with what is shown ``instead``. Once: a value
    replaced later (another dataset's) is not the link's."""
    from dashboard.safe import md

    asked = st.session_state.get(ASKED, {})
    if name in asked:
        value = asked.pop(name)
        if not usable:
            what = ("k = " + str(value) if name == "cutoff" else
                    "r = " + str(value) if name == TEACH_RANK else
                    f"{LINK_WORDS.get(name, 'systems')} {value!r}")
            st.warning(md(f"The link's {what} cannot be shown here: {instead}."))


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
        "edits": state.get(WHATIF_EDITS) if state.get(TEACHING) else None,
        "r": state.get(TEACH_RANK) if state.get(TEACHING) else None,
        "group_by": state.get("group_by"),
        "correction": state.get(CORRECTION),
        "alpha": f"{state[ALPHA]:g}" if state.get(ALPHA) is not None else None,
        "measure": state.get(MEASURE_KEYS[page]) if page in MEASURE_KEYS else None,
        "group": state.get(OPEN_GROUP),
    }
    keys = SYSTEM_KEYS.get(page, ())
    chosen = state.get("curve_systems") if keys == ("curve_systems",) else \
        [state.get(k) for k in keys]
    if chosen and all(isinstance(s, str) for s in chosen):
        values["systems"] = list(chosen)   # repeated: systems=a&systems=b
    return {name: values[name] if name == "systems" else str(values[name])
            for name in PAGE_PARAMS.get(page, ()) if values.get(name) not in (None, "")}


def permalink_query(page: str) -> str:
    """:func:`permalink_params` as the URL's query string (``systems`` repeated)."""
    return urlencode(permalink_params(page), doseq=True)


def write_permalink(page: str, key: str = "address_bar") -> None:
    """The page's settings into the address bar (``key``: the frame's call, in the sidebar, or a
    fragment's, in the fragment). After the frame's first run, what the link asked for has been
    checked: :func:`check_link_value` is silent from then on."""
    if key == "address_bar":
        st.session_state.pop(ASKED, None)
        with st.sidebar:
            show_address(permalink_query(page), key)
    else:
        show_address(permalink_query(page), key)
