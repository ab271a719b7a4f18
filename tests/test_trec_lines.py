"""The C reader of TREC runs and qrels files (metrics/loaders/_trec_lines.c, its Python side
metrics/loaders/trec_lines.py): what it reads equals what Python and polars read, what it may not
read it declines, its keys never decide a match alone, and without it the same values come from
polars and NumPy."""

from __future__ import annotations

import os
import random

import numpy as np
import pytest

from metrics.data.idcolumn import IdColumn
import metrics.loaders.run_blocks as run_blocks_module
from metrics.loaders import load_qrels, load_run, runs, trec_lines
from metrics.loaders.fast import read_columns
from metrics.loaders.trec_lines import (QRELS_LAYOUT, RUN_LAYOUT, BlockIds, Scratch,
                                        scan_block)
from metrics.ranking import judged_lookup
from metrics.ranking.rank import judge
from metrics.ranking.run_stream import judge_run_stream
from metrics.data.ties import TiePolicy
from tied_runs import same_judged, write_run

# in CI (a C compiler) these never skip: test_the_c_reader_is_built_in_ci fails instead
pytestmark = pytest.mark.skipif(not trec_lines.COMPILED and os.environ.get("CI") != "true",
                                reason="the C reader is not built (no C compiler)")

SCORES = ["9.994686", "0.1", "1", "-0", "0", "+5", "5.", ".5", "-.5e-3", "1e5", "1E+05",
          "2.5e-7", "123456789012345678", "0.12345678901234568", "0.1000000000000000055511151231",
          "1.7976931348623157e308", "4.9e-324", "2.2250738585072011e-308", "1e-400",
          "0.30000000000000004", "3.141592653589793238462643383279", "-12.000", "007.50",
          "99999999999999999999999", "8.589973e9", "1e22", "1e23", "123.456e-5"]


def run_text(scores, ids=None, delimiter=" ", tags=None) -> bytes:
    ids = ids or [f"d{i}" for i in range(len(scores))]
    tags = tags or ["t"] * len(scores)
    return "".join(delimiter.join(["q1", "Q0", d, str(r), s, t]) + "\n"
                   for r, (d, s, t) in enumerate(zip(ids, scores, tags), 1)).encode()


@pytest.mark.parametrize("delimiter", [" ", "\t"])
def test_scores_are_what_python_and_polars_read(delimiter):
    text = run_text(SCORES, delimiter=delimiter)
    scanned = scan_block(text, RUN_LAYOUT)
    assert scanned is not None
    want = np.array([float(s) for s in SCORES])
    assert scanned.numbers.view(np.int64).tolist() == want.view(np.int64).tolist()
    polars = read_columns(text, ("query_id", None, "item_id", None, "score", None),
                          {"score": "float64"})
    assert scanned.numbers.view(np.int64).tolist() == polars["score"].view(np.int64).tolist()


def test_random_decimals_round_as_python_does():
    rng = random.Random(5)
    scores = []
    for _ in range(4000):
        digits = "".join(rng.choice("0123456789") for _ in range(rng.randint(1, 22)))
        point = rng.randint(0, len(digits))
        text = (rng.choice(["", "-", "+"]) + digits[:point] + "." + digits[point:]).rstrip(".")
        if rng.random() < 0.4:
            text += f"e{rng.randint(-330, 310)}"
        if abs(float(text)) != float("inf"):
            scores.append(text)
    scanned = scan_block(run_text(scores, ids=[f"d{i}" for i in range(len(scores))]),
                         RUN_LAYOUT)
    want = np.array([float(s) for s in scores])
    assert scanned.numbers.view(np.int64).tolist() == want.view(np.int64).tolist()


