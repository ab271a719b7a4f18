"""``python -m metrics trec-eval`` (and the ``trec-eval-mre`` script): trec_eval 10.0's command
line, on this package's engine.

It takes trec_eval's arguments as they are (its getopt string ``hvqm:cl:nD:JN:M:R:T:oZ:`` and long
options, GNU-permuted; the qrels file first) and prints what trec_eval 10.0 prints: the same lines
in the same order (per query in ``strcmp`` order of the qrels' queries, each measure in
trec_eval's table order, then the ``all`` lines), the same names (``P_5``,
``iprec_at_recall_0.10``, ``utility_2,-1,0,0``), the run id column, ``%6.4f`` and ``%ld``, and
its exit status: 1 for a bad option or measure, 2 for a file it cannot read, 4 when a qrels query
has no results and ``-c`` is not given (after the ``-q`` lines of the queries before it), 7 when
no query has both.

The runs are judged by :func:`metrics.ranking.pipelines.judge_inputs` (a run sorted by query is
streamed, as by ``evaluate``) with trec_eval 10's tie order, and every value is a registered
measure's, found by the name trec_eval prints through the aliases
(:mod:`metrics.measures.aliases`): this module knows trec_eval's table of measures — their order,
default parameters, names and how each is printed and averaged — and nothing of their arithmetic.
A measure trec_eval has and the registry lacks is refused in trec_eval's words (exit 1). The
``*_avgjg`` values are registered measures averaged over the judgment groups of -R qrels_jg;
the ``prefs_*`` values, which read preferences rather than grades, are
:mod:`metrics.measures.trec_prefs`'s, from each query's ranked item ids.

What belongs to trec_eval's driver rather than to a measure is done here, as trec_eval does it:
every query of the qrels is scored (a query without a relevant item keeps the value the measure
gives it, and a value the engine leaves undefined counts as 0, trec_eval's starting value); ``-M``
keeps the top N of each ranking, ``-J`` drops the unjudged items from it (after ``-M``, as
trec_eval), ``-l`` is the relevance threshold of every binary measure; means are over the
queries scored, in their order (sequential double sums, as trec_eval adds them), ``gm_*`` is
exp of the mean log with values floored at 1e-5; ``runid`` is the last run line's tag and
``relstring`` the grades of the top N ranks.
"""

from __future__ import annotations

import getopt
import gzip
import math
import re
import sys
from dataclasses import dataclass, replace
from pathlib import Path
from typing import Sequence

import numpy as np

from metrics.data.judged import JudgedRanking, TieReport
from metrics.data.ties import TiePolicy
from metrics.errors import InputError, MeasureError
from metrics.evaluation.evaluate import evaluate
from metrics.loaders.runs import load_run
from metrics.loaders.trec_prefs import load_prefs
from metrics.loaders.trec_qrels_jg import load_qrels_jg
from metrics.loaders.trec_zscores import load_zscores, z_scores
from metrics.measures.aliases import trec_eval_nan
from metrics.measures.trec_eval_extras import relstring
from metrics.measures.trec_prefs import (LONG_MEASURES as PREFS_COUNTS, PREFS_MEASURES,
                                         prefs_values, query_prefs)
from metrics.measures.names import Measure, parse_measure, with_relevance_threshold
from metrics.ranking.inputs import QRELS, RUNS, RUNS_QRELS, EvaluationInputs
from metrics.ranking.pipelines import judge_inputs

PROG = "trec_eval"   # messages begin as trec_eval's, so that scripts reading them still match
VERSION = "10.0"

USAGE = ("Usage: trec_eval [-h] [-q] {-m measure}* trec_rel_file trec_top_file\n"
         "   -h: Give full help information, including other options\n"
         "   -q: In addition to summary evaluation, give evaluation for each query\n"
         "   -m: calculate and print measures indicated by 'measure'\n"
         "       ('-m all_qrels' prints all qrels measures, '-m official' is default)\n")

HELP = """trec_eval [-h] [-q] [-m measure[.params] [-c] [-n] [-l <num>]
   [-D debug_level] [-N <num>] [-M <num>] [-R rel_format] [-T results_format]
   rel_info_file  results_file

trec_eval 10.0's command line on music-retrieval-evaluation's engine (python -m metrics
trec-eval): the same options, the same output and exit status; '-m' names trec_eval's measures
and nicknames (official, all_trec, set, qrels_jg, prefs, all_prefs); -Z FILE prints
z-scores; -R qrels, qrels_jg, prefs or qrels_prefs. Not here: -D above 0 (trec_eval's debug
traces) and -T other than trec_results. docs/command_line.md says more.
"""

