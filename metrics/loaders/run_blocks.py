"""A TREC run read a block of lines at a time, plain or gzip, or a Parquet run a batch of rows at
a time, so that no more than a block is ever held: for evaluating runs larger than memory
(:mod:`metrics.ranking.run_stream`).

Each block is a run of whole lines of about ``block_bytes`` bytes (a plain file's read into one
buffer reused from block to block), read as every TREC text is
(:func:`metrics.loaders.runs.read_trec_text`): by the C reader (:mod:`metrics.loaders.trec_lines`,
its two halves on two threads) or, where that declines or is not built, by the polars fast
reader (:mod:`metrics.loaders.fast`); both accept only what they can read without doubt. Where
they cannot (a header, a comment line, runs of spaces, a bad line, text that is not UTF-8, ids
written as whole floats such as ``10.0``, which the whole-file loader reads by a rule over the
whole column), :class:`NotStreamable` is raised: the caller then reads the file with
:func:`metrics.loaders.load_run`, which reads it or names its first bad line, so that streaming
changes memory and speed, never results or messages.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Iterator

import numpy as np

from metrics.data.idcolumn import IdColumn
from metrics.data.rows import whole_float_first
from metrics.parallel import both, read_ahead
from metrics.loaders.line_bound import MAX_LINE, over_long_line, over_long_line_error
from metrics.loaders.trec_lines import COMPILED, BlockIds, Scanned, Scratch, line_ends
from metrics.loaders.runs import RUN, RUN_TEXT, read_trec_text
from metrics.loaders.tables import resolve_header
from metrics.loaders.text import (BLOCK, GZIP_MAGIC, PARQUET_MAGIC, Source, byte_blocks,
                                  open_regular, read_into)

_SMALLEST_BUFFER = 1 << 16   # bytes a plain file is read into at least (it grows for longer lines)
_HALF = 1 << 16      # bytes: blocks of twice this or more are read in halves (one looked at)


class NotStreamable(Exception):
    """A block the fast reader does not read: the whole-file loader must take the file."""


@dataclass(frozen=True, eq=False)
class RunBlock:
    """Consecutive lines of a TREC run: the item ids (with their keys), scores, the tag when every
    line of the block has the same one (else None), and the query column as its runs of equal ids
    (their ids and lengths: each query's lines stand together in a sorted run), found here, on the
    reading thread, so that judging need not look for them."""

    items: IdColumn
    scores: np.ndarray
    tag: str | None
    query_names: list
    query_lengths: np.ndarray
    # per query run, what the C reader saw within the block (its flags: see
    # metrics/loaders/_trec_lines.c), or None when another reader read it
    run_flags: np.ndarray | None = None

    def __len__(self) -> int:
        return len(self.scores)

    @property
    def query_starts(self) -> np.ndarray:
        """Where each query run's lines begin."""
        return np.cumsum(self.query_lengths) - self.query_lengths


def run_blocks(path: Source, label: str, block_bytes: int, tags: bool = True
               ) -> Iterator[RunBlock]:
    """The lines of a TREC run file (a path), about ``block_bytes`` bytes of text at a time,
    cut at line ends, or the rows of a Parquet run a batch at a time; raises
    :class:`NotStreamable` at the first block the fast reader refuses. Without ``tags`` the
    blocks' tags are not looked for (None)."""
    with open_regular(path, label) as handle:
        head = handle.read(len(PARQUET_MAGIC))
    if head == PARQUET_MAGIC:
        yield from _parquet_blocks(path, label, block_bytes, tags)
        return
    if head[:len(GZIP_MAGIC)] == GZIP_MAGIC:
        # decompressed on a thread of its own, a block ahead of the parsing
        texts = read_ahead(lambda: _cut_at_line_ends(
            # (pieces of at least 2 bytes: byte_blocks knows gzip by its first piece's magic)
            byte_blocks(path, label, min(BLOCK, max(block_bytes, len(GZIP_MAGIC)))),
            block_bytes, label))
    else:
        texts = _plain_line_blocks(path, label, block_bytes)
    read_any = False
    scratches = (Scratch(), Scratch())
    try:
        for text in texts:
            parsed = _parse_in_halves(text, tags, scratches)
            del text   # held no longer than it is parsed (a plain file's buffer is read again)
            yield from parsed
            read_any = True
    finally:
        texts.close()   # the file, and the thread that decompresses it
    if not read_any:
        raise NotStreamable()   # an empty file: the whole-file loader says so


def _cut_at_line_ends(pieces: Iterator[bytes], block_bytes: int, label: str) -> Iterator[bytes]:
    """Pieces of text (decompressed gzip) joined into blocks of whole lines of about
    ``block_bytes`` bytes; none empty. A line longer than :data:`MAX_LINE` is refused as soon as
    that much of it is held, and text with a NUL byte handed to the whole-file loader, which
    names its line, before either grows what is held to the file's size."""
    kept: list[bytes] = []
    held = 0
    lines = 0        # line ends in the blocks before
    line_held = 0    # bytes held after the last line end
    for piece in pieces:
        if piece.find(b"\x00") >= 0:
            raise NotStreamable()
        held += len(piece)
        last = piece.rfind(b"\n")
        line_held = line_held + len(piece) if last < 0 else len(piece) - last - 1
        if line_held > MAX_LINE:
            raise over_long_line_error(label, lines + sum(k.count(b"\n") for k in kept)
                                       + piece.count(b"\n") + 1)
        cut = last + 1 if held >= block_bytes else 0
        if not cut:
            kept.append(piece)
            continue
        # one copy: the pieces before and the last one up to its last line end
        kept.append(piece[:cut] if cut < len(piece) else piece)
        text = b"".join(kept)
        kept, held = ([piece[cut:]] if cut < len(piece) else []), len(piece) - cut
        lines = _checked_lines(text, 0, len(text), label, lines)
        yield text
        del text
    text = b"".join(kept)
    if text:
        _checked_lines(text, 0, len(text), label, lines)
        yield text


def _checked_lines(text, start: int, end: int, label: str, lines: int) -> int:
    """The line ends of a block of whole lines, added to ``lines`` (those before it); an
    :class:`InputError` naming its first line longer than :data:`MAX_LINE`, if it holds one."""
    long = over_long_line(text, start, end)
    if long >= 0:
        raise over_long_line_error(label, lines + text.count(b"\n", start, long) + 1)
    return lines + line_ends(text, start, end)


def _plain_line_blocks(path: Source, label: str, block_bytes: int) -> Iterator[memoryview]:
    """A plain file's text in blocks of whole lines of about ``block_bytes`` bytes (up to the last
    line end within them, else to the first line end after), read into one buffer that every
    block reuses (a block is a view of it, valid until the next one is asked for): nothing is
    allocated per block. What follows a block is moved to the buffer's start for the next one; a
    line longer than the buffer gets one twice its size, up to :data:`MAX_LINE`: a longer line
    is refused with its number. None empty."""
    with open_regular(path, label) as handle:
        buffer = bytearray(max(block_bytes, _SMALLEST_BUFFER))
        held = 0   # the lines after the last block, read already
        lines = 0  # line ends in the blocks before
        while True:
            filled = held + read_into(handle, label, buffer, held)
            if not filled:
                return
            if buffer.find(b"\x00", held, filled) >= 0:
                # not text: the whole-file loader names the line from its first block, before
                # a file of NULs (no line end to cut at) grows this buffer to its size
                raise NotStreamable()
            at_end = filled < len(buffer)
            limit = min(filled, block_bytes)
            cut = filled if at_end and filled <= block_bytes else (
                buffer.rfind(b"\n", 0, limit) + 1 or buffer.find(b"\n", limit, filled) + 1)
            if not cut:
                if not at_end:   # no line end in a full buffer: a bigger one
                    if filled > MAX_LINE:
                        raise over_long_line_error(label, lines + 1)
                    buffer, held = buffer + bytearray(len(buffer)), filled
                    continue
                cut = filled   # the last line, without a line end
            lines = _checked_lines(buffer, 0, cut, label, lines)
            view = memoryview(buffer)[:cut]
            yield view
            view.release()
            buffer[:filled - cut] = buffer[cut:filled]
            held = filled - cut


def _parse_in_halves(data, tags: bool, scratches: tuple[Scratch, Scratch]
                     ) -> list[RunBlock]:
    """A block of text as one or two blocks of columns: with the C reader, its halves (cut at a
    line end) are read at the same time on two threads."""
    cut = _middle_line_end(data) if COMPILED and len(data) >= 2 * _HALF else None
    if cut is None:
        return [_parse(data, tags, scratches[0])]
    with memoryview(data) as view:
        return list(both(lambda: _parse(view[:cut], tags, scratches[0]),
                         lambda: _parse(view[cut:], tags, scratches[1])))


def _middle_line_end(data) -> int | None:
    """The end of the line that holds the middle byte of ``data`` (None: past the look)."""
    middle = len(data) // 2
    found = bytes(data[middle:middle + _HALF]).find(b"\n")
    return None if found < 0 or middle + found + 1 >= len(data) else middle + found + 1


def _parse(data, tags: bool, scratch: Scratch) -> RunBlock:
    """A block of text (bytes, or a view of the reading buffer) as columns, read by the reader
    that :func:`~metrics.loaders.runs.read_trec_text` chooses; where only the careful reader
    would read it, the whole-file loader must."""
    read = read_trec_text(data, RUN_TEXT, scratch)
    if read is None:
        raise NotStreamable()
    if isinstance(read, Scanned):
        return RunBlock(read.items, read.numbers, read.tag if tags else None,
                        read.query_names, read.query_lengths, read.run_flags)
    if whole_float_first(read.queries[0], read.items[0]):
        raise NotStreamable()   # whole-float ids: read by a rule over the whole column
    # with the C reader, every block of a file is keyed as it keys: this one too
    ids = BlockIds.from_strings(read.items.to_list()) if COMPILED else IdColumn(read.items)
    return RunBlock(ids, read.numbers, read.tag() if tags else None, *query_runs(read.queries))


def query_runs(queries) -> tuple[list, np.ndarray]:
    """(ids, lengths) of the runs of equal ids of a polars string Series."""
    import polars as pl

    try:
        runs = queries.rle().struct.unnest()
    except pl.exceptions.PanicException:   # see metrics.loaders.fast.read_columns
        raise NotStreamable() from None
    return runs.get_column("value").to_list(), runs.get_column("len").to_numpy().astype(np.int64)


# bytes a Parquet row takes once read (ids as polars strings, the score, the tag): rows per batch
_PARQUET_ROW = 64


def _parquet_blocks(path: Source, label: str, block_bytes: int, tags: bool
                    ) -> Iterator[RunBlock]:
    """A Parquet run's rows, a batch at a time, when its columns are what the whole-file loader
    would read as they are: ids as text, scores as floating point, no empty or missing cell,
    every score finite; anything else is :class:`NotStreamable` (the loader names it)."""
    import polars as pl
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        file = pq.ParquetFile(path)
        names = list(file.schema_arrow.names)
        positions = resolve_header(names, RUN, label, None)
    except Exception:   # the whole-file loader says what is wrong
        raise NotStreamable() from None
    kept = {c: names[i] for c, i in positions.items() if c in ("query_id", "item_id", "score",
                                                                 "tag")}
    types = file.schema_arrow
    if not {"query_id", "item_id", "score"} <= set(kept) or file.metadata.num_rows == 0 or \
            any(not pa.types.is_string(types.field(kept[c]).type)
                and not pa.types.is_large_string(types.field(kept[c]).type)
                for c in ("query_id", "item_id")) or \
            not pa.types.is_floating(types.field(kept["score"]).type):
        raise NotStreamable()
    order = [kept[c] for c in ("query_id", "item_id", "score", "tag") if c in kept]
    for batch in file.iter_batches(batch_size=max(1, block_bytes // _PARQUET_ROW),
                                   columns=order):
        frame = pl.from_arrow(batch)
        queries, items = frame.get_column(kept["query_id"]), frame.get_column(kept["item_id"])
        scores = frame.get_column(kept["score"]).cast(pl.Float64)
        if frame.null_count().sum_horizontal()[0] or (queries == "").any() or \
                (items == "").any() or not scores.is_finite().all() or \
                whole_float_first(queries[0], items[0]):
            raise NotStreamable()
        tag = None
        if tags and "tag" in kept:
            column = frame.get_column(kept["tag"]).cast(pl.String)
            tag = column[0] if column[0] and (column == column[0]).all() else None
        yield RunBlock(IdColumn(items), scores.to_numpy(), tag, *query_runs(queries))
