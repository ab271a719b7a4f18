"""How many bytes of memory a loaded dataset holds: what a cache bounded by memory needs.

:func:`deep_nbytes` follows an object's fields (dataclasses and the other classes of this package,
dicts, lists, tuples) down to the buffers that hold the data — numpy arrays, polars series,
``bytes`` — and sums their sizes (a polars string column: its strings and a 16-byte view each),
counting each buffer once: views of one array, an id column shared by two systems and the
upload's bytes under ``np.frombuffer`` are one buffer each. An
object array adds the size of each Python object it points to (query and item ids). Arrays
mapped from a file (``np.memmap``) count nothing: the page cache holds them and the system can
take them back. Python scalars, strings of fields and bookkeeping count nothing either: they are
small beside the arrays.
"""

from __future__ import annotations

import mmap
import sys
from dataclasses import fields, is_dataclass

import numpy as np

PACKAGE = __name__.split(".")[0]   # "metrics": its classes are followed field by field


def deep_nbytes(*objects) -> int:
    """Bytes held by the buffers reachable from ``objects``, each buffer counted once."""
    seen: set[int] = set()
    total = 0
    stack = list(objects)
    while stack:
        obj = stack.pop()
        if obj is None or id(obj) in seen:
            continue
        seen.add(id(obj))
        if isinstance(obj, np.ndarray):
            total += _array_nbytes(obj, seen)
        elif isinstance(obj, (bytes, bytearray)):
            total += len(obj)
        elif _is_polars(obj):
            total += _polars_nbytes(obj)
        elif isinstance(obj, dict):
            stack.extend(obj.values())
        elif isinstance(obj, (list, tuple, set, frozenset)):
            stack.extend(obj)
        elif type(obj).__module__.split(".")[0] == PACKAGE:
            stack.extend(_attributes(obj))
    return total


def _array_nbytes(array: np.ndarray, seen: set[int]) -> int:
    """The bytes of the buffer under ``array`` (once per buffer: its owner is marked seen), plus
    the objects an object array points to."""
    owner = array
    while isinstance(owner.base, np.ndarray):
        owner = owner.base
        if id(owner) in seen:
            return 0
        seen.add(id(owner))
    base = owner.base
    if isinstance(owner, np.memmap) or isinstance(base, mmap.mmap):
        return 0
    if isinstance(base, (bytes, bytearray)):   # np.frombuffer: the bytes are the buffer
        if id(base) in seen:
            return 0
        seen.add(id(base))
        return len(base)
    size = owner.nbytes
    if owner.dtype == object:
        size += sum(sys.getsizeof(item) for item in owner.ravel() if item is not None)
    return size


# per string; a string of up to 12 bytes lives in its view, so it is counted twice (a bound)
STRING_VIEW_BYTES = 16


def _polars_nbytes(obj) -> int:
    """polars' estimate of a series or data frame, plus the view of each value of its string
    columns, which ``estimated_size`` leaves out (it counts the strings' own bytes only)."""
    import polars as pl

    size = int(obj.estimated_size())
    for column in obj.get_columns() if isinstance(obj, pl.DataFrame) else [obj]:
        if column.dtype in (pl.String, pl.Binary):
            size += STRING_VIEW_BYTES * len(column)
    return size


def _is_polars(obj) -> bool:
    module = type(obj).__module__
    return module.startswith("polars") and hasattr(obj, "estimated_size")


def _attributes(obj) -> list:
    """A package object's fields: a dataclass's, else its instance dictionary (which also holds
    the values of its cached properties once computed)."""
    values = list(vars(obj).values()) if hasattr(obj, "__dict__") else []
    if is_dataclass(obj):
        values += [getattr(obj, f.name) for f in fields(obj)]
    return values
