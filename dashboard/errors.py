"""How the pages say that the input is bad."""

from __future__ import annotations

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