SHORT_OPTIONS = "hvqm:cl:nD:JN:M:R:T:oZ:"
LONG_OPTIONS = ["help", "version", "query_eval_wanted", "measure=", "complete_rel_info_wanted",
                "level_for_rel=", "nosummary", "Debug_level=", "Judged_docs_only",
                "Number_docs_in_coll=", "Max_retrieved_per_topic=", "Rel_info_format=",
                "Results_format=", "Output_old_results_format=", "Zscore="]
LONG_TO_SHORT = {"help": "h", "version": "v", "query_eval_wanted": "q", "measure": "m",
                 "complete_rel_info_wanted": "c", "level_for_rel": "l", "nosummary": "n",
                 "Debug_level": "D", "Judged_docs_only": "J", "Number_docs_in_coll": "N",
                 "Max_retrieved_per_topic": "M", "Rel_info_format": "R",
                 "Results_format": "T", "Output_old_results_format": "o", "Zscore": "Z"}

MIN_GEO_MEAN = 0.00001            # trec_eval.h: the floor of a value in a geometric mean
RUN_FIELDS = 6                    # query Q0 item rank score tag; trec_eval skips what follows


# ---- trec_eval's table of measures (measures.c), in its order -----------------------------------

# how a measure's values are named, printed and averaged (the init/print/avg procedures it uses):
RUNID = "runid"            # the run's tag, on the 'all' line only
NUM_Q = "num_q"            # the number of queries scored, on the 'all' line only
RELSTRING = "relstring"    # the grades of the top N ranks, per query only
LONG = "long"              # a count: "%ld", summed
DOUBLE = "double"          # "%6.4f", the mean over queries
GEOMETRIC = "geometric"    # "%6.4f" on the 'all' line only: exp(mean log max(value, 1e-5))
CUT_LONG = "cut_long"      # one value per whole-number cutoff: NAME_k
CUT_DOUBLE = "cut_double"  # one value per real cutoff: NAME_%3.2f
PARAMS = "params"          # one value; NAME, or NAME_PARAMS as typed when given
PAIRS = "pairs"            # one value; parameters name=value (gains), NAME_PARAMS when given

# the judgments a measure reads: -R qrels; qrels_jg; prefs or qrels_prefs
QRELS_FORMAT, JUDGMENT_GROUPS, PREFERENCES = "qrels", "qrels_jg", "prefs"
READ_AS = {"qrels": QRELS_FORMAT, "qrels_jg": JUDGMENT_GROUPS, "prefs": PREFERENCES,
           "qrels_prefs": PREFERENCES}

RANK_CUTOFFS = (5, 10, 15, 20, 30, 100, 200, 500, 1000)
RECALL_LEVELS = (0.0, 0.1, 0.2, 0.3, 0.4, 0.5, 0.6, 0.7, 0.8, 0.9, 1.0)
RPREC_MULTIPLES = (0.2, 0.4, 0.6, 0.8, 1.0, 1.2, 1.4, 1.6, 1.8, 2.0)


@dataclass(frozen=True)
class TrecMeasure:
    """One of trec_eval's measures: its name, how its values are named and printed (``kind``)
    and its default cutoffs."""

    name: str
    kind: str
    cutoffs: tuple = ()
    averages: str = ""   # a *_avgjg measure: the measure averaged over the judgment groups
    reads: str = ""      # the judgments it reads (-R): plain qrels, judgment groups, preferences

    @property
    def judgments(self) -> str:
        return self.reads or (JUDGMENT_GROUPS if self.averages else QRELS_FORMAT)


_PREFS_NAMES = PREFS_MEASURES

