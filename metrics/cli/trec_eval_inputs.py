"""The inputs of :mod:`metrics.cli.trec_eval`: the run judged against the qrels by the engine
(with trec_eval 10's tie order, a run's fields after the sixth cut as trec_eval skips them), the
run's id (the tag of its last line), and the judgment groups of -R qrels_jg or the preferences of
-R prefs and qrels_prefs.
"""

from __future__ import annotations

import gzip
import re
import sys
from pathlib import Path

from metrics.cli.trec_eval_options import (JUDGMENT_GROUPS, NUM_Q, PREFERENCES, PROG,
                                           QRELS_FORMAT, READ_AS, RUN_FIELDS, RUNID, Options,
                                           TrecEvalExit, Value)
from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.errors import InputError
from metrics.loaders.trec_prefs import load_prefs
from metrics.loaders.trec_qrels_jg import load_qrels_jg
from metrics.ranking.inputs import QRELS, RUNS, RUNS_QRELS, EvaluationInputs
from metrics.ranking.pipelines import judge_inputs


# ---- inputs -------------------------------------------------------------------------------------

def judged_inputs(options: Options, qrels_source=None) -> tuple[JudgedRanking, str, object]:
    """The run judged against the qrels (or ``qrels_source``, qrels text) by the engine, with
    trec_eval 10's tie order, the run's id (trec_eval's: the tag of its last line) and the run as
    read (its path, or its text). A run whose lines have fields after the sixth, which trec_eval
    skips (its test/results.trunc), is read without them."""
    run_source = sys.stdin.buffer.read() if options.run == "-" else options.run
    try:
        judged = judge(options, run_source, qrels_source)
    except InputError:
        shortened = _first_fields(run_source)
        if shortened is None:
            raise
        run_source = shortened
        judged = judge(options, run_source, qrels_source)
    return judged, _last_tag(run_source), run_source


def judge(options: Options, run_source, qrels_source=None) -> JudgedRanking:
    qrels = options.qrels if qrels_source is None else qrels_source
    inputs = EvaluationInputs(RUNS_QRELS, ((RUNS.name, options.run, run_source),
                                           (QRELS.name, options.qrels, qrels)),
                              ties=TiePolicy.TREC10, named_by_file=True)
    (judged,) = judge_inputs(inputs, keep_lists=False).systems.values()
    duplicated = [w for w in judged.warnings if "duplicated (query, item)" in w]
    if duplicated:   # trec_eval stops on a document given twice for a query
        raise TrecEvalExit(4, f"{PROG}: duplicate docs: {duplicated[0]}")
    return judged


def _read_bytes(source) -> bytes:
    if isinstance(source, (bytes, bytearray)):
        return bytes(source)
    data = Path(source).read_bytes()
    return gzip.decompress(data) if data[:2] == b"\x1f\x8b" else data


_LINE_FIELDS = re.compile(rb"^[ \t]*((?:[^ \t\r\n]+[ \t]+){5}[^ \t\r\n]+)[ \t][^\n]*?(\r?)$",
                          re.MULTILINE)


def _first_fields(source) -> bytes | None:
    """The run with every line cut to its first six fields, or None when no line has more
    (or it cannot be read: the engine has said why)."""
    try:
        data = _read_bytes(source)
    except OSError:
        return None
    shortened = _LINE_FIELDS.sub(lambda m: m.group(1) + m.group(2), data)
    return None if shortened == data else shortened


def _last_tag(source) -> str:
    """The sixth field of the run's last line that is neither blank nor a comment."""
    if isinstance(source, (bytes, bytearray)):
        tail = bytes(source)
    else:
        with open(source, "rb") as f:
            if f.read(2) == b"\x1f\x8b":
                tail = _read_bytes(source)
            else:
                size = f.seek(0, 2)
                tail = b""
                step = 1 << 16
                while True:   # read back from the end until a whole content line is held
                    start = max(0, size - len(tail) - step)
                    f.seek(start)
                    tail = f.read(size - len(tail) - start) + tail
                    lines = [ln for ln in tail.split(b"\n")[1 if start else 0:]
                             if ln.strip() and not ln.lstrip().startswith(b"#")]
                    if lines or start == 0:
                        break
    for line in reversed(tail.split(b"\n")):
        fields = line.split()
        if fields and not line.lstrip().startswith(b"#") and len(fields) >= RUN_FIELDS:
            return fields[RUN_FIELDS - 1].decode("utf-8", "replace")
    return ""


def read_judgments(values: list[Value], options: Options):
    """The judgment groups of -R qrels_jg ({group: qrels text}) or the preferences of -R prefs
    and qrels_prefs ({query: preferences}); None for plain qrels, which the engine reads. A
    measure that cannot read the format is refused as trec_eval refuses it when it comes to
    compute it (exit 4)."""
    reads = READ_AS[options.rel_format]
    for v in values:
        if v.kind not in (RUNID, NUM_Q) and v.reads != reads:
            needs = {QRELS_FORMAT: "plain qrels (-R qrels)", JUDGMENT_GROUPS: "-R qrels_jg",
                     PREFERENCES: "-R prefs or qrels_prefs"}[v.reads]
            raise TrecEvalExit(4, f"{PROG}: Can't calculate measure '{v.name}': it needs "
                                  f"{needs}, and {options.qrels} is read as -R "
                                  f"{options.rel_format}")
    try:
        if reads == JUDGMENT_GROUPS:
            return load_qrels_jg(options.qrels)
        if reads == PREFERENCES:
            return load_prefs(options.qrels, options.rel_format)
    except InputError as exc:
        raise TrecEvalExit(2, f"{PROG}: {exc}") from None
    return None


def queries_as_qrels(judgments: dict) -> bytes:
    """Qrels text with each (query, item) of the judgments once: what the queries are and
    which of them the run has (no value is computed against it)."""
    seen, lines = set(), []
    for key, entries in judgments.items():
        if isinstance(entries, bytes):   # a judgment group's qrels text
            pairs = [(line.split()[0], line.split()[2]) for line in entries.splitlines()]
        else:                            # a query's preferences
            pairs = [(key, p.item) for p in entries]
        for query, item in pairs:
            if (query, item) not in seen:
                seen.add((query, item))
                lines.append(b" ".join((query, b"0", item, b"0")))
    return b"\n".join(lines) + b"\n"
