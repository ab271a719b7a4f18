"""The registry of measures: one entry per measure with its formula, convention, reference,
parameters and how it behaves under tied scores; the one source of the measure tables of
``python -m metrics measures``, the README, ``docs/measures.md`` and the dashboard's formulas.

Each family of measures registers its own in :mod:`metrics.measures` (one module per family);
names as users write them are parsed in :mod:`metrics.measures.names`, aliases (trec_eval's and
the papers' names) in :mod:`metrics.measures.aliases`.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

# What a measure name looks like: Name, Name(param=value,...), either with @k (ir_measures' syntax).
NAME_SYNTAX = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?(?:@(\S+))?$")

# The measures a command line or the dashboard evaluates when none are named.
DEFAULT_MEASURES = "AP,P@10,R@10,RR,nDCG@10,Rprec,Bpref"


def format_value(value: Any) -> str:
    """A parameter value as it is printed back: ``e`` for Euler's number, a whole number without
    its ``.0``, any other float as its shortest exact form (``repr``), so two different values
    never print alike (``F(beta=0.70710678)`` and ``F(beta=0.7071074)`` stay two measures)."""
    if isinstance(value, float):
        if value == math.e:
            return "e"
        if value.is_integer() and abs(value) < 1e15:
            return str(int(value))
        return repr(value)
    return str(value)


@dataclass(frozen=True)
class Param:
    default: Any
    parse: Callable[[str], Any]
    help: str = ""


@dataclass(frozen=True)
class MeasureDef:
    """A registered measure. ``compute(judged, cutoff, **params)`` returns one float per query,
    NaN where the measure is undefined for that query. ``expected`` says how the measure is
    computed exactly under ``--ties expected`` (the mean over every ordering of tied items;
    see :mod:`metrics.ranking.tie_aware`), or is empty when it is refused there."""

    name: str
    compute: Callable[..., np.ndarray]
    meaning: str
    convention: str
    reference: str
    formula: str = ""
    params: dict[str, Param] = field(default_factory=dict)
    cutoff: str = "optional"          # "optional", "none" or "required"
    at: str = "rank"                  # what @ gives: "rank" (k >= 1) or "recall" (a level 0..1)
    needs_collection_size: bool = False
    higher_is_better: bool = True
    aggregate: str = "mean"           # "mean", "sum" (trec_eval's counts) or "geometric"
    expected: str = ""                # how --ties expected computes it exactly; "" = refused

    @property
    def summed(self) -> bool:
        """Whether the aggregate over queries is the sum (counts, as trec_eval and ir_measures)
        rather than the mean."""
        return self.aggregate == "sum"

    @property
    def geometric(self) -> bool:
        """Whether the "mean" over queries is trec_eval's geometric mean (gm_map, gm_bpref):
        exp of the mean of log(max(value, 0.00001))."""
        return self.aggregate == "geometric"


REGISTRY: dict[str, MeasureDef] = {}

# trec_eval's count measures: their value over all queries is the sum of the per-query values
# (trec_eval and ir_measures print num_rel, num_ret, num_rel_ret and num_q so), not the mean.
SUMMED_COUNTS = ("NumRel", "NumRet", "NumRelRet", "NumQ", "NumNonrelJudgedRet")
AGGREGATES = ("mean", "sum", "geometric")


def register(name: str, *, meaning: str, convention: str, reference: str, formula: str = "",
             params: dict[str, Param] | None = None, cutoff: str = "optional",
             at: str = "rank", needs_collection_size: bool = False,
             higher_is_better: bool = True, aggregate: str | None = None, expected: str = ""):
    """Register a measure. ``aggregate`` is "mean", "sum" or "geometric" (trec_eval's gm_map);
    by default "sum" for the count measures of :data:`SUMMED_COUNTS` and "mean" for every other. ``at`` says what ``@`` gives:
    a rank cutoff k ("rank") or a recall level in [0, 1] ("recall", IPrec@r). ``expected``: how it
    is exact under ``--ties expected`` (:data:`UNTIED`, :data:`LINEAR` or a closed form), "" if
    refused."""
    if aggregate is None:
        aggregate = "sum" if name in SUMMED_COUNTS else "mean"
    if aggregate not in AGGREGATES:
        raise ValueError(f"aggregate of {name} must be one of {AGGREGATES}, not {aggregate!r}")
    if at not in ("rank", "recall"):
        raise ValueError(f"'at' of {name} must be 'rank' or 'recall', not {at!r}")

    def decorate(fn):
        REGISTRY[name] = MeasureDef(name, fn, meaning, convention, reference, formula,
                                    params or {}, cutoff, at, needs_collection_size,
                                    higher_is_better, aggregate, expected)
        return fn
    return decorate


# How a measure is exact under --ties expected (the registry's ``expected``):
UNTIED = "ties cannot change it"
LINEAR = ("linear: affine in sums over the judged items of a function of the rank, each "
          "averaged over the ranks of its tie group")
MCSHERRY_NAJORK = "closed form per tie group (McSherry & Najork 2008)"


# ---- parameter parsers -------------------------------------------------------------------------

NUMBER = r"(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"   # unsigned, finite


def positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise ValueError(f"{text!r} must be at least 1")
    return value


def positive_float(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value) or value <= 0:
        raise ValueError(f"{text!r} must be a positive number")
    return value


def real_number(text: str) -> float:
    """Any finite number, negative included (utility's coefficients)."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not math.isfinite(value):
        raise ValueError(f"{text!r} must be a finite number")
    return value


def recall_level(text: str) -> float:
    """A recall level: a plain decimal number from 0 to 1 (``0.1``, ``.1``, ``1``)."""
    if not re.fullmatch(NUMBER, text):
        raise ValueError(f"{text!r} is not a number from 0 to 1")
    value = float(text)
    if value > 1:
        raise ValueError(f"{text!r} is past 1; a recall level is from 0 to 1")
    return value


def persistence(text: str) -> float:
    """RBP's persistence p, the chance of going on to the next rank: 0 <= p < 1."""
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not 0 <= value < 1:
        raise ValueError(f"{text!r} must be from 0 up to (not including) 1")
    return value


def log_base(text: str) -> float:
    if text.strip().lower() == "e":
        return math.e
    value = positive_float(text)
    if value == 1:
        raise ValueError("a logarithm base cannot be 1")
    return value


class RecallLevels(tuple):
    """Recall levels as a parameter value (IPrecAvg's ``levels``), printed back as written:
    ``0.25;0.5;0.75``."""

    def __str__(self) -> str:
        return ";".join(format_value(v) for v in self)


def recall_levels(text: str) -> RecallLevels:
    """Recall levels separated by ';', each from 0 to 1, in ascending order (``.25;.5;.75``)."""
    values = [recall_level(part) for part in text.split(";")]
    if values != sorted(values):
        raise ValueError(f"{text!r}: give the recall levels in ascending order")
    return RecallLevels(values)


class LevelGains(tuple):
    """(grade, gain) pairs as a parameter value (trec_eval's ``ndcg.1=3,2=9``), in the order
    given, which trec_eval's sort of the gains can depend on; printed back as ``1:3;2:9``."""

    def __str__(self) -> str:
        return ";".join(f"{grade}:{format_value(gain)}" for grade, gain in self) or "none"


def level_gains(text: str) -> LevelGains:
    """``grade:gain`` pairs separated by ';' (``1:3;2:9;4:4.5``): the gain of each grade named;
    a grade not named keeps the grade as its gain. Grades are whole numbers from 0, each once.
    ``none``: every grade keeps its own gain (the default)."""
    if text == "none":
        return LevelGains()
    pairs = []
    for part in text.split(";"):
        grade, sep, gain = part.partition(":")
        if not sep or not re.fullmatch(r"\+?\d+", grade):
            raise ValueError(f"{part!r} must look like grade:gain with a whole grade from 0, "
                             f"e.g. 2:9")
        if any(g == int(grade) for g, _ in pairs):
            raise ValueError(f"grade {int(grade)} is given two gains")
        pairs.append((int(grade), real_number(gain)))
    return LevelGains(pairs)


def choice(*options: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"{text!r} is not one of {', '.join(options)}")
        return text
    return parse


REL = Param(1, positive_int, "lowest grade that counts as relevant")


def measure_syntax(name: str) -> str:
    """How a registered measure is written, with its parameters' defaults: ``AP(norm=rq,rel=1)[@k]``
    (``IPrec(...)@r`` where ``@`` gives a recall level)."""
    d = REGISTRY[name]
    params = ",".join(f"{k}={format_value(p.default)}" for k, p in d.params.items())
    at = "r" if d.at == "recall" else "k"
    return name + (f"({params})" if params else "") + {"optional": f"[@{at}]",
                                                       "required": f"@{at}", "none": ""}[d.cutoff]


def measure_rows() -> list[dict[str, Any]]:
    """The registry as rows (name, syntax, meaning, convention, reference, …), in its order."""
    return [{"name": name, "syntax": measure_syntax(name), "meaning": d.meaning,
             "convention": d.convention, "reference": d.reference,
             "needs_collection_size": d.needs_collection_size, "aggregate": d.aggregate,
             "ties_expected": d.expected or None}
            for name, d in REGISTRY.items()]