TREC_MEASURES: tuple[TrecMeasure, ...] = (
    TrecMeasure("runid", RUNID), TrecMeasure("num_q", NUM_Q), TrecMeasure("num_ret", LONG),
    TrecMeasure("num_rel", LONG), TrecMeasure("num_rel_ret", LONG),
    TrecMeasure("map", DOUBLE), TrecMeasure("gm_map", GEOMETRIC),
    TrecMeasure("Rprec", DOUBLE), TrecMeasure("bpref", DOUBLE),
    TrecMeasure("recip_rank", DOUBLE),
    TrecMeasure("iprec_at_recall", CUT_DOUBLE, RECALL_LEVELS),
    TrecMeasure("P", CUT_LONG, RANK_CUTOFFS), TrecMeasure("relstring", RELSTRING, (10,)),
    TrecMeasure("recall", CUT_LONG, RANK_CUTOFFS), TrecMeasure("infAP", DOUBLE),
    TrecMeasure("gm_bpref", GEOMETRIC),
    TrecMeasure("Rprec_mult", CUT_DOUBLE, RPREC_MULTIPLES),
    TrecMeasure("utility", PARAMS), TrecMeasure("11pt_avg", PARAMS),
    TrecMeasure("binG", DOUBLE), TrecMeasure("G", PAIRS), TrecMeasure("dcg", PAIRS),
    TrecMeasure("ideal_dcg", PAIRS), TrecMeasure("ndcg", PAIRS), TrecMeasure("ndcg_rel", PAIRS),
    TrecMeasure("Rndcg", PAIRS), TrecMeasure("ndcg_cut", CUT_LONG, RANK_CUTOFFS),
    TrecMeasure("map_cut", CUT_LONG, RANK_CUTOFFS),
    TrecMeasure("relative_P", CUT_LONG, RANK_CUTOFFS),
    TrecMeasure("success", CUT_LONG, (1, 5, 10)), TrecMeasure("set_P", DOUBLE),
    TrecMeasure("set_relative_P", DOUBLE), TrecMeasure("set_recall", DOUBLE),
    TrecMeasure("set_map", DOUBLE), TrecMeasure("set_F", PARAMS),
    TrecMeasure("num_nonrel_judged_ret", LONG),
    *(TrecMeasure(name, LONG if name in PREFS_COUNTS else DOUBLE, reads=PREFERENCES)
      for name in _PREFS_NAMES),
    TrecMeasure("map_avgjg", DOUBLE, averages="map"),
    TrecMeasure("P_avgjg", CUT_LONG, RANK_CUTOFFS, averages="P"),
    TrecMeasure("Rprec_mult_avgjg", CUT_DOUBLE, RPREC_MULTIPLES, averages="Rprec_mult"),
    TrecMeasure("yaap", DOUBLE),
    TrecMeasure("rbp", PAIRS), TrecMeasure("rbp_resid", PAIRS),
    TrecMeasure("unj", CUT_LONG, (5, 10, 20)),
)
BY_NAME = {m.name: m for m in TREC_MEASURES}

# trec_eval's nicknames (measures.c): -m NICKNAME marks each of these
NICKNAMES = {
    "official": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P"),
    "all_trec": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "map", "gm_map",
                 "Rprec", "bpref", "recip_rank", "iprec_at_recall", "P", "relstring",
                 "recall", "unj", "rbp", "rbp_resid", "infAP", "gm_bpref", "utility",
                 "11pt_avg", "ndcg", "relative_P", "Rprec_mult", "success", "map_cut",
                 "ndcg_cut", "ndcg_rel", "Rndcg", "binG", "G", "set_P", "set_recall",
                 "set_relative_P", "set_map", "set_F", "num_nonrel_judged_ret"),
    "set": ("runid", "num_q", "num_ret", "num_rel", "num_rel_ret", "utility", "set_P",
            "set_recall", "set_relative_P", "set_map", "set_F"),
    "all_prefs": ("runid", "num_q", *_PREFS_NAMES),
    "prefs": ("runid", "num_q", *_PREFS_NAMES[:6]),
    "qrels_jg": ("runid", "num_q", "map_avgjg", "P_avgjg", "Rprec_mult_avgjg"),
}


def default_output_names() -> list[str]:
    """The names trec_eval prints with no ``-m`` ('official'), in its order, for
    ``evaluate --format trec`` when no measure is named; runid and num_q, which are no measures
    of a run's queries, left out."""
    names = []
    for m in TREC_MEASURES:
        if m.name in NICKNAMES["official"] and m.kind in (LONG, DOUBLE, GEOMETRIC):
            names.append(m.name)
        elif m.name in NICKNAMES["official"] and m.kind in (CUT_LONG, CUT_DOUBLE):
            names += [value_name(m.name, m.kind, c) for c in m.cutoffs]
    return names


# ---- exits in trec_eval's words -----------------------------------------------------------------

class TrecEvalExit(Exception):
    """Stop with trec_eval's exit ``status`` and one line on stderr."""

    def __init__(self, status: int, message: str):
        super().__init__(message)
        self.status = status


def _c_long(text: str, option: str) -> int:
    """A whole number of an option (trec_eval's atol, which reads garbage as 0: refused here)."""
    if not re.fullmatch(r"\s*[-+]?\d+", text):
        raise TrecEvalExit(1, f"{PROG}: -{option} {text!r}: give a whole number")
    return int(text)


