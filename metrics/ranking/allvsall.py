"""All-vs-all evaluation at scale: rank the relevant items of every query by *counting*, not
sorting.

For query i (a row of an N×N score matrix) and each item j of its clique, the rank of j among the
other N − 1 items is

    rank(j) = 1 + #{k ≠ i : s_ik above s_ij} + #{k ∉ {i, j} : s_ik = s_ij, key_k < key_j}

(``above`` is ``>``, or ``<`` for distances; ``key`` orders tied items: the column for ``stable``,
the id for ``id``, the id descending for ``trec``). Rows are read one at a time (C) or in chunks
(NumPy), so memory stays bounded and a memory-mapped matrix never has to fit in RAM. Two kernels
count, with the same results:

* **C** (``metrics/ranking/_counting.c``, built by ``pip install``): each row is read once. That
  pass checks every score is finite and copies out the items at least as good as the query's worst
  clique mate (with AVX2, eight at a time: a comparison mask picks the lanes to keep); then, for
  each mate's score, one vectorised loop over the copied items counts those strictly better and
  those exactly equal.
* **NumPy** (when the extension is missing): every row's relevant scores are sorted, lowest
  first, and the chunk is counted level by level: one vectorised comparison of the chunk against
  each row's current relevant score and a per-row count give the items at least that good. Most
  items score below the lowest relevant ones, so after a few levels only a small fraction of the
  chunk is left above the current score; those items are taken out once, and one sort of (row,
  order-preserving integer key) pairs with two binary searches per relevant score counts the
  items above and equal to all the remaining ones.

A relevant score that some other item equals exactly (rare for real scores) is found from those
counts and its tie is settled by the key, scanning only that row.

The ranks become the hits of a :class:`~metrics.data.judged.JudgedRanking` (see
:mod:`metrics.ranking.streaming`), from which every measure is computed.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from metrics.errors import InputError
from metrics.parallel import over_parts
from metrics.data.ties import TiePolicy
from metrics.ranking.cliques import Cliques
from metrics.ranking.tie_order import tie_keys

try:   # built by `pip install` (setup.py); optional, NumPy gives the same ranks without it
    from metrics.ranking import _counting
except ImportError:
    _counting = None


# Booleans are counted eight at a time as bytes of uint64 words, 255 words per sum so that no byte
# overflows into its neighbour: count rows are padded with False to a multiple of 255 × 8.
_LANE = 2040
# One item taken out and sorted costs about as much as this many items of a counting level; a
# chunk switches from counting levels to sorting once that is the cheaper way to finish.
_SORT_COST = 80.0


def _row_counts(mask: np.ndarray) -> np.ndarray:
    """True values per row of a C-contiguous (rows, multiple of _LANE) boolean array."""
    words = mask.view(np.uint64).reshape(mask.shape[0], -1, _LANE // 8)
    return np.add.reduce(words, axis=2).view(np.uint8).reshape(mask.shape[0], -1).sum(
        axis=1, dtype=np.int64)


def _true_positions(mask: np.ndarray) -> np.ndarray:
    """np.flatnonzero(mask) for a sparse mask (a length divisible by 8). numpy hops from one true
    value to the next when they are sparse, which is slow; finding the nonzero 8-byte words
    first, then the true bytes inside them, is about twice as fast at a few percent true."""
    words = mask.view(np.uint64).reshape(-1)
    hit = np.flatnonzero(words != 0)
    inner = np.flatnonzero(words[hit].view(np.bool_))
    return hit[inner >> 3] * 8 + (inner & 7)


def _order_key(values: np.ndarray) -> np.ndarray:
    """uint32 keys in the order of the float32 values (0.0 and -0.0 share one key)."""
    bits = (values + np.float32(0)).astype(np.float32, copy=False).view(np.uint32)
    return bits ^ ((bits >> np.uint32(31)) * np.uint32(0x7FFFFFFF) | np.uint32(0x80000000))


def _counts_by_sorting(values: np.ndarray, counts: np.ndarray, levels: np.ndarray):
    """(#values >= level, #values > level) per row and level, for candidate values grouped by row
    (``counts`` per row) and each row's levels (rows × L, ascending, ``levels[r, 0]`` no higher
    than any value of row r); both oriented so that larger is better."""
    c = len(counts)
    ends = np.cumsum(counts)
    rows = np.arange(c, dtype=np.uint32)
    row_of = np.repeat(rows, counts)
    if values.dtype == np.float32:
        level_key = _order_key(levels)
        offset = level_key - level_key[:, :1]
        shift = 32 - max(int(c - 1).bit_length(), 1)
        cap = np.uint32((1 << shift) - 1)
        if not (offset[np.isfinite(levels) & (counts > 0)[:, None]] >= cap).any():
            # 32-bit keys sort twice as fast: the row in the high bits, the value as its distance
            # from the row's lowest level (values beyond its highest level only need to stay there)
            low = levels[:, 0]
            if (low[counts > 0] > 0).all():   # positive floats' bits already sort
                key = values.view(np.uint32) - np.repeat(low.view(np.uint32), counts)
            else:
                key = _order_key(values) - np.repeat(level_key[:, 0], counts)
            np.minimum(key, cap, out=key)
            key |= row_of << np.uint32(shift)
            query = np.minimum(offset, cap) | (rows[:, None] << np.uint32(shift))
        else:
            key = _order_key(values).astype(np.uint64) | (row_of.astype(np.uint64) << np.uint64(32))
            query = level_key.astype(np.uint64) | (rows.astype(np.uint64)[:, None] << np.uint64(32))
    else:   # float64 scores: rank all the values first, then sort (row, rank) the same way
        codes = np.unique(np.concatenate([values, levels.ravel()]), return_inverse=True)[1]
        codes = codes.reshape(-1).astype(np.uint64)
        key = codes[:len(values)] | (row_of.astype(np.uint64) << np.uint64(32))
        query = codes[len(values):].reshape(levels.shape) | (rows.astype(np.uint64)[:, None]
                                                             << np.uint64(32))
    key = np.sort(key)
    return (ends[:, None] - np.searchsorted(key, query, "left"),
            ends[:, None] - np.searchsorted(key, query, "right"))


class RowCounts:
    """What the counting fills in for rows ``first`` to ``first + n``, chunk by chunk, from the
    rows in memory (a scattered read of a memory-mapped matrix would touch every page): the clique
    mates' scores worst first (``level``, padded with the unreachable score), the mate that has
    each (``mate``), which are real (``valid``), the query's score of itself (``own``), the items
    scored strictly better than each mate, the query included (``higher``), the size of each
    mate's group of equal scores (``tie_size``) and the tied items whose key comes first
    (``tied_first``)."""

    FIELDS = ("level", "mate", "valid", "own", "higher", "tied_first", "tie_size")

    def __init__(self, first: int, n: int, width: int, missing: float):
        self.first = first
        self.level = np.full((n, width), missing, dtype=np.float64)
        self.mate = np.zeros((n, width), dtype=np.int64)
        self.valid = np.zeros((n, width), dtype=bool)
        self.own = np.zeros(n, dtype=np.float64)
        self.higher = np.zeros((n, width), dtype=np.int64)
        self.tied_first = np.zeros((n, width), dtype=np.int64)
        self.tie_size = np.ones((n, width), dtype=np.int64)

    def span(self, start: int, stop: int) -> slice:
        """Where rows ``start`` to ``stop`` of the matrix are held here."""
        return slice(start - self.first, stop - self.first)


def _non_finite_error(block, start, r, source):
    col = int(np.flatnonzero(~np.isfinite(block[r]))[0])
    return InputError(f"value at index ({start + r}, {col}) is {block[r, col]}; every value must "
                      f"be a finite number", source=source)


def _count_chunk_in_c(block, start, cliques: Cliques, out: RowCounts, larger_is_better,
                      source):
    """Counts a block of rows with the C kernel (:mod:`metrics.ranking._counting`): each row is
    read once, and its items at least as good as the worst mate are copied out and counted per
    level.
    Returns the (row, level) pairs where another item has exactly the mate's score."""
    stop = start + len(block)
    here = out.span(start, stop)
    equal = np.empty((len(block), cliques.width), dtype=np.int64)
    bad = _counting.count_levels(
        block, block.dtype == np.float64, len(block), block.shape[1], start, cliques.members,
        cliques.start[start:stop], cliques.size[start:stop], cliques.width, larger_is_better,
        out.level[here], out.mate[here], out.valid[here], out.own[here], out.higher[here],
        equal)
    if bad >= 0:
        raise _non_finite_error(block, start, bad, source)
    return (equal > 1) & out.valid[here]   # the mate itself is one of the equal items


