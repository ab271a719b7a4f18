"""The command line: ``python -m metrics evaluate | evaluate-matrix | evaluate-embeddings | compare``.

Exit status 0 on success and 2 on bad input, with one line on stderr naming the file and line.
"""

from __future__ import annotations

import argparse
import csv
import io
import json
import math
import os
import sys
from contextlib import contextmanager
from dataclasses import dataclass
from typing import Sequence

from metrics.errors import CollectionSizeNeeded, InputError
from metrics.evaluation.evaluate import AGGREGATES, EvaluationResult, evaluate, tie_range
from metrics.loaders import load_run, run_name
from metrics.loaders.annotations import load_taxonomy
from metrics.ranking.pipelines import (judge_embeddings, judge_matrix, judge_run_file,
                                       load_together, load_truth)
from metrics.evaluation import provenance
from metrics.evaluation.protocols import PROTOCOLS, evaluate_protocol, protocol_table
from metrics.evaluation.provenance import comment_lines
from metrics.data.ties import ALIASES, TiePolicy
from metrics.ranking.rank import JUDGED, judge
from metrics.measures.names import parse_measure, parse_measures
from metrics.measures.registry import DEFAULT_MEASURES
from metrics.ranking.streaming import parse_memory
from metrics.evaluation.stats import (CI_METHOD, DEFAULT_RESAMPLES, DEFAULT_SEED, TESTS, aggregate_intervals,
                    compare_systems)



class _Parser(argparse.ArgumentParser):
    def error(self, message: str):  # one line, exit 2, as for any bad input
        sys.stderr.write(f"error: {message} (see {self.prog} -h)\n")
        raise SystemExit(2)


def _collection_size(text: str) -> int | str:
    return JUDGED if text == JUDGED else _positive_int(text)


