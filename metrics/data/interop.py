"""Reading the data of other Python tools: pandas and polars DataFrames, the nested dicts of
pytrec_eval, ir_measures and ranx, ir_measures' namedtuples, ranx's ``Run`` and ``Qrels``.

The entry points are classmethods of :class:`~metrics.data.run.Run` and
:class:`~metrics.data.truth.GroundTruth` (``from_dataframe``, ``from_dict``, ``from_ir_measures``,
``from_ranx``); this module holds what they share. Everything a user can get wrong raises
:class:`~metrics.errors.InputError` with a one-line message saying what to fix.
"""

from __future__ import annotations

from collections.abc import Iterable, Mapping
from typing import Any

import numpy as np

from metrics.errors import InputError
from metrics.data.rows import id_strings, whole_numbers as exact_whole_numbers

ITEM_COLUMNS = ("item_id", "doc_id")          # ours, then ir_measures' and ir_datasets'
GRADE_COLUMNS = ("relevance", "grade")


def _columns(frame) -> list[str]:
    columns = getattr(frame, "columns", None)
    if columns is None or not hasattr(frame, "__getitem__"):
        raise InputError(f"expected a pandas or polars DataFrame, not {type(frame).__name__}",
                         source="data frame")
    return [str(c) for c in columns]


def pick_column(frame, given: str | None, choices: tuple[str, ...], what: str,
                keyword: str) -> str:
    """The column to read: the one given, else the first of ``choices`` the frame has."""
    columns = _columns(frame)
    if given is not None:
        if given not in columns:
            raise InputError(f"no {what} column {given!r} (columns: {', '.join(columns)}); name "
                             f"it with {keyword}=", source="data frame")
        return given
    for name in choices:
        if name in columns:
            return name
    raise InputError(f"no {what} column (looked for {', '.join(choices)}; columns: "
                     f"{', '.join(columns)}); name it with {keyword}=", source="data frame")


def column(frame, name: str) -> np.ndarray:
    """A pandas or polars column as a NumPy array (missing values as None or NaN)."""
    values = frame[name]
    to_numpy = getattr(values, "to_numpy", None)
    return np.asarray(to_numpy() if to_numpy is not None else values)


def ids(frame, name: str) -> np.ndarray:
    """An id column as strings (by :func:`~metrics.data.rows.id_strings`' rule: whole floats
    are the integers); a missing value is an error naming its row."""
    values = column(frame, name)
    missing = _missing(values)
    if missing.any():
        raise InputError("missing value; every row needs an id", source="data frame",
                         row=int(np.flatnonzero(missing)[0]) + 1, column=name)
    return id_strings(values, "data frame", name)


def numbers(frame, name: str) -> np.ndarray:
    """A score or grade column as float64; non-numbers and missing values are errors."""
    values = column(frame, name)
    missing = _missing(values)
    if missing.any():
        raise InputError("missing value", source="data frame",
                         row=int(np.flatnonzero(missing)[0]) + 1, column=name)
    try:
        return np.asarray(values, dtype=np.float64)
    except (TypeError, ValueError):
        for row, value in enumerate(values.tolist(), start=1):
            try:
                float(value)
            except (TypeError, ValueError):
                raise InputError(f"{value!r} is not a number", source="data frame", row=row,
                                 column=name) from None
        raise


def whole_numbers(frame, name: str, what: str) -> np.ndarray:
    """A grade or rank column as exact int64 (see :func:`~metrics.data.rows.whole_numbers`):
    integer columns as they are, never through floating point."""
    values = column(frame, name)
    if values.dtype.kind not in "iuO":
        values = numbers(frame, name)   # names a missing value or a non-number by its row
    return exact_whole_numbers(values, what, "data frame", column=name)


def _missing(values: np.ndarray) -> np.ndarray:
    if values.dtype.kind == "f":
        return np.isnan(values)
    if values.dtype.kind == "O":
        return np.fromiter((v is None or (isinstance(v, float) and v != v) for v in values),
                           dtype=bool, count=len(values))
    return np.zeros(len(values), dtype=bool)


def nested(data: Any, what: str) -> tuple[list, list, list]:
    """Rows of ``{query: {item: value}}`` (pytrec_eval, ir_measures, ranx), values as floats."""
    if not isinstance(data, Mapping):
        raise InputError(f"expected {{query: {{item: {what}}}}}, not {type(data).__name__}",
                         source="dict")
    q, d, v = [], [], []
    for query, items in data.items():
        if not isinstance(items, Mapping):
            raise InputError(f"query {query!r}: expected {{item: {what}}}, not "
                             f"{type(items).__name__}", source="dict")
        for item, value in items.items():
            try:
                number = float(value)
            except (TypeError, ValueError):
                raise InputError(f"query {query!r}, item {item!r}: {what} {value!r} is not a "
                                 f"number", source="dict") from None
            q.append(query), d.append(item), v.append(_exact(value, number))
    return q, d, v


def _exact(value, number: float):
    """An integer value as it is (a grade beyond 2^53 stays exact), anything else as a float."""
    return value if isinstance(value, (int, np.integer)) else number


def named_rows(data: Iterable, value_field: str) -> tuple[list, list, list]:
    """Rows of ir_measures' namedtuples (``Qrel(query_id, doc_id, relevance)``,
    ``ScoredDoc(query_id, doc_id, score)``) or plain ``(query, item, value)`` tuples."""
    q, d, v = [], [], []
    for row_number, row in enumerate(data, start=1):
        try:
            if hasattr(row, "query_id"):
                query, item, value = row.query_id, row.doc_id, getattr(row, value_field)
            else:
                query, item, value = row[0], row[1], row[2]
            number = float(value)
        except (AttributeError, IndexError, KeyError, TypeError, ValueError):
            raise InputError(f"expected (query_id, doc_id, {value_field}) like ir_measures' "
                             f"namedtuples, got {row!r}", source="ir_measures data",
                             row=row_number) from None
        q.append(query), d.append(item), v.append(_exact(value, number))
    return q, d, v


def ranx_dict(obj: Any, kind: str) -> Mapping:
    """The ``{query: {item: value}}`` of a ranx ``Run`` or ``Qrels``."""
    to_dict = getattr(obj, "to_dict", None)
    if to_dict is None:
        raise InputError(f"expected a ranx {kind} (with .to_dict()), not {type(obj).__name__}",
                         source="ranx")
    return to_dict()
