"""The command line's grammar: :func:`build_parser`, the commands, their options and how each
option's text is checked.

Defaults and choices come from their owners in the engine (measures from the registry, tie
policies from :class:`~metrics.data.ties.TiePolicy`, corrections from
:class:`~metrics.evaluation.corrections.Correction`, seeds and resamples from
:mod:`metrics.evaluation.stats`), and numbers are parsed by the engine's own parsers, so that the
command line, the dashboard and measure names agree on what a valid value is. This is the command
line's edge: ``--ties`` and ``--correction`` leave it as a TiePolicy and a Correction, never as
text.
"""

from __future__ import annotations

import argparse
import sys
from typing import Callable, Sequence, TypeVar

from metrics.data.judged import check_collection_size
from metrics.data.ties import ALIASES, TiePolicy
from metrics.evaluation.evaluate import AGGREGATES
from metrics.evaluation.protocols import PROTOCOLS
from metrics.evaluation.corrections import Correction
from metrics.evaluation.power import DEFAULT_POWER, MIN_ALPHA, significance_level
from metrics.evaluation.stats import (DEFAULT_ALPHA, DEFAULT_RESAMPLES, DEFAULT_SEED,
                                      TESTS)
from metrics.loaders.arrays import SIMILARITIES
from metrics.measures.registry import DEFAULT_MEASURES, positive_float, positive_int
from metrics.ranking.rank import JUDGED
from metrics.ranking.streaming import DEFAULT_MEMORY, parse_memory

from metrics.cli.grouped import add_metadata_options
from metrics.cli.judging import add_commands as add_judging_commands

Parsed = TypeVar("Parsed")


class OneLineErrorParser(argparse.ArgumentParser):
    """An argument parser whose usage errors are one line on stderr and exit status 2, as for any
    other bad input (argparse's own prints the whole usage first)."""

    def error(self, message: str):
        sys.stderr.write(f"error: {message} (see {self.prog} -h)\n")
        raise SystemExit(2)


# ---- option types ------------------------------------------------------------------------------

def argument_type(parse: Callable[[str], Parsed]) -> Callable[[str], Parsed]:
    """The engine's parser ``parse`` as an argparse ``type``. Its ValueError (an InputError is
    one) becomes an ArgumentTypeError, because argparse prints only the message of that: of a
    plain ValueError it prints "invalid <name> value", which does not say what is wrong."""
    def parse_argument(text: str) -> Parsed:
        try:
            return parse(text)
        except ValueError as exc:
            raise argparse.ArgumentTypeError(str(exc)) from None
    parse_argument.__name__ = parse.__name__
    return parse_argument


def one_of(parse: Callable[[str], Parsed], names: Sequence[str]) -> Callable[[str], Parsed]:
    """An option whose text is one of ``names``, parsed by the type that owns them (``parse``:
    :meth:`TiePolicy.parse`, :meth:`Correction.parse`) into that type. A name it does not know is
    refused in argparse's own words for a bad choice; give the option ``metavar=choices(names)``
    for argparse's list of choices in the usage."""
    def parse_choice(text: str) -> Parsed:
        try:
            return parse(text)
        except ValueError:
            raise argparse.ArgumentTypeError(f"invalid choice: {text!r} (choose from "
                                             f"{', '.join(map(repr, names))})") from None
    parse_choice.__name__ = parse.__name__
    return parse_choice


def choices(names: Sequence[str]) -> str:
    """The usage's list of the names of :func:`one_of`, as argparse writes ``choices``."""
    return "{" + ",".join(names) + "}"


TIE_NAMES = TiePolicy.names() + tuple(ALIASES)   # former names, still accepted, last
tie_policy = one_of(TiePolicy.parse, TIE_NAMES)
correction = one_of(Correction.parse, Correction.names())
whole_number = argument_type(positive_int)      # at least 1
memory_size = argument_type(parse_memory)       # bytes, from "128M" or "2G"


@argument_type
def collection_size(text: str) -> int | str:
    """|D| as a number, or ``judged``: each query's collection is the items judged for it."""
    if text == JUDGED:
        return JUDGED
    size = positive_int(text)
    check_collection_size(size)   # before any file is read
    return size


@argument_type
def confidence_level(text: str) -> float:
    # checked here, before any file is read, rather than by stats.aggregate_intervals afterwards
    try:
        value = float(text)
    except ValueError:
        raise ValueError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise ValueError(f"{text} must lie between 0 and 1, e.g. 0.95")
    return value


# ---- groups of options shared by several commands ----------------------------------------------

