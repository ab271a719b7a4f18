"""The catalogue of hostile and broken inputs: each case is a test (tests/test_bad_inputs.py) and a
row of docs/bad_inputs.md, which docs/generate.py writes from the cases' real outcomes
(:func:`run_case`)."""

from __future__ import annotations

import bz2
import errno
import gzip
import io
import json
import lzma
import os
import sys
import tempfile
import zipfile
from contextlib import ExitStack, contextmanager
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Callable
from unittest import mock

import numpy as np

ROOT = Path(__file__).resolve().parents[1]
if str(ROOT) not in sys.path:
    sys.path.insert(0, str(ROOT))

from metrics import InputError, judge  # noqa: E402
from metrics.loaders import (load_ids, load_labels, load_qrels,  # noqa: E402
                             load_run, load_score_matrix, load_taxonomy)
from metrics.explain.what_if import edits_text, parse_edits  # noqa: E402
from metrics.loaders.arrays import load_array  # noqa: E402
from metrics.loaders.metadata import read_item_table, read_query_table  # noqa: E402
from metrics.ranking.inputs import EvaluationInputs  # noqa: E402
from metrics.ranking.pipelines import judge_inputs  # noqa: E402

RUN = b"q1 Q0 d1 1 0.9 s\nq1 Q0 d2 2 0.5 s\nq2 Q0 d3 1 0.7 s\n"
QRELS = b"q1 0 d1 1\nq1 0 d2 0\nq2 0 d3 2\n"


def parquet(columns: dict) -> bytes:
    import pandas as pd
    buffer = io.BytesIO()
    pd.DataFrame(columns).to_parquet(buffer)
    return buffer.getvalue()


def npy(array, allow_pickle=False) -> bytes:
    buffer = io.BytesIO()
    np.save(buffer, array, allow_pickle=allow_pickle)
    return buffer.getvalue()


@dataclass(frozen=True)
class Case:
    name: str
    what: str           # "run", "qrels", "labels", "ids", "matrix", "array", "embeddings", ...
    file: str
    content: bytes
    outcome: str        # "error", "warning" or "loads"
    words: str          # what the message must say (for "loads": what must be true)
    line: int | None = None
    # not a file's content but a thing in the file system: made in an empty folder, its path read
    make: Callable[[Path], Path] | None = None
    unprivileged: bool = False          # read without root's right to read any file
    env: tuple[tuple[str, str], ...] = ()   # environment variables set for the case
    describe: Callable[[object], str] | None = None   # what a loaded run shows ("loads" cases)


def _file(content: bytes, mode: int | None = None):
    def make(folder: Path) -> Path:
        path = folder / "a.run"
        path.write_bytes(content)
        if mode is not None:
            path.chmod(mode)
        return path
    return make


def _link(target: str):
    def make(folder: Path) -> Path:
        (folder / "a.run").symlink_to(target)
        return folder / "a.run"
    return make


def _fifo(folder: Path) -> Path:
    os.mkfifo(folder / "a.run")
    return folder / "a.run"


def _sparse_nuls(folder: Path) -> Path:
    with open(folder / "a.run", "wb") as handle:
        handle.truncate(256 << 20)   # 256 MB of NULs that take no disk space
    return folder / "a.run"


def _one_long_line(folder: Path) -> Path:
    """50 MB of one line without a line end (no run's line is longer than 1 MiB)."""
    path = folder / "a.run"
    with open(path, "wb") as handle:
        handle.write(b"q1 Q0 ")
        chunk = b"x" * (1 << 20)
        for _ in range(50):
            handle.write(chunk)
    return path


def _zip(content: bytes) -> bytes:
    buffer = io.BytesIO()
    with zipfile.ZipFile(buffer, "w") as archive:
        archive.writestr("a.run", content)
    return buffer.getvalue()


def _first_item(run) -> str:
    return f"{len(run)} rows; first item {str(run.item_ids[0])!r}"


def _query_and_item(run) -> str:
    return f"query {run.query_ids[0]} / item {run.item_ids[0]}"


def _script_kept(run) -> str:
    return "ids kept as text" if run.query_ids[0] == "<script>alert(1)</script>" else "ids changed"