def test_ids_query_runs_and_tags():
    lines = ["q1 Q0 é 1 3 run", "q1 Q0 日本 2 2 run", "q2 Q0 x 1 1 run", "q10 Q0 y 1 1 run",
             "q2 Q0 z 1 1 run"]
    scanned = scan_block(("\n".join(lines)).encode(), RUN_LAYOUT)   # no last line end
    assert scanned.query_names == ["q1", "q2", "q10", "q2"]
    assert scanned.query_lengths.tolist() == [2, 1, 1, 1]
    assert scanned.items.tolist() == ["é", "日本", "x", "y", "z"]
    assert scanned.tag == "run"
    assert scan_block(run_text(["1", "2"], tags=["a", "b"]), RUN_LAYOUT).tag is None
    # the keys are those that other ids get from their bytes
    column = IdColumn(np.array(["é", "日本", "x", "y", "z"], dtype=object))
    assert BlockIds.keys_of(column).tolist() == scanned.items.keys.tolist()
    assert BlockIds.from_strings(column.tolist()).keys.tolist() == scanned.items.keys.tolist()


@pytest.mark.parametrize("text", [
    b"q1 Q0 d1 1 0.5\n",                    # five fields
    b"q1 Q0 d1 1 0.5 t x\n",                # seven
    b"q1 Q0 d1 1 0.5 t \n",                 # an empty last field
    b"q1  Q0 d1 1 0.5 t\n",                 # two delimiters
    b"q1 Q0 d1 1 0.5 t\r\n",                # a carriage return
    b"q1 Q0 d1\t1 0.5 t\n",                 # a tab in a file of spaces
    b"q1 Q0 d1 1 0.5 t\n\nq1 Q0 d2 2 0.4 t\n",   # a blank line
    b"# comment\nq1 Q0 d1 1 0.5 t\n",       # a comment
    b"q1 Q0 d1 1 0.5 t\n#q Q0 d2 1 0.4 t\n",
    b"qid Q0 docno rank score tag\n",        # a header
    b"\xef\xbb\xbfq1 Q0 d1 1 0.5 t\n",       # a byte-order mark
    b"q1 Q0 d\xe9 1 0.5 t\n",                # not UTF-8
    "q1 Q0 d\u00a01 1 0.5 t\n".encode(),     # a Unicode space
    b"q1 Q0 d1 1 0.5\x00 t\n",               # a NUL byte
    b"q1 Q0 d1 1 inf t\n", b"q1 Q0 d1 1 nan t\n", b"q1 Q0 d1 1 1e400 t\n",
    b"q1 Q0 d1 1 0x1p3 t\n", b"q1 Q0 d1 1 1_000 t\n", b"q1 Q0 d1 1 1.5e t\n", b"q1 Q0 d1 1 . t\n",
    b"q1 Q0 d1 1 - t\n", b"q1 Q0 d1 1 1,5 t\n", b"\n", b"",
])
def test_what_the_reader_declines(text):
    assert scan_block(text, RUN_LAYOUT) is None


@pytest.mark.parametrize("text", [b"q1 0 d1 1.0\n", b"q1 0 d1 1e2\n", b"q1 0 d1 x\n",
                                  b"q1 0 d1 1234567890123456789\n", b"q1 0 d1 1 extra\n"])
def test_grades_other_than_short_whole_numbers_decline(text):
    assert scan_block(text, QRELS_LAYOUT) is None
    assert scan_block(b"q1 0 d1 -7\nq1 0 d2 +3\nq2 0 d1 007\n", QRELS_LAYOUT).numbers.tolist() \
        == [-7, 3, 7]


def test_shorter_lines_than_before_get_room():
    scratch = Scratch()
    long_lines = run_text(["1"] * 50, ids=[f"d{'x' * 60}{i}" for i in range(50)])
    short_lines = run_text(["1"] * 2000, ids=[f"{i}" for i in range(2000)])
    assert len(scan_block(long_lines, RUN_LAYOUT, scratch).numbers) == 50
    assert len(scan_block(short_lines, RUN_LAYOUT, scratch).numbers) == 2000


def write_qrels(path, seed: int) -> None:
    rng = np.random.default_rng(seed)
    lines = [f"q{int(rng.integers(0, 30))} 0 d{int(rng.integers(0, 60))} "
             f"{int(rng.integers(-1, 4))}" for _ in range(400)]   # unsorted, with repeats
    path.write_text("\n".join(lines) + "\n")


