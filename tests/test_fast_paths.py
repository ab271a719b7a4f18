"""The fast paths change speed, never results: the polars reader against the careful reader, and
64-bit id keys against the ids themselves (including when every key collides). The all-vs-all C
kernel is checked against the row-sorting reference in test_allvsall.py."""

import os
from concurrent.futures import ThreadPoolExecutor

import numpy as np
import pytest
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import GroundTruth, InputError, Run, evaluate, judge, rank_run
from metrics.data.idcolumn import IdColumn
from metrics.data.rows import whole_numbers
from metrics.loaders.fast import read_columns
from metrics.loaders.runs import QRELS, RUN, load_run
from metrics.loaders.tables import numeric_column, read_table, text_column
from metrics.data.ties import TiePolicy

FIELD = st.sampled_from(["q1", "q2", "Q0", "d1", "d2", "1", "0.5", "-2", "1e3", "x", "", "#",
                         "nan", "é", "\t", "a b", "\r", "\x0c", "\x85", "\xa0", "\u2003",
                         "\x00", "x\n"])
LINE = st.lists(FIELD, min_size=3, max_size=8)


def careful(data: bytes, layout, numeric: str):
    table = read_table(data, layout, "f.txt")
    return {"query_id": text_column(table, "query_id"), "item_id": text_column(table, "item_id"),
            numeric: whole_numbers(table.columns[numeric], numeric, lines=table.lines)
            if numeric == "relevance" else numeric_column(table, numeric)}


