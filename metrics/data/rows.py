"""Rows of runs and judgements: ids as strings, whole numbers (grades, ranks) as exact integers,
and the documented rule for a (query, item) pair given twice (the first occurrence is kept, with a
warning)."""

from __future__ import annotations

import re
from decimal import Decimal, InvalidOperation
from typing import Iterable

import numpy as np

from metrics.errors import InputError
from metrics.data.idcolumn import IdColumn, mix
from metrics.parallel import over_parts

# A whole number written with a decimal point and zeros ("10.0") is what pandas writes for an
# integer column that once held a missing value (the column became float).
_INTEGER = r"[+-]?[0-9]+"
WHOLE_FLOAT = rf"^{_INTEGER}\.0+$"
_WHOLE = rf"^{_INTEGER}(?:\.0+)?$"
_POINT_ZEROS = r"\.0+$"
# Floating point holds every whole number of smaller magnitude, but not every one from here on:
# 2^53 + 1 reads as 2^53, so a float of 2^53 may stand for either.
EXACT_FLOAT = 2 ** 53
# Whole numbers are int64 within ±(2^63 − 1): without −2^63, every one can be negated (an order
# by grade descending is an order by −grade).
WHOLE_LIMIT = 2 ** 63 - 1


def as_str_array(values: Iterable) -> np.ndarray:
    return np.asarray([str(v) for v in values], dtype=object)


# ---- ids ---------------------------------------------------------------------------------------

def id_strings(values: Iterable, source: str | None = None,
               column: str | None = None) -> np.ndarray:
    """Ids as text (an object array of str), by the one rule for ids from anywhere — runs, ground
    truth, labels, id lists; text, Parquet and DataFrames alike:

    * a column of floats that are all whole numbers holds the integers (10.0 → '10'), and so does
      a column of text whose every id is written as a whole number with a decimal point ('10.0'
      → '10', see :func:`whole_float_ids`): that is how an integer column comes out of pandas
      once it held a missing value;
    * every other id stays as written (a column of '1.0' and '1.5' keeps both).

    A whole float of magnitude 2^53 or more is refused (naming the row and ``column``): it may be
    the rounding of another integer, and the id it stood for is lost."""
    array = values if isinstance(values, np.ndarray) else np.asarray(list(values), dtype=object)
    if array.dtype.kind == "f" or (array.dtype == object and len(array)
                                   and all(isinstance(v, float) for v in array)):
        floats = array.astype(np.float64)
        if np.isfinite(floats).all() and (floats == np.floor(floats)).all():
            big = np.flatnonzero(np.abs(floats) >= EXACT_FLOAT)
            if len(big):
                raise InputError(f"id {floats[big[0]]:.0f} is a floating-point number of 2^53 or "
                                 f"more, where whole numbers are not exact; store ids as "
                                 f"integers or text", source=source, row=int(big[0]) + 1,
                                 column=column)
            return floats.astype(np.int64).astype(str).astype(object)
    strings = as_str_array(array)
    if not len(strings) or not re.fullmatch(WHOLE_FLOAT, strings[0]):
        return strings   # the usual case, decided by the first id alone
    import polars as pl
    return whole_float_ids(pl.Series(strings, dtype=pl.String)).to_numpy().astype(object)


def whole_float_first(*first_ids: str) -> bool:
    """Whether any of these ids (each column's first) is written as a whole float ('10.0'): then
    :func:`whole_float_ids`' rule may apply, which only a reader of the whole column can decide."""
    return any(re.fullmatch(WHOLE_FLOAT, first) for first in first_ids)


def whole_float_ids(series):
    """A polars column of id text with :func:`id_strings`' rule: when every id is written as a
    whole number with a decimal point ('10.0'), the digits before the point ('10'); otherwise the
    column as it is."""
    if not len(series) or not re.fullmatch(WHOLE_FLOAT, series[0]) or \
            not series.str.contains(WHOLE_FLOAT).all():
        return series
    return series.str.replace(_POINT_ZEROS, "")


# ---- whole numbers -----------------------------------------------------------------------------

