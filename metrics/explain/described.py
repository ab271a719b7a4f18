"""Items and queries described by their metadata tables (:mod:`metrics.loaders.metadata`): the
columns shown beside an id, the ids a table names that the data lacks, and the words a query is
found by.

Which columns are shown as text is decided here, once: ``title`` and ``artist`` beside every id,
every other column on demand, and never the columns that are played rather than read (``audio``,
``start``, ``end``: the players' business). A column is one of these names whatever its case
(``Audio`` is the audio column): :func:`column_named` finds it, for the players too.
"""

from __future__ import annotations

from typing import Iterable, Mapping

import numpy as np
import pandas as pd

from metrics.data.judged import JudgedRanking
from metrics.loaders.metadata import query_metadata, unmatched_ids

TEXT, TITLE, ARTIST = "text", "title", "artist"
AUDIO, START, END = "audio", "start", "end"
BESIDE_ID = (TITLE, ARTIST)                # shown beside an item's or query's id
PLAYED = (AUDIO, START, END)               # read by the players, never shown as text
SEARCHED = (TEXT, TITLE)                   # what the Query box searches, besides the id


def by_name(columns: Iterable) -> dict:
    """The columns under their names in lower case (of two that differ only in case, the later)."""
    return {str(c).lower(): c for c in columns}


def column_named(columns: Iterable, name: str):
    """The column of ``columns`` that is ``name`` (one of the names above) in any case; None."""
    return by_name(columns).get(name)


def shown_columns(table: pd.DataFrame | None) -> list[str]:
    """The columns of a metadata table that can be shown as text (not those played)."""
    if table is None:
        return []
    return [c for c in table.columns if str(c).lower() not in PLAYED]


def default_columns(table: pd.DataFrame | None) -> list[str]:
    """The columns shown beside an id unless more are asked for: title and artist, as present."""
    lower = by_name(shown_columns(table))
    return [lower[name] for name in BESIDE_ID if name in lower]


def query_columns(table: pd.DataFrame | None) -> list[str]:
    """The columns shown beside a query's id: its text, else its title and artist."""
    lower = by_name(shown_columns(table))
    return [lower[TEXT]] if TEXT in lower else default_columns(table)


def beside_ids(frame: pd.DataFrame, id_column: str, table: pd.DataFrame | None,
               columns: Iterable[str] | None = None) -> pd.DataFrame:
    """``frame`` with the metadata ``columns`` (by default :func:`default_columns`; a name above,
    such as ``title``, in any case) of each row's id inserted after ``id_column``; empty where the
    table does not describe the id. A column whose name the frame already has is named "<name>
    (metadata)"."""
    if table is None or not len(frame.columns):
        return frame
    if columns is None:
        wanted = default_columns(table)
    else:
        found = (c if c in table.columns else column_named(table.columns, str(c).lower())
                 for c in columns)
        wanted = [c for c in found if c is not None]
    if not wanted:
        return frame
    ids = frame[id_column].astype(str).to_numpy()
    rows = table.index.get_indexer(ids)
    out = frame.copy()
    at = list(out.columns).index(id_column) + 1
    for offset, column in enumerate(wanted):
        values = table[column].to_numpy(dtype=object, na_value=None)
        cells = np.where(rows >= 0, values[np.maximum(rows, 0)] if len(values) else None, None)
        name = column if column not in out.columns else f"{column} (metadata)"
        out.insert(at + offset, name, pd.Series(cells, index=out.index, dtype=object))
    return out


def item_labels(ids, table: pd.DataFrame | None) -> list[str]:
    """Each id with its title and artist ("d7 — Blue in Green — Miles Davis"), as one line of
    text; the id alone where the table does not describe it."""
    columns = default_columns(table)
    out = []
    for item in map(str, ids):
        parts = [item]
        if table is not None and item in table.index:
            parts += [str(table.at[item, c]) for c in columns if pd.notna(table.at[item, c])]
        out.append(" — ".join(" ".join(p.split()) for p in parts))
    return out


def item_ids_of(judged: JudgedRanking) -> set[str]:
    """Every item id the data names: those its lists rank (when kept) and those judged."""
    known = judged.truth.item_ids() if judged.truth is not None else set()
    lists = judged.lists
    items = getattr(lists, "items", None)   # a run's lists: one column of every row's item
    if items is not None:
        known.update(items.series.unique().to_list())
    elif getattr(lists, "item_ids", None) is not None:   # a matrix's or embeddings' items
        known.update(map(str, lists.item_ids))
    return known


def metadata_warnings(items: pd.DataFrame | None, queries: pd.DataFrame | None,
                      data: Mapping[str, JudgedRanking]) -> list[str]:
    """A warning with counts for each table whose ids match nothing in the data."""
    warnings = []
    if items is not None:
        known: set[str] = set()
        for judged in data.values():
            known |= item_ids_of(judged)
        if known:
            warnings.append(unmatched_ids(items, known, "items"))
    if queries is not None:
        query_ids = {str(q) for judged in data.values() for q in judged.query_ids}
        warnings.append(unmatched_ids(queries, query_ids, "queries"))
    return [w for w in warnings if w]


def describing_queries(items: pd.DataFrame | None, queries: pd.DataFrame | None,
                       data: Mapping[str, JudgedRanking]) -> pd.DataFrame | None:
    """The table describing the data's queries (:func:`~metrics.loaders.metadata.query_metadata`:
    the query table, else the item table where queries are items)."""
    query_ids = next(iter(data.values())).query_ids if data else []
    return query_metadata(items, queries, query_ids)


def query_words(queries: pd.DataFrame | None, query_ids: Iterable[str]) -> dict[str, str]:
    """What each query is found by in the Query box besides its id: its text, else its title
    (and artist), as one line; nothing for a query the table does not describe. One pass over
    the queries (the box's labels are made on every run of the page)."""
    if queries is None:
        return {}
    lower = by_name(queries.columns)
    first = next((lower[c] for c in SEARCHED if c in lower), None)
    if first is None:
        return {}
    ids = pd.Index([str(q) for q in query_ids], dtype=object)
    text = queries[first].reindex(ids)
    if first == lower.get(TITLE) and ARTIST in lower:
        artist = queries[lower[ARTIST]].reindex(ids)
        both = text.notna() & artist.notna()
        text = text.where(~both, text.astype(str) + " — " + artist.astype(str))
        text = text.where(text.notna(), artist)
    return {q: " ".join(str(t).split()) for q, t in zip(ids, text) if t is not None and t == t}
