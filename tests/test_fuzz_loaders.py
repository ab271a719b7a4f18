"""Generated text and bytes thrown at every loader: each either loads or raises InputError."""

import io

import numpy as np
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from metrics import InputError
from metrics.loaders import (load_array, load_ids, load_labels, load_qrels, load_run,
                             load_taxonomy)

SETTINGS = settings(max_examples=150, deadline=None,
                    suppress_health_check=[HealthCheck.too_slow])
TOKENS = st.sampled_from(["q1", "Q0", "d1", "d 2", "1", "0", "-1", "0.5", "nan", "inf", "1e309",
                          "x", "", "#", "\"", "'", "query_id", "item_id", "score", "rank",
                          "relevance", "label", "class", "parent", ",", "\t", " ", "é", "\x00",
                          "<b>", "1.0", "2", "-0", "\r", "\x0c", "\x85", "\u2028"])
LINES = st.lists(st.lists(TOKENS, max_size=8).map(" ".join), max_size=12).map("\n".join)
SEPARATED = st.lists(st.lists(TOKENS, max_size=6).map(",".join), max_size=10).map("\n".join)
TEXT_LOADERS = [load_run, load_qrels, load_labels, load_ids]


def survives(loader, content: bytes, name: str) -> None:
    try:
        loader(content, name=name)
    except InputError as exc:
        assert str(exc).startswith(name), str(exc)
        assert "\n" not in str(exc)


@SETTINGS
@given(text=LINES, crlf=st.booleans(), bom=st.booleans())
def test_whitespace_text(text, crlf, bom):
    data = (("\ufeff" if bom else "") + (text.replace("\n", "\r\n") if crlf else text)).encode()
    for loader in TEXT_LOADERS:
        survives(loader, data, "fuzz.txt")


@SETTINGS
@given(text=SEPARATED)
def test_csv_text(text):
    for loader in TEXT_LOADERS:
        survives(loader, text.encode(), "fuzz.csv")


@SETTINGS
@given(data=st.binary(max_size=300))
def test_arbitrary_bytes(data):
    for loader in TEXT_LOADERS:
        survives(loader, data, "fuzz.bin")
    survives(lambda content, name: load_array(content, name), data, "fuzz.npy")


@SETTINGS
@given(taxonomy=SEPARATED, annotations=SEPARATED)
def test_taxonomy_pairs(taxonomy, annotations):
    try:
        load_taxonomy(taxonomy.encode(), annotations.encode(), "tax.csv", "notes.csv")
    except InputError as exc:
        assert str(exc).startswith(("tax.csv", "notes.csv")), str(exc)


@SETTINGS
@given(shape=st.lists(st.integers(0, 4), min_size=0, max_size=3),
       dtype=st.sampled_from(["f4", "f8", "i4", "U2", "c8", "?"]))
def test_npy_of_any_shape_and_dtype(shape, dtype):
    buffer = io.BytesIO()
    np.save(buffer, np.zeros(shape, dtype=dtype))
    survives(lambda content, name: load_array(content, name), buffer.getvalue(), "a.npy")


ID_TEXT = st.text(alphabet=st.sampled_from(list('ab,;"\n\r\t #\x0c\x85\u2028é')), min_size=1,
                  max_size=8).filter(lambda t: t.strip(" \t") == t and not t.startswith("#"))


@SETTINGS
@given(items=st.lists(ID_TEXT, min_size=1, max_size=6), crlf=st.booleans())
def test_quoted_csv_fields_come_back_whole_and_lines_keep_their_numbers(items, crlf):
    """Rows written by csv.writer (which quotes a field holding a line end, a quote or the
    delimiter) load as written, and a bad row after them is named by its own line."""
    import csv

    end = "\r\n" if crlf else "\n"
    buffer = io.StringIO()
    # minimal quoting quotes a field holding a character of the line end: with "\n" alone, a
    # field holding "\r" would go unquoted (a lone carriage return, which no reader accepts)
    writer = csv.writer(buffer, lineterminator=end,
                        quoting=csv.QUOTE_MINIMAL if crlf else csv.QUOTE_NONNUMERIC)
    writer.writerow(["query_id", "item_id", "score"])
    for rank, item in enumerate(items):
        writer.writerow(["q1", item, len(items) - rank])
    text = buffer.getvalue()
    run = load_run(text.encode(), "f.csv")
    firsts = list(dict.fromkeys(items))   # a repeated pair keeps its first occurrence
    assert run.item_ids.tolist() == firsts
    bad_line = text.count("\n") + 1
    try:
        load_run((text + "q1,zz,x" + end).encode(), "f.csv")
    except InputError as exc:
        assert str(exc).startswith(f"f.csv, line {bad_line}, column 'score'"), str(exc)
    else:
        raise AssertionError("a score of 'x' loaded")
