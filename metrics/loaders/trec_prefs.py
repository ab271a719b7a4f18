"""trec_eval's preference judgments (its ``-R prefs`` and ``-R qrels_prefs``; get_prefs.c,
get_qrels_prefs.c), read by the ``prefs_*`` measures (:mod:`metrics.measures.trec_prefs`).

``prefs``: ``QUERY GROUP SUBGROUP ITEM LEVEL`` — within a judgment group's subgroup an item of
a higher LEVEL (a real number; 0 is non-relevant) is preferred to one of a lower level.
``qrels_prefs``: a qrels file read as preferences, ``QUERY GROUP ITEM LEVEL`` (the qrels' second
field the group, one subgroup). A line whose first character is '#' is a comment.

Refused, naming the line: another number of fields (trec_eval's "Malformed line") and a level
that is not a number (trec_eval's ``atof`` reads it as 0)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

from metrics.errors import InputError


@dataclass(frozen=True)
class Preference:
    """One judgment line: its group, subgroup, item and level."""

    group: bytes
    subgroup: bytes
    item: bytes
    level: float


def load_prefs(path: str | Path, form: str = "prefs") -> dict[bytes, list[Preference]]:
    """{query: its judgment lines} of a ``prefs`` or ``qrels_prefs`` file."""
    fields_wanted = 5 if form == "prefs" else 4
    layout = ("QUERY GROUP SUBGROUP ITEM LEVEL" if form == "prefs" else
              "QUERY GROUP ITEM LEVEL")
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the preferences file {path}: "
                         f"{exc.strerror or exc}") from None
    lines = data.split(b"\n")
    if lines[-1] == b"":   # the end of the last line
        lines.pop()
    queries: dict[bytes, list[Preference]] = {}
    for number, line in enumerate(lines, 1):
        if line.startswith(b"#"):
            continue
        fields = line.split()
        if len(fields) != fields_wanted:
            raise InputError(f"{path} line {number}: {len(fields)} fields; a {form} line is "
                             f"{layout}")
        try:
            level = float(fields[-1])
        except ValueError:
            level = math.nan
        if not math.isfinite(level):
            raise InputError(f"{path} line {number}: the level "
                             f"{fields[-1].decode(errors='replace')!r} is not a number")
        subgroup = fields[2] if form == "prefs" else b"0"
        queries.setdefault(fields[0], []).append(
            Preference(fields[1], subgroup, fields[-2], level))
    if not queries:
        raise InputError(f"{path}: no preference judgments")
    return queries