CASES = [
    Case("wrong column count (too few)", "run", "a.run", b"q1 Q0 d1 1 0.5 s\nq1 Q0 d2 0.4\n",
         "error", "expected 6 whitespace-separated fields", 2),
    Case("wrong column count (too many)", "run", "a.run", b"q1 Q0 d1 1 0.5 s extra\n", "error",
         "found 7", 1),
    Case("non-numeric score", "run", "a.run", b"q1 Q0 d1 1 0.5 s\nq1 Q0 d2 2 high s\n", "error",
         "score 'high' is not a number", 2),
    Case("NaN score", "run", "a.run", b"q1 Q0 d1 1 nan s\n", "error", "not a finite number", 1),
    Case("infinite score", "run", "a.run", b"# c\nq1 Q0 d1 1 -inf s\n", "error",
         "not a finite number", 2),
    Case("non-numeric grade", "qrels", "a.qrels", b"q1 0 d1 1\nq1 0 d2 yes\n", "error",
         "relevance 'yes' is not a number", 2),
    Case("NaN grade", "qrels", "a.qrels", b"q1 0 d1 NaN\n", "error", "not a finite number", 1),
    Case("fractional grade", "qrels", "a.qrels", b"q1 0 d1 0.5\n", "error",
         "not a whole number", 1),
    Case("grade beyond 64 bits", "qrels", "a.qrels", b"q1 0 d1 1\nq1 0 d2 9223372036854775808\n",
         "error", "relevance '9223372036854775808' is too large", 2),
    Case("float grade of 2^53 or more (Parquet)", "qrels", "a.parquet",
         parquet({"query_id": ["q1"], "item_id": ["d1"], "relevance": [2.0 ** 53]}), "error",
         "is a floating-point number of 2^53 or more"),
    Case("fractional rank in a bare ranked list", "run", "a.csv",
         b"query_id,item_id,rank\nq1,d1,1\nq1,d2,1.5\n", "error",
         "rank '1.5' is not a whole number", 3),
    Case("whole-float ids (10.0, as pandas writes them)", "run", "a.csv",
         b"query_id,item_id,score\n1.0,10.0,0.9\n1.0,11.0,0.5\n", "loads", "query 1 / item 10",
         describe=_query_and_item),
    Case("run retrieving no judged item for most queries", "run+qrels", "a.run",
         b"q1 Q0 doc-d1 1 0.9 s\nq2 Q0 doc-d3 1 0.7 s\n", "warning",
         "retrieved no judged item at all"),
    Case("negative grade", "qrels", "a.qrels", b"q1 0 d1 -1\nq1 0 d2 1\n", "warning",
         "negative grade(s): pooled but not judged"),
    Case("empty file", "run", "a.run", b"", "error", "is empty"),
    Case("only comments and blank lines", "run", "a.run", b"# nothing\n\n", "error", "is empty"),
    Case("header-only CSV", "run", "a.csv", b"query_id,item_id,score\n", "error",
         "header but no rows"),
    Case("CSV row shorter than its header", "run", "a.csv",
         b"query_id,item_id,score\nq1,d1,0.5\nq1,d2\n", "error", "expected 3 fields", 3),
    Case("CSV header without an item column", "run", "a.csv", b"query_id,score\nq1,0.5\n",
         "error", "lacks column(s) item_id", 1),
    Case("empty id", "run", "a.csv", b"query_id,item_id,score\nq1,,0.5\n", "error", "is empty", 2),
    Case("UTF-8 byte-order mark", "run", "a.run", b"\xef\xbb\xbf" + RUN, "loads", "3 rows"),
    Case("Windows line endings", "run", "a.run", RUN.replace(b"\n", b"\r\n"), "loads", "3 rows"),
    Case("mixed tabs and runs of spaces", "run", "a.run",
         b"q1\tQ0  d1 1\t0.9 s\nq1 Q0\td2 2 0.5   s\nq2 Q0 d3 1 0.7 s\n", "loads", "3 rows"),
    Case("non-UTF-8 bytes", "run", "a.run", b"q1 Q0 d1 1 0.5 s\nq1 Q0 d\xff 2 0.4 s\n", "error",
         "not valid UTF-8", 2),
    Case("gzipped file given as text", "run", "a.run", gzip.compress(RUN), "loads", "3 rows"),
    Case("damaged gzip", "run", "a.run.gz", b"\x1f\x8b\x08\x00garbage", "error", "gzipped"),
    Case("binary file given as text", "run", "a.run", npy(np.eye(2)), "error", "binary file"),
    Case("duplicated (query, item) in a run", "run", "a.run", RUN + b"q1 Q0 d1 3 0.1 s\n",
         "warning", "1 duplicated (query, item) pair(s) dropped, the first occurrence kept"),
    Case("duplicated (query, item) in qrels", "qrels", "a.qrels", QRELS + b"q1 0 d1 0\n",
         "warning", "duplicated (query, item) judgement(s) dropped, the first occurrence kept"),
    Case("query in the run but not in the ground truth", "run+qrels", "a.run",
         RUN + b"q9 Q0 d1 1 1 s\n", "warning", "1 run quer(ies) not in the ground truth"),
    Case("query in the ground truth but not in the run", "qrels+run", "a.qrels",
         QRELS + b"q8 0 d1 1\n", "warning", "1 ground-truth quer(ies) are not in the run"),
    Case("ids with spaces, quotes and commas (CSV)", "run", "a.csv",
         b'query_id,item_id,score\n"q 1","it\'s ""quoted"", really",0.5\n', "loads",
         "query q 1 / item it's \"quoted\", really", describe=_query_and_item),
    Case("ids with HTML and script", "run", "a.run",
         b"<script>alert(1)</script> Q0 <img/src=x/onerror=alert(1)> 1 0.5 s\n", "loads",
         "ids kept as text", describe=_script_kept),
    Case("labels file listing an item twice", "labels", "l.csv", b"item_id,label\na,x\nb,x\na,y\n",
         "error", "listed twice", 4),
    Case("labels file whose rows do not match the matrix", "matrix+labels", "short.csv",
         b"item_id,label\na,x\nb,x\n", "error", "lists 2 ids but"),
    Case("id list with a repeated id", "ids", "ids.txt", b"a\nb\na\n", "error", "listed twice", 3),
    Case("non-square matrix", "matrix", "m.npy", npy(np.ones((2, 3))), "error", "must be square"),
    Case("NaN in a matrix", "matrix", "m.npy", npy(np.array([[1.0, np.nan], [0.0, 1.0]])),
         "error", "index (0, 1) is nan"),
    Case("text array", "matrix", "m.npy", npy(np.array([["a", "b"], ["c", "d"]])), "error",
         "dtype <U1"),
    Case("object (pickled) .npy", "array", "p.npy", npy(np.array([{"x": 1}], dtype=object), True),
         "error", "pickled"),
    Case("not a .npy at all", "array", "x.npy", b"hello", "error", "not a .npy file"),
    Case("embeddings of mismatched dimension", "embeddings", "queries.npy", npy(np.ones((2, 3))),
         "error", "dimension 3"),
    Case("taxonomy class missing", "taxonomy", "notes.csv", b"item_id,class\nx1,violin\nx2,tuba\n",
         "error", "class 'tuba' is not in the taxonomy", 3),
    # reading files (issue 29): quoted line ends, what cannot be read, streams and bounds, line ends
    Case("quoted CSV field holding a line end", "run", "a.csv",
         b'query_id,item_id,score\nq1,"d\n1",0.5\nq1,d2,0.3\n', "loads",
         "2 rows; first item 'd\\n1'", describe=_first_item),
    Case("bad row after a quoted line end", "run", "a.csv",
         b'query_id,item_id,score\nq1,"d\n1",0.5\nq1,d2,high\n', "error",
         "score 'high' is not a number", 4),
    Case("quote never closed", "run", "a.csv", b'query_id,item_id,score\nq1,"d1,0.5\nq1,d2,0.3\n',
         "error", "closing quote is missing", 2),
    Case("unreadable file (permission denied)", "run", "a.run", b"", "error",
         "permission denied", make=_file(RUN, 0), unprivileged=True),
    Case("symbolic link loop", "run", "a.run", b"", "error", "symbolic link loop",
         make=_link("a.run")),
    Case("symbolic link to nothing", "run", "a.run", b"", "error",
         "symbolic link to 'gone.run', which does not exist", make=_link("gone.run")),
    Case("directory", "run", "a.run", b"", "error", "is a directory",
         make=lambda folder: folder),
    Case("named pipe (FIFO) with no writer", "run", "a.run", b"", "error",
         "is a named pipe (FIFO), not a regular file", make=_fifo),
    Case("device (/dev/zero)", "run", "/dev/zero", b"", "error", "is a device",
         make=lambda folder: Path("/dev/zero")),
    Case("large sparse file of NUL bytes", "run", "a.run", b"", "error",
         "contains a NUL byte", 1, make=_sparse_nuls),
    Case("a line of 50 MB without a line end", "run", "a.run", b"", "error",
         "the line is longer than 1,048,576 bytes (1 MiB)", 1, make=_one_long_line),
    Case("an item id of 2 MiB on line 2", "run", "a.run",
         RUN[:17] + b"q1 Q0 " + b"d" * (2 << 20) + b" 2 0.5 s\n", "error",
         "the line is longer than 1,048,576 bytes (1 MiB)", 2),
    Case("zip archive", "run", "a.run", _zip(RUN), "error",
         "is a zip archive, which is not read; gzip (.gz) is"),
    Case("xz archive", "run", "a.run.xz", lzma.compress(RUN), "error", "is an xz archive"),
    Case("bzip2 archive", "run", "a.run.bz2", bz2.compress(RUN), "error", "is a bzip2 archive"),
    Case("7z archive", "run", "a.7z", b"7z\xbc\xaf\x27\x1c\x00\x04" + bytes(24), "error",
         "is a 7z archive"),
    Case("zstd archive", "run", "a.run.zst", b"\x28\xb5\x2f\xfd\x20\x10" + RUN[:16], "error",
         "is a zstd archive"),
    Case("UTF-16 text", "run", "a.run", RUN.decode().encode("utf-16"), "error",
         "is UTF-16 (or UTF-32) text; save it as UTF-8", 1),
    Case("gzip expanding past the bound", "run", "a.run.gz",
         gzip.compress(b"q1 Q0 d1 1 0.5 s\n" * 200_000), "error",
         "expands to more than 1 MiB once decompressed",
         env=(("METRICS_MAX_DECOMPRESSED_MB", "1"),)),
    Case("gzip of many short lines, bad from line 1", "run", "a.run.gz",
         gzip.compress(b"x\n" * 4_000_000), "error", "expected 6 whitespace-separated fields", 1),
    Case("carriage return alone ending a line", "run", "a.run",
         b"q1 Q0 d1 1 0.9 s\rq1 Q0 d2 2 0.5 s\n", "error", "carriage return (\\r) not followed", 1),
    Case("U+2028 (line separator) inside an id", "run", "a.run",
         "q1 Q0 d\u20281 1 0.9 s\nq1 Q0 d2 2 0.5 s\n".encode(), "loads",
         "2 rows; first item 'd\\u20281'", describe=_first_item),
    Case("U+0085 and a form feed inside CSV ids", "run", "a.csv",
         "query_id,item_id,score\nq1,d\x851,0.9\nq1,d\x0c2,0.5\n".encode(), "loads",
         "2 rows; first item 'd\\x851'", describe=_first_item),
    Case("item table without an item_id column", "items", "items.csv",
         b"title,artist\nSong,Band\n", "error", "the header has no item_id column", 1),
    Case("item table with an id twice", "items", "items.csv",
         b"item_id,title\nd1,One\nd2,Two\nd1,Again\n", "error",
         "item 'd1' is listed twice (first on line 2)", 4),
    Case("item table with an empty id", "items", "items.csv", b"item_id,title\nd1,One\n,Two\n",
         "error", "the item_id is empty", 3),
    Case("item table that is not UTF-8", "items", "items.csv",
         b"item_id,title\nd1,Caf\xe9\n", "error", "is not valid UTF-8", 2),
    Case("item table that is empty", "items", "items.csv", b"", "error", "is empty"),
    Case("query table with a row too long", "queries", "queries.tsv",
         b"query_id\tgenre\nq1\trock\tpop\n", "error", "expected 2 fields as in the header", 2),
    Case("query table without a query_id column (Parquet)", "queries", "queries.parquet",
         parquet({"genre": ["rock"]}), "error", "the header has no query_id column"),
    Case("item table with titles of Markdown, HTML and commas", "items", "items.csv",
         b'item_id,title\nd1,"<b>[x](http://127.0.0.1/), ""quoted""</b>"\n', "loads",
         "title '<b>[x](http://127.0.0.1/), \"quoted\"</b>'",
         describe=lambda t: f"title {t.loc['d1', 'title']!r}"),
    Case("item table with spaces around cells, quoted or not", "items", "items.csv",
         b'item_id,title,genre\n d1 ,"  quoted  ", a\nd2,plain,a\n', "loads",
         "ids ['d1', 'd2']; title '  quoted  '; genres [' a', 'a']",
         describe=lambda t: f"ids {t.index.tolist()}; title {t.loc['d1', 'title']!r}; "
                            f"genres {t['genre'].tolist()}"),
    Case("query table with list and struct columns (Parquet)", "queries", "queries.parquet",
         parquet({"query_id": ["q1"], "tags": [[1, 2]], "info": [{"year": 1990, "n": None}]}),
         "loads", "tags '[1, 2]'; info '{\"year\": 1990, \"n\": null}'",
         describe=lambda t: "; ".join(f"{c} {t.loc['q1', c]!r}" for c in t.columns)),
]


