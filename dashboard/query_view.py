"""The Query explorer's figures of one query and its teaching mode, which steps through the
ranking rank by rank (a rank r control with play/pause; row r, the PR curve's marker, χ(r),
P(r), R(r), F(r) and the confusion matrix follow r)."""

from __future__ import annotations

import numpy as np
import streamlit as st

from charts import Confusion, PRCurve, StripRow, query_figure
from charts.query_figure import PR_MARKERS
from dashboard.chart_in_place import show_chart_in_place
from dashboard.tables import show_ranked_list, with_cutoff
from dashboard.widgets import bound
from metrics.evaluation.cells import fixed
from metrics.evaluation.curves import (RankCurves, drawn_ranks, exact_interpolated_precision,
                                       interpolated_precision)
from metrics.explain.summaries import confusion_at, query_table
from metrics.data.judged import JudgedRanking

STEP_SECONDS = 1.0   # one rank per second while playing: time to read the numbers


def _point(curves: RankCurves, rank: int | None) -> tuple[float, float, int] | None:
    if rank is None or not 1 <= rank <= len(curves.chi):
        return None
    return float(curves.recall[rank - 1]), float(curves.precision[rank - 1]), rank


def pr_curve(judged: JudgedRanking, query: int, curves: RankCurves, threshold: int,
             cutoff: int, current: int | None = None) -> tuple[PRCurve, str]:
    """The PR curve of one query as drawn, with its break-even point, F_max, the 11-point and
    the exact interpolated curves, cutoff K and (teaching) rank r; a long list is drawn from the
    points that shape it (:func:`metrics.evaluation.curves.drawn_ranks`). Returns (curve,
    caption)."""
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
    curve = PRCurve(curves.recall[keep], curves.precision[keep], ranks=keep + 1, bep=bep,
                    fmax=fmax, interpolated=interpolated, exact=exact,
                    cutoff=_point(curves, cutoff) if r_q else None,
                    current=_point(curves, current) if r_q else None)
    caption = ""
    if bep is not None:
        caption = (f"Break-even point: P(R_q) = R(R_q) at r = R_q = {r_q}: {fixed(bep)}. "
                   + (f"F_max = {fixed(f[best])} at rank {best + 1}. " if best is not None
                      else "")
                   + "Exact interpolated: at each recall, the highest precision at that recall "
                     "or beyond; the 11-point curve samples it at recall 0, 0.1, …, 1. ")
    return curve, caption


def show_query_figure(judged: JudgedRanking, query: int, curves: RankCurves, threshold: int,
                      cutoff: int, strip: list[StripRow], current: int | None = None,
                      address: str | None = None) -> None:
    """The query's one figure (:func:`charts.query_figure`): its rank strip (``strip``: a row
    per system, this one first), PR curve and confusion matrix, the matrix at rank r in the
    teaching mode and at K otherwise, with the captions that explain them. The chart puts
    ``address`` (the page's permalink) in the address bar."""
    at, name = (current, "r") if current is not None else (cutoff, "K")
    curve, caption = pr_curve(judged, query, curves, threshold, cutoff, current)
    figure = query_figure(strip, curve, Confusion(*confusion_at(judged, query, at, threshold),
                                                  k=at, name=name),
                          query=str(judged.query_ids[query]), threshold=threshold,
                          cutoff=cutoff, current=current)
    show_chart_in_place(figure, key="query_figure", address=address)
    st.caption(caption + f"The confusion matrix counts the top {name} items as retrieved"
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
                     cutoff: int, strip: list[StripRow], address: str | None = None) -> bool:
    """Step through one query's ranking (``strip``: the rows of its rank strip, this system's
    first). A fragment: a step reruns this part of the page only, once a second while
    playing. Returns whether it showed the query's figure, which puts ``address`` in the
    address bar (an empty list has neither)."""
    length = len(curves.chi)
    if length == 0:
        st.info("This query's list is empty: there is nothing to step through.")
        return False
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
                  ("P(r)", fixed(curves.precision[i], 3)),
                  ("R(r)", "—" if np.isnan(curves.recall[i]) else fixed(curves.recall[i], 3)),
                  ("F(r)", "—" if np.isnan(curves.f[i]) else fixed(curves.f[i], 3))]
        for column, (name, value) in zip(st.columns(len(values)), values):
            column.metric(f"{name}, r = {r}", value)
        st.caption(f"P(r) = TP(r)/r = {int(curves.true_positives[i])}/{r}; "
                   "R(r) = TP(r)/R_q; F(r) = 2·P·R/(P + R). The amber row is rank r; "
                   f"'{'✓'}' marks the top K = {cutoff}.")
        first = max(0, min(i - 3, length - 7))
        window = query_table(judged, query, threshold, first, first + 7, curves)
        show_ranked_list(with_cutoff(window, cutoff), height=38 + 35 * len(window), current=r)
        show_query_figure(judged, query, curves, threshold, cutoff, strip, current=r,
                          address=address)

    step()
    return True
