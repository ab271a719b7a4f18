"""The longest line a run may have (:data:`MAX_LINE`), and the check of it.

A TREC run's line is six short fields (``query Q0 item rank score tag``), a CSV run's a few
cells: a line of more than a mebibyte is not a run's, and a reader looking for its end would
read on, holding what it has read, to the end of the file (a 2 GB file without a line end took
all the memory there was). So a longer line is refused, by the stream at the first block that
holds it (:mod:`metrics.loaders.run_blocks`) and by the whole-file reader
(:func:`metrics.loaders.load_run`), with the line's number.
"""

from __future__ import annotations

from metrics.errors import InputError

MAX_LINE = 1 << 20   # bytes a run's line may hold, its line end not counted (1 MiB)
_STEP = MAX_LINE // 2   # a longer line holds a whole stretch of this many bytes without a line end


def over_long_line(data, start: int = 0, end: int | None = None) -> int:
    """Where the first line of ``data[start:end]`` (bytes, a bytearray or its view, ``start`` at
    a line's start) longer than :data:`MAX_LINE` begins, or -1. The last line counts whole only
    when ``end`` is where the data ends; it may go on beyond. One ``find`` per half a
    mebibyte: a line longer than a mebibyte holds a whole aligned half without a line end, and
    only lines that do are measured."""
    end = len(data) if end is None else end
    for at in range(start, end, _STEP):
        if data.find(b"\n", at, min(at + _STEP, end)) >= 0:
            continue
        begins = data.rfind(b"\n", start, at) + 1 or start
        ends = data.find(b"\n", at, end)
        if (end if ends < 0 else ends) - begins > MAX_LINE:
            return begins
    return -1


def over_long_line_error(label: str, line: int) -> InputError:
    return InputError(f"the line is longer than {MAX_LINE:,} bytes (1 MiB), which no run's line "
                      f"is (six short fields: query Q0 item rank score tag); is this a run file?",
                      source=label, line=line)


def refuse_over_long_line(data, label: str) -> None:
    """An :class:`InputError` naming the first line of a whole file's text that is longer than
    :data:`MAX_LINE`, if one is."""
    begins = over_long_line(data)
    if begins >= 0:
        raise over_long_line_error(label, data.count(b"\n", 0, begins) + 1)
