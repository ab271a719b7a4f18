"""Reading input files (issue 29): quoted line ends in CSV, files that cannot or must not be read
(unreadable, links that loop, archives, pipes, devices), text read as a stream with a bound on
what gzip may expand to, and only \\n and \\r\\n ending a line. Expected values are written out by
hand; memory is measured with tracemalloc on inputs of a few megabytes."""

import gzip
import io
import os
import shutil
import subprocess
import sys
import tarfile
import threading
import time
import tracemalloc
import zipfile
from pathlib import Path

import numpy as np
import pytest

from metrics import InputError
from metrics.loaders import load_array, load_ids, load_labels, load_qrels, load_run
from metrics.loaders.arrays import open_array
from uploads import judge_upload

ROOT = Path(__file__).resolve().parents[1]
RUN = b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 2 0.5 s\nq2 Q0 d3 1 0.7 s\n"
QRELS = b"q1 0 d1 1\nq2 0 d3 1\n"
HEADER = b"query_id,item_id,score\n"
LIMIT = "METRICS_MAX_DECOMPRESSED_MB"


def error_of(call) -> str:
    with pytest.raises(InputError) as caught:
        call()
    return str(caught.value)


def items_of(truth) -> list[str]:
    """The judged items of a ground truth, in its pair order."""
    return truth.pair_items.take(np.arange(len(truth.pair_items))).tolist()


def peak_growth(call) -> tuple[int, object]:
    """(bytes allocated at the peak of ``call`` above what was allocated before, its outcome)."""
    tracemalloc.start()
    try:
        before = tracemalloc.get_traced_memory()[0]
        try:
            outcome = call()
        except InputError as exc:
            outcome = exc
        return tracemalloc.get_traced_memory()[1] - before, outcome
    finally:
        tracemalloc.stop()


# ---- a quoted CSV field may hold a line end (6a) -------------------------------------------------

def test_a_quoted_line_end_is_kept_and_later_lines_keep_their_numbers():
    data = HEADER + b'q1,"d\n1",0.5\nq1,d2,0.25\n'
    run = load_run(data, "a.csv")
    assert run.item_ids.tolist() == ["d\n1", "d2"] and run.scores.tolist() == [0.5, 0.25]
    # lines: 1 header, 2-3 the quoted row, 4 d2, 5 the bad score
    assert error_of(lambda: load_run(data + b"q1,d3,high\n", "a.csv")).startswith(
        "a.csv, line 5, column 'score': score 'high' is not a number")
    assert error_of(lambda: load_run(data + b"q1,d3\n", "a.csv")).startswith("a.csv, line 5: ")


def test_a_quoted_field_keeps_blank_lines_comment_marks_and_crlf():
    data = (b'query_id,item_id,relevance\r\nq1,"a\r\n\r\n# not a comment",1\r\n'
            b"# a comment\r\n\r\nq1,b,0\r\n")
    truth = load_qrels(data, "q.csv")
    assert items_of(truth) == ["a\r\n\r\n# not a comment", "b"]
    bad = data + b"q1,c,x\r\n"   # lines: 2-4 the quoted row, 5 comment, 6 blank, 7 b, 8 c
    assert "q.csv, line 8" in error_of(lambda: load_qrels(bad, "q.csv"))


def test_a_quote_left_open_is_named_by_the_line_it_opens_on():
    data = HEADER + b"q1,d1,0.5\n" + b'q1,"d2,0.5\n' + b"q1,d3,0.25\n" * 3
    assert error_of(lambda: load_run(data, "a.csv")) == (
        "a.csv, line 3: a quoted field starts on this line and its closing quote is missing")


def test_a_lone_carriage_return_is_kept_inside_quotes_and_refused_outside():
    assert load_run(HEADER + b'q1,"a\rb",0.5\n', "a.csv").item_ids.tolist() == ["a\rb"]
    for data in (HEADER + b"q1,d1,0.5\nq1,a\rb,0.5\n", HEADER + b'q1,d1,0.5\nq1,a\rb,"0.5"\n',
                 b"q1 Q0 d1 1 0.5 s\nq1 Q0 d\r2 2 0.5 s\n"):
        name, line = ("a.csv", 3) if b"," in data else ("a.run", 2)
        message = error_of(lambda: load_run(data, name))
        assert f"{name}, line {line}: a carriage return (\\r) not followed by \\n" in message


