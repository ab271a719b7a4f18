"""Metadata tables: an item table (``item_id`` plus any columns: title, artist, album, year,
audio, …) and a query table (``query_id`` plus any columns: text, genre, instrument, …), from CSV,
TSV or Parquet (docs/formats.md).

A table is a :class:`pandas.DataFrame` indexed by the id as text (index name ``item_id`` or
``query_id``, by the one rule for ids of :func:`metrics.data.rows.id_strings`), its other columns
as the file names them, each cell a string (or None where the cell is empty) — nothing is parsed
or rounded, a title of "1e3" stays "1e3". The file's name is kept in ``table.attrs["source"]``,
so that a warning about the table can name it.

The rules are the loaders': a missing id column, an id given twice (both lines named), an empty
id, bytes that are not UTF-8 text or an empty file are errors naming the file and the line.
"""

from __future__ import annotations

from itertools import chain
from typing import Iterable

import numpy as np

from metrics.data.rows import id_strings
from metrics.errors import InputError
from metrics.loaders.lines import RowBlock, first_content_line, row_blocks, table_delimiter
from metrics.loaders.tables import ALIASES, Table, gather_columns, check_unique
from metrics.loaders.text import PARQUET_MAGIC, Source, read_bytes, source_name

ITEM_ID, QUERY_ID = "item_id", "query_id"
SOURCE = "source"   # the key of a table's attrs holding the name of its file

# ``pandas`` is imported inside the functions, as in the other loaders (the command line's fast
# path never needs it).


def read_item_table(source: Source, name: str | None = None):
    """The item table of a file (a path, or bytes with ``name`` for messages)."""
    return _read_metadata(source, name, ITEM_ID, "an item table")


def read_query_table(source: Source, name: str | None = None):
    """The query table of a file (a path, or bytes with ``name`` for messages)."""
    return _read_metadata(source, name, QUERY_ID, "a query table")


def _read_metadata(source: Source, name: str | None, id_column: str, what: str):
    label = source_name(source, name)
    data = read_bytes(source, label)
    if data[:4] == PARQUET_MAGIC:
        header, columns, lines, unit = _parquet_columns(data, label, what, id_column)
    else:
        header, columns, lines, unit = _text_columns(data, label, what)
    position = _id_position(header, id_column, label, what, None if unit == "row" else lines[0])
    table = Table(label, {}, np.asarray(lines[1:] if unit == "line" else lines), unit)
    ids = columns[position]
    empty = [i for i, v in enumerate(ids) if v is None or (isinstance(v, str) and v == "")]
    if empty:
        raise table.error(empty[0], f"the {id_column} is empty; every row needs one",
                          column=header[position])
    ids = id_strings(np.asarray(ids, dtype=object) if unit == "line" else ids, label,
                     header[position])
    check_unique(table, ids, id_column.removesuffix("_id"),
                 f"give each {id_column.removesuffix('_id')} one row")
    return _frame(header, columns, position, ids, id_column, label)


def _text_columns(data: bytes, label: str, what: str):
    """(header, columns as lists of str or None, line numbers with the header's first, "line")."""
    first = first_content_line(data, label)
    if not first:
        raise InputError(f"is empty: expected {what} with a header row", source=label)
    # a header without a comma or tab names one column: there is nothing to split
    delimiter = table_delimiter(first, label) or ","
    blocks = iter(row_blocks(data, label, delimiter))
    head = next(blocks)
    header, header_line = head.cells[:head.widths[0]], head.lines[0]
    body = RowBlock(head.lines[1:], head.widths[1:], head.cells[head.widths[0]:])
    width = len(header)
    # every column kept (by its place: a name given twice is refused later, naming it)
    rows = gather_columns(chain([body], blocks), width, {str(i): i for i in range(width)}, label,
                   f"has a header but no rows: expected {what}",
                   lambda found: f"expected {width} fields as in the header but found {found}")
    columns = [[cell if cell != "" else None for cell in rows.columns[str(i)]]
               for i in range(width)]
    lines = [header_line, *rows.lines.tolist()]
    return header, columns, lines, "line"