# the power command's options (issue 42): content is the options, run on two runs of two queries
# (RUN against RUN_B: B − A is 0 and −0.5 in AP)
RUN_B = b"q1 Q0 d2 1 0.9 s\nq1 Q0 d1 2 0.5 s\nq2 Q0 d3 1 0.7 s\n"
POWER_CASES = [
    Case("power --alpha far below any printed p-value", "power", "power", b"--alpha 1e-300",
         "error", "a significance level must lie between 1e-16 and 1"),
    Case("power --alpha above --power", "power", "power", b"--alpha 0.9", "error",
         "the power asked for (0.8) must be above the significance level"),
    Case("power --alpha 0.001 on two queries", "power", "power", b"--alpha 0.001 --measure DCG",
         "loads", "differences below 151 in DCG are unlikely to be detected"),
    Case("power --delta far beyond the search", "power", "power", b"--delta 1e-9", "loads",
         "(normal approximation, beyond the search's 10,000,000)"),
]
CASES += POWER_CASES

# command lines (issue 42): content is the command line, on files named as in CLI_FILES
CLI_FILES = {"a.run": RUN, "b.run": RUN_B, "q.qrels": QRELS,
             "dup.run": RUN + b"q1 Q0 d1 3 0.1 s\n",
             "rq.csv": b"query_id,R_q\nq1,low\nq2,high\n",
             "wide.csv": (",".join(["query_id", *(f"col{i}" for i in range(20_000))]) + "\nq1" +
                          ",x" * 20_000 + "\n").encode()}
