"""The judged ranking: the one data model every measure and curve reads.

Its size follows the input, never queries × the longest list. Per query it holds

* the length of the returned list, |A| (``lengths``);
* every *judged* item the list retrieved, as its 1-based rank and its grade, in ragged arrays with
  offsets (CSR): query q's hits are ``hit_ranks[offsets[q]:offsets[q + 1]]``, ranks ascending;
* the ground truth's grade counts (:class:`~metrics.data.truth.GradeCounts`), so R_q counts
  relevant items that were not retrieved;
* when known, the size |D_q| of the collection the query was ranked against
  (``collection_sizes``): one number for a whole dataset, or one per query where each query has a
  collection of its own (FMP's two toy examples, of 10 and 8 documents).

Where items tie in score, each hit may also carry its *tie group* (``hit_tie_first``, the rank of
the group's first item, and ``hit_tie_size``, its number of items; None when no hit ties): the
tie-aware policies (:mod:`metrics.ranking.tie_aware`) read them.

Retrieved items that are not among the hits are unjudged — or, when ``unlisted_judged`` is set
(labels and taxonomies annotate the whole collection), judged not relevant. What a hit's grade
means — judged, relevant at a threshold — is :class:`~metrics.data.relevance.Relevance`'s to say
(a negative grade is trec_eval's "pooled but not judged": never relevant, and not a judged
non-relevant item for the bpref family either).

A dense view of one query's list (ids, scores, grades) is built on demand for display, from the
``lists`` the ranking came from (:class:`RankedLists`); so are the relevant items a list missed,
from the ``truth`` it was judged against (which keeps the items' ids). Measures need neither.
"""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from functools import cached_property
from typing import Protocol, Sequence

import numpy as np

from metrics.errors import InputError

from metrics.data.relevance import Relevance
from metrics.data.ties import TiePolicy
from metrics.data.truth import GradeCounts, GroundTruth

# TN, Accuracy, Specificity and Fallout are computed in floating point, which holds every count
# up to 2^53 exactly: a larger |D| would print a wrong TN.
MAX_COLLECTION_SIZE = 2 ** 53


def _query_rank_order(hit_query: np.ndarray, hit_ranks: np.ndarray) -> np.ndarray:
    """The stable order of hits by query, then rank: one sort of a combined key where it fits in
    64 bits (several times faster than a sort on two keys), else the two-key sort."""
    if not len(hit_ranks):
        return np.zeros(0, dtype=np.int64)
    width = int(hit_ranks.max()) + 1
    if hit_ranks.min() < 0 or hit_query.min() < 0 or int(hit_query.max()) * width + width >= 2 ** 62:
        return np.lexsort((hit_ranks, hit_query))
    return np.argsort(hit_query * width + hit_ranks, kind="stable")


def check_collection_size(size) -> None:
    """Refuse a collection size |D| (a number, or one per query) above :data:`MAX_COLLECTION_SIZE`,
    before it is stored or counted with."""
    largest = int(np.max(np.asarray(size, dtype=object))) if np.size(size) else 0
    if largest > MAX_COLLECTION_SIZE:
        raise InputError(f"collection size {largest} is too large: |D| can be at most 2^53 = "
                         f"{MAX_COLLECTION_SIZE}, where TN and the rates built on it are exact")


@dataclass(frozen=True, eq=False)
class TieReport:
    """Groups of equal score (as the tie policy compares them) within a query's list: their first
    and last 0-based positions. A group *straddles* cutoff k when it has items on both sides of it,
    so the tie policy decides what is counted at k. For rankings streamed from scores, only the
    groups that hold a judged item are known (``judged_only``)."""

    tied_items: int = 0
    queries_with_ties: int = 0
    first_positions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    last_positions: np.ndarray = field(default_factory=lambda: np.zeros(0, dtype=np.int64))
    judged_only: bool = False

    @property
    def tie_groups(self) -> int:
        return len(self.first_positions)

    def straddling(self, cutoff: int) -> int:
        return int(((self.first_positions < cutoff) & (self.last_positions >= cutoff)).sum())

    def describe(self, cutoffs=()) -> str:
        if not self.tie_groups:
            return "no score ties" + (" among the judged items" if self.judged_only else "")
        text = (f"{self.tied_items} items in {self.tie_groups} groups of equal score"
                f"{' holding a judged item' if self.judged_only else ''}, in "
                f"{self.queries_with_ties} queries")
        if not cutoffs:
            return text
        cut = [f"{self.straddling(k)} straddle rank {k}" for k in sorted(set(cutoffs))
               if self.straddling(k)]
        return text + ("; " + ", ".join(cut) if cut else "; none straddles a cutoff")


