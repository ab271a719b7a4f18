"""One query's list longer than a block, judged as its lines stream by, as an all-vs-all row is
(:mod:`metrics.ranking.streaming`): for each judged item, the items ranked above it are counted,
so that memory follows the query's judged items and a block, not the list's length.

This holds for a list in rank order — scores, as the tie policy compares them, never rising, as
nearly every run writes its lists: an item's rank is then the number of lines before its group
of equal scores, plus the items of that group that the policy puts before it. ``stable`` (and the
tie-aware policies, which rank ``stable``) keeps the lines' order; ``trec9``/``trec10`` put ids
in descending order and ``id`` in ascending order (numerically when every tied id of the list is
a whole number: both orders are counted until the list ends). A group of equal scores may span
any number of blocks: while it is open, each judged item of the query (the ground truth names
them before their lines are read) keeps the count of the group's members ordered before it.

A list whose lines are not in rank order, or that names an item twice, raises
:class:`NotInRankOrder`: its lines must be held and ranked whole, as before
(:mod:`metrics.ranking.run_stream` reads the file again that way). Telling that no item comes back
takes a record of every item seen — 8 bytes a line, its 64-bit key (16 while the record's largest
merge sorts); no exact one-pass check can do with less (deciding that n items are distinct needs
memory that grows with n).
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np

from metrics.data.ties import TiePolicy
from metrics.loaders.run_blocks import RunBlock
from metrics.ranking.tie_order import _as_numbers, policy_scores


class NotInRankOrder(Exception):
    """The long list's scores rise somewhere, or an item comes back: it must be held whole."""


class _SeenKeys:
    """The 64-bit keys of the items seen, as sorted arrays of sizes that double (each merge
    costs its size, so a key is merged about log2(lines) times)."""

    def __init__(self):
        self.levels: list[np.ndarray] = []

    def add_new(self, keys: np.ndarray) -> bool:
        """Add keys; False (nothing added) when one repeats or was seen already."""
        keys = np.sort(keys)
        if len(keys) > 1 and (keys[1:] == keys[:-1]).any():
            return False
        for level in self.levels:
            at = np.minimum(np.searchsorted(level, keys), len(level) - 1)
            if (level[at] == keys).any():
                return False
        while self.levels and len(self.levels[-1]) <= len(keys):
            # the two inputs are freed as the joined copy is made, and it is sorted in place:
            # the largest merge holds its keys and a sort's scratch of as many, not three copies
            keys = np.concatenate([self.levels.pop(), keys])
            keys.sort(kind="stable")
        self.levels.append(keys)
        return True


# orders inside a group of equal scores: what ranks a member before another one
_BY_LINE, _ID_DOWN, _ID_UP, _NUMBER_UP = "line", "id down", "id up", "number up"


def _orders(ties: TiePolicy) -> tuple[str, ...]:
    if ties.id_descending:
        return (_ID_DOWN,)
    if ties is TiePolicy.ID:   # numeric only if every tied id is a whole number: both, until then
        return (_ID_UP, _NUMBER_UP)
    return (_BY_LINE,)


@dataclass
class _Open:
    """The group of equal scores that the last lines read belong to (it may go on)."""

    first: int                      # its first position (0-based) in the list
    score: float
    size: int = 0
    first_id: str | None = None     # its first member (checked as a tied id once one joins it)
    before: dict = field(default_factory=dict)   # order -> per judged item, members before it
    equal: np.ndarray | None = None  # per judged item, members of the same number (id order)
    hits: list = field(default_factory=list)     # (judged item, position, {order: offset})


