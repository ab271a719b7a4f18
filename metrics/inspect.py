"""What the dashboard shows about a dataset and one query, as plain tables and numbers."""

from __future__ import annotations

import numpy as np
import pandas as pd

from .curves import rank_curves
from .measures.confusion import counts
from .model import JudgedRanking


def dataset_summary(judged: JudgedRanking, threshold: int = 1) -> dict[str, object]:
    """Counts a validation summary shows: queries, retrieved items, relevant items, one-sided
    queries, unjudged retrieved items and score ties."""
    r_q = judged.num_relevant(threshold)
    retrieved = judged.grades != -2
    return {
        "ground-truth queries": judged.num_queries,
        "queries with no relevant item": int((r_q == 0).sum()),
        "ground-truth queries missing from the run": int((judged.lengths == 0).sum()),
        "run queries missing from the ground truth": judged.run_only_queries,
        "retrieved items": int(retrieved.sum()),
        "list length (min / median / max)": (
            f"{int(judged.lengths.min())} / {float(np.median(judged.lengths)):g} / "
            f"{int(judged.lengths.max())}" if judged.num_queries else "-"),
        "relevant items in the ground truth": int(r_q.sum()),
        "relevant items per query (mean)": round(float(r_q.mean()), 2) if len(r_q) else 0.0,
        "relevant items retrieved": int((judged.grades >= threshold).sum()),
        "unjudged items retrieved": int((judged.grades == -1).sum()),
        "highest grade": judged.max_grade,
        "collection size |D|": judged.collection_size if judged.collection_size else "unknown",
        "score ties": judged.ties.describe(),
    }


def query_table(judged: JudgedRanking, query: int, threshold: int = 1) -> pd.DataFrame:
    """FMP's table for one query: rank, item, score, grade, χ(r), P(r), R(r), F(r)."""
    one = judged.subset(np.array([query]))
    n = int(one.lengths[0])
    curves = rank_curves(one, threshold)
    grades = one.grades[0, :n].astype(int)
    table = pd.DataFrame({
        "rank": np.arange(1, n + 1),
        "item": one.items[0, :n] if one.items is not None else np.arange(1, n + 1).astype(str),
        "score": one.scores[0, :n] if one.scores is not None else np.full(n, np.nan),
        "grade": pd.Series(grades, dtype="Int64").mask(grades < 0),  # empty: unjudged
        "χ": curves.chi[0, :n].astype(int),
        "P(r)": curves.precision[0, :n],
        "R(r)": curves.recall[0, :n],
        "F(r)": curves.f[0, :n],
    })
    if table["score"].isna().all():  # a bare ranked list or answer set: no scores to show
        table = table.drop(columns="score")
    return table


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