def _count_chunk_in_numpy(block, start, partners, out: RowCounts, larger_is_better, source,
                          buffer):
    """Counts one chunk with NumPy, level by level over the whole chunk, switching to one sort
    of the items still in reach when that is cheaper (see the module docstring). ``buffer`` is a
    reusable (rows, multiple of _LANE) boolean scratch array. Returns the (row, level) pairs
    where another item has exactly the mate's score."""
    c, n = block.shape
    stop = start + c
    at_least = np.greater_equal if larger_is_better else np.less_equal
    missing = np.inf if larger_is_better else -np.inf
    padded = buffer.shape[1]
    # a NaN or an infinity makes the sum non-finite (one pass, cheaper than isfinite); so can a
    # sum of huge finite values, hence the exact check before the error
    with np.errstate(over="ignore"):
        total = np.add.reduce(block, axis=None)
    if not np.isfinite(total) and not np.isfinite(block).all():
        raise _non_finite_error(block, start, int(np.argwhere(~np.isfinite(block))[0][0]), source)
    here = np.arange(c)
    cols = partners[start:stop]
    has = cols >= 0
    rel = np.where(has, block[here[:, None], np.maximum(cols, 0)], missing)
    order = np.argsort(rel if larger_is_better else -rel, axis=1, kind="stable")
    held = out.span(start, stop)
    lv = out.level[held] = np.take_along_axis(rel, order, axis=1)
    out.mate[held] = np.maximum(np.take_along_axis(cols, order, axis=1), 0)
    ok = out.valid[held] = np.take_along_axis(has, order, axis=1)
    out.own[held] = block[here, here + start]
    per_level = ok.sum(axis=0)
    depth = int(np.count_nonzero(per_level))
    width = cols.shape[1]
    mask = buffer[:c]
    inside = mask[:, :n]
    count = np.zeros((c, width), dtype=np.int64)
    tied = np.zeros((c, width), dtype=bool)
    for k in range(depth):
        t = lv[:, k:k + 1]
        at_least(block, t, out=inside)
        reach = _row_counts(mask)
        rest = depth - k - 1
        # sort the items still in reach when that costs less than counting on: about one level of
        # work per level left (0.4 more for this level's tie check), and as each level only thins
        # the items out, counting over 2.5 more levels first never pays
        if rest and _SORT_COST * reach.sum() <= min(rest + 0.4, 2.5) * c * n:
            at = _true_positions(mask) - np.repeat(np.arange(c) * (padded - n), reach)
            values, levels = np.take(block.reshape(-1), at), lv[:, k:depth]
            if not larger_is_better:
                values, levels = -values, -levels
            reached, passed = _counts_by_sorting(values, reach, levels)
            count[:, k:depth] = passed
            tied[:, k:depth] = reached - passed > 1
            break
        # the clique mate itself scores its own level; anything else equal to it is a tie
        np.equal(block, t, out=inside)
        if np.count_nonzero(mask) == per_level[k]:
            count[:, k] = reach - ok[:, k]
        else:
            equal = _row_counts(mask)
            count[:, k] = reach - equal
            tied[:, k] = equal > 1
    out.higher[held] = count
    return tied & ok


