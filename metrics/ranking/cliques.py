"""Clique labels (cover songs, versions): the items grouped by label, and each item's clique mates —
the relevant items of the query that item is, in all-against-all evaluation."""

from __future__ import annotations

import numpy as np


class Cliques:
    """The items grouped by clique label: ``members`` lists the items clique after clique (in file
    order inside each), and item i's clique is ``members[start[i]:start[i] + size[i]]``, item i
    among them. ``width`` is the most clique mates any item has (at least 1)."""

    def __init__(self, labels):
        # codes in order of first appearance, for any hashable labels (dict lookups at C speed)
        code_of = {label: code for code, label in enumerate(dict.fromkeys(labels))}
        codes = np.fromiter(map(code_of.__getitem__, labels), dtype=np.int64, count=len(labels))
        self.members = np.argsort(codes, kind="stable")
        sizes = np.bincount(codes)
        starts = np.cumsum(sizes) - sizes
        self.start, self.size = starts[codes], sizes[codes]
        self.width = max(int(sizes.max()) - 1, 1) if len(sizes) else 1
        self._partners = None

    def __getstate__(self):   # sent to cluster workers: the partners are rebuilt there if needed
        return {**self.__dict__, "_partners": None}

    def partners(self) -> np.ndarray:
        """N × width column indices of each item's clique mates in file order, -1 padded (built
        once, then kept)."""
        if self._partners is None:
            self._partners = self._build_partners()
        return self._partners

    def _build_partners(self) -> np.ndarray:
        n = len(self.members)
        partners = np.full((n, self.width), -1, dtype=np.int64)
        if n == 0:
            return partners
        place = np.empty(n, dtype=np.int64)   # each item's position inside its clique
        place[self.members] = np.arange(n) - self.start[self.members]
        # one (item, member) pair for every member of the item's clique
        item = np.repeat(np.arange(n), self.size)
        offset = np.arange(len(item)) - np.repeat(np.cumsum(self.size) - self.size, self.size)
        member = self.members[self.start[item] + offset]
        mate = member != item
        item, offset, member = item[mate], offset[mate], member[mate]
        partners[item, offset - (offset > place[item])] = member
        return partners


def clique_partners(labels) -> np.ndarray:
    """N × (largest clique − 1) column indices of each item's clique mates in file order, -1
    padded."""
    return Cliques(labels).partners()
