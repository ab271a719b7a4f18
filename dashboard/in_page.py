"""Small things the browser does to the app's own page: write the address bar in place, scroll to
a heading. Each is an ``st.components.v2`` component whose script runs in the app's document (no
frame), mounted with a height of nothing.

Why the address bar is written here and not through ``st.query_params``: every write of
``st.query_params`` makes the browser push a history entry, and a page change pushes one of its
own before the page's run writes its settings: two entries per page change, so Back needed two
presses. Written with ``history.replaceState``, the page change's entry is the only one.
``st.query_params`` is read once per session (:func:`dashboard.permalink.read_permalink`), from
the address a new session starts at, and never written."""

from __future__ import annotations

import streamlit as st

_ADDRESS_JS = """
export default function (component) {
  const address = component.data.address;
  if (typeof address !== "string") return;
  const search = address ? "?" + address : "";
  if (window.location.search !== search) {
    window.history.replaceState(window.history.state, "",
                                window.location.pathname + search + window.location.hash);
  }
}
"""

# the anchor is the app's own (a heading's), never user text; the nonce makes each request a new
# one (a component whose data did not change is not called again)
# while the page goes on drawing (charts and players above the heading take their height after
# the scroll began), the heading is put back at the top for a few seconds, unless the reader
# scrolls first: on a loaded machine a smooth scroll otherwise ends where the heading used to be
_SCROLL_JS = """
export default function (component) {
  const target = document.getElementById(component.data.anchor);
  if (!target) return;
  target.scrollIntoView({behavior: "smooth"});
  if (typeof ResizeObserver === "undefined") return;
  const observer = new ResizeObserver(() => target.scrollIntoView({behavior: "auto"}));
  const stop = () => {
    observer.disconnect();
    for (const name of ["wheel", "touchstart", "keydown", "mousedown"]) {
      window.removeEventListener(name, stop, true);
    }
  };
  for (const name of ["wheel", "touchstart", "keydown", "mousedown"]) {
    window.addEventListener(name, stop, true);
  }
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  observer.observe(main || document.body);
  setTimeout(stop, 3000);
}
"""

_ADDRESS = st.components.v2.component("address_bar", js=_ADDRESS_JS)
_SCROLL = st.components.v2.component("scroll_to", js=_SCROLL_JS)


def show_address(query: str, key: str = "address_bar") -> None:
    """Make the address bar's query string ``query`` (already encoded), in place: no history
    entry. ``key`` tells apart the frame's call from a fragment's."""
    _ADDRESS(key=key, data={"address": query}, height=0)


def scroll_to(anchor: str) -> None:
    """Scroll the page to the heading with this anchor."""
    nonce = st.session_state["_scroll_nonce"] = st.session_state.get("_scroll_nonce", 0) + 1
    _SCROLL(key="scroll_to", data={"anchor": anchor, "nonce": nonce}, height=0)
