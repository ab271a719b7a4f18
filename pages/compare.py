"""Compare systems: per-query scatter and differences, significance tests, mean curves, and one
query's two rankings side by side."""

import numpy as np
import pandas as pd
import streamlit as st

from charts import difference_figure, interpolated_pr_figure, paired_scatter_figure
from dashboard.captions import randomisation_method
from dashboard.chart_in_place import show_chart
from dashboard.clicks import RANKINGS_ANCHOR, open_clicked
from dashboard.computed import comparisons, several_systems
from dashboard.frame import end_page, page_path, page_setup
from dashboard.in_page import scroll_to
from dashboard.metadata import current_metadata, item_columns, show_query_description
from dashboard.players import list_players, query_player
from dashboard.provenance_records import provenance_record
from dashboard.safe import md
from dashboard.settings import KEEP
from dashboard.tables import STYLED_ROWS, download_csv, printed_numbers, show_ranked_list
from dashboard.widgets import choose
from metrics.evaluation.cells import fixed, p_printed
from metrics.evaluation.curves import RECALL_LEVELS, mean_interpolated_precision
from metrics.explain.described import beside_ids, query_words
from metrics.explain.summaries import side_by_side
from metrics.explain.verdicts import TEST_HEADINGS, interval_text, pair_verdict
from metrics.evaluation.power import (DEFAULT_POWER, detectable_sentence, power_analysis,
                                      queries_needed_text)
from metrics.evaluation.stats import DEFAULT_ALPHA, DEFAULT_SEED

page_setup()

st.title("Compare systems")
data, measures, results = several_systems(
    "Choose a sample with two systems (cover songs, instruments, text-to-music) or upload two "
    "or more runs on the Data page.")
systems = list(data)

threshold = int(st.session_state["threshold"])
c1, c2, c3 = st.columns(3)
with c1:
    name_a = choose("System A", "system_a", systems, systems[0], "system_a_box")
with c2:
    name_b = choose("System B", "system_b", systems, systems[1], "system_b_box")
names = results[name_a].measures
measure = c3.selectbox("Measure", names, key="compare_measure", **KEEP)
if name_a == name_b:
    st.warning("Choose two different systems.")
    end_page()

queries = results[name_a].query_ids
a = results[name_a].results[measure].values
b = results[name_b].results[measure].values
both = ~np.isnan(a) & ~np.isnan(b)

shown = queries[both]
charts = st.grid(2, min_column_width=300)   # side by side only when both get 300 px
with charts.cell():
    scatter = show_chart(
        paired_scatter_figure(a[both], b[both], shown, name_a=name_a, name_b=name_b,
                              measure=measure), key="compare_scatter", clickable=True)
    st.caption("Above the diagonal: B is better. Click a point to open that query below.")
with charts.cell():
    bars = show_chart(
        difference_figure(b[both] - a[both], shown, name_a=name_a, name_b=name_b,
                          measure=measure), key="compare_bars", clickable=True)
    st.caption("Click a bar to open that query below.")
for click in (scatter, bars):
    if open_clicked(click, shown):
        st.session_state["_scroll_to_rankings"] = True

st.subheader("How sure are we?")
seed = st.number_input("Seed of the randomisation test and the bootstrap", value=DEFAULT_SEED,
                       step=1, key="compare_seed")
tests = comparisons(measures, measure, int(seed))
frame = pd.DataFrame([{
    "A": t.a, "B": t.b, "test": t.test, "mean B − A": t.mean_diff,
    "95% CI low": t.ci[0], "95% CI high": t.ci[1], "statistic": t.statistic, "p": t.p,
    **({"p (Holm)": t.p_holm} if len(systems) > 2 else {}),
    "Cohen's d": t.effect_size, "n": t.n, "wins": t.wins, "ties": t.ties, "losses": t.losses,
    "why undefined": t.undefined}   # statistic, p and d are empty then
    for t in tests])
# the chosen pair in one verdict, then its tests: one column per test, one row per quantity, in
# columns of fixed width, so the table fits a 1024-px screen however many systems there are and
# whether or not the web font has loaded when the grid measures its text (the download has every
# pair and every column)
pair = [t for t in tests if {t.a, t.b} == {name_a, name_b}]
if pair:
    st.markdown(md(pair_verdict(pair)))
if pair and pair[0].a != name_a:
    st.caption(md(f"In the table, A is {pair[0].a} and B is {pair[0].b}."))


def cell(value, digits=fixed) -> str:
    return "—" if pd.isna(value) else digits(value)


rows = {"mean B − A": [cell(t.mean_diff) for t in pair],
        "95% interval": [interval_text(t.ci, fixed) for t in pair],
        "p": [cell(t.p, p_printed) for t in pair],
        **({"p (Holm)": [cell(t.p_holm, p_printed) for t in pair]}
           if len(systems) > 2 else {}),
        "d": [cell(t.effect_size) for t in pair],
        "wins / ties / losses": [f"{t.wins} / {t.ties} / {t.losses}" for t in pair]}
