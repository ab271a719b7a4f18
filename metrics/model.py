"""The data model every measure reads: runs, ground truth, and the judged ranking built from both.

* :class:`Run` — for each query, items with scores (or a bare ranked list with no scores).
* :class:`GroundTruth` — graded relevance per (query, item); 0 is judged not relevant, >= 1
  relevant, absent items are unjudged unless the truth says every unlisted item is judged
  (labels and taxonomies, where the whole collection is annotated).

Judging a run against the truth (:mod:`metrics.ranking`) gives the
:class:`~metrics.judged.JudgedRanking` that every measure reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from functools import cached_property
from typing import Iterable, Mapping, Sequence

import numpy as np

# pandas is imported inside the functions that use it: the command line's fast path for large
# TREC files never needs it, and importing it costs about half a second.

from .errors import InputError
from .idcolumn import IdColumn, mix
from .judged import GradeCounts
from .parallel import over_parts

# Grades read as floating point (CSV, Parquet) are exact integers only up to 2**53.
MAX_FLOAT_GRADE = 2 ** 53


def _whole_grades(grades, source: str | None) -> np.ndarray:
    """Grades as int64: integer input as it is; floating-point input must be whole, finite and
    within ±2**53, where every whole number is exact (never rounded or wrapped)."""
    g = np.asarray(grades)
    if np.issubdtype(g.dtype, np.integer):
        return g.astype(np.int64)
    g = g.astype(np.float64)
    if len(g) and not np.all(np.isfinite(g)):
        bad = int(np.flatnonzero(~np.isfinite(g))[0])
        raise InputError(f"grade {g[bad]} is not a finite number", source=source, row=bad + 1)
    if len(g) and not np.all(g == np.round(g)):
        bad = int(np.flatnonzero(g != np.round(g))[0])
        raise InputError(f"grade {g[bad]} is not a whole number", source=source, row=bad + 1)
    if len(g) and np.abs(g).max() > MAX_FLOAT_GRADE:
        bad = int(np.flatnonzero(np.abs(g) > MAX_FLOAT_GRADE)[0])
        raise InputError(f"grade {g[bad]:.0f} is too large: grades must lie within ±2^53",
                         source=source, row=bad + 1)
    return g.astype(np.int64)


def _as_str_array(values: Iterable) -> np.ndarray:
    return np.asarray([str(v) for v in values], dtype=object)


def _no_key_repeats(query_codes: np.ndarray, keys: np.ndarray) -> bool:
    """True when no query has the same key twice: by sorting each query's keys in a queries ×
    list-length matrix when the lists are even (fast: each row is short and sorted in cache),
    else (queries in several blocks, very uneven list lengths) by one sort of the (query, key)
    mixes, so a skewed run costs what its lines cost."""
    n = len(keys)
    starts = np.r_[0, np.flatnonzero(query_codes[1:] != query_codes[:-1]) + 1]
    lengths = np.diff(np.r_[starts, n])
    width = int(lengths.max())
    if len(np.unique(query_codes[starts])) != len(starts) or len(starts) * width > 4 * n:
        mixed = np.sort(mix(query_codes, keys))
        return not bool((mixed[1:] == mixed[:-1]).any())
    sentinel = np.iinfo(np.uint64).max  # pads short lists; sorts last
    padded = not (lengths == width).all()
    if not padded:
        table = keys.reshape(len(starts), width)
    else:
        if (keys == sentinel).any():
            return False
        table = np.full((len(starts), width), sentinel, dtype=np.uint64)
        positions = np.arange(n) - np.repeat(starts, lengths)
        table[np.repeat(np.arange(len(starts)), lengths), positions] = keys

    def repeats_in(start: int, stop: int) -> bool:
        rows = np.sort(table[start:stop], axis=1)
        equal = rows[:, 1:] == rows[:, :-1]
        if padded:
            equal &= rows[:, 1:] != sentinel
        return bool(equal.any())
    return not any(over_parts(repeats_in, len(table), width))


def later_repeats(query_codes: np.ndarray, items: IdColumn) -> np.ndarray | None:
    """Mask of the rows whose (query, item) pair already occurred on an earlier row, or None when
    no pair repeats. Keys find the suspects; their ids decide."""
    if len(query_codes) < 2 or _no_key_repeats(query_codes, items.keys):
        return None
    import pandas as pd
    suspect = np.flatnonzero(pd.Series(mix(query_codes, items.keys)).duplicated(keep=False))
    pairs = pd.DataFrame({"q": query_codes[suspect], "id": items.take(suspect)})
    repeat = pairs.duplicated(keep="first").to_numpy()
    if not repeat.any():
        return None
    mask = np.zeros(len(query_codes), dtype=bool)
    mask[suspect[repeat]] = True
    return mask


def _first_occurrences(query_codes: np.ndarray, query_vocab: np.ndarray, items: IdColumn,
                       what: str, label: str, warnings: list[str]) -> np.ndarray | None:
    """Mask of the rows to keep when some (query, item) pair repeats — its first occurrence — with
    a warning appended; None when no pair repeats."""
    repeated = later_repeats(query_codes, items)
    if repeated is None:
        return None
    example = int(np.flatnonzero(repeated)[0])
    warnings.append(f"{label}: {int(repeated.sum())} duplicated (query, item) {what} dropped, the "
                    f"first occurrence kept (first duplicate: query "
                    f"{query_vocab[query_codes[example]]!r}, item {items.take([example])[0]!r})")
    return ~repeated


@dataclass(frozen=True, eq=False)
class Run:
    """A system's output: one row per (query, item), with a score unless it is a bare ranked list.

    Query ids are stored once each (``query_vocab``) and rows refer to them by code; item ids stay
    in an :class:`~metrics.idcolumn.IdColumn` in row order, so a run of ten million lines holds no
    Python string per line. Rows keep their input order, which is what the ``stable`` tie policy
    falls back on. For a bare list, ``ranks`` (if given) or the input order is the ranking.
    Duplicated (query, item) pairs are dropped, keeping the first occurrence, with a warning.
    """

    query_codes: np.ndarray
    query_vocab: np.ndarray
    items: IdColumn
    scores: np.ndarray | None = None
    ranks: np.ndarray | None = None
    name: str = "run"
    warnings: tuple[str, ...] = ()

    @classmethod
    def build(cls, query_ids, item_ids, scores=None, ranks=None, name: str = "run",
              source: str | None = None) -> "Run":
        import pandas as pd
        q_codes, q_vocab = pd.factorize(_as_str_array(query_ids), sort=False)
        return cls.from_columns(q_codes, np.asarray(q_vocab, dtype=object),
                                IdColumn(_as_str_array(item_ids)), scores, ranks, name, source)

    @classmethod
    def from_columns(cls, query_codes, query_vocab, items: IdColumn, scores=None, ranks=None,
                     name: str = "run", source: str | None = None) -> "Run":
        """Rows given as query codes (into the unique ``query_vocab``) and an item column."""
        q = np.asarray(query_codes, dtype=np.int64)
        if len(q) != len(items):
            raise InputError("query and item columns differ in length", source=source)
        s = None if scores is None else np.asarray(scores, dtype=np.float64)
        r = None if ranks is None else np.asarray(ranks, dtype=np.float64)
        if s is not None and not np.all(np.isfinite(s)):
            bad = int(np.flatnonzero(~np.isfinite(s))[0])
            raise InputError(f"score {s[bad]} is not a finite number", source=source, row=bad + 1)
        warnings = []
        keep = _first_occurrences(q, query_vocab, items, "pair(s)", source or name, warnings)
        if keep is not None:
            q, items = q[keep], items.filter(keep)
            s = None if s is None else s[keep]
            r = None if r is None else r[keep]
        return cls(q, query_vocab, items, s, r, name, tuple(warnings))

    @classmethod
    def from_dict(cls, scores: Mapping[str, Mapping[str, float]], name: str = "run") -> "Run":
        """``{query: {item: score}}``, as pytrec_eval, ir_measures and ranx take it."""
        from .interop import nested
        q, d, s = nested(scores, "score")
        return cls.build(q, d, s, name=name)

    @classmethod
    def from_dataframe(cls, frame, query: str = "query_id", item: str | None = None,
                       score: str | None = "score", rank: str | None = None,
                       name: str = "run") -> "Run":
        """A pandas or polars DataFrame, one row per (query, item). ``item`` defaults to the
        ``item_id`` column, else ``doc_id`` (ir_measures, ir_datasets); ``score=None`` reads a
        bare ranked list, ordered by the ``rank`` column if given, else by row order."""
        from . import interop
        q = interop.ids(frame, interop.pick_column(frame, query, (), "query", "query"))
        d = interop.ids(frame, interop.pick_column(frame, item, interop.ITEM_COLUMNS, "item",
                                                   "item"))
        s = None if score is None else interop.numbers(
            frame, interop.pick_column(frame, score, (), "score", "score"))
        r = None if rank is None else interop.numbers(
            frame, interop.pick_column(frame, rank, (), "rank", "rank"))
        return cls.build(q, d, s, r, name=name, source="data frame")

    @classmethod
    def from_ir_measures(cls, run, name: str = "run") -> "Run":
        """A run as ir_measures takes it: ``{query: {doc: score}}``, a DataFrame with columns
        ``query_id, doc_id, score``, or an iterable of ``ScoredDoc(query_id, doc_id, score)``."""
        from . import interop
        if isinstance(run, Mapping):
            return cls.from_dict(run, name)
        if hasattr(run, "columns"):
            return cls.from_dataframe(run, "query_id", "doc_id", "score", name=name)
        q, d, s = interop.named_rows(run, "score")
        return cls.build(q, d, s, name=name, source="ir_measures run")

    @classmethod
    def from_ranx(cls, run, name: str | None = None) -> "Run":
        """A ranx ``Run`` (its name kept unless ``name`` is given). Runs that ranx saved in TREC
        format load with :func:`metrics.loaders.load_run` directly; its JSON and lz4 files load
        with ``ranx.Run.from_file`` and then this."""
        from .interop import ranx_dict
        return cls.from_dict(ranx_dict(run, "Run"), name or getattr(run, "name", None) or "run")

    @classmethod
    def from_lists(cls, lists: Mapping[str, Sequence[str]], name: str = "run") -> "Run":
        """Bare ranked lists ``{query: [best item, second, ...]}`` with no scores."""
        q = [query for query, items in lists.items() for _ in items]
        d = [item for items in lists.values() for item in items]
        return cls.build(q, d, name=name)

    @property
    def query_ids(self) -> np.ndarray:
        """The query id of every row (materialised: meant for small runs and tests)."""
        return self.query_vocab[self.query_codes]

    @property
    def item_ids(self) -> np.ndarray:
        """The item id of every row (materialised: meant for small runs and tests)."""
        return self.items.take(np.arange(len(self.items)))

    def __len__(self) -> int:
        return len(self.query_codes)


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

    @classmethod
    def build(cls, query_ids, item_ids, grades, name: str = "ground truth",
              source: str | None = None) -> "GroundTruth":
        """Explicit judgements (qrels). Queries keep their first-appearance order."""
        import pandas as pd
        codes, uniques = pd.factorize(_as_str_array(query_ids), sort=False)
        return cls.from_columns(codes, np.asarray(uniques, dtype=object),
                                IdColumn(_as_str_array(item_ids)), grades, name, source)

    @classmethod
    def from_columns(cls, query_codes, query_vocab, items: IdColumn, grades,
                     name: str = "ground truth", source: str | None = None) -> "GroundTruth":
        """Judgements given as query codes (into the unique ``query_vocab``), an item column and
        whole-number grades. Duplicated pairs are dropped, keeping the first, with a warning."""
        q = np.asarray(query_codes, dtype=np.int64)
        g = _whole_grades(grades, source)
        warnings = []
        negative = g < 0
        if negative.any():
            warnings.append(
                f"{source or name}: {int(negative.sum())} negative grade(s): pooled but not "
                f"judged, as in trec_eval (never relevant; not judged non-relevant for bpref)")
        keep = _first_occurrences(q, query_vocab, items, "judgement(s)", source or name, warnings)
        if keep is not None:
            q, g, items = q[keep], g[keep], items.filter(keep)
        # queries named only by dropped rows cannot exist: the first row of a pair is kept
        truth = cls(np.asarray(query_vocab, dtype=object), q, items.take(np.arange(len(items))),
                    g, name=name, warnings=tuple(warnings))
        truth.__dict__["pair_items"] = items  # the loader's column: no second hashing
        return truth

    @classmethod
    def from_dict(cls, qrels: Mapping[str, Mapping[str, int]], name: str = "ground truth"):
        """``{query: {item: grade}}``, as pytrec_eval, ir_measures and ranx take it."""
        from .interop import nested
        q, d, g = nested(qrels, "grade")
        return cls.build(q, d, g, name=name)

    @classmethod
    def from_dataframe(cls, frame, query: str = "query_id", item: str | None = None,
                       relevance: str | None = None,
                       name: str = "ground truth") -> "GroundTruth":
        """A pandas or polars DataFrame of judgements, one row per (query, item). ``item``
        defaults to ``item_id``, else ``doc_id``; ``relevance`` to ``relevance``, else
        ``grade``. Grades are whole numbers."""
        from . import interop
        q = interop.ids(frame, interop.pick_column(frame, query, (), "query", "query"))
        d = interop.ids(frame, interop.pick_column(frame, item, interop.ITEM_COLUMNS, "item",
                                                   "item"))
        g = interop.numbers(frame, interop.pick_column(frame, relevance, interop.GRADE_COLUMNS,
                                                       "relevance", "relevance"))
        return cls.build(q, d, g, name=name, source="data frame")

    @classmethod
    def from_ir_measures(cls, qrels, name: str = "ground truth") -> "GroundTruth":
        """Qrels as ir_measures takes them: ``{query: {doc: relevance}}``, a DataFrame with
        columns ``query_id, doc_id, relevance``, or an iterable of
        ``Qrel(query_id, doc_id, relevance)`` (ir_datasets' qrels included)."""
        from . import interop
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
        from .interop import ranx_dict
        return cls.from_dict(ranx_dict(qrels, "Qrels"),
                             name or getattr(qrels, "name", None) or "ground truth")

    @classmethod
    def from_labels(cls, item_ids, labels, name: str = "labels") -> "GroundTruth":
        """Items sharing a label are relevant (grade 1) to each other; every item is a query, every
        other item is judged, and the query item is excluded from its own ranking."""
        import pandas as pd
        items = _as_str_array(item_ids)
        label_codes, _ = pd.factorize(_as_str_array(labels))
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
                   name=name, item_labels=_as_str_array(labels))

    @classmethod
    def from_taxonomy(cls, parents: Mapping[str, str], annotations: Iterable[tuple[str, str]],
                      name: str = "taxonomy", queries: Sequence[str] | None = None) -> "GroundTruth":
        """Two-level taxonomy (seed 003): relevance of an item to query class q is 2 if q is among
        its classes, 1 if a sibling of q (another class with the same parent) is, else 0 — the
        maximum over its classes. Every class of the taxonomy is a query unless ``queries`` says
        otherwise; every annotated item is judged for every query."""
        import pandas as pd
        notes = pd.DataFrame(list(annotations), columns=["item", "cls"]).astype(str)
        classes = pd.Series(parents, dtype=object).astype(str)
        unknown = sorted(set(notes["cls"]) - set(classes.index))
        if unknown:
            raise InputError(f"class {unknown[0]!r} of the annotations is not in the taxonomy",
                             source=name)
        query_ids = _as_str_array(classes.index if queries is None else queries)
        notes["parent"] = classes.reindex(notes["cls"]).to_numpy()
        q_frame = pd.DataFrame({"query": query_ids,
                                "parent": classes.reindex(query_ids).to_numpy()})
        exact = notes.rename(columns={"cls": "query"})[["query", "item"]].assign(grade=2)
        exact = exact[exact["query"].isin(set(query_ids))]
        sib = notes[notes["parent"].fillna("") != ""].merge(q_frame, on="parent")
        sib = sib[sib["cls"] != sib["query"]][["query", "item"]].assign(grade=1)
        pairs = (pd.concat([exact, sib]).groupby(["query", "item"], sort=False)["grade"].max()
                 .reset_index())
        q_index = pd.Index(query_ids)
        n_items = notes["item"].nunique()
        return cls(query_ids, q_index.get_indexer(pairs["query"]).astype(np.int64),
                   _as_str_array(pairs["item"]), pairs["grade"].to_numpy(np.int64),
                   unlisted_judged=True, candidates=np.full(len(query_ids), n_items, np.int64),
                   name=name)

    @property
    def max_grade(self) -> int:
        return int(self.pair_grade.max()) if len(self.pair_grade) else 0

    @cached_property
    def pair_items(self) -> IdColumn:
        """The judged items as an :class:`~metrics.idcolumn.IdColumn`."""
        return IdColumn(self.pair_item)

    @property
    def pair_keys(self) -> np.ndarray:
        """64-bit keys of the judged items, comparable with :attr:`IdColumn.keys`."""
        return self.pair_items.keys

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