def _positive_int(text: str) -> int:
    try:
        value = int(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a whole number") from None
    if value < 1:
        raise argparse.ArgumentTypeError("must be at least 1")
    return value


def _common(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--measures", "-m", default=None,
                        help='comma-separated measures, e.g. "AP,P@10,nDCG@10" '
                             f"(default {DEFAULT_MEASURES})")
    parser.add_argument("--format", "-f", choices=("table", "json", "csv", "trec"), default="table",
                        help="trec: what trec_eval prints (with --per-query, trec_eval -q)")
    parser.add_argument("--ties", choices=TiePolicy.names() + tuple(ALIASES),
                        default=TiePolicy.STABLE.value,
                        help="order of equal scores: " + TiePolicy.help_text())
    parser.add_argument("--collection-size", type=_collection_size, default=None,
                        metavar="N|judged",
                        help="|D|, needed by TN, Accuracy, Specificity, Fallout and ROC: a number "
                             "for every query, or 'judged' when the ground truth judges every "
                             "item of each query's collection (|D_q| = the items judged for q)")


def build_parser() -> argparse.ArgumentParser:
    parser = _Parser(prog="python -m metrics",
                     description="Evaluate ranked retrieval: measures per query and overall.")
    sub = parser.add_subparsers(dest="command", required=True, parser_class=_Parser)

    ev = sub.add_parser("evaluate", help="evaluate a run against qrels (or labels/taxonomy)")
    ev.add_argument("run", help="TREC run, CSV/TSV with header, or Parquet")
    ev.add_argument("truth", help="qrels (TREC or CSV/TSV), a labels CSV (item_id,label), or "
                                  "with --taxonomy the item_id,class annotations")
    ev.add_argument("--taxonomy", help="class,parent CSV; relevance 2 same class, 1 sibling")
    _common(ev)
    _output(ev)

    mx = sub.add_parser("evaluate-matrix", help="evaluate an all-vs-all N×N score matrix")
    mx.add_argument("matrix", help=".npy N×N similarity (or distance with --distance)")
    mx.add_argument("labels", help="CSV item_id,label in the matrix's row order")
    mx.add_argument("--distance", action="store_true", help="smaller values are more similar")
    _common(mx)
    _cluster(mx)
    _output(mx)

    em = sub.add_parser("evaluate-embeddings", help="rank items by embedding similarity")
    em.add_argument("query_embeddings")
    em.add_argument("query_ids", help="one query id per line (or CSV with query_id column)")
    em.add_argument("item_embeddings")
    em.add_argument("item_ids", help="one item id per line (or CSV with item_id column)")
    em.add_argument("truth", help="qrels (query_id,item_id,relevance), or clique labels "
                                  "(item_id,label): then give the same embeddings and ids as "
                                  "queries and items, and every item is a query against all the "
                                  "others, itself excluded (cover songs)")
    em.add_argument("--similarity", choices=("cosine", "dot", "euclidean"), default="cosine",
                    help="cosine, dot product or negative Euclidean distance")
    _common(em)
    _memory(em)
    _cluster(em)
    _output(em)

    cp = sub.add_parser("compare", help="compare two or more runs on the same ground truth")
    cp.add_argument("files", nargs="+", metavar="RUN ... TRUTH",
                    help="two or more runs, then the qrels (or labels) file, or with --taxonomy "
                         "the item_id,class annotations")
    cp.add_argument("--taxonomy", help="class,parent CSV; relevance 2 same class, 1 sibling")
    cp.add_argument("--test", action="append", choices=TESTS, default=None,
                    help="significance test; repeat for several (default: all three)")
    _resampling(cp, "seed of the randomisation test and the bootstrap",
                "permutations and bootstrap resamples (default 10000)")
    _provenance(cp)
    _common(cp)
    ms = sub.add_parser("measures", help="list the measures, their parameters and conventions")
    ms.add_argument("--format", "-f", choices=("table", "markdown", "json"), default="table")
    pr = sub.add_parser("protocols", help="list the benchmark protocols, their sources and "
                                          "conventions")
    pr.add_argument("--format", "-f", choices=("table", "markdown", "json"), default="table")
    return parser


def measure_table(fmt: str) -> str:
    """The registry as a table (name, syntax, meaning, convention, reference), then the aliases:
    trec_eval's names and the names papers use, each with the one measure of ours it means."""
    from metrics.measures.aliases import alias_rows
    from metrics.measures.registry import measure_rows

    rows, aliases = measure_rows(), alias_rows()
    if fmt == "json":
        return json.dumps({"measures": rows, "aliases": aliases}, indent=2)

    def cell(text: str) -> str:
        return str(text).replace("|", "\\|")

    if fmt == "markdown":
        lines = ["| syntax (defaults shown) | meaning | convention | reference | "
                 "`--ties expected` |", "| --- | --- | --- | --- | --- |"]
        lines += [f"| `{r['syntax']}` | {cell(r['meaning'])} | {cell(r['convention'])} | "
                  f"{cell(r['reference'])} | {cell(r['ties_expected'] or 'refused')} |"
                  for r in rows]
        lines += ["", "Aliases — trec_eval's names and the names papers use — each mean exactly "
                  "one measure of ours, and results are printed back under the name given:", "",
                  "| alias | our measure | meaning | from |", "| --- | --- | --- | --- |"]
        def code(text: str) -> str:
            return ", ".join(f"`{part.strip()}`" for part in text.split(", "))
        lines += [f"| {code(a['alias'])} | {code(a['means'])} | {cell(a['meaning'])} | "
                  f"{a['source']} |" for a in aliases]
        return "\n".join(lines)
    lines = [f"{r['syntax']:<34} {r['meaning']}"
             + ("" if r["ties_expected"] else " [refused under --ties expected]") for r in rows]
    lines += ["", "aliases (printed back under the name given):"]
    lines += [f"{a['alias']:<40} {a['means']:<36} {a['meaning']}" for a in aliases]
    return "\n".join(lines)


def _memory_size(text: str) -> int:
    try:
        return parse_memory(text)
    except InputError as exc:
        raise argparse.ArgumentTypeError(str(exc)) from None


def _memory(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--memory", type=_memory_size, default=None, metavar="SIZE",
                        help="memory for each block of scores, e.g. 128M or 2G (default 128M); "
                             "blocks of queries are sized to fit it, whatever the number of items")


@contextmanager
def progress_bar(what: str, unit: str):
    """A progress callback drawn on stderr when stderr is a terminal (tqdm), None otherwise, so
    JSON output and CI logs stay clean."""
    if not sys.stderr.isatty():
        yield None
        return
    from tqdm import tqdm
    bar = tqdm(desc=what, unit=f" {unit}", file=sys.stderr, leave=False, mininterval=0.5,
               delay=2.0)
    try:
        yield bar.update
    finally:
        bar.close()


def _cluster(parser: argparse.ArgumentParser) -> None:
    where = parser.add_mutually_exclusive_group()
    where.add_argument("--scheduler", metavar="tcp://HOST:PORT",
                       help="run the blocks of queries as tasks on this dask.distributed "
                            "scheduler; the output is the same as on one process")
    where.add_argument("--workers", type=_positive_int, metavar="N",
                       help="start a local Dask cluster of N worker processes (127.0.0.1) and "
                            "run the blocks there")


def _resampling(parser: argparse.ArgumentParser, seed_help: str, resamples_help: str) -> None:
    parser.add_argument("--seed", type=int, default=DEFAULT_SEED,
                        help=f"{seed_help} (default {DEFAULT_SEED})")
    parser.add_argument("--resamples", type=_positive_int, default=DEFAULT_RESAMPLES,
                        help=resamples_help)


def _level(text: str) -> float:
    try:
        value = float(text)
    except ValueError:
        raise argparse.ArgumentTypeError(f"{text!r} is not a number") from None
    if not 0 < value < 1:
        raise argparse.ArgumentTypeError(f"{text} must lie between 0 and 1, e.g. 0.95")
    return value


def _output(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--per-query", action="store_true", help="print every query's values")
    parser.add_argument("--aggregate", choices=AGGREGATES, default="mean",
                        help="how per-query values are summarised (undefined ones left out)")
    parser.add_argument("--protocol", choices=list(PROTOCOLS), default=None,
                        help="print what a benchmark's reference code prints, under its names, "
                             "in place of --measures ('python -m metrics protocols' lists them)")
    parser.add_argument("--ci", type=_level, default=None, metavar="LEVEL",
                        help="a percentile bootstrap confidence interval of each aggregate over "
                             "queries at this level, e.g. 0.95 (scipy.stats.bootstrap, seeded)")
    _resampling(parser, "seed of the bootstrap", "bootstrap resamples (default 10000)")
    _provenance(parser)


def _provenance(parser: argparse.ArgumentParser) -> None:
    parser.add_argument("--provenance", action="store_true",
                        help="add a provenance record (version, measures and conventions, tie "
                             "policy, input files' SHA-256, query counts, warnings, seed): a "
                             "\"provenance\" object in JSON, leading '# key: value' lines in "
                             "CSV and after the table")


# ---- output ------------------------------------------------------------------------------------

def _json_number(value):
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def _text_number(value) -> str:
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    value = float(value)
    return str(int(value)) if value.is_integer() and abs(value) < 1e15 else f"{value:.4f}"


def _table(header: list[str], rows: list[list[str]]) -> str:
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths)))
             for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def _trec_sort_key(query_id) -> bytes:
    return str(query_id).encode("utf-8")   # trec_eval orders queries by strcmp


