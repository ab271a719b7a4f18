"""The ground truth grown by judgments (:func:`merged_qrels`) and written as TREC qrels
(:func:`qrels_text`). The ground-truth file itself is never written to."""

from __future__ import annotations

from typing import Mapping

import numpy as np

from metrics.data.idcolumn import IdColumn
from metrics.data.truth import GroundTruth
from metrics.errors import InputError


def merged_qrels(truth: GroundTruth | None, judgments: Mapping[tuple[str, str], int],
                 name: str | None = None) -> GroundTruth:
    """The ground truth with the judgments applied: a judged pair the truth already has takes
    the judgment's grade (a pair the truth marks "pooled, not judged", grade −1, too), a new
    pair is added. ``judgments`` is ``{(query, item): grade}``, as
    :meth:`~metrics.judgments.store.JudgmentStore.latest` gives it; ``truth`` None is an empty
    one (the judgments alone).

    Queries keep the truth's order, new queries follow in the order of their first judgment;
    within a query the truth's pairs come first, in its order, then the new pairs in the order
    of ``judgments``. A truth that judges every unlisted item (labels, taxonomies) has no holes
    to fill and is refused."""
    if truth is not None and truth.unlisted_judged:
        raise InputError(f"{truth.name} judges every item of the collection (labels or a "
                         "taxonomy): there is nothing to judge; judgments apply to qrels")
    import polars as pl

    base_queries = [] if truth is None else [str(q) for q in truth.query_ids]
    query_code = {q: i for i, q in enumerate(base_queries)}
    grades = (np.zeros(0, dtype=np.int64) if truth is None
              else np.array(truth.pair_grade, dtype=np.int64))
    base_codes = (np.zeros(0, dtype=np.int64) if truth is None
                  else np.asarray(truth.pair_query, dtype=np.int64))
    base_items = IdColumn([]) if truth is None else truth.pair_items
    # the truth's rows that a judgment may name: only their ids become Python strings, so a
    # judgment costs the pairs of the items judged, not the whole truth
    row_of = {}
    if len(base_items) and judgments:
        wanted = pl.Series([str(item) for _, item in judgments], dtype=pl.String)
        rows = np.flatnonzero(base_items.series.is_in(wanted.implode()).to_numpy())
        row_of = {(base_queries[int(q)], item): int(row) for row, q, item in zip(
            rows, base_codes[rows], base_items.take(rows))}
    new_codes, new_items, new_grades = [], [], []
    for (query, item), grade in judgments.items():
        query, item = str(query), str(item)
        row = row_of.get((query, item))
        if row is not None:
            grades[row] = int(grade)
            continue
        if query not in query_code:
            query_code[query] = len(query_code)
        new_codes.append(query_code[query])
        new_items.append(item)
        new_grades.append(int(grade))
    codes = np.concatenate([base_codes, np.asarray(new_codes, dtype=np.int64)])
    order = np.argsort(codes, kind="stable")   # each query's rows together, the truth's first
    # one plain column: a loader's column may key its ids its own way (IdColumn.keys_of)
    items = IdColumn(pl.concat([base_items.series, pl.Series(new_items, dtype=pl.String)])
                     .gather(order))
    return GroundTruth.from_columns(
        codes[order], np.asarray(list(query_code), dtype=object), items,
        np.concatenate([grades, np.asarray(new_grades, dtype=np.int64)])[order],
        name=name or (truth.name if truth is not None else "judgments"), no_repeats=True)


def qrels_text(truth: GroundTruth, source: str = "judgments") -> str:
    """TREC qrels lines (``query 0 item grade``) of a ground truth's pairs, in its order. An id
    with white space cannot be written as TREC text: refused, naming it."""
    queries = [str(truth.query_ids[int(q)]) for q in truth.pair_query]
    items = truth.pair_items.tolist()
    lines = []
    for query, item, grade in zip(queries, items, truth.pair_grade):
        for kind, value in (("query", query), ("item", item)):
            if not value or len(value.split()) != 1:
                raise InputError(f"{kind} id {value!r} has white space, which TREC qrels "
                                 "cannot hold; rename it", source=source)
        lines.append(f"{query} 0 {item} {int(grade)}\n")
    return "".join(lines)
