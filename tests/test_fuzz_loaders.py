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
                          "<b>", "1.0", "2", "-0"])
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
