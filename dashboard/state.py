"""The sidebar's shared state and the cached work every page needs.

A *source* is a hashable tuple naming the data: ``("sample", key)`` or ``("upload", kind,
files, collection_size, distance, similarity)`` where each file is (role, name, sha256 of its
content), so cached results are keyed by file content and never shared between different uploads.
The bytes themselves stay in the session (``upload_bytes``, by digest) and reach the cached loader
as an unhashed argument: hashing a 35 MB upload on every click would cost a third of a second.
"""

from __future__ import annotations

import hashlib
import os
import sys

import pandas as pd
import streamlit as st

from dashboard.measure_picker import measure_picker
from dashboard.memory_cache import MemoryBoundedCache
from dashboard.safe import md
from metrics import InputError, MeasureError, evaluate, parse_measures
from metrics.errors import CollectionSizeNeeded
from metrics.evaluation.evaluate import EvaluationResult, tie_moves
from metrics.data.footprint import deep_nbytes
from metrics.data.judged import JudgedRanking
from metrics.ranking.pipelines import judge_upload
from metrics.data.ties import TiePolicy
from metrics.measures.registry import DEFAULT_MEASURES
from metrics.measures.names import Measure, with_relevance_threshold
from metrics.explain.samples import SAMPLES, load_sample

UPLOAD = "upload"
COLLECTION_SIZE_HOW = ("On the Data page, upload the files with the collection size |D|, or "
                       "say that the ground truth judges every item of each query.")
DEFAULTS = {"sample": "fmp", "ties": "stable", "measures": DEFAULT_MEASURES, "cutoff": 4,
            "threshold": 1}


def init_state() -> None:
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
    if st.session_state["sample"] == UPLOAD and "upload" not in st.session_state:
        st.session_state["sample"] = DEFAULTS["sample"]


def source() -> tuple:
    key = st.session_state["sample"]
    return st.session_state["upload"] if key == UPLOAD else ("sample", key)


def source_title(key: str) -> str:
    return "Uploaded files" if key == UPLOAD else SAMPLES[key].title


# Loaded datasets are kept in a cache bounded by memory (dashboard/memory_cache.py), not
# st.cache_resource, which bounds by count only: a dataset takes from a few kB to a GB. Not
# st.cache_data either: it hands every rerun a pickled copy, which for a 1,000 × 1,000 run costs
# about a second per click; these objects are never modified, and the key (the source tuple,
# holding the files' content hashes) keeps different uploads apart.
CACHE_TTL = 3600   # seconds, for the caches of results below (small beside the datasets)
CACHE_BUDGET_VARIABLE = "METRICS_DASHBOARD_CACHE_MB"
DEFAULT_CACHE_MB = 1024


def dataset_cache_budget() -> int:
    """Bytes the loaded datasets may hold together: ``METRICS_DASHBOARD_CACHE_MB`` megabytes
    (MiB) when the environment sets it, else 1 GiB."""
    given = os.environ.get(CACHE_BUDGET_VARIABLE, "").strip()
    try:
        megabytes = float(given) if given else DEFAULT_CACHE_MB
    except ValueError:
        megabytes = DEFAULT_CACHE_MB   # the server log says so once, at the cache's creation
        print(f"{CACHE_BUDGET_VARIABLE}={given!r} is not a number of megabytes; "
              f"using {DEFAULT_CACHE_MB}", file=sys.stderr)
    return int(max(megabytes, 0) * 2**20)


def dataset_bytes(data: dict[str, JudgedRanking]) -> int:
    """A dataset's memory: its systems together (they share the truth, counted once)."""
    return deep_nbytes(*data.values())


@st.cache_resource(show_spinner=False)   # one per server process, kept across module reloads
def dataset_cache() -> MemoryBoundedCache:
    return MemoryBoundedCache(dataset_cache_budget(), dataset_bytes)


def load_source(src: tuple, ties: str, store: dict | None = None) -> dict[str, JudgedRanking]:
    """The judged rankings of a source under a tie policy, one per system, from the cache of
    datasets (computed once per content, whichever session asks). ``store`` holds an upload's
    bytes by digest; it is not part of the key."""
    def compute() -> dict[str, JudgedRanking]:
        with st.spinner("Loading and ranking…"):
            return _load(src, ties, store)

    return dataset_cache().get((src, ties), compute)


