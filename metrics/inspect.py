"""What the dashboard shows about a dataset and one query, as plain tables and numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .curves import rank_curves
from .judged import JudgedRanking
from .measures.confusion import counts


def dataset_summary(judged: JudgedRanking, threshold: int = 1) -> dict[str, object]:
    """Counts a validation summary shows: queries, retrieved items, relevant items, one-sided
    queries, unjudged retrieved items and score ties."""
    r_q = judged.num_relevant(threshold)
    retrieved = int(judged.lengths.sum())
    unjudged = 0 if judged.unlisted_judged else retrieved - int((judged.hit_grades >= 0).sum())
    return {
        "ground-truth queries": judged.num_queries,
        "queries with no relevant item": int((r_q == 0).sum()),
        "ground-truth queries missing from the run": int((judged.lengths == 0).sum()),
        "run queries missing from the ground truth": judged.run_only_queries,
        "retrieved items": retrieved,
        "list length (min / median / max)": (
            f"{int(judged.lengths.min())} / {float(np.median(judged.lengths)):g} / "
            f"{int(judged.lengths.max())}" if judged.num_queries else "-"),
        "relevant items in the ground truth": int(r_q.sum()),
        "relevant items per query (mean)": round(float(r_q.mean()), 2) if len(r_q) else 0.0,
        "relevant items retrieved": int((judged.hit_grades >= max(threshold, 1)).sum()),
        "unjudged items retrieved": unjudged,
        "highest grade": judged.max_grade,
        "collection size |D|": judged.collection_size if judged.collection_size else "unknown",
        "score ties": judged.ties.describe(),
    }


def query_table(judged: JudgedRanking, query: int, threshold: int = 1) -> pd.DataFrame:
    """FMP's table for one query: rank, item, score, grade, χ(r), P(r), R(r), F(r). Built for this
    query alone (a dense view of its list)."""
    curves = rank_curves(judged, query, threshold)
    grades, judged_here = judged.dense_grades(query)
    items, scores = judged.ranked_list(query)
    n = len(grades)
    table = pd.DataFrame({
        "rank": np.arange(1, n + 1),
        "item": items,
        "score": scores if scores is not None else np.full(n, np.nan),
        "grade": pd.Series(grades, dtype="Int64").mask(~judged_here),  # empty: unjudged
        "χ": curves.chi.astype(int),
        "P(r)": curves.precision,
        "R(r)": curves.recall,
        "F(r)": curves.f,
    })
    if table["score"].isna().all():  # a bare ranked list or answer set: no scores to show
        table = table.drop(columns="score")
    elif n > 1:
        groups = tie_groups_of_list(table["score"].to_numpy(float))
        if groups.any():
            table.insert(3, "tied ranks", groups)
    return table


def tie_groups_of_list(scores: np.ndarray) -> np.ndarray:
    """For a ranked list's scores, each item's group of equal scores as "first–last" ranks, ""
    for an item that ties with nothing (equal as shown; trec9 also ties scores equal as
    float32)."""
    n = len(scores)
    opens = np.r_[True, scores[1:] != scores[:-1]]
    starts = np.flatnonzero(opens)
    sizes = np.diff(np.r_[starts, n])
    first = np.repeat(starts, sizes) + 1
    last = np.repeat(starts + sizes, sizes)
    return np.where(last > first, [f"{a}–{b}" for a, b in zip(first, last)], "").astype(object)


def confusion_at(judged: JudgedRanking, query: int, cutoff: int, threshold: int = 1):
    """(TP, FP, FN, TN or None) of one query when its top ``cutoff`` items are retrieved."""
    one = judged.subset(np.array([query]))
    tp, fp, fn, tn = counts(one, cutoff, threshold)
    return float(tp[0]), float(fp[0]), float(fn[0]), None if tn is None else float(tn[0])


def side_by_side(a: JudgedRanking, b: JudgedRanking, query_id: str,
                 threshold: int = 1) -> tuple[pd.DataFrame, pd.DataFrame]:
    """One query's two rankings, each with every item's rank in the other system (missing when
    the other did not retrieve it)."""
    tables = []
    for judged in (a, b):
        rows = np.flatnonzero(judged.query_ids == query_id)
        tables.append(query_table(judged, int(rows[0]), threshold) if len(rows) else
                      pd.DataFrame(columns=["rank", "item", "grade", "χ"]))
    for mine, other in ((tables[0], tables[1]), (tables[1], tables[0])):
        where = dict(zip(other["item"], other["rank"]))
        mine["rank in other"] = pd.array([where.get(i) for i in mine["item"]], dtype="Int64")
    keep = ["rank", "item", "grade", "χ", "rank in other"]
    return tables[0][keep], tables[1][keep]
