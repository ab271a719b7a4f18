"""Groups of queries: each system's mean per group of queries (a column of the query table, or a
property the engine derives) with its interval, the difference of two systems per group with a
corrected test, and a click on a group that opens its queries in the Query explorer."""

import numpy as np
import streamlit as st

from charts.groups import group_means_figure
from dashboard.chart_in_place import show_chart
from dashboard.clicks import open_clicked
from dashboard.computed import evaluated
from dashboard.errors import show_error
from dashboard.frame import end_page, page_path, page_setup
from dashboard.grouped import (group_aggregates_source, group_frame, group_intervals_source,
                               group_tests_source, grouping_options, open_group)
from dashboard.metadata import current_metadata
from dashboard.provenance_records import provenance_record
from dashboard.safe import md
from dashboard.settings import GROUPS_MEASURE, OPEN_GROUP, source, tie_policy, upload_store
from dashboard.tables import download_csv, printed_numbers
from dashboard.widgets import choose
from metrics import InputError
from metrics.evaluation.cells import counted, p_printed
from metrics.evaluation.group_stats import CHART_EACH, charted_groups
from metrics.evaluation.groups import DERIVED, grouping_title
from metrics.evaluation.stats import CI_METHOD, DEFAULT_LEVEL, DEFAULT_RESAMPLES, DEFAULT_SEED

GROUPS_PER_PAGE = 200   # groups in a page of the table (their intervals are drawn): the
# covers' 137 artists in one

page_setup()

st.title("Groups of queries")
data, measures, results = evaluated()
items, queries = current_metadata()
options = grouping_options(queries, data)
systems = list(data)
names = results[systems[0]].measures
threshold = int(st.session_state["threshold"])

controls = st.container(horizontal=True, vertical_alignment="bottom")
with controls:
    name = choose("Group the queries by", "group_by", options, options[0], "group_by_box",
                  noun="grouping", width=260, format_func=grouping_title,
                  help="a column of the query table (Data page), or a property of each query: "
                       + "; ".join(f"{k}: {v}" for k, v in DERIVED.items()))
    measure = choose("Measure", GROUPS_MEASURE, names, names[0], "group_measure", noun="measure",
                     width=200)
if queries is None:
    st.caption("No query table: the queries are grouped by what the engine derives. Upload a "
               "query table (query_id, genre, …) on the Data page to group them by its columns.")

key = ",".join(str(m) for m in measures)
try:
    aggregates, group_of = group_aggregates_source(source(), tie_policy(), key, name, threshold,
                                                   upload_store())
except InputError as exc:
    show_error(exc)
    end_page()
groups = aggregates.grouping.groups
if not groups:
    st.info(f"No query has a value of {md(name)}.")
    end_page()
ungrouped = sum(g is None for g in group_of.values())
counts = dict(zip(groups, aggregates.num_queries.tolist()))
# the chart shows the groups that matter, the table a page of groups: intervals are drawn for
# those only, so that the page's cost does not grow with the number of groups
charted = charted_groups(aggregates, measure,
                         results[systems[0]].results[measure].higher_is_better)
