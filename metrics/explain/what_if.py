""""What if" edits of one query's ranking, for teaching: change an item's grade, or move an item
to another rank, and see every measure follow.

An edit names the item by its rank in the list as it stands when the edit is applied, so a list
of edits is applied in order:

* ``g<rank>:<grade>`` — the item at ``rank`` is judged ``grade`` (0 not relevant; an unjudged
  item becomes judged). The ground truth changes with it: R_q counts the item at its new grade.
* ``m<rank>:<to>`` — the item at ``rank`` moves to rank ``to``; the items between shift by one.

Written as one comma-separated text (``g3:1,m5:2``, numbers in the digits 0-9), the form of
the dashboard's link.

:func:`apply_edits` returns the edited query as a one-query :class:`JudgedRanking`, which the
registry's measures, the curves and the worked examples read as they read any other; nothing
here computes a measure. The edited list is one ordering: where the original had tied scores its
tie groups are dropped (under the ``expected`` policy the listed order is used) and its scores
are not shown (after a move they no longer decrease).
"""

from __future__ import annotations

import re
from dataclasses import dataclass, replace

import numpy as np

from metrics.data.judged import JudgedRanking, TieReport
from metrics.data.ties import TiePolicy
from metrics.data.truth import GradeCounts
from metrics.errors import InputError
from metrics.evaluation.evaluate import evaluate

GRADE, MOVE = "g", "m"
_EDIT = re.compile(r"([gm])([0-9]+):([0-9]+)")   # not \d: it, and int(), take ３ and ٣ too
MAX_DIGITS = 18   # a longer rank is in no list (int() refuses more than 4,300 digits)
LARGEST_GRADE = 2 ** 31 - 1   # a grade typed into a link: far beyond any scale, still exact
MAX_EDITS = 200               # a link holds a prepared example, not a second ranking


@dataclass(frozen=True)
class Edit:
    """One edit: ``kind`` GRADE (the item at ``rank`` gets grade ``value``) or MOVE (the item at
    ``rank`` moves to rank ``value``)."""

    kind: str
    rank: int
    value: int

    def __str__(self) -> str:
        return f"{self.kind}{self.rank}:{self.value}"

    def describe(self) -> str:
        """The edit in words: "rank 3 judged grade 1", "rank 8 moved to rank 5"."""
        if self.kind == GRADE:
            return f"rank {self.rank} judged grade {self.value}"
        return f"rank {self.rank} moved to rank {self.value}"


def parse_edits(text: str) -> list[Edit]:
    """Edits written as ``g3:1,m5:2`` (see the module docstring); an InputError names the edit
    that cannot be read and what to write instead."""
    edits = []
    parts = [p.strip() for p in text.split(",")] if text.strip() else []
    if len(parts) > MAX_EDITS:
        raise InputError(f"{len(parts)} edits: at most {MAX_EDITS} can be applied at once")
    for i, part in enumerate(parts, 1):
        found = _EDIT.fullmatch(part)
        where = f"edit {i}, {part[:40] + '…' if len(part) > 40 else part!r}"
        if not found:
            raise InputError(f"{where}, is not g<rank>:<grade> (judge the item at that rank) or "
                             f"m<rank>:<rank> (move it) in the digits 0-9, e.g. g3:1 or m5:2")
        kind, rank_digits, value_digits = found.groups()
        if kind == GRADE and (len(value_digits) > MAX_DIGITS or int(value_digits) > LARGEST_GRADE):
            grade = (f"grade {value_digits}" if len(value_digits) <= MAX_DIGITS else
                     f"a grade of {len(value_digits):,} digits")
            raise InputError(f"{where}: {grade} is above {LARGEST_GRADE}")
        if max(len(rank_digits), len(value_digits)) > MAX_DIGITS:
            raise InputError(f"{where}: a rank of more than {MAX_DIGITS} digits is in no list")
        edits.append(Edit(kind, int(rank_digits), int(value_digits)))
    return edits


def edits_text(edits: list[Edit]) -> str:
    """The edits in the form :func:`parse_edits` reads."""
    return ",".join(str(e) for e in edits)


