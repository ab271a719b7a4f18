"""Loading the data: the cache of loaded datasets, and the Data page's upload taken in.

Loaded datasets are kept in a cache bounded by memory (dashboard/memory_cache.py), not
st.cache_resource, which bounds by count only: a dataset takes from a few kB to a GB. Not
st.cache_data either: it hands every rerun a pickled copy, which for a 1,000 × 1,000 run costs
about a second per click; these objects are never modified, and the key (the
:class:`~dashboard.settings.DataSource`, holding the files' content hashes) keeps different
uploads apart.
"""

from __future__ import annotations

import hashlib
import os
import sys
from dataclasses import replace

import streamlit as st

from dashboard.errors import show_error
from dashboard.memory_cache import MemoryBoundedCache
from dashboard.settings import (UPLOAD, UPLOAD_CUTOFF, DataSource, source, tie_policy,
                                upload_store)
from dashboard.widgets import max_list_length
from metrics import InputError
from metrics.data.footprint import deep_nbytes
from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.explain.samples import load_sample
from metrics.loaders.metadata import read_metadata
from metrics.ranking.inputs import KINDS, METADATA_ROLES, RUNS_QRELS, EvaluationInputs
from metrics.ranking.pipelines import judge_inputs, renamed
from metrics.ranking.rank import JUDGED

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


def load_source(src: DataSource, ties: TiePolicy,
                store: dict | None = None) -> dict[str, JudgedRanking]:
    """The judged rankings of a source under a tie policy, one per system, from the cache of
    datasets (computed once per content, whichever session asks). ``store`` holds an upload's
    bytes by digest; it is not part of the key. Systems the Data page renamed are renamed here,
    after the cache: a new name ranks nothing again."""
    def compute() -> dict[str, JudgedRanking]:
        with st.spinner("Loading and ranking…"):
            return _load(src, ties, store)

    loaded = dataset_cache().get((src.unnamed(), ties), compute)
    chosen = dict(src.names)
    return {chosen.get(given, given): renamed(judged, chosen.get(given, given))
            for given, judged in loaded.items()}


def _load(src: DataSource, ties: TiePolicy, store: dict | None) -> dict[str, JudgedRanking]:
    if src.judgments:   # its qrels grown by the stored judgments: judged again, as a file would be
        from dashboard.judging import merged_inputs   # it reads the inputs of this module

        return judge_inputs(merged_inputs(src, ties, store)).systems
    if src.is_sample:
        return load_sample(src.sample, ties)
    return judge_inputs(evaluation_inputs(src, ties, store)).systems


def evaluation_inputs(src: DataSource, ties: TiePolicy, store: dict | None) -> EvaluationInputs:
    """An upload as the engine's description of an evaluation's inputs: the files it ranks
    (not its item and query tables), with their bytes (``store`` holds them by digest)."""
    return EvaluationInputs(
        src.kind, tuple((role, name, content if isinstance(content, bytes)
                         else (store or {})[content])
                        for role, name, content in src.unnamed().files),
        ties, src.collection_size, src.distance, src.similarity)


def load_current() -> dict[str, JudgedRanking]:
    """The current data under the current tie policy; raises InputError."""
    return load_source(source(), tie_policy(), upload_store())


def rankings() -> dict[str, JudgedRanking] | None:
    """The current data, or None after an ``st.error`` saying what is wrong."""
    try:
        return load_current()
    except InputError as exc:
        show_error(exc, "Cannot load the data: ")
        return None


def use_upload() -> None:
    """The Data page's button callback: read the uploaders, load once to validate, then switch
    the dataset to the upload (or keep the error under ``upload_error`` for the page)."""
    kind = st.session_state["upload_kind"]
    files, store = [], {}
    for role in (r.name for r in KINDS[kind] + METADATA_ROLES):
        given = st.session_state.get(f"upload_{kind}_{role}")
        for f in (given if isinstance(given, list) else [given] if given else []):
            content = f.getvalue()
            digest = hashlib.sha256(content).hexdigest()
            store[digest] = content
            files.append((role, f.name, digest))
    size = st.session_state.get("upload_collection_size")
    size = (JUDGED if kind == RUNS_QRELS and st.session_state.get("upload_all_judged")
            else int(size) if size else None)
    candidate = DataSource.of_upload(kind, tuple(files), size,
                                     bool(st.session_state.get("upload_distance")),
                                     st.session_state.get("upload_similarity", "cosine"))
    try:
        loaded = load_source(candidate, tie_policy(), store)
        read_metadata((role, name, store[digest])   # the tables are checked too
                      for role, name, digest in candidate.metadata_files())
    except InputError as exc:
        st.session_state["upload_error"] = str(exc)
        return
    st.session_state.pop("upload_error", None)
    # K to fit the files, not the FMP toys' default: UPLOAD_CUTOFF, or the longest list if shorter
    st.session_state["cutoff"] = min(UPLOAD_CUTOFF, max_list_length(loaded))
    st.session_state["upload_bytes"] = store
    st.session_state["upload"] = candidate
    st.session_state["sample"] = UPLOAD
    _forget_name_boxes()


NAME_BOX = "system_name_"   # the Data page's name boxes' keys: NAME_BOX + the system's number


def _forget_name_boxes() -> None:
    """The name boxes start again from the current names (after an upload or a renaming)."""
    for key in [k for k in st.session_state if str(k).startswith(NAME_BOX)]:
        del st.session_state[key]


def rename_systems() -> None:
    """The Data page's renaming button: the names typed in its boxes become the systems' names
    on every page (kept in the upload's :class:`DataSource`), or the error stays under
    ``names_error`` for the page: a name left empty, or given to two systems."""
    src = st.session_state["upload"]
    given = list(load_source(src.unnamed(), tie_policy(), upload_store()))
    current = dict(src.names)
    chosen = [str(st.session_state.get(f"{NAME_BOX}{i}", current.get(name, name))).strip()
              for i, name in enumerate(given)]
    empty = [given[i] for i, name in enumerate(chosen) if not name]
    twice = sorted({name for name in chosen if name and chosen.count(name) > 1})
    if empty or twice:
        st.session_state["names_error"] = (
            f"the name of {empty[0]!r} is empty; give every system a name" if empty else
            f"the name {twice[0]!r} is given to {chosen.count(twice[0])} systems; give each "
            "system its own name")
        return
    st.session_state.pop("names_error", None)
    st.session_state["upload"] = replace(src, names=tuple(
        (old, new) for old, new in zip(given, chosen) if old != new))
    _forget_name_boxes()
