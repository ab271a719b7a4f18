"""Runs judged as they are read (issue 34, metrics.ranking.run_stream): the same judged ranking as
the whole-file path under every tie policy, bit for bit, on sorted, unsorted and gzip runs with
tiny blocks (so that tie groups and queries straddle block edges), and the same values as
pytrec_eval; what makes the stream give way to the whole-file path; the command line's --memory."""

import gzip
import json
import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics import InputError, evaluate
from metrics.data.ties import TiePolicy
from metrics.loaders import load_qrels, load_run
from metrics.loaders.run_blocks import run_blocks
from metrics.ranking.rank import judge
from metrics.ranking.run_stream import judge_run_stream
from tied_runs import agrees_with_pytrec_eval, same_judged, write_run

ROOT = Path(__file__).resolve().parents[1]
MEASURES = "AP,P@5,P@10,RR,nDCG@10,Bpref,Rprec,R@5,Judged@5"


@pytest.mark.parametrize("ties", list(TiePolicy))
@pytest.mark.parametrize("block", [1, 50, 300, 1 << 20])
def test_streamed_equals_whole_file_under_every_policy(tmp_path, ties, block):
    run_path, qrels_path = write_run(tmp_path, seed=len(ties) * 7 + block % 97)
    truth = load_qrels(qrels_path)
    whole = judge(load_run(run_path), truth, ties, keep_lists=False)
    streamed = judge_run_stream(run_path, truth, ties, block=block)
    assert streamed is not None
    same_judged(streamed.judged, whole)
    named = judge_run_stream(run_path, truth, ties, block=block, by_tag=True)
    assert named.tag == named.judged.name == "tag"
    if ties != "expected":   # expected supports fewer measures; checked below
        a = evaluate(streamed.judged, MEASURES)
        b = evaluate(whole, MEASURES)
        for m in a.results:
            assert np.array_equal(a.results[m].values, b.results[m].values, equal_nan=True), m
        assert a.warnings == b.warnings


def test_blocks_cut_inside_queries_and_tie_groups(tmp_path):
    run_path, _ = write_run(tmp_path, seed=3)
    lines = run_path.read_text().splitlines()
    blocks = list(run_blocks(run_path, str(run_path), 40))
    assert len(blocks) > len(lines) // 2   # nearly a block per line: every edge is cut
    assert sum(len(b) for b in blocks) == len(lines)


def test_gzip_streams_the_same(tmp_path):
    run_path, qrels_path = write_run(tmp_path, seed=11)
    gz = tmp_path / "run.trec.gz"
    data = run_path.read_bytes()
    gz.write_bytes(gzip.compress(data[:len(data) // 2]) + gzip.compress(data[len(data) // 2:]))
    truth = load_qrels(qrels_path)
    for ties in (TiePolicy.TREC9, TiePolicy.EXPECTED):
        whole = judge(load_run(gz), truth, ties, keep_lists=False)
        streamed = judge_run_stream(gz, truth, ties, block=100)
        assert streamed is not None
        same_judged(streamed.judged, whole)


def test_unsorted_run_gives_way_to_the_whole_file(tmp_path):
    run_path, qrels_path = write_run(tmp_path, seed=5, shuffled=True)
    assert judge_run_stream(run_path, load_qrels(qrels_path), TiePolicy.TREC9, block=64) is None


def test_files_the_fast_reader_refuses_give_way(tmp_path):
    run_path, qrels_path = write_run(tmp_path, seed=6)
    truth = load_qrels(qrels_path)
    commented = tmp_path / "commented.trec"
    commented.write_text("# a comment\n" + run_path.read_text())
    assert judge_run_stream(commented, truth, block=64) is None
    empty = tmp_path / "empty.trec"
    empty.write_text("")
    assert judge_run_stream(empty, truth) is None
    floats = tmp_path / "floats.trec"
    floats.write_text(run_path.read_text() + "q99 Q0 7.0 1 0.5 tag\n")
    assert judge_run_stream(floats, truth, block=10 ** 6) is not None
    floats.write_text("q99 Q0 7.0 1 0.5 tag\n" + run_path.read_text())
    assert judge_run_stream(floats, truth, block=10 ** 6) is None


def test_id_policy_with_whole_and_other_ids_in_different_blocks(tmp_path, monkeypatch):
    """``id`` compares tied ids numerically only when every tied id of the run is a whole
    number: tied queries are ranked together in batches, so a run whose tied ids disagree gives
    the whole file's values when they are in one batch, and is read whole when they are not."""
    from metrics.ranking import run_stream

    text = ("q1 Q0 10 1 1.0 t\nq1 Q0 9 2 1.0 t\n" + "q2 Q0 b 1 1.0 t\nq2 Q0 a 2 1.0 t\n")
    run_path = tmp_path / "mixed.trec"
    run_path.write_text(text)
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 9 1\nq2 0 a 1\n")
    truth = load_qrels(qrels)
    streamed = judge_run_stream(run_path, truth, TiePolicy.ID, block=20)
    whole = judge(load_run(run_path), truth, "id", keep_lists=False)
    same_judged(streamed.judged, whole)
    assert whole.hit_ranks.tolist() == [2, 1]   # 10 before 9 as text; a before b
    monkeypatch.setattr(run_stream, "batch_lines", lambda block: 2)   # a batch per query
    assert judge_run_stream(run_path, truth, TiePolicy.ID, block=20, long_lists=False) is None
    # as long lists (each query's lines fill blocks of 20 bytes), judged in both orders, they
    # take the run's
    same_judged(judge_run_stream(run_path, truth, TiePolicy.ID, block=20).judged, whole)
    run_path.write_text(text.replace(" b ", " 12 ").replace(" a ", " 11 "))
    qrels.write_text("q1 0 9 1\nq2 0 11 1\n")
    truth = load_qrels(qrels)
    streamed = judge_run_stream(run_path, truth, TiePolicy.ID, block=20)
    same_judged(streamed.judged, judge(load_run(run_path), truth, "id", keep_lists=False))


@pytest.mark.parametrize("shuffled", [False, True])
def test_agrees_with_pytrec_eval(tmp_path, shuffled):
    """Per-query AP, P@10, RR, nDCG@10, bpref and R-prec as pytrec_eval computes them (scores as
    float32, ties by id descending: the trec9 policy), streamed through blocks of 64 bytes."""
    run_path, qrels_path = write_run(tmp_path, seed=21 + shuffled, queries=30,
                                     shuffled=shuffled)
    truth = load_qrels(qrels_path)
    streamed = judge_run_stream(run_path, truth, TiePolicy.TREC9, block=64)
    judged = streamed.judged if streamed is not None else judge(load_run(run_path), truth,
                                                                "trec9")
    assert (streamed is None) == shuffled
    assert agrees_with_pytrec_eval(judged, run_path, qrels_path) > 100


def test_command_line_memory_option_gives_the_same_output(tmp_path):
    run_path, qrels_path = write_run(tmp_path, seed=8, queries=40)
    outputs = []
    for extra in ([], ["--memory", "16M"]):
        done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", str(run_path),
                               str(qrels_path), "--measures", "AP,P@10", "--ties", "trec9",
                               "--format", "json", "--per-query", *extra],
                              capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0] == outputs[1]
    done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", str(run_path),
                           str(qrels_path), "--memory", "1M"], capture_output=True, text=True,
                          cwd=ROOT)
    assert done.returncode == 2 and "16M minimum" in done.stderr