class EditedLists:
    """The edited query's item ids in its new order, for display (scores are not shown: after a
    move they no longer decrease). The original ids are read once, on first display."""

    def __init__(self, original: JudgedRanking, order: np.ndarray):
        self._original, self._order, self._ids = original, order, None

    def ranked_list(self, query: int, first: int = 0,
                    stop: int | None = None) -> tuple[np.ndarray, None]:
        if self._ids is None:
            self._ids = self._original.ranked_list(0)[0]
        return self._ids[self._order[first:stop]], None


def _check(edit: Edit, i: int, length: int) -> None:
    where = f"edit {i}, {str(edit)!r}"
    if not 1 <= edit.rank <= length:
        raise InputError(f"{where}: rank {edit.rank} is not in the list, which has ranks 1 to "
                         f"{length}")
    if edit.kind == MOVE and not 1 <= edit.value <= length:
        raise InputError(f"{where}: it moves the item to rank {edit.value}, but the list has "
                         f"ranks 1 to {length}")


def apply_edits(judged: JudgedRanking, query: int, edits: list[Edit]) -> JudgedRanking:
    """Query ``query`` of ``judged`` as a one-query judged ranking with ``edits`` applied in
    order (no edit: the query as it is). An InputError names an edit whose rank is not in the
    list."""
    return _edited(judged.subset(np.array([query])), edits)


def _edited(one: JudgedRanking, edits: list[Edit]) -> JudgedRanking:
    """A one-query judged ranking with ``edits`` applied (:func:`apply_edits`)."""
    if not edits:
        return one
    length = int(one.lengths[0])
    grades, is_judged = one.dense_grades(0)
    order = np.arange(length)          # the original position of the item now at each rank
    counts = dict(zip(one.truth_grades.grade.tolist(), one.truth_grades.count.tolist()))
    for i, edit in enumerate(edits, 1):
        _check(edit, i, length)
        at = edit.rank - 1
        if edit.kind == GRADE:
            if is_judged[at]:          # the item leaves its old grade in the ground truth
                counts[int(grades[at])] -= 1
            counts[edit.value] = counts.get(edit.value, 0) + 1
            grades[at], is_judged[at] = edit.value, True
        else:
            to = edit.value - 1
            for values in (order, grades, is_judged):
                moved = values[at]
                values[:] = np.insert(np.delete(values, at), to, moved)
    ranks = np.flatnonzero(is_judged) + 1
    kept = sorted((g, c) for g, c in counts.items() if c > 0)
    truth = GradeCounts(np.zeros(len(kept), dtype=np.int64),
                        np.array([g for g, _ in kept], dtype=np.int64),
                        np.array([c for _, c in kept], dtype=np.int64), 1)
    return replace(one, offsets=np.array([0, len(ranks)], dtype=np.int64), hit_ranks=ranks,
                   hit_grades=grades[ranks - 1], truth_grades=truth, hit_tie_first=None,
                   hit_tie_size=None, ties=TieReport(), query_rows=None,
                   lists=EditedLists(one, order),
                   tie_policy=(TiePolicy.STABLE if one.tie_policy is TiePolicy.EXPECTED
                               else one.tie_policy))


@dataclass(frozen=True)
class WhatIf:
    """One query before and after the edits: both as one-query judged rankings, and each
    measure's value on each (NaN where undefined)."""

    original: JudgedRanking
    edited: JudgedRanking
    before: dict[str, float]
    after: dict[str, float]

    def change(self, measure: str) -> float:
        """The edited value minus the original (NaN where either is undefined)."""
        return self.after[measure] - self.before[measure]


def what_if(judged: JudgedRanking, query: int, edits: list[Edit], measures) -> WhatIf:
    """The values of ``measures`` (a list or a comma-separated text, as :func:`evaluate` reads)
    for query ``query`` before and after ``edits``, both computed by the registry on the same
    terms: the original under the edited list's tie policy, so that no edit changes nothing."""
    original = judged.subset(np.array([query]))   # the query alone, taken out once
    edited = _edited(original, edits)
    if edits and original.tie_policy is not edited.tie_policy:
        original = replace(original, tie_policy=edited.tie_policy)
    before, after = (evaluate(j, measures).results for j in (original, edited))
    return WhatIf(original, edited, {m: float(r.values[0]) for m, r in before.items()},
                  {m: float(r.values[0]) for m, r in after.items()})