@settings(max_examples=300, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(lines=st.lists(LINE, min_size=1, max_size=6), sep=st.sampled_from([" ", "\t", "  "]),
       end=st.sampled_from(["", "\n"]), layout=st.sampled_from(["run", "qrels"]))
def test_fast_reader_accepts_only_what_the_careful_reader_reads_the_same(lines, sep, end,
                                                                         layout):
    data = ("\n".join(sep.join(fields) for fields in lines) + end).encode()
    spec, numeric = (RUN, "score") if layout == "run" else (QRELS, "relevance")
    kinds = {"score": "float64"} if layout == "run" else {"relevance": "int64"}
    fast = read_columns(data, spec.trec_kept, kinds)
    if fast is None:
        return  # the careful reader decides, with its messages
    slow = careful(data, spec, numeric)
    assert list(fast["query_id"]) == list(slow["query_id"])
    assert list(fast["item_id"]) == list(slow["item_id"])
    np.testing.assert_array_equal(fast[numeric], slow[numeric])


@pytest.mark.parametrize("content", [
    b"q1 Q0 d1 1 2.5 t x\n",            # an extra field
    b"q1 Q0 d1 1 2.5\n",                # a missing field
    b"q1  d1 1 2.5 t\n",                # a doubled delimiter making an empty field
    b"q1 Q0 d\t1 1 2.5 t\n",            # a tab inside a space-separated line
    b"q1 Q0 d1 1 2.5 t\r\n",            # CRLF: left to the careful reader
    b"q1 Q0 d1 1 2.5 t\n\nq1 Q0 d2 2 1 t\n",  # a blank line
    b"q1 Q0 d1 1 2.5 t\n# note\n",      # a comment line
    b"q1 Q0 d1 1 abc t\n",              # not a number
    b"q1 Q0 d1 1 inf t\n",              # not finite
    # what Python's split() and splitlines() also treat as whitespace or line ends
    *[f"q1 Q0 d{c}1 1 2.5 t\n".encode() for c in
      ["\x0b", "\x0c", "\x1c", "\x1f", "\x85", "\xa0", "\u2003", "\u2028", "\u3000"]],
    b"q1 Q0 d\x001 1 2.5 t\n",          # a NUL byte: not a text file
    b"q1 Q0 d\xff 1 2.5 t\n",           # not UTF-8
    b"q1 Q0 d1 1 2.5 t ",               # an empty last field at the very end
    b"q1 Q0 d1 1 2.5 t x\nq1 Q0 d2 2 1.5\n",  # one field too many and one too few
    b"q1 Q0 d1 1 2.5\nq1 Q0 d2 2 1.5 t x\n",  # the same the other way round
    # two fields too many on one line, one too few on each of two others: the totals match
    b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 1.5 t x y\nq1 Q0 d3 3 1\nq1 Q0 d4 4 2.5 t\nq1 Q0 d5 5 1\n",
    b"q1 Q0 d1 1 2.5 t x\n" * 3 + b"q1 Q0 d2 2 1.5\n" * 3,   # many lines, first ones long
])
def test_fast_reader_declines_anything_irregular(content):
    assert read_columns(content, RUN.trec_kept, {"score": "float64"}) is None


@pytest.mark.parametrize("workers", [2, 3, 5])
def test_byte_checks_split_over_threads_see_across_the_edges(monkeypatch, workers):
    from metrics import parallel
    from metrics.loaders.fast import _layout_counts

    lines = [f"q{i} Q0 d{i} {i} {i / 7:.3f} tag\n".encode() for i in range(40)]
    clean = b"".join(lines)
    whole = _layout_counts(clean, b" ")
    monkeypatch.setattr(parallel, "MIN_PART", 5)
    monkeypatch.setattr(parallel, "WORKERS", workers)
    assert _layout_counts(clean, b" ") == whole == (200, 40)
    # a doubled delimiter, and a blank line, at every possible byte position
    for at in range(1, len(clean) - 1):
        if clean[at:at + 1] == b" ":
            assert _layout_counts(clean[:at] + b" " + clean[at:], b" ") is None
        if clean[at - 1:at] == b"\n":
            assert _layout_counts(clean[:at] + b"\n" + clean[at:], b" ") is None


def test_id_column_take_keys_and_equals():
    ids = IdColumn(["a", "b", "a", "c"])
    assert ids.take([[3, -1], [0, 1]]).tolist() == [["c", None], ["a", "b"]]
    assert ids.keys[0] == ids.keys[2] and len(set(ids.keys.tolist())) == 3
    assert ids.equals(np.array([0, 1]), np.array(["a", "x"], dtype=object)).tolist() == [True,
                                                                                         False]


def random_case(seed: int):
    rng = np.random.default_rng(seed)
    queries = [f"q{i}" for i in range(6)]
    rows = [(q, f"d{rng.integers(0, 12)}", float(rng.integers(0, 5))) for q in queries
            for _ in range(rng.integers(0, 10))]
    run = Run.build([r[0] for r in rows], [r[1] for r in rows], [r[2] for r in rows])
    judged = [(q, f"d{d}", int(rng.integers(0, 3))) for q in queries
              for d in rng.choice(12, 5, replace=False)]
    truth = GroundTruth.build(*zip(*judged))
    return run, truth


@pytest.mark.parametrize("seed", range(5))
@pytest.mark.parametrize("ties", [TiePolicy.STABLE, TiePolicy.TREC9])
def test_colliding_keys_change_nothing(monkeypatch, seed, ties):
    """With every id hashed to the same key, duplicates and judgements are decided by the ids."""
    run, truth = random_case(seed)
    expected = evaluate(judge(run, truth, ties=ties), "AP,nDCG@5,Bpref,P@3,NumRet")
    monkeypatch.setattr(IdColumn, "keys", property(lambda self: np.zeros(len(self), np.uint64)))
    collided_run, _ = random_case(seed)  # built again: duplicates found with colliding keys
    truth_again = GroundTruth.build(truth.query_ids[truth.pair_query], truth.pair_item,
                                    truth.pair_grade)
    got = evaluate(judge(collided_run, truth_again, ties=ties), "AP,nDCG@5,Bpref,P@3,NumRet")
    assert collided_run.warnings == run.warnings
    for name in expected.measures:
        np.testing.assert_array_equal(got.results[name].values, expected.results[name].values)


def ranked_case(seed: int, queries: int = 40):
    """Sorted lists of even length with ties and repeated items, as a TREC run comes."""
    rng = np.random.default_rng(seed)
    rows = [(f"q{q}", f"d{d}", s) for q in range(queries)
            for d, s in zip(rng.integers(0, 30, 20), np.sort(rng.integers(0, 6, 20))[::-1])]
    run = Run.build(*zip(*rows))
    judged = [(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(queries)
              for d in rng.choice(30, 8, replace=False)]
    return run, GroundTruth.build(*zip(*judged))


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [TiePolicy.STABLE, TiePolicy.TREC9, TiePolicy.ID])
def test_splitting_work_over_threads_changes_nothing(monkeypatch, seed, ties):
    from metrics import parallel

    measures = "AP,nDCG@5,Bpref,P@3,RR,NumRet"
    run, truth = ranked_case(seed)
    expected = judge(run, truth, ties=ties)
    monkeypatch.setattr(parallel, "MIN_PART", 7)
    monkeypatch.setattr(parallel, "WORKERS", 3)
    split_run, _ = ranked_case(seed)  # duplicates found in parts
    got = judge(split_run, truth, ties=ties)
    assert split_run.warnings == run.warnings and "duplicated" in " ".join(run.warnings)
    for field in ("lengths", "offsets", "hit_ranks", "hit_grades"):
        np.testing.assert_array_equal(getattr(got, field), getattr(expected, field))
    for q in range(got.num_queries):
        np.testing.assert_array_equal(got.ranked_list(q)[0], expected.ranked_list(q)[0])
    assert got.ties.describe() == expected.ties.describe() and expected.ties.tie_groups
    for name, result in evaluate(got, measures).results.items():
        np.testing.assert_array_equal(result.values, evaluate(expected, measures).results[name].values)


def test_self_items_are_confirmed_on_ids(monkeypatch):
    monkeypatch.setattr(IdColumn, "keys", property(lambda self: np.zeros(len(self), np.uint64)))
    truth = GroundTruth.from_labels(["a", "b", "c"], ["x", "x", "y"])
    run = Run.build(["a", "a", "a"], ["a", "b", "c"], [3.0, 2.0, 1.0])
    judged = judge(run, truth)
    assert judged.ranked_list(0)[0].tolist() == ["b", "c"]  # only the query item itself went


def test_duplicates_in_uneven_lists_are_found():
    run = Run.build(["q1", "q1", "q1", "q2", "q1"], ["a", "b", "a", "a", "c"],
                    [3.0, 2.0, 1.0, 1.0, 0.5])
    assert len(run) == 4 and "1 duplicated" in run.warnings[0]
    with pytest.raises(InputError):
        Run.build(["q1"], ["a", "b"], [1.0, 2.0])


def test_fast_reader_reads_clean_files():
    run = read_columns(b"q1 Q0 d1 1 2.5 t\nq1 Q0 d2 2 -1e-3 t", RUN.trec, {"score": "float64"})
    assert list(run["item_id"]) == ["d1", "d2"] and run["score"].tolist() == [2.5, -0.001]
    qrels = read_columns(b"q1\t0\td1\t2\n", QRELS.trec, {"relevance": "int64"})
    assert list(qrels["query_id"]) == ["q1"] and qrels["relevance"].tolist() == [2]


def test_the_rank_column_is_not_parsed_and_not_judged():
    # trec_eval ignores a run's rank column, and so do both readers: any token is accepted
    assert RUN.trec_kept == ("query_id", None, "item_id", None, "score", None)
    data = b"q1 Q0 d1 first 2.5 t\nq1 Q0 d2 2 1.5 t\n"
    fast = read_columns(data, RUN.trec_kept, {"score": "float64"})
    assert fast is not None and "rank" not in fast
    assert list(fast["item_id"]) == list(careful(data, RUN, "score")["item_id"]) == ["d1", "d2"]
    assert list(load_run(data, "r.trec").item_ids) == ["d1", "d2"]


def test_parts_inside_a_part_run_in_place(monkeypatch):
    from metrics import parallel

    monkeypatch.setattr(parallel, "MIN_PART", 1)
    monkeypatch.setattr(parallel, "WORKERS", 2)

    def outer(start, stop):  # every worker asks for parts again: must not wait on itself
        return sum(sum(parallel.over_parts(lambda a, b: b - a, 10)) for _ in range(start, stop))
    with ThreadPoolExecutor(1) as guard:  # a deadlock fails the test instead of hanging it
        assert sum(guard.submit(parallel.over_parts, outer, 6).result(timeout=30)) == 60


@pytest.mark.parametrize("workers", [1, 2, 3])
def test_fills_by_parts_equal_numpy(monkeypatch, workers):
    from metrics import parallel

    monkeypatch.setattr(parallel, "MIN_PART", 4)
    monkeypatch.setattr(parallel, "WORKERS", workers)
    rng = np.random.default_rng(workers)
    for n in (0, 1, 5, 37):
        np.testing.assert_array_equal(parallel.arange_in_parts(n), np.arange(n))
    for blocks in (0, 1, 9):
        counts = rng.integers(0, 6, blocks)
        values = rng.integers(-50, 50, blocks).astype(np.int32)
        got = parallel.repeat_in_parts(values, counts)
        assert got.dtype == np.int32
        np.testing.assert_array_equal(got, np.repeat(values, counts))


def test_trec_tie_moves_carry_their_float64_scores():
    # a run already in rank order whose float32 tie group holds distinct float64 scores: the
    # policy moves the items, and each score must move with its item (the run is left as it was)
    scores = [3.0, 0.1 + 2e-12, 0.1 + 1e-12, 0.1, 0.05]
    run = Run.build(["q"] * 5, ["e", "a", "c", "b", "d"], scores)
    ranked = rank_run(run, TiePolicy.TREC9)
    assert ranked.item_ids.tolist() == ["e", "c", "b", "a", "d"]
    assert ranked.scores.tolist() == [3.0, 0.1 + 1e-12, 0.1, 0.1 + 2e-12, 0.05]
    assert run.scores.tolist() == scores
    same = Run.build(["q"] * 3, ["a", "c", "b"], [1.0, 1.0, 1.0])  # equal as float64 too
    # nothing moved: shared, not copied
    assert rank_run(same, TiePolicy.TREC9).scores is same.scores


def test_judged_keys_sharing_a_table_slot_are_still_found(monkeypatch):
    """Enough judged pairs that some share a slot of the look-up table: every grade still equals
    the look-up on the ids themselves, for judged, unjudged and judged-not-relevant items, and
    the keys alone decide (the look-up on the ids is not needed as a fallback)."""
    from metrics.ranking import judged_lookup as lookup
    from metrics.data.idcolumn import mix
    from metrics.ranking.judged_lookup import judged_matches, matches_by_id

    monkeypatch.setattr(lookup, "COMPILED", False)   # the NumPy table (the C one has no slots)

    rng = np.random.default_rng(7)
    judged = [(f"q{q}", f"d{d}", int(rng.integers(0, 3))) for q in range(300)
              for d in rng.choice(5000, 40, replace=False)]
    truth = GroundTruth.build(*zip(*judged))
    keys = np.sort(mix(truth.pair_query, truth.pair_keys))
    slots = keys >> np.uint64(64 - (len(keys).bit_length() + 4))
    assert (slots[1:] == slots[:-1]).sum() > 5   # the shared-slot path is taken
    query_index = rng.integers(0, 300, 200_000)
    items = IdColumn(np.asarray([f"d{d}" for d in rng.integers(0, 5000, 200_000)], dtype=object))
    rows = np.arange(len(items))
    expected = matches_by_id(truth, query_index, items.take(rows))

    def no_fallback(*args):
        raise AssertionError("the key look-up fell back to the ids")
    monkeypatch.setattr(lookup, "matches_by_id", no_fallback)
    got = judged_matches(truth, query_index, rows, items)
    assert len(expected[0]) > 1000   # many retrieved pairs are judged
    np.testing.assert_array_equal(got[0], expected[0])
    np.testing.assert_array_equal(got[1], expected[1])


def test_the_c_counting_kernel_is_built_in_ci():
    """CI installs with a C compiler, so the all-vs-all C kernel must have been built and chosen;
    a silent fall-back to NumPy would pass every other test, only slower."""
    from metrics.ranking.allvsall import counting_kernel

    if os.environ.get("CI") != "true":
        pytest.skip("only CI promises a C compiler")
    assert counting_kernel().startswith("C ("), counting_kernel()


@settings(max_examples=300, deadline=None)
@given(text=st.one_of(   # with whitespace, comments and odd line ends, and plain text without
    st.text(alphabet=st.sampled_from(list("ab ,\t\n\r#;'\x0b\x85é\u2028")), max_size=60),
    st.text(alphabet=st.sampled_from(list("ab,;\n'é\t")), max_size=60)),
    delimiter=st.sampled_from([",", "\t"]))
def test_csv_rows_without_quotes_split_as_the_csv_module_does(text, delimiter):
    """Without a quote character csv.reader only splits at the delimiter, so the loaders skip it;
    without whitespace or comments they also skip stripping and the blank-line check. Only \n and
    \r\n end a line (not \x0b, U+0085 or U+2028); a carriage return alone is refused."""
    import csv
    import re

    from metrics.loaders.lines import row_blocks

    if re.search(r"\r(?!\n|\Z)", text):
        with pytest.raises(InputError, match="carriage return"):
            list(row_blocks(text.encode(), "f.csv", delimiter))
        return
    lines = text.replace("\r\n", "\n").removesuffix("\r").split("\n")
    numbered = [(n, line) for n, line in enumerate(lines, 1)
                if line.strip(" \t") and not line.strip(" \t").startswith("#")]
    expected = [[cell.strip(" \t") for cell in row]
                for row in csv.reader((line for _, line in numbered), delimiter=delimiter)]
    blocks = list(row_blocks(text.encode(), "f.csv", delimiter))
    assert [row for block in blocks for row in block.rows()] == expected
    assert [n for block in blocks for n in block.lines] == [n for n, _ in numbered]


def test_the_c_kernel_refuses_inconsistent_arguments():
    """The all-vs-all C kernel checks sizes and indices before it reads memory: a wrong call is an
    error, never a crash."""
    from metrics.ranking import allvsall

    counting = allvsall._counting
    if counting is None:
        pytest.skip("the C extension is not built (CI checks that it is)")
    block = np.zeros((2, 4), dtype=np.float32)

    def call(members=(0, 1, 2, 3), start=(0, 0), size=(2, 2), width=1, rows=2, level_rows=2):
        level = np.zeros((level_rows, width))
        ints = [np.zeros((level_rows, width), dtype=np.int64) for _ in range(3)]
        return counting.count_levels(
            block, False, rows, 4, 0, np.asarray(members, dtype=np.int64),
            np.asarray(start, dtype=np.int64), np.asarray(size, dtype=np.int64), width, True,
            level, ints[0], np.zeros((level_rows, width), dtype=bool), np.zeros(level_rows),
            ints[1], ints[2])

    assert call() == -1   # rows 0 and 1 form one clique
    for wrong, message in [(dict(members=(0, 9, 2, 3)), "not a column"),
                           (dict(start=(0, 3)), "outside members"),
                           (dict(size=(3, 2)), "more clique mates than width"),
                           (dict(level_rows=1), "buffer holds"),
                           (dict(rows=5), "out of range")]:
        with pytest.raises(ValueError, match=message):
            call(**wrong)
