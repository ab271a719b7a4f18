"""The Query explorer's figures of one query and its teaching mode, which steps through the
ranking rank by rank (a rank r control with play/pause; row r, the PR curve's marker, χ(r),
P(r), R(r), F(r) and the confusion matrix follow r)."""

from __future__ import annotations

from collections.abc import Callable

import numpy as np
import pandas as pd
import streamlit as st

from charts import Confusion, PRCurve, StripRow, query_figure
from charts.query_figure import PR_MARKERS
from dashboard.chart_in_place import show_chart
from dashboard.permalink import check_link_value
from dashboard.settings import TEACH_RANK
from dashboard.tables import show_ranked_list, with_cutoff
from dashboard.what_if_view import signed
from dashboard.widgets import bound
from metrics.evaluation.cells import fixed
from metrics.evaluation.curves import (RankCurves, drawn_ranks, exact_interpolated_precision,
                                       interpolated_precision)
from metrics.explain.described import TITLE, beside_ids
from metrics.explain.summaries import confusion_at, query_table
from metrics.data.judged import JudgedRanking

FIT_PRECISION = "explorer_pr_fit"   # the explorer's switch: the precision axis fits the data
STEP_SECONDS = 1.0   # one rank per second while playing: time to read the numbers
COUNTS = ("χ(r)", "TP(r)")   # the row's numbers that are counts, printed whole


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
                      address: str | None = None, compact: bool = False) -> None:
    """The query's one figure (:func:`charts.query_figure`): its rank strip (``strip``: a row
    per system, this one first), PR curve and confusion matrix, the matrix at rank r in the
    teaching mode and at K otherwise, with the captions that explain them. The chart puts
    ``address`` (the page's permalink) in the address bar."""
    at, name = (current, "r") if current is not None else (cutoff, "K")
    curve, caption = pr_curve(judged, query, curves, threshold, cutoff, current)
    figure = query_figure(strip, curve, Confusion(*confusion_at(judged, query, at, threshold),
                                                  k=at, name=name),
                          query=str(judged.query_ids[query]), cutoff=cutoff, current=current,
                          compact=compact,
                          fit_precision=bool(st.session_state.get(FIT_PRECISION)))
    show_chart(figure, key="query_figure", address=address)
    st.caption(caption + f"The confusion matrix counts the top {name} items as retrieved"
               + (" (rank r steps through the list)." if current is not None else
                  ": change **Cutoff K** above."))


def _set_playing(length: int, playing: bool) -> None:
    """Play/pause callback. It runs before the fragment, which must then not take a step (the
    run is the click's, not the timer's) and must rerun the page to start or stop the timer.
    It sets the state the button offered rather than toggling it: a click handled twice (the
    timer's runs and the click's can meet) leaves the same state, never pause-then-play."""
    if playing and st.session_state[TEACH_RANK] >= length:
        st.session_state[TEACH_RANK] = 1      # play again from the top
    st.session_state["teach_playing"] = playing
    st.session_state["_teach_toggled"] = True


def _step(length: int, by: int) -> None:
    """Step-button callback: rank r one rank back or on, within the list."""
    st.session_state[TEACH_RANK] = min(max(int(st.session_state[TEACH_RANK]) + by, 1),
                                         length)


def _row_numbers(curves: RankCurves, i: int) -> list[tuple[str, float]]:
    """Row r = i + 1 of the FMP table: χ(r), TP(r), P(r), R(r), F(r)."""
    return [("χ(r)", curves.chi[i]), ("TP(r)", curves.true_positives[i]),
            ("P(r)", curves.precision[i]), ("R(r)", curves.recall[i]), ("F(r)", curves.f[i])]


def _printed(name: str, value: float) -> str:
    """A number of the row as the stepper prints it: counts whole, rates to 3 decimals."""
    if np.isnan(value):
        return "—"
    return f"{int(value)}" if name in COUNTS else fixed(value, 3)


def _change(name: str, before: float, after: float) -> str | None:
    """The change of a number of the row from the original list to the edited one (+0.250),
    None when there is none."""
    if np.isnan(before) and np.isnan(after) or before == after:
        return None
    if np.isnan(before) or np.isnan(after):
        return f"was {_printed(name, before)}"
    return signed(after - before, whole=name in COUNTS, minus="-")


TEACHING_BLOCK = "teaching_block"   # the teaching mode's container (st-key-teaching_block)
WINDOW_ROWS = 5   # the rows of the list around rank r that the teaching mode shows
WINDOW_LEAVES = ("score", "tied ranks")   # columns of the list the rows around r leave out


