"""Measure names: parsing ``Name(param=value,...)@k``, printing them back, the registry of
measures, the registry of their aliases and the registry of benchmark protocols.

The syntax follows ir_measures: ``P@10``, ``AP``, ``nDCG@10``, ``DCG(form=jarvelin,base=e)@10``.
A list such as the command line's ``--measures`` is split on commas outside parentheses.

trec_eval's names (``map``, ``P_10``, ``ndcg_cut_10``, ...) and the names papers use (``MAP@10``,
``MRR``, ``MedR``, ...) are :data:`ALIASES`: each means exactly one of our measures, and the
parsed :class:`Measure` keeps the name as the user wrote it (its ``label``), under which results
are printed back.
"""

from __future__ import annotations

import difflib
import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from metrics.errors import MeasureError

_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?(?:@(\S+))?$")


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its registered name, explicit parameters and cutoff.

    ``label`` is the name as the user wrote it when that was an alias (``map_cut_10``, ``MRR``):
    ``str()`` gives it back, so results are keyed and printed under the user's name, while
    ``canonical`` names our measure. The label takes no part in equality."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | float | None = None     # k (a rank), or a recall level for IPrec
    label: str | None = field(default=None, compare=False)

    def __str__(self) -> str:
        return self.label if self.label is not None else self.canonical

    @property
    def canonical(self) -> str:
        """Our name for the measure, e.g. ``AP@10`` for ``map_cut_10``."""
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{_format_value(self.cutoff)}"
        return text

    @property
    def definition(self) -> "MeasureDef":
        return REGISTRY[self.name]

    def param(self, key: str) -> Any:
        for k, v in self.params:
            if k == key:
                return v
        return self.definition.params[key].default

    def all_params(self) -> dict[str, Any]:
        return {key: self.param(key) for key in self.definition.params}

    @property
    def rank_cutoff(self) -> int | None:
        """k when ``@k`` is a rank cutoff; None without one, or when ``@`` gives a recall level
        (IPrec@r), which says nothing about which ranks are counted."""
        return self.cutoff if self.definition.at == "rank" else None


def _format_value(value: Any) -> str:
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
    aggregate: str = "mean"           # "mean", or "sum" for trec_eval's count measures
    expected: str = ""                # how --ties expected computes it exactly; "" = refused

    @property
    def summed(self) -> bool:
        """Whether the aggregate over queries is the sum (counts, as trec_eval and ir_measures)
        rather than the mean."""
        return self.aggregate == "sum"


REGISTRY: dict[str, MeasureDef] = {}

# trec_eval's count measures: their value over all queries is the sum of the per-query values
# (trec_eval and ir_measures print num_rel, num_ret, num_rel_ret and num_q so), not the mean.
SUMMED_COUNTS = ("NumRel", "NumRet", "NumRelRet", "NumQ")


def register(name: str, *, meaning: str, convention: str, reference: str, formula: str = "",
             params: dict[str, Param] | None = None, cutoff: str = "optional",
             at: str = "rank", needs_collection_size: bool = False,
             higher_is_better: bool = True, aggregate: str | None = None, expected: str = ""):
    """Register a measure. ``aggregate`` is "mean" or "sum"; by default "sum" for the count
    measures of :data:`SUMMED_COUNTS` and "mean" for every other. ``at`` says what ``@`` gives:
    a rank cutoff k ("rank") or a recall level in [0, 1] ("recall", IPrec@r). ``expected``: how it
    is exact under ``--ties expected`` (:data:`UNTIED`, :data:`LINEAR` or a closed form), "" if
    refused."""
    if aggregate is None:
        aggregate = "sum" if name in SUMMED_COUNTS else "mean"
    if aggregate not in ("mean", "sum"):
        raise ValueError(f"aggregate of {name} must be 'mean' or 'sum', not {aggregate!r}")
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

_NUMBER = r"(\d+(?:\.\d*)?(?:[eE][-+]?\d+)?|\.\d+(?:[eE][-+]?\d+)?)"   # unsigned, finite


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


def recall_level(text: str) -> float:
    """A recall level: a plain decimal number from 0 to 1 (``0.1``, ``.1``, ``1``)."""
    if not re.fullmatch(_NUMBER, text):
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


def choice(*options: str) -> Callable[[str], str]:
    def parse(text: str) -> str:
        if text not in options:
            raise ValueError(f"{text!r} is not one of {', '.join(options)}")
        return text
    return parse