@pytest.fixture(params=["C", "polars"])
def reader(request, monkeypatch):
    """Each test run with the C reader, and as a machine without a C compiler runs it."""
    if request.param == "polars":
        for module in (trec_lines, run_blocks_module, runs, judged_lookup):
            monkeypatch.setattr(module, "COMPILED", False)
    return request.param


def test_qrels_read_by_either_reader_are_the_same(tmp_path, monkeypatch):
    path = tmp_path / "qrels"
    write_qrels(path, 3)
    c = load_qrels(path)
    monkeypatch.setattr(runs, "COMPILED", False)
    p = load_qrels(path)
    assert isinstance(c.pair_items, BlockIds) and not isinstance(p.pair_items, BlockIds)
    assert c.query_ids.tolist() == p.query_ids.tolist()
    assert c.pair_query.tolist() == p.pair_query.tolist()
    assert c.pair_item.tolist() == p.pair_item.tolist()
    assert c.pair_grade.tolist() == p.pair_grade.tolist()
    assert c.warnings == p.warnings and any("duplicated" in w for w in c.warnings)


@pytest.mark.parametrize("ties", [TiePolicy.TREC9, TiePolicy.ID, TiePolicy.STABLE,
                                  TiePolicy.OPTIMISTIC])
def test_streamed_runs_are_the_whole_files_with_either_reader(tmp_path, reader, ties):
    run_path, qrels_path = write_run(tmp_path, seed=21)
    truth = load_qrels(qrels_path)
    whole = judge(load_run(run_path), truth, ties, keep_lists=False)
    for block in (1, 64, 1 << 20):
        streamed = judge_run_stream(run_path, truth, ties, block=block)
        assert streamed is not None
        same_judged(streamed.judged, whole)


def test_colliding_keys_never_make_a_match(tmp_path):
    """Items whose keys are a judged item's (a collision, made here by hand) are not that item:
    the look-up on the keys is confirmed on the ids, and redone on the ids when it fails."""
    from metrics.data.truth import GroundTruth
    from metrics.ranking.judged_lookup import judged_matches

    truth = GroundTruth.build(["q1", "q1", "q2"], ["a", "b", "a"], [1, 2, 1])
    judged_key = trec_lines.hash_spans(b"ab", np.array([0, 1, 2]))
    # the run's items c, a, b, d: c and d carry the key of a, b carries its own
    items = BlockIds(b"cabd", np.array([0, 1, 2, 3, 4]),
                     np.array([judged_key[0], judged_key[0], judged_key[1], judged_key[0]],
                              dtype=np.uint64))
    query = np.array([0, 0, 0, 1])
    found, at = judged_matches(truth, query, np.arange(4), items)
    assert found.tolist() == [1, 2] and truth.pair_item[at].tolist() == ["a", "b"]


def test_the_c_reader_is_built_in_ci():
    """CI installs with a C compiler, so the C reader must have been built: a silent fall-back
    to polars would pass every other test, only slower."""
    if os.environ.get("CI") != "true":
        pytest.skip("only CI promises a C compiler")
    assert trec_lines.COMPILED


@pytest.mark.parametrize("size", [0, 1, 15, 16, 17, 255 * 16, 255 * 16 + 3, 300_000])
def test_line_ends_are_counted_as_bytes_count_them(size):
    """The C count (16 bytes at a time, byte counters summed every 255 rounds) agrees with
    bytes.count on every span of text, line ends alone and none at all included."""
    rng = random.Random(size)
    texts = [bytes(rng.choice(b"ab \n\t") for _ in range(size)), b"\n" * size, b"x" * size]
    for text in texts:
        for start, end in ((0, size), (size // 3, size - size // 5), (size, size)):
            for data in (text, bytearray(text), memoryview(text)):
                assert trec_lines.line_ends(data, start, end) == text.count(b"\n", start, end)
    with pytest.raises(IndexError):
        trec_lines.line_ends(b"a\nb", 1, 4)
