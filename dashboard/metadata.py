"""The item and query tables of the current data (a sample's, or the upload's optional tables;
see metrics/loaders/metadata.py), read once per data source and shared by every session: the
key holds the tables' content hashes, and the tables are never modified."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.computed import CACHE_TTL
from dashboard.datasets import load_source
from dashboard.errors import show_error
from dashboard.settings import DataSource, source, upload_store
from metrics import InputError
from metrics.explain.described import describing_queries, metadata_warnings
from metrics.explain.samples import sample_metadata
from metrics.loaders.metadata import read_metadata

Tables = tuple[pd.DataFrame | None, pd.DataFrame | None]


@st.cache_resource(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _tables(sample: str, files: tuple, _store: dict | None) -> Tables:
    """(item table, query table) of a sample (``sample``) or of an upload's metadata ``files``
    (role, name, content or its digest in ``_store``)."""
    if sample:
        return sample_metadata(sample)
    return read_metadata((role, name, content if isinstance(content, bytes) else
                          (_store or {})[content]) for role, name, content in files)


def metadata_of(src: DataSource, store: dict | None = None) -> Tables:
    """The item table and the query table of a data source, as given (None where not given)."""
    return _tables(src.sample if src.is_sample else "", src.metadata_files(), store)


@st.cache_resource(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _described(src: DataSource, ties: str, _store: dict | None) -> tuple[Tables, list[str]]:
    """((item table, the table describing the queries), warnings of ids matching nothing)."""
    items, queries = metadata_of(src, _store)
    if items is None and queries is None:
        return (None, None), []
    data = load_source(src, ties, _store)
    return ((items, describing_queries(items, queries, data)),
            metadata_warnings(items, queries, data))


def current_metadata() -> Tables:
    """(item table | None, query table | None) of the current data; where the data has no query
    table but its queries are items (cover songs), the item table describes the queries too.
    (None, None) after an ``st.error`` when a table cannot be read."""
    try:
        return _described(source(), st.session_state["ties"], upload_store())[0]
    except InputError as exc:
        show_error(exc, "Cannot read the metadata: ")
        return None, None


def current_metadata_warnings() -> list[str]:
    """The warnings about the current data's metadata tables (ids that match nothing)."""
    try:
        return _described(source(), st.session_state["ties"], upload_store())[1]
    except InputError:
        return []   # current_metadata shows the error
