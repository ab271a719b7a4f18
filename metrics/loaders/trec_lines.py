"""The Python side of the C reader of TREC runs and qrels files (:mod:`metrics.loaders._trec_lines`,
see its comment): a block of lines read (:func:`scan_block`, into :class:`Scanned`), the item
ids as it leaves them (:class:`BlockIds`), the same keys for other ids, a check for repeated keys,
and the look-up of retrieved items among a ground truth's judged ones.

:class:`BlockIds` holds the ids' UTF-8 bytes end to end, their offsets and a 64-bit key each, with
no polars column and no Python string per line; strings are made only for the positions asked
for. Its keys are the C reader's, not polars' (:attr:`metrics.data.idcolumn.IdColumn.keys`): two
columns are looked up in each other with the keys one kind of column makes
(:meth:`~metrics.data.idcolumn.IdColumn.keys_of`), and every match of keys is confirmed on the
ids, as everywhere.

Without the compiled reader (no C compiler where the package was installed) :data:`COMPILED` is
False: runs and qrels are read with polars into :class:`~metrics.data.idcolumn.IdColumn`\\ s and
judged pairs are looked up with NumPy, giving the same values more slowly.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property

import numpy as np

from metrics.data.idcolumn import IdColumn
from metrics.loaders.fast import SAMPLE, delimiter_of, plain_delimiter, trec_header
from metrics.loaders.text import PARQUET_MAGIC, UTF8_BOM

try:   # built by `pip install` (setup.py); optional
    from metrics.loaders import _trec_lines
except ImportError:
    _trec_lines = None

COMPILED = _trec_lines is not None

# what the C reader says of each query's lines in a block (flags, or-ed), read from the C module
# that sets them (see its comment); UNKNOWN: lines it has not seen whole
NOT_DESCENDING, NOT_DESCENDING_FLOAT32, REPEATED_KEY = (
    (_trec_lines.NOT_DESCENDING, _trec_lines.NOT_DESCENDING_FLOAT32, _trec_lines.REPEATED_KEY)
    if COMPILED else (1, 2, 4))
UNKNOWN = 0xFF


# what the C reader reads of a line (see scan in _trec_lines.c): its number of fields, the field of
# the number and whether it is a whole number, the field of the tag (-1: none)
RUN_LAYOUT = (6, 4, False, 5)     # query Q0 item rank score tag
QRELS_LAYOUT = (4, 3, True, -1)   # query 0 item grade
_SHORTEST_LINE = 2                # bytes per field at least: one, and a delimiter or line end


@dataclass(frozen=True, eq=False)
class Scanned:
    """A block of lines as the C reader reads it: the number of each line (scores or grades),
    the items, and the query column as its runs of equal ids (ids, lengths, the reader's flags),
    with the tag when every line has the same one."""

    numbers: np.ndarray
    items: "BlockIds"
    query_names: list
    query_lengths: np.ndarray
    run_flags: np.ndarray
    tag: str | None

    def first_ids(self) -> tuple[str, str]:
        """The first line's query and item ids."""
        return self.query_names[0], self.items.strings([0])[0]


class Scratch:
    """What the C reader keeps from block to block (one per thread): the buffer it copies items
    into, and the fewest bytes per line seen so far, which sizes the next block's arrays (fresh
    memory costs its first touch, and NumPy asks for huge pages, cleared whole: arrays sized for
    the worst case, lines of one byte per field, would cost several times what is used)."""

    def __init__(self):
        self.items = np.empty(0, dtype=np.uint8)
        self.bytes_per_line: float | None = None

    def for_items(self, size: int) -> np.ndarray:
        if len(self.items) < size:
            self.items = np.empty(size, dtype=np.uint8)
        return self.items


def scan_block(data, layout: tuple, scratch: Scratch | None = None) -> Scanned | None:
    """Lines of a TREC file (bytes, or a view of a reading buffer) read by the C reader, or None
    where it declines: what the polars reader (:mod:`metrics.loaders.fast`) would not read
    without doubt, or a header. Then the slower readers read the block, or refuse it."""
    head = bytes(data[:SAMPLE])
    if head[:len(UTF8_BOM)] == UTF8_BOM or head[:len(PARQUET_MAGIC)] == PARQUET_MAGIC or \
            trec_header(head):
        return None   # (gzip's magic, a control byte, makes the reader decline)
    delimiter = delimiter_of(head)
    fields, _, integer, _ = layout
    first_end = head.find(b"\n")
    if first_end >= 0 and head.count(delimiter, 0, first_end) != fields - 1:
        return None   # the first line has too few or too many fields: declined before any array
    scratch = scratch or Scratch()
    most = (len(data) + 1) // (_SHORTEST_LINE * fields)
    # the first text read sizes its arrays by its line ends, later blocks by the lines seen
    capacity = min(most, _line_ends(data) + 1) if scratch.bytes_per_line is None else \
        min(most, int(len(data) / scratch.bytes_per_line * 1.25) + 64)
    while True:
        numbers = np.empty(capacity, dtype=np.int64 if integer else np.float64)
        keys = np.empty(capacity, dtype=np.uint64)
        offsets = np.empty(capacity + 1, dtype=np.int64)
        offsets[0] = 0
        run_lines = np.empty(capacity, dtype=np.int64)
        run_bytes = np.empty(capacity, dtype=np.int64)
        run_flags = np.empty(capacity, dtype=np.uint8)
        scanned = _trec_lines.scan(data, delimiter.decode(), tuple(int(x) for x in layout),
                                   capacity, numbers, keys, offsets,
                                   scratch.for_items(len(data)), run_lines, run_bytes, run_flags)
        if scanned != -1:
            break
        if capacity == most:   # more lines than such a block can hold: not the layout's lines
            return None
        capacity = most   # shorter lines than before: room for the most there can be
    if scanned is None:
        return None
    lines, used, names, tag, ascii_only = scanned
    if not lines:
        return None   # nothing but line ends is not a TREC file
    seen = len(data) / lines
    scratch.bytes_per_line = seen if scratch.bytes_per_line is None else \
        min(scratch.bytes_per_line, seen)
    if not ascii_only and plain_delimiter(bytes(data)) is None:
        return None   # Unicode spaces: the careful reader's
    runs = len(names)
    return Scanned(numbers[:lines], BlockIds(scratch.items[:used].tobytes(),
                                             offsets[:lines + 1], keys[:lines]),
                   names, np.diff(np.append(run_lines[:runs], lines)), run_flags[:runs], tag)


def _line_ends(data) -> int:
    """The number of line ends in ``data`` (bytes or a view), counted a block at a time."""
    if isinstance(data, bytes):
        return data.count(b"\n")
    with memoryview(data) as view:
        return sum(bytes(view[i:i + SAMPLE]).count(b"\n") for i in range(0, len(view), SAMPLE))


def line_ends(data, start: int, end: int) -> int:
    """The number of line ends in ``data[start:end]`` (bytes, a bytearray or its view): counted
    by the C reader without the interpreter's lock when it is compiled."""
    if _trec_lines is None:
        return data.count(b"\n", start, end)
    return _trec_lines.line_ends(data, start, end)


def hash_spans(data, offsets: np.ndarray) -> np.ndarray:
    """The keys the C reader gives the ids ``data[offsets[i]:offsets[i + 1]]``."""
    keys = np.empty(max(len(offsets) - 1, 0), dtype=np.uint64)
    _trec_lines.hash_spans(data, np.ascontiguousarray(offsets, dtype=np.int64), keys)
    return keys


def repeats_within_runs(keys: np.ndarray, lengths: np.ndarray) -> bool:
    """Whether some run of consecutive rows (``lengths``) holds a key twice: when not, no
    (query, item) pair of a block of whole queries repeats, and no id needs comparing. Without
    the compiled reader the answer is True (the caller then looks, as it did before)."""
    if _trec_lines is None:
        return True
    return _trec_lines.repeats_within_runs(np.ascontiguousarray(keys, dtype=np.uint64),
                                           np.ascontiguousarray(lengths, dtype=np.int64))


def judged_lookup(item_keys: np.ndarray, rows: np.ndarray | None, run_first: np.ndarray,
                  run_length: np.ndarray, run_truth: np.ndarray, start: np.ndarray,
                  judged_keys: np.ndarray, positions: int) -> tuple[np.ndarray, np.ndarray]:
    """(found, place): the positions (of ``positions``) whose item is judged for their query, and
    the position of its key in ``judged_keys``. Positions ``run_first[r]`` on, ``run_length[r]``
    of them, are retrieved for truth query ``run_truth[r]`` (none when negative); position i holds
    item ``rows[i]`` (item i when ``rows`` is None); query j's judged item keys are
    ``judged_keys[start[j]:start[j + 1]]``, no two alike
    (:class:`metrics.ranking.judged_lookup.QueryKeys`)."""
    found, place = np.empty(positions, dtype=np.int64), np.empty(positions, dtype=np.int64)
    arrays = [np.ascontiguousarray(a, dtype=t) for a, t in (
        (item_keys, np.uint64), (np.zeros(0) if rows is None else rows, np.int64),
        (run_first, np.int64), (run_length, np.int64), (run_truth, np.int64),
        (start, np.int64), (judged_keys, np.uint64))]
    matched = _trec_lines.judged_lookup(*arrays, found, place)
    return found[:matched], place[:matched]


class BlockIds(IdColumn):
    """Ids held as bytes: id ``i`` is ``data[offsets[i]:offsets[i + 1]]``; ``keys`` are the C
    reader's. A polars :attr:`series` is made only if some caller asks for every id."""

    def __init__(self, data: bytes, offsets: np.ndarray, keys: np.ndarray):
        self.data = data
        self.offsets = offsets
        self.__dict__["keys"] = keys   # IdColumn.keys is a cached property: this is its value

    @classmethod
    def from_strings(cls, strings: list[str]) -> "BlockIds":
        encoded = [s.encode() for s in strings]
        offsets = np.zeros(len(encoded) + 1, dtype=np.int64)
        np.cumsum([len(e) for e in encoded], out=offsets[1:])
        data = b"".join(encoded)
        return cls(data, offsets, hash_spans(data, offsets))

    @classmethod
    def keys_of(cls, column: IdColumn) -> np.ndarray:
        if isinstance(column, BlockIds):
            return column.keys
        # the ids' bytes as polars holds them for arrow: no Python string per id
        ids = column.series.to_arrow()
        if ids.null_count or str(ids.type) != "large_string" or not len(ids):
            return cls.from_strings(column.series.to_list()).keys
        offsets = np.frombuffer(ids.buffers()[1], dtype=np.int64)[ids.offset:
                                                                   ids.offset + len(ids) + 1]
        data = ids.buffers()[2]
        return hash_spans(b"" if data is None else data, offsets)

    def __len__(self) -> int:
        return len(self.offsets) - 1

    @cached_property
    def series(self):
        import polars as pl
        import pyarrow as pa

        array = pa.Array.from_buffers(pa.large_string(), len(self),
                                      [None, pa.py_buffer(self.offsets), pa.py_buffer(self.data)])
        return pl.from_arrow(array).rename("id")

    def slice(self, start: int, count: int) -> "BlockIds":
        return BlockIds(self.data, self.offsets[start:start + count + 1],
                        self.keys[start:start + count])

    @classmethod
    def concat(cls, columns: list["BlockIds"]) -> "BlockIds":
        if len(columns) == 1:
            return columns[0]
        data = b"".join(memoryview(c.data)[c.offsets[0]:c.offsets[-1]] for c in columns)
        lengths = np.concatenate([np.diff(c.offsets) for c in columns])
        offsets = np.zeros(len(lengths) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        return cls(data, offsets, np.concatenate([c.keys for c in columns]))

    def subset(self, positions: np.ndarray) -> "BlockIds":
        positions = np.asarray(positions, dtype=np.int64)
        starts, stops = self.offsets[positions], self.offsets[positions + 1]
        lengths = stops - starts
        offsets = np.zeros(len(positions) + 1, dtype=np.int64)
        np.cumsum(lengths, out=offsets[1:])
        # every byte of the chosen ids: its id's start, plus its place within the id
        where = np.repeat(starts - offsets[:-1], lengths) + np.arange(int(offsets[-1]))
        data = np.frombuffer(self.data, dtype=np.uint8)[where].tobytes()
        return BlockIds(data, offsets, self.keys[positions])

    def strings(self, positions) -> list[str]:
        return _trec_lines.take(self.data, self.offsets,
                                np.ascontiguousarray(positions, dtype=np.int64))

    def take(self, positions) -> np.ndarray:
        positions = np.asarray(positions, dtype=np.int64)
        missing = positions < 0
        out = np.empty(positions.size, dtype=object)
        out[:] = self.strings(np.where(missing, 0, positions).ravel()) if len(self) else None
        out = out.reshape(positions.shape)
        if missing.any():
            out[missing] = None
        return out

    def gathered(self, positions: np.ndarray):
        import polars as pl

        return pl.Series("id", self.strings(np.asarray(positions, dtype=np.int64).ravel()),
                         dtype=pl.String)

    def dense_ranks(self, positions: np.ndarray) -> np.ndarray:
        # Python compares str by code point, which is UTF-8's byte order: no polars needed
        ids = np.array(self.strings(np.asarray(positions, dtype=np.int64).ravel()), dtype=object)
        return np.unique(ids, return_inverse=True)[1].astype(np.int64).reshape(-1)

    def same_as(self, positions: np.ndarray, other: IdColumn,
                other_positions: np.ndarray) -> np.ndarray:
        if not isinstance(other, BlockIds):
            return super().same_as(positions, other, other_positions)
        out = np.empty(len(positions), dtype=np.bool_)
        _trec_lines.same_items(self.data, self.offsets, np.ascontiguousarray(positions, np.int64),
                               other.data, other.offsets,
                               np.ascontiguousarray(other_positions, np.int64), out)
        return out

    def tolist(self) -> list:
        return self.strings(np.arange(len(self)))

    def filter(self, keep: np.ndarray) -> "BlockIds":
        # a mask over the bytes (one byte each), where subset's positions would take sixteen
        keep = np.asarray(keep, dtype=bool)
        lengths = np.diff(self.offsets)
        text = np.frombuffer(self.data, dtype=np.uint8)[self.offsets[0]:self.offsets[-1]]
        offsets = np.zeros(int(keep.sum()) + 1, dtype=np.int64)
        np.cumsum(lengths[keep], out=offsets[1:])
        return BlockIds(text[np.repeat(keep, lengths)].tobytes(), offsets, self.keys[keep])

    def equals(self, positions: np.ndarray, ids: np.ndarray) -> np.ndarray:
        if not len(positions):
            return np.zeros(0, dtype=bool)
        return self.take(positions) == np.asarray(ids, dtype=object)