# ---- only \n and \r\n end a line (16) ------------------------------------------------------------

SEPARATORS = ["\x85", "\u2028", "\u2029", "\x0c", "\x0b", "\x1c", "\x1d", "\x1e"]


@pytest.mark.parametrize("char", SEPARATORS, ids=[f"U+{ord(c):04X}" for c in SEPARATORS])
def test_unicode_line_separators_and_form_feeds_stay_inside_their_field(char):
    item = f"d{char}1"
    texts = {"a.run": f"q1 Q0 {item} 1 0.9 s\nq1 Q0 d2 2 0.5 s\n",
             "a.csv": f"query_id,item_id,score\nq1,{item},0.9\nq1,d2,0.5\n",
             "b.csv": f'query_id,item_id,score\nq1,"{item}",0.9\nq1,d2,0.5\n',
             "c.csv": f"# {char} a comment\nquery_id,item_id,score\nq1,{item},0.9\nq1,d2,0.5\n"}
    for name, text in texts.items():
        run = load_run(text.encode(), name)
        assert run.item_ids.tolist() == [item, "d2"], name
        assert run.scores.tolist() == [0.9, 0.5], name
    bad = f"q1 Q0 {item} 1 0.9 s\nq1 Q0 d2 2 high s\n".encode()
    assert error_of(lambda: load_run(bad, "a.run")).startswith("a.run, line 2, column 'score'")
    assert items_of(load_qrels(f"q1 0 {item} 1\n".encode(), "a.qrels")) == [item]
    assert load_ids(f"a{char}b\nc\n".encode(), "ids.txt").tolist() == [f"a{char}b", "c"]
    items, labels = load_labels(f"item_id,label\nx,a{char}b\n".encode(), "l.csv")
    assert labels.tolist() == [f"a{char}b"]


# ---- files that cannot be read, or must not be (10, 11) ------------------------------------------

def test_an_unreadable_file_says_permission_denied(tmp_path):
    path = tmp_path / "locked.run"
    path.write_bytes(RUN)
    path.chmod(0)
    if os.geteuid() != 0:
        message = error_of(lambda: load_run(path))
    else:   # root reads any file: ask a process without that right
        if not shutil.which("setpriv"):
            pytest.skip("root, and no setpriv to drop the right to read any file")
        code = ("from metrics import InputError\nfrom metrics.loaders import load_run\n"
                f"try:\n    load_run({str(path)!r})\nexcept InputError as exc:\n    print(exc)")
        message = subprocess.run(
            ["setpriv", "--inh-caps=-dac_override,-dac_read_search",
             "--bounding-set=-dac_override,-dac_read_search", sys.executable, "-c", code],
            cwd=ROOT, capture_output=True, text=True, timeout=60).stdout.strip()
    assert message == (f"{path}: cannot be read: permission denied; check the permissions of "
                       f"the file and folder")


def test_links_that_loop_or_lead_nowhere_say_so(tmp_path):
    (tmp_path / "a.run").symlink_to(tmp_path / "b.run")
    (tmp_path / "b.run").symlink_to(tmp_path / "a.run")
    (tmp_path / "gone.run").symlink_to("nothing.run")
    assert "is a symbolic link loop" in error_of(lambda: load_run(tmp_path / "a.run"))
    assert error_of(lambda: load_run(tmp_path / "gone.run")).endswith(
        "is a symbolic link to 'nothing.run', which does not exist")
    assert error_of(lambda: load_run(tmp_path / "none.run")).endswith("file not found")


def archive(kind: str) -> bytes:
    buffer = io.BytesIO()
    if kind == "zip":
        with zipfile.ZipFile(buffer, "w") as made:
            made.writestr("a.run", RUN)
    else:
        with tarfile.open(fileobj=buffer, mode="w:gz" if kind == "tar.gz" else "w") as made:
            info = tarfile.TarInfo("a.run")
            info.size = len(RUN)
            made.addfile(info, io.BytesIO(RUN))
    return buffer.getvalue()