def _parquet_columns(data: bytes, label: str, what: str, id_column: str):
    import io

    import pyarrow as pa
    import pyarrow.parquet as pq

    try:
        table = pq.read_table(io.BytesIO(data))
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"cannot read as Parquet ({exc})", source=label) from None
    if table.num_rows == 0:
        raise InputError(f"has no rows: expected {what}", source=label)
    header = [str(n) for n in table.column_names]
    id_position = _id_position(header, id_column, label, what, None)
    columns = []
    for index in range(table.num_columns):
        values = table.column(index).to_pandas()
        if index == id_position and values.dtype.kind == "f" and values.notna().all():
            columns.append(values.to_numpy())   # float ids by id_strings' rule (10.0 is 10)
            continue
        columns.append([None if v is None or v != v else str(v) for v in values.tolist()])
    return header, columns, np.arange(1, table.num_rows + 1), "row"


def _id_position(header: list[str], id_column: str, label: str, what: str,
                 line: int | None) -> int:
    """The header's id column (by its name or an alias: qid, docno, …); a header naming a column
    twice, or none, is an error."""
    seen: dict[str, int] = {}
    for index, cell in enumerate(header):
        if not cell.strip():
            raise InputError(f"column {index + 1} of the header has no name; name every column",
                             source=label, line=line)
        if cell in seen:
            raise InputError(f"the header names column {cell!r} twice", source=label, line=line)
        seen[cell] = index
    names = ALIASES[id_column]
    found = [i for i, cell in enumerate(header) if cell.strip().lower().replace(" ", "_") in names]
    if not found:
        raise InputError(f"the header has no {id_column} column: {what} needs a header naming "
                         f"{id_column} and then any columns (found: {', '.join(header)})",
                         source=label, line=line)
    if len(found) > 1:
        raise InputError(f"the header has {len(found)} columns that name the {id_column} "
                         f"({', '.join(header[i] for i in found)}); keep one", source=label,
                         line=line)
    return found[0]


def _frame(header, columns, position, ids, id_column: str, label: str):
    import pandas as pd

    frame = pd.DataFrame({name: pd.Series(np.asarray(column, dtype=object), dtype=object)
                          for i, (name, column) in enumerate(zip(header, columns))
                          if i != position})
    frame.index = pd.Index(np.asarray(ids, dtype=object), dtype=object, name=id_column)
    if frame.shape[1]:
        frame = frame.astype(object).where(frame.notna(), None)
    frame.attrs[SOURCE] = label
    return frame


def read_metadata(files: Iterable[tuple[str, str, bytes]]):
    """(item table, query table) of uploaded files given as (role, name, content), role
    ``items`` or ``queries``; each None when not given. Any other role is an error."""
    readers = {"items": read_item_table, "queries": read_query_table}
    tables = {}
    for role, name, content in files:
        if role not in readers:
            raise InputError(f"a metadata table's role is items or queries, not {role!r}",
                             source=name)
        if role in tables:
            raise InputError(f"give one {role[:-1]} table, not two", source=name)
        tables[role] = readers[role](content, name)
    return tables.get("items"), tables.get("queries")


# ---- using the tables --------------------------------------------------------------------------

def unmatched_ids(table, known: Iterable[str], what: str) -> str | None:
    """A warning when some ids of the table match nothing in ``known`` (the run's and ground
    truth's ids of that kind; ``what`` says which: "items" or "queries"): how many, and the first.
    None when every id matches. A table whose ids match nothing at all is most likely another
    collection's, and the warning says so."""
    known = set(map(str, known))
    unmatched = [i for i in table.index if i not in known]
    if not unmatched:
        return None
    label = table.attrs.get(SOURCE, f"the {what[:-1]} table")
    if len(unmatched) == len(table):
        return (f"{label}: none of its {len(table):,} {what} is among the {what} of the run or "
                f"ground truth (first: {unmatched[0]!r}); is it the table of another "
                f"collection?")
    return (f"{label}: {len(unmatched):,} of its {len(table):,} {what} match nothing in the run "
            f"or ground truth (first: {unmatched[0]!r})")


def query_metadata(items, queries, query_ids: Iterable[str]):
    """The table that describes the queries: the query table when there is one; else, where the
    query is an item (cover songs: labels, all-vs-all matrices, a query recording), the item
    table, when it holds at least one of ``query_ids``; else None."""
    if queries is not None:
        return queries
    if items is None or not any(q in items.index for q in map(str, query_ids)):
        return None
    return items.rename_axis(QUERY_ID)