def _measure_name(label: str) -> str | None:
    try:
        return parse_measure(label).name
    except InputError:
        return None


def render_trec(result: EvaluationResult, per_query: bool, how: str = "mean") -> str:
    """What ``trec_eval`` prints (``trec_eval -q`` with ``per_query``): lines
    ``name<TAB>query<TAB>value`` with the name left-justified to 22 characters
    (``"%-22s\t%s\t%6.4f"``); count measures (NumRel, NumRet, NumRelRet, NumQ) print as
    integers (``"%ld"``) and are summed on the ``all`` line. Per query: every measure of one query,
    then the next query, queries in strcmp order; then the ``all`` lines. trec_eval never prints
    NaN: a value that is undefined (a query with no relevant item) has no line, and the ``all``
    line is the aggregate over the queries where the measure is defined."""
    def line(name: str, query: str, value: float, count: bool) -> str:
        number = str(int(value)) if count else f"{value:6.4f}"
        return f"{name:<22}\t{query}\t{number}"

    lines = []
    counts = {m: r.is_summed for m, r in result.results.items()}
    # num_q has no per-query line in trec_eval, only its "all" line
    no_single = {m for m in result.results if _measure_name(m) == "NumQ"}
    if per_query:
        order = sorted(range(len(result.query_ids)),
                       key=lambda i: _trec_sort_key(result.query_ids[i]))
        for i in order:
            for m, r in result.results.items():
                value = float(r.values[i])
                if math.isfinite(value) and m not in no_single:
                    lines.append(line(m, str(result.query_ids[i]), value, counts[m]))
    for m, value in result.aggregate(how).items():
        if value is not None and math.isfinite(value):
            lines.append(line(m, "all", value, counts[m] and how == "mean"))
    return "\n".join(lines)