COMMAND_CASES = [
    Case("compare --format json on a run with a duplicated pair", "command", "cli",
         b"compare dup.run b.run q.qrels -m AP --format json", "warning",
         "1 duplicated (query, item) pair(s) dropped, the first occurrence kept"),
    Case("power --format json on a run with a duplicated pair", "command", "cli",
         b"power dup.run b.run q.qrels --measure AP --format json", "warning",
         "1 duplicated (query, item) pair(s) dropped, the first occurrence kept"),
    Case("query table with a column named R_q, --group-by R_q", "command", "cli",
         b"evaluate a.run q.qrels -m AP --format json --query-metadata rq.csv --group-by R_q",
         "error", "say which: column:R_q, the column as written, or derived:R_q"),
    Case("--group-by an unknown name on a query table of 20,000 columns", "command", "cli",
         b"evaluate a.run q.qrels -m AP --format json --query-metadata wide.csv "
         b"--group-by col1999x", "error", "(20,000 columns; the closest: col1999, col19999"),
]
CASES += COMMAND_CASES

# what-if edits as typed or linked (the Query explorer's "What if" box; issue 42)
EDIT_CASES = [
    Case("what-if edit in other digits (g\uff13:1)", "edits", "edits", "g\uff13:1".encode(),
         "error", "is not g<rank>:<grade> (judge the item at that rank) or m<rank>:<rank> (move "
         "it) in the digits 0-9"),
    Case("what-if edit with a rank of 5,000 digits", "edits", "edits",
         b"m" + b"1" * 5000 + b":1", "error", "a rank of more than 18 digits is in no list"),
]
CASES += EDIT_CASES