# ---- the command line ---------------------------------------------------------------------------

@dataclass
class Options:
    per_query: bool = False
    complete: bool = False            # -c: every qrels query, those without results scored 0
    summary: bool = True
    relevance_level: int = 1
    judged_only: bool = False
    max_retrieved: int | None = None
    debug_query: str | None = None
    collection_size: int = 0          # -N: the items of the collection (utility's 4th term)
    zscore_file: str | None = None    # -Z: each value printed as its z-score against this file
    rel_format: str = "qrels"         # -R: qrels, or qrels_jg (judgment groups)
    marked: tuple[str, ...] = ()      # trec_eval's measure names marked, any order
    params: dict | None = None        # measure name -> its first '.PARAMS' text
    qrels: str = ""
    run: str = ""


def parse_command_line(argv: Sequence[str]) -> Options | None:
    """trec_eval's options (None after -h and -v, which print and stop)."""
    try:
        pairs, files = getopt.gnu_getopt(list(argv), SHORT_OPTIONS, LONG_OPTIONS)
    except getopt.GetoptError as exc:
        raise TrecEvalExit(1, f"{PROG}: {exc}; {USAGE.splitlines()[0]}") from None
    options = Options(params={})
    marked: list[str] = []
    help_wanted = False
    for flag, value in pairs:
        flag = flag.lstrip("-")
        flag = LONG_TO_SHORT.get(flag, flag)
        if flag == "h":
            help_wanted = True
        elif flag == "v":
            sys.stderr.write(f"trec_eval version {VERSION} (music-retrieval-evaluation)\n")
            return None
        elif flag == "q":
            options.per_query = True
        elif flag == "m":
            marked += _mark_measure(value, options.params)
        elif flag == "c":
            options.complete = True
        elif flag == "l":
            options.relevance_level = _c_long(value, "l")
            if options.relevance_level < 1:
                raise TrecEvalExit(1, f"{PROG}: -l {value}: a relevance level below 1 (grade 0 "
                                      f"or negative grades relevant) is not computed here")
        elif flag == "n":
            options.summary = False
        elif flag == "D":
            level, _, query = value.partition(".")
            if _c_long(level, "D") > 0:
                raise TrecEvalExit(1, f"{PROG}: -D {value}: trec_eval's debug traces are not "
                                      f"reproduced; -D 0.QUERY evaluates that query alone")
            options.debug_query = query or None
        elif flag == "J":
            options.judged_only = True
        elif flag == "N":
            options.collection_size = max(_c_long(value, "N"), 0)   # read by utility only
        elif flag == "M":
            options.max_retrieved = max(_c_long(value, "M"), 0)
        elif flag == "R" and value not in READ_AS:
            raise TrecEvalExit(2, f"{PROG}: Illegal rel_format '{value}' (qrels, qrels_jg, "
                                  f"prefs or qrels_prefs)")
        elif flag == "R":
            options.rel_format = value
        elif flag == "T" and value != "trec_results":
            raise TrecEvalExit(2, f"{PROG}: results format {value!r} is not read here (only "
                                  f"'trec_results')")
        elif flag == "Z":
            options.zscore_file = value
    if help_wanted:
        sys.stdout.write(HELP)
        return None
    if len(files) != 2:
        raise TrecEvalExit(1, f"{PROG}: give the qrels file and then the results file; "
                              f"{USAGE.splitlines()[0]}")
    options.qrels, options.run = files
    options.marked = tuple(marked) or NICKNAMES["official"]
    return options


def _mark_measure(text: str, params: dict) -> list[str]:
    """trec_eval's mark_measure: NAME or NAME.PARAMS (the first PARAMS given for a name is
    the one used), NAME a measure or a nickname."""
    name, dot, given = text.partition(".")
    if dot:
        if not given:
            raise TrecEvalExit(1, f"{PROG}: improper measure in parameter '{name}'")
        params.setdefault(name, given)
    if name in NICKNAMES:
        return list(NICKNAMES[name])
    if name not in BY_NAME:
        raise TrecEvalExit(1, f"{PROG}: illegal measure '{name}'")
    return [name]


# ---- trec_eval's names and ours ------------------------------------------------------------------

@dataclass(frozen=True)
class Value:
    """One printed value: trec_eval's name for it, its measure's kind and our measure."""

    name: str
    kind: str
    measure: Measure | None = None
    cutoff: float = 0.0     # relstring's length
    reads: str = QRELS_FORMAT   # the judgments it reads (a TrecMeasure's ``judgments``)

    @property
    def over_groups(self) -> bool:
        """Averaged over the judgment groups of -R qrels_jg."""
        return self.reads == JUDGMENT_GROUPS