@dataclass(frozen=True)
class Intervals:
    """Each aggregate's bootstrap confidence interval and how it was drawn."""

    bounds: dict[str, tuple[float | None, float | None]]
    level: float
    seed: int
    resamples: int
    method: str = CI_METHOD

    @property
    def label(self) -> str:
        return f"{self.level:.0%} CI" if round(self.level * 100, 9).is_integer() else \
            f"{self.level:g} CI"

    def cell(self, measure: str) -> str:
        low, high = self.bounds[measure]
        return f"[{_text_number(low)}, {_text_number(high)}]"


def render_evaluation(result: EvaluationResult, fmt: str, per_query: bool, how: str,
                      protocol: str | None = None, intervals: Intervals | None = None,
                      provenance: dict | None = None, ranges: dict | None = None) -> str:
    """The result in one of the output formats. With ``protocol``, the columns are that
    benchmark's (each aggregated as its reference code does) and the JSON names the protocol;
    with ``intervals``, each aggregate's confidence interval is printed beside it; with
    ``provenance``, the record is added (see :mod:`metrics.evaluation.provenance`); ``ranges`` (from
    :func:`metrics.evaluation.evaluate.tie_range`), when the run has ties, adds each measure's aggregate
    under the pessimistic and optimistic tie orders."""
    ranges = ranges or {}
    if fmt == "trec":
        return render_trec(result, per_query, how)
    summary = result.aggregate(how)
    undefined = result.undefined()
    summed = result.summed()
    if fmt == "json":
        out = {"measures": result.measures,
               "aggregate": {m: _json_number(v) for m, v in summary.items()}}
        if protocol is not None:
            p = PROTOCOLS[protocol]
            out["protocol"] = {"name": p.name, "title": p.title, "source": p.source,
                               "conventions": p.conventions}
        if per_query:
            out["per_query"] = {
                str(q): {m: _json_number(r.values[i]) for m, r in result.results.items()}
                for i, q in enumerate(result.query_ids)}
        if intervals is not None:
            out["ci"] = {m: [_json_number(v) for v in intervals.bounds[m]]
                         for m in result.measures}
            out["ci_level"] = intervals.level
            out["ci_method"] = intervals.method
            out["ci_resamples"] = intervals.resamples
            out["seed"] = intervals.seed
        out["warnings"] = list(result.warnings)
        out["aggregate_method"] = how
        if how == "mean" and protocol is None:
            out["summed"] = summed   # count measures: their "mean" aggregate is the sum
        out["num_queries"] = len(result.query_ids)
        out["undefined"] = undefined
        out["conventions"] = {m: r.convention for m, r in result.results.items()}
        ties = result.ties
        out["ties"] = {"tied_items": ties.tied_items, "tie_groups": ties.tie_groups,
                       "queries_with_ties": ties.queries_with_ties,
                       "straddling": {str(k): ties.straddling(k) for k in result.cutoffs}}
        if ranges:   # [pessimistic, optimistic]: how far the order of tied items moves each
            out["tie_range"] = {m: [_json_number(lo), _json_number(hi)]
                                for m, (lo, hi) in ranges.items()}
        if provenance is not None:
            out["provenance"] = provenance
        return json.dumps(out, indent=2)
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(["query_id", *result.measures])
        if per_query:
            for i, q in enumerate(result.query_ids):
                writer.writerow([q, *[_csv_number(r.values[i]) for r in result.results.values()]])
        writer.writerow([f"all ({how})", *[_csv_number(summary[m]) for m in result.measures]])
        if intervals is not None:
            for side, name in enumerate(("low", "high")):
                writer.writerow([f"ci {name} ({intervals.level:g})",
                                 *[_csv_number(intervals.bounds[m][side])
                                   for m in result.measures]])
        return _with_comments(buffer.getvalue().rstrip("\n"), provenance)
    blocks = []
    if per_query:
        rows = [[str(q), *[_text_number(r.values[i]) for r in result.results.values()]]
                for i, q in enumerate(result.query_ids)]
        blocks.append(_table(["query", *result.measures], rows))
    rows = [[m, _text_number(summary[m]),
             *([intervals.cell(m)] if intervals is not None else []),
             str(len(result.query_ids) - undefined[m]), str(undefined[m])]
            for m in result.measures]
    heading = ("value" if protocol is not None else
               "mean (counts: sum)" if how == "mean" and summed else how)
    header = ["measure", heading, *([intervals.label] if intervals is not None else []),
              "queries", "undefined"]
    if ranges:   # compactly: pessimistic..optimistic
        header.append("ties: pessimistic..optimistic")
        for row, m in zip(rows, result.measures):
            lo, hi = ranges.get(m, (None, None))
            row.append(f"{_text_number(lo)}..{_text_number(hi)}")
    blocks.append(_table(header, rows))
    if provenance is not None:
        blocks.append(comment_lines(provenance))
    return "\n\n".join(blocks)


