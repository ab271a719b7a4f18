"""Every loader rule: good files load leniently, bad ones raise InputError naming file and line."""

import gzip
import io

import numpy as np
import pandas as pd
import pytest

from metrics import InputError, evaluate, judge
from metrics.loaders import (load_ids, load_label_truth, load_labels, load_qrels, load_run,
                             load_score_matrix, load_taxonomy)
from metrics.loaders.arrays import load_array

GOOD_RUN = "q1 Q0 d1 1 0.9 sys\nq1 Q0 d2 2 0.5 sys\nq2 Q0 d3 1 0.7 sys\n"
GOOD_QRELS = "q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"


def write(tmp_path, name, content):
    path = tmp_path / name
    path.write_bytes(content if isinstance(content, bytes) else content.encode())
    return path


# ---- lenient reading ----------------------------------------------------------------------------

@pytest.mark.parametrize("variant", [
    GOOD_RUN,
    GOOD_RUN.replace("\n", "\r\n"),
    "\ufeff" + GOOD_RUN,
    "# ir_metadata header\n#another\n\n" + GOOD_RUN + "\n\n",
    GOOD_RUN.replace(" ", "\t"),
    GOOD_RUN.replace(" ", "   "),
])
def test_trec_run_variants_load_the_same(tmp_path, variant):
    run = load_run(write(tmp_path, "sys.run", variant))
    assert run.query_ids.tolist() == ["q1", "q1", "q2"]
    assert run.item_ids.tolist() == ["d1", "d2", "d3"]
    assert run.scores.tolist() == [0.9, 0.5, 0.7]


def test_gzip_is_read_whatever_the_name(tmp_path):
    run = load_run(write(tmp_path, "sys.txt", gzip.compress(GOOD_RUN.encode())))
    assert len(run) == 3
    assert load_run(gzip.compress(GOOD_RUN.encode()), name="upload.run.gz").name == "upload"


def test_csv_tsv_and_parquet_runs(tmp_path):
    csv_path = write(tmp_path, "a.csv", "query_id,item_id,score\nq1,d1,0.9\nq1,\"d 2\",0.5\n")
    tsv_path = write(tmp_path, "b.tsv", "query_id\titem_id\tscore\trank\nq1\td1\t0.9\t1\n")
    frame = pd.DataFrame({"query_id": ["q1", "q1"], "item_id": ["d1", "d2"], "score": [0.9, 0.5]})
    frame.to_parquet(tmp_path / "c.parquet")
    assert load_run(csv_path).item_ids.tolist() == ["d1", "d 2"]
    assert load_run(tsv_path).scores.tolist() == [0.9]
    parquet = load_run(tmp_path / "c.parquet")
    assert parquet.scores.tolist() == [0.9, 0.5] and parquet.name == "c"


def test_bare_ranked_list_uses_rank_column(tmp_path):
    run = load_run(write(tmp_path, "bare.csv", "query_id,item_id,rank\nq,b,2\nq,a,1\nq,c,3\n"))
    assert run.scores is None
    truth = load_qrels(write(tmp_path, "q.csv", "query_id,item_id,relevance\nq,a,1\n"))
    assert evaluate(judge(run, truth), "RR").aggregate()["RR"] == 1.0


def test_qrels_csv_and_trec_agree(tmp_path):
    trec = load_qrels(write(tmp_path, "x.qrels", GOOD_QRELS))
    csv = load_qrels(write(tmp_path, "x.csv", "query_id,item_id,relevance\n" + "\n".join(
        ",".join(line.split()[i] for i in (0, 2, 3)) for line in GOOD_QRELS.splitlines())))
    assert trec.pair_grade.tolist() == csv.pair_grade.tolist() == [1, 0, 2]


def test_duplicates_are_dropped_with_a_warning(tmp_path):
    run = load_run(write(tmp_path, "d.run", GOOD_RUN + "q1 Q0 d1 3 0.1 sys\n"))
    assert len(run) == 3 and run.scores.tolist() == [0.9, 0.5, 0.7]
    assert "1 duplicated (query, item) pair" in run.warnings[0]
    qrels = load_qrels(write(tmp_path, "d.qrels", GOOD_QRELS + "q1 0 d1 0\n"))
    assert qrels.pair_grade.tolist() == [1, 0, 2] and "duplicated" in qrels.warnings[0]


def test_negative_grades_are_kept_as_pooled_but_unjudged_with_a_warning(tmp_path):
    qrels = load_qrels(write(tmp_path, "n.qrels", "q 0 a -1\nq 0 b 1\n"))
    assert qrels.pair_grade.tolist() == [-1, 1]
    assert "negative grade" in qrels.warnings[0]


