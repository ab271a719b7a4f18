"""trec_eval's z-score file (its ``-Z`` option; get_zscores.c): one line per query and measure,
``QUERY MEASURE MEAN STDDEV`` separated by white space, MEASURE a name trec_eval prints
(``map``, ``P_10``, ``iprec_at_recall_0.10``). trec_eval prints each value as its z-score
against them (:func:`z_scores`).

Read as trec_eval reads it, but stricter where it would go on with a wrong number: a line
without exactly four fields (a blank line included) is refused as trec_eval refuses it, and so
is a mean or deviation that is not a number (which trec_eval's ``atof`` reads as 0) and a
(query, measure) given twice (of which trec_eval's binary search finds either). Its lookups
are repeated as they are, quirks included (:meth:`ZScores.lookup`)."""

from __future__ import annotations

import math
from dataclasses import dataclass
from pathlib import Path

import numpy as np

from metrics.errors import InputError

MISSING_ZSCORE = -1000000.0   # trec_eval.h MISSING_ZSCORE_VALUE: no mean and deviation given



@dataclass(frozen=True)
class ZScores:
    """The file's lines sorted as trec_eval sorts them (by query, then measure, as bytes),
    each query's lines from ``first[q]`` to ``first[q + 1]`` of ``measures``/``means``/``stddevs``."""

    queries: list[bytes]
    first: list[int]
    measures: list[bytes]
    means: list[float]
    stddevs: list[float]

    def lookup(self, query: str, measure: str) -> tuple[float, float] | None:
        """(mean, stddev) as trec_eval's find_qid and find_meas find them: binary searches whose
        upper end is one past the last entry, so that a name absent from its query's lines can
        be matched in the first line of the next query's (or a query absent, in the next
        query). One past the end of the whole file is read as no match (trec_eval reads
        memory beyond it)."""
        q = _search(self.queries, 0, len(self.queries), query.encode())
        if q is None:
            return None
        at = _search(self.measures, self.first[q], self.first[q + 1] - self.first[q],
                     measure.encode())
        return None if at is None else (self.means[at], self.stddevs[at])


def _search(keys: list[bytes], base: int, count: int, key: bytes) -> int | None:
    """trec_eval's binary search of ``key`` in keys[base:base + count + 1] (sic)."""
    start, end = 0, count
    while start <= end:
        current = (start + end) // 2
        if base + current >= len(keys):
            return None
        found = keys[base + current]
        if key < found:
            end = current - 1
        elif key > found:
            start = current + 1
        else:
            return base + current
    return None


def load_zscores(path: str | Path) -> ZScores:
    """The z-score file; InputError naming the file and the line of anything trec_eval would
    refuse or misread."""
    try:
        text = Path(path).read_bytes().decode("utf-8", "replace")
    except OSError as exc:
        raise InputError(f"cannot read the z-score file {path}: {exc.strerror or exc}") from None
    if not text:
        raise InputError(f"{path}: the z-score file is empty")
    table: dict[bytes, dict[bytes, tuple[float, float]]] = {}
    lines = text.split("\n")
    if lines[-1] == "":
        lines.pop()
    for number, line in enumerate(lines, 1):
        fields = line.split()
        if len(fields) != 4:
            raise InputError(f"{path} line {number}: {len(fields)} fields; a z-score line is "
                             f"QUERY MEASURE MEAN STDDEV")
        query, measure, mean, stddev = fields
        numbers = []
        for name, value in (("mean", mean), ("standard deviation", stddev)):
            try:
                numbers.append(float(value))
            except ValueError:
                numbers.append(math.nan)
            if not math.isfinite(numbers[-1]):
                raise InputError(f"{path} line {number}: the {name} {value!r} is not a number")
        lines_of_query = table.setdefault(query.encode(), {})
        if measure.encode() in lines_of_query:
            raise InputError(f"{path} line {number}: query {query!r}, measure {measure!r} is "
                             f"given a second time")
        lines_of_query[measure.encode()] = (numbers[0], numbers[1])
    queries = sorted(table)
    first = np.cumsum([0] + [len(table[q]) for q in queries]).tolist()
    entries = [(m, *table[q][m]) for q in queries for m in sorted(table[q])]
    return ZScores(queries, first, [e[0] for e in entries], [e[1] for e in entries],
                   [e[2] for e in entries])


def z_scores(values: np.ndarray, queries: list[str], measure: str,
             table: ZScores) -> np.ndarray:
    """Each query's value as trec_eval's te_convert_to_zscore turns it: (value − mean) /
    stddev; with a deviation of 0, 0 when the value is the mean; MISSING_ZSCORE when it is not,
    or when the file has no line for the query and measure (:meth:`ZScores.lookup`)."""
    out = np.full(len(values), MISSING_ZSCORE)
    for i, query in enumerate(queries):
        given = table.lookup(query, measure)
        if given is None:
            continue
        mean, stddev = given
        if stddev:
            out[i] = (values[i] - mean) / stddev
        elif values[i] == mean:
            out[i] = 0.0
    return out
