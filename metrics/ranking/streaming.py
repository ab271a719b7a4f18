"""Rankings streamed from scores: query and item embeddings, and all-vs-all N × N matrices.

No queries × items score matrix is ever held. Queries are taken in blocks; one block's scores
against every item are computed (a BLAS product for embeddings, rows of a memory map for a
matrix), and for each judged item the items scoring strictly better and equal are counted, so
its rank follows from the tie policy (a tie-aware policy ranks ``stable`` and keeps each
judged item's group: its first rank, 1 + #better, and its size):

    rank = 1 + #{items scored better} + #{items scored equal whose tie key comes first}

(the key is the column for ``stable``, the id for ``id``, the id descending for ``trec``). Only
those ranks are kept: they are the hits of a :class:`~metrics.data.judged.JudgedRanking`. Memory
is a few blocks of scores, sized by a budget (``memory``), whatever the number of items.

Cosine and dot product scores are computed in the embeddings' own precision: float32 embeddings
give float32 scores (single-precision BLAS), anything else float64. Two similarities closer than
the precision's resolution (about 1e-7 relative in float32) can come out equal and are then
ordered by the tie policy; ``trec`` compares every score as float32, as trec_eval 9 does.
Euclidean distances are computed in float64 from shifted, scaled coordinates whatever the
embeddings' precision, so that a shift of the data changes no ranking
(:class:`metrics.ranking.embeddings.EmbeddingScores`).

Clique labels (cover songs) make every item a query against all the others, itself excluded;
their ranks are counted by the all-vs-all kernel (:mod:`metrics.ranking.allvsall`).
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Callable

import numpy as np

from metrics.ranking.allvsall import relevant_ranks
from metrics.ranking.cliques import Cliques
from metrics.errors import InputError
from metrics.data.truth import GradeCounts
from metrics.data.judged import JudgedRanking, TieReport
from metrics.data.truth import GroundTruth
from metrics.data.ties import TiePolicy
from metrics.ranking.rank import JUDGED, no_judged_item_warning
from metrics.ranking.tie_order import policy_scores, tie_keys
from metrics.ranking.tie_aware import apply_policy

DEFAULT_MEMORY = 128 << 20    # bytes of scores and temporaries per block: larger blocks are
                              # no faster (BLAS is saturated at a few dozen rows)
HEAVY = 24                    # judged items per row past which a row is sorted instead of scanned
Progress = Callable[[int], None]


def parse_memory(text: str) -> int:
    """'512M', '2G', '1500000' (bytes) -> bytes; at least 16 MB."""
    match = re.fullmatch(r"\s*(\d+(?:\.\d+)?)\s*([kKmMgG]?)[bB]?\s*", str(text))
    if not match:
        raise InputError(f"memory budget {text!r} is not a size such as 512M or 2G")
    value = float(match.group(1)) * {"": 1, "k": 1 << 10, "m": 1 << 20,
                                     "g": 1 << 30}[match.group(2).lower()]
    if value < 16 << 20:
        raise InputError(f"memory budget {text!r} is below the 16M minimum")
    return int(value)


def block_rows(n_items: int, itemsize: int, memory: int | None) -> int:
    """Query rows per block: a block's scores and its two temporaries of the same size (a
    comparison's result and a gathered copy) fit the budget."""
    budget = DEFAULT_MEMORY if memory is None else memory
    return max(1, int(budget // max(1, 3 * n_items * itemsize)))


@dataclass(frozen=True, eq=False)
class ScoreLists:
    """One query's full ranked list from its row of scores, for display."""

    scores: object             # rows(...) / [...] gives rows of scores
    query_rows: np.ndarray     # the score row of each evaluated query
    item_ids: np.ndarray
    ties: TiePolicy
    larger_is_better: bool = True
    exclude_self: bool = False

    def ranked_list(self, query: int, first: int = 0,
                    stop: int | None = None) -> tuple[np.ndarray, np.ndarray]:
        row = int(self.query_rows[query])
        values = np.asarray(self.scores[row:row + 1])[0]
        compared = policy_scores(values, self.ties).astype(np.float64)
        if not self.larger_is_better:
            compared = -compared
        order = np.lexsort((tie_keys(self.item_ids, self.ties), -compared))
        if self.exclude_self:
            order = order[order != row]
        order = order[first:stop]
        return self.item_ids[order], values[order]


def _tie_report(query: np.ndarray, better: np.ndarray, size: np.ndarray) -> TieReport:
    """The groups of equal score that hold a judged item, from each hit's counts."""
    tied = size > 1
    if not tied.any():
        return TieReport(judged_only=True)
    groups = np.unique(np.stack([query[tied], better[tied], size[tied]]), axis=1)
    first, sizes = groups[1], groups[2]
    return TieReport(int(sizes.sum()), len(np.unique(groups[0])), first, first + sizes - 1,
                     judged_only=True)


def _vectorised_search(sorted_rows: np.ndarray, rows: np.ndarray, values: np.ndarray,
                       side: str) -> np.ndarray:
    """np.searchsorted of each value in its own row of a row-wise sorted 2-D array, for all
    values at once (a binary search whose steps are vectorised over the values)."""
    low = np.zeros(len(values), dtype=np.int64)
    high = np.full(len(values), sorted_rows.shape[1], dtype=np.int64)
    active = low < high
    while active.any():
        middle = (low + high) // 2
        at = sorted_rows[rows, np.minimum(middle, sorted_rows.shape[1] - 1)]
        right = ((at < values) if side == "left" else (at <= values)) & active
        low = np.where(right, middle + 1, low)
        high = np.where(active & ~right, middle, high)
        active = low < high
    return low


def count_judged(block: np.ndarray, pair_row: np.ndarray, pair_col: np.ndarray,
                 keys: np.ndarray) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """For each (row, column) pair of a block of scores (larger is better; ``pair_row`` grouped
    ascending): the items of the row scored strictly better, the size of the pair's group of equal
    scores, and the items of that group whose tie key comes first."""
    n = block.shape[1]
    score = block[pair_row, pair_col]
    per_row = np.bincount(pair_row, minlength=block.shape[0])
    better = np.zeros(len(pair_row), dtype=np.int64)
    equal = np.zeros(len(pair_row), dtype=np.int64)
    heavy = per_row[pair_row] > HEAVY
    if (~heavy).any():
        # level by level: the l-th pair of every light row at once, one comparison per item
        first = np.searchsorted(pair_row, np.arange(block.shape[0]))
        place = np.arange(len(pair_row)) - first[pair_row]
        for level in range(int(place[~heavy].max()) + 1):
            sel = np.flatnonzero(~heavy & (place == level))
            rows = pair_row[sel]
            sub = block if len(rows) == block.shape[0] else block[rows]
            threshold = score[sel][:, None]
            better[sel] = np.count_nonzero(sub > threshold, axis=1)
            equal[sel] = np.count_nonzero(sub == threshold, axis=1)
    if heavy.any():
        # rows with many judged items: one sort of the row, then a binary search per item
        heavy_rows = np.unique(pair_row[heavy])
        ordered = np.sort(block[heavy_rows], axis=1)
        local = np.searchsorted(heavy_rows, pair_row[heavy])
        left = _vectorised_search(ordered, local, score[heavy], "left")
        right = _vectorised_search(ordered, local, score[heavy], "right")
        better[heavy] = n - right
        equal[heavy] = right - left
    tied_first = np.zeros(len(pair_row), dtype=np.int64)
    tied = np.flatnonzero(equal > 1)
    for start in range(0, len(tied), 64):   # rare: only rows where a judged item ties
        sel = tied[start:start + 64]
        same = block[pair_row[sel]] == score[sel][:, None]
        same &= keys[None, :] < keys[pair_col[sel]][:, None]
        tied_first[sel] = same.sum(axis=1)
    return better, equal, tied_first


def count_block(scores, keys: np.ndarray, ties: TiePolicy, larger_is_better: bool, rows: np.ndarray,
                pair_row: np.ndarray, pair_col: np.ndarray
                ) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """One block of queries, the unit of work of :func:`judge_streamed` whether it runs here or
    as a task on a cluster (pure: its result depends only on its arguments): the score rows
    ``rows`` against every item, and for each judged (row within the block, column) pair the
    counts of :func:`count_judged`."""
    block = scores.rows(rows) if hasattr(scores, "rows") else np.asarray(scores[rows])
    block = policy_scores(np.asarray(block), ties)
    if not larger_is_better:
        block = -block
    return count_judged(block, pair_row, pair_col, keys)


def judge_streamed(scores, query_ids, item_ids, truth: GroundTruth,
                   ties: TiePolicy = TiePolicy.STABLE, larger_is_better: bool = True,
                   collection_size: int | str | None = None, name: str = "run",
                   memory: int | None = None, progress: Progress | None = None,
                   keep_lists: bool = True, cluster=None) -> JudgedRanking:
    """Judge the rankings of queries against items given by rows of scores (``scores[a:b]`` or
    ``scores.rows(index)``; shape queries × items) and explicit judgements (qrels). Blocks of
    queries are counted by :func:`count_block`, here or, given a ``cluster``
    (:class:`metrics.ranking.cluster.Cluster`), as its tasks.

    Evaluated queries are the truth's: one without a row has an empty list; rows the truth lacks
    are left out; a judged item that is not among the items is never retrieved but counts in R_q.
    """
    if collection_size == JUDGED:
        raise InputError("a collection size of 'judged' is for runs: every query here is ranked "
                         "against all the items, so |D| is their number (leave it out, or give "
                         "a number)")
    tie_aware, ties = ties, ties.ordering
    query_ids = np.asarray([str(x) for x in query_ids], dtype=object)
    item_ids = np.asarray([str(x) for x in item_ids], dtype=object)
    n_items = len(item_ids)
    warnings = list(truth.warnings)
    row_of = {q: i for i, q in enumerate(query_ids)}
    truth_row = np.fromiter((row_of.get(q, -1) for q in truth.query_ids), dtype=np.int64,
                            count=len(truth.query_ids))
    run_only = len(set(query_ids) - set(truth.query_ids))
    if run_only:
        warnings.append(f"{name}: {run_only} quer(ies) of the embeddings not in the ground truth "
                        f"were left out")
    missing = np.flatnonzero(truth_row < 0)
    if len(missing):
        warnings.append(f"{name}: {len(missing)} ground-truth quer(ies) have no query row and "
                        f"score 0 where a measure has a value for an empty list (first: "
                        f"{truth.query_ids[missing[0]]!r})")
    col_of = {d: i for i, d in enumerate(item_ids)}
    pair_col = np.fromiter((col_of.get(d, -1) for d in truth.pair_item), dtype=np.int64,
                           count=len(truth.pair_item))
    usable = (pair_col >= 0) & (truth_row[truth.pair_query] >= 0)
    pair_query, pair_col = truth.pair_query[usable], pair_col[usable]
    pair_grade = truth.pair_grade[usable]
    if not truth.unlisted_judged:   # every item is ranked: a query sees its judged items or none
        warnings += no_judged_item_warning(name, truth, truth_row >= 0, pair_query,
                                           lambda query: item_ids[0])
    # pairs in the order of their query's score row, so a block is a contiguous run of pairs
    pair_row = truth_row[pair_query]
    order = np.argsort(pair_row, kind="stable")
    pair_query, pair_col, pair_grade, pair_row = (a[order] for a in
                                                  (pair_query, pair_col, pair_grade, pair_row))
    keys = tie_keys(item_ids, ties)
    evaluated_rows = np.unique(pair_row)
    itemsize = np.dtype(getattr(scores, "dtype", np.float64)).itemsize
    step = block_rows(n_items, max(itemsize, 8), memory)
    if cluster is not None:
        step = cluster.rows_per_task(len(evaluated_rows), n_items, step)
    blocks, spans = [], []
    for start in range(0, len(evaluated_rows), step):
        rows = evaluated_rows[start:start + step]
        lo, hi = np.searchsorted(pair_row, [rows[0], rows[-1] + 1])
        blocks.append((rows, np.searchsorted(rows, pair_row[lo:hi]), pair_col[lo:hi]))
        spans.append((lo, hi))
    common = (scores, keys, ties, larger_is_better)
    if cluster is None:
        counted = []
        for block in blocks:
            counted.append(count_block(*common, *block))
            if progress is not None:
                progress(len(block[0]))
    else:
        counted = cluster.map(count_block, common, blocks, [len(b[0]) for b in blocks], progress)
    better = np.zeros(len(pair_row), dtype=np.int64)
    size = np.ones(len(pair_row), dtype=np.int64)
    tied_first = np.zeros(len(pair_row), dtype=np.int64)
    for (lo, hi), (b, s, t) in zip(spans, counted):
        better[lo:hi], size[lo:hi], tied_first[lo:hi] = b, s, t
    lengths = np.where(truth_row >= 0, n_items, 0)
    lists = (ScoreLists(scores, np.maximum(truth_row, 0), item_ids, ties, larger_is_better)
             if keep_lists else None)
    judged = JudgedRanking.from_hits(
        truth.query_ids, lengths, pair_query, 1 + better + tied_first, pair_grade,
        truth.grade_counts(), 1 + better, size,
        collection_sizes=n_items if collection_size is None else collection_size,
        warnings=tuple(warnings), name=name, ties=_tie_report(pair_query, better, size),
        run_only_queries=run_only, lists=lists, truth=truth if keep_lists else None)
    return apply_policy(judged, tie_aware)


def clique_grade_counts(cliques: Cliques) -> GradeCounts:
    """Each item's ground truth when items sharing a label are relevant to each other and every
    other item is judged not relevant: its clique mates at grade 1, the rest at grade 0 — from the
    clique sizes, without listing the pairs."""
    mates = cliques.size - 1
    n = len(mates)
    count = np.stack([n - 1 - mates, mates], axis=1).ravel().astype(np.int64)
    keep = count > 0
    return GradeCounts(np.repeat(np.arange(n), 2)[keep], np.tile([0, 1], n)[keep], count[keep], n)


def judge_all_vs_all(scores, item_ids, labels, ties: TiePolicy = TiePolicy.STABLE,
                     larger_is_better: bool = True, collection_size: int | str | None = None,
                     name: str = "run", source: str = "matrix", truth_name: str = "labels",
                     progress: Progress | None = None, keep_lists: bool = True,
                     cluster=None) -> JudgedRanking:
    """Judge all against all: every item a query, ranked against the N − 1 others by its row of
    scores (``scores[a:b]``: an N × N array, a memory map or :class:`EmbeddingScores` of the items
    against themselves), items sharing a clique label relevant to each other."""
    tie_aware, ties = ties, ties.ordering
    item_ids = np.asarray([str(x) for x in item_ids], dtype=object)
    cliques = Cliques(labels)   # grouped once: for the counting and for the grade counts
    counted = relevant_ranks(scores, cliques, item_ids, ties, larger_is_better=larger_is_better,
                             source=source, progress=progress, cluster=cluster)
    query = counted.query
    n = len(item_ids)
    if len(set(item_ids)) != n:
        raise InputError("an item id appears twice in the labels", source=truth_name)
    # labels judge the whole collection, so 'judged' is the N − 1 others as well
    size = n - 1 if collection_size in (None, JUDGED) else collection_size
    if size < n - 1:
        raise InputError(f"collection size {size} is smaller than the {n - 1} items each query is "
                         f"ranked against; give the real number of items in the collection")
    lists = (ScoreLists(scores, np.arange(n), item_ids, ties, larger_is_better,
                        exclude_self=True) if keep_lists else None)
    judged = JudgedRanking.from_hits(
        item_ids, np.full(n, max(n - 1, 0)), query, counted.rank,
        np.ones(len(query), dtype=np.int64), clique_grade_counts(cliques), counted.better + 1,
        counted.tie_size, unlisted_judged=True, collection_sizes=size, name=name,
        ties=_tie_report(query, counted.better, counted.tie_size), lists=lists,
        truth=GroundTruth.from_labels(item_ids, labels, name=truth_name) if keep_lists else None)
    return apply_policy(judged, tie_aware)
