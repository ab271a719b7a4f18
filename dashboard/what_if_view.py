"""The teaching mode's "what if": the lecturer edits the query's ranking (an item's relevance or
grade, its rank) and every number of the page follows, with the change from the original.

The edits are a setting (``whatif_edits``, in the form :func:`metrics.explain.what_if.parse_edits`
reads) and part of the page's link (``edits=``), so a prepared example opens with one link. They
belong to one system's query (``whatif_for``); another query or system starts unedited. The
edited query and its values are the engine's (:mod:`metrics.explain.what_if`)."""

from __future__ import annotations

import math

import pandas as pd
import streamlit as st

from dashboard.safe import md
from dashboard.settings import (TEACH_RANK, WHATIF_EDITS as EDITS, WHATIF_FOR as EDITED_FOR,
                                WHATIF_LINK_QUERY as LINK_QUERY)
from metrics import InputError
from metrics.data.judged import JudgedRanking
from metrics.data.relevance import Relevance
from metrics.evaluation.cells import fixed
from metrics.explain.what_if import (GRADE, MOVE, Edit, WhatIf, edits_text, parse_edits,
                                     what_if)


def _edits() -> list[Edit]:
    return parse_edits(st.session_state.get(EDITS) or "")


def edited_query(judged: JudgedRanking, query: int, system: str, measures) -> WhatIf | None:
    """The query with the session's edits applied and the measures' values before and after, or
    None when it has no edit. Edits made for another system's or query's list are dropped; a link's
    edit that cannot be read or applied is noted (what is wrong, and that the list is shown
    unedited), never a traceback."""
    state = st.session_state
    shown = str(judged.query_ids[query])
    owner = f"{system}\x1f{shown}"
    if state.get(EDITED_FOR) is None:        # a link's edits: for the query the link names
        state[EDITED_FOR] = owner
        made_on = state.pop(LINK_QUERY, None)
        if state.get(EDITS) and made_on is not None and made_on != shown:
            st.warning(md(f"The link's what-if edits {state[EDITS]!r} were made on query "
                          f"{made_on!r}, which is not shown, so they are dropped: query "
                          f"{shown!r} is shown as it is."))
            state[EDITS] = ""
    elif state[EDITED_FOR] != owner:
        state[EDITS], state[EDITED_FOR] = "", owner
    if not state.get(EDITS):
        return None
    try:
        return what_if(judged, query, _edits(), measures)
    except InputError as exc:
        st.warning(md(f"The what-if edits {state[EDITS]!r} cannot be applied, so the list is "
                      f"shown as it is: {exc}"))
        state[EDITS] = ""
        return None


def _add(edit: Edit, follow: int | None = None) -> None:
    """Callback: one more edit; ``follow``: the rank r moves with the item moved. The whole page
    reruns (the stepper's flag), so that everything below the stepper follows too."""
    state = st.session_state
    state[EDITS] = edits_text(_edits() + [edit])
    if follow is not None:
        state[TEACH_RANK] = follow
    state["_teach_toggled"] = True


def _reset() -> None:
    st.session_state[EDITS] = ""
    st.session_state["_teach_toggled"] = True


