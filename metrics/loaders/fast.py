"""A fast path for clean whitespace-separated files (TREC runs and qrels), parsed by polars.

It accepts only files it can read without doubt: one space or one tab between fields, the right
number of fields on every line, no comment or blank lines, numbers where numbers belong. Anything
else returns None and the careful line-by-line reader takes over, which explains every problem
with its line number. So the fast path changes speed, never results or messages.

polars is asked only for the columns that are kept, plus one column past the last field: polars
pads a short line and ignores the rest of a long one, so that extra column, empty on every line,
is what shows that no line has more fields than it should. Parsing the unused columns would cost a
third of the time. What polars does not see is checked on the bytes, in one pass over cache-sized
chunks (see :func:`_layout_counts`): no two delimiters or line ends side by side (no empty field,
no blank line), exactly (fields − 1) delimiters per line on average, no whitespace or control
byte but the delimiter and the line end. As no line has more than its share of delimiters, none
has fewer either: every line has exactly the expected number of fields, none of them empty.
(pyarrow's reader is strict, but after a parse error its worker threads can outlive the
interpreter and abort the process at exit.)
"""

from __future__ import annotations

import re

import numpy as np

from metrics.parallel import over_parts, repeat_in_parts
from metrics.loaders.text import GZIP_MAGIC

SAMPLE = 1 << 16   # bytes looked at for the delimiter
_CHUNK = 1 << 20
# what Python's str.split() and str.splitlines() also treat as whitespace or a line end: left to
# the careful reader (which keeps them inside their field, as polars would), to be safe
_UNICODE_SPACE = re.compile("[\x85\xa0\u1680\u2000-\u200a\u2028\u2029\u202f\u205f\u3000]")


def plain_delimiter(data: bytes) -> bytes | None:
    """b" " or b"\\t" (whichever the first lines use), or None for files the fast path must not
    read: gzip, a byte-order mark, a first line that is blank, indented or a comment, text that is
    not UTF-8, and whitespace the careful reader would split on that is not ASCII."""
    if data[:2] == GZIP_MAGIC or data[:3] == b"\xef\xbb\xbf" or data[:1] in (b"#", b" ", b"\t",
                                                                             b"\n", b"\r"):
        return None
    if data[-1:] in (b" ", b"\t"):
        return None  # an empty last field
    if not data.isascii():
        try:
            if _UNICODE_SPACE.search(data.decode("utf-8")):
                return None
        except UnicodeDecodeError:
            return None
    return delimiter_of(data)


def delimiter_of(data: bytes) -> bytes:
    """The delimiter of a clean file: a tab if its first lines hold one, else a space."""
    return b"\t" if b"\t" in data[:SAMPLE] else b" "


def _layout_counts(data: bytes, delimiter: bytes) -> tuple[int, int] | None:
    """(delimiters, line ends) in ``data``, or None when an empty field, a blank line or a stray
    control or whitespace byte (anything below 0x20 but the delimiter and \\n) is found."""
    view = np.frombuffer(data, dtype=np.uint8)
    parts = over_parts(lambda start, stop: _count_part(view, start, stop, delimiter[0]), len(view))
    if any(part is None for part in parts):
        return None
    delimiters, line_ends, controls = (sum(column) for column in zip(*parts))
    expected = line_ends + (delimiters if delimiter == b"\t" else 0)
    return (delimiters, line_ends) if controls == expected else None


def _count_part(view: np.ndarray, start: int, stop: int, code: int):
    """(delimiters, line ends, bytes below 0x20) of ``view[start:stop]``, or None at a separator
    next to another separator (the pair may reach one byte past ``stop``) or at a space in a
    tab-separated file. Works in cache-sized chunks."""
    separators = np.empty(_CHUNK + 1, dtype=bool)
    scratch = np.empty(_CHUNK + 1, dtype=bool)
    delimiters = line_ends = controls = 0
    for first in range(start, stop, _CHUNK):
        own = min(_CHUNK, stop - first)
        chunk = view[first:first + own + 1]  # one byte more, to see the pair across the edge
        size = len(chunk)
        sep, tmp = separators[:size], scratch[:size]
        np.equal(chunk, code, out=sep)
        delimiters += int(np.count_nonzero(sep[:own]))
        np.equal(chunk, 10, out=tmp)
        line_ends += int(np.count_nonzero(tmp[:own]))
        np.logical_or(sep, tmp, out=sep)
        np.logical_and(sep[1:], sep[:-1], out=tmp[:-1])
        if tmp[:size - 1].any():
            return None
        np.less(chunk[:own], 32, out=tmp[:own])
        controls += int(np.count_nonzero(tmp[:own]))
        if code == 9 and (chunk[:own] == 32).any():
            return None
    return delimiters, line_ends, controls


