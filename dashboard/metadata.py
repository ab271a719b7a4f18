"""The item and query tables of the current data (a sample's, or the upload's optional tables;
see metrics/loaders/metadata.py), read once per data source and shared by every session: the
key holds the tables' content hashes, and the tables are never modified."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.computed import CACHE_TTL
from dashboard.datasets import load_source
from dashboard.errors import show_error
from dashboard.safe import md
from dashboard.settings import DataSource, source, tie_policy, upload_store
from metrics import InputError
from metrics.data.ties import TiePolicy
from metrics.explain.described import (BESIDE_ID, SEARCHED, default_columns, describing_queries,
                                       metadata_warnings, query_words, shown_columns)
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
def described_tables(src: DataSource, ties: TiePolicy, _store: dict | None) -> Tables:
    """(item table, the table describing the queries)."""
    items, queries = metadata_of(src, _store)
    if items is None and queries is None:
        return None, None
    return items, describing_queries(items, queries, load_source(src, ties, _store))


# apart from the tables: only the Data page shows these warnings, and collecting every item id
# the data names imports polars (a quarter of a second on a fresh server's first page)
@st.cache_resource(show_spinner=False, max_entries=16, ttl=CACHE_TTL)
def _unmatched_id_warnings(src: DataSource, ties: TiePolicy, _store: dict | None) -> list[str]:
    items, queries = metadata_of(src, _store)
    if items is None and queries is None:
        return []
    return metadata_warnings(items, queries, load_source(src, ties, _store))


def current_metadata() -> Tables:
    """(item table | None, query table | None) of the current data; where the data has no query
    table but its queries are items (cover songs), the item table describes the queries too.
    (None, None) after an ``st.error`` when a table cannot be read."""
    try:
        return described_tables(source(), tie_policy(), upload_store())
    except InputError as exc:
        show_error(exc, "Cannot read the metadata: ")
        return None, None


def current_metadata_warnings() -> list[str]:
    """The warnings about the current data's metadata tables (ids that match nothing)."""
    try:
        return _unmatched_id_warnings(source(), tie_policy(), upload_store())
    except InputError:
        return []   # current_metadata shows the error


def item_columns(items: pd.DataFrame | None, key: str) -> list[str]:
    """The item table's columns to show beside each item id: title and artist unless the
    person picks others (every column but the players'); none without an item table."""
    if items is None:
        return []
    options = shown_columns(items)
    if len(options) <= len(default_columns(items)):
        return default_columns(items)
    return st.multiselect("Item columns shown", options, default=default_columns(items),
                          key=key, help="columns of the item table shown beside each item id")


def show_query_description(queries: pd.DataFrame | None, query_id: str) -> None:
    """What the query table says of a query: its text (or title and artist) in a line, and its
    other columns (not those the players read) in a caption. Escaped: it is user text."""
    if queries is None or query_id not in queries.index:
        return
    words = query_words(queries, [query_id]).get(query_id)
    if words:
        kind = "text" if "text" in {str(c).lower() for c in queries.columns} else "title"
        st.markdown(f"**Query {kind}:** “{md(words)}”")
    shown = [c for c in shown_columns(queries)
             if str(c).lower() not in set(SEARCHED) | set(BESIDE_ID)]   # said in the line above
    pairs = [(c, queries.at[query_id, c]) for c in shown]
    pairs = [f"{md(c)}: {md(v)}" for c, v in pairs if pd.notna(v)]
    if pairs:
        st.caption(" · ".join(pairs))
