"""All-vs-all evaluation at scale: rank the relevant items of every query by *counting*, not
sorting.

For query i (a row of an N×N score matrix) and each item j of its clique, the rank of j is one plus
the number of other items scored above it (plus the tied ones the policy puts first), the query
itself excluded. Counting reads each row once: a first comparison against the lowest relevant
score keeps only the few candidates that can be above some relevant item, and only those are
compared with each relevant score. Rows are processed in chunks, so memory is bounded by the
chunk size and a memory-mapped matrix never has to fit in RAM.

Binary measures that depend only on the ranks of the relevant items (AP, RR, P@k, R@k, nDCG,
FirstRank, MedianRank, MeanRank, Rprec, BEP and the counts) are computed from those ranks; the
dense engine (:mod:`metrics.ranking`) gives the same numbers and is used for every other measure.
"""

from __future__ import annotations

import numpy as np
import pandas as pd

from .errors import InputError
from .evaluate import EvaluationResult, MeasureResult
from .measures.common import divide
from .model import TieReport
from .ranking import _id_order_key, check_policy
from .registry import Measure, parse_measures

STREAMABLE = {"AP", "RR", "P", "R", "nDCG", "FirstRank", "MedianRank", "MeanRank", "Rprec",
              "BEP", "NumRel", "NumRet", "NumRelRet"}


def streamable(measures: list[Measure]) -> bool:
    """True when every measure can be computed from the relevant items' ranks alone."""
    return all(m.name in STREAMABLE and not m.params for m in measures)


def clique_partners(labels: np.ndarray) -> np.ndarray:
    """N × (largest clique − 1) column indices of each item's clique mates, -1 padded."""
    codes, _ = pd.factorize(np.asarray(labels, dtype=object))
    order = np.argsort(codes, kind="stable")
    sizes = np.bincount(codes)
    starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
    width = max(int(sizes.max()) - 1, 1) if len(sizes) else 1
    partners = np.full((len(codes), width), -1, dtype=np.int64)
    for offset in range(int(sizes.max()) if len(sizes) else 0):  # a loop over clique positions
        has = sizes[codes] > offset
        member = order[starts[codes[has]] + offset]
        rows = np.flatnonzero(has)
        not_self = member != rows
        rows, member = rows[not_self], member[not_self]
        slot = (partners[rows] >= 0).sum(axis=1)
        partners[rows, slot] = member
    return partners


def relevant_ranks(matrix, labels, item_ids=None, ties: str = "stable",
                   larger_is_better: bool = True, chunk_rows: int = 512,
                   source: str = "matrix") -> np.ndarray:
    """N × m ranks (1-based, ascending, NaN padded) of each query's clique mates among the other
    N − 1 items, under a tie policy (``trec`` compares scores as float32)."""
    check_policy(ties)
    n = matrix.shape[0]
    partners = clique_partners(labels)
    ids = np.asarray([str(x) for x in (item_ids if item_ids is not None else range(n))],
                     dtype=object)
    if ties == "stable":
        key = np.arange(n)
    elif ties == "id":
        key = _id_order_key(ids)
    else:
        key = -pd.factorize(ids, sort=True)[0]
    ranks = np.full(partners.shape, np.nan)
    valid = partners >= 0
    for start in range(0, n, chunk_rows):
        stop = min(start + chunk_rows, n)
        block = np.asarray(matrix[start:stop])
        if ties == "trec" or block.dtype != np.float64:
            block = block.astype(np.float32, copy=False)
        if not larger_is_better:
            block = -block
        if not np.isfinite(block).all():
            r, c = np.argwhere(~np.isfinite(block))[0]
            raise InputError(f"value at index ({start + r}, {c}) is {block[r, c]}; every value "
                             f"must be a finite number", source=source)
        rows = np.arange(stop - start)
        cols = partners[start:stop]
        ok = valid[start:stop]
        rel = np.where(ok, block[rows[:, None], np.maximum(cols, 0)], np.inf)
        lowest = rel.min(axis=1)
        cand_row, cand_col = np.nonzero(block >= lowest[:, None])
        cand_val = block[cand_row, cand_col]
        self_val = block[rows, rows + start]
        for j in range(cols.shape[1]):  # a loop over clique positions, not over queries
            rj = rel[cand_row, j]
            cj = cols[cand_row, j]
            before = (cand_val > rj) | ((cand_val == rj) & (key[cand_col] < key[np.maximum(cj, 0)]))
            count = np.bincount(cand_row, weights=before, minlength=len(rows))
            own = (self_val > rel[:, j]) | ((self_val == rel[:, j]) &
                                            (key[rows + start] < key[np.maximum(cols[:, j], 0)]))
            ranks[start:stop, j] = np.where(ok[:, j], 1 + count - own, np.nan)
    return np.sort(ranks, axis=1)  # NaN sorts last


def evaluate_ranks(ranks: np.ndarray, query_ids, measures, list_length: int,
                   warnings: tuple[str, ...] = ()) -> EvaluationResult:
    """The streamable measures from sorted relevant ranks (all relevant items are retrieved: the
    list is the whole collection but the query)."""
    parsed = parse_measures(measures)
    if not streamable(parsed):
        raise InputError("these measures need the full ranking, not only the relevant ranks")
    r_q = (~np.isnan(ranks)).sum(axis=1).astype(np.float64)
    position = np.arange(1, ranks.shape[1] + 1, dtype=np.float64)
    results = {}
    for m in parsed:
        k = m.cutoff
        inside = ~np.isnan(ranks) & (ranks <= (k if k is not None else np.inf))
        hits = inside.sum(axis=1).astype(np.float64)
        safe = np.where(inside, ranks, 1.0)
        if m.name == "AP":
            value = divide((np.where(inside, position / safe, 0.0)).sum(axis=1), r_q)
        elif m.name == "RR":
            value = np.where(inside[:, 0], 1.0 / safe[:, 0], 0.0)
        elif m.name == "P":
            value = hits / (k if k is not None else list_length)
        elif m.name == "R":
            value = divide(hits, r_q)
        elif m.name == "nDCG":
            dcg = np.where(inside, 1.0 / np.log2(safe + 1.0), 0.0).sum(axis=1)
            ideal_n = np.minimum(r_q, k) if k is not None else r_q
            ideal = np.where(position[None, :] <= ideal_n[:, None],
                             1.0 / np.log2(position + 1.0)[None, :], 0.0).sum(axis=1)
            value = divide(dcg, ideal)
        elif m.name == "FirstRank":
            value = np.where(inside[:, 0], ranks[:, 0], np.nan)
        elif m.name in ("MedianRank", "MeanRank"):
            masked = np.where(inside, ranks, np.nan)
            value = np.full(len(ranks), np.nan)
            some = inside.any(axis=1)
            reduce = np.nanmedian if m.name == "MedianRank" else np.nanmean
            if some.any():
                value[some] = reduce(masked[some], axis=1)
        elif m.name in ("Rprec", "BEP"):
            value = divide((~np.isnan(ranks) & (ranks <= r_q[:, None])).sum(axis=1), r_q)
        elif m.name == "NumRel":
            value = r_q.copy()
        elif m.name == "NumRet":
            value = np.full(len(ranks), float(min(k, list_length) if k else list_length))
        else:  # NumRelRet
            value = hits
        value = np.where(r_q == 0, np.nan, value)
        results[str(m)] = MeasureResult(str(m), value, m.definition.convention,
                                        m.definition.higher_is_better)
    return EvaluationResult(np.asarray(query_ids, dtype=object), results, warnings,
                            TieReport(), tuple(sorted({m.cutoff for m in parsed if m.cutoff})))
