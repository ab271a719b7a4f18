"""Ids and numbers in inputs and in command-line output (issue 29): whole-float ids are the
integers on every path, a run that finds no judged item for most queries is warned about, grades
and ranks are exact 64-bit integers or refused, trec_eval's lines never hold whitespace, and a
collection size that would make TN inexact is refused. Expected values are computed by hand."""

import io
import math

import numpy as np
import pandas as pd
import pytest

from metrics import GroundTruth, InputError, Run, evaluate, judge, rank_run
from metrics.cli import main
from metrics.loaders import load_ids, load_labels, load_qrels, load_run
from metrics.ranking.pipelines import judge_embeddings

BIG = 2 ** 53 + 1            # the first integer that floating point cannot hold
LIMIT = 2 ** 63 - 1

# q1 judges 10 (relevant) and 11 (not); q2 judges 20. The run ranks 11 above 10 for q1, so by
# hand AP is 1/2 for q1 (its relevant item at rank 2) and 1 for q2.
QRELS = "1 0 10 1\n1 0 11 0\n2 0 20 1\n"
AP = [0.5, 1.0]


def float_run_frame() -> pd.DataFrame:
    """The run as pandas holds it after a missing value passed through its integer columns."""
    frame = pd.DataFrame({"query_id": [1, 1, 2, None], "item_id": [11, 10, 20, None],
                          "score": [2.0, 1.0, 1.0, 0.0]})
    frame = frame.dropna()
    assert frame["item_id"].dtype == np.float64
    return frame


def ap_and_warnings(run, qrels):
    judged = judge(run, qrels)
    return evaluate(judged, "AP").results["AP"].values.tolist(), judged.warnings


def cli(*args) -> int:
    """The command line's exit status, in this process (a usage error exits from argparse)."""
    try:
        return main([str(a) for a in args])
    except SystemExit as exit:
        return exit.code


def npy(array) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, np.asarray(array, dtype=np.float64))
    return buffer.getvalue()


NPY_NAMES = {"query_embeddings": "q.npy", "query_ids": "q.txt", "item_embeddings": "i.npy",
             "item_ids": "i.txt"}


def write(tmp_path, name, text):
    path = tmp_path / name
    path.write_text(text)
    return path


# ---- item 1: whole-float ids ------------------------------------------------------------------

@pytest.mark.parametrize("how", ["parquet", "csv", "tsv", "trec", "trec with a comment",
                                 "data frame"])
def test_whole_float_run_ids_match_integer_qrels(tmp_path, how):
    frame = float_run_frame()
    path = tmp_path / f"r.{how.split()[0]}"
    if how == "parquet":
        frame.to_parquet(path)
    elif how in ("csv", "tsv"):
        frame.to_csv(path, index=False, sep="," if how == "csv" else "\t")
        assert "10.0" in path.read_text()
    elif how.startswith("trec"):
        lines = "".join(f"{q} Q0 {d} 0 {s} t\n" for q, d, s in frame.itertuples(index=False))
        assert "1.0 Q0 11.0" in lines
        path.write_text(("# written by pandas\n" if "comment" in how else "") + lines)
    run = Run.from_dataframe(frame) if how == "data frame" else load_run(path)
    values, warnings = ap_and_warnings(run, load_qrels(write(tmp_path, "q.qrels", QRELS)))
    assert values == AP
    assert run.query_vocab.tolist() == ["1", "2"]
    assert not any("no judged item" in w for w in warnings)