class RankedLists(Protocol):
    """Where the full list of one query comes from, for display: its item ids and scores (None
    for a bare ranked list) in rank order, at 0-based positions ``first`` to ``stop`` (a page of
    a long list; by default all of it)."""

    def ranked_list(self, query: int, first: int = 0,
                    stop: int | None = None) -> tuple[np.ndarray, np.ndarray | None]: ...


@dataclass(frozen=True, eq=False)
class JudgedRanking:
    """Every evaluated query's list length, judged hits and ground-truth grade counts (see the
    module docstring). Queries of the truth missing from the run have an empty list."""

    query_ids: np.ndarray
    lengths: np.ndarray
    offsets: np.ndarray
    hit_ranks: np.ndarray
    hit_grades: np.ndarray
    truth_grades: GradeCounts
    unlisted_judged: bool = False
    collection_sizes: np.ndarray | None = None   # |D_q| per query (an int given is broadcast)
    warnings: tuple[str, ...] = field(default=())
    name: str = "run"
    ties: TieReport = field(default_factory=TieReport)
    run_only_queries: int = 0           # queries of the run that the ground truth lacks (left out)
    lists: RankedLists | None = None    # the full lists, for display only
    query_rows: np.ndarray | None = None   # each query's index in ``lists`` (None: the same)
    hit_tie_first: np.ndarray | None = None   # rank of the first item of each hit's tie group
    hit_tie_size: np.ndarray | None = None    # items in each hit's tie group (1: no tie)
    tie_policy: TiePolicy = TiePolicy.STABLE   # EXPECTED: measures take the mean over tie orders
    truth: GroundTruth | None = None    # the judgements with their item ids, for display only

    def __post_init__(self):
        if self.collection_sizes is not None:
            check_collection_size(self.collection_sizes)
            sizes = np.broadcast_to(np.asarray(self.collection_sizes, dtype=np.int64),
                                    (len(self.query_ids),))
            object.__setattr__(self, "collection_sizes", sizes)

    @classmethod
    def from_hits(cls, query_ids, lengths, hit_query, hit_ranks, hit_grades,
                  truth_grades: GradeCounts, hit_tie_first=None, hit_tie_size=None,
                  **kwargs) -> "JudgedRanking":
        """Hits given in any order as (query index, rank, grade) triples, with their tie groups
        (first rank, size) when items tie; groups of one item are dropped as no tie."""
        hit_query = np.asarray(hit_query, dtype=np.int64)
        hit_ranks = np.asarray(hit_ranks, dtype=np.int64)
        if hit_tie_size is not None and not (np.asarray(hit_tie_size) > 1).any():
            hit_tie_first = hit_tie_size = None
        order = _query_rank_order(hit_query, hit_ranks)
        if not (len(order) < 2 or (np.diff(order) == 1).all()):
            hit_query, hit_ranks = hit_query[order], hit_ranks[order]
            hit_grades = np.asarray(hit_grades)[order]
            if hit_tie_size is not None:
                hit_tie_first = np.asarray(hit_tie_first)[order]
                hit_tie_size = np.asarray(hit_tie_size)[order]
        if hit_tie_size is not None:
            kwargs.update(hit_tie_first=np.asarray(hit_tie_first, dtype=np.int64),
                          hit_tie_size=np.asarray(hit_tie_size, dtype=np.int64))
        offsets = np.r_[0, np.cumsum(np.bincount(hit_query, minlength=len(query_ids)))]
        return cls(np.asarray(query_ids, dtype=object), np.asarray(lengths, dtype=np.int64),
                   offsets.astype(np.int64), hit_ranks, np.asarray(hit_grades, dtype=np.int64),
                   truth_grades, **kwargs)

    # ---- sizes and counts -------------------------------------------------------------------

    @property
    def num_queries(self) -> int:
        return len(self.query_ids)

    def collection_size(self, query: int) -> int | None:
        """|D_q| of one query, None when unknown."""
        return None if self.collection_sizes is None else int(self.collection_sizes[query])

    @property
    def max_grade(self) -> int:
        """The highest grade of the whole ground truth."""
        return self.truth_grades.max_grade

    @property
    def nbytes(self) -> int:
        """Bytes of memory the ranking holds: its arrays, the grade counts, and the lists and
        truth it keeps for display (ids, scores, the upload's bytes they are read from), each
        buffer once (:func:`metrics.data.footprint.deep_nbytes`; derived arrays cached so far
        included). A dataset's systems share their truth: measure them together with
        ``deep_nbytes(*systems)``."""
        from metrics.data.footprint import deep_nbytes
        return deep_nbytes(self)

    @cached_property
    def hit_query(self) -> np.ndarray:
        """The query index of every hit."""
        return np.repeat(np.arange(self.num_queries), np.diff(self.offsets))

    @cached_property
    def hit_position(self) -> np.ndarray:
        """0-based place of every hit among its query's hits."""
        return np.arange(len(self.hit_ranks)) - self.offsets[self.hit_query]

    def num_relevant(self, threshold: int = 1) -> np.ndarray:
        """R_q: the relevant items of the whole ground truth at ``threshold``, per query."""
        return self.truth_grades.relevant(Relevance(threshold))

    def num_judged_nonrelevant(self, threshold: int = 1) -> np.ndarray:
        """N: the items of the whole ground truth judged not relevant at ``threshold``, per
        query."""
        return self.truth_grades.judged_nonrelevant(Relevance(threshold))

    def retrieved(self, cutoff: int | None = None) -> np.ndarray:
        """|A| (or min(k, |A|) with a cutoff): how many items each query's list holds."""
        return self.lengths if cutoff is None else np.minimum(self.lengths, cutoff)

    def within(self, cutoff: int | None) -> np.ndarray:
        """Mask of the hits ranked within the first ``cutoff`` ranks."""
        if cutoff is None:
            return np.ones(len(self.hit_ranks), dtype=bool)
        return self.hit_ranks <= cutoff

    @property
    def expected_ties(self) -> bool:
        """Whether measures are the mean over every ordering of the tied items (``expected``)."""
        return self.tie_policy is TiePolicy.EXPECTED and self.hit_tie_size is not None

    def rank_weights(self, cutoff=None, f=None) -> np.ndarray:
        """Per hit, f(rank) where its rank is within ``cutoff`` (an int, or one per query) and 0
        past it (f = None: 1, so the weights count the hits within the cutoff). Under
        ``expected`` ties, its mean over the ranks of the hit's tie group, where every rank is
        equally likely: a measure that is a sum of these weights is then exactly its mean over
        every ordering of the tied items."""
        if self.expected_ties:
            return mean_over_tie_group(self, cutoff, f)
        ranks = self.hit_ranks
        value = np.ones(len(ranks)) if f is None else np.asarray(f(ranks), dtype=np.float64)
        if cutoff is None:
            return value
        limit = cutoff if np.isscalar(cutoff) else np.asarray(cutoff)[self.hit_query]
        return np.where(ranks <= limit, value, 0.0)

    # ---- subsets and dense views ------------------------------------------------------------

    def subset(self, rows: np.ndarray) -> "JudgedRanking":
        """The same judged ranking restricted to some queries (an index or boolean mask)."""
        rows = np.arange(self.num_queries)[rows]
        sizes = np.diff(self.offsets)[rows]
        take = (np.repeat(self.offsets[rows], sizes)
                + np.arange(sizes.sum()) - np.repeat(np.cumsum(sizes) - sizes, sizes))
        source_rows = rows if self.query_rows is None else self.query_rows[rows]
        tied = self.hit_tie_size is not None
        return replace(self, query_ids=self.query_ids[rows], lengths=self.lengths[rows],
                       offsets=np.r_[0, np.cumsum(sizes)].astype(np.int64),
                       hit_ranks=self.hit_ranks[take], hit_grades=self.hit_grades[take],
                       truth_grades=self.truth_grades.take(rows), query_rows=source_rows,
                       collection_sizes=(None if self.collection_sizes is None
                                         else self.collection_sizes[rows]),
                       hit_tie_first=self.hit_tie_first[take] if tied else None,
                       hit_tie_size=self.hit_tie_size[take] if tied else None)

    def dense_grades(self, query: int) -> tuple[np.ndarray, np.ndarray]:
        """One query's list as (grades, judged): grade at each rank, 0 where not judged, and
        whether the item there is judged. Built for display; size |A|."""
        n = int(self.lengths[query])
        grades = np.zeros(n, dtype=np.int64)
        judged = np.full(n, self.unlisted_judged)
        at = slice(self.offsets[query], self.offsets[query + 1])
        grades[self.hit_ranks[at] - 1] = self.hit_grades[at]
        judged[self.hit_ranks[at] - 1] = True
        return grades, judged

    def ranked_list(self, query: int, first: int = 0,
                    stop: int | None = None) -> tuple[np.ndarray, np.ndarray | None]:
        """One query's item ids and scores in rank order, at 0-based positions ``first`` to
        ``stop`` (by default the whole list); ids "1", "2", … when the lists are not kept, as for
        answer sets."""
        if self.lists is None:
            length = int(self.lengths[query])
            stop = length if stop is None else min(stop, length)
            return np.arange(first + 1, max(stop, first) + 1).astype(str).astype(object), None
        row = query if self.query_rows is None else int(self.query_rows[query])
        return self.lists.ranked_list(row, first, stop)

    # ---- building from grade lists ----------------------------------------------------------

    @classmethod
    def from_relevance(cls, lists: Sequence[Sequence[int]], num_relevant: Sequence[int],
                       collection_size: int | None = None, query_ids: Sequence[str] | None = None,
                       name: str = "answer sets") -> "JudgedRanking":
        """Answer sets given as grade lists (1 relevant, 0 not; every item judged) and R_q per
        query — Serrà's Table 1 is of this form. With ``collection_size``, every item of the
        collection that is not relevant counts as judged non-relevant."""
        lengths = np.array([len(x) for x in lists], dtype=np.int64)
        grades = np.array([g for row in lists for g in row], dtype=np.int64)
        query = np.repeat(np.arange(len(lists)), lengths)
        ranks = np.arange(len(grades)) - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1
        r = np.asarray(num_relevant, dtype=np.int64)
        retrieved_rel = np.bincount(query[Relevance().relevant(grades)], minlength=len(lists))
        if np.any(retrieved_rel > r):
            bad = int(np.flatnonzero(retrieved_rel > r)[0])
            raise InputError(f"answer set {bad + 1} retrieves {retrieved_rel[bad]} relevant items "
                             f"but R_q is {r[bad]}", source=name)
        # the truth: every listed item, the relevant items that were not retrieved (grade 1) and,
        # with |D|, the rest of the collection (grade 0)
        unretrieved = r - retrieved_rel
        truth_query = np.concatenate([query, np.repeat(np.arange(len(lists)), unretrieved)])
        truth_grade = np.concatenate([grades, np.ones(int(unretrieved.sum()), dtype=np.int64)])
        extra = None
        if collection_size is not None:
            listed_nonrel = np.bincount(query[Relevance().judged_nonrelevant(grades)],
                                        minlength=len(lists))
            extra = collection_size - r - listed_nonrel
        counts = GradeCounts.from_pairs(truth_query, truth_grade, len(lists), extra)
        ids = np.asarray(query_ids if query_ids is not None else
                         [f"A{i + 1}" for i in range(len(lists))], dtype=object)
        return cls.from_hits(ids, lengths, query, ranks, grades, counts,
                             collection_sizes=collection_size, name=name)


