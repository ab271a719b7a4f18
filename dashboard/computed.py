"""What the pages compute from the data, cached per data source and settings.

Each ``*_source`` (and ``query_*``) function is a cache keyed by the data source, the tie policy
and what it computes; each holds only what it computed (means, per-query values, one query's
curves or failure report), never a judged ranking: a dataset the cache of datasets
(dashboard/datasets.py) evicts is freed, and asked for again it is loaded again. The functions
without a cache of their own call one on the current settings, and those that may meet bad input
return None after an ``st.error``.
"""

from __future__ import annotations

import pandas as pd
import streamlit as st

from dashboard.errors import show_error
from dashboard.datasets import load_source, rankings
from dashboard.frame import end_page
from dashboard.settings import DataSource, measure_list, source, tie_policy, upload_store
from metrics import InputError, evaluate, parse_measures
from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.evaluation.corrections import Correction
from metrics.evaluation.evaluate import EvaluationResult, tie_moves
from metrics.measures.names import Measure

CACHE_TTL = 3600   # seconds, for the caches of results below (small beside the datasets)


def _on_current(cached, *args):
    """``cached(source, ties, *args, store)`` on the current data and tie policy."""
    return cached(source(), tie_policy(), *args, upload_store())


def _shown(cached, *args):
    """:func:`_on_current`, or None after an ``st.error`` of bad input."""
    try:
        return _on_current(cached, *args)
    except InputError as exc:  # MeasureError included
        show_error(exc)
        return None


def _names(measures: list[Measure]) -> str:
    return ",".join(str(m) for m in measures)


@st.cache_resource(show_spinner="Evaluating…", max_entries=32, ttl=CACHE_TTL)
def evaluate_source(src: DataSource, ties: TiePolicy, measures: str,
                    _store: dict | None = None) -> dict[str, EvaluationResult]:
    return {system: evaluate(judged, measures)
            for system, judged in load_source(src, ties, _store).items()}


def evaluations(measures: list[Measure]) -> dict[str, EvaluationResult] | None:
    return _shown(evaluate_source, _names(measures))


def evaluated():
    """The current data, measures and evaluations of a page that shows measures; the page stops
    when there is nothing to show (no data, no measure, or an error the page was told of)."""
    data, measures = rankings(), measure_list()
    results = evaluations(measures) if data is not None and measures else None
    if not results:
        end_page()
    return data, measures, results


def several_systems(advice: str):
    """:func:`evaluated` for a page that compares systems; the page also stops (with ``advice``
    on where to find several systems) when the dataset has one."""
    data, measures, results = evaluated()
    if len(data) < 2:
        st.info(f"This dataset has one system. {advice}")
        end_page()
    return data, measures, results


def aggregate_table(results: dict[str, EvaluationResult]) -> tuple[pd.DataFrame, list[str]]:
    """Each system's means, with the number of queries actually averaged (queries where a
    measure is undefined are left out of its mean), and a note per system and measure that
    averages fewer queries than the system's other measures."""
    from dashboard.captions import queries_averaged

    rows = {system: r.aggregate("mean") for system, r in results.items()}
    table = pd.DataFrame(rows).T.reset_index(names="system")
    counts, notes = [], []
    for system, r in results.items():
        count, fewer = queries_averaged(len(r.query_ids), r.undefined())
        counts.append(count)
        notes.extend(f"{system} — {note}" for note in fewer)
    # second, next to the system: a wide table scrolls, and this column must stay in view
    table.insert(1, "queries averaged", counts if all(isinstance(c, int) for c in counts) else
                 [str(c) for c in counts])
    return table, notes


@st.cache_resource(show_spinner="Reordering tied items…", max_entries=64)
def tie_moves_source(src: DataSource, ties: TiePolicy, measures: str,
                     _store: dict | None = None) -> dict[str, pd.DataFrame]:
    return {system: tie_moves(judged, measures)
            for system, judged in load_source(src, ties, _store).items()}


def tie_moves_now(measures: list[Measure]) -> dict[str, pd.DataFrame]:
    """Per system, how far the order of tied items moves each measure of each query (see
    :func:`metrics.evaluation.evaluate.tie_moves`); called after :func:`evaluations` succeeded."""
    return _on_current(tie_moves_source, _names(measures))


@st.cache_data(show_spinner="Bootstrapping the confidence intervals…", max_entries=32)
def interval_source(src: DataSource, ties: TiePolicy, measures: str, level: float, seed: int,
                    _store: dict | None = None) -> pd.DataFrame:
    """Each system's mean of each measure with its percentile bootstrap interval over queries
    (metrics.evaluation.stats.aggregate_intervals), one row per (system, measure)."""
    from metrics.evaluation.stats import aggregate_intervals

    rows = []
    for system, r in evaluate_source(src, ties, measures, _store).items():
        means = r.aggregate("mean")
        for measure, (low, high) in aggregate_intervals(r, level, seed).items():
            rows.append({"system": system, "measure": measure, "mean": means[measure],
                         "CI low": low, "CI high": high})
    return pd.DataFrame(rows, columns=["system", "measure", "mean", "CI low", "CI high"])


def intervals(measures: list[Measure], level: float, seed: int) -> pd.DataFrame | None:
    """:func:`interval_source` for the current data, or None after an ``st.error``."""
    return _shown(interval_source, _names(measures), level, seed)