@pytest.mark.parametrize("how", ["parquet", "csv", "data frame", "dict"])
def test_whole_float_qrels_ids_match_integer_run_ids(tmp_path, how):
    frame = pd.DataFrame({"query_id": [1.0, 1.0, 2.0], "item_id": [10.0, 11.0, 20.0],
                          "relevance": [1, 0, 1]})
    if how == "parquet":
        frame.to_parquet(tmp_path / "q.parquet")
        qrels = load_qrels(tmp_path / "q.parquet")
    elif how == "csv":
        frame.to_csv(tmp_path / "q.csv", index=False)
        qrels = load_qrels(tmp_path / "q.csv")
    elif how == "data frame":
        qrels = GroundTruth.from_dataframe(frame)
    else:
        qrels = GroundTruth.from_dict({1.0: {10.0: 1, 11.0: 0}, 2.0: {20.0: 1}})
    run = load_run(write(tmp_path, "r.run", "1 Q0 11 1 2 t\n1 Q0 10 2 1 t\n2 Q0 20 1 1 t\n"))
    assert ap_and_warnings(run, qrels)[0] == AP


def test_labels_and_id_lists_read_whole_float_ids_as_integers():
    items, labels = load_labels(b"item_id,label\n1.0,a\n2.0,a\n3.0,b\n", "l.csv")
    assert items.tolist() == ["1", "2", "3"] and labels.tolist() == ["a", "a", "b"]
    assert load_ids(b"7.0\n8.0\n", "ids.txt").tolist() == ["7", "8"]
    assert load_ids(b"item_id\n7.0\n8.0\n", "ids.csv").tolist() == ["7", "8"]


def test_embedding_id_lists_with_whole_floats_meet_integer_qrels():
    truth = load_qrels(b"5 0 11 1\n5 0 12 0\n", "q.qrels")
    judged = judge_embeddings(npy([[1, 0]]), b"5.0\n", npy([[0, 1], [1, 0.1], [1, 0]]),
                              b"10.0\n11.0\n12.0\n", truth, names=NPY_NAMES)
    # cosine: 12 (1.0) above 11 (0.995) above 10 (0): the relevant 11 at rank 2
    assert evaluate(judged, "AP").results["AP"].values.tolist() == [0.5]
    assert not any("no judged item" in w for w in judged.warnings)


def test_other_ids_stay_as_written():
    # a column with a non-whole value is not a column of integers: every id is kept as written
    run = Run.from_dataframe(pd.DataFrame({"query_id": ["q", "q"], "item_id": [1.0, 1.5],
                                           "score": [2.0, 1.0]}))
    assert run.item_ids.tolist() == ["1.0", "1.5"]
    run = load_run(b"query_id,item_id,score\nq,1.0,2\nq,1.5,1\n", "r.csv")
    assert run.item_ids.tolist() == ["1.0", "1.5"]
    run = load_run(b"q Q0 10.0 1 2 t\nq Q0 d7 2 1 t\n", "r.run")
    assert run.item_ids.tolist() == ["10.0", "d7"]
    run = load_run(b"q Q0 007 1 2 t\nq Q0 10 2 1 t\n", "r.run")
    assert run.item_ids.tolist() == ["007", "10"]


def test_a_float_id_beyond_2_to_the_53_is_refused(tmp_path):
    frame = pd.DataFrame({"query_id": ["q", "q"], "item_id": [1.0, float(2 ** 53)],
                          "score": [2.0, 1.0]})
    frame.to_parquet(tmp_path / "r.parquet")
    with pytest.raises(InputError, match=r"r\.parquet, row 2, column 'item_id': id "
                                         r"9007199254740992 is a floating-point number"):
        load_run(tmp_path / "r.parquet")
    with pytest.raises(InputError, match="row 2, column 'item_id'"):
        Run.from_dataframe(frame)


