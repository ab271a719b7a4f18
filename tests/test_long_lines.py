"""A run's line is at most 1 MiB (issue 42, item 11): a longer one is refused with its number by
the stream (plain and gzip, whatever the block size) and by the whole-file reader, before either
holds more than a few blocks; lines of exactly 1 MiB are read. The line numbers come from a
brute-force split of the text, never from the code under test."""

import gzip
import tracemalloc

import numpy as np
import pytest

from metrics import InputError
from metrics.loaders import load_run
from metrics.loaders.line_bound import MAX_LINE, over_long_line
from metrics.loaders.run_blocks import run_blocks

LINE = b"q1 Q0 d%d %d 0.5 s\n"


def _first_too_long(text: bytes) -> int | None:
    """1-based number of the first line longer than MAX_LINE (its line end not counted)."""
    for number, line in enumerate(text.split(b"\n"), 1):
        if len(line) > MAX_LINE:
            return number
    return None


def _text(rng, long_lengths) -> bytes:
    """Short run lines with lines of the given item lengths among them, at random places."""
    lines = [LINE % (i, i) for i in range(int(rng.integers(1, 40)))]
    for length in long_lengths:
        padding = b"d" * (length - len(b"q1 Q0  1 0.5 s"))
        lines.insert(int(rng.integers(0, len(lines) + 1)), b"q1 Q0 " + padding + b" 1 0.5 s\n")
    return b"".join(lines)


@pytest.mark.parametrize("seed", range(12))
def test_over_long_line_agrees_with_splitting(seed):
    rng = np.random.default_rng(seed)
    near = [MAX_LINE - 1, MAX_LINE, MAX_LINE + 1, MAX_LINE * 3 // 2, MAX_LINE // 2 + 7]
    text = _text(rng, rng.choice(near, int(rng.integers(0, 4))))
    if rng.random() < 0.3:
        text = text.rstrip(b"\n")   # the last line without its line end
    expected = _first_too_long(text)
    begins = over_long_line(text)
    assert (begins < 0) == (expected is None)
    if expected is not None:
        assert text.count(b"\n", 0, begins) + 1 == expected


def _stream(path, block):
    return sum(len(b) for b in run_blocks(path, path.name, block))


@pytest.mark.parametrize("block", [1, 1 << 16, 3 << 20])
@pytest.mark.parametrize("zipped", [False, True])
def test_stream_and_whole_file_name_the_same_line(tmp_path, block, zipped):
    rng = np.random.default_rng(block + zipped)
    for case in range(4):
        lengths = [[MAX_LINE], [MAX_LINE + 1], [MAX_LINE, 2 * MAX_LINE + 5],
                   [MAX_LINE * 5 // 4]][case]
        text = _text(rng, lengths)
        path = tmp_path / f"run{case}.trec{'.gz' if zipped else ''}"
        path.write_bytes(gzip.compress(text, 1) if zipped else text)
        expected = _first_too_long(text)
        if expected is None:   # a line of exactly 1 MiB is a run's line
            assert _stream(path, block) == text.count(b"\n") == len(load_run(path))
            continue
        with pytest.raises(InputError, match="longer than 1,048,576 bytes") as streamed:
            _stream(path, block)
        with pytest.raises(InputError, match="longer than 1,048,576 bytes") as whole:
            load_run(path)
        with pytest.raises(InputError, match="longer than 1,048,576 bytes") as uploaded:
            load_run(text, "upload.run")   # the app's upload: the same error, so its st.error
        assert streamed.value.line == whole.value.line == uploaded.value.line == expected
        assert str(streamed.value).startswith(f"{path.name}, line {expected}: ")


@pytest.mark.parametrize("zipped", [False, True])
def test_a_line_of_50_mb_is_refused_from_its_first_blocks(tmp_path, zipped):
    # the stream's buffer (plain) or its list of pieces (gzip) grew with the line: 50 MB held,
    # and a 2 GB line took all the memory there was
    path = tmp_path / ("long.run.gz" if zipped else "long.run")
    chunk = b"x" * (1 << 20)
    with (gzip.open(path, "wb", 1) if zipped else open(path, "wb")) as handle:
        handle.write(LINE % (1, 1) + b"q1 Q0 ")
        for _ in range(50):
            handle.write(chunk)
    tracemalloc.start()
    try:
        with pytest.raises(InputError, match="longer than 1,048,576 bytes") as refused:
            _stream(path, 1 << 20)
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert refused.value.line == 2
    assert peak < 12 << 20, peak
