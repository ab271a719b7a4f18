"""Finding the judged pairs among the retrieved ones: which (query, item) rows of a ranked run the
ground truth lists, and with which judgement.

Pairs are matched on 64-bit keys of the items (:attr:`metrics.data.idcolumn.IdColumn.keys`, or the
C reader's, :mod:`metrics.loaders.trec_lines`): judged pairs are few (tens per query) and
retrieved ones many, so the look-up is built from the judged side once per ground truth
(:func:`judged_keys`) and each retrieved row costs one probe of a table that sits in cache.

* With the compiled reader, each query's judged keys fill a small table when that query's rows
  begin (:func:`metrics.loaders.trec_lines.judged_lookup`, one pass in C).
* Without it, the (query, item) keys mark a table of about 16 one-byte slots per judged pair
  (fewer past a million pairs): one look-up discards nearly every retrieved pair; a second table
  gives, for each marked slot, the one judged key in it, and one comparison settles the pair; the
  few slots that two judged keys share are searched among the sorted keys. Rows are taken in
  chunks, so no temporary grows with the run.

Every match is then confirmed on the query and the item id; if two judged pairs share a key or a
match is not confirmed (a hash collision), the look-up is redone on the ids, so a collision can
slow a result down but never change it.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.data.idcolumn import IdColumn, mix
from metrics.data.truth import GroundTruth
from metrics.loaders.trec_lines import COMPILED, judged_lookup, repeats_within_runs
from metrics.parallel import over_parts

_LOOKUP_CHUNK = 1 << 20
_SHARED = -1   # a slot of the judged-key table that holds more than one judged key


@dataclass(frozen=True, eq=False)
class JudgedKeys:
    """The ground truth's judged (query, item) keys as the NumPy look-up uses them."""

    order: np.ndarray          # the judged pairs in key order
    sorted_keys: np.ndarray
    shift: np.uint64
    marked: np.ndarray         # slots that hold a judged key
    place_of: np.ndarray       # the judged key in each marked slot, or _SHARED
    query_mix: np.ndarray


@dataclass(frozen=True, eq=False)
class QueryKeys:
    """The ground truth's judged item keys grouped by query, as the C look-up uses them: query
    j's are ``keys[start[j]:start[j + 1]]``, the judged pairs ``order[start[j]:start[j + 1]]``."""

    order: np.ndarray
    start: np.ndarray
    keys: np.ndarray


def judged_keys(truth: GroundTruth, keys: np.ndarray) -> JudgedKeys | QueryKeys | None:
    """The look-up tables of the truth's judged keys, made once per ground truth however many
    blocks of a run are looked up in them, or None when two judged pairs share a key (then pairs
    are matched on the ids); ``keys``: those of ``truth.pair_items`` as the run's items are
    keyed (``type(items).keys_of(truth.pair_items)``)."""
    if COMPILED:
        # (a ground truth's pairs usually come grouped by query: then this sort is one pass)
        order = np.argsort(truth.pair_query, kind="stable")
        grouped_keys = keys[order]
        counts = np.bincount(truth.pair_query, minlength=len(truth.query_ids))
        if repeats_within_runs(grouped_keys, counts):
            return None
        start = np.zeros(len(truth.query_ids) + 1, dtype=np.int64)
        np.cumsum(counts, out=start[1:])
        return QueryKeys(order, start, grouped_keys)
    truth_keys = mix(truth.pair_query, keys)
    order = np.argsort(truth_keys)
    sorted_keys = truth_keys[order]
    if (sorted_keys[1:] == sorted_keys[:-1]).any():
        return None
    # about 16 slots per judged key, but no more than 2^24 slots (80 MB with ``place_of``) while
    # at least two per key: a ground truth of millions of judgements gets a table of its size
    size = int(len(sorted_keys)).bit_length()
    bits = max(min(size + 4, 24), size + 1, 10)
    shift = np.uint64(64 - bits)
    judged_slots = (sorted_keys >> shift).view(np.int64)   # ascending, as the keys are
    marked = np.zeros(1 << bits, dtype=bool)
    marked[judged_slots] = True
    # the judged key in each slot (its place among the sorted keys), or SHARED
    place_of = np.empty(1 << bits, dtype=np.int32)
    place_of[judged_slots] = np.arange(len(judged_slots), dtype=np.int32)
    shared = judged_slots[1:][judged_slots[1:] == judged_slots[:-1]]
    place_of[shared] = _SHARED
    return JudgedKeys(order, sorted_keys, shift, marked, place_of,
                      mix(np.arange(len(truth.query_ids)), np.uint64(0)))