def test_a_run_that_finds_no_judged_item_for_most_queries_is_warned_about(tmp_path):
    qrels = load_qrels(write(tmp_path, "q.qrels", QRELS))
    run = load_run(write(tmp_path, "doc.run", "1 Q0 doc10 1 2 t\n2 Q0 doc20 1 1 t\n"))
    warnings = judge(run, qrels).warnings
    assert any("doc: 2 of 2 quer(ies) retrieved no judged item at all (first: query '1' "
               "retrieved 'doc10', the ground truth judges '10' for it)" in w
               and "id-format mismatch" in w for w in warnings), warnings
    # one query of two: not most of them, so no warning
    run = load_run(write(tmp_path, "half.run", "1 Q0 10 1 2 t\n2 Q0 doc20 1 1 t\n"))
    assert not any("no judged item" in w for w in judge(run, qrels).warnings)
    # labels judge every item: there is nothing to mismatch
    truth = GroundTruth.from_labels(["a", "b", "c"], ["x", "x", "y"])
    run = Run.from_lists({"a": ["c"], "b": ["c"], "c": ["a"]})
    assert not any("no judged item" in w for w in judge(run, truth).warnings)


def test_streamed_embeddings_warn_when_no_query_finds_a_judged_item():
    truth = load_qrels(b"a 0 10 1\nb 0 11 1\n", "q.qrels")
    judged = judge_embeddings(npy(np.eye(2)), b"a\nb\n", npy(np.eye(2)), b"d10\nd11\n", truth,
                              names=NPY_NAMES)
    assert any("2 of 2 quer(ies) retrieved no judged item" in w for w in judged.warnings)


# ---- item 4 and 7: grades are exact 64-bit integers on every path ----------------------------

@pytest.mark.parametrize("how", ["trec", "trec with a comment", "csv", "tsv", "parquet",
                                 "data frame", "dict"])
def test_grades_beyond_2_to_the_53_are_exact_on_every_path(tmp_path, how):
    rows = [("q1", "d1", BIG), ("q1", "d2", 0), ("q1", "d3", LIMIT), ("q1", "d4", -LIMIT)]
    frame = pd.DataFrame(rows, columns=["query_id", "item_id", "relevance"])
    assert frame["relevance"].dtype == np.int64
    if how.startswith("trec"):
        text = "".join(f"{q} 0 {d} {g}\n" for q, d, g in rows)
        truth = load_qrels(write(tmp_path, "g.qrels",
                                 ("# judged by hand\n" if "comment" in how else "") + text))
    elif how in ("csv", "tsv"):
        frame.to_csv(tmp_path / f"g.{how}", index=False, sep="," if how == "csv" else "\t")
        truth = load_qrels(tmp_path / f"g.{how}")
    elif how == "parquet":
        frame.to_parquet(tmp_path / "g.parquet")
        truth = load_qrels(tmp_path / "g.parquet")
    elif how == "data frame":
        truth = GroundTruth.from_dataframe(frame)
    else:
        truth = GroundTruth.from_dict({"q1": {d: g for _, d, g in rows}})
    assert truth.pair_grade.tolist() == [BIG, 0, LIMIT, -LIMIT]
    assert truth.max_grade == LIMIT


@pytest.mark.parametrize("content,line", [
    (b"q1 0 d1 1\nq1 0 d2 9223372036854775808\n", 2),           # the fast reader's file
    (b"# c\nq1 0 d1 1\nq1 0 d2 9223372036854775808\n", 3),      # the careful reader's
    (b"q1 0 d1 -9223372036854775808\n", 1),                     # -2^63: cannot be negated
    (b"query_id,item_id,relevance\nq1,d1,1e20\n", 2),
])
def test_a_grade_beyond_64_bits_is_refused_at_its_line(content, line):
    with pytest.raises(InputError, match=rf"g, line {line}, column 'relevance': relevance '.*' "
                                         r"is too large"):
        load_qrels(content, "g")