def _load(src: tuple, ties: str, store: dict | None) -> dict[str, JudgedRanking]:
    if src[0] == "sample":
        return load_sample(src[1], ties)
    _, kind, files, collection_size, distance, similarity = src
    grouped: dict[str, list[tuple[str, bytes]]] = {}
    for role, name, content in files:  # content: the bytes, or their digest in store
        data = content if isinstance(content, bytes) else (store or {})[content]
        grouped.setdefault(role, []).append((name, data))
    return judge_upload(kind, grouped, ties, collection_size, distance, similarity)


# The caches below are keyed by the source too but hold only what they computed (means,
# per-query values, one query's curves or failure report), never a judged ranking: a dataset the
# cache above evicts is freed, and asked for again it is loaded again.
@st.cache_resource(show_spinner="Evaluating…", max_entries=32, ttl=CACHE_TTL)
def evaluate_source(src: tuple, ties: str, measures: str,
                    _store: dict | None = None) -> dict[str, EvaluationResult]:
    return {system: evaluate(judged, measures)
            for system, judged in load_source(src, ties, _store).items()}


@st.cache_resource(show_spinner="Reordering tied items…", max_entries=64)
def tie_moves_source(src: tuple, ties: str, measures: str,
                     _store: dict | None = None) -> dict[str, pd.DataFrame]:
    return {system: tie_moves(judged, measures)
            for system, judged in load_source(src, ties, _store).items()}


def tie_moves_now(measures: list[Measure]) -> dict[str, pd.DataFrame]:
    """Per system, how far the order of tied items moves each measure of each query (see
    :func:`metrics.evaluation.evaluate.tie_moves`); called after :func:`evaluations` succeeded."""
    return tie_moves_source(source(), st.session_state["ties"],
                            ",".join(str(m) for m in measures), upload_store())


def upload_store() -> dict | None:
    return st.session_state.get("upload_bytes")


def show_error(exc: InputError, lead: str = "") -> None:
    """``st.error`` of bad input; a measure that lacks |D| also says where the app takes it."""
    how = f". {COLLECTION_SIZE_HOW}" if isinstance(exc, CollectionSizeNeeded) else ""
    st.error(f"{lead}{md(exc)}{how}")


def rankings() -> dict[str, JudgedRanking] | None:
    """The current data, or None after an ``st.error`` saying what is wrong."""
    try:
        return load_source(source(), st.session_state["ties"], upload_store())
    except InputError as exc:
        show_error(exc, "Cannot load the data: ")
        return None


def measure_list() -> list[Measure] | None:
    """The sidebar's measures with the relevance threshold applied, or None after an error."""
    try:
        parsed = parse_measures(st.session_state.get("measures", DEFAULT_MEASURES))
    except MeasureError as exc:
        show_error(exc, "Measures: ")
        return None
    return with_relevance_threshold(parsed, int(st.session_state["threshold"]))


def evaluations(measures: list[Measure]) -> dict[str, EvaluationResult] | None:
    try:
        return evaluate_source(source(), st.session_state["ties"],
                               ",".join(str(m) for m in measures), upload_store())
    except InputError as exc:  # MeasureError included
        show_error(exc)
        return None


def intervals(measures: list[Measure], level: float, seed: int) -> pd.DataFrame | None:
    """:func:`interval_source` for the current data, or None after an ``st.error``."""
    try:
        return interval_source(source(), st.session_state["ties"],
                               ",".join(str(m) for m in measures), level, seed, upload_store())
    except InputError as exc:
        show_error(exc)
        return None


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


