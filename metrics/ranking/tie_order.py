"""Equal scores under a tie policy: the scores as a policy compares them, each item's place among
equal scores, and the groups of tied rows of a list already in rank order (with the report of
them that warnings and the tie-aware policies read). The policies themselves are
:class:`~metrics.data.ties.TiePolicy`."""

from __future__ import annotations

from typing import Callable

import numpy as np

# pandas is imported inside the functions that use it (see metrics.data.run).

from metrics.data.idcolumn import IdColumn
from metrics.data.judged import TieReport
from metrics.data.ties import TiePolicy
from metrics.parallel import over_parts


def _as_numbers(ids: np.ndarray):
    import pandas as pd
    return pd.to_numeric(pd.Series(ids, dtype=object), errors="coerce")


def _whole_number_values(ids: np.ndarray):
    """The ids as numbers when the ``id`` policy orders them numerically (every one a whole
    number), else None."""
    numeric = _as_numbers(ids)
    if len(ids) and numeric.notna().all() and (numeric == np.floor(numeric)).all():
        return numeric
    return None


def ids_are_whole_numbers(ids: np.ndarray) -> bool:
    """Whether the ``id`` policy orders these ids numerically: every one a whole number."""
    return _whole_number_values(ids) is not None


def id_order_key(ids: np.ndarray) -> np.ndarray:
    """Integer keys that sort ids ascending: numerically if all are integers, else as strings."""
    import pandas as pd
    numeric = _whole_number_values(ids)
    if numeric is not None:
        return pd.factorize(numeric.to_numpy(np.float64), sort=True)[0]
    return pd.factorize(ids, sort=True)[0]


def policy_scores(scores: np.ndarray, ties: TiePolicy) -> np.ndarray:
    """The scores as the policy compares them (as float32 for ``trec9``)."""
    if not ties.float32:
        return scores
    from metrics.ranking.float32_scores import rounded

    # a score beyond float32's range becomes ±inf, as trec_eval's cast to float makes it: the
    # policy, not an accident to warn of (issue 42, item 17)
    return rounded(scores)


def tie_keys(item_ids: np.ndarray, ties: TiePolicy) -> np.ndarray:
    """Each item's place when equal scores are ordered by the tie policy (lower comes first)."""
    if ties is TiePolicy.STABLE:
        return np.arange(len(item_ids))
    if ties is TiePolicy.ID:
        return np.asarray(id_order_key(item_ids))
    return -np.unique(np.asarray(item_ids, dtype=object).astype(str), return_inverse=True)[1]


_SCAN_CHUNK = 1 << 20


def scan_rank_order(query_codes: np.ndarray, scores: np.ndarray,
                     ties: TiePolicy) -> tuple[bool, np.ndarray]:
    """Whether rows are already in rank order (query codes ascending, scores as the policy
    compares them descending within a query), and the rows whose next row ties with them (same
    query, equal score). Done in chunks, so no temporary grows with the run."""
    def scan(begin: int, end: int) -> tuple[bool, list[np.ndarray]]:
        ordered, tied = True, [np.zeros(0, dtype=np.int64)]
        for start in range(begin, end, _SCAN_CHUNK):
            stop = min(start + _SCAN_CHUNK, end)  # pairs (i, i + 1) for start <= i < stop
            q = query_codes[start:stop + 1]
            s = policy_scores(scores[start:stop + 1], ties)
            same_query = q[1:] == q[:-1]
            if ordered:
                ordered = not (np.any(q[1:] < q[:-1]) or np.any(same_query & (s[1:] > s[:-1])))
            tied.append(np.flatnonzero(same_query & (s[1:] == s[:-1])) + start)
        return ordered, tied

    parts = over_parts(scan, max(len(query_codes) - 1, 0))
    return (all(ordered for ordered, _ in parts),
            np.concatenate([rows for _, tied in parts for rows in tied]))


def tied_row_groups(tied: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """First row and size of every group of consecutive equal rows, from the rows whose next row
    ties with them (see :func:`scan_rank_order`)."""
    # a group starts where a chain of consecutive tied rows begins
    opens = np.r_[True, tied[1:] != tied[:-1] + 1] if len(tied) else np.zeros(0, dtype=bool)
    return tied[opens], np.diff(np.r_[np.flatnonzero(opens), len(tied)]).astype(np.int64) + 1


def tie_report(query_codes: np.ndarray, scores: np.ndarray | None, ties: TiePolicy,
               position_of: Callable[[np.ndarray], np.ndarray],
               hit_rows: np.ndarray | None = None
               ) -> tuple[TieReport, np.ndarray | None, np.ndarray | None]:
    """Tie groups of rows already in rank order (None ``scores`` for bare lists, which have no
    ties; ``position_of``: the 0-based list position of some rows). Only the tied rows are looked
    at after the first comparison, so a run with few ties costs one pass. With ``hit_rows``
    (ascending), also the 0-based list position of the first row of each one's group and the
    group's size (the row itself and 1 when it ties with nothing); else None, None."""
    if scores is None or len(scores) < 2:
        return TieReport(), None, None
    first_rows, sizes = tied_row_groups(scan_rank_order(query_codes, scores, ties)[1])
    if not len(first_rows):
        return TieReport(), None, None
    first = position_of(first_rows)
    tied_queries = len(np.unique(query_codes[first_rows]))
    report = TieReport(int(sizes.sum()), tied_queries, first, first + sizes - 1)
    if hit_rows is None:
        return report, None, None
    group = np.searchsorted(first_rows, hit_rows, side="right") - 1
    inside = (group >= 0) & (hit_rows < first_rows[np.maximum(group, 0)]
                             + sizes[np.maximum(group, 0)])
    hit_first = np.where(inside, first_rows[np.maximum(group, 0)], hit_rows)
    return report, position_of(hit_first), np.where(inside, sizes[np.maximum(group, 0)], 1)


def tie_order(items: IdColumn, positions: np.ndarray, ties: TiePolicy) -> np.ndarray:
    """Sort keys of the items at some positions under a tie policy (stable needs none: input
    order stands)."""
    if ties is TiePolicy.ID:
        return id_order_key(items.take(positions))
    # trec: id descending, compared as bytes (strcmp), which is also code-point order
    return -items.dense_ranks(positions)