def whole_numbers(values, what: str, source: str | None = None, lines=None, unit: str = "row",
                  column: str | None = None) -> np.ndarray:
    """Whole numbers (grades, ranks) as int64, exact or refused — the same on every path:

    * integers as they are, within ±(2^63 − 1) (:data:`WHOLE_LIMIT`);
    * text written as an integer ('7', '+7', or '7.0' as pandas writes a float column) from its
      digits, never through floating point; other numerals ('1e3') when they are exactly whole;
    * floats when whole and of magnitude below 2^53 (:data:`EXACT_FLOAT`).

    Anything else raises an InputError saying what ``what`` is wrong, at ``lines[i]`` (a
    ``unit``: "line" or "row") or else at row i + 1, in ``column``."""
    def refuse(i: int, shown, problem: str) -> InputError:
        place = int(lines[i]) if lines is not None else i + 1
        return InputError(f"{what} {shown} {problem}", source=source, column=column,
                          **{unit: place})

    array = (np.asarray(values, dtype=object) if isinstance(values, (list, tuple))
             else np.asarray(values))
    kind = array.dtype.kind
    if kind in "biu":
        over = np.flatnonzero(array > WHOLE_LIMIT) if kind == "u" else \
            np.flatnonzero(array < -WHOLE_LIMIT)
        if len(over):
            raise refuse(int(over[0]), array[over[0]], _TOO_LARGE)
        return array.astype(np.int64)
    if kind == "f":
        return _whole_floats(array.astype(np.float64), refuse)
    if kind not in "USO":
        raise InputError(f"{what} holds {array.dtype} values, not numbers", source=source,
                         column=column)
    array = array.astype(object)
    if all(isinstance(v, str) for v in array):
        return _whole_text(array, refuse)
    out = np.empty(len(array), dtype=np.int64)
    for i, value in enumerate(array):
        out[i] = _whole_value(value, i, refuse)
    return out


_TOO_LARGE = f"is too large: whole numbers here must lie within ±(2^63 − 1) = ±{WHOLE_LIMIT}"


def _whole_floats(floats: np.ndarray, refuse) -> np.ndarray:
    infinite = np.flatnonzero(~np.isfinite(floats))
    if len(infinite):
        i = int(infinite[0])
        raise refuse(i, floats[i], "is not a finite number (NaN and infinity are not allowed)")
    fractional = np.flatnonzero(floats != np.floor(floats))
    if len(fractional):
        raise refuse(int(fractional[0]), floats[fractional[0]], "is not a whole number")
    big = np.flatnonzero(np.abs(floats) >= EXACT_FLOAT)
    if len(big):
        raise refuse(int(big[0]), f"{floats[big[0]]:.0f}",
                     "is a floating-point number of 2^53 or more, where whole numbers are not "
                     "exact (2^53 + 1 reads as 2^53); store it as an integer")
    return floats.astype(np.int64)


def _whole_text(text: np.ndarray, refuse) -> np.ndarray:
    """Text as int64: the plain integers in one pass (polars), the rest one by one."""
    import polars as pl
    series = pl.Series(text, dtype=pl.String).str.strip_chars()
    numbers = series.str.replace(_POINT_ZEROS, "").cast(pl.Int64, strict=False)
    odd = np.flatnonzero((~series.str.contains(_WHOLE) | numbers.is_null()
                          | (numbers < -WHOLE_LIMIT).fill_null(False)).to_numpy())
    out = numbers.fill_null(0).to_numpy().astype(np.int64)   # a copy: polars' is read-only
    for i in odd:
        out[i] = _whole_value(text[i], int(i), refuse)
    return out


def _whole_value(value, i: int, refuse) -> int:
    """One value as an exact integer within int64, or the reason it is not."""
    shown = value
    if isinstance(value, (bool, int, np.integer)):
        number = int(value)
    elif isinstance(value, (float, np.floating)):
        return int(_whole_floats(np.array([value], dtype=np.float64),
                                 lambda _, shown, problem: refuse(i, shown, problem))[0])
    elif isinstance(value, str):
        text = value.strip()
        shown = repr(text)
        if re.fullmatch(_WHOLE, text):
            number = int(re.sub(_POINT_ZEROS, "", text))
        else:
            try:
                exact = Decimal(text)
            except InvalidOperation:
                raise refuse(i, shown, "is not a number") from None
            if not exact.is_finite():
                raise refuse(i, shown, "is not a finite number (NaN and infinity are not allowed)")
            if exact != exact.to_integral_value():
                raise refuse(i, shown, "is not a whole number")
            if exact.adjusted() > 18:   # beyond int64 whatever the digits: never expanded
                raise refuse(i, shown, _TOO_LARGE)
            number = int(exact)
    elif value is None:
        raise refuse(i, "", "is missing")
    else:
        raise refuse(i, repr(value), "is not a number")
    if not -WHOLE_LIMIT <= number <= WHOLE_LIMIT:
        raise refuse(i, shown, _TOO_LARGE)
    return number


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



def duplicate_warning(count: int, query, item, what: str, label: str) -> str:
    """The warning on ``count`` repeated (query, item) pairs dropped, the first one named."""
    return (f"{label}: {count} duplicated (query, item) {what} dropped, the first occurrence "
            f"kept (first duplicate: query {query!r}, item {item!r})")


def first_occurrences(query_codes: np.ndarray, query_vocab: np.ndarray, items: IdColumn,
                       what: str, label: str, warnings: list[str]) -> np.ndarray | None:
    """Mask of the rows to keep when some (query, item) pair repeats — its first occurrence — with
    a warning appended; None when no pair repeats."""
    repeated = later_repeats(query_codes, items)
    if repeated is None:
        return None
    example = int(np.flatnonzero(repeated)[0])
    warnings.append(duplicate_warning(int(repeated.sum()), query_vocab[query_codes[example]],
                                      items.take([example])[0], what, label))
    return ~repeated
