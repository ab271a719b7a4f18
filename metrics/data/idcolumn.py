"""A column of string ids with no Python string per row, compared through 64-bit keys.

A run of ten million lines names about a million distinct items. Giving each line a dense code
means hashing every id into a table of a million entries, which is slow because the table does
not fit in cache. Instead each row keeps its id in a polars string column (the loader's own
buffer) and gets a 64-bit key, polars' hash of the id, computed in one pass. Equal ids have equal
keys. Unequal ids collide with probability about 2⁻⁶⁴ per pair, and wherever a key match decides
something (a judgement, a duplicate, the query item of a cover-song run) the ids themselves are
compared as well, so a collision can slow a result down but never change it.
"""

from __future__ import annotations

from functools import cached_property

import numpy as np

# polars is imported where it is first needed, so that the command line can start reading its
# files while polars loads.

_SEED = 0x5EED


class IdColumn:
    """Ids (possibly repeated), addressed by position: ``take`` makes Python strings only for the
    positions asked for, ``keys`` is the 64-bit key of every position."""

    def __init__(self, values):
        import polars as pl

        if isinstance(values, IdArray):   # ids read from a column already
            values = values.column
        if isinstance(values, IdColumn):
            values = values.series
        if isinstance(values, pl.Series):
            series = values if values.dtype == pl.String else values.cast(pl.String)
        else:
            series = pl.Series(np.asarray([str(v) for v in values], dtype=object),
                               dtype=pl.String)
        self.series = series.rename("id")

    @classmethod
    def with_keys(cls, series, keys: np.ndarray) -> "IdColumn":
        """A column of a polars string Series whose :attr:`keys` were already computed (on
        another thread, as a streamed run's reader does)."""
        column = cls(series)
        column.__dict__["keys"] = keys   # what the cached property would compute
        return column

    def __len__(self) -> int:
        return len(self.series)

    @cached_property
    def keys(self) -> np.ndarray:
        return self.series.hash(seed=_SEED).to_numpy()

    @classmethod
    def keys_of(cls, column: "IdColumn") -> np.ndarray:
        """Keys of another column's ids made as this kind of column makes them, so that the two
        can be looked up in each other (a run's items in the ground truth's): columns read by
        another reader key their ids another way."""
        return column.keys if type(column) is IdColumn else IdColumn(column.series).keys

    def slice(self, start: int, count: int) -> "IdColumn":
        """The ``count`` ids from ``start``, with their keys."""
        return IdColumn.with_keys(self.series.slice(start, count), self.keys[start:start + count])

    def subset(self, positions: np.ndarray) -> "IdColumn":
        """The ids at some positions, with their keys."""
        positions = np.asarray(positions, dtype=np.int64)
        return IdColumn.with_keys(self.series.gather(positions), self.keys[positions])

    @classmethod
    def concat(cls, columns: list["IdColumn"]) -> "IdColumn":
        """Columns end to end, with their keys."""
        import polars as pl

        return cls.with_keys(pl.concat([c.series for c in columns]),
                             np.concatenate([c.keys for c in columns]))

    def gathered(self, positions: np.ndarray):
        """The ids at some positions as a polars string Series."""
        return self.series.gather(np.asarray(positions, dtype=np.int64))

    def dense_ranks(self, positions: np.ndarray) -> np.ndarray:
        """Each id's place (from 0) among the distinct ids at these positions, in byte order
        (which is code-point order: strcmp's, trec_eval's)."""
        return self.gathered(positions).rank("dense").to_numpy().astype(np.int64) - 1

    def same_as(self, positions: np.ndarray, other: "IdColumn",
                other_positions: np.ndarray) -> np.ndarray:
        """Whether the id at each position is the one ``other`` holds at the matching position."""
        if not len(positions):
            return np.zeros(0, dtype=bool)
        return (self.gathered(positions) == other.gathered(other_positions)).to_numpy()

    def tolist(self) -> list:
        return self.series.to_list()

    def filter(self, keep: np.ndarray) -> "IdColumn":
        """The ids at the positions where ``keep`` (a boolean array) is true."""
        return IdColumn(self.series.filter(keep))

    def take(self, positions) -> np.ndarray:
        """Ids at ``positions`` (any shape) as an object array; position -1 gives None."""
        positions = np.asarray(positions, dtype=np.int64)
        missing = positions < 0
        flat = np.where(missing, 0, positions).ravel()
        if not len(self.series):
            return np.full(positions.shape, None, dtype=object)
        out = self.series.gather(flat).to_numpy().astype(object, copy=False)
        out = out.reshape(positions.shape)
        if missing.any():
            out[missing] = None
        return out

    def equals(self, positions: np.ndarray, ids: np.ndarray) -> np.ndarray:
        """Whether the id at each position is the matching entry of ``ids`` (an object array)."""
        if not len(positions):
            return np.zeros(0, dtype=bool)
        import polars as pl

        mine = self.series.gather(np.asarray(positions, dtype=np.int64))
        theirs = pl.Series(np.asarray(ids, dtype=object), dtype=pl.String)
        return (mine == theirs).to_numpy()


class IdArray:
    """The ids of an :class:`IdColumn` read as a one-dimensional object array, made into Python
    strings only for the positions asked for: a ground truth of millions of judgements keeps its
    items in the loader's column (a Python string per judgement would cost about 60 bytes more
    each). Indexing with a position gives the id; with positions, a slice or a mask, an object
    array; ``numpy.asarray`` and iteration give all of them."""

    ndim = 1
    dtype = np.dtype(object)

    def __init__(self, column: IdColumn):
        self.column = column

    def __len__(self) -> int:
        return len(self.column)

    @property
    def shape(self) -> tuple[int]:
        return (len(self.column),)

    def __getitem__(self, key):
        if isinstance(key, (int, np.integer)):
            if not -len(self) <= key < len(self):
                raise IndexError(f"id position {int(key)} out of range")
            return self.column.take([int(key) % len(self)])[0]
        return np.asarray(self)[key] if isinstance(key, slice) else \
            self.column.take(np.arange(len(self.column))[key])

    def __iter__(self):
        return iter(self.column.tolist())

    def __array__(self, dtype=None, copy=None):
        out = self.column.take(np.arange(len(self.column)))
        return out if dtype is None else out.astype(dtype)

    def tolist(self) -> list:
        return self.column.tolist()


def hash_ids(ids) -> np.ndarray:
    """The 64-bit keys of some ids, consistent with :attr:`IdColumn.keys`."""
    return IdColumn(ids).keys


def mix(codes: np.ndarray, keys: np.ndarray) -> np.ndarray:
    """One 64-bit key per (integer code, id key) pair, e.g. (query, item). Equal pairs give equal
    keys; callers confirm matches on the pair itself (see the module docstring)."""
    mixed = np.asarray(codes).astype(np.uint64)
    with np.errstate(over="ignore"):
        mixed *= np.uint64(0x9E3779B97F4A7C15)
        mixed += np.uint64(0x632BE59BD9B4E019)
    mixed ^= keys
    return mixed
