"""Query explorer: find the query that fails and see where its relevant items ended up."""

import numpy as np
import streamlit as st

from charts import confusion_matrix_figure, pr_curve_figure, rank_strip_figure
from dashboard.frame import page_setup
from dashboard.state import (choose, cutoff_control, evaluations, measure_list,
                             provenance_record, rankings)
from dashboard.tables import csv_bytes, number_columns, show_ranked_list
from dashboard.teaching import stacked, worked_measures
from metrics.curves import interpolated_precision
from metrics.inspect import confusion_at, query_table
from metrics.measures.graded import ideal_grades

page_setup()

st.title("Query explorer")
data, measures = rankings(), measure_list()
results = evaluations(measures) if data is not None and measures else None
if not results:
    st.stop()

threshold = int(st.session_state["threshold"])
systems = list(data)
system = choose("System", "system", systems, systems[0], "system_box") if len(systems) > 1 \
    else systems[0]
judged, result = data[system], results[system]

names = result.measures
sort_by = st.selectbox("Sort queries by", names, key="sort_by",
                       help="worst first; queries where the measure is undefined come last")
per_query = result.per_query()
worst_first = per_query.sort_values(
    sort_by, ascending=result.results[sort_by].higher_is_better, na_position="last",
    kind="stable")
with st.expander(f"All {len(per_query)} queries, worst {sort_by} first", expanded=False):
    st.dataframe(worst_first, column_config=number_columns(names), hide_index=True,
                 width="stretch", height=260)
    st.download_button("Download CSV", csv_bytes(worst_first, provenance_record(
        measures, warnings=result.warnings)), f"{system}_per_query.csv", "text/csv")

order = worst_first["query_id"].tolist()
values = dict(zip(per_query["query_id"], per_query[sort_by]))
# the query is a setting of its own; the box is keyed on system and sort, so that its labels
# (which hold that system's value of that measure) are never left over from another choice
query_id = choose(
    "Query", "query", order, order[0], f"query_box:{system}:{sort_by}",
    format_func=lambda q: f"{q}  ({sort_by} = "
                          f"{'undefined' if np.isnan(values[q]) else format(values[q], '.4f')})")
q = int(np.flatnonzero(judged.query_ids == query_id)[0])
k = cutoff_control(data)

table = query_table(judged, q, threshold)
r_q = int(judged.num_relevant(threshold)[q])
st.plotly_chart(rank_strip_figure(table["rank"], table["grade"].fillna(-1).astype(int),
                                  len(table), num_relevant=r_q), width="stretch")
if r_q == 0:
    st.warning("This query has no relevant item in the ground truth: its measures are undefined.")

# The ranked list has a row of its own (all its columns, F(r) included, fit at 1024 × 768);
# the PR curve and the confusion matrix share a row only when both get 300 px or more.
st.markdown(f"**Ranked list** — {len(table)} items, R_q = {r_q} relevant in the ground truth "
            f"(relevant rows in green"
            + ("; *tied ranks*: the ranks a group of equal scores shares, ordered by the tie "
               "policy" if "tied ranks" in table else "") + ")")
show_ranked_list(table, height=min(420, 38 + 35 * max(len(table), 3)))
st.download_button("Download CSV", csv_bytes(table, provenance_record(measures)),
                   f"{system}_{query_id}_ranking.csv", "text/csv", key="download_ranking")

n = len(table)
recall, precision, f = (table["R(r)"].to_numpy(float), table["P(r)"].to_numpy(float),
                        table["F(r)"].to_numpy(float))
bep = None
if r_q:
    hits = float(table["χ"].iloc[:r_q].sum())
    bep = hits / r_q
best = int(np.nanargmax(f)) if n and r_q and np.nanmax(f) > 0 else None
fmax = (recall[best], precision[best], best + 1) if best is not None else None
interpolated = interpolated_precision(judged.subset(np.array([q])), threshold)[0] \
    if r_q else None
counts = confusion_at(judged, q, k, threshold)

figures = st.grid(2, min_column_width=300)
with figures.cell():
    st.plotly_chart(pr_curve_figure(recall, precision, bep=bep, fmax=fmax,
                                    interpolated=interpolated, title=f"PR curve of {query_id}"),
                    width="stretch")
    if bep is not None:
        st.caption(f"Break-even point: P(R_q) = R(R_q) at r = R_q = {r_q}: {bep:.4f}. "
                   + (f"F_max = {f[best]:.4f} at rank {best + 1}." if best is not None else ""))
with figures.cell():
    st.plotly_chart(confusion_matrix_figure(*counts, k=k), width="stretch")
    st.caption("The top K items count as retrieved: change **Cutoff K** above.")

st.subheader(f"At cutoff K = {k}")
grades = table["grade"].fillna(0).to_numpy(float)   # unjudged items gain nothing
for worked in worked_measures(table["χ"].to_numpy(), grades, r_q, k,
                              ideal_grades(judged, q), counts, judged.collection_size):
    st.latex(stacked(worked.latex))
