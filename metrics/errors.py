"""The one exception type that bad input ends in.

Every loader and parser raises :class:`InputError` for anything a user can get wrong, so the command
line can print it as a single line and the app can show it with ``st.error`` — never a traceback.
"""

from __future__ import annotations


class InputError(ValueError):
    """Bad input: says which file, where in it (line, or row and column), and what to fix."""

    def __init__(self, message: str, *, source: str | None = None, line: int | None = None,
                 row: int | None = None, column: str | None = None):
        self.message = message
        self.source = source
        self.line = line
        self.row = row
        self.column = column
        super().__init__(self.__str__())

    def __str__(self) -> str:
        where = []
        if self.source:
            where.append(str(self.source))
        if self.line is not None:
            where.append(f"line {self.line}")
        if self.row is not None:
            where.append(f"row {self.row}")
        if self.column is not None:
            where.append(f"column '{self.column}'")
        text = " ".join(self.message.split())  # always one line
        return f"{', '.join(where)}: {text}" if where else text


class MeasureError(InputError):
    """An unknown measure name, a bad parameter or a cutoff the measure does not take."""


class UnknownMeasure(MeasureError):
    """A measure name the registry does not have: the command line and the app each add where
    they list every name (a command, a picker)."""


class CollectionSizeNeeded(MeasureError):
    """A measure or curve needs |D| and the data does not give it: the command line and the app
    each add how to give it there."""


class StoreError(InputError):
    """A judgment that the judgments' database could not store (or a database that could not be
    opened or read): which database, and why, in one line. Nothing was acknowledged."""