def _with_comments(csv_text: str, provenance: dict | None) -> str:
    """A CSV with the provenance record as leading '# key: value' lines."""
    return csv_text if provenance is None else comment_lines(provenance) + "\n" + csv_text


def _csv_number(value) -> str:
    value = _json_number(value)
    return "" if value is None else repr(value)


def render_comparison(systems, measures, aggregates, tests, fmt: str,
                      provenance: dict | None = None) -> str:
    if fmt == "json":
        out = {"systems": systems, "measures": measures,
               "aggregate": {s: {m: _json_number(v) for m, v in aggregates[s].items()}
                             for s in systems},
               "tests": [t.as_dict() for t in tests]}
        if provenance is not None:
            out["provenance"] = provenance
        return json.dumps(out, indent=2)
    rows = [[t.measure, t.a, t.b, t.test, _text_number(t.mean_diff),
             f"[{_text_number(t.ci[0])}, {_text_number(t.ci[1])}]", _text_number(t.statistic),
             _p(t.p), _p(t.p_holm), _text_number(t.effect_size), str(t.n),
             f"{t.wins}/{t.ties}/{t.losses}"] for t in tests]
    header = ["measure", "A", "B", "test", "B−A", "95% CI", "statistic", "p", "p (Holm)",
              "d", "n", "win/tie/loss"]
    if fmt == "csv":
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow(header)
        writer.writerows(rows)
        return _with_comments(buffer.getvalue().rstrip("\n"), provenance)
    means = _table(["system", *measures],
                   [[s, *[_text_number(aggregates[s][m]) for m in measures]] for s in systems])
    text = means + "\n\n" + _table(header, rows)
    return text if provenance is None else text + "\n\n" + comment_lines(provenance)


def _p(value) -> str:
    if value is None:
        return "-"
    return f"{value:.4g}"


# ---- commands ----------------------------------------------------------------------------------