REL = Param(1, positive_int, "lowest grade that counts as relevant")


# ---- measure lists -----------------------------------------------------------------------------

def split_measure_list(text: str) -> list[str]:
    """Split ``"AP,P@10,DCG(form=jarvelin,base=e)@10"`` on the commas outside parentheses."""
    parts, depth, current = [], 0, []
    for char in text:
        if char == "(":
            depth += 1
        elif char == ")":
            depth -= 1
            if depth < 0:
                raise MeasureError(f"unbalanced ')' in measure list {text!r}")
        if char == "," and depth == 0:
            parts.append("".join(current))
            current = []
        else:
            current.append(char)
    if depth:
        raise MeasureError(f"unbalanced '(' in measure list {text!r}")
    parts.append("".join(current))
    names = [p.strip() for p in parts if p.strip()]
    if not names:
        raise MeasureError("no measure given; name at least one, e.g. \"AP,P@10\"")
    return names


# ---- aliases: trec_eval's names and the names papers use -----------------------------------------

@dataclass(frozen=True)
class Alias:
    """Another name for exactly one of our measures.

    Either a plain ``name`` that takes parameters and ``@k`` after it as ours do (``MRR@10`` is
    ``RR@10``; the target's own parameters come first: ``mAP@10`` is ``AP(norm=min)@10``), or a
    ``pattern`` matching the whole name with numbers inside it (``P_10``, ``ndcg_cut.10``) and
    ``build`` turning the match into our measure's text."""

    written: str                      # as listed by ``python -m metrics measures``: "map_cut_k"
    target: str                       # our measure, as listed: "AP@k"
    meaning: str                      # the convention, in words
    source: str                       # "trec_eval", "papers" or "ir_measures"
    name: str | None = None
    pattern: re.Pattern | None = None
    build: Callable[[re.Match], str] | None = None
    note: str = ""                    # said as a warning when the alias is used with @k
    listed: str = ""                  # the target as listed, when not ``target`` itself

    @property
    def means(self) -> str:
        """Our measure, as ``python -m metrics measures`` lists it."""
        return self.listed or self.target


ALIASES: list[Alias] = []
_NAME_ALIASES: dict[str, Alias] = {}


def _name_alias(name: str, target: str, meaning: str, source: str = "trec_eval",
                note: str = "", written: str | None = None, listed: str = "") -> None:
    alias = Alias(written or name, target, meaning, source, name=name, note=note, listed=listed)
    ALIASES.append(alias)
    _NAME_ALIASES[name] = alias


def _pattern_alias(written: str, regex: str, build: Callable[[re.Match], str], target: str,
                   meaning: str, source: str = "trec_eval") -> None:
    ALIASES.append(Alias(written, target, meaning, source, pattern=re.compile(regex),
                         build=build))


def _cut(stem: str, target: str, meaning: str, source: str = "trec_eval") -> None:
    """trec_eval's ``stem_k`` (its output name) and ``stem.k`` (its ``-m`` syntax)."""
    _pattern_alias(f"{stem}_k, {stem}.k", rf"{re.escape(stem)}[_.](\d+)",
                   lambda m: f"{target}@{m.group(1)}", f"{target}@k", meaning)


def _set_f(match: re.Match) -> str:
    x = float(match.group(1))
    return f"F(beta={_format_value(math.sqrt(x))})" if x > 0 else f"F(beta={match.group(1)})"


# trec_eval (its output names, and its -m syntax where that differs)
_name_alias("map", "AP", "average precision, ÷ R_q (trec_eval map)")
_cut("map_cut", "AP", "AP of the top k, ÷ R_q (trec_eval map_cut_k)")
_cut("P", "P", "precision of the top k, short lists padded with non-relevant (trec_eval P_k)")
_cut("recall", "R", "recall of the top k (trec_eval recall_k)")
_cut("ndcg_cut", "nDCG", "nDCG of the top k, gain = grade (trec_eval ndcg_cut_k)")
_cut("success", "Success", "1 if a relevant item is in the top k (trec_eval success_k)")
_name_alias("ndcg", "nDCG", "nDCG of the whole list, gain = grade (trec_eval ndcg)")
_name_alias("recip_rank", "RR", "1 / rank of the first relevant item, 0 if none "
                                "(trec_eval recip_rank)")
