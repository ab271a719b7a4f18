"""Reading a table of named columns from TREC whitespace files, CSV/TSV with a header, or Parquet.

Each loader describes its columns once (:class:`Layout`); this module finds them, checks the row
shapes and the numbers, and reports any problem with the file, line and column.
"""

from __future__ import annotations

from dataclasses import dataclass
from itertools import chain

import numpy as np

# pandas is imported inside the functions that use it: the command line's fast path for large
# TREC files never needs it, and importing it costs about half a second.

from metrics.errors import InputError
from metrics.data.rows import id_strings
from metrics.loaders.lines import (RowBlock, first_content_line, row_blocks, split_fields,
                                   table_delimiter)
from metrics.loaders.text import PARQUET_MAGIC, Source, read_bytes, refuse_binary, source_name

ALIASES = {
    "query_id": ("query_id", "qid", "query", "queryid", "topic"),
    "item_id": ("item_id", "docno", "doc_id", "docid", "doc", "item", "itemid", "document"),
    "score": ("score", "sim", "similarity"),
    "rank": ("rank",),
    "relevance": ("relevance", "rel", "grade", "judgement", "judgment"),
    "label": ("label", "clique", "work", "group", "clique_id", "work_id"),
    "class": ("class", "instrument", "category"),
    "parent": ("parent", "family", "parent_class"),
    "tag": ("tag", "run_id"),
}


@dataclass(frozen=True)
class Layout:
    """What a table holds: ``trec`` lists the column names of the headerless TREC form (None for a
    column that is read but ignored), ``required`` and ``optional`` the named columns of CSV/TSV
    and Parquet."""

    what: str
    trec: tuple[str | None, ...]
    required: tuple[str, ...]
    optional: tuple[str, ...] = ()
    alternatives: tuple[tuple[str, ...], ...] = ()  # extra header sets allowed (e.g. no score)

    @property
    def trec_kept(self) -> tuple[str | None, ...]:
        """The TREC column names with only the required ones kept: a TREC run's rank column is
        ignored (as trec_eval ignores it), so the fast reader need not parse it."""
        return tuple(name if name in self.required else None for name in self.trec)


@dataclass(frozen=True)
class Table:
    source: str
    columns: dict[str, np.ndarray]   # strings, one per row
    lines: np.ndarray                # line (text) or row (Parquet) number of each row
    unit: str = "line"               # "line" or "row"

    def __len__(self) -> int:
        return len(self.lines)

    def error(self, index: int, message: str, column: str | None = None) -> InputError:
        where = {"line": int(self.lines[index])} if self.unit == "line" else \
            {"row": int(self.lines[index])}
        return InputError(message, source=self.source, column=column, **where)


def _canonical(name: str) -> str | None:
    key = name.strip().strip('"').lower().replace(" ", "_")
    for canonical, names in ALIASES.items():
        if key in names:
            return canonical
    return None


def _looks_like_header(first_line: str, delimiter: str | None, layout: Layout) -> bool:
    # a run's tag is free text (a TREC run may well be tagged "tag"): it never makes a header
    names = (set(layout.required) | set(layout.optional)) - {"tag"}
    return any(_canonical(c) in names for c in split_fields(first_line, delimiter))


def read_table(source: Source, layout: Layout, name: str | None = None) -> Table:
    """The table of a file. Text is split a block of rows at a time and a row with the wrong
    number of fields stops the reading there."""
    label = source_name(source, name)
    data = read_bytes(source, label)
    if data[:4] == PARQUET_MAGIC:
        return _read_parquet(data, layout, label)
    refuse_binary(data, label, layout.what)
    first = first_content_line(data, label)
    delimiter = table_delimiter(first, label)
    if _looks_like_header(first, delimiter, layout) or (delimiter is not None and
                                                 label.lower().removesuffix(".gz").endswith(
                                                     (".csv", ".tsv"))):
        return _read_with_header(row_blocks(data, label, delimiter), layout, label)
    return _read_trec(row_blocks(data, label, None), layout, label)


def _read_trec(blocks, layout: Layout, label: str) -> Table:
    width = len(layout.trec)
    names = " ".join(c or "_" for c in layout.trec)
    kept = {c: i for i, c in enumerate(layout.trec) if c}
    return gather_columns(blocks, width, kept, label, f"is empty: expected a {layout.what}",
                   lambda found: f"expected {width} whitespace-separated fields ({names}) but "
                                 f"found {found}; a CSV/TSV needs a header row naming its columns")


def gather_columns(blocks, width: int, kept: dict[str, int], label: str, empty: str,
                   wrong_width) -> Table:
    """The ``kept`` columns of rows that must all have ``width`` fields; the first row that has
    not is an error (``wrong_width(found)`` says what), raised before later blocks are split.
    No rows at all is the error ``empty``."""
    parts: dict[str, list[np.ndarray]] = {c: [] for c in kept}
    lines = []
    for block in blocks:
        if not block.lines:
            continue
        check_widths(block, width, label, wrong_width)
        matrix = np.array(block.cells, dtype=object).reshape(len(block.lines), width)
        for c, i in kept.items():   # copied, so the columns not kept are freed with the block
            parts[c].append(matrix[:, i].copy())
        lines.append(np.asarray(block.lines, dtype=np.int64))
    if not lines:
        raise InputError(empty, source=label)
    return Table(label, {c: np.concatenate(p) for c, p in parts.items()}, np.concatenate(lines))


