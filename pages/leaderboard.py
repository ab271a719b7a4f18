"""Leaderboard: many systems × the sidebar's measures with intervals and corrected significance
against a baseline and the best, the pairwise matrix of one measure with the groups that cannot be
told apart, and where every query stands (a click opens the query in the Query explorer)."""

import numpy as np
import pandas as pd
import streamlit as st

from charts.leaderboard import pairwise_figure, query_heatmap_figure
from dashboard.chart_in_place import show_chart
from dashboard.clicks import clicked_index, open_clicked
from dashboard.computed import leaderboard_now, pairwise_now, several_systems
from dashboard.frame import page_path, page_setup
from dashboard.judging import agreement_panel
from dashboard.provenance_records import provenance_record
from dashboard.safe import md
from dashboard.tables import download_csv, printed_numbers
from dashboard.permalink import MAX_ALPHA, MIN_ALPHA
from dashboard.settings import (ALPHA, CORRECTION, LEADERBOARD_MEASURE, chosen_correction,
                                correction_title)
from dashboard.widgets import bound, choose
from metrics.evaluation.cells import SMALLEST_P, fixed, p_printed
from metrics.evaluation.corrections import Correction
from metrics.evaluation.stats import DEFAULT_LEVEL, DEFAULT_SEED
from metrics.explain.paper_table import paper_table
from metrics.explain.standings import FAILED_VALUE, standings

DISAGREEMENTS = 10      # rows of the "systems disagree most" table

page_setup()

st.title("Leaderboard")
data, measures, results = several_systems(
    "Choose a sample with several systems (version identification: five systems) or upload two "
    "or more runs on the Data page.")
systems = list(data)
names = list(results[systems[0]].measures)

controls = st.container(horizontal=True, vertical_alignment="bottom")
with controls:
    # settings, not widget keys: they survive leaving the page, and the address holds them
    baseline = choose("Baseline", "baseline", systems, systems[0], "baseline_box", width=220)
    bound(st.radio, "Correction for many comparisons", CORRECTION, "leaderboard_correction",
          options=list(Correction), format_func=correction_title, horizontal=True)
    alpha = float(bound(st.number_input, "α", ALPHA, "leaderboard_alpha", min_value=MIN_ALPHA,
                        max_value=MAX_ALPHA, step=0.01, format="%.4g", width=140))

correction = chosen_correction()
board = leaderboard_now(measures, baseline, correction, DEFAULT_SEED)
n_common = len(np.flatnonzero(np.all([~np.isnan(results[s].results[m].values)
                                      for s in systems for m in names], axis=0)))


def marked(row) -> str:
    """A cell of the systems × measures table (Markdown): the mean and the marks of the caption,
    and under them, small, the interval."""
    if pd.isna(row["mean"]):
        return "undefined"
    mean = f"**{fixed(row['mean'])}**" if row["best"] else fixed(row["mean"])
    marks = " ★" if row["best"] else ""
    if row["p vs baseline"] < alpha:
        higher = results[systems[0]].results[row["measure"]].higher_is_better
        marks += " ▲" if (row["− baseline"] > 0) == higher else " ▼"
    if row["p vs best"] < alpha:
        marks += " †"
    return f"{mean}{marks}\n:small[\\[{fixed(row['CI low'])}, {fixed(row['CI high'])}\\]]"


cells = (board.assign(cell=board.apply(marked, axis=1))
         .pivot(index="system", columns="measure", values="cell")
         .reindex(index=systems, columns=names))
# the fewer of systems and measures run across, so the table fits the page's width (a static
# table that wraps, not a grid that scrolls sideways); the CSV keeps every column
across = len(systems) < len(names)
grid = cells.T if across else cells
grid.index = [md(label) for label in grid.index]
grid.columns = [md(label) for label in grid.columns]
st.table(grid, width="stretch")
download_csv("Download CSV", board, provenance_record(measures, seed=DEFAULT_SEED),
             "leaderboard.csv", key="download_leaderboard")
st.caption(
    f"{'Systems run across, measures down' if across else 'Systems run down, measures across'}"
    f". Mean over the {n_common} queries where every system has a value, with its "
    f"{DEFAULT_LEVEL:.0%} percentile bootstrap interval in brackets. **Bold** ★ best of the "
    f"column; ▲/▼ "
    f"significantly better/worse than the baseline ({md(baseline)}); † significantly "
    f"different from the best. Significance: "
    f"**{correction.description}** at **α = {alpha:g}**, "
    + (f"over all pairs of systems of each measure: q = |ȳᵢ − ȳⱼ| / √(MSE / n) with MSE the "
       f"residual mean square of the two-way ANOVA without replication (k = {len(systems)} "
       f"systems × the n queries where every system has a value; (k − 1)(n − 1) degrees of "
       f"freedom), p from the studentized range of k means: every system ran the same "
       f"queries, so their difficulty is taken out of the error, as Sakai (2018) does for IR."
       if correction is Correction.TUKEY else
       "within each measure's family of comparisons (each system against the baseline; each "
       "against the best).")
    + f" p-values below {SMALLEST_P:g} print as < {SMALLEST_P:g}.")
