"""Worked examples for the Query explorer's teaching view: one query's measures at cutoff K, each
as the registry's formula, the same formula with this query's numbers substituted, and the
value the registry's own measure computes on this query (never a second formula).

The substituted numbers are built here from the query's counts (TP, R_q, the P(r) terms, the
DCG terms, …); the tests evaluate them and check that they agree with the value.
"""

from __future__ import annotations

import math
from dataclasses import dataclass, replace

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.data.relevance import Relevance
from metrics.data.ties import TiePolicy
from metrics.evaluation.evaluate import evaluate
from metrics.measures.confusion import counts
from metrics.measures.graded import ideal_dcg
from metrics.measures.registry import REGISTRY

# The measures worked out at K, in the order they are shown; the last three need |D|
WORKED = ("P", "R", "F", "AP", "RR", "nDCG", "Accuracy", "Specificity", "Fallout")
NEEDS_COLLECTION_SIZE = ("Accuracy", "Specificity", "Fallout")
TERMS_SHOWN = 6   # a long sum shows its first five terms, "…" and its last


@dataclass(frozen=True)
class WorkedMeasure:
    """One measure worked out for one query at cutoff K."""

    name: str              # the registry's name: "AP"
    label: str             # the measure at K, as the view names it: "AP@4"
    numbers: str           # LaTeX: the formula's right-hand side with this query's numbers
    value: float | None    # the registry measure's value on this query; None where undefined

    @property
    def formula(self) -> str:
        """The registry's formula, symbolic (``AP@K = …``)."""
        return REGISTRY[self.name].formula

    @property
    def definition(self) -> str:
        """The registry formula's right-hand side: what follows its first top-level " = "."""
        cuts = top_level_equals(self.formula)
        return self.formula[cuts[0] + 3:] if cuts else self.formula


def top_level_equals(latex: str) -> list[int]:
    """Where " = " stands outside every brace group of ``latex`` (so not the one of
    ``\\{r : \\chi(r) = 1\\}`` inside a fraction)."""
    depth, cuts = 0, []
    for i, char in enumerate(latex):
        depth += char == "{"
        depth -= char == "}"
        if depth == 0 and latex.startswith(" = ", i):
            cuts.append(i)
    return cuts


def number(x: float | None) -> str:
    """A number as a formula shows it: whole numbers bare, others to 4 decimals; ``undefined``
    for None or NaN."""
    if x is None or not math.isfinite(x):
        return r"\text{undefined}"
    return f"{x:g}" if float(x).is_integer() else f"{x:.4f}".rstrip("0")


def _sum(parts: list[str], limit: int | None) -> str:
    if limit is None or len(parts) <= limit:
        return " + ".join(parts)
    return " + ".join(parts[:limit - 1]) + r" + \dots + " + parts[-1]


def _asked(name: str, k: int, threshold: int) -> str:
    """The measure at K as evaluated, at the view's relevance threshold where it takes one."""
    rel = f"(rel={threshold})" if threshold != 1 and "rel" in REGISTRY[name].params else ""
    return f"{name}{rel}@{k}"


def worked_examples(judged: JudgedRanking, query: int, k: int, threshold: int = 1,
                    limit: int | None = TERMS_SHOWN) -> list[WorkedMeasure]:
    """P@K, R@K, F@K, AP@K, RR@K, nDCG@K and (when |D| is known) Accuracy, Specificity and
    Fallout at K for query ``query`` (its index in ``judged``), relevant meaning grade >=
    ``threshold``. F@K and AP@K are left out when the query has no relevant item, nDCG@K when
    its ideal DCG is 0. A sum shows at most ``limit`` terms (None: every term).

    Under ``expected`` ties the listed order is worked out (a worked example is one ordering)."""
    one = judged.subset(np.array([query]))
    if one.tie_policy is TiePolicy.EXPECTED:
        one = replace(one, tie_policy=TiePolicy.STABLE)
    tp, fp, _, tn = (None if c is None else float(c[0]) for c in counts(one, k, threshold))
    r_q = int(one.num_relevant(threshold)[0])
    idcg = float(ideal_dcg(one, k)[0])
    size = one.collection_size(0)
    names = [n for n in WORKED if not (n in ("F", "AP") and r_q == 0 or n == "nDCG" and idcg <= 0
                                       or n in NEEDS_COLLECTION_SIZE and (tn is None or not size))]
    result = evaluate(one, [_asked(n, k, threshold) for n in names])
    values = {n: (None if math.isnan(v) else v)
              for n, v in zip(names, (float(r.values[0]) for r in result.results.values()))}

    ranks, grades = one.hit_ranks, one.hit_grades
    relevant = ranks[Relevance(threshold).relevant(grades) & (ranks <= k)]   # in rank order
    gaining = (grades > 0) & (ranks <= k)
    p, r = values["P"], values.get("R")   # F@K is F_β with the registry's β = 1: 2PR/(P + R)
    numbers = {
        "P": rf"\frac{{{number(tp)}}}{{{k}}}",
        "R": rf"\frac{{{number(tp)}}}{{{r_q}}}",
        "F": rf"\frac{{2 \cdot {number(p)} \cdot {number(r)}}}{{{number(p)} + {number(r)}}}"
             if p or r else r"0 \;(\text{P and R are both 0})",
        "AP": rf"\frac{{1}}{{{r_q}}}\left("
              + _sum([rf"\tfrac{{{i + 1}}}{{{rank}}}" for i, rank in enumerate(relevant)]
                     or ["0"], limit) + r"\right)",
        "RR": rf"\frac{{1}}{{{relevant[0]}}}" if len(relevant)
              else r"0 \;(\text{no relevant item})",
        "nDCG": r"\frac{" + (_sum([rf"\tfrac{{{g}}}{{\log_2 {rank + 1}}}"
                                   for rank, g in zip(ranks[gaining], grades[gaining])], limit)
                             or "0") + rf"}}{{{number(idcg)}}}",
        "Accuracy": rf"\frac{{{number(tp)} + {number(tn)}}}{{{size}}}",
        "Specificity": rf"\frac{{{number(tn)}}}{{{number(tn)} + {number(fp)}}}",
        "Fallout": rf"\frac{{{number(fp)}}}{{{number(fp)} + {number(tn)}}}",
    }
    return [WorkedMeasure(n, f"{n}@{k}", numbers[n], values[n]) for n in names]
