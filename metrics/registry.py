"""Measure names: parsing ``Name(param=value,...)@k``, printing them back, and the registry.

The syntax follows ir_measures: ``P@10``, ``AP``, ``nDCG@10``, ``DCG(form=jarvelin,base=e)@10``.
A list such as the command line's ``--measures`` is split on commas outside parentheses.
"""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, field
from typing import Any, Callable

import numpy as np

from .errors import MeasureError

_NAME = re.compile(r"^([A-Za-z][A-Za-z0-9_]*)(?:\((.*)\))?(?:@(\S+))?$")


@dataclass(frozen=True)
class Measure:
    """A parsed measure: its registered name, explicit parameters and cutoff."""

    name: str
    params: tuple[tuple[str, Any], ...] = ()
    cutoff: int | None = None

    def __str__(self) -> str:
        text = self.name
        if self.params:
            text += "(" + ",".join(f"{k}={_format_value(v)}" for k, v in self.params) + ")"
        if self.cutoff is not None:
            text += f"@{self.cutoff}"
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


def _format_value(value: Any) -> str:
    if isinstance(value, float):
        if value == math.e:
            return "e"
        return f"{value:g}"
    return str(value)


@dataclass(frozen=True)
class Param:
    default: Any
    parse: Callable[[str], Any]
    help: str = ""


@dataclass(frozen=True)
class MeasureDef:
    """A registered measure. ``compute(judged, cutoff, **params)`` returns one float per query,
    NaN where the measure is undefined for that query."""

    name: str
    compute: Callable[..., np.ndarray]
    meaning: str
    convention: str
    reference: str
    formula: str = ""
    params: dict[str, Param] = field(default_factory=dict)
    cutoff: str = "optional"          # "optional", "none" or "required"
    needs_collection_size: bool = False
    higher_is_better: bool = True


REGISTRY: dict[str, MeasureDef] = {}


def register(name: str, *, meaning: str, convention: str, reference: str, formula: str = "",
             params: dict[str, Param] | None = None, cutoff: str = "optional",
             needs_collection_size: bool = False, higher_is_better: bool = True):
    def decorate(fn):
        REGISTRY[name] = MeasureDef(name, fn, meaning, convention, reference, formula,
                                    params or {}, cutoff, needs_collection_size, higher_is_better)
        return fn
    return decorate


# ---- parameter parsers -------------------------------------------------------------------------

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


# ---- parsing -----------------------------------------------------------------------------------

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


def parse_measure(text: str) -> Measure:
    """Parse one measure name and check it against the registry."""
    compact = "".join(text.split())
    match = _NAME.match(compact)
    if not match:
        raise MeasureError(f"cannot read measure {text!r}; write Name, Name@k or "
                           f"Name(param=value)@k")
    name, param_text, cutoff_text = match.groups()
    if name not in REGISTRY:
        lower = {k.lower(): k for k in REGISTRY}
        hint = f" (did you mean {lower[name.lower()]}?)" if name.lower() in lower else ""
        raise MeasureError(f"unknown measure {name!r}{hint}; known: {', '.join(sorted(REGISTRY))}")
    definition = REGISTRY[name]
    params: list[tuple[str, Any]] = []
    if param_text:
        for item in param_text.split(","):
            key, sep, value = item.partition("=")
            if not sep or not key:
                raise MeasureError(f"{text!r}: parameter {item!r} must look like name=value")
            if key not in definition.params:
                allowed = ", ".join(definition.params) or "none"
                raise MeasureError(f"{text!r}: {name} has no parameter {key!r} (parameters: "
                                   f"{allowed})")
            if any(k == key for k, _ in params):
                raise MeasureError(f"{text!r}: parameter {key!r} given twice")
            try:
                params.append((key, definition.params[key].parse(value)))
            except ValueError as exc:
                raise MeasureError(f"{text!r}: parameter {key}: {exc}") from None
    order = list(definition.params)
    params.sort(key=lambda kv: order.index(kv[0]))
    cutoff = None
    if cutoff_text is not None:
        if definition.cutoff == "none":
            raise MeasureError(f"{text!r}: {name} takes no cutoff @k")
        try:
            cutoff = positive_int(cutoff_text)
        except ValueError as exc:
            raise MeasureError(f"{text!r}: cutoff {exc}") from None
    elif definition.cutoff == "required":
        raise MeasureError(f"{text!r}: {name} needs a cutoff, e.g. {name}@10")
    return Measure(name, tuple(params), cutoff)


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
