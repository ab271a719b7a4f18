"""Judging a run file (TREC, plain or gzip, or Parquet) as it is read, a block of lines at a time,
so that memory does not grow with the run: only what the measures need is kept
(:class:`~metrics.data.judged.JudgedRanking`).

A run sorted by query — every query's lines together, as trec_eval writes runs and nearly every
tool does — is judged one group of whole queries at a time (a block's last query waits for the
next block, where its lines may go on). A query whose lines the C reader saw already in rank
order, with no tie and no item twice (:mod:`metrics.loaders.trec_lines`: nearly every query of a
run written with distinct scores), is its own ranking: its items are looked up in the ground
truth as they stand. The others are ranked (:func:`~metrics.ranking.rank.rank_run`, under the tie
policy) and looked up in batches (:func:`batch_lines`). Only each query's list length, the
rank and grade of every judged item it retrieved, the tie groups (for the report and the
tie-aware policies) and, for the warning on ids that match nothing, the first item of a list
without a judged item are kept. Memory is then a few blocks (sized by ``memory``) plus the longest
query's list, whatever the length of the run. The values are those of the whole-file path
(:func:`~metrics.ranking.rank.judge`) bit for bit: the same ranking, the same look-up and the same
warnings, made per group of queries and then put together.

Where streaming cannot give the same result, :func:`judge_run_stream` gives up and returns None,
and the caller reads the file whole (as before this module): an unsorted run (a query's lines
come back after another query's; about 130 MB per million lines, the whole-file path's cost), a
file that the fast reader does not take (see :mod:`metrics.loaders.run_blocks`), ids under the
``id`` policy that are whole numbers in some batches' tie groups and not in others' (that policy
compares ids numerically only when every tied id is a whole number), ``collection_size="judged"``,
and ground truths whose queries are items (clique labels).
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Callable

from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.data.truth import GroundTruth
from metrics.loaders.run_blocks import NotStreamable, RunBlock, run_blocks
from metrics.loaders.runs import run_name
from metrics.loaders.text import Source, source_name
from metrics.parallel import read_ahead
from metrics.ranking.long_list import NotInRankOrder
from metrics.ranking.stream_judging import RANKED_BATCH, StreamJudging, concat_blocks
from metrics.ranking.streaming import DEFAULT_MEMORY, Progress

# a block's text becomes about this many times its size in parsed columns, keys, orders and
# rankings while it is judged: the budget buys blocks of memory / BLOWUP bytes
BLOWUP = 8
# blocks read and parsed ahead of the one judged: the reader goes on while the ground truth loads
# (each block's columns take about its text's size, within the budget's BLOWUP)
READ_AHEAD = 4
_LINE_BYTES = 32   # bytes a line takes at least once read (score, key, offset, item)


class _Unsorted(Exception):
    """A query's lines come back after another query's."""


@dataclass(frozen=True)
class StreamedRun:
    """A run judged as it was read, with the tag every line of it has (None if they differ)."""

    judged: JudgedRanking
    tag: str | None


def block_bytes(memory: int | None) -> int:
    """Bytes of run text per block under a memory budget (:data:`DEFAULT_MEMORY` by default)."""
    return max(1 << 16, (DEFAULT_MEMORY if memory is None else memory) // BLOWUP)


def batch_lines(block: int) -> int:
    """Lines of queries to rank judged together: :data:`RANKED_BATCH`, or fewer where blocks of
    ``block`` bytes are smaller (a batch takes no more memory than a block, or 1,024 lines)."""
    return max(1 << 10, min(RANKED_BATCH, block // _LINE_BYTES))


def judge_run_stream(path: Source, truth: GroundTruth | Callable[[], GroundTruth],
                     ties: TiePolicy = TiePolicy.STABLE,
                     collection_size: int | str | None = None, name: str | None = None,
                     memory: int | None = None, progress: Progress | None = None,
                     block: int | None = None, by_tag: bool = False,
                     long_lists: bool = True) -> StreamedRun | None:
    """A run file judged as it is read (see the module docstring), named by its file (with
    ``by_tag``, by its tag when every line has the same one); None when it must be read whole
    instead. ``truth`` may be a function that gives the ground truth: it is called once the first
    block is read, so that a ground truth loading in another thread overlaps the reading.
    ``block`` (bytes of text per block) overrides the one that ``memory`` sets, for tests.
    A query whose lines fill a block is judged as a long list while they are read; without
    ``long_lists``, or when such a list is not in rank order (the file is then read again so),
    its lines are held until it ends and ranked whole."""
    if isinstance(path, (bytes, bytearray)):
        return None
    label = source_name(path, name)
    block = block or block_bytes(memory)
    state = StreamJudging(truth, collection_size, ties.ordering, run_name(label), label,
                     batch_lines(block))
    # the next blocks are read and parsed on a thread while this one is judged
    blocks = read_ahead(lambda: run_blocks(path, label, block, tags=by_tag), ahead=READ_AHEAD)
    state.progress = _Reported(progress)
    try:
        for part in _whole_queries(blocks, state, long_lists):
            state.add(part)
            state.progress(len(part))
        state.flush()
        state.settle_long_lists()
    except (NotStreamable, _Unsorted):
        return None
    except NotInRankOrder:   # read again, its long lists held: what was reported stays reported
        blocks.close()
        return judge_run_stream(path, state.truth or truth, ties, collection_size, name, memory,
                                _Reported(progress, skip=state.progress.lines), block, by_tag,
                                False)
    finally:
        blocks.close()   # stops the reading thread when judging stopped early
    if by_tag and state.tag:
        state.name = state.tag
    return StreamedRun(state.finish(ties), state.tag)


class _Reported:
    """A progress callback that counts the lines reported, and drops the first ``skip`` (those
    reported before the file was read again)."""

    def __init__(self, progress: Progress | None, skip: int = 0):
        self.progress, self.skip, self.lines = progress, skip, 0

    def __call__(self, lines: int) -> None:
        self.lines += lines
        shown = min(lines, self.lines - self.skip)
        if self.progress is not None and shown > 0:
            self.progress(shown)


def _whole_queries(blocks, state: StreamJudging, long_lists: bool = True):
    """Blocks of lines cut so that each holds whole queries: a block's last query waits for the
    next block, where its lines may go on; its lines are then judged as a part of their own, so
    that no block is copied. With ``long_lists``, a query whose lines fill a whole block is not
    held but judged as it goes (:meth:`~metrics.ranking.stream_judging.StreamJudging.add_long`).
    Raises _Unsorted when a query comes back."""
    waiting: list[RunBlock] = []   # the lines so far of a query that may go on
    long_name = None               # the query judged as a long list, whose lines may go on
    for part in blocks:
        state.note_tag(part.tag)
        names = part.query_names
        if len(set(names)) != len(names):
            raise _Unsorted()
        first = names[0]
        waiting_name = waiting[0].query_names[0] if waiting else long_name
        if not state.done.isdisjoint(names) or (waiting_name is not None and first != waiting_name
                                                 and waiting_name in names):
            raise _Unsorted()
        if len(names) == 1 and (waiting_name is None or first == waiting_name):
            if long_lists and waiting_name is not None:   # a block of the waiting query alone
                if long_name is None:
                    long_name = state.start_long(waiting)
                    waiting = []
                state.add_long(part)
            else:
                waiting.append(part)
            continue
        goes_on = waiting_name is not None and first == waiting_name   # its lines go on here
        if long_name is not None:
            if goes_on:
                state.add_long(_slice(part, 0, int(part.query_lengths[0]), 0, 1))
            state.end_long()
            long_name = None
        elif waiting:
            yield concat_blocks(waiting + ([_slice(part, 0, int(part.query_lengths[0]), 0, 1)]
                                     if goes_on else []))
            state.done.add(waiting_name)
        last_start = len(part) - int(part.query_lengths[-1])
        if len(names) - 1 > goes_on:
            yield _slice(part, int(part.query_lengths[0]) if goes_on else 0, last_start,
                         int(goes_on), len(names) - 1)
        state.done.update(names[:-1])
        waiting = [_slice(part, last_start, len(part), len(names) - 1, len(names))]
    if long_name is not None:
        state.end_long()
    if waiting:
        yield concat_blocks(waiting)


def _slice(part: RunBlock, start: int, stop: int, first_run: int, last_run: int) -> RunBlock:
    """Lines ``start:stop`` of a block, which are its query runs ``first_run:last_run``."""
    return RunBlock(part.items.slice(start, stop - start), part.scores[start:stop], part.tag,
                    part.query_names[first_run:last_run], part.query_lengths[first_run:last_run],
                    None if part.run_flags is None else part.run_flags[first_run:last_run])
