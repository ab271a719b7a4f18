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

# the selector is the app's own (a heading's anchor, a container's key), never user text; the
# nonce makes each request a new one (a component whose data did not change is not called again)
# while the page goes on drawing (charts and players above the heading take their height after
# the scroll began, or the sidebar is collapsed), the target is put back at the top for ten
# seconds, unless the reader scrolls first: on a loaded machine a smooth scroll otherwise ends
# where the heading used to be
_SCROLL_JS = """
export default function (component) {
  const selector = component.data.selector;
  const began = Date.now();
  const find = () => {   // the target may still be on its way from the server
    const target = document.querySelector(selector);
    if (target) follow(target);
    else if (Date.now() - began < 5000) setTimeout(find, 50);
  };
  find();
}

function follow(target) {
  // clear of the app's header, which stays over the top of the page
  const header = document.querySelector('header');
  target.style.scrollMarginTop = (header ? header.getBoundingClientRect().bottom + 4 : 0) + "px";
  target.scrollIntoView({behavior: "smooth"});
  if (typeof ResizeObserver === "undefined") return;
  const observer = new ResizeObserver(() => target.scrollIntoView({behavior: "auto"}));
  const stop = () => {
    observer.disconnect();
    for (const name of SCROLLING) window.removeEventListener(name, stop, true);
  };
  for (const name of SCROLLING) window.addEventListener(name, stop, true);
  const main = document.querySelector('[data-testid="stMainBlockContainer"]');
  observer.observe(main || document.body);
  setTimeout(stop, 10000);
}

// what a reader does to scroll; a click does not let go of the target (collapsing the sidebar
// reflows the page above it, which would otherwise move it under the header)
const SCROLLING = ["wheel", "touchstart", "keydown"];
"""

_ADDRESS = st.components.v2.component("address_bar", js=_ADDRESS_JS)
_SCROLL = st.components.v2.component("scroll_to", js=_SCROLL_JS)


def show_address(query: str, key: str = "address_bar") -> None:
    """Make the address bar's query string ``query`` (already encoded), in place: no history
    entry. ``key`` tells apart the frame's call from a fragment's."""
    _ADDRESS(key=key, data={"address": query}, height=0)


def _scroll(selector: str) -> None:
    nonce = st.session_state["_scroll_nonce"] = st.session_state.get("_scroll_nonce", 0) + 1
    _SCROLL(key="scroll_to", data={"selector": selector, "nonce": nonce}, height=0)


def scroll_to(anchor: str) -> None:
    """Scroll the page to the heading with this anchor."""
    _scroll(f"#{anchor}")


def scroll_to_key(key: str) -> None:
    """Scroll the page to the container made with ``st.container(key=key)`` (the app's own key,
    which Streamlit gives the container as the class ``st-key-<key>``)."""
    _scroll(f".st-key-{key}")
