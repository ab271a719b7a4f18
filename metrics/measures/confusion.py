"""Confusion counts at a cutoff, and the rates built from them (seeds 000 and 004).

Every one is affine in TP once R_q, |D| and min(k, |A|) are fixed (TN + FP = |D| − R_q), so each
is exact under expected ties through the mean TP.

The items retrieved in the top k — min(k, |A|) of them, the whole list without a cutoff — are
"predicted relevant"; everything else in the collection D is "predicted not relevant". TN and the
rates that use it need the collection size |D|.
"""

from __future__ import annotations

import numpy as np

from metrics.measures.registry import LINEAR, REL, register
from metrics.measures.common import divide, true_positives

_REF = "Serrà (2007) §2; the text-to-music evaluation tutorial (confusion matrix at K)"


def counts(j, cutoff, rel):
    """TP, FP, FN and (if |D| is known) TN per query, as floats."""
    retrieved = j.retrieved(cutoff).astype(np.float64)
    tp = true_positives(j, rel, cutoff).astype(np.float64)
    fp = retrieved - tp
    fn = j.num_relevant(rel) - tp
    tn = None if j.collection_sizes is None else j.collection_sizes - retrieved - fn
    return tp, fp, fn, tn


def _count(index, name, meaning, convention, formula, needs_d=False):
    def compute(j, cutoff, rel=1):
        return counts(j, cutoff, rel)[index]
    compute.__doc__ = f"{name}: {meaning}. {convention}."
    compute.__name__ = name.lower()
    register(name, meaning=meaning, convention=convention, reference=_REF, formula=formula,
             params={"rel": REL}, needs_collection_size=needs_d,
             higher_is_better=index in (0, 3), expected=LINEAR)(compute)
    return compute


_count(0, "TP", "relevant items in the top k", "count of χ(r) = 1 for r <= min(k, |A|)",
       r"TP = \sum_{r \le K}\chi(r)")
_count(1, "FP", "non-relevant or unjudged items in the top k", "min(k, |A|) − TP",
       r"FP = \min(K, |A|) - TP")
_count(2, "FN", "relevant items not in the top k", "R_q − TP", r"FN = R_q - TP")
_count(3, "TN", "non-relevant items not in the top k", "|D| − min(k, |A|) − FN; needs |D|",
       r"TN = |D| - \min(K, |A|) - FN", needs_d=True)


@register("Accuracy", meaning="share of the collection classified correctly at k",
          convention="(TP + TN)/|D|; needs |D|", reference=_REF,
          formula=r"Accuracy@K = \frac{TP + TN}{|D|}",
          params={"rel": REL}, needs_collection_size=True,
          expected=LINEAR)
def accuracy(j, cutoff, rel=1):
    """Accuracy = (TP + TN)/|D|."""
    tp, _, _, tn = counts(j, cutoff, rel)
    return (tp + tn) / j.collection_sizes


@register("Sensitivity", meaning="true positive rate at k (= recall)",
          convention="TP/(TP + FN) = TP/R_q", reference=_REF,
          formula=r"Sensitivity@K = \frac{TP}{TP + FN}", params={"rel": REL}, expected=LINEAR)
def sensitivity(j, cutoff, rel=1):
    """Sensitivity = TP/(TP + FN)."""
    tp, _, fn, _ = counts(j, cutoff, rel)
    return divide(tp, tp + fn)


@register("Specificity", meaning="true negative rate at k",
          convention="TN/(TN + FP) = 1 − Fallout; needs |D|", reference=_REF,
          formula=r"Specificity@K = \frac{TN}{TN + FP}",
          params={"rel": REL}, needs_collection_size=True,
          expected=LINEAR)
def specificity(j, cutoff, rel=1):
    """Specificity = TN/(TN + FP)."""
    _, fp, _, tn = counts(j, cutoff, rel)
    return divide(tn, tn + fp)


@register("Fallout", meaning="false positive rate at k",
          convention="FP/(FP + TN); needs |D|", reference=_REF, higher_is_better=False,
          formula=r"Fallout@K = \frac{FP}{FP + TN}",
          params={"rel": REL}, needs_collection_size=True,
          expected=LINEAR)
def fallout(j, cutoff, rel=1):
    """Fallout = FP/(FP + TN)."""
    _, fp, _, tn = counts(j, cutoff, rel)
    return divide(fp, fp + tn)