@pytest.mark.parametrize("grade", [32768, 40000, 65534, 65535, 2 ** 40])
def test_large_grades_are_stored_exactly(tmp_path, grade):
    """Grades once wrapped around as 16-bit integers (65535 and 65534 were internal markers)."""
    from metrics.evaluation.evaluate import evaluate
    qrels = load_qrels(write(tmp_path, "g.qrels", f"q1 0 d1 {grade}\nq1 0 d2 0\n"))
    run = load_run(write(tmp_path, "g.run", "q1 Q0 d2 1 2 r\nq1 Q0 d1 2 1 r\n"))
    values = evaluate(judge(run, qrels), "AP,P@2,NumRelRet,nDCG").aggregate()
    # by hand: the one relevant item is at rank 2
    assert values == pytest.approx({"AP": 0.5, "P@2": 0.5, "NumRelRet": 1.0,
                                    "nDCG": 1 / np.log2(3)})


def test_grades_past_float_precision_are_refused(tmp_path):
    with pytest.raises(InputError, match=r"g.csv, line 2.*relevance '1e20' is too large"):
        load_qrels(write(tmp_path, "g.csv", "query_id,item_id,relevance\nq1,d1,1e20\n"))


def test_one_sided_queries_are_reported(tmp_path):
    run = load_run(write(tmp_path, "r.run", GOOD_RUN + "q9 Q0 d1 1 1 s\n"))
    qrels = load_qrels(write(tmp_path, "r.qrels", GOOD_QRELS + "q8 0 d1 1\n"))
    judged = judge(run, qrels)
    text = " ".join(judged.warnings)
    assert "1 run quer(ies) not in the ground truth" in text and "'q9'" in text
    assert "1 ground-truth quer(ies) are not in the run" in text and "'q8'" in text
    assert judged.query_ids.tolist() == ["q1", "q2", "q8"]
    assert evaluate(judged, "AP").results["AP"].values[2] == 0.0


# ---- bad input ----------------------------------------------------------------------------------

BAD_TEXT = [
    # (case, loader, file name, content, words in the message, line)
    ("run: too few fields", load_run, "a.run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 0.4\n",
     "expected 6 whitespace-separated fields", 2),
    ("run: too many fields", load_run, "a.run", "q1 Q0 d1 1 0.5 s extra\n", "found 7", 1),
    ("run: non-numeric score", load_run, "a.run", "q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 high s\n",
     "score 'high' is not a number", 2),
    ("run: NaN score", load_run, "a.run", "q1 Q0 d1 1 nan s\n", "not a finite number", 1),
    ("run: infinite score", load_run, "a.run", "# c\nq1 Q0 d1 1 -inf s\n", "not a finite", 2),
    ("run: empty file", load_run, "a.run", "", "is empty", None),
    ("run: only comments", load_run, "a.run", "# nothing\n\n", "is empty", None),
    ("run: header only", load_run, "a.csv", "query_id,item_id,score\n", "header but no rows",
     None),
    ("run: CSV row too short", load_run, "a.csv", "query_id,item_id,score\nq1,d1,0.5\nq1,d2\n",
     "expected 3 fields", 3),
    ("run: CSV lacks item column", load_run, "a.csv", "query_id,score\nq1,0.5\n",
     "lacks column(s) item_id", 1),
    ("run: empty item id", load_run, "a.csv", "query_id,item_id,score\nq1,,0.5\n", "is empty", 2),
    ("run: undecodable bytes", load_run, "a.run", b"q1 Q0 d1 1 0.5 s\nq1 Q0 d\xff 2 0.4 s\n",
     "not valid UTF-8", 2),
    ("run: binary file", load_run, "a.run", b"\x93NUMPY\x01\x00", "binary file", None),
    ("run: damaged gzip", load_run, "a.run.gz", b"\x1f\x8b\x08\x00garbage", "gzipped", None),
    ("qrels: non-numeric grade", load_qrels, "a.qrels", "q1 0 d1 1\nq1 0 d2 yes\n",
     "relevance 'yes' is not a number", 2),
    ("qrels: fractional grade", load_qrels, "a.qrels", "q1 0 d1 0.5\n", "not a whole number", 1),
    ("qrels: NaN grade", load_qrels, "a.qrels", "q1 0 d1 NaN\n", "not a finite number", 1),
    ("qrels: wrong field count", load_qrels, "a.qrels", "q1 d1 1\n",
     "expected 4 whitespace-separated fields", 1),
    ("labels: item listed twice", load_labels, "l.csv", "item_id,label\na,x\nb,x\na,y\n",
     "listed twice", 4),
    ("ids: id listed twice", load_ids, "ids.txt", "a\nb\na\n", "listed twice", 3),
]