def value_name(name: str, kind: str, cutoff) -> str:
    """trec_eval's name of one cutoff's value (append_long and append_double of meas_init.c)."""
    return f"{name}_{cutoff}" if kind == CUT_LONG else f"{name}_{cutoff:3.2f}"


def _cutoffs(measure: TrecMeasure, text: str | None) -> tuple:
    """A measure's cutoffs: its defaults, or those given (get_long_cutoffs and
    get_double_cutoffs of meas_init.c: sorted; duplicates, and whole numbers below 1, refused)."""
    if text is None:
        return measure.cutoffs
    parts = text.split(",")
    try:
        if measure.kind == CUT_LONG:
            values = sorted(int(float(p)) if re.fullmatch(r"\s*[-+]?\d+(\.\d*)?", p) else
                            _refuse_number(p, measure.name) for p in parts)
            if values[0] <= 0:
                raise TrecEvalExit(2, f"{PROG}: Negative cutoff detected; Cannot initialize "
                                      f"measure '{measure.name}'")
        else:
            values = sorted(float(p) for p in parts)
    except ValueError:
        _refuse_number(text, measure.name)
    if len(set(values)) != len(values):
        raise TrecEvalExit(2, f"{PROG}: duplicate cutoffs detected; Cannot initialize measure "
                              f"'{measure.name}'")
    return tuple(values)


def _refuse_number(text: str, name: str):
    raise TrecEvalExit(2, f"{PROG}: parameters {text!r} of '{name}' are not numbers (trec_eval "
                          f"would read them as 0); Cannot initialize measure '{name}'")


def our_measure(alias: str, shown: str) -> Measure:
    """Our measure for trec_eval's value ``alias`` (its printed name, or with a real cutoff
    written exactly), through the aliases; one trec_eval has that the registry lacks is refused
    in trec_eval's words."""
    try:
        return parse_measure(alias)
    except MeasureError as exc:
        raise TrecEvalExit(1, f"{PROG}: illegal measure '{shown}' (trec_eval 10 has it; it is "
                              f"not computed here yet: {exc})") from None


def selected_values(options: Options) -> list[Value]:
    """Every value to print, in trec_eval's order (its table's, whatever the order of -m)."""
    marked = set(options.marked)
    values = []
    for m in TREC_MEASURES:
        if m.name not in marked:
            continue
        given = options.params.get(m.name)
        base = m.averages or m.name   # a *_avgjg value is its measure's, over the groups
        if m.judgments == PREFERENCES:   # computed from the ranked item ids, no measure's
            values.append(Value(m.name, m.kind, reads=PREFERENCES))
        elif m.kind in (RUNID, NUM_Q):
            values.append(Value(m.name, m.kind))
        elif m.kind == RELSTRING:
            length = float(given) if given is not None else 10.0
            values.append(Value(m.name if given is None else f"{m.name}_{given}", m.kind,
                                cutoff=length))
        elif m.kind in (CUT_LONG, CUT_DOUBLE):
            for cutoff in _cutoffs(m, given):
                shown = value_name(m.name, m.kind, cutoff)
                exact = (f"{base}_{cutoff!r}" if m.kind == CUT_DOUBLE else
                         value_name(base, m.kind, cutoff))
                values.append(Value(shown, m.kind, our_measure(exact, shown),
                                    reads=m.judgments))
        else:
            shown = m.name if given is None else f"{m.name}_{given}"
            ours = base if given is None else f"{base}_{given}"
            values.append(Value(shown, m.kind, our_measure(ours, shown), reads=m.judgments))
    if options.relevance_level > 1:
        values = [replace(v, measure=with_relevance_threshold([v.measure],
                                                              options.relevance_level)[0])
                  if v.measure is not None else v for v in values]
    return values


# ---- inputs -------------------------------------------------------------------------------------

def judged_inputs(options: Options, qrels_source=None) -> tuple[JudgedRanking, str, object]:
    """The run judged against the qrels (or ``qrels_source``, qrels text) by the engine, with
    trec_eval 10's tie order, the run's id (trec_eval's: the tag of its last line) and the run as
    read (its path, or its text). A run whose lines have fields after the sixth, which trec_eval
    skips (its test/results.trunc), is read without them."""
    run_source = sys.stdin.buffer.read() if options.run == "-" else options.run
    try:
        judged = _judge(options, run_source, qrels_source)
    except InputError:
        shortened = _first_fields(run_source)
        if shortened is None:
            raise
        run_source = shortened
        judged = _judge(options, run_source, qrels_source)
    return judged, _last_tag(run_source), run_source


