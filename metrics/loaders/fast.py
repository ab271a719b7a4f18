"""A fast path for clean whitespace-separated files (TREC runs and qrels), parsed by polars.

It accepts only files it can read without doubt: one space or one tab between fields, the right
number of fields on every line, no comment or blank lines, numbers where numbers belong. Anything
else returns None and the careful line-by-line reader takes over, which explains every problem
with its line number. So the fast path changes speed, never results or messages.

polars' reader is lenient where the careful reader is strict (a line with an extra field still
parses), so strictness is checked separately: every line must have all of its fields, non-empty,
and the file must hold exactly (fields − 1) delimiters per line — together, exactly the expected
number of fields on every line. (pyarrow's reader is strict, but after a parse error its worker
threads can outlive the interpreter and abort the process at exit.)
"""

from __future__ import annotations

import numpy as np

from .text import GZIP_MAGIC

_SAMPLE = 1 << 16


def _plain_delimiter(data: bytes) -> str | None:
    """" " or "\\t" (whichever the first lines use), or None for files the fast path must not
    read: gzip, a byte-order mark, carriage returns, a first line that is blank, indented or a
    comment, or whitespace other than the delimiter."""
    if data[:2] == GZIP_MAGIC or data[:3] == b"\xef\xbb\xbf" or data[:1] in (b"#", b" ", b"\t",
                                                                             b"\n", b"\r"):
        return None
    delimiter = b"\t" if b"\t" in data[:_SAMPLE] else b" "
    other = b" " if delimiter == b"\t" else b"\t"
    if other in data or b"\r" in data:  # the careful reader splits on any whitespace
        return None
    return delimiter.decode()


def read_columns(data: bytes, names: tuple[str | None, ...], numeric: dict[str, str]):
    """Columns of a headerless table, or None when the careful reader must handle the file.

    ``names`` gives each field a name (None: not kept); ``numeric`` maps a name to "float64" or
    "int64". Text columns come back as polars string Series, numbers as NumPy arrays."""
    import polars as pl

    delimiter = _plain_delimiter(data)
    if delimiter is None or not data or data.isspace():
        return None
    width = len(names)
    types = {"float64": pl.Float64, "int64": pl.Int64}
    schema = {f"c{i}": types[numeric[n]] if n in numeric else pl.String
              for i, n in enumerate(names)}
    kept = range(width)  # all of them: an empty field anywhere means a doubled delimiter
    try:
        table = pl.read_csv(data, has_header=False, separator=delimiter, quote_char=None,
                            schema=schema, missing_columns="insert",
                            empty_string_is_null=False, raise_if_empty=True)
    except (pl.exceptions.PolarsError, ValueError):
        return None
    lines = len(table)
    if data.count(delimiter.encode()) != (width - 1) * lines:
        return None
    checks = [pl.col("c0").str.starts_with("#").any()]  # a comment line
    for i in kept:
        column = pl.col(f"c{i}")
        if schema[f"c{i}"] == pl.String:
            checks.append((column.is_null() | (column.str.len_bytes() == 0)).any())
        else:
            checks.append(column.is_null().any())
            if schema[f"c{i}"] == pl.Float64:
                checks.append((~column.is_finite()).any())
    if any(table.select([c.alias(f"check{i}") for i, c in enumerate(checks)]).row(0)):
        return None
    out = {}
    for i, name in enumerate(names):
        if name:
            column = table.get_column(f"c{i}")
            out[name] = column.to_numpy() if name in numeric else column
    return out


def encode_grouped(column) -> tuple[np.ndarray, np.ndarray]:
    """(codes, unique values in first-appearance order) of a polars string Series.

    A column whose equal values stand together — the query column of a TREC file — is encoded
    from its runs of equal values, without hashing every line into a table."""
    import pandas as pd

    runs = column.rle().struct.unnest()
    values = runs.get_column("value").to_numpy().astype(object)
    if len(set(values)) == len(values):  # every value forms exactly one run
        return np.repeat(np.arange(len(values)), runs.get_column("len").to_numpy()), values
    codes, uniques = pd.factorize(column.to_numpy().astype(object), sort=False)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)
