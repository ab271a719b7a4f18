"""The Query explorer's figures of one query and its teaching mode, which steps through the
ranking rank by rank (a rank r control with play/pause; row r, the PR curve's marker, χ(r),
P(r), R(r), F(r) and the confusion matrix follow r)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from charts import StripRow, confusion_matrix_figure, pr_curve_figure, rank_strip_figure
from charts.figures import PR_MARKERS
from dashboard.state import bound
from dashboard.tables import show_ranked_list, with_cutoff
from metrics.curves import (RankCurves, drawn_ranks, exact_interpolated_precision,
                            interpolated_precision)
from metrics.inspect import confusion_at, query_table
from metrics.judged import JudgedRanking

STEP_SECONDS = 1.0   # one rank per second while playing: time to read the numbers
# Small figures redrawn on every click (rank strips, confusion matrices) go without Plotly's
# toolbar: building it is a tenth of each draw, and zooming a strip or a 2 × 2 grid shows nothing
QUIET = {"displayModeBar": False}


def show_rank_strip(rows: list[StripRow], threshold: int, cutoff: int,
                    current: int | None = None) -> None:
    st.plotly_chart(rank_strip_figure(rows, threshold=threshold, cutoff=cutoff, current=current),
                    width="stretch", config=QUIET)


def _point(curves: RankCurves, rank: int | None) -> tuple[float, float, int] | None:
    if rank is None or not 1 <= rank <= len(curves.chi):
        return None
    return float(curves.recall[rank - 1]), float(curves.precision[rank - 1]), rank


def pr_figure(judged: JudgedRanking, query: int, curves: RankCurves, threshold: int,
              cutoff: int, current: int | None = None):
    """The PR curve of one query with its break-even point, F_max, the 11-point and the exact
    interpolated curves, cutoff K and (teaching) rank r; a long list is drawn from the points
    that shape it (:func:`metrics.curves.drawn_ranks`). Returns (figure, caption)."""
    n = len(curves.chi)
    r_q = int(judged.num_relevant(threshold)[query])
    # a list too long for a marker per rank is drawn from its corners only: the same line, a
    # tenth of the points for the browser to process on every redraw
    keep = drawn_ranks(curves.chi, max_points=PR_MARKERS)
    bep = float(curves.true_positives[min(r_q, n) - 1]) / r_q if r_q and n else None
    f = curves.f
    best = int(np.nanargmax(f)) if n and r_q and np.nanmax(f) > 0 else None
    fmax = (float(curves.recall[best]), float(curves.precision[best]), best + 1) \
        if best is not None else None
    interpolated = interpolated_precision(judged.subset(np.array([query])), threshold)[0] \
        if r_q else None
    exact = exact_interpolated_precision(curves)[keep] if r_q else None
    figure = pr_curve_figure(curves.recall[keep], curves.precision[keep], ranks=keep + 1,
                             bep=bep, fmax=fmax, interpolated=interpolated, exact=exact,
                             cutoff=_point(curves, cutoff) if r_q else None,
                             current=_point(curves, current) if r_q else None,
                             title=f"PR curve of {judged.query_ids[query]}")
    caption = ""
    if bep is not None:
        caption = (f"Break-even point: P(R_q) = R(R_q) at r = R_q = {r_q}: {bep:.4f}. "
                   + (f"F_max = {f[best]:.4f} at rank {best + 1}. " if best is not None else "")
                   + "Exact interpolated: at each recall, the highest precision at that recall "
                     "or beyond; the 11-point curve samples it at recall 0, 0.1, …, 1.")
    return figure, caption


def query_figures(judged: JudgedRanking, query: int, curves: RankCurves, threshold: int,
                  cutoff: int, current: int | None = None) -> None:
    """The PR curve and the confusion matrix, side by side when both get 300 px; the matrix is
    at rank r in the teaching mode, at K otherwise."""
    at = current if current is not None else cutoff
    figure, caption = pr_figure(judged, query, curves, threshold, cutoff, current)
    grid = st.grid(2, min_column_width=300)
    with grid.cell():
        st.plotly_chart(figure, width="stretch")
        if caption:
            st.caption(caption)
    with grid.cell():
        st.plotly_chart(confusion_matrix_figure(*confusion_at(judged, query, at, threshold),
                                                k=at, name="K" if current is None else "r"),
                        width="stretch", config=QUIET)
        st.caption(f"The top {'r' if current is not None else 'K'} items count as retrieved"
                   + (" (rank r steps through the list)." if current is not None else
                      ": change **Cutoff K** above."))


def _set_playing(length: int, playing: bool) -> None:
    """Play/pause callback. It runs before the fragment, which must then not take a step (the
    run is the click's, not the timer's) and must rerun the page to start or stop the timer.
    It sets the state the button offered rather than toggling it: a click handled twice (the
    timer's runs and the click's can meet) leaves the same state, never pause-then-play."""
    if playing and st.session_state["teach_rank"] >= length:
        st.session_state["teach_rank"] = 1      # play again from the top
    st.session_state["teach_playing"] = playing
    st.session_state["_teach_toggled"] = True


def teaching_stepper(judged: JudgedRanking, query: int, curves: RankCurves, threshold: int,
                     cutoff: int, strip: list[StripRow]) -> None:
    """Step through one query's ranking (``strip``: the rows of its rank strip, this system's
    first). A fragment: a step reruns this part of the page only, once a second while
    playing."""
    length = len(curves.chi)
    if length == 0:
        st.info("This query's list is empty: there is nothing to step through.")
        return
    st.session_state.setdefault("teach_rank", 1)
    st.session_state["teach_rank"] = min(max(int(st.session_state["teach_rank"]), 1), length)
    playing = bool(st.session_state.get("teach_playing"))

    @st.fragment(run_every=STEP_SECONDS if playing else None)
    def step() -> None:
        if st.session_state.pop("_teach_toggled", False):
            st.rerun()   # the whole page: the fragment's timer starts or stops
        if st.session_state.get("teach_playing"):
            if st.session_state["teach_rank"] >= length:   # the end: stop the timer
                st.session_state["teach_playing"] = False
                st.rerun()
            st.session_state["teach_rank"] += 1
        box, button = st.columns([3, 1], vertical_alignment="bottom")
        with box:
            bound(st.number_input, "Rank r", "teach_rank", "teach_rank_box", min_value=1,
                  max_value=length, step=1, help="the rank the teaching mode is at; "
                                                 "▶ steps through the list, one rank a second")
        playing_now = bool(st.session_state.get("teach_playing"))
        button.button("⏸ Pause" if playing_now else "▶ Play", width="stretch", key="teach_play",
                      on_click=_set_playing, args=(length, not playing_now))
        r = int(st.session_state["teach_rank"])
        i = r - 1
        values = [("χ(r)", f"{int(curves.chi[i])}"), ("TP(r)", f"{int(curves.true_positives[i])}"),
                  ("P(r)", f"{curves.precision[i]:.3f}"),
                  ("R(r)", "—" if np.isnan(curves.recall[i]) else f"{curves.recall[i]:.3f}"),
                  ("F(r)", "—" if np.isnan(curves.f[i]) else f"{curves.f[i]:.3f}")]
        for column, (name, value) in zip(st.columns(len(values)), values):
            column.metric(f"{name}, r = {r}", value)
        st.caption(f"P(r) = TP(r)/r = {int(curves.true_positives[i])}/{r}; "
                   "R(r) = TP(r)/R_q; F(r) = 2·P·R/(P + R). The amber row is rank r; "
                   f"'{'✓'}' marks the top K = {cutoff}.")
        show_rank_strip(strip, threshold, cutoff, current=r)
        first = max(0, min(i - 3, length - 7))
        window = query_table(judged, query, threshold, first, first + 7, curves)
        show_ranked_list(with_cutoff(window, cutoff), height=38 + 35 * len(window), current=r)
        query_figures(judged, query, curves, threshold, cutoff, current=r)

    step()
