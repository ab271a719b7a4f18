"""What the dashboard shows about a dataset and one query, as plain tables and numbers."""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from metrics.evaluation.curves import RankCurves, rank_curves
from metrics.data.judged import JudgedRanking
from metrics.data.relevance import Relevance
from metrics.measures.confusion import counts


def dataset_summary(judged: JudgedRanking, threshold: int = 1) -> dict[str, object]:
    """Counts a validation summary shows: queries, retrieved items, relevant items, one-sided
    queries, unjudged retrieved items and score ties."""
    r_q = judged.num_relevant(threshold)
    retrieved = int(judged.lengths.sum())
    relevance = Relevance(threshold)
    unjudged = (0 if judged.unlisted_judged
                else retrieved - int(relevance.judged(judged.hit_grades).sum()))
    return {
        "ground-truth queries": judged.num_queries,
        "queries with no relevant item": int((r_q == 0).sum()),
        "ground-truth queries missing from the run": int((judged.lengths == 0).sum()),
        "run queries missing from the ground truth": judged.run_only_queries,
        "retrieved items": retrieved,
        "list length (min / median / max)": (
            f"{int(judged.lengths.min())} / {float(np.median(judged.lengths)):g} / "
            f"{int(judged.lengths.max())}" if judged.num_queries else "-"),
        "relevant items in the ground truth": int(r_q.sum()),
        "relevant items per query (mean)": round(float(r_q.mean()), 2) if len(r_q) else 0.0,
        "relevant items retrieved": int(relevance.relevant(judged.hit_grades).sum()),
        "unjudged items retrieved": unjudged,
        "highest grade": judged.max_grade,
        "collection size |D|": collection_size_text(judged),
        "score ties": judged.ties.describe(),
    }


def collection_size_text(judged: JudgedRanking) -> str:
    """|D| as the summary shows it: one number, the range of per-query sizes, or "unknown"."""
    sizes = judged.collection_sizes
    if sizes is None:
        return "unknown"
    if not len(sizes):
        return "-"
    low, high = int(sizes.min()), int(sizes.max())
    return str(low) if low == high else f"{low} to {high} (one per query)"


def query_table(judged: JudgedRanking, query: int, threshold: int = 1, first: int = 0,
                stop: int | None = None, curves: RankCurves | None = None) -> pd.DataFrame:
    """FMP's table for one query: rank, item, score, grade, χ(r), P(r), R(r), F(r), for the ranks
    ``first + 1`` to ``stop`` (by default the whole list): only those rows are built, so a page
    of a list of a million items costs a page. ``curves``: the query's :func:`rank_curves`, when
    already computed."""
    curves = rank_curves(judged, query, threshold) if curves is None else curves
    length = int(judged.lengths[query])
    stop = length if stop is None else min(stop, length)
    first = min(first, stop)
    at = slice(first, stop)
    hits = slice(judged.offsets[query], judged.offsets[query + 1])
    ranks, hit_grades = judged.hit_ranks[hits], judged.hit_grades[hits]
    on_page = (ranks > first) & (ranks <= stop)
    grades = pd.array(np.zeros(stop - first, dtype=np.int64), dtype="Int64")
    if not judged.unlisted_judged:
        grades[:] = pd.NA                                   # empty: unjudged
    grades[ranks[on_page] - 1 - first] = hit_grades[on_page]
    items, scores = judged.ranked_list(query, first, stop)
    n = stop - first
    table = pd.DataFrame({
        "rank": np.arange(first + 1, stop + 1),
        "item": items,
        "score": scores if scores is not None else np.full(n, np.nan),
        "grade": grades,
        "χ": curves.chi[at].astype(int),
        "P(r)": curves.precision[at],
        "R(r)": curves.recall[at],
        "F(r)": curves.f[at],
    })
    if scores is None or table["score"].isna().all():   # a bare ranked list or answer set
        table = table.drop(columns="score")
    elif n:
        shown = table["score"].to_numpy(float)
        groups = tie_groups_of_list(shown, first,
                                    _equal_run(judged, query, shown[0], first - 1, -1, length),
                                    _equal_run(judged, query, shown[-1], stop, 1, length))
        if groups.any() or judged.ties.tie_groups:   # the column stays on every page of the list
            table.insert(3, "tied ranks", groups)
    return table