_MAKE_KEYS = object()   # judged_matches' keys: made there, from the truth


def judged_matches(truth: GroundTruth, query_index: np.ndarray, rows: np.ndarray,
                   items: IdColumn, keys: JudgedKeys | QueryKeys | None | object = _MAKE_KEYS
                   ) -> tuple[np.ndarray, np.ndarray]:
    """The (truth query index, item at ``rows``) pairs that the truth lists: their places in
    ``rows`` (ascending) and the index of the matching judgement; ``keys``: the truth's
    :func:`judged_keys`, when already made (None too: then they are not made again per call)."""
    none = np.zeros(0, dtype=np.int64)
    if not len(truth.pair_item) or not len(rows):
        return none, none
    if keys is _MAKE_KEYS:
        keys = judged_keys(truth, type(items).keys_of(truth.pair_items))
    if keys is None:
        return matches_by_id(truth, query_index, items.take(rows))
    if isinstance(keys, QueryKeys):
        # each truth query's rows stand together (as ranked): one run each
        run_first = np.flatnonzero(np.r_[True, query_index[1:] != query_index[:-1]])
        found, place = judged_lookup(items.keys, rows, run_first,
                                     np.diff(np.r_[run_first, len(rows)]),
                                     query_index[run_first], keys.start, keys.keys, len(rows))
        at = keys.order[place]
    else:
        found, at = _numpy_matches(keys, query_index, rows, items.keys)
    if (truth.pair_query[at] == query_index[found]).all() and \
            items.same_as(rows[found], truth.pair_items, at).all():
        by_place = np.argsort(found, kind="stable")
        return found[by_place].astype(np.int64), at[by_place].astype(np.int64)
    return matches_by_id(truth, query_index, items.take(rows))


def _numpy_matches(keys: JudgedKeys, query_index: np.ndarray, rows: np.ndarray,
                   all_keys: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    order, sorted_keys, shift = keys.order, keys.sorted_keys, keys.shift
    marked, place_of, query_mix = keys.marked, keys.place_of, keys.query_mix

    def matches(begin: int, end: int) -> tuple[list[np.ndarray], ...]:
        found, places, left, left_keys = [], [], [], []
        for start in range(begin, end, _LOOKUP_CHUNK):
            stop = min(start + _LOOKUP_CHUNK, end)
            keys = all_keys[rows[start:stop]]
            keys ^= query_mix[query_index[start:stop]]
            slots = (keys >> shift).view(np.int64)  # < 2**bits: the view is exact
            marked_rows = np.flatnonzero(np.take(marked, slots))
            keys = keys[marked_rows]
            place = np.take(place_of, slots[marked_rows])
            crowded = place == _SHARED
            hit = sorted_keys[np.maximum(place, 0)] == keys
            hit &= ~crowded
            found.append(marked_rows[hit] + start)
            places.append(place[hit])
            left.append(marked_rows[crowded] + start)
            left_keys.append(keys[crowded])
        return found, places, left, left_keys

    parts = over_parts(matches, len(rows))
    found, at, left, left_keys = (np.concatenate([piece for part in parts for piece in part[i]])
                                  for i in range(4))
    if len(left):   # keys in shared slots: search them among the sorted judged keys
        place = np.minimum(np.searchsorted(sorted_keys, left_keys), len(sorted_keys) - 1)
        hit = sorted_keys[place] == left_keys
        found, at = np.concatenate([found, left[hit]]), np.concatenate([at, place[hit]])
    return found, order[at]


def matches_by_id(truth: GroundTruth, query_index: np.ndarray,
                  item_ids: np.ndarray) -> tuple[np.ndarray, np.ndarray]:
    """The same look-up as :func:`judged_matches` on the ids themselves (exact, slower)."""
    import pandas as pd
    judged = pd.MultiIndex.from_arrays([truth.pair_query, truth.pair_item])
    at = judged.get_indexer(pd.MultiIndex.from_arrays([query_index, item_ids]))
    found = np.flatnonzero(at >= 0)
    return found.astype(np.int64), at[found].astype(np.int64)