_name_alias("Rprec", "Rprec", "same name: precision at rank R_q (trec_eval Rprec)")
_name_alias("bpref", "Bpref", "binary preference (trec_eval bpref)")
_name_alias("infAP", "infAP", "same name: inferred AP (trec_eval infAP)")
_name_alias("num_q", "NumQ", "number of queries; summed over queries (trec_eval num_q)")
_name_alias("num_rel", "NumRel", "R_q; summed over queries (trec_eval num_rel)")
_name_alias("num_ret", "NumRet", "|A|; summed over queries (trec_eval num_ret)")
_name_alias("num_rel_ret", "NumRelRet", "relevant retrieved; summed over queries "
                                        "(trec_eval num_rel_ret)")
_name_alias("set_P", "P", "precision of the whole list, TP/|A| (trec_eval set_P)")
_name_alias("set_recall", "R", "recall of the whole list, TP/R_q (trec_eval set_recall)")
_name_alias("recall", "R", "recall of the whole list, as set_recall (trec_eval's -m recall "
                           "prints recall_k at k = 5 ... 1000: name those, e.g. recall_10)")
_name_alias("set_F", "F", "F1 of the whole list (trec_eval set_F, x = 1)")
_pattern_alias("set_F_x, set_F.x", rf"set_F[_.]{_NUMBER}", _set_f, "F(beta=√x)",
               "trec_eval's set_F with x: (x+1)PR/(xP+R), which is F with β² = x")
_pattern_alias("iprec_at_recall_r, iprec_at_recall.r", rf"iprec_at_recall[_.]{_NUMBER}",
               lambda m: f"IPrec@{_format_value(float(m.group(1)))}", "IPrec@r",
               "interpolated precision at recall r (trec_eval iprec_at_recall_0.10 ...)")
# papers
_name_alias("MAP", "AP", "average precision ÷ R_q; MAP@k is AP@k (÷ R_q, trec_eval map_cut_k)",
            "papers", written="MAP, MAP@k", listed="AP, AP@k",
            note="{label} is read as {canonical} (÷ R_q, as trec_eval's map_cut); for ÷ min(k, "
                 "R_q), as text-to-music and recommender papers' MAP@k, write mAP@k or "
                 "AP(norm=min)@k")
_name_alias("mAP", "AP(norm=min)", "average precision ÷ min(k, R_q), the mAP@k of text-to-music "
            "and recommender papers (÷ R_q without @k)", "papers", written="mAP, mAP@k",
            listed="AP(norm=min), AP(norm=min)@k",
            note="{label} is read as {canonical} (÷ min(k, R_q)); for ÷ R_q, as trec_eval's "
                 "map_cut, write MAP@k or AP@k")
_name_alias("MRR", "RR", "mean over queries of 1 / rank of the first relevant item; MRR@k is "
            "RR@k", "papers", written="MRR, MRR@k", listed="RR, RR@k")
_name_alias("HR", "Success", "hit rate: 1 if a relevant item is in the top k", "papers",
            written="HR@k", listed="Success@k")
_name_alias("R", "R", "same name: recall of the top k. With one relevant item per query "
            "(single-caption text-to-music) it equals Success@k (HR@k)", "papers",
            written="R@k", listed="R@k")
_name_alias("MedR", "MedianRank", "median rank of the retrieved relevant items; with one "
            "relevant item per query, the usual median rank of the relevant one", "papers")
_name_alias("MR1", "FirstRank", "rank of the first relevant item, averaged over queries (MIREX "
            "cover song 'MR1')", "papers")
_name_alias("MR", "MeanRank", "mean rank of the retrieved relevant items (acoss and re-move "
            "print 'MR' as the mean rank of the first cover, FirstRank: --protocol acoss)",
            "papers")
# ir_measures' set measures
_name_alias("SetP", "P", "precision of the whole list (ir_measures SetP)", "ir_measures")
_name_alias("SetR", "R", "recall of the whole list (ir_measures SetR)", "ir_measures")


def alias_of(text: str) -> Alias | None:
    """The alias a measure name is written with, or None (a name of ours, or unknown)."""
    compact = "".join(text.split())
    for alias in ALIASES:
        if alias.pattern is not None and alias.pattern.fullmatch(compact):
            return alias
    match = _NAME.match(compact)
    if match and match.group(1) not in REGISTRY:
        return _NAME_ALIASES.get(match.group(1))
    return None


