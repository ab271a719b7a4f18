"""How a value is written into a table cell that people read or open: one rounding for every
number shown, and text that a spreadsheet opens as text.

* **Numbers** are shown to four decimals (a whole number, such as a count, as an integer) as trec_eval prints them: C's ``printf("%.4f")``,
  rounded from the exact binary value with ties to even (Bpref = 0.65625, exactly representable,
  prints as 0.6562). Python's ``format`` rounds the same way. A browser's ``toFixed`` (and so
  a table drawn in the browser with a "%.4f" format) rounds such a tie up, to 0.6563:
  :func:`as_printed` hands it the value that the four decimals denote instead.
* **p-values** to four significant digits, and never as "0": "< 1e-16" (:func:`p_printed`).
* **Text** that starts with ``=``, ``+``, ``-``, ``@``, a tab or a carriage return is a formula
  to a spreadsheet (``=HYPERLINK(…)`` runs when the CSV is opened). OWASP's advice for CSV files
  ("CSV Injection"): prefix such a cell with a single quote, which the spreadsheet shows as text.
  Numbers, negative ones included, stay numbers.
"""

from __future__ import annotations

import json
import re

import numpy as np

DECIMALS = 4   # trec_eval's "%.4f"
# The largest whole number up to which a double holds every whole number exactly, 2^53 − 1
# (JavaScript's Number.MAX_SAFE_INTEGER): a browser's numbers, and counts in float arithmetic
LARGEST_EXACT_INTEGER = 2**53 - 1

FORMULA_STARTS = ("=", "+", "-", "@", "\t", "\r")
_NUMBER = re.compile(r"[+-]?(\d+(\.\d*)?|\.\d+)([eE][+-]?\d+)?")
# in a JSON string: a comma (a spreadsheet would start a new cell there) and, first in the
# string, a character that starts a formula
_JSON_STRING = re.compile(r'"(?:[^"\\]|\\.)*"')
_UNSAFE_IN_STRING = re.compile(r'(?<=^")[=+\-@]|,')


def fixed(value: float, digits: int = DECIMALS) -> str:
    """``value`` as ``printf("%.<digits>f")`` writes it (trec_eval: four decimals)."""
    return f"{float(value):.{digits}f}"


# Below this a p-value prints as "< 1e-16", never as "0": a p computed as 1 − F(x) in doubles is
# lost under the spacing of doubles near 1 (2.2e-16), one computed as a tail underflows to 0,
# and no test on finitely many queries makes a difference certain
SMALLEST_P = 1e-16


def p_printed(p: float, digits: int = DECIMALS) -> str:
    """A p-value as every table prints it: ``digits`` significant digits, "< 1e-16" below
    :data:`SMALLEST_P` (0 included)."""
    return f"< {SMALLEST_P:g}" if p < SMALLEST_P else f"{p:.{digits}g}"


def p_stated(p: float, digits: int = DECIMALS) -> str:
    """"p = 0.034", or "p < 1e-16" (:func:`p_printed`)."""
    text = p_printed(p, digits)
    return f"p {text}" if text.startswith("<") else f"p = {text}"


def counted(n: int, singular: str, plural: str) -> str:
    """``n`` and the noun it agrees with: "1 query", "3 queries"."""
    return f"{n:,} {singular if n == 1 else plural}"


def printed(value: float) -> str:
    """A defined number as every table prints it: a whole number as an integer (a count: 8, not
    8.0000; below 10^15, where a double still holds each whole number and its ones digit means
    something), any other as :func:`fixed`."""
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else fixed(value)


def as_printed(values, digits: int = DECIMALS) -> np.ndarray:
    """Each value replaced by the double nearest the decimal that :func:`fixed` prints for it
    (NaN kept): a browser that rounds it to ``digits`` decimals again shows the same digits,
    whatever its own rule for ties."""
    values = np.asarray(values, dtype=float)
    return np.array([float(fixed(v, digits)) if v == v and abs(v) != np.inf else v
                     for v in values.ravel()], dtype=float).reshape(values.shape)


def spreadsheet_text(cell):
    """A text cell a spreadsheet will not run: prefixed with ``'`` when it starts with a formula
    character and is not a plain number. Anything but a ``str`` is returned as it is."""
    if isinstance(cell, str) and cell.startswith(FORMULA_STARTS) and not _NUMBER.fullmatch(cell):
        return "'" + cell
    return cell


def spreadsheet_json(value) -> str:
    """Compact JSON (as ``json.dumps``) for a CSV comment line, in which no cell a spreadsheet
    splits off at a comma can start a formula: inside strings, commas and a leading ``=``,
    ``+``, ``-`` or ``@`` are written as ``\\uXXXX`` escapes. ``json.loads`` reads it back
    unchanged."""
    text = json.dumps(value, ensure_ascii=False, separators=(",", ":"))

    def escaped(string: re.Match) -> str:
        return _UNSAFE_IN_STRING.sub(lambda c: f"\\u{ord(c.group()):04x}", string.group())

    return _JSON_STRING.sub(escaped, text)
