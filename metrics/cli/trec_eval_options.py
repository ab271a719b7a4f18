"""trec_eval 10.0's command line as :mod:`metrics.cli.trec_eval` reads it: its getopt string
``hvqm:cl:nD:JN:M:R:T:oZ:`` and long options, its table of measures (measures.c: their order,
default parameters, names and how each is printed and averaged) and nicknames, and the values
that ``-m`` selects, each with the registered measure its printed name stands for
(:mod:`metrics.measures.aliases`). Exits in trec_eval's words are :class:`TrecEvalExit`.
"""

from __future__ import annotations

import getopt
import re
import sys
from dataclasses import dataclass, replace
from typing import Sequence

from metrics.errors import MeasureError
from metrics.measures.trec_prefs import LONG_MEASURES as PREFS_COUNTS, PREFS_MEASURES
from metrics.measures.names import Measure, parse_measure, with_relevance_threshold

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
