"""Metadata tables: an item table (``item_id`` plus any columns: title, artist, album, year,
audio, …) and a query table (``query_id`` plus any columns: text, genre, instrument, …), from CSV,
TSV or Parquet (docs/formats.md).

A table is a :class:`pandas.DataFrame` indexed by the id as text (index name ``item_id`` or
``query_id``, by the one rule for ids of :func:`metrics.data.rows.id_strings`; a CSV/TSV id is
stripped of spaces and tabs, as every loader reads ids), its other columns as the header names
them (stripped), each cell text kept exactly as written — nothing is parsed, rounded or
stripped: a title of "1e3" stays "1e3" and a genre " a" is not the genre "a" — and missing
(``pd.isna``) where the cell is empty. The columns and the index are text held by Arrow (pandas'
``str`` dtype), so a table takes about its file's size in memory rather than a Python object per
cell. The file's name is kept in ``table.attrs["source"]``, so that a warning about the table can
name it.

A Parquet cell is text as Arrow writes it (``1959.0`` is "1959", ``true`` "true"; NaN is
missing); a list, struct or map cell is its JSON text (``{"a": 1}``: integers stay integers).
A Parquet file whose footer (the description of its row groups and columns) is larger than
:data:`PARQUET_FOOTER_LIMIT` is refused before it is parsed: that is a table written in very many
small row groups, and reading the footer alone would cost many times the table.

The rules are the loaders': a missing id column, an id given twice (both lines named), an empty
id, bytes that are not UTF-8 text or an empty file are errors naming the file and the line.
"""

from __future__ import annotations

import io
import json
from itertools import chain
from typing import Iterable

import numpy as np

from metrics.data.rows import id_strings, whole_float_first, whole_float_ids
from metrics.errors import InputError
from metrics.loaders.lines import RowBlock, first_content_line, row_blocks, table_delimiter
from metrics.loaders.tables import ALIASES, Table, check_unique, check_widths
from metrics.loaders.text import PARQUET_MAGIC, Source, read_bytes, source_name

ITEM_ID, QUERY_ID = "item_id", "query_id"
SOURCE = "source"   # the key of a table's attrs holding the name of its file
PARQUET_FOOTER_LIMIT = 16 << 20   # bytes: 300,000 one-row groups of 3 columns make 168 MB
ROWS_PER_BATCH = 1 << 16          # Parquet rows read (and their nested cells made text) at a time

# ``pandas``, ``pyarrow`` and ``polars`` are imported inside the functions, as in the other
# loaders (the command line's fast path never needs them).


def read_item_table(source: Source, name: str | None = None):
    """The item table of a file (a path, or bytes with ``name`` for messages)."""
    return _read_metadata(source, name, ITEM_ID, "an item table")


def read_query_table(source: Source, name: str | None = None):
    """The query table of a file (a path, or bytes with ``name`` for messages)."""
    return _read_metadata(source, name, QUERY_ID, "a query table")


def _read_metadata(source: Source, name: str | None, id_column: str, what: str):
    label = source_name(source, name)
    data = read_bytes(source, label)
    read = _parquet_columns if data[:4] == PARQUET_MAGIC else _text_columns
    header, position, columns, lines, unit = read(data, label, what, id_column)
    del data   # the columns hold the table now
    table = Table(label, {}, lines, unit)
    ids = _ids(columns[position], table, header[position], id_column)
    frame = _frame(header, columns, position, ids, id_column, label)
    # pandas' hash of the index, which every look-up needs anyway, says whether an id repeats
    if not frame.index.is_unique:   # which one: the rare case, by polars
        import polars as pl

        what = id_column.removesuffix("_id")
        check_unique(table, pl.from_arrow(ids), what, f"give each {what} one row")
    return frame


def _text_columns(data: bytes, label: str, what: str, id_column: str):
    """(header, the id column's place, columns as Arrow text missing where a cell is empty,
    each row's line, "line"). The rows are split a block at a time, and each block's cells become
    Arrow text before the next is split."""
    import pyarrow as pa

    first = first_content_line(data, label)
    if not first:
        raise InputError(f"is empty: expected {what} with a header row", source=label)
    # a header without a comma or tab names one column: there is nothing to split
    delimiter = table_delimiter(first, label) or ","
    blocks = iter(row_blocks(data, label, delimiter, strip=False))
    head = next(blocks)
    header = [name.strip(" \t") for name in head.cells[:head.widths[0]]]
    position = _id_position(header, id_column, label, what, head.lines[0])
    width = len(header)
    parts: list[list] = [[] for _ in range(width)]
    lines = []
    body = RowBlock(head.lines[1:], head.widths[1:], head.cells[head.widths[0]:])
    for block in chain([body], blocks):
        if not block.lines:
            continue
        check_widths(block, width, label, lambda found: f"expected {width} fields as in the "
                                                        f"header but found {found}")
        for index, part in enumerate(parts):   # made Arrow text block by block: memory reused
            part.append(_empty_missing(pa.array(block.cells[index::width], pa.large_string())))
        lines.append(np.asarray(block.lines, dtype=np.int64))
    if not lines:
        raise InputError(f"has a header but no rows: expected {what}", source=label)
    columns = [pa.chunked_array(part, pa.large_string()) for part in parts]
    return header, position, columns, np.concatenate(lines), "line"


