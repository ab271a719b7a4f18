"""Numbered rows of fields from checked text (:func:`metrics.loaders.text.read_bytes`), a block at a
time, so that a reader can stop at the first bad row before the rest is split.

Only ``\\n`` and ``\\r\\n`` end a line: a form feed, U+0085 or U+2028 (which ``str.splitlines``
would take as line ends) are characters of their field. A carriage return that is not followed by
``\\n`` is refused with its line, outside a quoted CSV field. Fields are separated by tabs or runs
of spaces (TREC files) or by the delimiter (CSV/TSV, with quoting: a quoted field may hold the
delimiter, quotes and line ends, as the CSV standard allows, and each row is numbered by the line
it starts on). A UTF-8 byte-order mark is dropped; blank lines and lines starting with ``#``
(trec_eval 10 and ir_metadata headers) are skipped; cells are stripped of spaces and tabs
(unless the reader keeps them as written: ``strip=False``).
"""

from __future__ import annotations

import csv
import re
from dataclasses import dataclass
from typing import Iterator

import numpy as np

from metrics.errors import InputError
from metrics.loaders.text import BLOCK, UTF8_BOM, not_utf8

# at most this many lines per block, whatever their length: the memory a block's rows take
LINES_PER_BLOCK = 1 << 16
CSV_ROWS_PER_BLOCK = 1 << 14
# whitespace that str.split() and str.strip() take but this reader does not: line ends and
# Unicode spaces (re's \s is str.isspace()); without any, the faster str methods are safe
_OTHER_SPACE = re.compile(r"[^\S \t\n]")
_FIELD_GAP = re.compile(r"[ \t]+")
_LONE_CR = re.compile(r"\r(?!\n|\Z)")
_CR = ("a carriage return (\\r) not followed by \\n: only \\n and \\r\\n end a line; save the "
       "file with Unix (\\n) or Windows (\\r\\n) line ends")


@dataclass(frozen=True)
class RowBlock:
    """Consecutive content rows (neither blank nor comments): the line each starts on, its number
    of fields, and all the fields in one flat list (strings only: a list per row, kept, would make
    Python's cyclic garbage collector walk millions of them, costing more than the splitting)."""

    lines: list[int]
    widths: list[int]
    cells: list[str]

    def rows(self) -> list[list[str]]:
        out, start = [], 0
        for width in self.widths:
            out.append(self.cells[start:start + width])
            start += width
        return out


def row_blocks(data: bytes, label: str, delimiter: str | None,
               strip: bool = True) -> Iterator[RowBlock]:
    """The rows of text, a block at a time. ``delimiter=None`` splits on tabs and runs of spaces
    (TREC files); ``","`` or ``"\\t"`` read CSV/TSV with quoting, each cell stripped of spaces and
    tabs unless ``strip`` is False (a metadata table's cells are kept as written)."""
    if delimiter is not None and b'"' in data:
        yield from _csv_blocks(data, label, delimiter, strip)
        return
    for first, text in _text_blocks(data, label):
        block = _split_block(first, text, label, delimiter, strip)
        if block.lines:
            yield block


def first_content_line(data: bytes, label: str) -> str:
    """The first line that is neither blank nor a comment ("" if there is none)."""
    for _, text in _text_blocks(data, label):
        for line in text.split("\n"):
            stripped = line.strip(" \t\r")
            if stripped and not stripped.startswith("#"):
                return line.removesuffix("\r")
    return ""


def split_fields(line: str, delimiter: str | None) -> list[str]:
    """One line's fields, without quoting (to recognise a header)."""
    return line.split(delimiter) if delimiter else _FIELD_GAP.split(line.strip(" \t"))


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


def _text_blocks(data: bytes, label: str) -> Iterator[tuple[int, str]]:
    """(number of the first line, decoded text) of blocks of whole lines: about BLOCK bytes, at most
    LINES_PER_BLOCK lines."""
    start = len(UTF8_BOM) if data.startswith(UTF8_BOM) else 0
    line = 1
    while start < len(data):
        cut = data.find(b"\n", start + BLOCK)
        stop = len(data) if cut < 0 else cut + 1
        if data.count(b"\n", start, stop) > LINES_PER_BLOCK:   # short lines: fewer of them
            ends = np.flatnonzero(np.frombuffer(data, np.uint8, stop - start, start) == 10)
            stop = start + int(ends[LINES_PER_BLOCK - 1]) + 1
        chunk = data[start:stop]
        try:
            text = chunk.decode("utf-8")
        except UnicodeDecodeError as exc:   # only if the bytes were not read by read_bytes
            raise not_utf8(chunk[exc.start], label,
                           line + chunk.count(b"\n", 0, exc.start)) from None
        yield line, text
        line += chunk.count(b"\n")
        start = stop