pages = -(-len(groups) // GROUPS_PER_PAGE)
table_page = 0
if pages > 1:
    table_page = st.selectbox(
        f"Groups in the table ({len(groups):,}, {GROUPS_PER_PAGE} to a page)", range(pages),
        key="groups_table_page",
        format_func=lambda i: f"{i * GROUPS_PER_PAGE + 1:,}–"
                              f"{min((i + 1) * GROUPS_PER_PAGE, len(groups)):,}: "
                              f"{groups[i * GROUPS_PER_PAGE]} … "
                              f"{groups[min((i + 1) * GROUPS_PER_PAGE, len(groups)) - 1]}")
listed = np.arange(table_page * GROUPS_PER_PAGE, min((table_page + 1) * GROUPS_PER_PAGE,
                                                     len(groups)))
low, high = group_intervals_source(source(), tie_policy(), key, name, threshold, measure,
                                   tuple(charted.tolist()), DEFAULT_LEVEL, DEFAULT_SEED,
                                   upload_store())
unlisted = np.setdiff1d(listed, charted)
if len(unlisted):
    more = group_intervals_source(source(), tie_policy(), key, name, threshold, measure,
                                  tuple(unlisted.tolist()), DEFAULT_LEVEL, DEFAULT_SEED,
                                  upload_store())
    low, high = (np.where(np.isnan(a), b, a) for a, b in zip((low, high), more))
charted_names = [groups[i] for i in charted]
means_of = aggregates.values[measure]
click = show_chart(
    group_means_figure(charted_names, [counts[g] for g in charted_names], systems,
                       means_of[charted], low[charted], high[charted], measure=measure,
                       grouping=name, level=DEFAULT_LEVEL), key="groups_chart", clickable=True)
every = len(charted) == len(groups)
st.caption(("" if every else
            f"The chart shows {len(charted)} of the {len(groups):,} groups: the {CHART_EACH} with "
            f"the most queries and the {CHART_EACH} best and {CHART_EACH} worst by the systems' "
            f"mean {md(measure)}, best at the top; the table lists every group. ")
           + f"Each group's mean over its queries where {md(measure)} is defined (as the overall "
           f"mean), with its {DEFAULT_LEVEL:.0%} {CI_METHOD} bootstrap interval "
           f"({DEFAULT_RESAMPLES:,} resamples, seed {DEFAULT_SEED}"
           + ("" if every else "; drawn for the groups of the chart and of the table's page")
           + "). "
           + (f"{counted(ungrouped, 'query has', 'queries have')} no {md(name)} and "
              f"{'is' if ungrouped == 1 else 'are'} in no group. " if ungrouped else "")
           + "Click a group to open its queries in the Query explorer, worst first.")

if open_clicked(click, charted_names,
                lambda group: open_group(name, group, group_of)):
    st.switch_page(page_path("explorer"))

one = group_frame(aggregates, listed, measure, low, high)
shown, numbers = printed_numbers(one[one["measure"] == measure].drop(columns="measure").rename(
    columns={"group": name}), ["mean", "CI low", "CI high"])
st.dataframe(shown, hide_index=True, width="stretch", height="auto", column_config=numbers,
             placeholder="undefined")
download_csv("Download CSV (every measure; the interval of the chosen one"
             + ("" if every and pages == 1 else ", for the groups of the chart and this page")
             + ")", group_frame(aggregates, np.arange(len(groups)), measure, low, high),
             provenance_record(measures, seed=DEFAULT_SEED), "groups.csv")
chosen = choose("Open a group's queries in the Query explorer", OPEN_GROUP, [None, *groups],
                None, "group_open_box", noun="group",
                format_func=lambda g: "choose a group" if g is None else
                f"{g} ({counted(counts[g], 'query', 'queries')})")
if chosen is not None and st.button(
        f"Open the {counted(counts[chosen], 'query', 'queries')}", key="open_group"):
    open_group(name, chosen, group_of)
    st.switch_page(page_path("explorer"))

if len(systems) > 1:
    st.subheader("Two systems, group by group")
    left, right = st.columns(2)
    with left:
        name_a = choose("System A", "system_a", systems, systems[0], "group_system_a_box")
    with right:
        name_b = choose("System B", "system_b", systems, systems[1], "group_system_b_box")
    if name_a == name_b:
        st.warning("Choose two different systems.")
    else:
        tests = group_tests_source(source(), tie_policy(), key, name, threshold,
                                   name_a, name_b, measure, DEFAULT_SEED, upload_store())
        tests = tests.rename(columns={"group": name})
        page_tests = tests.iloc[listed]
        shown, numbers = printed_numbers(page_tests, ["B − A"])
        for column in ("p", "p (Holm over groups)"):   # as every table prints p: never "0"
            shown[column] = [None if p != p else p_printed(p) for p in page_tests[column]]
        st.dataframe(shown, hide_index=True, width="stretch", column_config=numbers,
                     placeholder="—")
        st.caption(f"Paired t-test of {md(name_b)} against {md(name_a)} over each group's "
                   "queries where both have a value (as scipy.stats.ttest_rel); Holm's "
                   f"correction is over the {len(groups):,} groups: testing each group is "
                   f"{len(groups):,} tests."
                   + (" The table shows the page of groups chosen above; the CSV has every "
                      "group." if pages > 1 else ""))
        download_csv("Download CSV", tests, provenance_record(measures, seed=DEFAULT_SEED),
                     "group_tests.csv", key="download_group_tests")