def test_a_float_grade_of_2_to_the_53_is_refused_as_inexact(tmp_path):
    # 2^53 + 1 stored as a float is 2^53: which of the two it was cannot be known
    frame = pd.DataFrame({"query_id": ["q", "q"], "item_id": ["a", "b"],
                          "relevance": [1.0, float(BIG)]})
    frame.to_parquet(tmp_path / "g.parquet")
    with pytest.raises(InputError, match=r"g\.parquet, row 2, column 'relevance': relevance "
                                         r"9007199254740992 is a floating-point number of 2\^53"):
        load_qrels(tmp_path / "g.parquet")
    with pytest.raises(InputError, match=r"row 2, column 'relevance'.*2\^53"):
        GroundTruth.from_dataframe(frame)
    # below 2^53 a whole float is exact, and read as the integer
    frame["relevance"] = [1.0, float(2 ** 53 - 1)]
    assert GroundTruth.from_dataframe(frame).pair_grade.tolist() == [1, 2 ** 53 - 1]


@pytest.mark.filterwarnings("error")   # a NumPy overflow warning fails the test
def test_grades_up_to_the_64_bit_limit_reach_the_measures_intact():
    # by hand: a (grade 2^63 − 1) at rank 1, b (grade −(2^63 − 1), never relevant) at rank 2,
    # c (grade 1) at rank 3; R = 2
    truth = GroundTruth.from_dict({"q": {"a": LIMIT, "b": -LIMIT, "c": 1}})
    run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
    judged = judge(run, truth)
    assert judged.max_grade == LIMIT and judged.hit_grades.tolist() == [LIMIT, -LIMIT, 1]
    values = evaluate(judged, f"AP,P@2,AP(rel={LIMIT}),nDCG,EP@1,Bpref").aggregate()
    # nDCG: DCG = g_a + g_c/log2(4) over IDCG = g_a + g_c/log2(3), in doubles
    g = float(LIMIT)
    assert values == pytest.approx({
        "AP": (1 + 2 / 3) / 2, "P@2": 0.5, f"AP(rel={LIMIT})": 1.0,
        "nDCG": (g + 1 / 2) / (g + 1 / math.log2(3)),
        # EP@1: Σ_t p_t P@1_t with p_t ∝ t over t = 1..gmax; a (at rank 1) passes every t
        "EP@1": 1.0, "Bpref": 1.0}, rel=1e-12)
    # the tie policies order by grade (optimistic: highest first) without overflow
    tied = Run.from_dict({"q": {"a": 1.0, "b": 1.0, "c": 1.0}})
    for policy, first in (("optimistic", LIMIT), ("pessimistic", -LIMIT)):
        assert judge(tied, truth, policy).hit_grades[0] == first


# ---- item 6b: ranks are exact ------------------------------------------------------------------

@pytest.mark.parametrize("how", ["csv", "parquet", "data frame", "lists"])
def test_ranks_2_to_the_53_and_one_more_do_not_tie(tmp_path, how):
    # a is ranked 2^53 + 1 and b 2^53: b comes first. Read through float64 both are 2^53, and
    # the tie would keep the file's order (a first).
    frame = pd.DataFrame({"query_id": ["q", "q"], "item_id": ["a", "b"],
                          "rank": [2 ** 53 + 1, 2 ** 53]})
    if how == "csv":
        frame.to_csv(tmp_path / "r.csv", index=False)
        run = load_run(tmp_path / "r.csv")
    elif how == "parquet":
        frame.to_parquet(tmp_path / "r.parquet")
        run = load_run(tmp_path / "r.parquet")
    elif how == "data frame":
        run = Run.from_dataframe(frame, score=None, rank="rank")
    else:
        run = Run.build(["q", "q"], ["a", "b"], ranks=[2 ** 53 + 1, 2 ** 53])
    assert run.ranks.tolist() == [2 ** 53 + 1, 2 ** 53]
    assert rank_run(run).item_ids.tolist() == ["b", "a"]


@pytest.mark.parametrize("rank,words", [
    ("1.5", "rank '1.5' is not a whole number"),
    ("9223372036854775808", "rank '9223372036854775808' is too large"),
    ("x", "rank 'x' is not a number")])