def _add_measure_options(parser: argparse.ArgumentParser,
                         formats: tuple[str, ...] = ("table", "json", "csv", "trec"),
                         format_help: str = "trec: what trec_eval prints (with --per-query, "
                                            "trec_eval -q)") -> None:
    """What is measured and how: measures, output format, tie policy, collection size."""
    parser.add_argument("--measures", "-m", default=None,
                        help='comma-separated measures, e.g. "AP,P@10,nDCG@10" '
                             f"(default {DEFAULT_MEASURES})")
    parser.add_argument("--format", "-f", choices=formats, default="table", help=format_help)
    parser.add_argument("--ties", type=tie_policy, metavar=choices(TIE_NAMES),
                        default=TiePolicy.STABLE,
                        help="order of equal scores: " + TiePolicy.help_text())
    parser.add_argument("--collection-size", type=collection_size, default=None,
                        metavar=f"N|{JUDGED}",
                        help="|D|, needed by TN, Accuracy, Specificity, Fallout and ROC: a number "
                             f"for every query, or '{JUDGED}' when the ground truth judges every "
                             "item of each query's collection (|D_q| = the items judged for q)")


def _add_output_options(parser: argparse.ArgumentParser) -> None:
    """What an evaluate command prints beside the aggregates."""
    parser.add_argument("--per-query", action="store_true", help="print every query's values")
    parser.add_argument("--aggregate", choices=AGGREGATES, default="mean",
                        help="how per-query values are summarised (undefined ones left out)")
    parser.add_argument("--protocol", choices=list(PROTOCOLS), default=None,
                        help="print what a benchmark's reference code prints, under its names, "
                             "in place of --measures ('python -m metrics protocols' lists them)")
    parser.add_argument("--ci", type=confidence_level, default=None, metavar="LEVEL",
                        help="a percentile bootstrap confidence interval of each aggregate over "
                             "queries at this level, e.g. 0.95 (scipy.stats.bootstrap, seeded)")
    _add_resampling_options(parser, "seed of the bootstrap",
                            f"bootstrap resamples (default {DEFAULT_RESAMPLES})")
    _add_provenance_option(parser)


def _add_resampling_options(parser: argparse.ArgumentParser, seed_help: str,
                            resamples_help: str) -> None:
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"{seed_help} (default {DEFAULT_SEED})")
    parser.add_argument("--resamples", type=whole_number, default=DEFAULT_RESAMPLES,
                        help=resamples_help)


def _add_provenance_option(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provenance", action="store_true",
                        help="add a provenance record (version, measures and conventions, tie "
                             "policy, input files' SHA-256, query counts, warnings, seed): a "
                             "\"provenance\" object in JSON, leading '# key: value' lines in "
                             "CSV and after the table")


def _add_memory_option(parser: argparse.ArgumentParser, what: str = "blocks of queries are "
                       "sized to fit it, whatever the number of items") -> None:
    parser.add_argument("--memory", type=memory_size, default=None, metavar="SIZE",
                        help="memory for each block of work, e.g. 128M or 2G (default "
                             f"{DEFAULT_MEMORY >> 20}M); {what}")


def _add_cluster_options(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="run the blocks of queries as tasks on this dask.distributed "
                            "scheduler; the output is the same as on one process")
    where.add_argument("--workers", type=whole_number, metavar="N",
                       help="start a local Dask cluster of N worker processes (127.0.0.1) and "
                            "run the blocks there")


# ---- the commands ------------------------------------------------------------------------------