@st.cache_data(show_spinner="Bootstrapping the confidence intervals…", max_entries=32)
def interval_source(src: tuple, ties: str, measures: str, level: float, seed: int,
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


@st.cache_data(show_spinner=False, max_entries=16)
def source_inputs(src: tuple) -> list[dict]:
    """The provenance record's input files of a source: a sample's files, hashed (streamed), or
    an upload's names and SHA-256 (which its source key already holds)."""
    from metrics.evaluation import provenance
    from metrics.explain.samples import SAMPLE_DIR

    if src[0] == "sample":
        folder = SAMPLE_DIR / src[1]
        files = sorted(p for p in folder.iterdir() if p.is_file()) if folder.is_dir() else []
        return provenance.input_files(("sample", p) for p in files)
    # an upload's file is (role, name, sha256 of its content), or the content itself
    return [{"role": role, "name": name, **({"bytes": len(content),
                                             "sha256": hashlib.sha256(content).hexdigest()}
                                            if isinstance(content, bytes) else
                                            {"sha256": content})}
            for role, name, content in src[2]]


def provenance_record(measures: list[Measure] | None = None, protocol: str | None = None,
                      seed: int | None = None, ci: dict | None = None,
                      warnings=()) -> dict:
    """The provenance record of what the current page shows, for its CSV downloads."""
    from metrics.evaluation import provenance

    src = source()
    options = {} if src[0] == "sample" else {
        "collection_size": src[3], "distance": src[4], "similarity": src[5]}
    return provenance.record(command="dashboard", inputs=source_inputs(src), measures=measures,
                             protocol=protocol, ties=st.session_state["ties"], options=options,
                             seed=seed, ci=ci, warnings=warnings)


def answer_sets_provenance(answer_sets: pd.DataFrame, length: int, size: int) -> dict:
    """The provenance record of the Answer sets page's tables. That page has data of its own
    (the sidebar's dataset plays no part): its answer sets as edited there (hashed as CSV),
    Table 2's measures, |A| and |D|. The answer sets give ranks, not scores: nothing to tie."""
    from metrics.evaluation import provenance
    from metrics.explain.answer_sets import TABLE2_MEASURES
    from metrics.measures.names import parse_measure

    text = answer_sets.to_csv(index=False).encode()
    inputs = [{"role": "answer_sets", "name": "the answer sets as edited on the page",
               "rows": len(answer_sets), "bytes": len(text),
               "sha256": hashlib.sha256(text).hexdigest()}]
    measures = [parse_measure(m) for m in dict.fromkeys(TABLE2_MEASURES.values())]
    return provenance.record(command="dashboard", inputs=inputs, measures=measures,
                             ties="none (ranks given)",
                             options={"answer_set_length": length, "collection_size": size})


@st.cache_data(show_spinner="Evaluating under every protocol and tie policy…", max_entries=16)
def conventions_source(src: tuple, ties: str, measures: str, _store: dict | None = None):
    """Per system, the protocol grid and our measures' grid under every tie policy of
    :class:`~metrics.data.ties.TiePolicy` (the orderings and the tie-aware policies; empty cells
    where ``expected`` has no exact mean), and the policies this data cannot be ranked under,
    with the reason."""
    from metrics.explain.conventions import measure_grid, protocol_grid

    by_policy: dict[str, dict[str, JudgedRanking]] = {}
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
    try:
        return conventions_source(source(), st.session_state["ties"],
                                  ",".join(str(m) for m in measures), upload_store())
    except InputError as exc:
        show_error(exc)
        return None


VALUE_WIDGETS = {"number_input", "slider", "text_input"}   # widgets that take value=


def _copy(widget_key: str, name: str) -> None:
    st.session_state[name] = st.session_state[widget_key]


def bound(widget, label: str, name: str, key: str, **kwargs):
    """Draw ``widget`` for the setting ``name``. The widget has a key of its own, set from the
    setting before it is drawn and copied back when it changes: a widget's own state is dropped
    by Streamlit on any run that does not draw it (a page that hides the control), and two
    widgets (a slider and a number box) can show the same setting.

    The widget's state is set only when it differs from the setting: a widget whose state the
    script sets is sent to the browser again in full (the Query box with its thousand labels,
    21 kB, on every query switch, the browser rebuilding its list of options), an unchanged one
    is not."""
    if key not in st.session_state or st.session_state[key] != st.session_state[name]:
        st.session_state[key] = st.session_state[name]
    if getattr(widget, "__name__", "") in VALUE_WIDGETS:
        # the value as the default too: on a session's first run the browser showed a number
        # box's default (its minimum) although the box's state held the setting
        kwargs["value"] = st.session_state[name]
    return widget(label, key=key, on_change=_copy, args=(key, name), **kwargs)


def choose(label: str, name: str, options: list, default, key: str, **kwargs):
    """A selectbox for the setting ``name``; a value that is not among ``options`` (another
    dataset's system, a link's query) gives way to ``default``."""
    if st.session_state.get(name) not in options:
        st.session_state[name] = default
    return bound(st.selectbox, label, name, key, options=options, **kwargs)


def max_list_length(data: dict[str, JudgedRanking] | None) -> int:
    """The longest ranked list of the data (the largest useful cutoff K)."""
    return max((int(j.lengths.max(initial=1)) for j in (data or {}).values()), default=10)


CUTOFF_BOX_WIDTH = 200   # pixels: room for a K of seven digits beside the box's − and + buttons


def cutoff_control(data: dict[str, JudgedRanking]) -> int:
    """Cutoff K in the main column: a number box (any K, up to lists of 1,000 and more) beside a
    slider. Returns K."""
    depth = max(max_list_length(data), 1)
    st.session_state["cutoff"] = min(max(int(st.session_state["cutoff"]), 1), depth)
    if depth == 1:
        return 1
    # one row: a rerun sends it as one block, where columns are three the browser lays out again
    with st.container(horizontal=True, vertical_alignment="bottom"):
        bound(st.number_input, "Cutoff K", "cutoff", "cutoff_box", min_value=1, max_value=depth,
              step=1, width=CUTOFF_BOX_WIDTH,
              help="the top K items count as retrieved (confusion matrix, measures at K)")
        bound(st.slider, "Cutoff K (slider)", "cutoff", "cutoff_slider", min_value=1,
              max_value=depth, label_visibility="collapsed")
    return int(st.session_state["cutoff"])


# the sidebar's controls each page uses (the others are hidden there)
PAGE_CONTROLS = {
    "data": ("sample", "measures", "threshold", "ties"),
    "explorer": ("sample", "measures", "threshold", "ties"),
    "curves": ("sample", "threshold", "ties"),
    "answer_sets": (),
    "compare": ("sample", "measures", "threshold", "ties"),
    "conventions": ("sample", "measures", "threshold", "ties"),
}


def sidebar(page: str = "data") -> None:
    """Dataset, measures, relevance threshold and tie policy, each shown on the pages it changes.
    The settings live in session_state under their own names, so they survive page switches and
    pages that hide them."""
    init_state()
    controls = PAGE_CONTROLS.get(page, PAGE_CONTROLS["data"])
    with st.sidebar:
        if not controls:
            st.caption("This page has its own data (Serrà's answer sets, editable on the page): "
                       "the dataset and its settings are on the other pages.")
            return
        options = list(SAMPLES) + ([UPLOAD] if "upload" in st.session_state else [])
        bound(st.selectbox, "Dataset", "sample", "sample_box", options=options,
              format_func=source_title)
        if st.session_state["sample"] != UPLOAD:
            st.caption(SAMPLES[st.session_state["sample"]].description)
        if "measures" in controls:
            bound(st.text_input, "Measures", "measures", "measures_box",
                  help="Comma-separated, e.g. AP,P@10,nDCG@10,DCG(form=jarvelin,base=e)@10; "
                       "trec_eval's names (map, P_10, ndcg_cut_10) and papers' (mAP@10, MRR) "
                       "too")
            measure_picker()
        data = None
        try:
            data = load_source(source(), st.session_state["ties"], upload_store())
        except InputError:
            pass  # the page says what is wrong
        top_grade = max((j.max_grade for j in (data or {}).values()), default=1)
        st.session_state["threshold"] = min(max(int(st.session_state["threshold"]), 1),
                                            max(top_grade, 1))
        if top_grade > 1:
            bound(st.number_input, "Relevance threshold", "threshold", "threshold_box",
                  min_value=1, max_value=top_grade, step=1,
                  help="lowest grade that binary measures count as relevant")
        bound(st.selectbox, "Ties", "ties", "ties_box", options=TiePolicy.ordering_names(),
              help=TiePolicy.help_text(TiePolicy.orderings()))


@st.cache_data(show_spinner="Running the significance tests…", max_entries=32, ttl=CACHE_TTL)
def compare_source(src: tuple, ties: str, measures: str, measure: str, seed: int,
                   _store: dict | None = None):
    """Paired tests of every pair of systems on one measure (cached per data and seed)."""
    from metrics.evaluation.stats import TESTS, compare_systems

    results = evaluate_source(src, ties, measures, _store)
    per_query = {system: {measure: r.results[measure].values} for system, r in results.items()}
    return compare_systems(per_query, [measure], TESTS, seed)


# One query's curves and failure report, cached per data, query and threshold: for a list of a
# million items each costs a few tenths of a second, and a K change or a page turn needs neither
# again. Bounded by count: each entry holds a few arrays of the list's length (40 MB at 10^6).
@st.cache_resource(show_spinner=False, max_entries=8, ttl=CACHE_TTL)
def query_curves(src: tuple, ties: str, system: str, query: int, threshold: int,
                 _store: dict | None = None):
    from metrics.evaluation.curves import rank_curves

    return rank_curves(load_source(src, ties, _store)[system], query, threshold)


@st.cache_resource(show_spinner="Looking for the relevant items the list missed…",
                   max_entries=16, ttl=CACHE_TTL)
def query_failure(src: tuple, ties: str, system: str, other: str | None, query: int,
                  threshold: int, _store: dict | None = None):
    from metrics.explain.summaries import failure_report

    data = load_source(src, ties, _store)
    return failure_report(data[system], query, threshold,
                          data[other] if other else None, other or "other")
