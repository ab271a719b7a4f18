"""Measure names as users write them: ``Name(param=value,...)@k`` parsed into a :class:`Measure`
and printed back.

The syntax follows ir_measures: ``P@10``, ``AP``, ``nDCG@10``, ``DCG(form=jarvelin,base=e)@10``.
A list such as the command line's ``--measures`` is split on commas outside parentheses.
A name is canonical: parameters at their default value are left out (``AP(rel=1)`` and
``AP(norm=rq)`` are ``AP``, as ir_measures' ``AP(rel=1) == AP``), and a measure written otherwise
than its canonical name — with defaults spelled out, or as an alias (``map_cut_10``, ``MRR``) —
keeps the name as written as its ``label``, under which results are printed back.
"""

from __future__ import annotations

import difflib
import re
from dataclasses import dataclass
from typing import Any

from metrics.errors import MeasureError, UnknownMeasure
from metrics.measures.aliases import ALIASES, NAME_ALIASES
from metrics.measures.registry import (NAME_SYNTAX, REGISTRY, MeasureDef, format_value,
                                       positive_int, recall_level)


@dataclass(frozen=True, eq=False)
class Measure:
    """A parsed measure: its registered name, the parameters given and its cutoff.

    Two measures are equal when they compute the same thing: parameters at their default value
    count as left out, so ``AP``, ``AP(rel=1)`` and ``AP(norm=rq)`` are one measure, whose
    ``canonical`` name is ``AP``. ``str()`` gives the measure back as the user wrote it — its
    parameters as given (in the registry's order), or ``label``, the name as written when that was
    an alias (``map_cut_10``, ``MRR``) — so results are keyed and printed under the user's name.
    The label takes no part in equality; the parameters given are kept, so a relevance threshold
    set for all measures does not override a ``rel`` the user wrote."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | float | None = None     # k (a rank), or a recall level for IPrec
    label: str | None = None

    def __str__(self) -> str:
        return self.label if self.label is not None else self._spelled(self.params)

    @property
    def effective_params(self) -> tuple[tuple[str, Any], ...]:
        """The parameters that differ from their defaults, in the registry's order."""
        defaults = self.definition.params
        return tuple((k, v) for k, v in self.params if v != defaults[k].default)

    @property
    def canonical(self) -> str:
        """Our name for the measure, e.g. ``AP@10`` for ``map_cut_10`` and ``AP`` for
        ``AP(rel=1)``."""
        return self._spelled(self.effective_params)

    def _spelled(self, params: tuple[tuple[str, Any], ...]) -> str:
        text = self.name
        if params:
            text += "(" + ",".join(f"{k}={format_value(v)}" for k, v in params) + ")"
        if self.cutoff is not None:
            text += f"@{format_value(self.cutoff)}"
        return text

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Measure):
            return NotImplemented
        return (self.name, self.effective_params, self.cutoff) == (
            other.name, other.effective_params, other.cutoff)

    def __hash__(self) -> int:
        return hash((self.name, self.effective_params, self.cutoff))

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
    gives our measure, labelled with the name as written (whitespace removed). Parameters
    written after an alias (``MRR(rel=2)@10``, ``iprec_at_recall_0.60(rel=2)``) are added to
    those the alias sets."""
    compact = "".join(text.split())
    written = re.fullmatch(r"(.+?)\((.*)\)", compact)
    for alias in ALIASES:
        if alias.pattern is None:
            continue
        match = alias.pattern.fullmatch(compact)
        if match:
            return _parse(alias.build(match), text, label=compact)
        match = alias.pattern.fullmatch(written.group(1)) if written else None
        if match:
            return _parse(_with_params(alias.build(match), written.group(2)), text,
                          label=compact)
    match = NAME_SYNTAX.match(compact)
    if match and match.group(1) not in REGISTRY and match.group(1) in NAME_ALIASES:
        name, param_text, cutoff_text = match.groups()
        canonical = _with_params(NAME_ALIASES[name].target, param_text)
        if cutoff_text is not None:
            canonical += f"@{cutoff_text}"
        return _parse(canonical, text, label=compact if compact != canonical else None)
    return _parse(compact, text)


def _with_params(target: str, param_text: str | None) -> str:
    """An alias's target (``AP(norm=min)``, ``IPrec(rounding=trec10)@0.6``) with the parameters
    the user wrote after the alias, the target's first: one the target sets already is refused
    as given twice (``mAP(norm=rq)`` contradicts what mAP means)."""
    name, target_params, cutoff = NAME_SYNTAX.match(target).groups()
    params = ",".join(p for p in (target_params, param_text) if p)
    return name + (f"({params})" if params else "") + (f"@{cutoff}" if cutoff is not None else "")


def _parse(compact: str, text: str, label: str | None = None) -> Measure:
    """Parse our measure's ``compact`` text; errors quote the user's ``text``."""
    match = NAME_SYNTAX.match(compact)
    if not match:
        raise MeasureError(f"cannot read measure {text!r}; write Name, Name@k or "
                           f"Name(param=value)@k")
    name, param_text, cutoff_text = match.groups()
    text = f"{label} (= {compact})" if label is not None else repr(text)  # an alias: as read
    if name not in REGISTRY:
        close = suggestions(name, compact[len(name):])
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise UnknownMeasure(f"unknown measure {name!r}{hint}")
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
    if recall and label is None and str(measure) != compact:
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