def _judge(options: Options, run_source, qrels_source=None) -> JudgedRanking:
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


# ---- trec_eval's driver -----------------------------------------------------------------------

def truncated(judged: JudgedRanking, keep: int) -> JudgedRanking:
    """The top ``keep`` of each ranking (-M)."""
    return _with_hits(judged, judged.hit_ranks <= keep, judged.hit_ranks,
                      np.minimum(judged.lengths, keep))


def judged_items_only(judged: JudgedRanking) -> JudgedRanking:
    """Each ranking without its unjudged items, the others ranked 1, 2, ... in their order (-J);
    a negative grade, trec_eval's 'pooled but not judged', is unjudged too."""
    keep = judged.hit_grades >= 0
    kept = np.cumsum(keep)   # kept hits up to each hit, over all queries
    before = np.r_[0, kept][judged.offsets[:-1]]   # ... before each query's first hit
    ranks = kept - np.repeat(before, np.diff(judged.offsets))
    lengths = np.bincount(judged.hit_query[keep], minlength=judged.num_queries)
    return _with_hits(judged, keep, ranks, lengths)


def _with_hits(judged: JudgedRanking, keep: np.ndarray, ranks: np.ndarray,
               lengths: np.ndarray) -> JudgedRanking:
    counts = np.bincount(judged.hit_query[keep], minlength=judged.num_queries)
    # trec_eval 10's order is total (score, then id): no tie groups are left to report
    return replace(judged, hit_ranks=ranks[keep], hit_grades=judged.hit_grades[keep],
                   offsets=np.r_[0, np.cumsum(counts)].astype(np.int64),
                   lengths=np.asarray(lengths, dtype=np.int64), hit_tie_first=None,
                   hit_tie_size=None, ties=TieReport(), lists=None, query_rows=None)


# trec_eval's clean-up of the values of a query -c scores on its one-item ranking: by the
# printed name, so that utility_2,-1,0,0 or rbp_resid_p=0.8 keep what that ranking gave them
LEFTOVERS = ("num_ret", "utility", "rbp_resid", "relstring")


def _clean_up_leftovers(values: list[Value], per_query: dict, absent: np.ndarray) -> None:
    for v in values:
        if v.measure is not None and (v.name in LEFTOVERS or v.name.startswith("unj")):
            per_query[v.measure] = np.where(absent, 0.0, per_query[v.measure])


def utility_needs_collection(values: list[Value]) -> bool:
    """Whether a utility's fourth coefficient (non-relevant items not retrieved) is not 0, so
    that it counts the collection, trec_eval's -N."""
    return any(v.measure is not None and v.measure.name == "Utility" and v.measure.param("tn")
               for v in values)


def _c_double(value: float) -> str:
    """``%6.4f`` as C's printf writes it, NaN as ``-nan`` when its sign bit is set."""
    if math.isnan(value):
        return f"{'-nan' if math.copysign(1.0, value) < 0 else 'nan':>6}"
    return f"{value:6.4f}"


def _line(name: str, query: str, value: float, kind: str, z: bool = False) -> str:
    """One line as trec_eval prints it; under -Z (``z``) 'Z' before the name and every value,
    counts too, as a double."""
    number = str(int(value)) if kind in (LONG, NUM_Q) and not z else _c_double(value)
    return f"{'Z' if z else ''}{name:<22}\t{query}\t{number}"


def _sequential_sum(values) -> float:
    total = 0.0
    for v in values:   # in query order, one by one, as trec_eval adds them (not pairwise)
        total += v
    return total