def _cli(argv: list[str]) -> tuple[int, str, str]:
    """(exit status, stdout, stderr) of the command line run beside :data:`CLI_FILES`, each name
    of one in ``argv`` given as its path."""
    from metrics.cli import main

    with tempfile.TemporaryDirectory() as folder, \
            mock.patch("sys.stdout", new_callable=io.StringIO) as out, \
            mock.patch("sys.stderr", new_callable=io.StringIO) as err:
        for name, content in CLI_FILES.items():
            (Path(folder) / name).write_bytes(content)
        try:
            status = main([str(Path(folder) / a) if a in CLI_FILES else a for a in argv])
        except SystemExit as exc:   # argparse's refusal
            status = exc.code
    # the files named as given, not by the passing folder's path, so the catalogue reads the same
    return status, *(text.getvalue().replace(folder + os.sep, "") for text in (out, err))


def _power(options: bytes) -> tuple[str, str]:
    """The power command on RUN and RUN_B: ('error', its line on stderr) or ('loads', the
    sentence or the queries needed it prints)."""
    status, out, err = _cli(["power", "a.run", "b.run", "q.qrels", *options.decode().split()])
    if status != 0:
        return "error", err.strip()
    lines = out.strip().splitlines()
    needed = [line for line in lines if line.startswith("queries needed")]
    return "loads", " ".join((needed[0] if needed else lines[-1]).split())


