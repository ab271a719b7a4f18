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

from dataclasses import dataclass, field
from typing import Callable

import numpy as np

from metrics.data.idcolumn import IdColumn
from metrics.data.judged import JudgedRanking, TieReport
from metrics.data.rows import duplicate_warning, later_repeats
from metrics.data.run import Run
from metrics.data.ties import TiePolicy
from metrics.data.truth import GroundTruth
from metrics.loaders.trec_lines import (NOT_DESCENDING, NOT_DESCENDING_FLOAT32, REPEATED_KEY,
                                        UNKNOWN, judged_lookup, repeats_within_runs)
from metrics.loaders.run_blocks import NotStreamable, RunBlock, run_blocks
from metrics.loaders.runs import run_name
from metrics.loaders.text import Source, source_name
from metrics.parallel import arange_in_parts, read_ahead, repeat_in_parts
from metrics.ranking.judged_lookup import QueryKeys, judged_keys, judged_matches
from metrics.ranking.long_list import LongList, NotInRankOrder
from metrics.ranking.rank import JUDGED, given_collection_size, judged_ranking, rank_run
from metrics.ranking.streaming import DEFAULT_MEMORY, Progress
from metrics.ranking.tie_order import (ids_are_whole_numbers, scan_rank_order, tie_report,
                                       tied_row_groups)