def _empty_missing(column):
    """The column with each empty cell missing."""
    import pyarrow as pa
    import pyarrow.compute as pc

    return pc.if_else(pc.equal(column, ""), pa.scalar(None, pa.large_string()), column)


def _parquet_columns(data: bytes, label: str, what: str, id_column: str):
    """(header, the id column's place, columns as Arrow text, each row's number, "row")."""
    import pyarrow as pa
    import pyarrow.parquet as pq

    footer = int.from_bytes(data[-8:-4], "little") if data[-4:] == PARQUET_MAGIC else 0
    if footer > PARQUET_FOOTER_LIMIT:
        raise InputError(f"its Parquet footer (the description of its row groups and columns) "
                         f"is {footer / 2 ** 20:,.0f} MB, more than the "
                         f"{PARQUET_FOOTER_LIMIT >> 20} MB read: a table written in very many "
                         f"small row groups; write it again with larger ones (pandas' and "
                         f"pyarrow's default row groups)", source=label)
    try:
        file = pq.ParquetFile(io.BytesIO(data))
        header = [str(n) for n in file.schema_arrow.names]
        position = _id_position(header, id_column, label, what, None)
        parts: list[list] = [[] for _ in header]
        for batch in file.iter_batches(batch_size=ROWS_PER_BATCH):
            for index, part in enumerate(parts):
                part.append(batch.column(index) if index == position else
                            _as_text(batch.column(index), label, header[index]))
    except InputError:
        raise
    except (pa.ArrowException, OSError, ValueError) as exc:
        raise InputError(f"cannot read as Parquet ({exc})", source=label) from None
    rows = sum(len(p) for p in parts[0]) if parts else 0
    if rows == 0:
        raise InputError(f"has no rows: expected {what}", source=label)
    columns = [pa.chunked_array(part, part[0].type) for part in parts]
    return header, position, columns, np.arange(1, rows + 1), "row"


def _as_text(column, label: str, name: str):
    """A Parquet column's cells as text (module docstring): JSON for lists, structs and maps, a
    missing cell for NaN."""
    import pyarrow as pa
    import pyarrow.compute as pc

    kind = column.type
    if pa.types.is_dictionary(kind):
        column, kind = column.dictionary_decode(), kind.value_type
    if pa.types.is_nested(kind):
        return pa.array([None if cell is None else json.dumps(cell, ensure_ascii=False,
                                                              default=str)
                         for cell in column.to_pylist()], pa.large_string())
    if pa.types.is_floating(kind):
        column = pc.if_else(pc.is_nan(column), pa.scalar(None, kind), column)
    try:
        return pc.cast(column, pa.large_string())
    except pa.ArrowNotImplementedError:   # a type Arrow cannot write as text (a duration)
        return pa.array([None if cell is None else str(cell) for cell in column.to_pylist()],
                        pa.large_string())
    except pa.ArrowInvalid:
        raise InputError("holds bytes that are not UTF-8 text", source=label,
                         column=name) from None


def _ids(column, table: Table, name: str, id_column: str):
    """The id column as Arrow text by the ids' rule (a CSV/TSV id stripped of spaces and tabs);
    an empty id is an error naming its line."""
    import polars as pl
    import pyarrow as pa
    import pyarrow.compute as pc

    if pa.types.is_floating(column.type) and column.null_count == 0:
        # float ids by id_strings' rule (10.0 is 10)
        return pa.array(id_strings(column.to_numpy(), table.source, name), pa.large_string())
    ids = pc.cast(column, pa.large_string())
    if table.unit == "line":
        ids = pc.utf8_trim(ids, " \t")
    empty = pc.fill_null(pc.equal(ids, ""), True)
    if pc.any(empty).as_py():
        raise table.error(pc.index(empty, True).as_py(),
                          f"the {id_column} is empty; every row needs one", column=name)
    if whole_float_first(ids[0].as_py()):
        ids = whole_float_ids(pl.from_arrow(ids)).to_arrow(compat_level=pl.CompatLevel.oldest())
    return ids


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


def text_dtype():
    """The dtype of a table's index and columns: pandas' ``str``, its text held by Arrow, missing
    as NaN."""
    import pandas as pd

    return pd.StringDtype("pyarrow", na_value=np.nan)


def _frame(header, columns, position, ids, id_column: str, label: str):
    import pandas as pd

    dtype = text_dtype()
    index = pd.Index(pd.array(ids, dtype=dtype), name=id_column)
    frame = pd.DataFrame({name: pd.array(column, dtype=dtype)
                          for i, (name, column) in enumerate(zip(header, columns))
                          if i != position}, index=index)
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
    unmatched = table.index[~table.index.isin(set(map(str, known)))]
    if not len(unmatched):
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
