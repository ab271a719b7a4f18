"""Judging: filling the holes of a ground truth, pooling what to judge across systems, and
measuring how far judges agree. Pure engine: no Streamlit.

The contract (stable; the dashboard and the command line use these and nothing else):

``Judgment(dataset, query, item, grade, judge, pool, time=None, id=None)``
    One judgment, frozen. ``dataset`` is the dataset's content hash (:func:`dataset_digest` of
    its ground-truth file's bytes); ``pool`` what the item was judged from ("depth-10 of a,b",
    "explorer top 10"); ``time`` (UTC) and ``id`` are set by the store. A grade is a whole
    number ≥ 0; anything else is an :class:`~metrics.errors.InputError`.

``JudgmentStore(target)``
    A file path (SQLite, created if missing) or a ``postgresql://…`` URL; the one table
    (id, dataset, query, item, grade, judge, pool, time) is created if missing. Append-only:
    judging again adds a row, the latest (largest id) counts.

    * ``add(judgment) -> Judgment``: one transaction, committed before it returns (then it is
      acknowledged); the returned judgment has ``id`` and ``time``. Raises
      :class:`~metrics.errors.StoreError` (an InputError: one clear line) when it could not be
      stored (read-only file, server down, ...); then nothing was stored.
    * ``latest(dataset, judge=None) -> dict[(query, item), grade]``: the grade that counts for
      each judged pair (with ``judge``: that judge's latest), in the order judged.
    * ``history(dataset, query=None) -> list[Judgment]``: oldest first.
    * ``judges(dataset) -> list[str]``, ``datasets() -> list[str]``: in order of first judgment.
    * ``close()``; also a context manager.

    ``metrics.judgments.store.shown(target)`` is a target as messages name it (a URL without its
    password).

``dataset_digest(*blobs) -> str``
    SHA-256 hex of one file's bytes (what ``sha256sum`` prints); of several: of their digests,
    one a line, in order.

``merged_qrels(truth: GroundTruth | None, judgments: {(query, item): grade}) -> GroundTruth``
    The original ground truth (as :func:`metrics.loaders.load_qrels` gives it) with the
    judgments applied: a later grade for a pair it has, new pairs added (its queries first, in
    order; within a query its pairs first). ``None``: the judgments alone. ``qrels_text(truth)``
    writes any ground truth as TREC qrels lines (``query 0 item grade``).

``depth_pool(runs: {name: Run}, depth, judged=None, ties=STABLE) -> DataFrame``
``take_pool(runs, budget, judged=None, depth=None, ties=STABLE) -> DataFrame``
    ``runs`` as :func:`metrics.loaders.load_run` gives them, under their system names;
    ``judged`` a GroundTruth (pairs of grade ≥ 0 count as judged; −1 is "pooled, not judged")
    or a collection of (query, item) pairs. One row per pair to judge, columns
    ``query_id, item_id, best_rank, first_system, num_systems`` (see :mod:`.pools`). Depth-K is
    the union of each run's top K; Take@N takes rank 1 of every run in order, then rank 2, ...,
    passing over items already taken or judged, until N items per query (or rank ``depth``).

``judging_queue(lists: {system: ranked item ids}, depth, judged=()) -> list[QueueEntry]``
    One query's unjudged items among each shown system's top ``depth``, in the dashboard's
    order: largest spread of the item's ranks across the systems first (an item a system lacks
    within the depth at rank depth + 1), then best rank, then item id. ``QueueEntry(item,
    ranks: {system: rank or None}, spread, best_rank)``.

``agreement(truth_a, truth_b, rel=1, runs=None, measure="AP", ties=STABLE) -> Agreement``
    On the pairs both judged (grade ≥ 0 on both sides): ``pairs``, ``kappa`` (Cohen's, on
    grade ≥ rel), ``weighted_kappa`` (linear weights over every grade from the smallest to the
    largest seen), ``per_query`` {query: QueryAgreement(pairs, kappa, reason)}, ``systems``
    (with runs: ``SystemAgreement(measure, names, mean_a, mean_b, kendall_tau, tau_reason,
    swaps)``, else None), ``reasons`` {"kappa" | "weighted_kappa": why undefined}; undefined
    values are None, never made up. ``to_json()`` is the command line's JSON, ``notes()`` the
    reasons as lines.
"""

from metrics.judgments.agreement import (Agreement, Kappa, QueryAgreement, SystemAgreement,
                                         agreement)
from metrics.judgments.model import Judgment, dataset_digest
from metrics.judgments.pools import (POOL_COLUMNS, QueueEntry, depth_pool, judging_queue,
                                     take_pool)
from metrics.judgments.store import JudgmentStore
from metrics.judgments.truth import merged_qrels, qrels_text

__all__ = ["Agreement", "Judgment", "JudgmentStore", "Kappa", "POOL_COLUMNS", "QueryAgreement",
           "QueueEntry", "SystemAgreement", "agreement", "dataset_digest", "depth_pool",
           "judging_queue", "merged_qrels", "qrels_text", "take_pool"]