# ---- tie groups: what the tie-aware policies and expected measures read ------------------------


@dataclass(frozen=True)
class TieGroups:
    """The groups holding a hit, in (query, rank) order: their query, first rank and size (1 for
    a hit that ties with nothing), and the group of every hit."""

    hit_group: np.ndarray
    query: np.ndarray
    first: np.ndarray
    size: np.ndarray

    @property
    def count(self) -> int:
        return len(self.first)

    def limit(self, cutoff) -> np.ndarray:
        """Each group's last counted rank: the cutoff (an int or one per query), or its end."""
        if cutoff is None:
            return self.first + self.size - 1
        if np.isscalar(cutoff):
            return np.full(self.count, cutoff, dtype=np.int64)
        return np.asarray(cutoff, dtype=np.int64)[self.query]


def tie_groups(j: JudgedRanking) -> TieGroups:
    """The tie groups of a judged ranking's hits. A query's hits are in rank order and a group's
    ranks are consecutive, so the hits of a group are contiguous."""
    if j.hit_tie_size is None:
        first, size = j.hit_ranks, np.ones(len(j.hit_ranks), dtype=np.int64)
    else:
        first, size = j.hit_tie_first, j.hit_tie_size
    query = j.hit_query
    if not len(query):
        return TieGroups(query, query, first, size)
    new = np.r_[True, (query[1:] != query[:-1]) | (first[1:] != first[:-1])]
    starts = np.flatnonzero(new)
    return TieGroups(np.cumsum(new) - 1, query[starts], first[starts], size[starts])


def expand(first: np.ndarray, size: np.ndarray, limit: np.ndarray):
    """Every rank first .. min(first + size − 1, limit) of every group, as (group, rank, offset
    from the group's first rank)."""
    count = np.clip(np.minimum(first + size - 1, limit) - first + 1, 0, size)
    group = np.repeat(np.arange(len(first)), count)
    offset = np.arange(int(count.sum())) - np.repeat(np.cumsum(count) - count, count)
    return group, first[group] + offset, offset


def mean_over_tie_group(j: JudgedRanking, cutoff, f) -> np.ndarray:
    """Per hit, the mean of f(r)·[r <= cutoff] over the ranks r of its tie group (see
    :meth:`JudgedRanking.rank_weights`)."""
    groups = tie_groups(j)
    limit = groups.limit(cutoff)
    if f is None:   # the share of the group's ranks within the cutoff
        inside = np.clip(limit - groups.first + 1, 0, groups.size)
        return (inside / groups.size)[groups.hit_group]
    group, rank, _ = expand(groups.first, groups.size, limit)
    total = np.bincount(group, weights=np.asarray(f(rank), dtype=np.float64),
                        minlength=groups.count)
    return (total / groups.size)[groups.hit_group]
