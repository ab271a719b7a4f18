"""Query explorer: find the query that fails, see where its relevant items ended up and why, and
step through its ranking rank by rank (teaching mode)."""

import zlib

import streamlit as st

from dashboard.computed import curves_of, evaluated
from dashboard.failure import show_failure_summary, show_missed_items, strip_row, strip_rows
from dashboard.frame import page_setup
from dashboard.grouped import chosen_group, forget_group
from dashboard.metadata import current_metadata, item_columns, show_query_description
from dashboard.in_page import scroll_to_key
from dashboard.judging import judgeable, judged_now, judging_marks, judging_panel
from dashboard.permalink import entered_page, permalink_query, write_permalink
from dashboard.players import list_players, query_player
from dashboard.provenance_records import provenance_record
from dashboard.query_view import (FIT_PRECISION, TEACHING_BLOCK, show_query_figure,
                                  teaching_stepper)
from dashboard.safe import md
from dashboard.tables import (download_csv, page_of_ranks, printed_numbers,
                              show_ranked_list, with_cutoff)
from dashboard.teaching import stacked, worked_measures
from dashboard.what_if_view import edited_query, show_changes, what_if_controls
from dashboard.settings import KEEP, TEACHING
from dashboard.widgets import bound, choose, cutoff_control, fit_precision_toggle
from metrics import Relevance
from metrics.evaluation.cells import fixed
from metrics.evaluation.curves import rank_curves
from metrics.explain.summaries import failure_report, query_index, query_table
from metrics.explain.described import beside_ids, query_columns, query_words

TEACHING_SHOWN = "_teaching_shown"   # the teaching mode was on at the fragment's last run

# the views below the figure, of which only the chosen one is built
RANKED_LIST, MISSED_ITEMS, WORKED_MEASURES = VIEWS = (
    "Ranked list", "Relevant items not retrieved", "Worked measures at K")

page_setup()

st.title("Query explorer")
data, measures, results = evaluated()

threshold = int(st.session_state["threshold"])
systems = list(data)
system = choose("System", "system", systems, systems[0], "system_box") if len(systems) > 1 \
    else systems[0]
judged, result = data[system], results[system]

names = result.measures
sort_by = st.selectbox("Sort queries by", names, key="sort_by", **KEEP,
                       help="worst first; queries where the measure is undefined come last")
per_query = result.per_query()
group = chosen_group()   # the queries of one group, opened from the Groups page
in_group = None if group is None else \
    per_query["query_id"].astype(str).isin(set(group["queries"])).to_numpy()
if in_group is not None and in_group.any():
    left, right = st.columns([4, 1], vertical_alignment="center")
    count = int(in_group.sum())
    left.info(f"The {count} quer{'y' if count == 1 else 'ies'} of {md(group['name'])} = "
              f"{md(group['group'])} (from the Groups page), worst first.")
    right.button("Show every query", on_click=forget_group, key="forget_group")
    per_query = per_query[in_group]
worst_first = per_query.sort_values(
    sort_by, ascending=result.results[sort_by].higher_is_better, na_position="last",
    kind="stable")
items, queries = current_metadata()
can_judge = judgeable()   # a qrels ground truth, with holes to fill
# built only while open: closed, a system or sort change does not send the whole table again
with st.expander(f"All {len(per_query)} queries, worst {md(sort_by)} first", key="all_queries_open",
                 on_change="rerun") as all_queries:
    if all_queries.open:
        shown, numbers = printed_numbers(
            beside_ids(worst_first, "query_id", queries, query_columns(queries)), names)
        st.dataframe(shown, column_config=numbers, hide_index=True, width="stretch",
                     height=260, placeholder="undefined")
        download_csv("Download CSV", worst_first, provenance_record(
            measures, warnings=result.warnings), f"{system}_per_query.csv")

order = worst_first["query_id"].tolist()
shown_group = f"{group['name']}={group['group']}" if group else ""
# the Query box's labels, made once per system and sort order (not on every query switch); the
# box filters its options by what is typed, so a query is found by its text or title too
words = query_words(queries, order)
labels = {q: f"{q}" + (f" — {words[q]}" if q in words else "") + f"  ({sort_by} = "
          + ("undefined" if v != v else fixed(v)) + ")"
          for q, v in zip(order, worst_first[sort_by].tolist())}
# a judgment changes the values in the labels, and so their order: the box is keyed on them too,
# or the browser kept the old box's choice by its place in the list (another query)
labels_version = f"{zlib.crc32(chr(10).join(labels.values()).encode()):08x}"