def check_widths(block: RowBlock, width: int, label: str, wrong_width) -> None:
    """Every row of the block has ``width`` fields; else an error at the first that has not
    (``wrong_width(found)`` says what)."""
    counts = np.asarray(block.widths, dtype=np.int64)
    bad = np.flatnonzero(counts != width)
    if len(bad):
        i = int(bad[0])
        raise InputError(wrong_width(counts[i]), source=label, line=block.lines[i])


def resolve_header(header: list[str], layout: Layout, label: str, line: int) -> dict[str, int]:
    found: dict[str, int] = {}
    for index, cell in enumerate(header):
        canonical = _canonical(cell)
        if canonical is None:
            continue
        if canonical in found:
            raise InputError(f"the header names column {canonical!r} twice", source=label,
                             line=line)
        found[canonical] = index
    wanted = set(layout.required)
    allowed = [set(layout.required)] + [set(a) for a in layout.alternatives]
    if not any(a <= set(found) for a in allowed):
        missing = sorted(wanted - set(found))
        message = (f"the header lacks column(s) {', '.join(missing)}: a {layout.what} CSV/TSV "
                   f"needs a header naming {','.join(layout.required)}")
        if layout.optional:
            message += f" (optional: {','.join(layout.optional)})"
        if layout.alternatives:
            message += "; or else " + " or ".join(",".join(a) for a in layout.alternatives)
        raise InputError(message, source=label, line=line)
    keep = set(layout.required) | set(layout.optional) | {c for a in layout.alternatives for c in a}
    return {c: i for c, i in found.items() if c in keep}


def _read_with_header(blocks, layout: Layout, label: str) -> Table:
    blocks = iter(blocks)
    first = next(blocks, None)
    if first is None:
        raise InputError(f"is empty: expected a {layout.what}", source=label)
    header, header_line = first.cells[:first.widths[0]], first.lines[0]
    positions = resolve_header(header, layout, label, header_line)
    body = RowBlock(first.lines[1:], first.widths[1:], first.cells[first.widths[0]:])
    return gather_columns(chain([body], blocks), len(header), positions, label,
                   f"has a header but no rows: expected a {layout.what}",
                   lambda found: f"expected {len(header)} fields as in the header but found "
                                 f"{found}")


def _read_parquet(data: bytes, layout: Layout, label: str) -> Table:
    import io

    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"cannot read as Parquet ({exc})", source=label) from None
    names = list(table.column_names)
    positions = resolve_header(names, layout, label, None)
    if table.num_rows == 0:
        raise InputError(f"has no rows: expected a {layout.what}", source=label)
    columns = {}
    for canonical, index in positions.items():
        column = table.column(index).to_pandas()
        missing = column.isna().to_numpy()
        if missing.any():
            raise InputError("is empty (null)", source=label,
                             row=int(np.flatnonzero(missing)[0]) + 1, column=names[index])
        columns[canonical] = column.astype(str).to_numpy(dtype=object)
        if canonical in ("query_id", "item_id") and column.dtype.kind == "f":
            columns[canonical] = id_strings(column.to_numpy(), label, names[index])
        if canonical in ("score", "rank", "relevance") and pd.api.types.is_numeric_dtype(
                table.column(index).type.to_pandas_dtype()):
            # integers stay exact (grades and ranks beyond 2^53)
            columns[canonical] = column.to_numpy(
                dtype=None if column.dtype.kind in "iu" else np.float64)
    return Table(label, columns, np.arange(1, table.num_rows + 1), unit="row")


def text_column(table: Table, name: str) -> np.ndarray:
    values = table.columns[name]
    empty = np.flatnonzero(values == "")   # the readers give stripped str cells
    if len(empty):
        raise table.error(int(empty[0]), "is empty; every row needs a value here", column=name)
    return values


def numeric_column(table: Table, name: str) -> np.ndarray:
    """The column as float64 (scores); non-numbers, NaN and infinities are errors with their line.
    Whole numbers (grades, ranks) are read exactly by :func:`metrics.data.rows.whole_numbers`."""
    import pandas as pd
    values = table.columns[name]
    if values.dtype != object:
        numbers = values.astype(np.float64)
    else:
        numbers = pd.to_numeric(pd.Series(values, dtype=object), errors="coerce").to_numpy(
            np.float64)
    bad = np.flatnonzero(~np.isfinite(numbers))
    if len(bad):
        i = int(bad[0])
        shown = str(values[i]).strip()
        spelled_special = shown.lower().lstrip("+-") in ("nan", "inf", "infinity")
        kind = ("not a finite number (NaN and infinity are not allowed)"
                if spelled_special or np.isinf(numbers[i]) else "not a number")
        raise table.error(i, f"{name} {str(shown)!r} is {kind}", column=name)
    return numbers


def check_unique(table: Table, values, what: str, hint: str) -> None:
    """Every value once: a repeat is an error naming both lines. ``values``: an array, or a
    polars Series (a metadata table's ids: checked as a column, no Python object per value)."""
    repeat = _first_repeat(values)
    if repeat is not None:
        first, again = repeat
        raise table.error(again, f"{what} {values[again]!r} is listed twice (first on "
                                 f"{table.unit} {table.lines[first]}); {hint}")


def _first_repeat(values) -> tuple[int, int] | None:
    """(where a value first is, where it is again) for the first value given twice; None."""
    if not isinstance(values, np.ndarray):   # a polars Series
        repeated = ~values.is_first_distinct()
        if not repeated.any():
            return None
        again = int(repeated.arg_max())
        return int((values == values[again]).arg_max()), again
    if len(set(values)) == len(values):
        return None
    seen: dict[str, int] = {}
    for i, value in enumerate(values):
        if value in seen:
            return seen[value], i
        seen[value] = i
    return None
