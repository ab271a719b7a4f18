"""The sidebar: dataset, measures, relevance threshold and tie policy, and the judge's name."""

from __future__ import annotations

import streamlit as st

from dashboard.datasets import load_current
from dashboard.frame import freeze_imported_objects
from dashboard.judging import judgeable, judgments_note
from dashboard.measure_picker import measure_picker
from dashboard.safe import md
from dashboard.settings import JUDGE, UPLOAD, init_state, source_title
from dashboard.widgets import bound
from metrics import InputError
from metrics.data.ties import TiePolicy
from metrics.evaluation.cells import LARGEST_EXACT_INTEGER
from metrics.explain.samples import SAMPLES
from metrics.measures.names import split_measure_list

# the sidebar's controls each page uses (the others are hidden there)
PAGE_CONTROLS = {
    "data": ("sample", "measures", "threshold", "ties"),
    "explorer": ("sample", "measures", "threshold", "ties", "judge"),
    "curves": ("sample", "threshold", "ties"),
    "answer_sets": (),
    "compare": ("sample", "measures", "threshold", "ties"),
    "leaderboard": ("sample", "measures", "threshold", "ties"),
    "groups": ("sample", "measures", "threshold", "ties"),
    "conventions": ("sample", "measures", "threshold", "ties"),
}


def sidebar(page: str = "data") -> None:
    """Dataset, measures, relevance threshold and tie policy, each shown on the pages it changes.
    The settings live in session_state under their own names, so they survive page switches and
    pages that hide them."""
    freeze_imported_objects()   # before the first dataset is loaded, which must not be frozen
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
            # the whole list, wrapped: the box shows one line of it (cut at "…Rprec,B")
            chosen = split_measure_list(st.session_state["measures"])
            st.caption(md(" · ".join(chosen)) if chosen else "No measure chosen.")
            measure_picker()
        data = None
        try:
            data = load_current()
        except InputError:
            pass  # the page says what is wrong
        top_grade = max((j.max_grade for j in (data or {}).values()), default=1)
        # grades are exact int64 in the engine, but the browser keeps a number box's value as a
        # double, and Streamlit ends the page with an exception for a box whose bounds lie
        # beyond ±(2^53 − 1)
        highest = min(max(top_grade, 1), LARGEST_EXACT_INTEGER)
        st.session_state["threshold"] = min(max(int(st.session_state["threshold"]), 1), highest)
        if top_grade > 1:
            beyond = (f" The highest grade, {top_grade:,}, is beyond what the box can hold "
                      f"({highest:,}, 2^53 − 1): give a measure a higher threshold itself, "
                      f"e.g. AP(rel={top_grade})." if top_grade > highest else "")
            bound(st.number_input, "Relevance threshold", "threshold", "threshold_box",
                  min_value=1, max_value=highest, step=1,
                  help="lowest grade that binary measures count as relevant." + beyond)
        bound(st.selectbox, "Ties", "ties", "ties_box", options=TiePolicy.ordering_names(),
              help=TiePolicy.help_text(TiePolicy.orderings()))
        if "judge" in controls and data is not None and judgeable():   # a qrels truth
            bound(st.text_input, "Your name, as a judge", JUDGE, "judge_box", max_chars=100,
                  placeholder="anonymous",
                  help="stored with each judgment you make in the judging panel (kept for "
                       "this session, never in a link)")
        note = judgments_note()
        if note:
            st.caption(md(note))