# Everything below depends on the query and K, nothing above does: a fragment, so that a query
# switch, a K change or a page of the ranked list reruns this part only (not the sidebar, the
# per-query table or the other systems' work), and the browser redraws only this part.
@st.fragment
def one_query() -> None:
    # the query is a setting of its own; the box is keyed on system and sort, so that its
    # labels (which hold that system's value of that measure) are never left over from another
    # choice
    query_id = choose(
        "Query", "query", order, order[0],
        f"query_box:{system}:{sort_by}:{shown_group}:{labels_version}",
        format_func=labels.__getitem__)
    show_query_description(queries, query_id)
    query_player(query_id, items, queries)
    q = query_index(judged, query_id)
    k = cutoff_control(data)
    with st.container(horizontal=True):
        teaching = bound(st.toggle, "Teaching mode: step through the ranking rank by rank",
                         TEACHING, "teaching_box")
        fit_precision_toggle(FIT_PRECISION, "PR curve's")
    # the teaching block is brought to the top of the screen when the mode is turned on, and
    # when the page opens in it (a link, Back, the sidebar): on a projector it starts below
    # the fold, under the query's controls
    bring_teaching_up = teaching and (entered_page() or not st.session_state.get(TEACHING_SHOWN))
    st.session_state[TEACHING_SHOWN] = teaching

    original = curves_of(system, q, threshold)
    # teaching mode's "what if": the edited query (a ranking of its own, query 0) is what the
    # figure, the numbers, the ranked list and the worked measures show
    whatif = edited_query(judged, q, system, measures) if teaching else None
    ranking, at = (whatif.edited, 0) if whatif else (judged, q)
    curves = rank_curves(ranking, at, threshold) if whatif else original
    n = len(curves.chi)
    r_q = int(ranking.num_relevant(threshold)[at])
    if r_q == 0:
        st.warning("This query has no relevant item in the ground truth: its measures are "
                   "undefined.")

    others = [s for s in systems if s != system]
    other = others[0] if len(others) == 1 else \
        choose("Compare with", "other_system", others, others[0], "other_system_box") \
        if others else None
    # the rank strip has a row for each of the two systems compared
    strip = strip_rows(data, system, other, query_id, threshold, items)
    if whatif:
        strip[0] = strip_row(ranking, system, at, threshold, items)
    if teaching:
        # the link made at each step of r (a step reruns the stepper only)
        addressed = teaching_stepper(
            ranking, at, curves, threshold, k, strip, lambda: permalink_query("explorer"),
            original=original if whatif else None, items=items,
            edit_controls=lambda r: what_if_controls(ranking, r, Relevance(threshold)))
        if addressed and bring_teaching_up:
            scroll_to_key(TEACHING_BLOCK)
        if addressed and whatif:
            show_changes(whatif, "AP" if "AP" in whatif.after else names[0])
    else:
        # the figure's chart puts the permalink in the address bar
        # (dashboard/chart_in_place.py): a fragment's rerun does not reach app.py, which writes
        # it after a full run
        show_query_figure(judged, q, curves, threshold, k, strip,
                          address=permalink_query("explorer"))
        addressed = True
        if can_judge:   # the holes of the top K, to judge by listening (dashboard/judging.py)
            judging_panel(data, [system] + ([other] if other else []), query_id, k, items,
                          measures)

    # with what-if edits, what the edited list found and missed (the same engine function)
    report = show_failure_summary(
        ranking, system, other, at, k, threshold,
        bpref_shown=any(str(m).startswith("Bpref") for m in measures),
        report=failure_report(ranking, at, threshold, data[other] if other else None,
                              other or "other") if whatif else None, items=items)
    columns = item_columns(items, "explorer_item_columns")

    # Only the chosen view is built: a query switch or a change of K redraws one table, not
    # three (each costs the browser about a tenth of a second to draw). A segmented control,
    # not st.tabs: every rerun sends a tab container and its tabs as new blocks that the
    # browser lays out again, while an unchanged control is reused as it is (BENCHMARKS.md)
    view = st.segmented_control("View", VIEWS, default=RANKED_LIST, required=True,
                                key="explorer_view", label_visibility="collapsed", **KEEP)
    if view == RANKED_LIST:
        # a long list is shown a page at a time, and only that page is built
        first, stop = page_of_ranks(n, "ranking")
        table = with_cutoff(beside_ids(query_table(ranking, at, threshold, first, stop, curves),
                                       "item", items, columns), k)
        if can_judge:
            table.insert(list(table.columns).index("grade") + 1, "judging",
                         judging_marks(table, k, judged_now(query_id)))
        st.markdown(
            f"{n:,} items, R_q = {r_q} relevant in the ground truth (relevant rows in "
            f"green, ✓ in the top K = {k}"
            + ("; *tied ranks*: the ranks a group of equal scores shares, ordered by the tie "
               "policy" if "tied ranks" in table else "") + ")")
        show_ranked_list(table, height=min(420, 38 + 35 * max(len(table), 3)))
        download_csv("Download CSV" + (" (this page)" if stop - first < n else ""), table,
                     provenance_record(measures), f"{system}_{query_id}_ranking.csv",
                     key="download_ranking")
        list_players(table, "ranked", items, row_at=lambda rank: query_table(
            ranking, at, threshold, rank - 1, rank, curves), length=n)   # any rank of the list
    elif view == MISSED_ITEMS:
        show_missed_items(report, other, items, columns)   # played in the summary above
    else:   # WORKED_MEASURES
        st.subheader(f"At cutoff K = {k}")
        for step in worked_measures(ranking, at, k, threshold):
            st.latex(stacked(step.latex))
            st.caption(step.rewards)
    if not addressed:   # no chart to carry the link on a fragment's rerun
        write_permalink("explorer", key="explorer_address")


one_query()