def test_streamed_gzip_is_not_bound_by_the_whole_file_limit(tmp_path, monkeypatch):
    """METRICS_MAX_DECOMPRESSED_MB bounds a gzip read whole (it is held in memory); a streamed
    one holds a block at a time, so the command line evaluates it, with the plain file's values."""
    run_path, qrels_path = write_run(tmp_path, seed=9, queries=40)
    plain = tmp_path / "big.run"
    plain.write_bytes(run_path.read_bytes() + b"".join(b"z%d Q0 d1 1 0.5 tag\n" % i
                                                       for i in range(80_000)))
    assert plain.stat().st_size > 1 << 20
    gz = tmp_path / "big.run.gz"
    gz.write_bytes(gzip.compress(plain.read_bytes()))
    monkeypatch.setenv("METRICS_MAX_DECOMPRESSED_MB", "1")
    with pytest.raises(InputError, match="expands to more than 1 MiB"):
        load_run(gz)
    outputs = []
    for path in (gz, plain):
        done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", str(path),
                               str(qrels_path), "-m", "AP,nDCG@10", "-f", "json",
                               "--per-query"], capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        outputs.append(json.loads(done.stdout))
    assert outputs[0]["per_query"] == outputs[1]["per_query"]


def test_compare_names_a_streamed_run_by_its_tag(tmp_path):
    from metrics.ranking.pipelines import judge_run_file

    run_path, qrels_path = write_run(tmp_path, seed=12)
    truth = load_qrels(qrels_path)
    streamed = judge_run_file(run_path, truth, TiePolicy.TREC10, keep_lists=False)
    whole = judge_run_file(run_path, truth, TiePolicy.TREC10)
    assert streamed.name == whole.name == "tag" and streamed.lists is None
    same_judged(streamed, whole)


def test_ground_truth_items_stay_in_the_loaders_column(tmp_path):
    """A ground truth read from a file keeps its judged items in the loader's column (no Python
    string per judgement: W7's 4.9 M judgements cost 0.3 GB less), and reads as the array of
    ids it stands for."""
    from metrics.data.idcolumn import IdArray

    _, qrels_path = write_run(tmp_path, seed=13)
    truth = load_qrels(qrels_path)
    ids = [line.split()[2] for line in qrels_path.read_text().splitlines()]
    assert isinstance(truth.pair_item, IdArray)
    assert list(truth.pair_item) == truth.pair_item.tolist() == ids == list(np.asarray(
        truth.pair_item))
    assert truth.pair_item[3] == ids[3] and truth.pair_item[np.int64(4)] == ids[4]
    assert truth.pair_item[np.array([5, 1])].tolist() == [ids[5], ids[1]]
    assert truth.pair_item[2:4].tolist() == ids[2:4] and len(truth.pair_item) == len(ids)
    mask = np.arange(len(ids)) % 2 == 0
    assert truth.pair_item[mask].tolist() == ids[::2]