def _split_block(first: int, text: str, label: str, delimiter: str | None,
                 strip: bool = True) -> RowBlock:
    plain = not _OTHER_SPACE.search(text)   # no \r, no Unicode space: str methods are safe
    if not plain:
        lone = _LONE_CR.search(text)
        if lone:
            raise InputError(_CR, source=label, line=first + text.count("\n", 0, lone.start()))
        text = text.replace("\r\n", "\n").removesuffix("\r")
    parts = text.split("\n")
    if parts[-1] == "":
        parts.pop()
    if delimiter is None and plain:
        # a line is a comment if its first field starts with "#"
        kept = [(n, part) for n, part in enumerate(parts, first)
                if (fields := part.split(None, 1)) and not fields[0].startswith("#")]
        widths = [len(part.split()) for _, part in kept]
        cells = "\n".join(part for _, part in kept).split()
    elif "#" not in text and " " not in text and "\t" not in text and delimiter is not None:
        # nothing to strip and no comment: only empty lines to skip
        kept = [(n, part) for n, part in enumerate(parts, first) if part]
        widths = [part.count(delimiter) + 1 for _, part in kept]
        cells = delimiter.join(part for _, part in kept).split(delimiter)
    else:
        kept = [(n, part) for n, part in enumerate(parts, first)
                if (stripped := part.strip(" \t")) and not stripped.startswith("#")]
        widths, cells = [], []
        for _, part in kept:
            row = (_FIELD_GAP.split(part.strip(" \t")) if delimiter is None else
                   [cell.strip(" \t") for cell in part.split(delimiter)] if strip else
                   part.split(delimiter))
            widths.append(len(row))
            cells.extend(row)
    return RowBlock([n for n, _ in kept], widths, cells)


class _Records:
    """Feeds csv.reader the lines of the text with their line ends. Between records it skips blank
    and comment lines and notes the line a record starts on; a line asked for within a record
    continues a quoted field (kept whole, even if it is blank or starts with ``#``)."""

    def __init__(self, data: bytes, label: str):
        self.lines = self._lines(data, label)
        self.start: int | None = None   # the current record's first line, None between records
        self.unclosed = False           # the text ended inside a quoted field

    @staticmethod
    def _lines(data: bytes, label: str) -> Iterator[tuple[int, str]]:
        for first, text in _text_blocks(data, label):
            parts = text.split("\n")
            for number, part in enumerate(parts[:-1], first):
                yield number, part + "\n"
            if parts[-1]:
                yield first + len(parts) - 1, parts[-1]

    def __iter__(self):
        return self

    def __next__(self) -> str:
        for number, line in self.lines:
            if self.start is None:
                stripped = line.strip(" \t\r\n")
                if not stripped or stripped.startswith("#"):
                    continue
                self.start = number
            return line
        if self.start is not None:
            self.unclosed = True
        raise StopIteration


def _csv_blocks(data: bytes, label: str, delimiter: str,
                strip: bool = True) -> Iterator[RowBlock]:
    records = _Records(data, label)
    reader = csv.reader(records, delimiter=delimiter)
    lines: list[int] = []
    widths: list[int] = []
    cells: list[str] = []
    while True:
        records.start = None
        try:
            row = next(reader)
        except StopIteration:
            break
        except csv.Error as exc:
            raise InputError(_csv_problem(str(exc)), source=label, line=records.start) from None
        if records.unclosed:
            raise InputError("a quoted field starts on this line and its closing quote is "
                             "missing", source=label, line=records.start)
        lines.append(records.start)
        widths.append(len(row))
        cells.extend((cell.strip(" \t") for cell in row) if strip else row)
        if len(lines) == CSV_ROWS_PER_BLOCK:
            yield RowBlock(lines, widths, cells)
            lines, widths, cells = [], [], []
    if lines:
        yield RowBlock(lines, widths, cells)


def _csv_problem(message: str) -> str:
    if "new-line" in message:
        return _CR
    if "field larger than field limit" in message:
        return (f"a field is longer than {csv.field_size_limit()} characters: is a quote left "
                f"open?")
    return f"cannot be read as CSV ({message})"