def _truth(path: str, taxonomy: str | None):
    return load_taxonomy(taxonomy, path) if taxonomy else load_truth(path)


@contextmanager
def _cluster_of(args):
    """The Dask cluster of --scheduler or --workers (closed afterwards), or None."""
    if not (args.scheduler or args.workers):
        yield None
        return
    from metrics.ranking.cluster import from_options
    with from_options(args.scheduler, args.workers) as cluster:
        yield cluster


def _emit(text: str, warnings_list, fmt: str) -> None:
    if fmt != "json":
        for warning in warnings_list:
            sys.stderr.write(f"warning: {warning}\n")
    sys.stdout.write(text + "\n")


def run(argv: Sequence[str] | None = None) -> int:
    args = build_parser().parse_args(argv)
    if args.command == "measures":
        sys.stdout.write(measure_table(args.format) + "\n")
        return 0
    if args.command == "protocols":
        text = (json.dumps(protocol_table("rows"), indent=2, ensure_ascii=False)
                if args.format == "json" else protocol_table(args.format))
        sys.stdout.write(text + "\n")
        return 0
    protocol = getattr(args, "protocol", None)
    if protocol is not None and args.measures is not None:
        raise InputError("give --measures or --protocol, not both: a protocol prints its "
                         "benchmark's own measures")
    if protocol is not None and args.aggregate != "mean":
        raise InputError(f"--protocol {protocol} aggregates as its reference code does; leave "
                         f"out --aggregate {args.aggregate}")
    if args.format == "trec" and (getattr(args, "ci", None) is not None or args.provenance):
        raise InputError("--ci and --provenance are printed by --format table, json and csv; "
                         "trec_eval's format has no place for them")
    measures = parse_measures(args.measures or DEFAULT_MEASURES)
    if args.command == "compare":
        if args.format == "trec":
            raise InputError("--format trec is for evaluate, evaluate-matrix and "
                             "evaluate-embeddings; compare prints table, json or csv")
        if len(args.files) < 3:
            raise InputError("compare needs at least two runs and a ground-truth file")
        *runs, truth_path = args.files
        truth = _truth(truth_path, args.taxonomy)
        names, per_query, aggregates, warnings_list = [], {}, {}, []
        for path in runs:
            name = run_name(path)
            if name in per_query:
                name = path
            result = evaluate(judge_run_file(path, truth, args.ties, args.collection_size),
                              measures)
            names.append(name)
            per_query[name] = {m: r.values for m, r in result.results.items()}
            aggregates[name] = result.aggregate("mean")
            warnings_list.extend(result.warnings)
        labels = [str(m) for m in measures]
        tests = compare_systems(per_query, labels, args.test or list(TESTS), args.seed,
                                args.resamples)
        record = None
        if args.provenance:
            record = provenance.record(
                command="compare", inputs=provenance.input_files(
                    [*(("run", p) for p in runs), ("truth", truth_path),
                     ("taxonomy", args.taxonomy)]),
                measures=measures, ties=args.ties, seed=args.seed,
                options={"tests": args.test or list(TESTS), "resamples": args.resamples,
                         "collection_size": args.collection_size},
                warnings=warnings_list)
        _emit(render_comparison(names, labels, aggregates, tests, args.format, record),
              dict.fromkeys(warnings_list), args.format)
        return 0
    if args.command == "evaluate":
        truth, system = load_together(lambda: _truth(args.truth, args.taxonomy),
                                      lambda: load_run(args.run))
        judged = judge(system, truth, args.ties, args.collection_size, keep_lists=False)
    elif args.command == "evaluate-matrix":
        with _cluster_of(args) as cluster, progress_bar("ranking", "queries") as progress:
            judged = judge_matrix(args.matrix, args.labels, args.ties, args.distance,
                                  args.collection_size, progress=progress, keep_lists=False,
                                  cluster=cluster)
    else:
        with _cluster_of(args) as cluster, progress_bar("ranking", "queries") as progress:
            judged = judge_embeddings(args.query_embeddings, args.query_ids, args.item_embeddings,
                                      args.item_ids, load_truth(args.truth), args.similarity,
                                      args.ties, args.collection_size, memory=args.memory,
                                      progress=progress, keep_lists=False, cluster=cluster)
    result = evaluate_protocol(judged, protocol) if protocol else evaluate(judged, measures)
    intervals = None
    if args.ci is not None:
        intervals = Intervals(aggregate_intervals(result, args.ci, args.seed, args.resamples,
                                                  args.aggregate),
                              args.ci, args.seed, args.resamples)
    record = _evaluation_record(args, judged, result, measures, intervals) \
        if args.provenance else None
    ranges = (tie_range(judged, measures, args.aggregate)
              if not protocol and args.format in ("json", "table") else {})
    _emit(render_evaluation(result, args.format, args.per_query, args.aggregate, protocol,
                            intervals, record, ranges), result.warnings, args.format)
    return 0