def evaluate_as_trec_eval(options: Options, out) -> int:
    """Judge, evaluate and print; the exit status."""
    values = selected_values(options)
    zscores = None
    if options.zscore_file is not None:   # read first, as trec_eval reads it
        try:
            zscores = load_zscores(options.zscore_file)
        except InputError as exc:
            raise TrecEvalExit(255, f"{PROG}: {exc}") from None   # trec_eval's return (UNDEF)
    judgments = read_judgments(values, options)
    groups = judgments if options.rel_format == "qrels_jg" else None
    prefs = judgments if READ_AS[options.rel_format] == PREFERENCES else None
    judged, run_id, run_source = judged_inputs(
        options, None if judgments is None else _queries_as_qrels(judgments))
    order = sorted(range(judged.num_queries), key=lambda i: str(judged.query_ids[i]).encode())
    absent = judged.lengths == 0   # a run has at least one line for each of its queries
    judged = as_trec_eval_ranks(judged, absent, values, options)
    measures = list(dict.fromkeys(v.measure for v in values
                                  if v.measure is not None and not v.over_groups))
    # under -c, trec_eval's 'all' line of num_rel counts every qrels item of grade > 0, whatever -l
    complete_num_rel = parse_measure("num_rel") if options.complete and any(
        v.name == "num_rel" for v in values) else None
    if complete_num_rel is not None and complete_num_rel not in measures:
        measures.append(complete_num_rel)
    result = evaluate(judged, measures, score_no_relevant=True) if measures else None
    # keyed by the measure: two names of one measure (Rprec_mult_1.0 at -l 1 and at 1.00) share it
    # a value left undefined is trec_eval's starting value, 0; a NaN trec_eval computes stays
    per_query = {m: result.results[str(m)].values if trec_eval_nan(m) else
                 np.nan_to_num(result.results[str(m)].values, nan=0.0) for m in measures}
    if groups is not None:
        per_query.update(averaged_over_groups(values, options, groups, run_source, judged,
                                              absent))
    if prefs is not None:
        per_query.update(preference_values(values, options, prefs, run_source, judged))
    if options.complete:
        _clean_up_leftovers(values, per_query, absent)
    z = options.zscore_file is not None
    columns = per_query_columns(values, per_query, judged, zscores)
    scored = []
    for i in order:
        query = str(judged.query_ids[i])
        if options.debug_query is not None and query != options.debug_query:
            continue
        if absent[i] and not options.complete:
            out.flush()
            raise TrecEvalExit(4, f"{PROG}: qrels query '{query}' has no results in "
                                  f"{options.run}; give -c to score it 0")
        scored.append(i)
        if options.per_query:
            for v in values:
                if v.kind == RELSTRING:
                    text = "" if v.name in LEFTOVERS and options.complete and absent[i] else \
                        relstring(judged, i, int(v.cutoff))
                    out.write(f"{v.name:<22}\t{query}\t'{text}'\n")
                elif v.kind not in (RUNID, NUM_Q, GEOMETRIC):
                    out.write(_line(v.name, query, columns[v.name][i], v.kind, z) + "\n")
    if not scored:
        raise TrecEvalExit(7, f"{PROG}: No queries with both results and relevance info")
    if not options.summary:
        return 0
    # -c averages over every qrels query, even those -D left out
    count = judged.num_queries if options.complete else len(scored)
    for v in values:
        if v.kind == RUNID:
            out.write(f"{'runid':<22}\tall\t{run_id}\n")
        elif v.kind == NUM_Q:
            out.write(_line(v.name, "all", count, NUM_Q, z) + "\n")
        elif v.kind == RELSTRING:
            continue
        else:
            column = columns[v.name][scored]
            if v.name == "num_rel" and complete_num_rel is not None:
                column = per_query[complete_num_rel]   # read from the qrels: no z-score
            if v.kind == LONG:
                total = _sequential_sum(column)
            elif v.kind == GEOMETRIC:   # the column holds the logarithms
                logs = _sequential_sum(column) + (count - len(scored)) * math.log(MIN_GEO_MEAN)
                total = math.exp(logs / count)
            else:
                total = _sequential_sum(column) / count
            out.write(_line(v.name, "all", total, v.kind, z) + "\n")
    return 0


def as_trec_eval_ranks(judged: JudgedRanking, absent: np.ndarray, values: list[Value],
                       options: Options) -> JudgedRanking:
    """The rankings trec_eval scores: under -c a query without results gets its one-item
    ranking of an unknown item; -N is the collection of utility; -M keeps the top N, then -J
    the judged items."""
    if options.complete:
        judged = replace(judged, lengths=np.where(absent, 1, judged.lengths))
    if utility_needs_collection(values):   # trec_eval's -N, 0 unless given
        judged = replace(judged, collection_sizes=options.collection_size)
    if options.max_retrieved is not None:
        judged = truncated(judged, options.max_retrieved)
    if options.judged_only:
        judged = judged_items_only(judged)
    return judged


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


def _queries_as_qrels(judgments: dict) -> bytes:
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