def build_parser() -> argparse.ArgumentParser:
    parser = OneLineErrorParser(prog="python -m metrics",
                                description="Evaluate ranked retrieval: measures per query and "
                                            "overall.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=OneLineErrorParser)

    ev = sub.add_parser("evaluate", help="evaluate a run against qrels (or labels/taxonomy)")
    ev.add_argument("run", help="TREC run, CSV/TSV with header, or Parquet")
    ev.add_argument("truth", help="qrels (TREC or CSV/TSV), a labels CSV (item_id,label), or "
                                  "with --taxonomy the item_id,class annotations")
    ev.add_argument("--taxonomy", help="class,parent CSV; relevance 2 same class, 1 sibling")
    _add_measure_options(ev)
    _add_memory_option(ev, "a TREC run sorted by query is read in blocks of lines sized to fit "
                           "it, whatever its length (docs/performance.md)")
    _add_output_options(ev)
    add_metadata_options(ev)

    mx = sub.add_parser("evaluate-matrix", help="evaluate an all-vs-all N×N score matrix")
    mx.add_argument("matrix", help=".npy N×N similarity (or distance with --distance)")
    mx.add_argument("labels", help="CSV item_id,label in the matrix's row order")
    mx.add_argument("--distance", action="store_true", help="smaller values are more similar")
    _add_measure_options(mx)
    _add_cluster_options(mx)
    _add_output_options(mx)
    add_metadata_options(mx)

    em = sub.add_parser("evaluate-embeddings", help="rank items by embedding similarity")
    em.add_argument("query_embeddings")
    em.add_argument("query_ids", help="one query id per line (or CSV with query_id column)")
    em.add_argument("item_embeddings")
    em.add_argument("item_ids", help="one item id per line (or CSV with item_id column)")
    em.add_argument("truth", help="qrels (query_id,item_id,relevance), or clique labels "
                                  "(item_id,label): then give the same embeddings and ids as "
                                  "queries and items, and every item is a query against all the "
                                  "others, itself excluded (cover songs)")
    # cosine, as judge_embeddings (the engine names no default similarity of its own)
    em.add_argument("--similarity", choices=SIMILARITIES, default="cosine",
                    help="cosine, dot product or negative Euclidean distance")
    _add_measure_options(em)
    _add_memory_option(em)
    _add_cluster_options(em)
    _add_output_options(em)
    add_metadata_options(em)

    cp = sub.add_parser("compare", help="compare two or more runs on the same ground truth")
    cp.add_argument("files", nargs="+", metavar="RUN ... TRUTH",
                    help="two or more runs, then the qrels (or labels) file, or with --taxonomy "
                         "the item_id,class annotations")
    cp.add_argument("--taxonomy", help="class,parent CSV; relevance 2 same class, 1 sibling")
    cp.add_argument("--test", action="append", choices=TESTS, default=None,
                    help="significance test; repeat for several (default: all three)")
    cp.add_argument("--correction", type=correction, metavar=choices(Correction.names()),
                    default=None,
                    help="add a matrix of every pair's adjusted p-value and mean difference per "
                         "measure, and the groups of systems that cannot be told apart: "
                         + Correction.help_text())
    cp.add_argument("--baseline", default=None, metavar="NAME",
                    help="with --correction: also test every system against this one (default: "
                         "the first run) and against the best")
    cp.add_argument("--alpha", type=confidence_level, default=DEFAULT_ALPHA,
                    help=f"significance level of the groups (default {DEFAULT_ALPHA})")
    _add_resampling_options(cp, "seed of the randomisation test and the bootstrap",
                            f"permutations and bootstrap resamples (default {DEFAULT_RESAMPLES})")
    _add_provenance_option(cp)
    _add_measure_options(cp, ("table", "json", "csv", "trec", "latex", "markdown"),
                         "latex, markdown: the systems × measures table for a paper (best in "
                         "bold, superscripts: the systems each is significantly better than by "
                         "--correction, default holm, at --alpha)")
    add_metadata_options(cp)

    pw = sub.add_parser("power", help="how many queries a difference between two runs needs: "
                                      "the paired t-test's power (topic set size design)")
    pw.add_argument("files", nargs=3, metavar="RUN_A RUN_B TRUTH",
                    help="two runs, then the qrels (or labels) file")
    pw.add_argument("--measure", default="AP", help="one measure (default AP)")
    pw.add_argument("--alpha", type=argument_type(significance_level), default=DEFAULT_ALPHA,
                    help=f"significance level, from {MIN_ALPHA:g} to below 1 (default "
                         f"{DEFAULT_ALPHA})")
    pw.add_argument("--power", type=confidence_level, default=DEFAULT_POWER,
                    help=f"the power asked for (default {DEFAULT_POWER})")
    pw.add_argument("--delta", type=argument_type(positive_float), default=None,
                    help="a difference in the measure to detect: how many queries it needs")
    pw.add_argument("--taxonomy", help="class,parent CSV; relevance 2 same class, 1 sibling")
    pw.add_argument("--format", "-f", choices=("table", "json"), default="table")
    pw.add_argument("--ties", type=tie_policy, metavar=choices(TIE_NAMES),
                    default=TiePolicy.STABLE, help="order of equal scores (see evaluate)")
    pw.add_argument("--collection-size", type=collection_size, default=None,
                    metavar=f"N|{JUDGED}", help="|D|, for measures that need it (see evaluate)")

    # listed for -h only: commands.run hands its arguments to metrics.cli.trec_eval unparsed
    sub.add_parser("trec-eval", add_help=False,
                   help="trec_eval 10.0's command line and output: trec-eval [-q] [-m MEASURE]... "
                        "[-c] [-n] [-J] [-M N] [-l N] QRELS RUN (trec-eval -h for more)")

    add_judging_commands(sub, whole_number, tie_policy, choices(TIE_NAMES))

    ms = sub.add_parser("measures", help="list the measures, their parameters and conventions")
    ms.add_argument("--format", "-f", choices=("table", "markdown", "json"), default="table")
    pr = sub.add_parser("protocols", help="list the benchmark protocols, their sources and "
                                          "conventions")
    pr.add_argument("--format", "-f", choices=("table", "markdown", "json"), default="table")
    return parser
