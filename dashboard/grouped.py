"""Measures by group of queries for the Groups page (metrics/evaluation/group_stats.py), cached per
data source, measures and grouping, and the hand-over of a group's queries to the Query
explorer."""

from __future__ import annotations

import numpy as np
import pandas as pd
import streamlit as st

from dashboard.computed import CACHE_TTL, evaluate_source
from dashboard.datasets import load_source
from dashboard.metadata import described_tables
from dashboard.settings import DataSource, source
from metrics.data.ties import TiePolicy
from metrics.evaluation.group_stats import (GroupAggregates, group_aggregates,
                                            group_differences, group_intervals)
from metrics.evaluation.groups import derived_properties, grouping, grouping_names

GROUP_OF_QUERIES = "query_group"   # session key: the group the Query explorer shows


def _grouping(src: DataSource, ties: TiePolicy, name: str, threshold: int, store):
    data = load_source(src, ties, store)
    _, queries = described_tables(src, ties, store)
    first = next(iter(data.values()))
    return grouping(name, first, queries, threshold)


@st.cache_data(show_spinner="Grouping the queries…", max_entries=32, ttl=CACHE_TTL)
def group_aggregates_source(src: DataSource, ties: TiePolicy, measures: str, name: str,
                            threshold: int, _store: dict | None = None):
    """(every group's mean of every measure for every system, :class:`GroupAggregates`; each
    query's group, None: in no group). Vectorised over the groups: no interval here."""
    groups = _grouping(src, ties, name, threshold, _store)
    results = evaluate_source(src, ties, measures, _store)
    query_ids = next(iter(results.values())).query_ids
    return group_aggregates(results, groups), dict(zip(map(str, query_ids), groups.labels))


@st.cache_data(show_spinner="Drawing the groups' intervals…", max_entries=64, ttl=CACHE_TTL)
def group_intervals_source(src: DataSource, ties: TiePolicy, measures: str, name: str,
                           threshold: int, measure: str, chosen: tuple[int, ...], level: float,
                           seed: int, _store: dict | None = None):
    """The bootstrap interval of the ``chosen`` groups' means of ``measure`` (indices into the
    groups): (low, high), each groups × systems, NaN elsewhere. The groups shown only: the
    resamples are the cost of this page."""
    groups = _grouping(src, ties, name, threshold, _store)
    results = evaluate_source(src, ties, measures, _store)
    return group_intervals(results, groups, [measure], np.asarray(chosen, dtype=np.int64), level,
                           seed)[measure]


def group_frame(aggregates: GroupAggregates, rows: np.ndarray, measure: str, low: np.ndarray,
                high: np.ndarray) -> pd.DataFrame:
    """One row per group (of ``rows``, indices), system and measure, in that order: queries,
    defined, mean, and for ``measure`` its CI low and CI high (``low``, ``high``: every group ×
    system, NaN where not drawn)."""
    systems, measures = list(aggregates.systems), aggregates.measures
    shape = (len(rows), len(systems), len(measures))

    def spread(per_measure):   # groups × systems per measure → one value per row of the frame
        return np.stack([per_measure(m)[rows] for m in measures], axis=-1).ravel()

    nothing = np.full((len(aggregates.grouping.groups), len(systems)), np.nan)
    return pd.DataFrame({
        "group": np.broadcast_to(np.asarray(aggregates.grouping.groups, dtype=object)[rows]
                                 [:, None, None], shape).ravel(),
        "system": np.broadcast_to(np.asarray(systems, dtype=object)[None, :, None],
                                  shape).ravel(),
        "queries": np.broadcast_to(aggregates.num_queries[rows][:, None, None], shape).ravel(),
        "measure": np.broadcast_to(np.asarray(measures, dtype=object), shape).ravel(),
        "defined": spread(lambda m: aggregates.defined[m]),
        "mean": spread(lambda m: aggregates.values[m]),
        "CI low": spread(lambda m: low if m == measure else nothing),
        "CI high": spread(lambda m: high if m == measure else nothing)})


@st.cache_data(show_spinner="Testing the systems in every group…", max_entries=32,
               ttl=CACHE_TTL)
def group_tests_source(src: DataSource, ties: TiePolicy, measures: str, name: str, threshold: int,
                       system_a: str, system_b: str, measure: str, seed: int,
                       _store: dict | None = None):
    """B − A in every group on ``measure``: the paired t-test over the group's queries and its
    p corrected over the groups (Holm)."""
    groups = _grouping(src, ties, name, threshold, _store)
    results = evaluate_source(src, ties, measures, _store)
    per_query = {s: {measure: results[s].results[measure].values} for s in (system_a, system_b)}
    rows = group_differences(per_query, [measure], groups, ("t",), seed)
    return pd.DataFrame([{"group": d.group, "measure": d.measure, "n": d.n,
                          "B − A": d.mean_diff, "p": d.p, "p (Holm over groups)": d.p_corrected,
                          "why undefined": d.undefined or ""}   # why p is empty
                         for d in rows],
                        columns=["group", "measure", "n", "B − A", "p", "p (Holm over groups)",
                                 "why undefined"]
                        ).astype({c: float for c in ("B − A", "p", "p (Holm over groups)")})


def grouping_options(queries: pd.DataFrame | None, data: dict) -> list[str]:
    """What the queries can be grouped by: the query table's columns (not its free text nor the
    players' columns), then the derived properties this data has; a column that bears a derived
    property's name and that property each named with its kind (column:R_q, derived:R_q)."""
    from metrics.explain.described import SEARCHED, shown_columns

    # free text (one group per query) is searched, not grouped
    columns = [str(c) for c in shown_columns(queries) if str(c).lower() not in SEARCHED]
    return grouping_names(columns, derived_properties(next(iter(data.values())), queries))


def open_group(name: str, group: str, group_of: dict) -> None:
    """Make the Query explorer show this group's queries (those ``group_of``, each query's group,
    puts in it; worst first there)."""
    st.session_state[GROUP_OF_QUERIES] = {"source": source(), "name": name, "group": group,
                                          "queries": [q for q, g in group_of.items()
                                                      if g == group]}
    st.session_state.pop("query", None)   # the explorer starts at the group's worst query


def chosen_group() -> dict | None:
    """The group the Query explorer is asked to show, if it was chosen on the current data."""
    chosen = st.session_state.get(GROUP_OF_QUERIES)
    return chosen if chosen and chosen.get("source") == source() else None


def forget_group() -> None:
    st.session_state.pop(GROUP_OF_QUERIES, None)
