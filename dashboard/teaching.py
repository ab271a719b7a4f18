"""The worked formulas of the query explorer, laid out: each measure's formula from the registry,
the same formula with the numbers of one query substituted and its value, as one line of LaTeX
(or two, :func:`stacked`, for a narrow column), with a sentence on what the measure rewards.

Pure Python (no Streamlit). The numbers and values are the engine's
(:mod:`metrics.explain.worked`); nothing is computed here."""

from __future__ import annotations

from dataclasses import dataclass

from metrics.data.judged import JudgedRanking
from metrics.explain.worked import WorkedMeasure, number, top_level_equals, worked_examples

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
    """One worked measure as the view shows it."""

    measure: WorkedMeasure

    @property
    def name(self) -> str:
        """The measure at K: "AP@4"."""
        return self.measure.label

    @property
    def value(self) -> float | None:
        return self.measure.value

    @property
    def latex(self) -> str:
        """``name = definition = numbers = value``."""
        m = self.measure
        return f"{m.label} = {m.definition} = {m.numbers} = {number(m.value)}"

    @property
    def rewards(self) -> str:
        """What the measure rewards, in words."""
        return REWARDS[self.measure.name]


def worked_measures(judged: JudgedRanking, query: int, k: int, threshold: int = 1) -> list[Worked]:
    """The worked formulas of query ``query`` at cutoff K (see
    :func:`metrics.explain.worked.worked_examples`)."""
    return [Worked(m) for m in worked_examples(judged, query, k, threshold)]


def stacked(latex: str) -> str:
    """``name = definition = numbers = value`` as two aligned lines (the definition, then the
    numbers), so that a formula fits a narrow column (a projector at 1024 × 768)."""
    cuts = top_level_equals(latex)
    if len(cuts) < 2:
        return latex
    first, second = cuts[0], cuts[1]
    return (r"\begin{aligned} " + latex[:first] + " &= " + latex[first + 3:second] + r" \\ "
            + "&= " + latex[second + 3:] + r" \end{aligned}")
