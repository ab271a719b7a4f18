"""Rows of runs and judgements: ids as strings, and the documented rule for a (query, item) pair
given twice (the first occurrence is kept, with a warning)."""

from __future__ import annotations

from typing import Iterable

import numpy as np

from metrics.data.idcolumn import IdColumn, mix
from metrics.parallel import over_parts


def as_str_array(values: Iterable) -> np.ndarray:
    return np.asarray([str(v) for v in values], dtype=object)


def _no_key_repeats(query_codes: np.ndarray, keys: np.ndarray) -> bool:
    """True when no query has the same key twice: by sorting each query's keys in a queries ×
    list-length matrix when the lists are even (fast: each row is short and sorted in cache),
    else (queries in several blocks, very uneven list lengths) by one sort of the (query, key)
    mixes, so a skewed run costs what its lines cost."""
    n = len(keys)
    starts = np.r_[0, np.flatnonzero(query_codes[1:] != query_codes[:-1]) + 1]
    lengths = np.diff(np.r_[starts, n])
    width = int(lengths.max())
    if len(np.unique(query_codes[starts])) != len(starts) or len(starts) * width > 4 * n:
        mixed = np.sort(mix(query_codes, keys))
        return not bool((mixed[1:] == mixed[:-1]).any())
    sentinel = np.iinfo(np.uint64).max  # pads short lists; sorts last
    padded = not (lengths == width).all()
    if not padded:
        table = keys.reshape(len(starts), width)
    else:
        if (keys == sentinel).any():
            return False
        table = np.full((len(starts), width), sentinel, dtype=np.uint64)
        positions = np.arange(n) - np.repeat(starts, lengths)
        table[np.repeat(np.arange(len(starts)), lengths), positions] = keys

    def repeats_in(start: int, stop: int) -> bool:
        rows = np.sort(table[start:stop], axis=1)
        equal = rows[:, 1:] == rows[:, :-1]
        if padded:
            equal &= rows[:, 1:] != sentinel
        return bool(equal.any())
    return not any(over_parts(repeats_in, len(table), width))



def later_repeats(query_codes: np.ndarray, items: IdColumn) -> np.ndarray | None:
    """Mask of the rows whose (query, item) pair already occurred on an earlier row, or None when
    no pair repeats. Keys find the suspects; their ids decide."""
    if len(query_codes) < 2 or _no_key_repeats(query_codes, items.keys):
        return None
    import pandas as pd
    suspect = np.flatnonzero(pd.Series(mix(query_codes, items.keys)).duplicated(keep=False))
    pairs = pd.DataFrame({"q": query_codes[suspect], "id": items.take(suspect)})
    repeat = pairs.duplicated(keep="first").to_numpy()
    if not repeat.any():
        return None
    mask = np.zeros(len(query_codes), dtype=bool)
    mask[suspect[repeat]] = True
    return mask



def first_occurrences(query_codes: np.ndarray, query_vocab: np.ndarray, items: IdColumn,
                       what: str, label: str, warnings: list[str]) -> np.ndarray | None:
    """Mask of the rows to keep when some (query, item) pair repeats — its first occurrence — with
    a warning appended; None when no pair repeats."""
    repeated = later_repeats(query_codes, items)
    if repeated is None:
        return None
    example = int(np.flatnonzero(repeated)[0])
    warnings.append(f"{label}: {int(repeated.sum())} duplicated (query, item) {what} dropped, the "
                    f"first occurrence kept (first duplicate: query "
                    f"{query_vocab[query_codes[example]]!r}, item {items.take([example])[0]!r})")
    return ~repeated