def teaching_stepper(judged: JudgedRanking, query: int, curves: RankCurves, threshold: int,
                     cutoff: int, strip: list[StripRow],
                     address: Callable[[], str] | None = None,
                     original: RankCurves | None = None,
                     edit_controls: Callable[[int], None] | None = None,
                     items: pd.DataFrame | None = None) -> bool:
    """Step through one query's ranking (``strip``: the rows of its rank strip, this system's
    first). A fragment: a step reruns this part of the page only, once a second while
    playing; so everything that depends on r is drawn in it, the "what if" controls of the item
    at r too (``edit_controls(r)``), never left showing another rank. ``original``: the
    unedited list's curves, when ``curves`` are of a "what if" edit of it (each number then
    shows its change). ``items``: the item table, whose titles the rows around r show. Returns
    whether it showed the query's figure, which puts ``address()`` (the page's link, made at
    each step: it holds r) in the address bar (an empty list has neither).

    On a projector (1024 × 768, the sidebar open) the stepper, the edits, the numbers at r, the
    rows around r and the rank strip share one screen from the stepper down: the window of the
    list comes before the figure, whose PR curve and matrix follow below."""
    length = len(curves.chi)
    if length == 0:
        st.info("This query's list is empty: there is nothing to step through.")
        return False
    st.session_state.setdefault(TEACH_RANK, 1)
    check_link_value(TEACH_RANK, int(st.session_state[TEACH_RANK]) <= length,
                     f"this list has {length:,} ranks, so r = {length:,} is shown")
    st.session_state[TEACH_RANK] = min(max(int(st.session_state[TEACH_RANK]), 1), length)
    playing = bool(st.session_state.get("teach_playing"))

    @st.fragment(run_every=STEP_SECONDS if playing else None)
    def step() -> None:
        if st.session_state.pop("_teach_toggled", False):
            st.rerun()   # the whole page: the fragment's timer starts or stops
        if st.session_state.get("teach_playing"):
            if st.session_state[TEACH_RANK] >= length:   # the end: stop the timer
                st.session_state["teach_playing"] = False
                st.rerun()
            st.session_state[TEACH_RANK] += 1
        # "Rank r" on the controls' line, not above the box: a line above it would push the
        # rank strip past the bottom of a projector
        with st.container(horizontal=True, vertical_alignment="center"):
            st.markdown("**Rank r**", width="content",
                        help="the rank the teaching mode is at; ▶ steps through the list, one "
                             "rank a second")
            bound(st.number_input, "Rank r", TEACH_RANK, "teach_rank_box", min_value=1,
                  max_value=length, step=1, width=150, label_visibility="collapsed")
            r = int(st.session_state[TEACH_RANK])
            st.button("← r − 1", key="teach_back", disabled=r <= 1, on_click=_step,
                      args=(length, -1), help="one rank back")
            playing_now = bool(st.session_state.get("teach_playing"))
            st.button("⏸ Pause" if playing_now else "▶ Play", key="teach_play",
                      on_click=_set_playing, args=(length, not playing_now))
            st.button("r + 1 →", key="teach_next", disabled=r >= length, on_click=_step,
                      args=(length, 1), help="one rank on")
        if edit_controls is not None:
            edit_controls(r)
        i = r - 1
        values = _row_numbers(curves, i)
        before = _row_numbers(original, i) if original is not None else None
        for j, (column, (name, value)) in enumerate(zip(st.columns(len(values)), values)):
            change = _change(name, before[j][1], value) if before is not None else None
            column.metric(f"{name}, r = {r}", _printed(name, value), delta=change)
        first = max(0, min(i - WINDOW_ROWS // 2, length - WINDOW_ROWS))
        window = query_table(judged, query, threshold, first, first + WINDOW_ROWS, curves)
        # narrow enough for a projector with the sidebar open: each item's title, and not the
        # scores and tie groups, which the full list below shows
        window = beside_ids(window.drop(columns=[c for c in WINDOW_LEAVES if c in window]),
                            "item", items, [TITLE])
        # χ as the rows' colour only (χ(r) is among the numbers above)
        show_ranked_list(with_cutoff(window, cutoff), height=38 + 35 * len(window), current=r,
                         column_config={"χ": None})
        show_query_figure(judged, query, curves, threshold, cutoff, strip, current=r,
                          address=address() if address else None, compact=True)
        st.caption(f"P(r) = TP(r)/r = {int(curves.true_positives[i])}/{r}; "
                   "R(r) = TP(r)/R_q; F(r) = 2·P·R/(P + R). The amber row is rank r; "
                   f"'{'✓'}' marks the top K = {cutoff}.")

    with st.container(key=TEACHING_BLOCK):
        step()
    return True
