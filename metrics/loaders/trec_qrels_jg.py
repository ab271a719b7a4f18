"""trec_eval's judgment-group qrels (its ``-R qrels_jg``; get_qrels_jg.c): the lines of a qrels
file, ``QUERY GROUP ITEM GRADE``, whose second field names the judgment group — a set of
judgments of its own (one assessor's, say) — where a plain qrels file has its unused 0. A query
can be judged by several groups; trec_eval's ``*_avgjg`` measures score a ranking against each
group's judgments and average over the query's groups.

Read as trec_eval reads it: four fields a line, a line whose first character is '#' a comment.
Refused, naming the line: another number of fields (trec_eval's "Malformed line"), a grade that
is not a whole number (trec_eval's ``atol`` reads it as 0) and an item judged twice by one group
for one query (trec_eval's "duplicate docs")."""

from __future__ import annotations

import re
from pathlib import Path

from metrics.errors import InputError

_GRADE = re.compile(rb"[-+]?\d+")


def load_qrels_jg(path: str | Path) -> dict[bytes, bytes]:
    """The judgment groups of the file: {group: its judgments as plain qrels text (``QUERY 0
    ITEM GRADE`` lines)}, each group's lines in file order."""
    try:
        data = Path(path).read_bytes()
    except OSError as exc:
        raise InputError(f"cannot read the qrels file {path}: {exc.strerror or exc}") from None
    groups: dict[bytes, list[bytes]] = {}
    seen: set[tuple[bytes, bytes, bytes]] = set()
    lines = data.split(b"\n")
    if lines[-1] == b"":   # the end of the last line
        lines.pop()
    for number, line in enumerate(lines, 1):
        if line.startswith(b"#"):
            continue
        fields = line.split()
        if len(fields) != 4:
            raise InputError(f"{path} line {number}: {len(fields)} fields; a judgment-group "
                             f"qrels line is QUERY GROUP ITEM GRADE")
        query, group, item, grade = fields
        if not _GRADE.fullmatch(grade):
            raise InputError(f"{path} line {number}: the grade {grade.decode(errors='replace')!r}"
                             f" is not a whole number")
        if (query, group, item) in seen:
            raise InputError(f"{path} line {number}: item {item.decode(errors='replace')!r} is "
                             f"judged twice by group {group.decode(errors='replace')!r} for "
                             f"query {query.decode(errors='replace')!r}")
        seen.add((query, group, item))
        groups.setdefault(group, []).append(b" ".join((query, b"0", item, grade)))
    if not groups:
        raise InputError(f"{path}: no judgments")
    return {group: b"\n".join(judged) + b"\n" for group, judged in groups.items()}
