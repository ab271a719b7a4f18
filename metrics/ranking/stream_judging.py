"""What is kept of a run judged as it is read (:mod:`metrics.ranking.run_stream`): the judging
state that takes groups of whole queries (judged as they stand when the C reader saw them in rank
order, else ranked in batches) and long lists (:mod:`metrics.ranking.long_list`), and puts them
together into the run's :class:`~metrics.data.judged.JudgedRanking`."""

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
from metrics.loaders.run_blocks import NotStreamable, RunBlock
from metrics.parallel import arange_in_parts, repeat_in_parts
from metrics.ranking.judged_lookup import QueryKeys, judged_keys, judged_matches
from metrics.ranking.long_list import LongList
from metrics.ranking.rank import JUDGED, given_collection_size, judged_ranking, rank_run
from metrics.ranking.tie_order import (ids_are_whole_numbers, scan_rank_order, tie_report,
                                       tied_row_groups)

# lines of queries that must be ranked (ties, repeats, not in rank order) judged together, at most
RANKED_BATCH = 1 << 18


def _compact(values: np.ndarray) -> np.ndarray:
    """Whole numbers in 32 bits when they fit (kept hits: ranks, query indices, grades)."""
    if not len(values) or (values.min() >= -2 ** 31 and values.max() < 2 ** 31):
        return values.astype(np.int32)
    return values


def concat_blocks(parts: list[RunBlock]) -> RunBlock:
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
class StreamJudging:
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
        self._add_ranked(concat_blocks(list(parts)), np.concatenate(to_truth))

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