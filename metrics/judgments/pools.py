"""What to judge over several systems: depth-K pooling (:func:`depth_pool`), a budget of N items
per query taken round-robin by rank (:func:`take_pool`), and the order in which the dashboard
offers one query's unjudged items (:func:`judging_queue`).

A pool is a pandas DataFrame, one row per (query, item) to judge, with columns

* ``query_id``, ``item_id``;
* ``best_rank``: the best (smallest, from 1) rank any system gives the item;
* ``first_system``: the first system, in the order given, that ranks it there;
* ``num_systems``: how many systems have it within the depth.

Rows come by query (in the order the queries first appear in the runs, the runs in the order
given), then in the order they were pooled: by rank, and at one rank by system. Runs are ranked
by :func:`~metrics.ranking.rank.rank_run` under a tie policy; only each query's first ``depth``
rows are read, so a pool costs what it holds, not the runs' length.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Collection, Mapping, Sequence

import numpy as np

from metrics.data.relevance import Relevance
from metrics.data.run import Run
from metrics.data.ties import TiePolicy
from metrics.data.truth import GroundTruth
from metrics.errors import InputError
from metrics.ranking.rank import rank_run

POOL_COLUMNS = ("query_id", "item_id", "best_rank", "first_system", "num_systems")

Judged = GroundTruth | Collection[tuple[str, str]] | None


def _check_depth(depth, what: str = "depth") -> int:
    if isinstance(depth, bool) or not isinstance(depth, (int, np.integer)) or depth < 1:
        raise InputError(f"the pool's {what} is a whole number of at least 1 (got {depth!r})")
    return int(depth)


def ranked_top(runs: Mapping[str, Run], depth: int, ties: TiePolicy = TiePolicy.STABLE):
    """Every system's first ``depth`` items of every query, as a DataFrame (query_id, item_id,
    rank from 1, system: its position in ``runs``), ordered by query (first appearance), rank,
    system."""
    return _top(_ranked(runs, ties), _check_depth(depth))


def _ranked(runs: Mapping[str, Run], ties: TiePolicy) -> list:
    if not runs:
        raise InputError("a pool needs at least one run")
    return [rank_run(run, ties) for run in runs.values()]


def _top(ranked: list, depth: int):
    import pandas as pd

    parts = []
    for number, run in enumerate(ranked):
        lengths = np.minimum(np.diff(run.offsets), depth)
        query = np.repeat(np.arange(len(lengths)), lengths)
        rank = np.arange(lengths.sum()) - np.repeat(np.cumsum(lengths) - lengths, lengths) + 1
        rows = run.item_rows[run.offsets[query] + rank - 1]
        parts.append(pd.DataFrame({
            "query_id": np.asarray(run.query_ids, dtype=object)[query],
            "item_id": run.items.take(rows), "rank": rank.astype(np.int64),
            "system": np.full(len(rank), number, dtype=np.int64)}))
    frame = pd.concat(parts, ignore_index=True)
    order = pd.unique(frame["query_id"])   # queries as they first appear, runs in order
    frame["query_order"] = pd.Categorical(frame["query_id"], categories=order).codes
    frame = frame.sort_values(["query_order", "rank", "system"], kind="stable")
    return frame.drop(columns="query_order").reset_index(drop=True)


def judged_pairs(judged: Judged):
    """The (query, item) pairs already judged, as a DataFrame: a ground truth's pairs of a grade
    0 or more (−1 is trec_eval's "pooled, not judged": still to judge), or the pairs given."""
    import pandas as pd

    if judged is None:
        return pd.DataFrame({"query_id": [], "item_id": []}, dtype=object)
    if isinstance(judged, GroundTruth):
        if judged.unlisted_judged:
            raise InputError(f"{judged.name} judges every item (labels or a taxonomy): nothing "
                             "is left to pool; give qrels")
        keep = Relevance.judged(judged.pair_grade)
        return pd.DataFrame({
            "query_id": np.asarray(judged.query_ids, dtype=object)[judged.pair_query[keep]],
            "item_id": np.asarray(judged.pair_items.tolist(), dtype=object)[keep]})
    pairs = list(judged)
    return pd.DataFrame({"query_id": [str(q) for q, _ in pairs],
                         "item_id": [str(i) for _, i in pairs]}, dtype=object)


def _unjudged(frame, judged: Judged):
    """The rows of ``frame`` whose pair is not judged."""
    pairs = judged_pairs(judged)
    if not len(pairs):
        return frame
    marked = frame.merge(pairs.drop_duplicates().assign(_judged=True),
                         on=["query_id", "item_id"], how="left", sort=False)
    return frame[marked["_judged"].isna().to_numpy()]


def _pool(frame, names: Sequence[str]):
    """One row per pooled pair, in the order pooled (``frame`` is already in that order): its
    first row has the best rank and the first system at it."""
    import pandas as pd

    pair = ["query_id", "item_id"]
    counted = frame.assign(num_systems=frame.groupby(pair, sort=False)["system"]
                           .transform("nunique"))
    first = counted.drop_duplicates(pair, keep="first")
    return pd.DataFrame({
        "query_id": first["query_id"].to_numpy(dtype=object),
        "item_id": first["item_id"].to_numpy(dtype=object),
        "best_rank": first["rank"].to_numpy(dtype=np.int64),
        "first_system": np.asarray(names, dtype=object)[first["system"].to_numpy()],
        "num_systems": first["num_systems"].to_numpy(dtype=np.int64)})[list(POOL_COLUMNS)]


def depth_pool(runs: Mapping[str, Run], depth: int, judged: Judged = None,
               ties: TiePolicy = TiePolicy.STABLE):
    """Depth-K pooling, as TREC pools: the union of every run's first ``depth`` items of each
    query, less the pairs already ``judged`` (a ground truth, or (query, item) pairs). Returns
    the pool (the module's columns); ``runs`` is ``{system name: run}``."""
    frame = _unjudged(ranked_top(runs, depth, ties), judged)
    return _pool(frame, list(runs))


def take_pool(runs: Mapping[str, Run], budget: int, judged: Judged = None,
              depth: int | None = None, ties: TiePolicy = TiePolicy.STABLE):
    """Take@N: at most ``budget`` items per query, taken round-robin by rank across the runs.
    Rank 1 of every run, the runs in the order given, then rank 2 of every run, and so on: an
    item already taken or already ``judged`` is passed over (the run's turn at that rank is
    spent), and a query's pool closes at ``budget`` items or, with ``depth``, after rank
    ``depth``. ``num_systems`` counts the systems that rank the item within the ranks read."""
    budget = _check_depth(budget, "budget")
    ranked = _ranked(runs, ties)
    longest = max(int(np.diff(r.offsets).max(initial=0)) for r in ranked)
    # judged and repeated items are passed over, so N items may lie deeper than rank N: without
    # a depth, read twice as deep until every query has its N items or its lists run out
    read = min(budget, longest) if depth is None else _check_depth(depth)
    while True:
        frame = _unjudged(_top(ranked, max(read, 1)), judged)
        pool = _pool(frame, list(runs))
        sizes = pool.groupby("query_id", sort=False).size()
        short = (sizes < budget).any() or len(sizes) < _num_queries(ranked)
        if depth is not None or read >= longest or not short:
            break
        read = min(2 * read, longest)
    return pool.groupby("query_id", sort=False).head(budget).reset_index(drop=True)


def _num_queries(ranked: list) -> int:
    """How many distinct queries the ranked runs have (with at least one item)."""
    queries = set()
    for run in ranked:
        lengths = np.diff(run.offsets)
        queries.update(np.asarray(run.query_ids, dtype=object)[lengths > 0].tolist())
    return len(queries)


@dataclass(frozen=True)
class QueueEntry:
    """One unjudged item of a query's judging queue: its rank in each system shown (None where
    a system does not have it within the depth), the spread of those ranks (an absent item at
    depth + 1) and its best rank."""

    item: str
    ranks: dict[str, int | None]
    spread: int
    best_rank: int


def judging_queue(lists: Mapping[str, Sequence[str]], depth: int,
                  judged: Collection[str] = ()) -> list[QueueEntry]:
    """The dashboard's order for judging one query: the unjudged items among the first
    ``depth`` of each system shown (``lists``: ``{system: ranked item ids}``, best first),
    ordered by how much a judgment of each could change the comparison of those systems.

    The rule: largest spread first, where an item's spread is the largest minus the smallest of
    its ranks across the systems, an item a system does not have within ``depth`` counted at
    rank ``depth + 1`` (an item one system ranks high and another low or not at all comes
    first); then by best rank; then by item id. With one system every spread is 0 and the
    queue is that system's ranking. ``judged`` holds the query's items already judged."""
    depth = _check_depth(depth)
    judged = set(judged)
    ranks: dict[str, dict[str, int]] = {}
    for system, items in lists.items():
        for rank, item in enumerate(list(items)[:depth], start=1):
            item = str(item)
            if item not in judged:
                ranks.setdefault(item, {}).setdefault(system, rank)
    entries = []
    for item, found in ranks.items():
        every = [found.get(system, depth + 1) for system in lists]
        entries.append(QueueEntry(item, {s: found.get(s) for s in lists},
                                  max(every) - min(every), min(found.values())))
    entries.sort(key=lambda e: (-e.spread, e.best_rank, e.item))
    return entries
