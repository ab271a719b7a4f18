"""Oracles shared by several test files: computed by hand or from scipy, never by the code under
test."""

import math

from pathlib import Path

import numpy as np
import pandas as pd


def holm_by_hand(p):
    """Holm's step-down adjusted p-values: the i-th smallest times (m − i + 1), made monotone."""
    order = np.argsort(p)
    adjusted, running = np.empty(len(p)), 0.0
    for rank, i in enumerate(order):
        running = max(running, min(1.0, (len(p) - rank) * p[i]))
        adjusted[i] = running
    return adjusted


def one_list_by_hand(ranked_grades, judged_grades, k: int, r: int, collection_size: int,
                     threshold: int = 1) -> dict[str, float]:
    """Every number the Query explorer shows of one ranked list, by brute force over the list:
    ``ranked_grades`` the grade at each rank (0 where unjudged), ``judged_grades`` the grades of
    every judged item of the query (R_q and the ideal DCG come from them), cutoff ``k``, the
    teaching mode's rank ``r`` and |D|. AP over the whole list / R_q, nDCG with linear gains and
    log2(rank + 1) discounts against the ideal order of the judged items (trec_eval's ndcg),
    BEP = P(R_q), F_max = max over r of F(r), the confusion counts of the top r."""
    rel = [g >= threshold for g in ranked_grades]
    r_q = sum(g >= threshold for g in judged_grades)

    def precision(n):
        return sum(rel[:n]) / n

    def recall(n):
        return sum(rel[:n]) / r_q

    def f(n):
        p, q = precision(n), recall(n)
        return 0.0 if p + q == 0 else 2 * p * q / (p + q)

    dcg = sum(g / math.log2(i + 2) for i, g in enumerate(ranked_grades) if g > 0)
    ideal = sorted((g for g in judged_grades if g > 0), reverse=True)
    idcg = sum(g / math.log2(i + 2) for i, g in enumerate(ideal))
    tp = sum(rel[:r])
    return {"AP": sum(precision(i + 1) for i, x in enumerate(rel) if x) / r_q,
            f"P@{k}": precision(k), f"R@{k}": recall(k), "nDCG": dcg / idcg,
            "BEP": precision(r_q), "Fmax": max(f(n) for n in range(1, len(rel) + 1)),
            "χ(r)": float(rel[r - 1]), "TP(r)": float(tp), "P(r)": precision(r),
            "R(r)": recall(r), "F(r)": f(r),
            "TP": tp, "FP": r - tp, "FN": r_q - tp, "TN": collection_size - r - (r_q - tp)}


# ---- the cover-song sample (sample_data/covers), from its files ------------------------------

COVERS = Path(__file__).resolve().parents[1] / "sample_data" / "covers"


def covers_by_hand(system: str) -> pd.DataFrame:
    """Each query of the cover-song sample as ``system`` ranks it, from the sample's files: its
    list (its row of the similarity matrix, highest first, the query itself left out, equal
    scores in file order), its clique-mates (same label) and their ranks, and AP. One row per
    query, in file order, indexed by query id."""
    labels = pd.read_csv(COVERS / "labels.csv", dtype=str)
    ids, work = labels["item_id"].to_numpy(), labels["label"].to_numpy()
    scores = np.load(COVERS / f"{system}.npy")
    rows = []
    for q, query in enumerate(ids):
        listed = [ids[i] for i in np.argsort(-scores[q], kind="stable") if i != q]
        mates = [d for d in ids[work == work[q]] if d != query]
        ranks = sorted(listed.index(d) + 1 for d in mates)
        ap = (sum((i + 1) / r for i, r in enumerate(ranks)) / len(ranks)) if ranks else np.nan
        rows.append({"query": query, "list": listed, "mates": mates,
                     "rank": {d: listed.index(d) + 1 for d in mates}, "AP": ap,
                     "clique_size": len(mates) + 1})
    return pd.DataFrame(rows).set_index("query")


def covers_items() -> pd.DataFrame:
    """The cover-song sample's item table (title, artist, audio…), indexed by item id."""
    return pd.read_csv(COVERS / "items.csv", dtype=str).set_index("item_id")