def alias_note(measure: "Measure") -> str | None:
    """The warning an ambiguous alias (``MAP@10``, ``mAP@10``) comes with, or None."""
    if measure.label is None:
        return None
    alias = alias_of(measure.label)
    if alias is None or not alias.note or measure.cutoff is None:
        return None
    return alias.note.format(label=measure.label, canonical=measure.canonical)


# ---- parsing -------------------------------------------------------------------------------------

def _known_names() -> dict[str, str]:
    """Every name a user can write, lowercased → as written (our measures, aliases)."""
    names = list(REGISTRY)
    for alias in ALIASES:
        names.append(alias.name if alias.name is not None else alias.written.split(",")[0])
    known: dict[str, list[str]] = {}
    for name in dict.fromkeys(names):
        known.setdefault(name.lower(), []).append(name)
    return known


def suggestions(name: str, suffix: str = "") -> list[str]:
    """The closest known names (and aliases) to an unknown one: same letters in another case
    first, then difflib's close matches. ``suffix`` (the ``(params)@k`` the user wrote) is kept
    on plain names."""
    known = _known_names()
    lower = name.lower()
    keys = ([lower] if lower in known else []) + [
        k for k in difflib.get_close_matches(lower, list(known), n=5, cutoff=0.6) if k != lower]
    out = []
    for key in keys:
        for candidate in known[key]:
            plain = not (candidate.endswith("_k") or candidate.endswith("_x")
                         or candidate.endswith("_r"))
            out.append(candidate + suffix if plain else candidate)
    return list(dict.fromkeys(out))[:6]


def parse_measure(text: str) -> Measure:
    """Parse one measure name (ours or an alias) and check it against the registry. An alias
    gives our measure, labelled with the name as written (whitespace removed)."""
    compact = "".join(text.split())
    for alias in ALIASES:
        match = alias.pattern.fullmatch(compact) if alias.pattern is not None else None
        if match:
            return _parse(alias.build(match), text, label=compact)
    match = _NAME.match(compact)
    if match and match.group(1) not in REGISTRY and match.group(1) in _NAME_ALIASES:
        name, param_text, cutoff_text = match.groups()
        target_name, target_params, _ = _NAME.match(_NAME_ALIASES[name].target).groups()
        params = ",".join(p for p in (target_params, param_text) if p)
        canonical = (target_name + (f"({params})" if params else "")
                     + (f"@{cutoff_text}" if cutoff_text is not None else ""))
        return _parse(canonical, text, label=compact if compact != canonical else None)
    return _parse(compact, text)


def _parse(compact: str, text: str, label: str | None = None) -> Measure:
    """Parse our measure's ``compact`` text; errors quote the user's ``text``."""
    match = _NAME.match(compact)
    if not match:
        raise MeasureError(f"cannot read measure {text!r}; write Name, Name@k or "
                           f"Name(param=value)@k")
    name, param_text, cutoff_text = match.groups()
    text = f"{label} (= {compact})" if label is not None else repr(text)  # an alias: as read
    if name not in REGISTRY:
        close = suggestions(name, compact[len(name):])
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise MeasureError(f"unknown measure {name!r}{hint}; 'python -m metrics measures' lists "
                           f"every measure and alias")
    definition = REGISTRY[name]
    params: list[tuple[str, Any]] = []
    if param_text:
        for item in param_text.split(","):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise MeasureError(f"{text}: parameter {item!r} must look like name=value")
            if key not in definition.params:
                allowed = ", ".join(definition.params) or "none"
                raise MeasureError(f"{text}: {name} has no parameter {key!r} (parameters: "
                                   f"{allowed})")
            if any(k == key for k, _ in params):
                raise MeasureError(f"{text}: parameter {key!r} given twice")
            try:
                params.append((key, definition.params[key].parse(value)))
            except ValueError as exc:
                raise MeasureError(f"{text}: parameter {key}: {exc}") from None
    order = list(definition.params)
    params.sort(key=lambda kv: order.index(kv[0]))
    cutoff = None
    recall = definition.at == "recall"
    if cutoff_text is not None:
        if definition.cutoff == "none":
            raise MeasureError(f"{text}: {name} takes no cutoff @k")
        try:
            cutoff = recall_level(cutoff_text) if recall else positive_int(cutoff_text)
        except ValueError as exc:
            raise MeasureError(f"{text}: {'recall level' if recall else 'cutoff'} {exc}") from None
    elif definition.cutoff == "required":
        needs = "a recall level from 0 to 1, e.g. @0.1" if recall else "a cutoff, e.g. @10"
        raise MeasureError(f"{text}: {name} needs {needs}")
    measure = Measure(name, tuple(params), cutoff, label)
    if recall and label is None and measure.canonical != compact:
        measure = Measure(name, tuple(params), cutoff, compact)   # IPrec@.1 prints as written
    return measure