def what_if_controls(judged: JudgedRanking, r: int, relevance: Relevance) -> None:
    """The edits of the item at rank ``r``: its relevance toggled (to grade 0, or to the lowest
    grade ``relevance`` counts relevant) or a grade typed, a step up or down, or a typed rank;
    and one button back to the original list.
    ``judged``: the query as shown (edited), query 0. Drawn in the teaching mode's stepper, so
    that every control names and edits the rank shown: the boxes are set again whenever r or
    the edits change, so they open at the item's own rank and grade, never at another rank's."""
    length = int(judged.lengths[0])
    grades, _ = judged.dense_grades(0)
    relevant = relevance.relevant(grades[r - 1])
    state = st.session_state
    made = state.get(EDITS) or ""
    # the boxes open at the item's own values; a box's state is gone after a page that did not
    # draw it (Streamlit drops it), so it is set again then too
    if state.get("_whatif_boxes_at") != (r, made) or "whatif_to" not in state \
            or "whatif_grade" not in state:
        # a negative grade (judged non-relevant below 0) opens the box at 0, its least
        state["whatif_to"], state["whatif_grade"] = r, max(int(grades[r - 1]), 0)
        state["_whatif_boxes_at"] = (r, made)
    with st.container(horizontal=True, vertical_alignment="bottom", gap="small"):
        st.markdown("**What if**", width="content",
                    help="edit the ranking at rank r: every number and the figure follow, with "
                         "their change from the original list; the edits are part of the "
                         "page's link")
        st.button(f"Make rank {r} {'not relevant' if relevant else 'relevant'}",
                  key="whatif_toggle", on_click=_add,
                  args=(Edit(GRADE, r, 0 if relevant else relevance.threshold),),
                  help="changes the item's judgement: R_q changes with it")
        st.button("↑ Up", key="whatif_up", disabled=r == 1, on_click=_add,
                  args=(Edit(MOVE, r, max(r - 1, 1)), max(r - 1, 1)),
                  help=f"moves the item at rank {r} one rank up; r follows it")
        st.button("↓ Down", key="whatif_down", disabled=r == length, on_click=_add,
                  args=(Edit(MOVE, r, min(r + 1, length)), min(r + 1, length)),
                  help=f"moves the item at rank {r} one rank down; r follows it")
        # on the buttons' line, short: a line of its own pushed the rank strip of a projector
        # (1024 × 768, sidebar open) below the fold
        st.button("↺ Original", key="whatif_reset", on_click=_reset, disabled=not made,
                  type="primary", help="back to the original list: drops every edit")
        # each box with its button, wrapping together on a narrow screen: a "Move" alone at
        # the start of the next line, far from its box, did not say what it moves
        with st.container(horizontal=True, vertical_alignment="bottom", width="content",
                          gap="small"):
            to = st.number_input("Move to rank", min_value=1, max_value=length, step=1,
                                 key="whatif_to", width=140)
            st.button("Move", key="whatif_move", on_click=_add,
                      args=(Edit(MOVE, r, int(to)), int(to)))
        # binary data too: a grade of 2 shows what graded gains do to nDCG
        with st.container(horizontal=True, vertical_alignment="bottom", width="content",
                          gap="small"):
            grade = st.number_input("Grade", min_value=0,
                                    max_value=max(judged.max_grade, 2, int(grades[r - 1])),
                                    step=1, key="whatif_grade", width=120)
            st.button("Set grade", key="whatif_set_grade", on_click=_add,
                      args=(Edit(GRADE, r, int(grade)),))


def signed(x: float, whole: bool = False, minus: str = "−") -> str:
    """A change as the page prints it: +0.083, −0.125 (``whole``: +1, −2), 0, or "—" where
    undefined. ``minus``: "-" for st.metric, which reads only that as a fall."""
    if not math.isfinite(x):
        return "—"
    if x == 0:
        return "0"
    return ("+" if x > 0 else minus) + (f"{abs(x):g}" if whole else fixed(abs(x), 3))


def show_changes(result: WhatIf, headline: str) -> None:
    """What the edits changed: the edits in words, the change of ``headline`` (ΔAP = +0.083)
    and a table of every measure before and after."""
    edits = _edits()
    st.markdown(f"**What if:** {md('; '.join(e.describe() for e in edits))}. "
                + change_headline(headline, result.before, result.after))
    show_change_table(result.before, result.after)


def change_headline(headline: str, before: dict[str, float], after: dict[str, float]) -> str:
    """The change of one measure as Markdown, "**ΔAP = +0.083** (0.250 → 0.333)"; empty when
    ``after`` lacks it."""
    if headline not in after:
        return ""
    return (f"**Δ{md(headline)} = {signed(after[headline] - before[headline])}** "
            f"({fixed(before[headline], 3)} → {fixed(after[headline], 3)})")


def show_change_table(before: dict[str, float], after: dict[str, float],
                      columns: tuple[str, str] = ("original", "edited")) -> None:
    """Every measure of ``after`` with its value in ``before``, in ``after`` and the change;
    ``columns`` names the two values' columns."""
    was, now = columns
    table = pd.DataFrame({
        "measure": list(after),
        was: [before[m] for m in after],
        now: list(after.values()),
        "change": [signed(after[m] - before[m]) for m in after]})
    st.dataframe(table, hide_index=True, width="stretch", placeholder="undefined",
                 column_config={c: st.column_config.NumberColumn(format="%.4f")
                                for c in columns})