def tie_groups_of_list(scores: np.ndarray, first: int = 0, before: int = 0,
                       after: int = 0) -> np.ndarray:
    """For a page of a ranked list's scores (0-based positions ``first`` on), each item's group of
    equal scores as "first–last" ranks of the whole list, "" for an item that ties with nothing
    (equal as shown; trec9 also ties scores equal as float32). ``before`` and ``after``: the items
    just outside the page that equal its first and its last score (a group crossing an edge)."""
    n = len(scores)
    if n == 0:
        return np.zeros(0, dtype=object)
    opens = np.r_[True, scores[1:] != scores[:-1]]
    starts = np.flatnonzero(opens)
    ends = np.r_[starts[1:], n]
    low, high = starts.copy(), ends.copy()
    low[0] -= before
    high[-1] += after
    sizes = ends - starts
    low, high = np.repeat(low, sizes) + first + 1, np.repeat(high, sizes) + first
    return np.where(high > low, [f"{a:,}–{b:,}" for a, b in zip(low, high)], "").astype(object)


def _equal_run(judged: JudgedRanking, query: int, value: float, start: int, step: int,
               length: int, window: int = 4096) -> int:
    """How many items from 0-based position ``start`` on, going by ``step`` (±1), score
    ``value``: read a window at a time, so a page's edge group costs its own size."""
    count, at = 0, start
    while 0 <= at < length:
        lo, hi = (at, min(at + window, length)) if step > 0 else (max(at - window + 1, 0), at + 1)
        part = np.asarray(judged.ranked_list(query, lo, hi)[1], dtype=float)
        part = part if step > 0 else part[::-1]
        differs = np.flatnonzero(part != value)
        if len(differs):
            return count + int(differs[0])
        count += len(part)
        at += step * len(part)
    return count


def confusion_at(judged: JudgedRanking, query: int, cutoff: int, threshold: int = 1):
    """(TP, FP, FN, TN or None) of one query when its top ``cutoff`` items are retrieved."""
    one = judged.subset(np.array([query]))
    tp, fp, fn, tn = counts(one, cutoff, threshold)
    return float(tp[0]), float(fp[0]), float(fn[0]), None if tn is None else float(tn[0])