@pytest.mark.parametrize("kind,content", [
    ("zip", archive("zip")), ("tar", archive("tar")), ("tar", archive("tar.gz")),
    ("7z", b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(30)), ("xz", __import__("lzma").compress(RUN)),
    ("bzip2", __import__("bz2").compress(RUN)), ("zstd", b"\x28\xb5\x2f\xfd\x20\x10" + RUN),
    ("lz4", b"\x04\x22\x4d\x18\x64\x40\xa7" + RUN), ("rar", b"Rar!\x1a\x07\x01\x00" + RUN)])
def test_archives_are_named_and_gzip_offered(tmp_path, kind, content):
    path = tmp_path / "archive"
    path.write_bytes(content)
    words = f"is {'an' if kind == 'xz' else 'a'} {kind} archive, which is not read; gzip (.gz) is"
    for call in (lambda: load_run(path), lambda: load_run(content, "up.run"),
                 lambda: load_qrels(content, "up.qrels"), lambda: load_ids(content, "ids.txt"),
                 lambda: load_array(path)):
        assert words in error_of(call)


def test_an_npz_given_for_a_npy_says_how_to_save_one_array(tmp_path):
    np.savez(tmp_path / "m.npz", a=np.eye(2))
    assert "an .npz holds several arrays: save each with numpy.save" in error_of(
        lambda: load_array(tmp_path / "m.npz"))
    assert "is a zip archive" in error_of(lambda: open_array(tmp_path / "m.npz"))


def refused_without_blocking(call, fifo: Path) -> str:
    """The message of ``call`` reading ``fifo``, which must come at once: a reader that blocks is
    released (by opening the FIFO for writing) and the test fails."""
    outcome: list = []

    def read():
        try:
            call()
            outcome.append("loaded")
        except InputError as exc:
            outcome.append(str(exc))

    reader = threading.Thread(target=read, daemon=True)
    reader.start()
    reader.join(10)
    if reader.is_alive():
        with open(fifo, "wb"):
            pass
        reader.join(10)
        pytest.fail("reading a FIFO with no writer blocked")
    return outcome[0]


def test_a_fifo_with_no_writer_is_refused_at_once(tmp_path):
    fifo = tmp_path / "a.run"
    os.mkfifo(fifo)
    for call in (lambda: load_run(fifo), lambda: load_qrels(fifo), lambda: load_ids(fifo),
                 lambda: load_array(fifo), lambda: open_array(fifo)):
        assert refused_without_blocking(call, fifo) == (
            f"{fifo}: is a named pipe (FIFO), not a regular file: a loader reads a whole file, "
            f"and this could block or never end; save the data to a file first")


def test_devices_are_refused_before_reading():
    for call in (lambda: load_run("/dev/zero"), lambda: load_array("/dev/zero"),
                 lambda: open_array("/dev/zero"), lambda: load_run("/dev/null")):
        assert "is a device, not a regular file" in error_of(call)


def test_a_directory_is_refused(tmp_path):
    assert error_of(lambda: load_run(tmp_path)) == f"{tmp_path}: is a directory, not a file"


# ---- read as a stream: stop at the first bad block, bound what gzip expands to (11) -------------

