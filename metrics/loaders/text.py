"""Turning a file (path or uploaded bytes) into numbered rows of fields.

Text is read leniently where the meaning is unambiguous: gzip is recognised by its magic bytes
whatever the file is called, a UTF-8 byte-order mark is dropped, CRLF line ends are accepted, blank
lines and lines starting with ``#`` (trec_eval 10 and ir_metadata headers) are skipped. Anything
else that is wrong is an :class:`~metrics.errors.InputError` naming the file and the line.
"""

from __future__ import annotations

import csv
import gzip
import os
import re
import zlib
from dataclasses import dataclass
from pathlib import Path
from typing import Union

from metrics.errors import InputError

Source = Union[str, os.PathLike, bytes]

GZIP_MAGIC = b"\x1f\x8b"
PARQUET_MAGIC = b"PAR1"
NUMPY_MAGIC = b"\x93NUMPY"


def source_name(source: Source, name: str | None = None) -> str:
    if name:
        return name
    if isinstance(source, (bytes, bytearray)):
        return "<upload>"
    return os.fspath(source)


def read_bytes(source: Source, name: str | None = None) -> bytes:
    """The raw bytes of a path or of uploaded content, gunzipped when they are gzip."""
    label = source_name(source, name)
    if isinstance(source, (bytes, bytearray)):
        data = bytes(source)
    else:
        path = Path(source)
        if not path.exists():
            raise InputError("file not found", source=label)
        if path.is_dir():
            raise InputError("is a directory, not a file", source=label)
        data = path.read_bytes()
    if data[:2] == GZIP_MAGIC:
        try:
            data = gzip.decompress(data)
        except (OSError, EOFError, zlib.error) as exc:
            raise InputError(f"looks gzipped but cannot be decompressed ({exc})", source=label) from None
    return data


def decode_text(data: bytes, label: str) -> str:
    if data.startswith(b"\xef\xbb\xbf"):
        data = data[3:]
    try:
        return data.decode("utf-8")
    except UnicodeDecodeError as exc:
        line = data.count(b"\n", 0, exc.start) + 1
        raise InputError(
            f"byte 0x{data[exc.start]:02x} is not valid UTF-8; save the file as UTF-8 text",
            source=label, line=line) from None


@dataclass(frozen=True)
class Rows:
    """Non-blank, non-comment rows of a text file, split into fields, with their line numbers."""

    source: str
    lines: list[int]
    fields: list[list[str]]

    def __len__(self) -> int:
        return len(self.fields)


def _content_lines(text: str):
    for number, line in enumerate(text.splitlines(), start=1):
        stripped = line.strip()
        if stripped and not stripped.startswith("#"):
            yield number, line


def load_text(source: Source, name: str | None = None, what: str = "file") -> str:
    """The decoded text of a text file; rejects binary content with a message saying so."""
    label = source_name(source, name)
    data = read_bytes(source, label)
    if data[:4] == PARQUET_MAGIC or data[:6] == NUMPY_MAGIC or data[:1] == b"\x80":
        raise InputError(f"is a binary file, but a text {what} was expected", source=label)
    text = decode_text(data, label)
    if "\x00" in text:
        line = text.count("\n", 0, text.index("\x00")) + 1
        raise InputError("contains a NUL byte: this is not a text file", source=label, line=line)
    return text


# a character that str.strip() removes (re's \s is the same Unicode whitespace), other than the
# line ends that splitlines() already took off
_SPACE = re.compile(r"[^\S\r\n]")


def split_rows(text: str, label: str, delimiter: str | None, what: str = "file") -> Rows:
    """Split text into rows. ``delimiter=None`` splits on runs of whitespace (TREC files);
    ``","`` or ``"\\t"`` read CSV/TSV with quoting. Raises on empty or comment-only text."""
    if delimiter is not None and '"' not in text and "#" not in text:
        # no quote: csv.reader would only split at the delimiter; no comment, and with no
        # whitespace at all no line is blank and no cell needs stripping
        plain = text.splitlines()
        if plain and all(plain) and not _SPACE.search(text):
            return Rows(label, list(range(1, len(plain) + 1)),
                        [line.split(delimiter) for line in plain])
    numbered = list(_content_lines(text))
    if not numbered:
        raise InputError(f"is empty: expected a {what}", source=label)
    lines = [n for n, _ in numbered]
    if delimiter is None:
        fields = [line.split() for _, line in numbered]
    elif '"' not in text:
        fields = [[cell.strip() for cell in line.split(delimiter)] for _, line in numbered]
    else:
        fields = [[cell.strip() for cell in row]
                  for row in csv.reader((line for _, line in numbered), delimiter=delimiter)]
    return Rows(label, lines, fields)


def first_content_line(text: str) -> str:
    for _, line in _content_lines(text):
        return line
    return ""


def table_delimiter(first_line: str, filename: str) -> str | None:
    """The delimiter of a table with a header: by extension (.csv, .tsv), else by what the header
    holds. ``None`` means whitespace-separated (TREC files, which have no header)."""
    lower = filename.lower().removesuffix(".gz")
    if lower.endswith(".tsv"):
        return "\t"
    if lower.endswith(".csv"):
        return ","
    if "," in first_line:
        return ","
    if "\t" in first_line:
        return "\t"
    return None
