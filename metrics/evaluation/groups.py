"""Groups of queries: the queries grouped by a column of the query table (genre, instrument, …)
or by a property the engine derives (:data:`DERIVED`), and the names to group by. Queries
without a value of the grouping column are in no group and are counted. The measures per group
(aggregates, intervals, tests) are in :mod:`metrics.evaluation.group_stats`.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass
from functools import cached_property
from typing import Sequence

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.data.truth import GroundTruth
from metrics.errors import InputError

# The properties the engine derives for every query, by the name --group-by takes
DERIVED = {
    "R_q": "relevant items in the ground truth (at the relevance threshold)",
    "clique_size": "the size of the query's clique: the query and its versions (clique labels)",
    "tie_share": "the share of the query's retrieved judged items whose score ties another "
                 "item's",
    "text_words": "the number of words of the query's text (the query table's text column)",
    "parent_class": "the taxonomy's parent class of the query class (instrument family)",
}
# A query-table column may bear a derived property's name: then each is named by its kind
# (column:R_q, derived:R_q), and the bare name, which could mean either, is refused.
COLUMN_PREFIX, DERIVED_PREFIX = "column:", "derived:"
LISTED_COLUMNS = 10   # an unknown name's message lists the columns of a table this narrow, else
CLOSEST_COLUMNS = 3   # it counts them and names this many closest to the name
EXACT_VALUES = 10   # a whole-number property with at most this many values: a group per value
NUMBER_BINS = 4     # else this many groups of about equal size (quantiles)


@dataclass(frozen=True, eq=False)
class Grouping:
    """The group of every query of a judged ranking (None: in no group), and the groups in
    order."""

    name: str
    labels: np.ndarray            # object array, one label (or None) per query
    groups: tuple[str, ...]       # in display order

    @property
    def ungrouped(self) -> int:
        return int((self.codes < 0).sum())

    @cached_property
    def codes(self) -> np.ndarray:
        """Each query's group as its place in ``groups`` (-1: in no group): one pass, so that
        finding every group's queries costs the queries, not groups × queries comparisons."""
        place = {group: i for i, group in enumerate(self.groups)}
        return np.fromiter((place.get(label, -1) if label is not None else -1
                            for label in self.labels), dtype=np.int64, count=len(self.labels))

    def members(self, group: str) -> np.ndarray:
        return self.codes == self.groups.index(group)


def derived_properties(judged: JudgedRanking, queries=None,
                       truth: GroundTruth | None = None) -> list[str]:
    """The derived properties that this data has: clique sizes need clique labels, parent
    classes a taxonomy, text lengths a query table with a text column."""
    truth = judged.truth if truth is None else truth
    have = {"R_q": True, "tie_share": True,
            "clique_size": truth is not None and truth.item_labels is not None,
            "text_words": queries is not None and "text" in queries.columns,
            "parent_class": truth is not None and truth.query_parents is not None}
    return [name for name in DERIVED if have[name]]


def grouping_names(columns: Sequence[str], derived: Sequence[str]) -> list[str]:
    """The names to group by: the query table's ``columns``, then the ``derived`` properties,
    each named with its kind (:data:`COLUMN_PREFIX`, :data:`DERIVED_PREFIX`) where a column
    bears a derived property's name."""
    shared = set(columns) & set(DERIVED)
    return ([COLUMN_PREFIX + c if c in shared else c for c in columns]
            + [DERIVED_PREFIX + d if d in shared else d for d in derived])


def grouping_title(name: str) -> str:
    """A grouping name as a list of choices shows it: a derived property marked (derived), a
    column that bears a derived property's name marked (query table)."""
    if name.startswith(COLUMN_PREFIX):
        return f"{name.removeprefix(COLUMN_PREFIX)} (query table)"
    derived = name.removeprefix(DERIVED_PREFIX)
    return f"{derived} (derived)" if derived in DERIVED else name


def _grouped_by(name: str, queries) -> tuple[bool, str]:
    """(whether ``name`` means a column of the query table, the column's or the derived
    property's own name); an InputError when it means neither, or could mean both."""
    columns = queries.columns if queries is not None else ()
    column, derived = name.removeprefix(COLUMN_PREFIX), name.removeprefix(DERIVED_PREFIX)
    if name.startswith(COLUMN_PREFIX) and column in columns:
        return True, column
    if name.startswith(DERIVED_PREFIX) and derived in DERIVED:
        return False, derived
    if name in columns and name in DERIVED:
        raise InputError(f"cannot group by {name!r}: the query table has a column of that "
                         f"name and it is a derived property too; say which: "
                         f"{COLUMN_PREFIX}{name}, the column as written, or "
                         f"{DERIVED_PREFIX}{name}, the engine's: {DERIVED[name]}")
    if name in columns or name in DERIVED:
        return name in columns, name
    raise InputError(f"cannot group by {name!r}: it is neither a column of the query table "
                     f"({_columns_near(name, [str(c) for c in columns])}) nor a derived "
                     f"property ({', '.join(DERIVED)})")


def _columns_near(name: str, columns: list[str]) -> str:
    """The query table's columns for a message about an unknown name: all of a narrow table,
    else how many there are and the few closest to the name."""
    if not columns:
        return "columns: none"
    if len(columns) <= LISTED_COLUMNS:
        return f"columns: {', '.join(columns)}"
    close = difflib.get_close_matches(name, columns, n=CLOSEST_COLUMNS, cutoff=0.6)
    return (f"{len(columns):,} columns; "
            + (f"the closest: {', '.join(close)}" if close else "none close to it"))


