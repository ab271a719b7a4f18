"""Skewed random runs (one list a thousand times longer than the rest) and the brute-force check
over their dense lists, shared by the ragged engine's tests and the per-family measure tests.

Not a test module: the tests import it (``from skewed_runs import skewed``)."""

from __future__ import annotations

import math
from collections.abc import Callable
from dataclasses import dataclass

import numpy as np
import pytest

from metrics import GroundTruth, Run, evaluate, judge

LONG = 5000   # the long list; the others hold 1..5 items


def skewed(seed: int, n_queries: int = 40):
    """{query: {item: score}} and {query: {item: grade}}: grades -1..3 (negative: pooled but not
    judged), scores rounded so that ties occur, one list of LONG items with relevant items deep
    in it, some truth queries without a list and some without a relevant item."""
    rng = np.random.default_rng(seed)
    run, qrels = {}, {}
    for qi in range(n_queries):
        query = f"q{qi}"
        length = LONG if qi == 3 else int(rng.integers(1, 6))
        items = [f"d{i}" for i in rng.choice(3 * LONG, length, replace=False)]
        judged = list(rng.choice(items, min(length, int(rng.integers(1, 8))), replace=False))
        judged += [f"u{qi}_{i}" for i in range(int(rng.integers(0, 3)))]   # never retrieved
        grades = rng.integers(-1, 4, len(judged))
        if qi == 3:   # relevant items deep in the long list
            judged += items[-3:]
            grades = np.r_[grades, [2, 1, 3]]
        qrels[query] = {d: int(g) for d, g in zip(judged, grades)}
        if qi % 9 == 8:
            continue   # a truth query the run lacks
        scores = np.round(rng.uniform(0, 1, length), 2 if qi % 2 else 6)
        run[query] = {d: float(s) for d, s in zip(items, scores)}
    return run, qrels


def ranked(seed: int, ties: str):
    """``skewed(seed)`` and its judged ranking under the tie policy ``ties``."""
    run, qrels = skewed(seed)
    return run, qrels, judge(Run.from_dict(run), GroundTruth.from_dict(qrels), ties=ties)


def trec_order(items: dict[str, float]) -> list[str]:
    """trec_eval 9's ranking: score as float32 descending, ties by item id descending."""
    return sorted(items, key=lambda d: (-float(np.float32(items[d])), [-ord(c) for c in d] + [0]))


def dense_lists(run, qrels):
    """query -> grades down the list (None for unjudged)."""
    return {q: [qrels[q].get(d) for d in trec_order(run.get(q, {}))] for q in qrels}


def relevant_count(qrels, query, rel=1):
    return sum(g >= rel for g in qrels[query].values())


# ---- brute force over dense lists ---------------------------------------------------------------

@dataclass(frozen=True)
class DenseQuery:
    """One query as a brute-force reference reads it: its grades down the whole list (None for
    unjudged), R_q, how many items of each grade its ground truth holds, the highest grade of the
    whole ground truth and the cutoff k (None: the whole list)."""

    grades: list
    r_q: int
    grade_counts: dict[int, int]
    gmax: int
    k: int | None

    @property
    def top(self) -> list:
        """The grades of the first k ranks."""
        return self.grades if self.k is None else self.grades[:self.k]

    @property
    def ranks(self) -> list[int]:
        """The ranks of the relevant items (grade >= 1) within the first k."""
        return [i + 1 for i, g in enumerate(self.top) if g is not None and g >= 1]

    @property
    def nonrelevant_above(self) -> list[int]:
        """For each relevant rank within k, the judged non-relevant items (0 <= grade < 1) above
        it: bpref's n_r."""
        return [sum(1 for g in self.top[:r - 1] if g is not None and 0 <= g < 1)
                for r in self.ranks]

    @property
    def gains(self) -> list[int]:
        """The grades of the first k ranks, unjudged and negative read as 0."""
        return [max(g or 0, 0) for g in self.top]


# every check runs on two seeds, without a cutoff and at two cutoffs
SEEDS_AND_CUTOFFS = pytest.mark.parametrize("seed,k", [(seed, k) for seed in range(2)
                                                       for k in (None, 3, 10)])


def assert_agrees_with_brute_force(measure: str, reference: Callable[[DenseQuery], float],
                                   seed: int, k: int | None) -> None:
    """``measure`` (with @k unless k is None) on the skewed run of ``seed``, ranked as trec_eval
    ranks, equals ``reference`` on every query with a relevant item: both NaN, or equal to
    rel 1e-9 (abs 1e-12); at least 15 queries are compared."""
    run, qrels, judged = ranked(seed, "trec")
    gmax = max(g for judged_items in qrels.values() for g in judged_items.values())
    name = measure if k is None else f"{measure}@{k}"
    values = evaluate(judged, name).results[name].values
    lists = dense_lists(run, qrels)
    checked = 0
    for i, query in enumerate(judged.query_ids):
        grades = list(qrels[query].values())
        r_q = sum(g >= 1 for g in grades)
        if not r_q:
            continue
        counts = {g: grades.count(g) for g in set(grades)}
        want = reference(DenseQuery(lists[query], r_q, counts, gmax, k))
        got = values[i]
        assert (math.isnan(got) and math.isnan(want)) or got == pytest.approx(
            want, rel=1e-9, abs=1e-12), (query, name)
        checked += 1
    assert checked >= 15