table = pd.DataFrame(rows, index=[TEST_HEADINGS.get(t.test, t.test) for t in pair]).T
st.dataframe(table, width="stretch",
             column_config={"_index": st.column_config.Column("", width=150)}
             | {c: st.column_config.TextColumn(width=125, alignment="right") for c in table})
download_csv("Download CSV", frame, provenance_record(measures, seed=int(seed)), "tests.csv")
methods = sorted({randomisation_method(t.n) for t in tests if t.test == "randomization"})
st.caption("Paired tests over the queries where both systems have a value (scipy.stats): "
           "t-test, Wilcoxon signed-rank, and a randomisation test, "
           + (" / ".join(methods) if methods else "not run") + "; "
           "the interval is a BCa bootstrap of the mean difference; d is Cohen's d, "
           "mean/sd of the differences. "
           + ("Holm's correction is over the system pairs. " if len(systems) > 2 else "")
           + "wins count queries where B beats A.")
delta = st.number_input(f"Difference to detect in {measure} (optional)", min_value=0.0,
                        value=None, step=0.01, format="%.4g", key="compare_delta",
                        help="how many queries the paired t-test needs to detect a difference "
                             "this large (power 0.8 at α = 0.05), from the spread of these "
                             "per-query differences")
power = power_analysis(a, b, DEFAULT_ALPHA, DEFAULT_POWER, delta or None)
st.markdown(md(detectable_sentence(power, measure)))
if delta and power.queries_needed_method is not None:
    st.markdown(md(f"Detecting a difference of {delta:g} in {measure} with power "
                   f"{power.power:g} at α = {power.alpha:g} needs "
                   f"{queries_needed_text(power)} queries (this collection has {power.n:,})."))

st.subheader("Mean PR curves")
means = {s: mean_interpolated_precision(data[s], threshold) for s in systems}
show_chart(interpolated_pr_figure(RECALL_LEVELS, {}, mean=means,
                                  title="Mean 11-point interpolated precision"),
           key="compare_pr")

st.subheader("One query, both rankings", anchor=RANKINGS_ANCHOR)
if st.session_state.pop("_scroll_to_rankings", False):
    scroll_to(RANKINGS_ANCHOR)
order = list(queries[both][np.argsort(-(np.abs(b[both] - a[both])), kind="stable")]) + \
    [q for q in queries if q not in set(queries[both])]
items, described = current_metadata()   # (`queries` is this page's query ids)
words = query_words(described, order)   # the box filters by what is typed: text and titles too
query_id = choose("Query (largest difference first)", "query", order, order[0],
                  "compare_query_box",
                  format_func=lambda q: f"{q} — {words[q]}" if q in words else str(q))
show_query_description(described, query_id)
row = int(np.flatnonzero(queries == query_id)[0])
if st.button(f"Open {md(query_id)} of {md(name_a)} in the Query explorer",
             key="open_in_explorer"):
    st.session_state["system"] = name_a
    st.switch_page(page_path("explorer"))
values = pd.DataFrame({s: [results[s].results[m].values[row] for m in names]
                       for s in (name_a, name_b)}, index=names)
shown, numbers = printed_numbers(values.T, names)
st.dataframe(shown, column_config=numbers, width="stretch", placeholder="undefined")
query_player(query_id, items, described)
columns = item_columns(items, "compare_item_columns")
table_a, table_b = (beside_ids(t, "item", items, columns)
                    for t in side_by_side(data[name_a], data[name_b], query_id, threshold))


# Each column of the two rankings at a fixed width, so that a ranking fits its half of the page
# whatever its text and whether or not the web font has loaded; χ is left out (the green rows or
# the "relevant" ticks say it). The two stand side by side only where both fit in full (1400 px
# with the sidebar closed), else one above the other, so "rank in other" is never cut off.
SIDE_WIDTHS = {"rank": 48, "item": 72, "grade": 64, "relevant": 64, "rank in other": 108}
METADATA_WIDTH = 98   # each item column (title, artist…)
side_config = {"χ": None} | {
    c: (st.column_config.CheckboxColumn(c, width=w) if c == "relevant" else
        st.column_config.TextColumn(c, width=w)) for c, w in SIDE_WIDTHS.items()} | {
    c: st.column_config.TextColumn(c, width=METADATA_WIDTH) for c in columns}
ticked = max(len(table_a), len(table_b)) > STYLED_ROWS   # a "relevant" column, not green rows
side_width = sum(SIDE_WIDTHS.values()) - SIDE_WIDTHS["relevant"] * (not ticked) \
    + METADATA_WIDTH * len(columns) + 4   # the grid's borders


def show(table: pd.DataFrame, title: str, other: str, key: str) -> None:
    only = int(table["rank in other"].isna().sum())
    st.markdown(f"**{md(title)}** — {only} of {len(table)} items not retrieved by {md(other)}")
    show_ranked_list(table, height=400, column_config=side_config)
    list_players(table, key, items, row_at=lambda rank: table.iloc[rank - 1:rank],
                 length=len(table))   # the whole list: any rank of it


rankings_grid = st.grid(2, min_column_width=side_width)
with rankings_grid.cell():
    show(table_a, f"A: {name_a}", name_b, "side_a")
with rankings_grid.cell():
    show(table_b, f"B: {name_b}", name_a, "side_b")
