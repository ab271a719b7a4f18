"""Oracles shared by several test files: computed by hand or from scipy, never by the code under
test."""

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