with st.expander("The numbers behind the table"):
    numeric = ["mean", "CI low", "CI high", "− baseline", "− best"]
    shown, config = printed_numbers(board, numeric)
    shown = shown.assign(**{c: [("—" if pd.isna(p) else p_printed(p)) for p in board[c]]
                            for c in ("p vs baseline", "p vs best")})
    st.dataframe(shown, column_config=config, hide_index=True, width="stretch",
                 placeholder="—")
    st.caption(f"p-values: {md(correction.description)}; — where a test is undefined (a "
               f"system against itself, or no spread in the differences).")
# made only when opened: its tests of every pair of systems on every measure are a fifth of the
# page's first run, for a table read once, at the end of a session
paper_box = st.expander("The table for a paper (LaTeX, Markdown)", key="paper_table_open",
                        on_change="rerun")
if paper_box.open:
    with paper_box:
        paper = paper_table({s: {m: results[s].results[m].values for m in names}
                             for s in systems},
                            names, {m: results[systems[0]].results[m].higher_is_better
                                    for m in names}, correction, alpha, DEFAULT_SEED)
        latex, markdown = st.tabs(["LaTeX", "Markdown"])
        latex.code(paper.latex(), language="latex")
        markdown.code(paper.markdown(), language="markdown")
        st.caption("The means above, the best of each column in bold; a superscript names "
                   "the systems (by letter, in the order of the table) that the system is "
                   "significantly better than, by the pairwise matrix below at this correction "
                   "and α. The copy button is at the top right of each block.")

st.subheader("Every pair of systems")
measure = choose("Measure", LEADERBOARD_MEASURE, names, names[0], "leaderboard_measure_box",
                 noun="measure")
matrix = pairwise_now(measures, measure, correction, DEFAULT_SEED)
show_chart(pairwise_figure(matrix.systems, matrix.mean_diff, matrix.p_adjusted,
                           measure=measure, correction=correction.title, alpha=alpha),
           key="pairwise_chart")
st.caption(f"Cell (row, column): mean of the column's system − mean of the row's over "
           f"{matrix.n} common queries, and the p-value by {md(correction.description)} "
           f"(* below α = {alpha:g})."
           + (f" {correction.title} is undefined here: {md(matrix.undefined)}."
              if matrix.undefined else ""))
groups = matrix.groups(alpha)
st.markdown("**Groups that cannot be told apart** (best mean first; a system may be in "
            "several):\n" + "\n".join(f"{i}. " + ", ".join(md(s) for s in group)
                                       for i, group in enumerate(groups, 1)))
pairs = pd.DataFrame([{"row system": a, "column system": b,
                       "mean column − row": matrix.mean_diff[i, j],
                       "p adjusted": matrix.p_adjusted[i, j]}
                      for i, a in enumerate(matrix.systems)
                      for j, b in enumerate(matrix.systems) if i < j])
download_csv("Download CSV", pairs, provenance_record(measures, seed=DEFAULT_SEED),
             f"pairwise_{measure}.csv", key="download_pairwise")

st.subheader("Where every query stands")
higher = results[systems[0]].results[measure].higher_is_better
queries = results[systems[0]].query_ids
hardest, failed, disagreement = standings(
    queries, {s: results[s].results[measure].values for s in systems}, higher)
click = show_chart(
    query_heatmap_figure(hardest.index.tolist(), systems, hardest[systems].to_numpy(),
                         measure=measure), key="standings_chart", clickable=True)
st.caption(f"{measure} of every query (rows, hardest first: by the mean over the systems) for "
           f"every system (columns). Click a cell to open that query of that system in the "
           f"Query explorer.")
cells = np.repeat(hardest.index.to_numpy(dtype=object), len(systems))
if open_clicked(click, cells):
    st.session_state["system"] = systems[clicked_index(click) % len(systems)]
    st.switch_page(page_path("explorer"))
download_csv("Download CSV", hardest.reset_index(), provenance_record(measures),
             f"queries_{measure}.csv", key="download_standings")

every_fails = st.container()
rule = (f"{measure} = {FAILED_VALUE:g} or undefined for every system" if higher else
        f"{measure} undefined for every system (no relevant item retrieved)")
if failed:
    every_fails.markdown(f"**{len(failed)} quer{'y' if len(failed) == 1 else 'ies'} every "
                         f"system fails** ({md(rule)}): " + ", ".join(md(q) for q in failed))
else:
    every_fails.markdown(f"**No query every system fails** ({md(rule)}).")
st.markdown(f"**Where the systems disagree most** (spread = best − worst {md(measure)}):")
top = disagreement.head(DISAGREEMENTS).reset_index()
shown, config = printed_numbers(top, ["spread"])
st.dataframe(shown, column_config=config, hide_index=True, width="stretch")
download_csv("Download CSV", disagreement.reset_index(), provenance_record(measures),
             f"disagreement_{measure}.csv", key="download_disagreement")

# a second ground truth (another judge's qrels, or two judges of the store): how far they agree
agreement_panel(data, measure, int(st.session_state["threshold"]))