def counting_kernel() -> str:
    """Which code counts the all-vs-all ranks here: the C kernel (with its instruction set) or,
    when the extension was not built, NumPy."""
    return f"C ({_counting.instruction_set()})" if _counting is not None else "NumPy"


@dataclass(frozen=True)
class CountedRanks:
    """One entry per (query, clique mate) pair, grouped by query ascending — their number follows
    the pairs, never N × the largest clique: the query, the mate's column, its 1-based rank among
    the other N − 1 items, the items scored strictly better, and the size of its group of equal
    scores (1 when it ties with nothing). ``n`` items in all."""

    query: np.ndarray
    mate: np.ndarray
    rank: np.ndarray
    better: np.ndarray
    tie_size: np.ndarray
    n: int

    @classmethod
    def joined(cls, parts: list["CountedRanks"], n: int) -> "CountedRanks":
        """Parts of consecutive rows, in order, as one."""
        if len(parts) == 1:
            return replace(parts[0], n=n)
        return cls(*(np.concatenate([getattr(p, f) for p in parts])
                     for f in ("query", "mate", "rank", "better", "tie_size")), n=n)

    def sorted_ranks(self) -> np.ndarray:
        """N × (most mates) of each query's mates' ranks ascending, NaN padded: a dense view for
        small collections (tests, display)."""
        count = np.bincount(self.query, minlength=self.n)
        dense = np.full((self.n, max(int(count.max(initial=0)), 1)), np.nan)
        order = np.lexsort((self.rank, self.query))
        place = np.arange(len(order)) - np.repeat(np.cumsum(count) - count, count)
        dense[self.query[order], place] = self.rank[order]
        return dense


