"""How the pages say that the input is bad, and that the app itself failed."""

from __future__ import annotations

import logging

import streamlit as st

from dashboard.safe import md
from metrics import InputError
from metrics.errors import CollectionSizeNeeded, UnknownMeasure

COLLECTION_SIZE_HOW = ("On the Data page, upload the files with the collection size |D|, or "
                       "say that the ground truth judges every item of each query.")


# where the app lists every measure name: the picker under the sidebar's measures box
MEASURE_NAMES_WHERE = "; the picker under this box, “Pick a measure from the list”, lists them all"


def show_error(exc: InputError, lead: str = "") -> None:
    """``st.error`` of bad input; a measure that lacks |D| also says where the app takes it, an
    unknown measure where the app lists the names."""
    how = f". {COLLECTION_SIZE_HOW}" if isinstance(exc, CollectionSizeNeeded) else \
        md(MEASURE_NAMES_WHERE) if isinstance(exc, UnknownMeasure) else ""
    st.error(f"{lead}{md(exc)}{how}")


UNEXPECTED = ("This page stopped: the app met an error it did not expect ({kind}). That is a bug "
              "in the app; the details are in the server's log. The other pages, and this one "
              "with other settings, may still work.")


def show_unexpected(exc: Exception) -> None:
    """What a page shows for an exception nobody caught: bad input that escaped the page's own
    checks as :func:`show_error` would say it, anything else as a short ``st.error`` naming only
    the exception's kind, with the traceback in the server's log. Never Streamlit's exception
    box, which shows the server's paths (and, by default, links to search engines)."""
    logging.getLogger(__name__).error("a page failed", exc_info=exc)
    if isinstance(exc, InputError):
        show_error(exc)
    else:
        st.error(UNEXPECTED.format(kind=type(exc).__name__))
