"""Formulas with the numbers of one query substituted, as LaTeX, for the query explorer.

Pure Python (no Streamlit): each function takes the query's χ/grade list and returns
(LaTeX, value), and the value is computed here from the same numbers that are shown, so the
tests can check it against the engine."""

from __future__ import annotations

import math
from dataclasses import dataclass

import numpy as np


# What each worked measure rewards, in a sentence or two, shown under its formula
REWARDS = {
    "P": "Rewards relevant items in the top K, in any order there; blind to the relevant items "
         "beyond K and to how many exist.",
    "R": "Rewards finding a large share of all relevant items within K; blind to the "
         "non-relevant items that come with them.",
    "F": "High only when precision and recall at K are both high: the harmonic mean is pulled "
         "towards the weaker of the two.",
    "AP": "Rewards relevant items early: each one found adds the precision at its rank, and "
          "each one not found within K adds 0, so missing items cost as much as late ones.",
    "RR": "Rewards only the first relevant item (1 at rank 1, 1/2 at rank 2, …); nothing after "
          "it counts. Suits a listener who wants one good answer.",
    "nDCG": "Rewards highly graded items near the top, discounted by log₂ of the rank, relative "
            "to the best possible order of the judged items.",
    "Accuracy": "Counts right decisions over the whole collection: with few relevant items TN "
                "dominates, so even a poor list scores near 1.",
    "Specificity": "Rewards keeping non-relevant items out of the top K; near 1 for any short "
                   "list in a large collection.",
    "Fallout": "The share of the collection's non-relevant items let into the top K: lower is "
               "better.",
}


@dataclass(frozen=True)
class Worked:
    name: str
    latex: str
    value: float | None

    @property
    def rewards(self) -> str:
        """What the measure rewards, in words."""
        return REWARDS[self.name.split("@")[0]]


def _n(x: float) -> str:
    if x is None or (isinstance(x, float) and not math.isfinite(x)):
        return r"\text{undefined}"
    return f"{x:g}" if float(x).is_integer() else f"{x:.4f}".rstrip("0")


def _terms(parts: list[str], limit: int = 6) -> str:
    if len(parts) <= limit:
        return " + ".join(parts)
    return " + ".join(parts[:limit - 1]) + r" + \dots + " + parts[-1]


def worked_measures(chi: np.ndarray, grades: np.ndarray, num_relevant: int, k: int,
                    ideal: np.ndarray, counts: tuple[float, float, float, float | None],
                    collection_size: int | None) -> list[Worked]:
    """P@K, R@K, F@K, AP@K, RR@K, nDCG@K and the confusion rates for one query at cutoff K.

    ``chi`` is χ(r) and ``grades`` the grades along the whole list, ``ideal`` the ideal grade
    order, ``counts`` (TP, FP, FN, TN) at K."""
    top = chi[:k].astype(float)
    tp, fp, fn, tn = counts
    out = []
    p = tp / k
    out.append(Worked(f"P@{k}", rf"P@{k} = \frac{{TP}}{{K}} = \frac{{{_n(tp)}}}{{{k}}} = {_n(p)}",
                      p))
    r = tp / num_relevant if num_relevant else None
    out.append(Worked(f"R@{k}", rf"R@{k} = \frac{{TP}}{{R_q}} = \frac{{{_n(tp)}}}{{{num_relevant}}}"
                                rf" = {_n(r)}", r))
    if r is not None:
        f = 0.0 if p + r == 0 else 2 * p * r / (p + r)
        out.append(Worked(f"F@{k}", rf"F@{k} = \frac{{2\,P\,R}}{{P + R}} = \frac{{2 \cdot {_n(p)}"
                                    rf" \cdot {_n(r)}}}{{{_n(p)} + {_n(r)}}} = {_n(f)}", f))
    hits = np.flatnonzero(top)
    precisions = [(np.sum(top[: i + 1]), i + 1) for i in hits]
    if num_relevant:
        ap = sum(h / rank for h, rank in precisions) / num_relevant
        parts = [rf"\tfrac{{{int(h)}}}{{{rank}}}" for h, rank in precisions] or ["0"]
        out.append(Worked(f"AP@{k}", rf"AP@{k} = \frac{{1}}{{R_q}} \sum_{{r \le K}} P(r)\,\chi(r)"
                                     rf" = \frac{{1}}{{{num_relevant}}}\left({_terms(parts)}"
                                     rf"\right) = {_n(ap)}", ap))
    rr = 1.0 / (hits[0] + 1) if len(hits) else 0.0
    first = rf"\frac{{1}}{{{hits[0] + 1}}}" if len(hits) else r"0 \;(\text{no relevant item})"
    out.append(Worked(f"RR@{k}", rf"RR@{k} = \frac{{1}}{{\text{{rank of the first relevant}}}}"
                                 rf" = {first} = {_n(rr)}", rr))
    gains = np.clip(grades[:k], 0, None).astype(float)
    dcg = float(np.sum(gains / np.log2(np.arange(2, len(gains) + 2))))
    ideal_k = np.asarray(ideal[:k], dtype=float)
    idcg = float(np.sum(ideal_k / np.log2(np.arange(2, len(ideal_k) + 2))))
    if idcg > 0:
        parts = [rf"\tfrac{{{int(g)}}}{{\log_2 {i + 2}}}" for i, g in enumerate(gains) if g > 0]
        out.append(Worked(f"nDCG@{k}", rf"nDCG@{k} = \frac{{DCG@K}}{{IDCG@K}} = "
                                       rf"\frac{{{_terms(parts) if parts else '0'}}}{{{_n(idcg)}}}"
                                       rf" = {_n(dcg / idcg)}", dcg / idcg))
    if tn is not None and collection_size:
        acc = (tp + tn) / collection_size
        out.append(Worked(f"Accuracy@{k}", rf"Accuracy@{k} = \frac{{TP + TN}}{{|D|}} = "
                                           rf"\frac{{{_n(tp)} + {_n(tn)}}}"
                                           rf"{{{collection_size}}} = {_n(acc)}", acc))
        spec = tn / (tn + fp) if tn + fp else None
        out.append(Worked(f"Specificity@{k}", rf"Specificity@{k} = \frac{{TN}}{{TN + FP}} = "
                                              rf"\frac{{{_n(tn)}}}"
                                              rf"{{{_n(tn)} + {_n(fp)}}} = {_n(spec)}", spec))
        fall = fp / (fp + tn) if fp + tn else None
        out.append(Worked(f"Fallout@{k}", rf"Fallout@{k} = \frac{{FP}}{{FP + TN}} = "
                                          rf"\frac{{{_n(fp)}}}"
                                          rf"{{{_n(fp)} + {_n(tn)}}} = {_n(fall)}", fall))
    return out


def stacked(latex: str) -> str:
    """``name = definition = numbers = value`` as two aligned lines (the definition, then the
    numbers), so that a formula fits a narrow column (a projector at 1024 × 768)."""
    depth, cuts = 0, []
    for i, char in enumerate(latex):
        depth += char == "{"
        depth -= char == "}"
        if depth == 0 and latex.startswith(" = ", i):
            cuts.append(i)
    if len(cuts) < 2:
        return latex
    first, second = cuts[0], cuts[1]
    return (r"\begin{aligned} " + latex[:first] + " &= " + latex[first + 3:second] + r" \\ "
            + "&= " + latex[second + 3:] + r" \end{aligned}")
