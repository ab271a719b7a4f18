"""What a grade means: whether the item is judged, and whether it is relevant.

The one place where a grade is compared with the relevance threshold. Every measure, curve,
explanation and view asks a :class:`Relevance` which of its items are relevant (or judged, or
judged not relevant); a chart receives the answer, never a grade and a threshold.

The convention (SPEC: "Negative grades", trec_eval's qrels):

* a grade g >= 0 is *judged*; a negative grade is trec_eval's "pooled but not judged": never
  relevant, and not judged non-relevant either (the bpref family and infAP count it apart);
* a judged item is *relevant* when g >= the threshold t, and *judged not relevant* when
  0 <= g < t;
* grade 0 is judged not relevant whatever the threshold, so t is at least 1: a threshold of 0
  (or less) means 1. (trec_eval's ``-l 0`` would count grade-0 items relevant; no measure here
  does.)

Unlisted items (absent from the ground truth) are unjudged unless the truth judges the whole
collection (:attr:`metrics.data.judged.JudgedRanking.unlisted_judged`): that is a property of the
truth, not of a grade, and is read there.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np


@dataclass(frozen=True)
class Relevance:
    """The relevance threshold: grade ``threshold`` and above is relevant (a threshold below 1 is
    1, see the module docstring). Its answers are vectorised: give it any array of grades (one
    query's list, or every hit of every query at once) and it answers item by item."""

    threshold: int = 1

    def __post_init__(self):
        # grade 0 is judged not relevant at every threshold
        object.__setattr__(self, "threshold", max(int(self.threshold), 1))

    def relevant(self, grades) -> np.ndarray:
        """Which of ``grades`` are relevant: g >= threshold."""
        return np.asarray(grades) >= self.threshold

    @staticmethod
    def judged(grades) -> np.ndarray:
        """Which of ``grades`` are judged: g >= 0 (a negative grade is pooled but not judged)."""
        return np.asarray(grades) >= 0

    def judged_nonrelevant(self, grades) -> np.ndarray:
        """Which of ``grades`` are judged not relevant: 0 <= g < threshold."""
        grades = np.asarray(grades)
        return (grades >= 0) & (grades < self.threshold)