def preference_values(values: list[Value], options: Options, prefs: dict, run_source,
                      judged: JudgedRanking) -> dict[str, np.ndarray]:
    """Each prefs_* value per query of ``judged`` (:mod:`metrics.measures.trec_prefs`), from
    each query's ranking as form_prefs_counts.c orders it — score descending, then item id
    ascending (not form_res_rels.c's descending) — and cut at -M."""
    wanted = [v.name for v in values if v.reads == PREFERENCES]
    run = load_run(run_source if isinstance(run_source, bytes) else Path(run_source))
    if any("duplicated" in w for w in run.warnings):
        raise TrecEvalExit(4, f"{PROG}: duplicate docs in {options.run}")
    rankings: dict[bytes, list] = {}
    for code, item, score in zip(run.query_codes.tolist(), run.items.tolist(),
                                 run.scores.tolist()):
        rankings.setdefault(str(run.query_vocab[code]).encode(), []).append(
            (-score, str(item).encode()))
    out = {name: np.zeros(judged.num_queries) for name in wanted}
    for row, query in enumerate(judged.query_ids):
        key = str(query).encode()
        ranking = [item for _, item in sorted(rankings.get(key, []))]
        if options.max_retrieved is not None:
            ranking = ranking[:options.max_retrieved]
        try:
            computed = prefs_values(query_prefs(prefs.get(key, []), ranking), wanted)
        except InputError as exc:   # trec_eval: "Can't calculate measure"
            raise TrecEvalExit(4, f"{PROG}: query {query}: {exc}") from None
        for name in wanted:
            out[name][row] = computed[name]
    return out


def averaged_over_groups(values: list[Value], options: Options, groups: dict[bytes, bytes],
                         run_source, judged: JudgedRanking, absent: np.ndarray) -> dict:
    """Each *_avgjg value per query of ``judged``: its measure against each judgment group of
    the query, added in the groups' strcmp order and divided by their number when above one
    (trec_eval's m_*_avgjg.c); a value left undefined counts 0, as for every measure."""
    measures = list(dict.fromkeys(v.measure for v in values if v.over_groups))
    row = {str(q): i for i, q in enumerate(judged.query_ids)}
    sums = {m: np.zeros(judged.num_queries) for m in measures}
    counts = np.zeros(judged.num_queries, dtype=np.int64)
    for label in sorted(groups):
        group = _judge(options, run_source, groups[label])
        rows = np.array([row[str(q)] for q in group.query_ids], dtype=np.int64)
        group = as_trec_eval_ranks(group, absent[rows], values, options)
        result = evaluate(group, measures, score_no_relevant=True)
        for m in measures:
            sums[m][rows] += np.nan_to_num(result.results[str(m)].values, nan=0.0)
        counts[rows] += 1
    return {m: sums[m] / np.maximum(counts, 1) for m in measures}


def per_query_columns(values: list[Value], per_query: dict, judged: JudgedRanking,
                      zscores=None) -> dict[str, np.ndarray]:
    """Each printed value's number per query as trec_eval holds it: a geometric mean's
    as log(max(value, 0.00001)) (its m_gm_map.c stores the logarithm), and under -Z each as its
    z-score against ``zscores``, looked up by the printed name."""
    queries = [str(q) for q in judged.query_ids]
    columns = {}
    for v in values:
        if v.kind in (RUNID, NUM_Q, RELSTRING):
            continue
        column = per_query[v.measure if v.measure is not None else v.name]
        if v.kind == GEOMETRIC:
            column = np.array([math.log(max(x, MIN_GEO_MEAN)) for x in column])
        if zscores is not None:
            column = z_scores(column, queries, v.name, zscores)
        columns[v.name] = column
    return columns


def run(argv: Sequence[str] | None = None) -> int:
    """Run trec_eval's command line ``argv``; its exit status."""
    try:
        options = parse_command_line(sys.argv[1:] if argv is None else argv)
        if options is None:
            return 0
        return evaluate_as_trec_eval(options, sys.stdout)
    except TrecEvalExit as exc:
        sys.stdout.flush()
        sys.stderr.write(f"{exc}\n")
        return exc.status
    except InputError as exc:   # a file trec_eval could not read either: its status 2
        sys.stdout.flush()
        sys.stderr.write(f"{PROG}: {exc}\n")
        return 2


def main(argv: Sequence[str] | None = None) -> int:
    """The ``trec-eval-mre`` script: :func:`metrics.cli.main` with the ``trec-eval`` command, so
    that its process set-up and its handling of a bug or a lack of memory are the same."""
    from metrics.cli import main as cli_main
    return cli_main(["trec-eval", *(sys.argv[1:] if argv is None else argv)])


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
