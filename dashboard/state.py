"""The sidebar's shared state and the cached work every page needs."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from metrics import MeasureError, evaluate, parse_measures
from metrics.model import JudgedRanking
from metrics.ranking import TIE_POLICIES
from metrics.samples import SAMPLES, load_sample

DEFAULT_SAMPLE = "fmp"
DEFAULT_MEASURES = "AP,P@10,R@10,RR,nDCG@10,Rprec,Bpref"

DEFAULTS = {"sample": DEFAULT_SAMPLE, "ties": "stable", "measures": DEFAULT_MEASURES}


def init_state() -> None:
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)


def sidebar() -> None:
    """Dataset, measures and tie policy; the keys live in session_state, so they survive page
    switches."""
    init_state()
    with st.sidebar:
        st.selectbox("Dataset", list(SAMPLES), key="sample",
                     format_func=lambda k: SAMPLES[k].title)
        st.caption(SAMPLES[st.session_state["sample"]].description)
        st.text_input("Measures", key="measures",
                      help="Comma-separated, e.g. AP,P@10,nDCG@10,DCG(form=jarvelin,base=e)@10")
        st.selectbox("Ties", TIE_POLICIES, key="ties",
                     help="stable: input order; id: item id ascending; trec: as trec_eval")


@st.cache_data(show_spinner="Loading the dataset…")
def cached_sample(key: str, ties: str) -> dict[str, JudgedRanking]:
    return load_sample(key, ties)


@st.cache_data(show_spinner="Evaluating…")
def cached_aggregate(key: str, ties: str, measures: str) -> pd.DataFrame:
    rows = {}
    for system, judged in cached_sample(key, ties).items():
        result = evaluate(judged, measures)
        rows[system] = {**result.aggregate("mean"), "queries": judged.num_queries}
    table = pd.DataFrame(rows).T
    table["queries"] = table["queries"].astype(int)
    return table


def measures_or_error() -> str | None:
    """The sidebar's measure list, or None after showing what is wrong with it."""
    text = st.session_state.get("measures", DEFAULT_MEASURES)
    try:
        return ",".join(str(m) for m in parse_measures(text))
    except MeasureError as exc:
        st.error(f"Measures: {exc}")
        return None