def grouping(name: str, judged: JudgedRanking, queries=None, threshold: int = 1,
             truth: GroundTruth | None = None) -> Grouping:
    """The queries of ``judged`` grouped by ``name``: a column of ``queries`` (the query table, a
    DataFrame indexed by query id) or one of :data:`DERIVED`. ``truth`` (default: the one the
    judged ranking keeps) gives the cliques and the taxonomy."""
    query_ids = [str(q) for q in judged.query_ids]
    is_column, property_name = _grouped_by(name, queries)
    if is_column:
        labels = np.asarray([None if c is None else str(c)   # a NaN cell is "nan"
                             for c in _cells(queries[property_name], query_ids)], dtype=object)
        return Grouping(name, labels, tuple(sorted({g for g in labels if g is not None},
                                                   key=_natural)))
    truth = judged.truth if truth is None else truth
    if property_name == "R_q":
        return _numbers(name, judged.num_relevant(threshold).astype(float))
    if property_name == "tie_share":
        return _tie_shares(name, judged)
    if property_name == "text_words":
        if queries is None or "text" not in queries.columns:
            raise InputError("grouping by text_words needs a query table with a text column")
        cells = _cells(queries["text"], query_ids)
        return _numbers(name, np.asarray([np.nan if c is None else len(str(c).split())
                                          for c in cells], dtype=float))
    if property_name == "clique_size":
        if truth is None or truth.item_labels is None:
            raise InputError("grouping by clique_size needs clique labels (item_id,label) as "
                             "the ground truth")
        _, clique, counts = np.unique(np.asarray(truth.item_labels, dtype=object).astype(str),
                                      return_inverse=True, return_counts=True)
        rows = _rows(truth.self_items, query_ids)
        sizes = np.full(len(rows), np.nan)   # a query that is no item of the labels: no group
        sizes[rows >= 0] = counts[clique[rows[rows >= 0]]]
        return _numbers(name, sizes)
    if truth is None or truth.query_parents is None:
        raise InputError("grouping by parent_class needs a class taxonomy (class,parent) as the "
                         "ground truth")
    rows = _rows(truth.query_ids, query_ids)
    parents = np.asarray(truth.query_parents, dtype=object)
    labels = np.full(len(rows), None, dtype=object)   # no parent ("") or no class: no group
    labels[rows >= 0] = [p or None for p in parents[rows[rows >= 0]]]
    return Grouping(name, labels, tuple(sorted({g for g in labels if g is not None})))


def _rows(ids, query_ids: Sequence[str]) -> np.ndarray:
    """Where each query is among ``ids`` (unique), -1 where it is not: one hashed look-up of the
    whole list."""
    import pandas as pd

    return pd.Index(np.asarray(ids, dtype=object).astype(str), dtype=object).get_indexer(
        query_ids)


def _cells(column, query_ids: Sequence[str]) -> np.ndarray:
    """Each query's cell of a query-table column (indexed by query id), None where the table has
    no row for the query."""
    rows = column.index.get_indexer(query_ids)
    cells = np.full(len(rows), None, dtype=object)
    # a read table's text column (str dtype) is missing where NaN; an object column's NaN is a value
    missing = {} if column.dtype == object else {"na_value": None}
    cells[rows >= 0] = column.to_numpy(dtype=object, **missing)[rows[rows >= 0]]
    return cells


def _natural(label: str):
    """Numbers in numeric order before text (years, sizes), text alphabetically."""
    try:
        return (0, float(label), "")
    except ValueError:
        return (1, 0.0, label)


def _numbers(name: str, values: np.ndarray) -> Grouping:
    """A group per value of a whole-number property with few values; else :data:`NUMBER_BINS`
    groups of about as many queries, each labelled by the lowest and highest value it holds."""
    known = ~np.isnan(values)
    distinct = np.unique(values[known])
    labels = np.full(len(values), None, dtype=object)
    if len(distinct) <= EXACT_VALUES:
        for value in distinct:
            labels[values == value] = f"{value:g}"
        return Grouping(name, labels, tuple(f"{v:g}" for v in distinct))
    import pandas as pd

    bins = pd.qcut(values[known], NUMBER_BINS, labels=False, duplicates="drop")
    groups = []
    positions = np.flatnonzero(known)
    for b in np.unique(bins):
        inside = values[known][bins == b]
        label = f"{inside.min():g}–{inside.max():g}"
        labels[positions[bins == b]] = label
        groups.append(label)
    return Grouping(name, labels, tuple(groups))


def _tie_shares(name: str, judged: JudgedRanking) -> Grouping:
    hits = np.diff(judged.offsets)
    tied = (np.zeros(len(judged.hit_ranks), dtype=bool) if judged.hit_tie_size is None
            else judged.hit_tie_size > 1)
    tied_per_query = np.add.reduceat(tied.astype(np.int64), judged.offsets[:-1]) \
        if len(tied) else np.zeros(len(hits), dtype=np.int64)
    tied_per_query = np.where(hits > 0, tied_per_query, 0)
    names = ("no ties", "up to half tied", "over half tied")
    labels = np.full(len(hits), None, dtype=object)   # no judged item retrieved: no share
    share = np.divide(tied_per_query, hits, out=np.zeros(len(hits)), where=hits > 0)
    labels[(hits > 0) & (share == 0)] = names[0]
    labels[(hits > 0) & (share > 0) & (share <= 0.5)] = names[1]
    labels[(hits > 0) & (share > 0.5)] = names[2]
    return Grouping(name, labels, tuple(n for n in names if n in set(labels)))