def test_a_nul_in_the_first_block_stops_before_the_rest_is_read(tmp_path):
    path = tmp_path / "sparse.run"
    with open(path, "wb") as handle:
        handle.write(b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 2 0.5 s\n")
        handle.truncate(512 << 20)   # 512 MB of NULs, no disk space
    start = time.perf_counter()
    grown, outcome = peak_growth(lambda: load_run(path))
    assert str(outcome) == f"{path}, line 3: contains a NUL byte: this is not a text file"
    assert grown < 8 << 20 and time.perf_counter() - start < 5


def test_a_nul_past_the_first_block_is_named_by_its_line(tmp_path):
    from metrics.loaders.text import BLOCK

    lines = RUN * (BLOCK // len(RUN) + 100)   # 3 lines each, beyond the first block
    line = lines.count(b"\n") + 1
    for text in (lines, "é".encode() + lines):   # ASCII, and not
        data = text + b"q3 Q0 d\x00 1 0.5 s\n"
        path = tmp_path / "a.run"
        path.write_bytes(data)
        for source in (data, path):
            assert error_of(lambda: load_run(source, "a.run")) == (
                f"a.run, line {line}: contains a NUL byte: this is not a text file")


def test_utf8_cut_by_the_edge_of_a_block_is_whole_and_bad_bytes_there_are_found(tmp_path):
    from metrics.loaders.text import BLOCK

    comment = b"#" + b"x" * (BLOCK - 3) + b"\n"   # "é" starts on the last byte of the block
    good = comment + "é Q0 d1 1 0.5 s\n".encode()
    assert good[BLOCK - 1:BLOCK + 1] == "é".encode()
    path = tmp_path / "a.run"
    for data in (good, good[:BLOCK] + b"\xff" + good[BLOCK + 1:], good + b"q2 Q0 d2 1 1 s\xc3"):
        path.write_bytes(data)
        for source, name in ((data, "a.run"), (path, "a.run")):
            if data == good:
                assert load_run(source, name).query_ids.tolist() == ["é"]
            else:
                line = 2 if b"\xff" in data else 3
                assert error_of(lambda: load_run(source, name)) == (
                    f"a.run, line {line}: byte 0xc3 is not valid UTF-8; save the file as UTF-8 "
                    f"text")


def test_gzip_is_refused_as_soon_as_it_expands_past_the_bound(monkeypatch):
    monkeypatch.setenv(LIMIT, "1")
    bomb = gzip.compress(b"q1 Q0 d1 1 0.5 s\n" * 4_000_000)   # 68 MB from 130 kB
    start = time.perf_counter()
    grown, outcome = peak_growth(lambda: load_run(bomb, "bomb.run.gz"))
    assert str(outcome) == (
        "bomb.run.gz: expands to more than 1 MiB once decompressed, the most one file may "
        "expand to; give it uncompressed, or raise the bound with the environment variable "
        "METRICS_MAX_DECOMPRESSED_MB")
    assert grown < 6 << 20 and time.perf_counter() - start < 5
    monkeypatch.setenv(LIMIT, "100")
    assert len(load_run(bomb, "bomb.run.gz")) == 1   # duplicates of one pair, within the bound


def test_the_bound_is_a_whole_number_of_megabytes(monkeypatch):
    monkeypatch.setenv(LIMIT, "2G")
    assert error_of(lambda: load_run(gzip.compress(RUN), "a.run.gz")) == (
        "METRICS_MAX_DECOMPRESSED_MB='2G' is not a whole number of megabytes (MiB), such as 1024")
    monkeypatch.delenv(LIMIT)
    from metrics.loaders.text import decompressed_limit
    assert decompressed_limit() == 1 << 30


def test_gzip_of_short_lines_bad_on_line_1_costs_about_its_decompressed_size():
    lines = b"x\n" * 4_000_000   # 8 MB: four million one-field lines
    compressed = gzip.compress(lines)
    grown, outcome = peak_growth(lambda: load_run(compressed, "a.run.gz"))
    assert str(outcome).startswith("a.run.gz, line 1: expected 6 whitespace-separated fields")
    assert grown < 2 * len(lines) + (16 << 20)   # the text, and one block's rows


def test_gzip_past_what_is_kept_in_blocks_is_decompressed_once_in_one_piece(monkeypatch):
    from metrics.loaders import text

    monkeypatch.setattr(text, "_KEEP_BLOCKS", 1 << 20)
    plain = b"".join(b"q%d Q0 d%d %d 0.5 s\n" % (i // 100, i, i % 100) for i in range(400_000))
    compressed = gzip.compress(plain)
    grown, data = peak_growth(lambda: text.read_bytes(compressed, "a.run.gz"))
    assert data == plain and grown < len(plain) + len(plain) // 4


def test_gzip_members_are_all_read_and_trailing_garbage_is_refused():
    from metrics.loaders.text import read_bytes

    two = gzip.compress(RUN[:17]) + gzip.compress(RUN[17:])
    assert read_bytes(two, "a.gz") == RUN
    assert "bytes after the end of its gzip data" in error_of(
        lambda: read_bytes(two + b"junk", "a.gz"))
    assert "cannot be decompressed" in error_of(lambda: read_bytes(two[:-12], "a.gz"))


def test_gzip_members_past_what_is_kept_are_decompressed_again_each_whole(monkeypatch):
    # the second, one-piece decompression takes each member from where the first pass found it
    from metrics.loaders import text

    monkeypatch.setattr(text, "_KEEP_BLOCKS", 1 << 20)
    parts = [b"".join(b"q%d Q0 d%d 1 0.5 s\n" % (m, i) for i in range(n))
             for m, n in enumerate((60_000, 1, 90_000))]
    members = b"".join(gzip.compress(p) for p in parts)
    assert text.read_bytes(members, "a.run.gz") == b"".join(parts)
    assert "has 3 bytes after the end of its gzip data" in error_of(
        lambda: text.read_bytes(members + b"abc", "a.run.gz"))


# ---- a panic inside polars is the fast path's failure, not the file's (10) ----------------------

def panic(*args, **kwargs):
    """What polars raises when its Rust code panics (a BaseException, not an Exception)."""
    import polars as pl

    raise pl.exceptions.PanicException("capacity overflow")


def test_a_polars_panic_falls_back_to_the_careful_reader(monkeypatch):
    import polars as pl
    from metrics.loaders import runs

    expected = load_run(RUN, "a.run")
    monkeypatch.setattr(runs, "COMPILED", False)   # the C reader would read these before polars
    monkeypatch.setattr(pl, "read_csv", panic)
    run = load_run(RUN, "a.run")
    assert run.query_ids.tolist() == expected.query_ids.tolist() == ["q1", "q1", "q2"]
    assert run.scores.tolist() == [0.9, 0.5, 0.7]
    assert items_of(load_qrels(QRELS, "a.qrels")) == ["d1", "d3"]
    assert "line 2, column 'score'" in error_of(
        lambda: load_run(b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 2 x s\n", "a.run"))


def test_a_polars_panic_while_grouping_queries_falls_back_to_pandas(monkeypatch):
    import polars as pl
    from metrics.loaders import runs

    monkeypatch.setattr(runs, "COMPILED", False)   # the C reader would read it before polars
    monkeypatch.setattr(pl.Series, "rle", panic)
    assert load_run(RUN, "a.run").query_ids.tolist() == ["q1", "q1", "q2"]


# ---- the app reads uploads the same way --------------------------------------------------------

@pytest.mark.parametrize("name,content", [
    ("a.zip", archive("zip")), ("a.csv", HEADER + b'q1,"d\n1",0.5\nq1,d2,x\n'),
    ("a.run", "q1 Q0 d1 1 0.5 s\rq1".encode()), ("a.run", b"q1 Q0 d1 1 0.5 s\n\x00"),
    ("a.run.gz", gzip.compress(b"x\n" * 1000)), ("a.csv", HEADER + b'q1,"d1,0.5\n')])
def test_uploads_get_the_same_messages(name, content):
    message = error_of(lambda: load_run(content, name))
    assert error_of(lambda: judge_upload("runs+qrels", {"runs": [(name, content)],
                                                        "qrels": [("q.qrels", QRELS)]})) == message


# ---- the command line: exit 2 and one line, for arrays and ground truth too ----------------------

@pytest.mark.parametrize("role", ["matrix", "labels", "qrels"])
def test_cli_refuses_a_fifo_in_any_role_at_once(tmp_path, role):
    np.save(tmp_path / "m.npy", np.eye(2))
    (tmp_path / "labels.csv").write_text("item_id,label\na,x\nb,x\n")
    (tmp_path / "a.run").write_bytes(RUN)
    (tmp_path / "q.qrels").write_bytes(QRELS)
    fifo = tmp_path / "fifo"
    os.mkfifo(fifo)
    files = {"matrix": ["evaluate-matrix", fifo, tmp_path / "labels.csv"],
             "labels": ["evaluate-matrix", tmp_path / "m.npy", fifo],
             "qrels": ["evaluate", tmp_path / "a.run", fifo]}[role]
    done = subprocess.run([sys.executable, "-m", "metrics", *map(str, files)], cwd=ROOT,
                          capture_output=True, text=True, timeout=60)
    assert done.returncode == 2 and done.stdout == ""
    assert done.stderr == (f"error: {fifo}: is a named pipe (FIFO), not a regular file: a loader "
                           f"reads a whole file, and this could block or never end; save the "
                           f"data to a file first\n")