def read_columns(data: bytes, names: tuple[str | None, ...], numeric: dict[str, str]):
    """Columns of a headerless table, or None when the careful reader must handle the file.

    ``names`` gives each field a name (None: not kept); ``numeric`` maps a name to "float64" or
    "int64". Text columns come back as polars string Series, numbers as NumPy arrays.

    A panic inside polars (a Rust panic, seen under memory pressure, arrives as a BaseException
    that ``except Exception`` misses) is a failure of the fast path, not of the file: the careful
    reader takes over and either reads the file or names its first bad line."""
    import polars as pl

    try:
        return _read_columns(pl, data, names, numeric)
    except pl.exceptions.PanicException:
        return None


def _read_columns(pl, data: bytes, names: tuple[str | None, ...], numeric: dict[str, str]):
    if not data or data.isspace():
        return None
    delimiter = plain_delimiter(data)
    counts = None if delimiter is None else _layout_counts(data, delimiter)
    if counts is None:
        return None
    delimiters, line_ends = counts
    width = len(names)
    if delimiters != (width - 1) * (line_ends + (data[-1:] != b"\n")):
        return None   # some line has the wrong number of fields: not worth parsing
    types = {"float64": pl.Float64, "int64": pl.Int64}
    schema = {f"c{i}": types[numeric[n]] if n in numeric else pl.String
              for i, n in enumerate(names)}
    beyond = f"c{width}"   # a field past the last: empty unless a line is too long
    schema[beyond] = pl.String
    read = [i for i, n in enumerate(names) if n] + [width]
    try:
        table = pl.read_csv(data, has_header=False, separator=delimiter.decode(), quote_char=None,
                            schema=schema, columns=read, missing_columns="insert",
                            empty_string_is_null=False, raise_if_empty=True)
    except (pl.exceptions.PolarsError, ValueError):
        return None
    lines = len(table)
    if line_ends not in (lines, lines - 1) or delimiters != (width - 1) * lines:
        return None
    # no line has a field past the last, so none has more than width − 1 delimiters; with the
    # total exact, none has fewer: every line has exactly ``width`` fields, none empty
    checks = [pl.col("c0").str.starts_with("#").any(), (pl.col(beyond).str.len_bytes() > 0).any()]
    for i in read[:-1]:
        column = pl.col(f"c{i}")
        if schema[f"c{i}"] in (pl.Float64, pl.Int64):
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
    import polars as pl

    try:
        runs = column.rle().struct.unnest()
        values = runs.get_column("value").to_numpy().astype(object)
        if len(set(values)) == len(values):  # every value forms exactly one run
            return (repeat_in_parts(np.arange(len(values)), runs.get_column("len").to_numpy()),
                    values)
    except pl.exceptions.PanicException:   # see read_columns; pandas does it without polars
        pass
    import pandas as pd

    codes, uniques = pd.factorize(column.to_numpy().astype(object), sort=False)
    return codes.astype(np.int64), np.asarray(uniques, dtype=object)


def single_last_field(data: bytes, lines: int | None = None) -> str | None:
    """The last field of every line when all lines share it (a TREC run's tag), else None; for
    a file that :func:`read_columns` has read (``lines`` of them, when known). Counted on the
    bytes, with no column parsed: every line has one delimiter between fields and ends in \\n (the
    last may lack it), so a line's last field is ``field`` exactly when the line ends in
    delimiter + field."""
    delimiter = plain_delimiter(data)
    if delimiter is None:
        return None
    first = data[: data.find(b"\n")] if b"\n" in data else data
    field = first.rsplit(delimiter, 1)[-1]
    open_end = not data.endswith(b"\n")
    if lines is None:
        lines = data.count(b"\n") + open_end
    same = data.count(delimiter + field + b"\n") + (open_end and data.endswith(delimiter + field))
    return field.decode() if same == lines else None


def trec_header(data: bytes) -> bool:
    """Whether the first line looks like a header (names a column), which a TREC file has not."""
    first = data[: data.find(b"\n")] if b"\n" in data else data
    return any(name.encode() in first.lower() for name in ("query_id", "qid", "item_id", "docno"))
