"""A fast path for clean whitespace-separated files (TREC runs and qrels), read by pyarrow.

It accepts only files it can read without doubt: one space or one tab between fields, the right
number of fields on every line, no comment or blank lines, numbers where numbers belong. Anything
else returns None and the careful line-by-line reader takes over, which explains every problem
with its line number. So the fast path changes speed, never results or messages.
"""

from __future__ import annotations

import io

import numpy as np

from .text import GZIP_MAGIC

_SAMPLE = 1 << 16


def _plain_delimiter(data: bytes) -> bytes | None:
    """b' ' or b'\\t' (whichever the first lines use), or None for files the fast path must not
    read. Doubled, leading or trailing delimiters and the other delimiter all make pyarrow see
    the wrong number of fields, which sends the file to the careful reader; only comment lines
    could pass as data, so they are looked for here."""
    if data[:2] == GZIP_MAGIC or data[:1] in (b"#", b" ", b"\t") or b"\n#" in data:
        return None
    return b"\t" if b"\t" in data[:_SAMPLE] else b" "


def read_columns(data: bytes, names: tuple[str | None, ...], numeric: dict[str, str]):
    """Columns of a headerless table, or None when the careful reader must handle the file.

    ``names`` gives each field a name (None: read and dropped); ``numeric`` maps a name to
    "float64" or "int64". Text columns come back dictionary-encoded: (codes, unique values in
    first-appearance order)."""
    try:
        import pyarrow as pa
        import pyarrow.csv as pcsv
    except ImportError:  # pragma: no cover - pyarrow is a dependency
        return None
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    delimiter = _plain_delimiter(data)
    if delimiter is None or not data.strip():
        return None
    fields = [f"f{i}" for i in range(len(names))]
    wanted = {f: n for f, n in zip(fields, names) if n}
    types = {f: (pa.float64() if numeric.get(n) == "float64" else
                 pa.int64() if numeric.get(n) == "int64" else pa.string())
             for f, n in wanted.items()}
    try:
        table = pcsv.read_csv(
            io.BytesIO(data),
            read_options=pcsv.ReadOptions(column_names=fields, block_size=1 << 24),
            parse_options=pcsv.ParseOptions(delimiter=delimiter.decode(), quote_char=False,
                                            double_quote=False, newlines_in_values=False),
            convert_options=pcsv.ConvertOptions(column_types=types, include_columns=list(wanted),
                                                strings_can_be_null=False,
                                                quoted_strings_can_be_null=False,
                                                null_values=[]))
    except (pa.ArrowInvalid, pa.ArrowNotImplementedError, UnicodeDecodeError):
        return None
    out = {}
    for field, name in wanted.items():
        column = table.column(field)
        if name in numeric:
            values = column.to_numpy()
            if name == "score" and not np.all(np.isfinite(values)):
                return None
            out[name] = values
        else:
            out[name] = _encode(column.combine_chunks())
    return out


def _int32_view(array) -> np.ndarray:
    """The values of a pyarrow int32 array without nulls, as a numpy view (no conversion)."""
    return np.frombuffer(array.buffers()[1], dtype=np.int32, count=len(array),
                         offset=array.offset * 4)


def _encode(column) -> tuple[np.ndarray, np.ndarray]:
    """(codes, unique values in first-appearance order) of a pyarrow string array.

    A column whose equal values stand together — the query column of a TREC file — is encoded
    from its runs, without hashing every line."""
    import pyarrow.compute as pc

    n = len(column)
    if n > 1:
        changes = pc.not_equal(column.slice(1), column.slice(0, n - 1)).to_numpy(
            zero_copy_only=False)
        starts = np.flatnonzero(np.r_[True, changes])
        if len(starts) * 2 < n:
            values = column.take(starts).to_numpy(zero_copy_only=False)
            if len(set(values)) == len(values):  # every value forms exactly one run
                codes = np.repeat(np.arange(len(starts)), np.diff(np.r_[starts, n]))
                return codes, values.astype(object)
    encoded = column.dictionary_encode()
    return (_int32_view(encoded.indices).astype(np.int64),
            encoded.dictionary.to_numpy(zero_copy_only=False).astype(object))
