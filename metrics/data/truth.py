"""The ground truth: graded relevance per (query, item) (what a grade means is
:class:`~metrics.data.relevance.Relevance`'s to say); absent items are unjudged unless the truth
says every unlisted item is judged (labels and taxonomies, where the whole collection is
annotated). Its grade counts per query (:class:`GradeCounts`) give R_q, relevant items retrieved
or not.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Mapping

import numpy as np

# pandas is imported inside the functions that use it (see metrics.data.run).

from metrics.errors import InputError
from metrics.data.idcolumn import IdArray, IdColumn
from metrics.data.relevance import Relevance
from metrics.data.rows import as_str_array, first_occurrences, id_strings, whole_numbers

@dataclass(frozen=True, eq=False)
class GradeCounts:
    """How many items of each grade the ground truth has per query, as (query, grade, count)
    triples sorted by query then grade; ``num_queries`` queries in all."""

    query: np.ndarray
    grade: np.ndarray
    count: np.ndarray
    num_queries: int

    @classmethod
    def from_pairs(cls, pair_query: np.ndarray, pair_grade: np.ndarray, num_queries: int,
                   extra_zero: np.ndarray | None = None) -> "GradeCounts":
        """Counts of judged (query, grade) pairs; ``extra_zero[q]`` more grade-0 items for query q
        (the unlisted items of a truth that judges the whole collection)."""
        q = np.asarray(pair_query, dtype=np.int64)
        g = np.asarray(pair_grade, dtype=np.int64)
        if extra_zero is not None:
            more = np.flatnonzero(extra_zero > 0)
            q = np.concatenate([q, more])
            g = np.concatenate([g, np.zeros(len(more), dtype=np.int64)])
            weights = np.concatenate([np.ones(len(pair_query), dtype=np.int64),
                                      extra_zero[more].astype(np.int64)])
        else:
            weights = np.ones(len(q), dtype=np.int64)
        if not len(q):
            empty = np.zeros(0, dtype=np.int64)
            return cls(empty, empty, empty, num_queries)
        order = np.lexsort((g, q))
        q, g, weights = q[order], g[order], weights[order]
        new = np.r_[True, (q[1:] != q[:-1]) | (g[1:] != g[:-1])]
        starts = np.flatnonzero(new)
        return cls(q[starts], g[starts], np.add.reduceat(weights, starts), num_queries)

    def _sum(self, mask: np.ndarray) -> np.ndarray:
        return np.bincount(self.query[mask], weights=self.count[mask],
                           minlength=self.num_queries).astype(np.int64)

    def relevant(self, relevance: Relevance) -> np.ndarray:
        """R_q: the relevant items per query."""
        return self._sum(relevance.relevant(self.grade))

    def judged_nonrelevant(self, relevance: Relevance) -> np.ndarray:
        """N: the items judged not relevant per query."""
        return self._sum(relevance.judged_nonrelevant(self.grade))

    @property
    def max_grade(self) -> int:
        return int(self.grade.max()) if len(self.grade) else 0

    def take(self, rows: np.ndarray) -> "GradeCounts":
        """The counts of some queries, renumbered 0..len(rows) − 1 in the order given."""
        new_index = np.full(self.num_queries, -1, dtype=np.int64)
        new_index[rows] = np.arange(len(rows))
        keep = new_index[self.query] >= 0
        query = new_index[self.query[keep]]
        order = np.lexsort((self.grade[keep], query))
        return GradeCounts(query[order], self.grade[keep][order], self.count[keep][order],
                           len(rows))


@dataclass(frozen=True, eq=False)
class GroundTruth:
    """Graded relevance of (query, item) pairs.

    ``pair_*`` list the judged pairs. When ``unlisted_judged`` is true, every item of the collection
    that is not listed counts as judged non-relevant for every query, and ``candidates[q]`` says how
    many items query q is ranked against (this is how labels and taxonomies are represented without
    a dense queries × items table). ``self_items[q]``, when set, is the item that *is* query q; it
    is removed from q's ranking (cover songs: a query is not its own version).
    """

    query_ids: np.ndarray
    pair_query: np.ndarray
    pair_item: np.ndarray
    pair_grade: np.ndarray
    unlisted_judged: bool = False
    candidates: np.ndarray | None = None
    self_items: np.ndarray | None = None
    name: str = "ground truth"
    warnings: tuple[str, ...] = ()
    item_labels: np.ndarray | None = None   # clique labels of ``self_items``, for labels truths
    query_parents: np.ndarray | None = None  # a taxonomy's parent class of each query class

    @classmethod
    def build(cls, query_ids, item_ids, grades, name: str = "ground truth",
              source: str | None = None) -> "GroundTruth":
        """Explicit judgements (qrels). Queries keep their first-appearance order."""
        import pandas as pd
        codes, uniques = pd.factorize(id_strings(query_ids, source, "query_id"), sort=False)
        return cls.from_columns(codes, np.asarray(uniques, dtype=object),
                                IdColumn(id_strings(item_ids, source, "item_id")), grades, name,
                                source)

    @classmethod
    def from_columns(cls, query_codes, query_vocab, items: IdColumn, grades,
                     name: str = "ground truth", source: str | None = None,
                     no_repeats: bool = False) -> "GroundTruth":
        """Judgements given as query codes (into the unique ``query_vocab``), an item column and
        whole-number grades (exact 64-bit integers, see
        :func:`~metrics.data.rows.whole_numbers`). Duplicated pairs are dropped, keeping the
        first, with a warning; ``no_repeats``: the reader knows that no pair repeats."""
        q = np.asarray(query_codes, dtype=np.int64)
        g = whole_numbers(grades, "grade", source)
        warnings = []
        negative = g < 0
        if negative.any():
            warnings.append(
                f"{source or name}: {int(negative.sum())} negative grade(s): pooled but not "
                f"judged, as in trec_eval (never relevant; not judged non-relevant for bpref)")
        keep = None if no_repeats else first_occurrences(q, query_vocab, items, "judgement(s)",
                                                         source or name, warnings)
        if keep is not None:
            q, g, items = q[keep], g[keep], items.filter(keep)
        # queries named only by dropped rows cannot exist: the first row of a pair is kept
        truth = cls(np.asarray(query_vocab, dtype=object), q, IdArray(items), g, name=name,
                    warnings=tuple(warnings))
        truth.__dict__["pair_items"] = items  # the loader's column: no second hashing
        return truth

    @classmethod
    def from_dict(cls, qrels: Mapping[str, Mapping[str, int]], name: str = "ground truth"):
        """``{query: {item: grade}}``, as pytrec_eval, ir_measures and ranx take it."""
        from metrics.data.interop import nested
        q, d, g = nested(qrels, "grade")
        return cls.build(q, d, g, name=name)

    @classmethod
    def from_dataframe(cls, frame, query: str = "query_id", item: str | None = None,
                       relevance: str | None = None,
                       name: str = "ground truth") -> "GroundTruth":
        """A pandas or polars DataFrame of judgements, one row per (query, item). ``item``
        defaults to ``item_id``, else ``doc_id``; ``relevance`` to ``relevance``, else
        ``grade``. Grades are whole numbers."""
        from metrics.data import interop
        q = interop.ids(frame, interop.pick_column(frame, query, (), "query", "query"))
        d = interop.ids(frame, interop.pick_column(frame, item, interop.ITEM_COLUMNS, "item",
                                                   "item"))
        g = interop.whole_numbers(frame, interop.pick_column(
            frame, relevance, interop.GRADE_COLUMNS, "relevance", "relevance"), "grade")
        return cls.build(q, d, g, name=name, source="data frame")

    @classmethod
    def from_ir_measures(cls, qrels, name: str = "ground truth") -> "GroundTruth":
        """Qrels as ir_measures takes them: ``{query: {doc: relevance}}``, a DataFrame with
        columns ``query_id, doc_id, relevance``, or an iterable of
        ``Qrel(query_id, doc_id, relevance)`` (ir_datasets' qrels included)."""
        from metrics.data import interop
        if isinstance(qrels, Mapping):
            return cls.from_dict(qrels, name)
        if hasattr(qrels, "columns"):
            return cls.from_dataframe(qrels, "query_id", "doc_id", "relevance", name=name)
        q, d, g = interop.named_rows(qrels, "relevance")
        return cls.build(q, d, g, name=name, source="ir_measures qrels")

    @classmethod
    def from_ranx(cls, qrels, name: str | None = None) -> "GroundTruth":
        """A ranx ``Qrels``. Qrels that ranx saved in TREC format load with
        :func:`metrics.loaders.load_qrels` directly; its JSON and lz4 files load with
        ``ranx.Qrels.from_file`` and then this."""
        from metrics.data.interop import ranx_dict
        return cls.from_dict(ranx_dict(qrels, "Qrels"),
                             name or getattr(qrels, "name", None) or "ground truth")

    @classmethod
    def from_labels(cls, item_ids, labels, name: str = "labels") -> "GroundTruth":
        """Items sharing a label are relevant (grade 1) to each other; every item is a query, every
        other item is judged, and the query item is excluded from its own ranking."""
        import pandas as pd
        items = id_strings(item_ids, name, "item_id")
        label_codes, _ = pd.factorize(as_str_array(labels))
        if len(items) != len(label_codes):
            raise InputError("item and label columns differ in length", source=name)
        if len(set(items)) != len(items):
            raise InputError("an item id appears twice in the labels", source=name)
        order = np.argsort(label_codes, kind="stable")
        sizes = np.bincount(label_codes)
        starts = np.concatenate([[0], np.cumsum(sizes)[:-1]])
        # For each item (as query), pair it with every member of its clique, then drop itself.
        member_count = sizes[label_codes]
        query_idx = np.repeat(np.arange(len(items)), member_count)
        offset_in_clique = np.arange(member_count.sum()) - np.repeat(
            np.cumsum(member_count) - member_count, member_count)
        partner = order[starts[label_codes][query_idx] + offset_in_clique]
        not_self = partner != query_idx
        query_idx, partner = query_idx[not_self], partner[not_self]
        n = len(items)
        return cls(items, query_idx.astype(np.int64), items[partner],
                   np.ones(len(partner), dtype=np.int64), unlisted_judged=True,
                   candidates=np.full(n, max(n - 1, 0), dtype=np.int64), self_items=items,
                   name=name, item_labels=as_str_array(labels))

    @property
    def max_grade(self) -> int:
        return int(self.pair_grade.max()) if len(self.pair_grade) else 0

    @cached_property
    def pair_items(self) -> IdColumn:
        """The judged items as an :class:`~metrics.data.idcolumn.IdColumn`."""
        return IdColumn(self.pair_item)

    def item_ids(self) -> set[str]:
        """Every item id the ground truth names: those judged and, where queries are items
        (:attr:`self_items`), every query's item, judged or not (a clique of one judges nothing
        yet names its item)."""
        known = set(self.pair_items.series.unique().to_list())
        if self.self_items is not None:
            known.update(map(str, self.self_items))
        return known

    @property
    def pair_keys(self) -> np.ndarray:
        """64-bit keys of the judged items, comparable with :attr:`IdColumn.keys`."""
        return IdColumn.keys_of(self.pair_items)

    def grade_counts(self) -> GradeCounts:
        """How many items of each grade every query has (unlisted items as grade 0 when those
        count as judged)."""
        extra = None
        if self.unlisted_judged and self.candidates is not None:
            listed = np.bincount(self.pair_query, minlength=len(self.query_ids))
            extra = self.candidates - listed
        return GradeCounts.from_pairs(self.pair_query, self.pair_grade, len(self.query_ids), extra)

    def __len__(self) -> int:
        return len(self.pair_item)
