"""The Query explorer's panel on why a query fails: what the ranking found and missed, how much
of its top K nobody judged, and where the other system put the same items."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from charts import StripRow
from dashboard.computed import failure_of
from dashboard.players import list_players
from dashboard.safe import md
from dashboard.tables import NOT_RETRIEVED, spelled_ranks
from metrics.explain.described import beside_ids, item_labels
from metrics.explain.summaries import (FAILS_MEANS, FailureReport, query_index,
                                       relevant_retrieved, unjudged_in_top)
from metrics.data.judged import JudgedRanking


def strip_row(judged: JudgedRanking, name: str, query: int, threshold: int,
              items=None) -> StripRow:
    """One system's row of a query's rank strip: the ranks and grades of the relevant items its
    list retrieved, with each one's id, title and artist (``items``: the item table) when the
    lists are kept."""
    ranks, grades = relevant_retrieved(judged, query, threshold)
    labels = None
    if items is not None and judged.lists is not None and len(ranks):
        # the list up to its last relevant item: the hover names what is drawn, nothing more
        listed, _ = judged.ranked_list(query, 0, int(ranks.max()))
        labels = item_labels(listed[ranks - 1], items)
    return StripRow(name, ranks, grades, int(judged.lengths[query]),
                    int(judged.num_relevant(threshold)[query]), labels)


def strip_rows(data: dict[str, JudgedRanking], system: str, other: str | None, query_id: str,
               threshold: int, items=None) -> list[StripRow]:
    """The rows of a query's rank strip: the system's, then the other system's when it has the
    query."""
    rows = []
    for name in (system, other) if other is not None else (system,):
        at = query_index(data[name], query_id)
        if at is not None:
            rows.append(strip_row(data[name], name, at, threshold, items))
    return rows


def show_failure_summary(judged: JudgedRanking, system: str, other: str | None, q: int,
                         cutoff: int, threshold: int, bpref_shown: bool = False,
                         report: FailureReport | None = None, items=None) -> FailureReport:
    """What ``system``'s ranking of query ``q`` found and missed and how much of its top K
    nobody judged, under a heading that says whether the query fails
    (:attr:`FailureReport.fails`): the relevant items the top K misses, each named (with its
    title and artist from the item table ``items``), with its rank or "not retrieved", its grade
    and the ``other`` system's rank, and a player for each when the items have audio; with
    ``bpref_shown`` (a Bpref among the measures), why Bpref is the share found when nothing is
    judged non-relevant. ``report``: the query's report when ``judged`` is not the loaded data (a
    "what if" edit of it), else the cached one. Returns the report, whose items not retrieved
    :func:`show_missed_items` lists."""
    if report is None:
        report = failure_of(system, other, q, threshold)
    if report.num_relevant == 0:
        st.subheader("Why this query has no score")
        st.markdown("No item of the ground truth is relevant to this query: every measure that "
                    "divides by R_q is undefined, and nothing the system does can change that.")
        return report
    st.subheader("Why this query fails" if report.fails else "What this query's list found",
                 help=FAILS_MEANS)
    top_k, unjudged = unjudged_in_top(judged, q, cutoff)
    share = unjudged / top_k if top_k else 0.0
    missed = report.missed_at(cutoff)
    lines = [found_line(report), *missed_lines(missed, cutoff, other, items),
             f"- **Unjudged in the top K = {cutoff:,}: {unjudged:,} of {top_k:,} ({share:.0%})** "
             "— " + ("nobody judged them, so they count as not relevant: the query may be better "
                     "than its numbers." if unjudged else "every item there was judged.")]
    if bpref_shown and report.judged_nonrelevant == 0 and report.found:
        lines.append("- **Nothing judged non-relevant**: Bpref counts only judged non-relevant "
                     "items above a relevant one, so here it is the share of relevant items "
                     "found, whatever their ranks (AP counts every item above them).")
    st.markdown("\n".join(lines))
    list_players(missed, "missed", items, f"Listen to the relevant items the top K = {cutoff:,} "
                                          "misses")
    return report


NAMED = 5   # missed items named in the summary; a player reaches every one


def missed_lines(missed: pd.DataFrame, cutoff: int, other: str | None, items=None) -> list[str]:
    """The relevant items a top ``cutoff`` misses (:meth:`FailureReport.missed_at`), as a
    Markdown list item with one sub-item per item (the first :data:`NAMED`): its id, title and
    artist, grade, rank here ("not retrieved") and in ``other``. Escaped: ids and titles are
    user text."""
    if missed.empty:
        return []
    count = len(missed)
    lines = [f"- **Missed by the top K = {cutoff:,}: {count:,} relevant "
             f"item{'' if count == 1 else 's'}**"]
    other_column = f"rank in {other}" if other is not None else None
    labels = item_labels(missed["item"].head(NAMED), items)
    for label, (_, row) in zip(labels, missed.head(NAMED).iterrows()):
        line = f"    - {md(label)} (grade {int(row['grade'])}): **{_where(row['rank'])}**"
        if other_column in row.index:
            line += f"; {md(other)}: {_where(row[other_column])}"
        lines.append(line)
    if count > NAMED:
        lines.append(f"    - … and {count - NAMED:,} more")
    return lines


def _where(rank) -> str:
    return NOT_RETRIEVED if pd.isna(rank) else f"rank {int(rank):,}"


def found_line(report: FailureReport) -> str:
    """What the list found of the query's relevant items, as a Markdown list item."""
    r_q = report.num_relevant
    if report.found == 0:
        return f"- **None of its {r_q:,} relevant items was retrieved.**"
    if report.num_missed == 0:
        return (f"- **Found all {r_q:,} of its relevant items**, the first at rank "
                f"{report.first_relevant:,}." if r_q > 1 else
                f"- **Found its relevant item** at rank {report.first_relevant:,}.")
    return (f"- **Found {report.found:,} of its {r_q:,} relevant items**, the first at rank "
            f"{report.first_relevant:,}; **{report.num_missed:,} not retrieved** at all.")


def show_missed_items(report: FailureReport, other: str | None, items=None,
                      columns: list[str] | None = None) -> None:
    """The relevant items the ranking did not retrieve, highest grade first, with their rank
    in the ``other`` system, and the item table's ``columns`` beside each id."""
    if not report.num_missed:
        st.markdown("Every relevant item of this query was retrieved." if report.num_relevant
                    else "This query has no relevant item.")
    elif report.missed_ids_known:
        st.markdown(f"**Relevant items not retrieved** ({len(report.missed):,}), highest grade "
                    "first" + (f", with their rank in {md(other)}" if other else ""))
        shown = report.missed.copy()
        for column in shown.columns[2:]:   # the other system's ranks
            shown[column] = spelled_ranks(shown[column], thousands=True)
        shown = beside_ids(shown, "item", items, columns)
        st.dataframe(shown, hide_index=True, width="stretch",
                     height=min(300, 38 + 35 * len(shown)))
    else:
        st.caption("This ground truth gives R_q without the items' ids (answer sets): the items "
                   "not retrieved cannot be listed.")
