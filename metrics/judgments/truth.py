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
    base_queries = [] if truth is None else [str(q) for q in truth.query_ids]
    query_code = {q: i for i, q in enumerate(base_queries)}
    grades = (np.zeros(0, dtype=np.int64) if truth is None
              else np.array(truth.pair_grade, dtype=np.int64))
    codes = [] if truth is None else truth.pair_query
    row_of = {}
    if truth is not None and judgments:
        wanted = {item for _, item in judgments}
        items = truth.pair_items.tolist()
        row_of = {(base_queries[int(q)], item): row
                  for row, (q, item) in enumerate(zip(truth.pair_query, items))
                  if item in wanted}
    new_queries, new_items, new_grades = [], [], []
    for (query, item), grade in judgments.items():
        row = row_of.get((str(query), str(item)))
        if row is not None:
            grades[row] = int(grade)
            continue
        if query not in query_code:
            query_code[query] = len(query_code)
        new_queries.append(query_code[query])
        new_items.append(str(item))
        new_grades.append(int(grade))
    all_codes = np.concatenate([np.asarray(codes, dtype=np.int64),
                                np.asarray(new_queries, dtype=np.int64)])
    order = np.argsort(all_codes, kind="stable")   # each query's rows together, truth's first
    base_items = [] if truth is None else truth.pair_items.tolist()
    items = np.asarray(base_items + new_items, dtype=object)[order]
    vocab = np.asarray(list(query_code), dtype=object)
    merged = GroundTruth.from_columns(
        all_codes[order], vocab, IdColumn(items),
        np.concatenate([grades, np.asarray(new_grades, dtype=np.int64)])[order],
        name=name or (truth.name if truth is not None else "judgments"), no_repeats=True)
    return merged


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