def _command(line: bytes) -> tuple[str, str]:
    """A command line on :data:`CLI_FILES` (``--format json``): ('error', its line on stderr),
    ('warning', the warnings its JSON holds) or ('loads', its JSON's first key)."""
    status, out, err = _cli(line.decode().split())
    if status != 0:
        return "error", err.strip()
    assert err == "", err   # beside JSON, the warnings are in it
    data = json.loads(out)
    return ("warning", " | ".join(data["warnings"])) if data["warnings"] else \
        ("loads", next(iter(data)))


def run_case(case: Case) -> tuple[str, str]:
    """('error' | 'warning' | 'loads', message or description) for a case."""
    with ExitStack() as stack:
        stack.enter_context(mock.patch.dict(os.environ, dict(case.env)))
        if case.make:
            path = case.make(Path(stack.enter_context(tempfile.TemporaryDirectory())))
            if case.unprivileged and getattr(os, "geteuid", lambda: 1)() == 0:
                stack.enter_context(_denied_to_root(path))
            case = replace(case, content=path)
        return _run(case)


@contextmanager
def _denied_to_root(path: Path):
    """root may read any file whatever its permissions: what a user gets from the kernel (EACCES)
    is simulated here; tests/test_bad_inputs.py runs the command line without that right."""
    real = os.open

    def opening(name, *args, **kwargs):
        if os.fspath(name) == os.fspath(path):
            raise PermissionError(errno.EACCES, os.strerror(errno.EACCES), os.fspath(name))
        return real(name, *args, **kwargs)

    with mock.patch("os.open", opening):
        yield


def _run(case: Case) -> tuple[str, str]:
    if case.what == "power":
        return _power(case.content)
    if case.what == "command":
        return _command(case.content)
    try:
        warnings: tuple[str, ...] = ()
        if case.what == "run":
            run = load_run(case.content, case.file)
            warnings = run.warnings
            detail = case.describe(run) if case.describe else f"{len(run)} rows"
        elif case.what == "qrels":
            truth = load_qrels(case.content, case.file)
            warnings, detail = truth.warnings, f"{len(truth)} judgements"
        elif case.what == "run+qrels":
            judged = judge(load_run(case.content, case.file), load_qrels(QRELS, "q.qrels"))
            warnings, detail = judged.warnings, ""
        elif case.what == "qrels+run":
            judged = judge(load_run(RUN, "r.run"), load_qrels(case.content, case.file))
            warnings, detail = judged.warnings, ""
        elif case.what == "labels":
            load_labels(case.content, case.file)
            detail = "loaded"
        elif case.what == "ids":
            load_ids(case.content, case.file)
            detail = "loaded"
        elif case.what == "matrix":
            load_score_matrix(case.content, case.file)
            detail = "loaded"
        elif case.what == "array":
            load_array(case.content, case.file, ndim=1)
            detail = "loaded"
        elif case.what == "matrix+labels":
            judge_inputs(EvaluationInputs("matrices+labels", (
                ("matrices", "m.npy", npy(np.eye(3))), ("labels", case.file, case.content))))
            detail = "loaded"
        elif case.what == "embeddings":
            judge_inputs(EvaluationInputs("embeddings+qrels", (
                ("qrels", "q.csv", b"query_id,item_id,relevance\nq1,d1,1\n"),
                ("query_embeddings", case.file, case.content),
                ("query_ids", "qids.txt", b"q1\nq2\n"),
                ("item_embeddings", "items.npy", npy(np.ones((2, 4)))),
                ("item_ids", "dids.txt", b"d1\nd2\n"))))
            detail = "loaded"
        elif case.what == "taxonomy":
            load_taxonomy(b"class,parent\nstrings,\nviolin,strings\n", case.content, "tax.csv",
                          case.file)
            detail = "loaded"
        elif case.what == "edits":
            detail = edits_text(parse_edits(case.content.decode()))
        elif case.what in ("items", "queries"):
            reader = read_item_table if case.what == "items" else read_query_table
            table = reader(case.content, case.file)
            detail = case.describe(table) if case.describe else f"{len(table)} rows"
        else:  # pragma: no cover
            raise ValueError(case.what)
    except InputError as exc:
        return "error", str(exc)
    if warnings:
        return "warning", " | ".join(warnings)
    return "loads", detail