def to_parquet(run_path: Path, out: Path, **columns) -> Path:
    """The TREC run as Parquet (query_id, item_id, score, tag), in row groups of 7 rows."""
    import pandas as pd
    import pyarrow as pa
    import pyarrow.parquet as pq

    rows = [line.split() for line in run_path.read_text().splitlines()]
    frame = pd.DataFrame({"query_id": [r[0] for r in rows], "item_id": [r[2] for r in rows],
                          "score": [float(r[4]) for r in rows], "tag": [r[5] for r in rows]})
    for name, values in columns.items():
        frame[name] = values(frame)
    pq.write_table(pa.Table.from_pandas(frame, preserve_index=False), out, row_group_size=7)
    return out


@pytest.mark.parametrize("ties", list(TiePolicy))
def test_parquet_streams_by_batches_the_same(tmp_path, ties):
    run_path, qrels_path = write_run(tmp_path, seed=31)
    parquet = to_parquet(run_path, tmp_path / "run.parquet")
    truth = load_qrels(qrels_path)
    whole = judge(load_run(parquet), truth, ties, keep_lists=False)
    for block in (1, 640, 1 << 20):   # batches of 1, 10 and all rows
        streamed = judge_run_stream(parquet, truth, ties, block=block)
        assert streamed is not None
        same_judged(streamed.judged, whole)
        assert judge_run_stream(parquet, truth, ties, block=block, by_tag=True).tag == "tag"


def test_parquet_the_loader_must_read_gives_way(tmp_path):
    run_path, qrels_path = write_run(tmp_path, seed=32)
    truth = load_qrels(qrels_path)
    for name, column in (("nan", {"score": lambda f: f["score"].where(f.index != 5)}),
                         ("ints", {"item_id": lambda f: f.index.to_numpy()}),
                         ("empty", {"item_id": lambda f: f["item_id"].where(f.index != 3, "")})):
        parquet = to_parquet(run_path, tmp_path / f"{name}.parquet", **column)
        assert judge_run_stream(parquet, truth, block=64) is None, name


def test_memory_does_not_grow_with_a_sorted_run(tmp_path):
    """Peak memory of judging a sorted run of 0.5 M lines and of 3 M lines (six times the text)
    differs by a few MB, where the whole-file path takes about 130 MB more per million lines."""
    block = b"".join(b"q%d Q0 doc%d %d %.4f run\n" % (q, d, d, 100 - d / 10)
                     for q in range(100) for d in range(1, 1001))   # 100,000 lines
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 doc5 1\nq2 0 doc900 1\n")
    peaks = []
    for copies in (5, 30):
        run = tmp_path / f"run{copies}.trec"
        with run.open("wb") as handle:
            handle.write(block)
            for copy in range(1, copies):
                handle.write(block.replace(b"\nq", b"\nc%dq" % copy).replace(b"q0 ", b"c%dq0 "
                                                                             % copy, 1))
        done = subprocess.run(
            [sys.executable, "-c",
             "import resource, sys\n"
             "from metrics.loaders import load_qrels\n"
             "from metrics.data.ties import TiePolicy\n"
             "from metrics.ranking.run_stream import judge_run_stream\n"
             "s = judge_run_stream(sys.argv[1], load_qrels(sys.argv[2]), TiePolicy.TREC9,\n"
             "                     memory=32 << 20)\n"
             "assert s is not None and s.judged.lengths.tolist() == [1000, 1000]\n"
             "print(resource.getrusage(resource.RUSAGE_SELF).ru_maxrss)", str(run), str(qrels)],
            capture_output=True, text=True, cwd=ROOT)
        assert done.returncode == 0, done.stderr
        peaks.append(int(done.stdout) / 1024)   # MB
    assert peaks[1] - peaks[0] < 30, peaks


def test_a_file_of_nul_bytes_stops_the_stream_at_its_first_block(tmp_path):
    # 2 GB of NULs (sparse: no disk) have no line end to cut a block at: the stream had grown its
    # buffer to the file's size (8 GB peak, 40 s) before the whole-file loader named line 1
    import tracemalloc

    from metrics.loaders.run_blocks import NotStreamable

    path = tmp_path / "nuls.run"
    with open(path, "wb") as handle:
        handle.truncate(2 << 30)
    tracemalloc.start()
    try:
        with pytest.raises(NotStreamable):
            next(run_blocks(path, "nuls.run", 1 << 20))
        peak = tracemalloc.get_traced_memory()[1]
    finally:
        tracemalloc.stop()
    assert peak < 64 << 20, peak
    with pytest.raises(InputError, match="contains a NUL byte") as refused:
        load_run(path)
    assert refused.value.line == 1