def parse_measures(spec: str | list[str] | tuple) -> list[Measure]:
    names = split_measure_list(spec) if isinstance(spec, str) else list(spec)
    measures = [m if isinstance(m, Measure) else parse_measure(m) for m in names]
    seen, unique = set(), []
    for m in measures:
        if str(m) not in seen:
            seen.add(str(m))
            unique.append(m)
    return unique


def with_relevance_threshold(measures: list[Measure], threshold: int) -> list[Measure]:
    """Give every binary measure that does not set ``rel`` itself the threshold ``rel=t``."""
    if threshold <= 1:
        return list(measures)
    out = []
    for m in measures:
        if "rel" in m.definition.params and all(k != "rel" for k, _ in m.params):
            order = list(m.definition.params)
            params = sorted([*m.params, ("rel", threshold)], key=lambda kv: order.index(kv[0]))
            m = Measure(m.name, tuple(params), m.cutoff)
        out.append(m)
    return out


def measure_syntax(name: str) -> str:
    """How a registered measure is written, with its parameters' defaults: ``AP(norm=rq,rel=1)[@k]``
    (``IPrec(...)@r`` where ``@`` gives a recall level)."""
    d = REGISTRY[name]
    params = ",".join(f"{k}={_format_value(p.default)}" for k, p in d.params.items())
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


def alias_rows() -> list[dict[str, Any]]:
    """The aliases as rows: the name written, our measure it means, its meaning and its source."""
    return [{"alias": a.written, "means": a.means, "meaning": a.meaning, "source": a.source}
            for a in ALIASES]


# ---- benchmark protocols -------------------------------------------------------------------------

@dataclass(frozen=True)
class ProtocolColumn:
    """One number a benchmark's reference code prints.

    ``per_query`` is our measure (its text, e.g. ``"Success@10"``; queries without a relevant item
    are undefined, as everywhere) or a vectorised function of the judged ranking giving one value
    per query (NaN where the reference code skips the query). ``reduce(values, axis)`` turns the
    per-query values (NaN included, so that a reference dividing by every query can be reproduced)
    into the printed aggregate, vectorised along ``axis`` (the bootstrap calls it on many
    resamples at once); ``scale`` multiplies the result (100 for a percentage).

    ``standard`` is the measure of ours a reader takes the printed name to mean (``R@5`` for
    "R@5", ``mAP@10`` for "mAP@10"), with its aggregate over queries (``standard_aggregate``:
    mean, median or sum): the Conventions page shows the two side by side, and ``explanation``
    says in one line why they differ."""

    name: str
    per_query: str | Callable[[Any], np.ndarray]
    reduce: Callable[..., Any]
    explanation: str
    scale: float = 1.0
    higher_is_better: bool = True
    standard: str = ""
    standard_aggregate: str = "mean"


@dataclass(frozen=True)
class Protocol:
    """A benchmark's evaluation, as its reference code computes it: the numbers it prints, in its
    order and under its names. ``source`` cites the repository, file and commit read."""

    name: str
    title: str
    source: str
    conventions: str
    columns: tuple[ProtocolColumn, ...]

    def column(self, name: str) -> ProtocolColumn:
        return next(c for c in self.columns if c.name == name)


PROTOCOLS: dict[str, Protocol] = {}


def register_protocol(protocol: Protocol) -> Protocol:
    names = [c.name for c in protocol.columns]
    if len(set(names)) != len(names):
        raise ValueError(f"protocol {protocol.name} prints a name twice")
    PROTOCOLS[protocol.name] = protocol
    return protocol


def protocol_named(name: str) -> Protocol:
    """The registered protocol, or a MeasureError listing the protocols."""
    if name not in PROTOCOLS:
        close = difflib.get_close_matches(name.lower(), list(PROTOCOLS), n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise MeasureError(f"unknown protocol {name!r}{hint}; 'python -m metrics protocols' lists "
                           f"them: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]