def side_by_side(a: JudgedRanking, b: JudgedRanking, query_id: str,
                 threshold: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's two rankings, each with every item's rank in the other system (missing when
    the other did not retrieve it)."""
    tables = []
    for judged in (a, b):
        q = query_index(judged, query_id)
        tables.append(query_table(judged, q, threshold) if q is not None else
                      pd.DataFrame(columns=["rank", "item", "grade", "χ"]))
    for mine, other in ((tables[0], tables[1]), (tables[1], tables[0])):
        where = dict(zip(other["item"], other["rank"]))
        mine["rank in other"] = pd.array([where.get(i) for i in mine["item"]], dtype="Int64")
    keep = ["rank", "item", "grade", "χ", "rank in other"]
    return tables[0][keep], tables[1][keep]


@dataclass(frozen=True)
class FailureReport:
    """Why one query scores low: how many of its relevant items the list found and where the
    first one is, and the relevant items it missed (with their rank in another system's list,
    when one is given). With :func:`unjudged_in_top`, how much of its top K was never judged."""

    num_relevant: int
    found: int
    first_relevant: int | None        # rank of the first relevant item, None when none retrieved
    missed: pd.DataFrame              # item, grade[, rank in <other>]; empty when ids are unknown
    missed_ids_known: bool            # False when the ground truth has no item ids (answer sets)
    judged_nonrelevant: int = 0       # N: items judged, below the threshold (Bpref's N)
    # every relevant item: item, rank (empty: not retrieved), grade[, rank in <other>]; those of
    # the list by rank, then the missed ones as in ``missed``; empty when ids are unknown
    relevant: pd.DataFrame = field(default_factory=lambda: pd.DataFrame(
        columns=["item", "rank", "grade"]))

    @property
    def num_missed(self) -> int:
        """How many relevant items the list did not retrieve at all."""
        return self.num_relevant - self.found

    @property
    def fails(self) -> bool:
        """Whether the query fails: it has relevant items, and its list misses one of them or
        does not start with one (:data:`FAILS_MEANS` says it in words)."""
        return self.num_relevant > 0 and (self.num_missed > 0 or self.first_relevant != 1)

    def missed_at(self, cutoff: int) -> pd.DataFrame:
        """The relevant items a top ``cutoff`` misses: those ranked below it (by rank), then
        those not retrieved (highest grade first), as rows of :attr:`relevant`."""
        ranks = self.relevant["rank"]
        return self.relevant[ranks.isna() | (ranks > cutoff)].reset_index(drop=True)


FAILS_MEANS = ("A query fails when its list misses a relevant item or does not start with "
               "one.")


def query_index(judged: JudgedRanking, query_id: str) -> int | None:
    """The position of query ``query_id`` in ``judged`` (None when the system has no such
    query)."""
    rows = np.flatnonzero(judged.query_ids == query_id)
    return int(rows[0]) if len(rows) else None


def relevant_retrieved(judged: JudgedRanking, query: int,
                       threshold: int = 1) -> tuple[np.ndarray, np.ndarray]:
    """The ranks and grades of the relevant items query ``query``'s list retrieved, by rank."""
    at = slice(judged.offsets[query], judged.offsets[query + 1])
    ranks, grades = judged.hit_ranks[at], judged.hit_grades[at]
    keep = Relevance(threshold).relevant(grades)
    return ranks[keep], grades[keep]


def relevant_in_truth(judged: JudgedRanking, query: int,
                      threshold: int = 1) -> tuple[np.ndarray, np.ndarray] | None:
    """The ids and grades of query ``query``'s relevant items in the ground truth the ranking was
    judged against (None when that truth is not kept, as for answer sets)."""
    truth = judged.truth
    if truth is None:
        return None
    rows = np.flatnonzero(truth.query_ids == judged.query_ids[query])
    if not len(rows):
        return np.zeros(0, dtype=object), np.zeros(0, dtype=np.int64)
    pairs = np.flatnonzero((truth.pair_query == rows[0])
                           & Relevance(threshold).relevant(truth.pair_grade))
    return np.asarray(truth.pair_item[pairs], dtype=object), truth.pair_grade[pairs]


def ranks_in(judged: JudgedRanking, query_id: str, items: np.ndarray) -> np.ndarray:
    """The 1-based rank of each of ``items`` in ``judged``'s list for ``query_id``, 0 where the
    list does not hold it (or the system has no such query)."""
    q = query_index(judged, query_id)
    if q is None or not len(items):
        return np.zeros(len(items), dtype=np.int64)
    listed, _ = judged.ranked_list(q)
    where = pd.Index(np.asarray(listed, dtype=object)).get_indexer(np.asarray(items, dtype=object))
    return np.where(where >= 0, where + 1, 0).astype(np.int64)


def unjudged_in_top(judged: JudgedRanking, query: int, cutoff: int) -> tuple[int, int]:
    """(min(K, |A|), how many of those top items the ground truth never judged)."""
    top_k = min(int(cutoff), int(judged.lengths[query]))
    if judged.unlisted_judged:     # labels and taxonomies judge every item
        return top_k, 0
    ranks = judged.hit_ranks[judged.offsets[query]:judged.offsets[query + 1]]
    return top_k, top_k - int((ranks <= top_k).sum())


def failure_report(judged: JudgedRanking, query: int, threshold: int = 1,
                   other: JudgedRanking | None = None, other_name: str = "other") -> FailureReport:
    """What a person asks of a failing query, for one query: see :class:`FailureReport`. The
    missed items are listed by grade (highest first), then by id; the relevant items of the list
    by rank, at the grades ``judged`` gives them (a "what if" edit's grades included)."""
    relevant_ranks, relevant_grades = relevant_retrieved(judged, query, threshold)
    r_q = int(judged.num_relevant(threshold)[query])
    length = int(judged.lengths[query])
    truth = relevant_in_truth(judged, query, threshold)
    other_column = [f"rank in {other_name}"] if other is not None else []
    missed = pd.DataFrame(columns=["item", "grade"] + other_column)
    relevant = pd.DataFrame(columns=["item", "rank", "grade"] + other_column)
    if truth is not None and len(truth[0]):
        ids, truth_grades = truth
        listed, _ = judged.ranked_list(query) if length else (np.zeros(0, dtype=object), None)
        listed = np.asarray(listed, dtype=object)
        # missed: not in the list at all. A listed item the ground truth calls relevant is not
        # missed even when a "what if" edit judged it not relevant (metrics/explain/what_if.py):
        # the list holds it, and R_q no longer counts it
        lost = ~np.isin(ids, listed)
        ids, truth_grades = ids[lost], truth_grades[lost]
        order = np.lexsort((ids.astype(str), -truth_grades))
        relevant = pd.DataFrame({
            "item": np.concatenate([listed[relevant_ranks - 1], ids[order]]),
            "rank": pd.array(np.r_[relevant_ranks, np.zeros(len(ids), dtype=np.int64)],
                             dtype="Int64"),
            "grade": np.concatenate([relevant_grades, truth_grades[order]]).astype(np.int64)})
        relevant.loc[len(relevant_ranks):, "rank"] = pd.NA   # not retrieved
        if other is not None:
            other_ranks = ranks_in(other, str(judged.query_ids[query]), relevant["item"].to_numpy())
            relevant[other_column[0]] = pd.array(   # empty: the other did not retrieve it
                [int(r) if r > 0 else None for r in other_ranks], dtype="Int64")
        missed = relevant[relevant["rank"].isna()].drop(columns="rank").reset_index(drop=True)
    return FailureReport(r_q, len(relevant_ranks),
                         int(relevant_ranks[0]) if len(relevant_ranks) else None, missed,
                         truth is not None, int(judged.num_judged_nonrelevant(threshold)[query]),
                         relevant)
