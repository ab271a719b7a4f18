"""Gains given per grade, as trec_eval 10 takes them (``-m ndcg.1=3,2=9,4=4.5``): each grade's
gain and the ideal ranking they make, by trec_eval's own rules (gain_init.c and the ideal loop
of m_ndcg.c), read by nDCG's ``gains`` parameter.

trec_eval lists a gain for every grade from 0 to the query's highest (the grade itself unless
one is given), the given ones first, and sorts the list with ``qsort`` by a comparison that
truncates the difference of two gains to a whole number: gains less than 1 apart compare
equal, and their order is then the one glibc's merge sort leaves them in (stable), which
:func:`trec_sorted` repeats. The ideal ranking takes the grades from the end of that list, each
as many times as the query has items of it, and stops at the first grade it has items of whose
gain is not positive (or at once, when the last entry's gain is not positive).
"""

from __future__ import annotations

from functools import lru_cache

import numpy as np


def trec_sorted(entries: list[tuple[int, float]]) -> list[tuple[int, float]]:
    """``entries`` (grade, gain) in the order glibc's qsort (a top-down merge sort, the first
    half ``n // 2``, the left entry taken on a tie) leaves them under trec_eval's comparison
    ``(int) (gain1 - gain2)``."""
    if len(entries) < 2:
        return list(entries)
    half = len(entries) // 2
    left, right = trec_sorted(entries[:half]), trec_sorted(entries[half:])
    merged = []
    while left and right:
        merged.append(left.pop(0) if int(left[0][1] - right[0][1]) <= 0 else right.pop(0))
    return merged + left + right


@lru_cache(maxsize=256)
def gain_order(gains: tuple, highest: int) -> tuple[tuple[int, float], ...]:
    """trec_eval's sorted gain list of a query whose highest grade is ``highest``: the given
    (grade, gain) pairs, then each grade 0..highest not given with its grade as gain."""
    given = {grade for grade, _ in gains}
    entries = [(int(g), float(v)) for g, v in gains]
    entries += [(grade, float(grade)) for grade in range(highest + 1) if grade not in given]
    return tuple(trec_sorted(entries))


def hit_gains(j, gains: tuple) -> np.ndarray:
    """Each hit's gain: the gain given for its grade, else the grade; 0 for a negative grade
    (pooled, not judged: trec_eval's level -2, which no gain given here names)."""
    table = dict(gains)
    grades = j.hit_grades
    out = np.clip(grades, 0, None).astype(np.float64)
    for grade, gain in table.items():
        out[grades == grade] = gain
    return out


def ideal_gains(j, gains: tuple) -> tuple[np.ndarray, np.ndarray]:
    """The ideal ranking under ``gains``, as (query, gain) per place, each query's places in
    order. A Python step per query of the ground truth (over its few grades), none per item."""
    counts = j.truth_grades
    judged = counts.grade >= 0
    order = np.lexsort((counts.grade[judged], counts.query[judged]))
    query, grade, count = (counts.query[judged][order], counts.grade[judged][order],
                           counts.count[judged][order])
    highest = np.full(j.num_queries, -1, dtype=np.int64)
    np.maximum.at(highest, query, grade)
    out_query, out_gain = [], []
    first = np.searchsorted(query, np.arange(j.num_queries + 1))
    for q in np.flatnonzero(highest >= 0):
        have = dict(zip(grade[first[q]:first[q + 1]].tolist(),
                        count[first[q]:first[q + 1]].tolist()))
        order = gain_order(tuple(gains), int(highest[q]))
        if order[-1][1] <= 0:
            continue
        for level, gain in reversed(order):
            n = have.get(level, 0)
            if n == 0:
                continue
            if gain <= 0:
                break
            out_query.append(np.full(n, q, dtype=np.int64))
            out_gain.append(np.full(n, gain))
    if not out_query:
        return np.zeros(0, dtype=np.int64), np.zeros(0)
    return np.concatenate(out_query), np.concatenate(out_gain)