def test_a_rank_that_is_not_a_64_bit_whole_number_is_refused_at_its_line(rank, words):
    with pytest.raises(InputError, match=rf"r\.csv, line 3, column 'rank': {words}"):
        load_run(f"query_id,item_id,rank\nq,a,1\nq,b,{rank}\n".encode(), "r.csv")


# ---- item 6a: trec_eval's lines hold no whitespace --------------------------------------------

def test_trec_format_refuses_a_query_id_with_whitespace(tmp_path, capsys):
    run = write(tmp_path, "r.csv", 'query_id,item_id,score\n"q\t1",a,1\nq2,b,1\n')
    qrels = write(tmp_path, "q.csv", 'query_id,item_id,relevance\n"q\t1",a,1\nq2,b,1\n')
    assert cli("evaluate", run, qrels, "-m", "AP", "-f", "trec", "--per-query") == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert "query id 'q\\t1' contains whitespace" in captured.err
    assert "--format json, csv or table" in captured.err
    # the aggregate lines name no query: nothing to refuse
    assert cli("evaluate", run, qrels, "-m", "AP", "-f", "trec") == 0
    assert capsys.readouterr().out == "AP                    \tall\t1.0000\n"
    # json holds any id
    assert cli("evaluate", run, qrels, "-m", "AP", "-f", "json", "--per-query") == 0
    assert '"q\\t1"' in capsys.readouterr().out


def test_trec_format_refuses_a_query_named_all_and_measure_names_with_spaces(tmp_path, capsys):
    run = write(tmp_path, "r.run", "all Q0 a 1 1 t\n")
    qrels = write(tmp_path, "q.qrels", "all 0 a 1\n")
    assert cli("evaluate", run, qrels, "-m", "AP", "-f", "trec", "--per-query") == 2
    assert "query id 'all' is trec_eval's name for the aggregate line" in capsys.readouterr().err
    labels = write(tmp_path, "l.csv", "item_id,label\na,x\nb,x\n")
    matrix = tmp_path / "m.npy"
    np.save(matrix, np.eye(2))
    assert cli("evaluate-matrix", matrix, labels, "--protocol", "mirex-cover",
                 "-f", "trec") == 2
    err = capsys.readouterr().err
    assert err.count("\n") == 1 and "measure name 'Total covers in top 10' contains" in err


# ---- item 6c and 10: the collection size -------------------------------------------------------

@pytest.mark.parametrize("size", ["9223372036854775807", "9223372036854775808",
                                  "99999999999999999999999", str(2 ** 53 + 1)])
def test_a_collection_size_beyond_2_to_the_53_is_refused(tmp_path, capsys, size):
    run = write(tmp_path, "r.run", "1 Q0 10 1 1 t\n")
    qrels = write(tmp_path, "q.qrels", "1 0 10 1\n")
    assert cli("evaluate", run, qrels, "-m", "TN", "--collection-size", size) == 2
    captured = capsys.readouterr()
    assert captured.out == "" and captured.err.count("\n") == 1
    assert f"collection size {size} is too large: |D| can be at most 2^53" in captured.err
    with pytest.raises(InputError, match="is too large"):
        judge(load_run(run), load_qrels(qrels), collection_size=int(size))


def test_tn_at_a_collection_size_of_2_to_the_53_is_exact(tmp_path, capsys):
    run = write(tmp_path, "r.run", "1 Q0 10 1 2 t\n1 Q0 11 2 1 t\n")
    qrels = write(tmp_path, "q.qrels", "1 0 10 1\n1 0 12 1\n")
    assert cli("evaluate", run, qrels, "-m", "TN,FN", "-f", "json",
                 "--collection-size", str(2 ** 53)) == 0
    # by hand: 2 retrieved, R = 2 with one of them retrieved, so FN = 1, TN = |D| − 2 − 1
    out = capsys.readouterr().out
    assert f'"TN": {2 ** 53 - 3}.0' in out and '"FN": 1.0' in out
