"""A TREC run read a block of lines at a time, plain or gzip, or a Parquet run a batch of rows at
a time, so that no more than a block is ever held: for evaluating runs larger than memory
(:mod:`metrics.ranking.run_stream`).

Each block is a run of whole lines of about ``block_bytes`` bytes, parsed by the fast reader
(:mod:`metrics.loaders.fast`), which accepts only what it can read without doubt. Where it cannot
(a header, a comment line, runs of spaces, a bad line, text that is not UTF-8, ids written as
whole floats such as ``10.0``, which the whole-file loader reads by a rule over the whole column),
:class:`NotStreamable` is raised: the caller then reads the file with
:func:`metrics.loaders.load_run`, which reads it or names its first bad line, so that streaming
changes memory and speed, never results or messages.
"""

from __future__ import annotations

import re
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from metrics.data.rows import WHOLE_FLOAT
from metrics.loaders.fast import single_last_field
from metrics.loaders.runs import RUN, fast_trec
from metrics.loaders.tables import resolve_header
from metrics.loaders.text import BLOCK, PARQUET_MAGIC, Source, byte_blocks, open_regular

SMALLEST_BLOCK = 1   # bytes: tests use blocks of a few lines to put many edges in a small run


class NotStreamable(Exception):
    """A block the fast reader does not read: the whole-file loader must take the file."""


@dataclass(frozen=True, eq=False)
class RunBlock:
    """Consecutive lines of a TREC run: query and item ids (polars string Series), scores, and
    the tag when every line of the block has the same one (else None)."""

    query_ids: object
    item_ids: object
    scores: np.ndarray
    tag: str | None

    def __len__(self) -> int:
        return len(self.scores)


def run_blocks(path: Source, label: str, block_bytes: int, tags: bool = True
               ) -> Iterator[RunBlock]:
    """The lines of a TREC run file (a path), about ``block_bytes`` bytes of text at a time,
    cut at line ends, or the rows of a Parquet run a batch at a time; raises
    :class:`NotStreamable` at the first block the fast reader refuses. Without ``tags`` the
    blocks' tags are not looked for (None)."""
    with open_regular(path, label) as handle:
        parquet = handle.read(len(PARQUET_MAGIC)) == PARQUET_MAGIC
    if parquet:
        yield from _parquet_blocks(path, label, block_bytes, tags)
        return
    pieces: list[bytes] = []
    held = 0
    read_any = False
    read = min(BLOCK, max(block_bytes, SMALLEST_BLOCK))
    for piece in byte_blocks(path, label, read):
        held += len(piece)
        cut = piece.rfind(b"\n") + 1 if held >= block_bytes else 0
        if not cut:
            pieces.append(piece)
            continue
        # one copy: the pieces before and the last one up to its last line end
        pieces.append(piece[:cut] if cut < len(piece) else piece)
        text = b"".join(pieces)
        pieces, held = ([piece[cut:]] if cut < len(piece) else []), len(piece) - cut
        yield _parse(text, tags)
        read_any = True
        del text
    text = b"".join(pieces)
    if text:
        yield _parse(text, tags)
    elif not read_any:
        raise NotStreamable()   # an empty file: the whole-file loader says so


def _parse(data: bytes, tags: bool) -> RunBlock:
    fast = fast_trec(data, RUN, {"score": "float64"})
    if fast is None:
        raise NotStreamable()
    queries, items = fast["query_id"], fast["item_id"]
    if any(re.fullmatch(WHOLE_FLOAT, column[0]) for column in (queries, items)):
        raise NotStreamable()   # whole-float ids: read by a rule over the whole column
    return RunBlock(queries, items, fast["score"],
                    single_last_field(data, len(fast["score"])) if tags else None)


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
                any(re.fullmatch(WHOLE_FLOAT, column[0]) for column in (queries, items)):
            raise NotStreamable()
        tag = None
        if tags and "tag" in kept:
            column = frame.get_column(kept["tag"]).cast(pl.String)
            tag = column[0] if column[0] and (column == column[0]).all() else None
        yield RunBlock(queries, items, scores.to_numpy(), tag)
