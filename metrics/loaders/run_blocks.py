"""A TREC run read a block of lines at a time, plain or gzip, so that no more than a block is
ever held: for evaluating runs larger than memory (:mod:`metrics.ranking.run_stream`).

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
from metrics.loaders.text import BLOCK, Source, byte_blocks

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


def run_blocks(path: Source, label: str, block_bytes: int) -> Iterator[RunBlock]:
    """The lines of a TREC run file (a path), about ``block_bytes`` bytes of text at a time,
    cut at line ends; raises :class:`NotStreamable` at the first block the fast reader refuses."""
    pieces: list[bytes] = []
    held = 0
    read_any = False
    read = min(BLOCK, max(block_bytes, SMALLEST_BLOCK))
    for piece in byte_blocks(path, label, read):
        pieces.append(piece)
        held += len(piece)
        if held < block_bytes or b"\n" not in piece:
            continue
        text = b"".join(pieces)
        cut = text.rfind(b"\n") + 1
        pieces, held = [text[cut:]], len(text) - cut
        yield _parse(text[:cut] if cut < len(text) else text)
        read_any = True
        del text
    text = b"".join(pieces)
    if text:
        yield _parse(text)
    elif not read_any:
        raise NotStreamable()   # an empty file: the whole-file loader says so


def _parse(data: bytes) -> RunBlock:
    fast = fast_trec(data, RUN, {"score": "float64"})
    if fast is None:
        raise NotStreamable()
    queries, items = fast["query_id"], fast["item_id"]
    if any(re.fullmatch(WHOLE_FLOAT, column[0]) for column in (queries, items)):
        raise NotStreamable()   # whole-float ids: read by a rule over the whole column
    return RunBlock(queries, items, fast["score"], single_last_field(data, len(fast["score"])))