@dataclass
class LongList:
    """One query's lines, fed in parts of consecutive lines (:meth:`add`), then :meth:`finish`."""

    ties: TiePolicy                 # the ordering policy (tie-aware ones rank stable)
    judged_ids: np.ndarray          # the query's judged items (object array of str), may be empty
    seen: _SeenKeys = field(default_factory=_SeenKeys)
    length: int = 0
    group: _Open | None = None
    hits: list = field(default_factory=list)      # (judged item, group first, size, offsets)
    tie_first: list = field(default_factory=list)   # groups of two or more: first positions
    tie_size: list = field(default_factory=list)
    all_tied_whole: bool = True     # every id in a group of two or more a whole number
    top: dict = field(default_factory=dict)       # order -> (key, id) of the first item

    def __post_init__(self):
        self.orders = _orders(self.ties)
        self.keyed = self.orders != (_BY_LINE,)
        self.judged_keys = {o: self._keys(o, self.judged_ids) for o in self.orders if self.keyed}

    @staticmethod
    def _keys(order: str, ids: np.ndarray) -> np.ndarray:
        """Keys that sort ids in the order (ascending; descending ids are counted as such)."""
        if order == _NUMBER_UP:
            return _as_numbers(ids).to_numpy(np.float64)
        return np.asarray(ids, dtype=object)   # str compares by code point: as strcmp in UTF-8

    def add(self, part: RunBlock, found: np.ndarray, judged: np.ndarray) -> None:
        """Lines of the query: ``found``, the rows of the part that are judged items (ascending),
        ``judged``, their index in ``judged_ids``."""
        if not self.seen.add_new(part.items.keys):
            raise NotInRankOrder()
        scores = policy_scores(part.scores, self.ties)
        if (scores[1:] > scores[:-1]).any() or (self.group is not None
                                                 and scores[0] > self.group.score):
            raise NotInRankOrder()
        n = len(scores)
        if self.group is not None and scores[0] != self.group.score:
            self._close()
        # the part's groups of equal scores: [bounds[g], bounds[g + 1])
        bounds = np.r_[0, np.flatnonzero(scores[1:] != scores[:-1]) + 1, n]
        count = len(bounds) - 1
        sizes = np.diff(bounds)
        hit_group = np.searchsorted(bounds, found, side="right") - 1
        special = np.zeros(count, dtype=bool)   # looked at one by one: few in a part
        special[hit_group] = True
        special[-1] = True                      # it may go on in the next part
        special[0] |= self.group is not None or self.length == 0   # goes on, or ranks first
        plain = ~special & (sizes > 1)          # tied, no judged item: only reported
        if plain.any():
            self.tie_first.append(self.length + bounds[:-1][plain])
            self.tie_size.append(sizes[plain])
            if self.ties is TiePolicy.ID and self.all_tied_whole:
                rows = np.flatnonzero(np.repeat(plain, sizes))
                self._check_whole(part.items.take(rows))
        for g in np.flatnonzero(special).tolist():
            a, b = int(bounds[g]), int(bounds[g + 1])
            if self.group is None:
                self.group = _Open(self.length + a, float(scores[a]))
            holds = hit_group == g
            self._add_members(part.items.take(np.arange(a, b)), found[holds] - a,
                              judged[holds])
            if g < count - 1:
                self._close()
        self.length += n

    def _check_whole(self, ids) -> None:
        numbers = _as_numbers(np.asarray(ids, dtype=object)).to_numpy(np.float64)
        self.all_tied_whole &= bool(not np.isnan(numbers).any()
                                    and (numbers == np.floor(numbers)).all())

    def _add_members(self, ids: np.ndarray, hit_rows: np.ndarray, hit_items: np.ndarray) -> None:
        """Members of the open group (its next lines), with the judged items among them."""
        group = self.group
        size_before = group.size
        group.size += len(ids)
        if not size_before:
            group.first_id = ids[0]
        if self.ties is TiePolicy.ID and self.all_tied_whole and group.size > 1:
            # its first member is a tied id once a second one joins it
            self._check_whole(list(ids) + ([group.first_id] if size_before == 1 else []))
        if group.first == 0:
            self._note_top(ids, size_before)
        offsets = {}
        for order in self.orders:
            if not self.keyed:
                offsets[order] = size_before + hit_rows
                continue
            keys = self._keys(order, ids)
            judged = self.judged_keys[order]
            # members before each judged item: a smaller key (descending ids: a larger one),
            # counted for every judged item while the group is open, since any may come later
            before = self._count_before(keys, judged, order)
            group.before[order] = before if order not in group.before else \
                group.before[order] + before
            offsets[order] = np.zeros(len(hit_rows), dtype=np.int64)
            if order == _NUMBER_UP:
                # an equal number (1 and 01) comes before when its line does: ids never repeat,
                # so only numbers can be equal
                if group.equal is None:
                    group.equal = np.zeros(len(judged), dtype=np.int64)
                offsets[order] = group.equal[hit_items] + np.array(
                    [int(np.count_nonzero(keys[:r] == k))
                     for r, k in zip(hit_rows.tolist(), judged[hit_items])], dtype=np.int64)
                ordered = np.sort(keys)
                group.equal += (np.searchsorted(ordered, judged, side="right")
                                - np.searchsorted(ordered, judged, side="left"))
        for i, (row, item) in enumerate(zip(hit_rows.tolist(), hit_items.tolist())):
            group.hits.append((item, {o: int(offsets[o][i]) for o in self.orders}))

    @staticmethod
    def _count_before(keys: np.ndarray, judged: np.ndarray, order: str) -> np.ndarray:
        """For each judged key, the members whose key the order puts first."""
        if not len(judged):
            return np.zeros(0, dtype=np.int64)
        ordered = np.sort(keys)
        if order == _ID_DOWN:
            return (len(ordered) - np.searchsorted(ordered, judged, side="right")).astype(
                np.int64)
        return np.searchsorted(ordered, judged, side="left").astype(np.int64)

    def _note_top(self, ids: np.ndarray, size_before: int) -> None:
        """The first item of the list: the member of its first group that each order puts
        first (kept while that group is open)."""
        for order in self.orders:
            if order == _BY_LINE:
                if not size_before:
                    self.top[order] = (0, ids[0])
                continue
            keys = self._keys(order, ids)
            if order == _NUMBER_UP:   # the first of the smallest numbers (NaN: not ranked so)
                keys = np.where(np.isnan(keys), np.inf, keys)
                i = int(np.argmin(keys))
                candidate = (float(keys[i]), ids[i])
                better = lambda new, old: new < old
            else:
                i = int(np.argmax(keys) if order == _ID_DOWN else np.argmin(keys))
                candidate = (keys[i], ids[i])
                better = (lambda new, old: new > old) if order == _ID_DOWN else \
                    (lambda new, old: new < old)
            best = self.top.get(order)
            if best is None or better(candidate[0], best[0]):
                self.top[order] = candidate

    def _close(self) -> None:
        group, self.group = self.group, None
        if group is None:
            return
        if group.size > 1:
            self.tie_first.append(np.array([group.first], dtype=np.int64))
            self.tie_size.append(np.array([group.size], dtype=np.int64))
        for item, offsets in group.hits:
            if self.keyed:
                offsets = {o: int(group.before[o][item]) + offsets[o] for o in self.orders}
            self.hits.append((item, group.first, group.size, offsets))

    def finish(self) -> "LongListResult":
        self._close()
        tied = bool(self.tie_first)
        first = np.concatenate(self.tie_first) if tied else np.zeros(0, dtype=np.int64)
        size = np.concatenate(self.tie_size) if tied else np.zeros(0, dtype=np.int64)
        by_position = np.argsort(first, kind="stable")
        columns = list(zip(*[(item, start + 1, n) for item, start, n, _ in self.hits])) or \
            [[]] * 3
        item, group_first, group_size = (np.array(c, dtype=np.int64) for c in columns)
        ranks = {o: np.array([start + offsets[o] + 1 for _, start, _, offsets in self.hits],
                             dtype=np.int64) for o in self.orders}
        top = {o: self.top[o][1] for o in self.top}
        # id: numbers order ties only when every tied id of the run is a whole number, which
        # the caller decides (with the other queries' tied ids)
        return LongListResult(self.length, item, group_first, group_size, first[by_position],
                              size[by_position], ranks, top,
                              self.all_tied_whole if tied and self.ties is TiePolicy.ID
                              else None)


@dataclass(frozen=True)
class LongListResult:
    """A long list judged: its length, each hit's judged item (index into the query's judged
    ids) and group (first rank, size); its groups of two or more (first position, size); under
    each order the policy may take (``id``: by text and by number), the hits' 1-based ranks and
    the item ranked first; for ``id``, whether its tied ids are all whole numbers (None: no tie,
    or another policy)."""

    length: int
    hit_item: np.ndarray
    hit_tie_first: np.ndarray
    hit_tie_size: np.ndarray
    tie_first: np.ndarray
    tie_size: np.ndarray
    ranks: dict
    first_items: dict
    whole_ids: bool | None

    def hit_rank(self, numbers: bool = False) -> np.ndarray:
        """The ranks; ``numbers``: ids ordered as numbers (``id``, every tied id whole)."""
        return self.ranks[_NUMBER_UP if numbers else next(iter(self.ranks))]

    def first_item(self, numbers: bool = False) -> str | None:
        return self.first_items.get(_NUMBER_UP if numbers else next(iter(self.ranks)))