# bytes of per-mate counts one block of rows holds before they are compacted to its pairs
COUNTS_BUDGET = 32 << 20


def _compact(out: RowCounts, larger_is_better: bool) -> CountedRanks:
    """A block's counts as its valid (query, mate) pairs."""
    above = np.greater if larger_is_better else np.less
    better = out.higher - above(out.own[:, None], out.level)   # the query itself is not ranked
    row, col = np.nonzero(out.valid)
    better = better[row, col]
    return CountedRanks(out.first + row, out.mate[row, col],
                        better + 1 + out.tied_first[row, col], better, out.tie_size[row, col],
                        len(out.own))


def count_rows(matrix, cliques: Cliques, key: np.ndarray, ties: TiePolicy,
               larger_is_better: bool,
               source: str, chunk_rows: int, begin: int, end: int,
               progress=None) -> CountedRanks:
    """The counted ranks of rows ``begin`` to ``end`` of the matrix: one block of queries, the
    unit of work of :func:`relevant_ranks`, whether it runs here or as a task on a cluster (pure:
    its result depends only on its arguments). Rows are counted a part at a time, each part's
    per-mate counts (rows × the most mates of any item) within :data:`COUNTS_BUDGET`, then
    compacted to its pairs, so one large clique among many small ones costs its own pairs only."""
    n = matrix.shape[0]
    missing = np.inf if larger_is_better else -np.inf
    part_rows = max(1, COUNTS_BUDGET // (cliques.width * 8 * len(RowCounts.FIELDS)))

    def compared_as(dtype) -> np.dtype:   # float64 stays, unless trec9; all else is float32
        return np.dtype(np.float64 if dtype == np.float64 and not ties.float32 else np.float32)

    def scores(x):
        x = np.asarray(x)
        return np.ascontiguousarray(x.astype(compared_as(x.dtype), copy=False))

    # the C kernel reads the rows where they are (a memory-mapped file's pages, say) and needs no
    # chunks, so a part is one call; NumPy, or scores that must be converted first, go chunk by
    # chunk
    as_is = (_counting is not None and getattr(matrix, "flags", None) is not None
             and matrix.flags.c_contiguous and matrix.dtype == compared_as(matrix.dtype))
    if _counting is None:
        partners = cliques.partners()
        padded = max(-(-n // _LANE), 1) * _LANE
        buffer = np.zeros((min(chunk_rows, max(end - begin, 1)), padded), dtype=bool)
    counted = []
    for first in range(begin, end, part_rows):
        last = min(first + part_rows, end)
        out = RowCounts(first, last - first, cliques.width, missing)
        for start in range(first, last, max(last - first, 1) if as_is else chunk_rows):
            block = scores(matrix[start:last if as_is else min(start + chunk_rows, last)])
            if _counting is not None:
                tied = _count_chunk_in_c(block, start, cliques, out, larger_is_better, source)
            else:
                tied = _count_chunk_in_numpy(block, start, partners, out, larger_is_better,
                                             source, buffer)
            # where another item has exactly a mate's score, count the tied items whose key
            # comes first in that row alone (the query and the mate itself left out), a chunk
            # of rows at a time
            for k in np.flatnonzero(tied.any(axis=0)):
                tied_rows = np.flatnonzero(tied[:, k])
                for at in range(0, len(tied_rows), chunk_rows):
                    rows = tied_rows[at:at + chunk_rows]
                    held = start - first + rows
                    same = block[rows] == out.level[held, k:k + 1]
                    same[np.arange(len(rows)), start + rows] = False
                    out.tie_size[held, k] = same.sum(axis=1)
                    same &= key[None, :] < key[out.mate[held, k]][:, None]
                    out.tied_first[held, k] = same.sum(axis=1)
            if progress is not None:
                progress(len(block))
        counted.append(_compact(out, larger_is_better))
    return CountedRanks.joined(counted, n)


def relevant_ranks(matrix, labels, item_ids=None, ties: TiePolicy = TiePolicy.STABLE,
                   larger_is_better: bool = True, chunk_rows: int = 64,
                   source: str = "matrix", progress=None, cluster=None) -> CountedRanks:
    """The ranks of each query's clique mates among the other N − 1 items, under a tie policy
    (``trec`` compares scores as float32): rank(j) = 1 + the items scored above j + the items tied
    with j whose tie key comes first (see the module docstring). ``matrix`` is anything whose
    ``shape`` is (N, N) and whose row slices ``matrix[a:b]`` give rows of scores: an array, a
    memory map, or rows computed on demand from embeddings.
    ``matrix`` may be memory-mapped: the C kernel (when it was built, see
    :func:`counting_kernel`) reads it row by row where it lies, NumPy (or scores that must be
    converted first) ``chunk_rows`` rows at a time; both give the same ranks. Blocks of rows are
    counted by :func:`count_rows`, on this machine's cores or, given a ``cluster``
    (:class:`metrics.ranking.cluster.Cluster`), as its tasks. ``labels``: one per item, or the items
    already grouped (:class:`Cliques`)."""
    ties = ties.ordering   # tie-aware policies count in stable order
    n = matrix.shape[0]
    cliques = labels if isinstance(labels, Cliques) else Cliques(labels)
    ids = item_ids if item_ids is not None else range(n)
    key = tie_keys(np.asarray([str(x) for x in ids], dtype=object), ties)
    common = (matrix, cliques, key, ties, larger_is_better, source, chunk_rows)
    if cluster is None:
        # row blocks are independent: the threads count disjoint rows
        parts = over_parts(lambda begin, end: count_rows(*common, begin, end, progress), n, n)
    else:
        step = cluster.rows_per_task(n, n)
        bounds = [(begin, min(begin + step, n)) for begin in range(0, n, step)]
        parts = cluster.map(count_rows, common, bounds, [end - begin for begin, end in bounds],
                            progress)
    return CountedRanks.joined(parts, n)
