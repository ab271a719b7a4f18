"""A run: for each query, items with scores (or a bare ranked list with no scores).

Judging a run against the ground truth (:func:`metrics.ranking.rank.judge`) gives the
:class:`~metrics.data.judged.JudgedRanking` that every measure reads.
"""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np

# pandas is imported inside the functions that use it: the command line's fast path for large
# TREC files never needs it, and importing it costs about half a second.

from metrics.errors import InputError
from metrics.data.idcolumn import IdColumn
from metrics.data.rows import first_occurrences, id_strings, whole_numbers


@dataclass(frozen=True, eq=False)
class Run:
    """A system's output: one row per (query, item), with a score unless it is a bare ranked list.

    Query ids are stored once each (``query_vocab``) and rows refer to them by code; item ids stay
    in an :class:`~metrics.data.idcolumn.IdColumn` in row order, so a run of ten million lines holds
    no Python string per line. Rows keep their input order, which is what the ``stable`` tie policy
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
    tag: str | None = None   # the tag column's value when every row has the same one

    @property
    def system_name(self) -> str:
        """What a system is called: its tag when the whole run has one, else its name."""
        return self.tag or self.name

    @classmethod
    def build(cls, query_ids, item_ids, scores=None, ranks=None, name: str = "run",
              source: str | None = None) -> "Run":
        import pandas as pd
        q_codes, q_vocab = pd.factorize(id_strings(query_ids, source, "query_id"), sort=False)
        return cls.from_columns(q_codes, np.asarray(q_vocab, dtype=object),
                                IdColumn(id_strings(item_ids, source, "item_id")), scores, ranks,
                                name, source)

    @classmethod
    def from_columns(cls, query_codes, query_vocab, items: IdColumn, scores=None, ranks=None,
                     name: str = "run", source: str | None = None) -> "Run":
        """Rows given as query codes (into the unique ``query_vocab``) and an item column. Ranks
        are whole numbers, read exactly (see :func:`~metrics.data.rows.whole_numbers`)."""
        q = np.asarray(query_codes, dtype=np.int64)
        if len(q) != len(items):
            raise InputError("query and item columns differ in length", source=source)
        s = None if scores is None else np.asarray(scores, dtype=np.float64)
        r = None if ranks is None else whole_numbers(ranks, "rank", source)
        if s is not None and not np.all(np.isfinite(s)):
            bad = int(np.flatnonzero(~np.isfinite(s))[0])
            raise InputError(f"score {s[bad]} is not a finite number", source=source, row=bad + 1)
        warnings = []
        keep = first_occurrences(q, query_vocab, items, "pair(s)", source or name, warnings)
        if keep is not None:
            q, items = q[keep], items.filter(keep)
            s = None if s is None else s[keep]
            r = None if r is None else r[keep]
        return cls(q, query_vocab, items, s, r, name, tuple(warnings))

    @classmethod
    def from_dict(cls, scores: Mapping[str, Mapping[str, float]], name: str = "run") -> "Run":
        """``{query: {item: score}}``, as pytrec_eval, ir_measures and ranx take it."""
        from metrics.data.interop import nested
        q, d, s = nested(scores, "score")
        return cls.build(q, d, s, name=name)

    @classmethod
    def from_dataframe(cls, frame, query: str = "query_id", item: str | None = None,
                       score: str | None = "score", rank: str | None = None,
                       name: str = "run") -> "Run":
        """A pandas or polars DataFrame, one row per (query, item). ``item`` defaults to the
        ``item_id`` column, else ``doc_id`` (ir_measures, ir_datasets); ``score=None`` reads a
        bare ranked list, ordered by the ``rank`` column if given, else by row order."""
        from metrics.data import interop
        q = interop.ids(frame, interop.pick_column(frame, query, (), "query", "query"))
        d = interop.ids(frame, interop.pick_column(frame, item, interop.ITEM_COLUMNS, "item",
                                                   "item"))
        s = None if score is None else interop.numbers(
            frame, interop.pick_column(frame, score, (), "score", "score"))
        r = None if rank is None else interop.whole_numbers(
            frame, interop.pick_column(frame, rank, (), "rank", "rank"), "rank")
        return cls.build(q, d, s, r, name=name, source="data frame")

    @classmethod
    def from_ir_measures(cls, run, name: str = "run") -> "Run":
        """A run as ir_measures takes it: ``{query: {doc: score}}``, a DataFrame with columns
        ``query_id, doc_id, score``, or an iterable of ``ScoredDoc(query_id, doc_id, score)``."""
        from metrics.data import interop
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
        from metrics.data.interop import ranx_dict
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