# a block's text becomes about this many times its size in parsed columns, keys, orders and
# rankings while it is judged: the budget buys blocks of memory / BLOWUP bytes
BLOWUP = 8
# blocks read and parsed ahead of the one judged: the reader goes on while the ground truth loads
# (each block's columns take about its text's size, within the budget's BLOWUP)
READ_AHEAD = 4
# lines of queries that must be ranked (ties, repeats, not in rank order) judged together, at most
RANKED_BATCH = 1 << 18
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
    state = _Judging(truth, collection_size, ties.ordering, run_name(label), label,
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


def _compact(values: np.ndarray) -> np.ndarray:
    """Whole numbers in 32 bits when they fit (kept hits: ranks, query indices, grades)."""
    if not len(values) or (values.min() >= -2 ** 31 and values.max() < 2 ** 31):
        return values.astype(np.int32)
    return values


def _whole_queries(blocks, state: "_Judging", long_lists: bool = True):
    """Blocks of lines cut so that each holds whole queries: a block's last query waits for the
    next block, where its lines may go on; its lines are then judged as a part of their own, so
    that no block is copied. With ``long_lists``, a query whose lines fill a whole block is not
    held but judged as it goes (:meth:`_Judging.add_long`). Raises _Unsorted when a query comes
    back."""
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
            yield _concat(waiting + ([_slice(part, 0, int(part.query_lengths[0]), 0, 1)]
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
        yield _concat(waiting)


def _slice(part: RunBlock, start: int, stop: int, first_run: int, last_run: int) -> RunBlock:
    """Lines ``start:stop`` of a block, which are its query runs ``first_run:last_run``."""
    return RunBlock(part.items.slice(start, stop - start), part.scores[start:stop], part.tag,
                    part.query_names[first_run:last_run], part.query_lengths[first_run:last_run],
                    None if part.run_flags is None else part.run_flags[first_run:last_run])


def _concat(parts: list[RunBlock]) -> RunBlock:
    """Parts end to end (a query's lines from two blocks): a query's lines that go on into the
    next part make one run, of which the reader's flags say nothing."""
    parts = [p for p in parts if len(p)]
    if len(parts) == 1:
        return parts[0]
    names, lengths, flags = [], [], []
    for part in parts:
        part_flags = [UNKNOWN] * len(part.query_names) if part.run_flags is None else \
            part.run_flags.tolist()
        for name, length, flag in zip(part.query_names, part.query_lengths.tolist(), part_flags):
            if names and names[-1] == name:
                lengths[-1] += length
                flags[-1] = UNKNOWN
            else:
                names.append(name)
                lengths.append(length)
                flags.append(flag)
    return RunBlock(type(parts[0].items).concat([p.items for p in parts]),
                    np.concatenate([p.scores for p in parts]), None, names,
                    np.array(lengths, dtype=np.int64), np.array(flags, dtype=np.uint8))


def _runs_of(part: RunBlock, chosen: np.ndarray) -> RunBlock:
    """The lines of some of a block's query runs (``chosen``: a mask of them), in order."""
    first = part.query_starts
    lengths = part.query_lengths[chosen]
    rows = repeat_in_parts(first[chosen] - (np.cumsum(lengths) - lengths), lengths) + \
        arange_in_parts(int(lengths.sum()))
    return RunBlock(part.items.subset(rows), part.scores[rows], part.tag,
                    [n for n, c in zip(part.query_names, chosen.tolist()) if c], lengths,
                    None if part.run_flags is None else part.run_flags[chosen])


@dataclass
class _Judging:
    """What is kept of the lines judged so far."""

    given: GroundTruth | Callable[[], GroundTruth]
    collection_size: int | str | None
    ordering: TiePolicy
    name: str
    source: str                                     # the file, as duplicate warnings name it
    batch: int = RANKED_BATCH                       # lines of queries to rank, judged together
    done: set = field(default_factory=set)          # queries whose lines are all read
    tags: set = field(default_factory=set)
    lengths: np.ndarray = None
    hits: list = field(default_factory=list)        # (query, rank, grade), as small as they fit
    hit_count: int = 0
    tied_hits: list = field(default_factory=list)   # (hit, tie first, tie size) of tied hits
    tie_first: list = field(default_factory=list)   # each tie group's first and last positions
    tie_last: list = field(default_factory=list)
    tied_items: int = 0
    tied_queries: int = 0
    run_only: int = 0                               # run queries the truth lacks
    run_only_first: str | None = None
    duplicates: int = 0
    duplicate: tuple | None = None                  # the first duplicated (query, item)
    first_items: dict = field(default_factory=dict)  # truth query -> first item, if no hit
    whole_ids: bool | None = None                   # id policy: every tied id a whole number
    deferred: list = field(default_factory=list)    # (part, truth queries) to rank (see _defer)
    deferred_lines: int = 0
    long: tuple | None = None                       # the query judged as a long list, if any
    long_whole_ids: bool = True                     # id policy: every long list's tied id whole
    by_number: list = field(default_factory=list)   # id: (hits index, query, long list judged)
    progress: Callable[[int], None] = lambda lines: None   # lines judged, reported

    truth: GroundTruth | None = None

    def _start(self, items: IdColumn | None = None) -> None:
        """The ground truth, once: checked to be one that streaming judges as the whole-file
        path does, and its look-up tables made, keyed as the run's ``items`` are."""
        if self.truth is not None:
            return
        truth = self.given() if callable(self.given) else self.given
        if truth.self_items is not None or (self.collection_size == JUDGED and
                                            not truth.unlisted_judged):
            raise NotStreamable()
        self.truth = truth
        self.lengths = np.zeros(len(truth.query_ids), dtype=np.int64)
        self.position = {query: i for i, query in enumerate(truth.query_ids)}
        self.keys = judged_keys(truth, type(items).keys_of(truth.pair_items)) \
            if len(truth.pair_item) and items is not None else None

    @property
    def tag(self) -> str | None:
        return next(iter(self.tags)) if len(self.tags) == 1 and None not in self.tags else None

    def note_tag(self, tag: str | None) -> None:
        self.tags.add(tag)

    def add(self, part: RunBlock) -> None:
        """Judge lines that hold whole queries, and keep what the measures need: the queries
        that the C reader saw in rank order, without ties or a repeated item, are judged as
        they stand (:meth:`_add_in_order`), the others ranked first (:meth:`_add_ranked`)."""
        self._start(part.items)
        to_truth = np.fromiter((self.position.get(q, -1) for q in part.query_names),
                               dtype=np.int64, count=len(part.query_names))
        if (to_truth < 0).any():
            self.run_only += int((to_truth < 0).sum())
            if self.run_only_first is None:
                self.run_only_first = part.query_names[int(np.flatnonzero(to_truth < 0)[0])]
        plain = np.zeros(len(to_truth), dtype=bool)
        if part.run_flags is not None and isinstance(self.keys, QueryKeys):
            plain = (part.run_flags & (REPEATED_KEY | (NOT_DESCENDING_FLOAT32 if
                                                       self.ordering.float32 else
                                                       NOT_DESCENDING))) == 0
        if plain.any() and not self._add_in_order(part, plain, to_truth):
            plain[:] = False
        if not plain.all():
            self._defer(part if not plain.any() else _runs_of(part, ~plain), to_truth[~plain])

    def start_long(self, parts: list[RunBlock]) -> str:
        """Judge a query's lines as a long list (:mod:`metrics.ranking.long_list`), from its
        lines so far (``parts``); its name. The queries before it are judged first, so that the
        tie groups are reported in the file's order."""
        self.flush()
        name = parts[0].query_names[0]
        self._start(parts[0].items)
        truth_query = self.position.get(name, -1)
        if truth_query < 0:
            self.run_only += 1
            if self.run_only_first is None:
                self.run_only_first = name
        pairs = np.flatnonzero(self.truth.pair_query == truth_query) if truth_query >= 0 else \
            np.zeros(0, dtype=np.int64)
        judged_ids = np.asarray(self.truth.pair_item[pairs].tolist(), dtype=object) if \
            len(pairs) else np.zeros(0, dtype=object)
        self.long = (name, truth_query, pairs, LongList(self.ordering, judged_ids))
        for part in parts:
            self.add_long(part)
        return name

    def add_long(self, part: RunBlock) -> None:
        """The next lines of the long list."""
        _, truth_query, pairs, scorer = self.long
        found = at = np.zeros(0, dtype=np.int64)
        if len(pairs):
            found, at = judged_matches(self.truth, np.full(len(part), truth_query, np.int32),
                                       np.arange(len(part)), part.items, self.keys)
        scorer.add(part, found, np.searchsorted(pairs, at))
        self.progress(len(part))

    def end_long(self) -> None:
        """The long list's lines are all read: keep what the measures need, as :meth:`add`
        keeps of a query ranked whole."""
        name, truth_query, pairs, scorer = self.long
        self.long = None
        self.done.add(name)
        judged = scorer.finish()
        if judged.whole_ids is not None:   # the id policy's rule: see settle_long_lists
            self.long_whole_ids &= judged.whole_ids
        if truth_query < 0:
            return
        if judged.whole_ids is not None:
            self.by_number.append((len(self.hits), truth_query, judged))
        self.lengths[truth_query] = judged.length
        if len(judged.tie_first):
            self.tie_first.append(judged.tie_first)
            self.tie_last.append(judged.tie_first + judged.tie_size - 1)
            self.tied_items += int(judged.tie_size.sum())
            self.tied_queries += 1
            tied = np.flatnonzero(judged.hit_tie_size > 1)
            self.tied_hits.append((tied + self.hit_count, judged.hit_tie_first[tied],
                                   judged.hit_tie_size[tied]))
        hits = len(judged.hit_item)
        self.hit_count += hits
        self.hits.append(tuple(_compact(a) for a in (
            np.full(hits, truth_query, dtype=np.int64), judged.hit_rank(),
            self.truth.pair_grade[pairs[judged.hit_item]])))
        if not hits and judged.length:
            self.first_items[truth_query] = judged.first_item()

    def settle_long_lists(self) -> None:
        """The ``id`` policy orders tied ids as numbers only when every tied id of the run is a
        whole number: the long lists, judged both ways, take the run's order, which the groups
        of queries ranked whole must have taken too (else the file is read whole)."""
        if not self.by_number and self.long_whole_ids:
            return
        whole = self.long_whole_ids and self.whole_ids is not False
        if self.whole_ids is not None and self.whole_ids != whole:
            raise NotStreamable()
        if whole:
            for at, truth_query, judged in self.by_number:
                query, _, grades = self.hits[at]
                self.hits[at] = (query, _compact(judged.hit_rank(numbers=True)), grades)
                if truth_query in self.first_items:
                    self.first_items[truth_query] = judged.first_item(numbers=True)

    def _defer(self, part: RunBlock, to_truth: np.ndarray) -> None:
        """Queries to rank before they are judged, kept until they make a batch of
        ``batch`` lines (each call costs about the same however few they are). The
        order of judging changes nothing: hits are sorted at the end, and the queries (so their
        duplicates and tie groups) keep the order of the file."""
        self.deferred.append((part, to_truth))
        self.deferred_lines += len(part)
        if self.deferred_lines >= self.batch:
            self.flush()

    def flush(self) -> None:
        """Rank and judge the deferred queries."""
        if not self.deferred:
            return
        parts, to_truth = zip(*self.deferred)
        self.deferred, self.deferred_lines = [], 0
        self._add_ranked(_concat(list(parts)), np.concatenate(to_truth))

    def _add_in_order(self, part: RunBlock, chosen: np.ndarray, to_truth: np.ndarray) -> bool:
        """Judge the ``chosen`` query runs of a block, each already its ranking (no tie, no
        repeated item), in one look-up; False (nothing kept) when a match of keys is not
        confirmed on the ids (a collision: the caller ranks and judges them the careful way)."""
        first = part.query_starts[chosen]
        lengths, truth_query = part.query_lengths[chosen], to_truth[chosen]
        found, place = judged_lookup(part.items.keys, None, first, lengths, truth_query,
                                     self.keys.start, self.keys.keys, len(part))
        at = self.keys.order[place]
        run = np.searchsorted(first, found, side="right") - 1
        hit_query = truth_query[run]
        if not ((self.truth.pair_query[at] == hit_query).all() and
                part.items.same_as(found, self.truth.pair_items, at).all()):
            return False
        known = truth_query >= 0
        self.lengths[truth_query[known]] = lengths[known]
        self.hit_count += len(found)
        self.hits.append(tuple(_compact(a) for a in (hit_query, found - first[run] + 1,
                                                      self.truth.pair_grade[at])))
        blind = known.copy()
        blind[run] = False
        if blind.any():
            self.first_items.update(zip(truth_query[blind].tolist(),
                                        part.items.take(first[blind])))
        return True

    def _add_ranked(self, part: RunBlock, to_truth: np.ndarray) -> None:
        """Rank the lines of whole queries under the tie policy (repeated items dropped) and
        judge them; ``to_truth``: each query run's truth query (-1: none)."""
        vocab = np.array(part.query_names, dtype=object)
        codes = repeat_in_parts(np.arange(len(vocab)), part.query_lengths)
        items = part.items
        repeated = (later_repeats(codes, items)
                    if repeats_within_runs(items.keys, part.query_lengths) else None)
        scores = part.scores
        if repeated is not None:
            self.duplicates += int(repeated.sum())
            if self.duplicate is None:
                at = int(np.flatnonzero(repeated)[0])
                self.duplicate = (vocab[codes[at]], items.take([at])[0])
            codes, items, scores = codes[~repeated], items.filter(~repeated), scores[~repeated]
        ranked = rank_run(Run(codes, vocab, items, scores, name=self.name), self.ordering)
        kept = np.flatnonzero(to_truth >= 0)
        lengths = ranked.lengths
        row_query = np.repeat(to_truth, lengths)
        keep = row_query >= 0
        q, rows, ranked_scores = row_query[keep], ranked.item_rows[keep], ranked.scores[keep]
        self.lengths[to_truth[kept]] = lengths[kept]
        start = np.zeros(len(self.lengths), dtype=np.int64)
        start[to_truth[kept]] = np.cumsum(lengths[kept]) - lengths[kept]
        found, at = judged_matches(self.truth, q, rows, items, self.keys)

        def position_of(row):
            return row - start[q[row]]

        report, tie_first, tie_size = tie_report(q, ranked_scores, ranked.ties, position_of,
                                                 found)
        if self.ordering is TiePolicy.ID:
            self._same_id_rule(ranked, items)
        self.tie_first.append(report.first_positions)
        self.tie_last.append(report.last_positions)
        self.tied_items += report.tied_items
        self.tied_queries += report.queries_with_ties
        hit_query = q[found]
        if tie_size is not None:   # only the hits that tie with another item: most do not
            tied = np.flatnonzero(tie_size > 1)
            self.tied_hits.append((tied + self.hit_count, tie_first[tied] + 1, tie_size[tied]))
        self.hit_count += len(found)
        self.hits.append(tuple(_compact(a) for a in (hit_query, found - start[hit_query] + 1,
                                                      self.truth.pair_grade[at])))
        blind = np.setdiff1d(to_truth[kept], hit_query)
        if len(blind):
            self.first_items.update(zip(blind.tolist(), items.take(rows[start[blind]])))

    def _same_id_rule(self, ranked, items) -> None:
        """The ``id`` policy orders tied ids numerically only when every tied id of the run
        (its queries the truth lacks too) is a whole number: groups of queries that disagree
        cannot be judged apart."""
        codes = np.repeat(np.arange(len(ranked.lengths)), ranked.lengths)
        first, sizes = tied_row_groups(scan_rank_order(codes, ranked.scores, self.ordering)[1])
        if not len(first):
            return
        tied = np.repeat(first, sizes) + np.arange(int(sizes.sum())) - np.repeat(
            np.cumsum(sizes) - sizes, sizes)
        whole = ids_are_whole_numbers(items.take(ranked.item_rows[tied]))
        if self.whole_ids is not None and whole != self.whole_ids:
            raise NotStreamable()
        self.whole_ids = whole

    def finish(self, ties: TiePolicy) -> JudgedRanking:
        self._start()
        collection_size = given_collection_size(self.collection_size, self.truth)
        warnings = []
        if self.duplicates:
            warnings.append(duplicate_warning(self.duplicates, *self.duplicate, "pair(s)",
                                              self.source))
        warnings += list(self.truth.warnings)
        if self.run_only:
            warnings.append(f"{self.name}: {self.run_only} run quer(ies) not in the ground truth "
                            f"were left out (first: {self.run_only_first!r})")
        columns = list(zip(*self.hits)) if self.hits else [[]] * 3
        hit_query, hit_ranks, hit_grades = (
            np.concatenate(c).astype(np.int64) if len(c) else np.zeros(0, np.int64)
            for c in columns)
        self.hits.clear()
        tie_first = tie_size = None
        if self.tied_hits:   # a hit that ties with nothing is its own group of one
            at, first, size = (np.concatenate(c) for c in zip(*self.tied_hits))
            tie_first, tie_size = hit_ranks.copy(), np.ones(len(hit_ranks), dtype=np.int64)
            tie_first[at], tie_size[at] = first, size
        first = np.concatenate(self.tie_first) if self.tie_first else np.zeros(0, np.int64)
        last = np.concatenate(self.tie_last) if self.tie_last else np.zeros(0, np.int64)
        report = TieReport(self.tied_items, self.tied_queries, first, last) if len(first) \
            else TieReport()
        return judged_ranking(self.name, self.truth, ties, warnings, self.lengths, self.run_only,
                              hit_query, hit_ranks, hit_grades, tie_first, tie_size, report,
                              self.first_items.get, collection_size)