@pytest.mark.parametrize("case,loader,name,content,words,line", BAD_TEXT,
                         ids=[c[0] for c in BAD_TEXT])
def test_bad_text_input(tmp_path, case, loader, name, content, words, line):
    path = write(tmp_path, name, content)
    with pytest.raises(InputError) as error:
        loader(path)
    message = str(error.value)
    assert message.startswith(str(path)), message
    assert words in message, message
    assert "\n" not in message
    if line is not None:
        assert f"line {line}" in message, message
        assert error.value.line == line


def test_missing_file():
    with pytest.raises(InputError, match="file not found"):
        load_run("/nonexistent/run.txt")


def test_parquet_with_null_score(tmp_path):
    frame = pd.DataFrame({"query_id": ["q", "q"], "item_id": ["a", "b"], "score": [1.0, None]})
    frame.to_parquet(tmp_path / "n.parquet")
    with pytest.raises(InputError, match=r"row 2, column 'score'"):
        load_run(tmp_path / "n.parquet")


# ---- arrays -------------------------------------------------------------------------------------

def npy_bytes(array, allow_pickle=False):
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


def test_square_matrix_loads(tmp_path):
    path = write(tmp_path, "m.npy", npy_bytes(np.eye(3, dtype=np.float32)))
    assert load_score_matrix(path).shape == (3, 3)


@pytest.mark.parametrize("array,words", [
    (np.ones((2, 3)), "must be square"),
    (np.array([[1.0, np.nan], [0.0, 1.0]]), "index (0, 1) is nan"),
    (np.array([[1.0, np.inf], [0.0, 1.0]]), "finite"),
    (np.array(["a", "b"]), "dtype <U1"),
    (np.ones(3), "2-dimensional"),
])
def test_bad_matrices(tmp_path, array, words):
    path = write(tmp_path, "m.npy", npy_bytes(array))
    with pytest.raises(InputError) as error:
        load_score_matrix(path)
    assert words in str(error.value) and str(path) in str(error.value)


def test_pickled_array_is_never_loaded(tmp_path):
    path = write(tmp_path, "p.npy", npy_bytes(np.array([{"x": 1}], dtype=object), True))
    with pytest.raises(InputError, match="pickled"):
        load_array(path, ndim=1)


def test_not_npy(tmp_path):
    with pytest.raises(InputError, match="not a .npy file"):
        load_array(write(tmp_path, "x.npy", b"hello"))


# ---- labels and taxonomy ------------------------------------------------------------------------

def test_labels_make_cliques(tmp_path):
    truth = load_label_truth(write(tmp_path, "l.csv", "item_id,label\na,x\nb,x\nc,y\nd,x\n"))
    pairs = sorted(zip(truth.query_ids[truth.pair_query], truth.pair_item))
    assert pairs == [("a", "b"), ("a", "d"), ("b", "a"), ("b", "d"), ("d", "a"), ("d", "b")]
    counts = truth.grade_counts()   # per query: (grade, count) — the others judged 0
    assert list(zip(counts.query.tolist(), counts.grade.tolist(), counts.count.tolist())) == [
        (0, 0, 1), (0, 1, 2), (1, 0, 1), (1, 1, 2), (2, 0, 3), (3, 0, 1), (3, 1, 2)]


def test_taxonomy_errors(tmp_path):
    tax = write(tmp_path, "t.csv", "class,parent\nstrings,\nviolin,strings\n")
    notes = write(tmp_path, "n.csv", "item_id,class\nx1,violin\nx2,tuba\n")
    with pytest.raises(InputError, match=r"n.csv, line 3: class 'tuba' is not in the taxonomy"):
        load_taxonomy(tax, notes)
    three_levels = write(tmp_path, "t3.csv", "class,parent\nmusic,\nstrings,music\nviolin,strings\n")
    with pytest.raises(InputError, match="two levels"):
        load_taxonomy(three_levels, notes)


def test_taxonomy_class_listed_twice(tmp_path):
    tax = write(tmp_path, "t.csv", "class,parent\nstrings,\nviolin,strings\nviolin,winds\n")
    notes = write(tmp_path, "n.csv", "item_id,class\nx1,violin\n")
    with pytest.raises(InputError, match=r"t.csv, line 4: class 'violin' is listed twice "
                                         r"\(first on line 3\)"):
        load_taxonomy(tax, notes)
