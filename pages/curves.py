"""Curves: PR (raw and 11-point interpolated, with means), normalised lift and ROC."""

import numpy as np
import streamlit as st

from charts import interpolated_pr_figure, lift_curves_figure, pr_curves_figure, roc_figure
from dashboard.chart_in_place import show_chart
from dashboard.datasets import rankings
from dashboard.errors import COLLECTION_SIZE_HOW
from dashboard.frame import end_page, page_setup
from dashboard.permalink import check_link_value
from dashboard.safe import md
from dashboard.settings import KEEP
from dashboard.widgets import bound, fit_precision_toggle
from metrics.evaluation.cells import fixed
from metrics.evaluation.curves import (RECALL_LEVELS, interpolated_precision, lift_curve,
                                       mean_interpolated_precision, mean_lift, mean_roc,
                                       rank_curves, roc_auc, roc_curve)

page_setup()

MAX_LINES = 40   # more single-query lines than this make a figure unreadable

st.title("Curves")
data = rankings()
if data is None:
    end_page()
threshold = int(st.session_state["threshold"])
chosen_systems = st.session_state.get("curve_systems")
known = [s for s in chosen_systems if s in data] if isinstance(chosen_systems, list) else []
check_link_value("curve_systems", known == chosen_systems,
                 "this data has " + (f"only {', '.join(known)} of them" if known else
                                     "none of them, so every system is shown"))
# none of them known (another dataset's, or never chosen): all; an empty choice stays empty
st.session_state["curve_systems"] = known if known or chosen_systems == [] else list(data)
systems = bound(st.multiselect, "Systems", "curve_systems", "curve_systems_box",
                options=list(data))
if not systems:
    st.info("Choose at least one system.")
    end_page()
all_queries = list(data[systems[0]].query_ids)
mode = st.radio("Queries", ["all (means)", "choose"], horizontal=True, key="curve_mode", **KEEP)
chosen = all_queries
if mode == "choose":
    # the choice outlives the page (KEEP), and keeps only the queries of the data shown
    kept = [q for q in st.session_state.get("curve_queries", all_queries[:1]) if q in all_queries]
    st.session_state["curve_queries"] = kept
    chosen = st.multiselect("Queries", all_queries, key="curve_queries", **KEEP)
    if not chosen:
        st.info("Choose at least one query.")
        end_page()
show_lines = mode == "choose" or len(all_queries) <= MAX_LINES


def label(system: str, query: str) -> str:
    return f"{query}" if len(systems) == 1 else f"{system}: {query}"


groups = {label(system, query): system for system in systems for query in chosen}
lines_note = ("Thinner lines: one per query, in its system's colour. " if len(systems) > 1 else
              "Thinner lines: one per query. ") if show_lines else \
    f"Per-query lines are left out above {MAX_LINES} queries (choose queries to see them). "


def rows(system: str) -> np.ndarray:
    index = {q: i for i, q in enumerate(data[system].query_ids)}
    return np.array([index[q] for q in chosen if q in index], dtype=int)


subsets = {system: data[system].subset(rows(system)) for system in systems}
fit = fit_precision_toggle("pr_fit")
# The tabs keep their state (a key, and a rerun on a switch): the chosen tab stays when the
# controls above change (switching Queries to "choose" adds a box above them, which gave keyless
# tabs a new identity and reopened the first), and only the open tab's curves are computed
# st.tabs cannot keep its tab across pages itself: the open tab is a setting, the default
CURVE_TABS = ["PR curves", "11-point interpolated", "Normalised lift", "ROC"]
tabs = pr_tab, interp_tab, lift_tab, roc_tab = st.tabs(
    CURVE_TABS, key="curve_tab", on_change="rerun",
    default=st.session_state.get("curve_tab_open", CURVE_TABS[0]))
st.session_state["curve_tab_open"] = next(
    (name for name, tab in zip(CURVE_TABS, tabs) if tab.open), CURVE_TABS[0])
if pr_tab.open or interp_tab.open:
    interpolated = {system: interpolated_precision(subsets[system], threshold)
                    for system in systems}
    means = {system: mean_interpolated_precision(subsets[system], threshold,
                                                 interpolated[system]) for system in systems}

if pr_tab.open:
    with pr_tab:
        lines = {}
        for system, subset in subsets.items():
            if show_lines:
                for i, query in enumerate(subset.query_ids):
                    curves = rank_curves(subset, i, threshold)
                    lines[label(system, query)] = (curves.recall, curves.precision)
        show_chart(pr_curves_figure(lines, mean=means, groups=groups,
                                    title="Precision–recall", fit=fit), key="curves_pr")
        st.caption(lines_note.replace("one per query", "P(r) against R(r), one per query")
                   + "Thick: each system's mean of the 11-point interpolated curves over the "
                     "chosen queries with a relevant item.")

if interp_tab.open:
    with interp_tab:
        lines = {}
        for system, subset in subsets.items():
            values = interpolated[system]
            if show_lines:
                for i, query in enumerate(subset.query_ids):
                    if not np.isnan(values[i]).any():
                        lines[label(system, query)] = values[i]
        show_chart(interpolated_pr_figure(
            RECALL_LEVELS, lines, mean=means, groups=groups,
            title="Interpolated precision at 11 recall levels", fit=fit), key="curves_interpolated")
        st.caption(lines_note + "Thick: each system's mean over the chosen queries with a "
                   "relevant item. At each level, the highest precision at that recall or beyond "
                   "(trec_eval's iprec_at_recall).")

if lift_tab.open:
    with lift_tab:
        lines, lift_means = {}, {}
        for system, subset in subsets.items():
            if show_lines:
                for i, query in enumerate(subset.query_ids):
                    x, y = lift_curve(subset, i, threshold)
                    if not np.isnan(y).any():
                        lines[label(system, query)] = (x, y)
            lift_means[system] = mean_lift(subset, threshold)
        show_chart(lift_curves_figure(lines, mean=lift_means, groups=groups,
                                      title="Normalised lift (Serrà 2007)"), key="curves_lift")
        st.caption(lines_note + "Thick: each system's mean. x = r/|A|, y = TP(r)/R_q: the "
                   "steeper towards (0, 1), the better.")

if roc_tab.open:
    with roc_tab:
        missing = [s for s in systems if data[s].collection_sizes is None]
        if missing:
            st.info("ROC needs the collection size |D|, which is unknown for "
                    + md(", ".join(missing)) + ". " + COLLECTION_SIZE_HOW)
        lines, roc_means = {}, {}
        aucs = st.columns(max(len(systems) - len(missing), 1))
        for system, subset in subsets.items():
            if system in missing:
                continue
            auc = roc_auc(subset, threshold)
            defined = ~np.isnan(auc)
            if show_lines:
                for i, query in enumerate(subset.query_ids):
                    if defined[i]:
                        roc = roc_curve(subset, i, threshold)
                        lines[label(system, query)] = (roc.fpr, roc.tpr, roc.auc)
            if defined.any():
                roc_means[system] = mean_roc(subset, threshold)
                aucs[len(roc_means) - 1].metric(f"Mean AUC — {md(system)}",
                                                fixed(auc[defined].mean()))
        if roc_means:
            show_chart(roc_figure(lines, mean=roc_means, groups=groups,
                                  title="ROC along the ranking"), key="curves_roc")
            st.caption(lines_note.replace("one per query", "one per query, its AUC in its name")
                       + "Thick: each system's mean ROC curve (the mean true positive rate at "
                         "each false positive rate). Items the list did not retrieve are taken "
                         "to follow it in unknown order, so every curve ends with a straight "
                         "line to (1, 1).")