INPUT_ROLES = {
    "evaluate": (("run", "run"), ("truth", "truth"), ("taxonomy", "taxonomy")),
    "evaluate-matrix": (("matrix", "matrix"), ("labels", "labels")),
    "evaluate-embeddings": (("query_embeddings", "query_embeddings"), ("query_ids", "query_ids"),
                            ("item_embeddings", "item_embeddings"), ("item_ids", "item_ids"),
                            ("truth", "truth")),
}


def _evaluation_record(args, judged, result, measures, intervals) -> dict:
    """The provenance record of an evaluate command (the input files hashed again, streamed)."""
    inputs = provenance.input_files((role, getattr(args, attr, None))
                                    for role, attr in INPUT_ROLES[args.command])
    options = {"collection_size": args.collection_size}
    if args.command == "evaluate-matrix":
        options["distance"] = args.distance
    if args.command == "evaluate-embeddings":
        options["similarity"] = args.similarity
    ci = None if intervals is None else {"level": intervals.level, "method": intervals.method,
                                         "resamples": intervals.resamples}
    return provenance.record(
        command=args.command, inputs=inputs, result=result,
        measures=[] if args.protocol else measures, protocol=args.protocol, ties=args.ties,
        aggregate=args.aggregate, options=options,
        seed=intervals.seed if intervals is not None else None, ci=ci,
        queries={"without_relevant": int((judged.num_relevant(1) == 0).sum()),
                 "run_only_left_out": judged.run_only_queries},
        warnings=result.warnings)


def _no_huge_pages() -> None:
    """Ask NumPy not to request transparent huge pages for its large arrays (the
    ``NUMPY_MADVISE_HUGEPAGE=0`` setting, unless the user has set that variable).

    A command-line run allocates each large array once and exits; where the kernel compacts
    memory to find a 2 MB page on first touch (THP ``defrag=madvise``, a common default), that
    costs more than the small pages it saves. In two alternating series on the W1 benchmark it
    took 0.1 and 0.4 s off a median of about 4.3 s, mostly system time. The app, a long-lived
    process, keeps NumPy's default."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    try:
        from numpy._core import multiarray
    except ImportError:  # NumPy 1.x
        from numpy.core import multiarray
    setter = getattr(multiarray, "_set_madvise_hugepage", None)
    if setter is not None:
        setter(False)


def main(argv: Sequence[str] | None = None) -> int:
    _no_huge_pages()
    try:
        return run(argv)
    except CollectionSizeNeeded as exc:
        sys.stderr.write(f"error: {exc}: give it with --collection-size N, or --collection-size "
                         f"judged when the ground truth judges every item of each query\n")
        return 2
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except MemoryError:
        sys.stderr.write("error: not enough memory for this input\n")
        return 1
    except BrokenPipeError:
        return 0
    except Exception as exc:  # a bug: still one line, but say so
        if os.environ.get("METRICS_DEBUG"):
            raise
        sys.stderr.write(f"internal error ({type(exc).__name__}: {exc}); rerun with "
                         f"METRICS_DEBUG=1 for details and please report it\n")
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