@st.cache_data(show_spinner="Evaluating under every protocol and tie policy…", max_entries=16)
def conventions_source(src: DataSource, ties: TiePolicy, measures: str, _store: dict | None = None):
    """Per system, the protocol grid and our measures' grid under every tie policy of
    :class:`~metrics.data.ties.TiePolicy` (the orderings and the tie-aware policies; empty cells
    where ``expected`` has no exact mean), and the policies this data cannot be ranked under,
    with the reason."""
    from metrics.explain.conventions import measure_grid, protocol_grid

    by_policy: dict[str, dict[TiePolicy, JudgedRanking]] = {}
    unavailable = {}
    for policy in TiePolicy:
        try:
            for system, judged in load_source(src, policy, _store).items():
                by_policy.setdefault(system, {})[policy] = judged
        except InputError as exc:
            unavailable[policy] = str(exc)
    parsed = parse_measures(measures)
    current = ties if ties not in unavailable else next(iter(next(iter(by_policy.values()))))
    return ({system: protocol_grid(judged, current) for system, judged in by_policy.items()},
            {system: measure_grid(judged, parsed) for system, judged in by_policy.items()},
            unavailable)


def conventions_tables(measures: list[Measure]):
    """:func:`conventions_source` for the current data, or None after an ``st.error``."""
    return _shown(conventions_source, _names(measures))


@st.cache_data(show_spinner="Running the significance tests…", max_entries=32, ttl=CACHE_TTL)
def compare_source(src: DataSource, ties: TiePolicy, measures: str, measure: str, seed: int,
                   _store: dict | None = None):
    """Paired tests of every pair of systems on one measure (cached per data and seed)."""
    from metrics.evaluation.stats import TESTS, compare_systems

    results = evaluate_source(src, ties, measures, _store)
    per_query = {system: {measure: r.results[measure].values} for system, r in results.items()}
    return compare_systems(per_query, [measure], TESTS, seed)


def comparisons(measures: list[Measure], measure: str, seed: int):
    """:func:`compare_source` for the current data; called after :func:`evaluations`
    succeeded."""
    return _on_current(compare_source, _names(measures), measure, seed)


@st.cache_data(show_spinner="Testing every system against the baseline and the best…",
               max_entries=32, ttl=CACHE_TTL)
def leaderboard_source(src: DataSource, ties: TiePolicy, measures: str, baseline: str,
                       correction: Correction, seed: int, _store: dict | None = None
                       ) -> pd.DataFrame:
    """The leaderboard (metrics.evaluation.leaderboard): one row per (system, measure) with the
    mean and its bootstrap interval over the queries where every system has a value, whether it
    is the column's best, and its difference and corrected p against the baseline and the best."""
    from metrics.evaluation.leaderboard import leaderboard

    results = evaluate_source(src, ties, measures, _store)
    per_query = {s: {m: r.results[m].values for m in r.measures} for s, r in results.items()}
    first = next(iter(results.values()))
    higher = {m: first.results[m].higher_is_better for m in first.measures}
    rows = leaderboard(per_query, list(first.measures), baseline, correction, higher, seed=seed)
    return pd.DataFrame([{
        "system": r.system, "measure": r.measure, "mean": r.mean, "CI low": r.ci[0],
        "CI high": r.ci[1], "best": r.best, "− baseline": r.diff_baseline,
        "p vs baseline": r.p_baseline, "− best": r.diff_best, "p vs best": r.p_best}
        for r in rows]).astype({c: float for c in ("mean", "CI low", "CI high", "− baseline",
                                                     "p vs baseline", "− best", "p vs best")})


def leaderboard_now(measures: list[Measure], baseline: str, correction: Correction, seed: int):
    """:func:`leaderboard_source` for the current data; called after :func:`evaluations`
    succeeded."""
    return _on_current(leaderboard_source, _names(measures), baseline, correction, seed)


@st.cache_data(show_spinner="Testing every pair of systems…", max_entries=32, ttl=CACHE_TTL)
def pairwise_source(src: DataSource, ties: TiePolicy, measures: str, measure: str,
                    correction: Correction, seed: int, _store: dict | None = None):
    """One measure's :class:`~metrics.evaluation.leaderboard.PairwiseMatrix`."""
    from metrics.evaluation.leaderboard import pairwise_matrix

    results = evaluate_source(src, ties, measures, _store)
    return pairwise_matrix({s: r.results[measure].values for s, r in results.items()},
                           correction, seed)


def pairwise_now(measures: list[Measure], measure: str, correction: Correction, seed: int):
    """:func:`pairwise_source` for the current data; called after :func:`evaluations`
    succeeded."""
    return _on_current(pairwise_source, _names(measures), measure, correction, seed)


# One query's curves and failure report, cached per data, query and threshold: for a list of a
# million items each costs a few tenths of a second, and a K change or a page turn needs neither
# again. Bounded by count: each entry holds a few arrays of the list's length (40 MB at 10^6).
@st.cache_resource(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def query_curves(src: DataSource, ties: TiePolicy, system: str, query: int, threshold: int,
                 _store: dict | None = None):
    from metrics.evaluation.curves import rank_curves

    return rank_curves(load_source(src, ties, _store)[system], query, threshold)


def curves_of(system: str, query: int, threshold: int):
    """:func:`query_curves` of the current data."""
    return _on_current(query_curves, system, query, threshold)


@st.cache_resource(show_spinner="Looking for the relevant items the list missed…",
                   max_entries=16, ttl=CACHE_TTL)
def query_failure(src: DataSource, ties: TiePolicy, system: str, other: str | None, query: int,
                  threshold: int, _store: dict | None = None):
    from metrics.explain.summaries import failure_report

    data = load_source(src, ties, _store)
    return failure_report(data[system], query, threshold,
                          data[other] if other else None, other or "other")


def failure_of(system: str, other: str | None, query: int, threshold: int):
    """:func:`query_failure` of the current data."""
    return _on_current(query_failure, system, other, query, threshold)
