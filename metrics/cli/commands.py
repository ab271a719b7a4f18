"""Running a parsed command line: load the inputs, rank and judge them, evaluate or compare, and
write the result to stdout and its warnings to stderr.

:func:`run` raises :class:`~metrics.errors.InputError` for bad input; turning that into an exit
status is :func:`metrics.cli.main`'s job, what the output looks like :mod:`metrics.cli.render`'s.
"""

from __future__ import annotations

import json
import sys
from contextlib import contextmanager
from dataclasses import replace
from typing import Sequence

from metrics.errors import InputError
from metrics.evaluation import provenance
from metrics.evaluation.evaluate import evaluate, tie_range
from metrics.evaluation.corrections import Correction
from metrics.evaluation.leaderboard import leaderboard, pairwise_matrix
from metrics.evaluation.power import detectable_sentence, power_analysis
from metrics.evaluation.protocols import evaluate_protocol, protocol_named, protocol_table
from metrics.evaluation.stats import TESTS, aggregate_intervals, compare_systems
from metrics.explain.paper_table import paper_table
from metrics.loaders import load_label_truth
from metrics.measures.names import parse_measure, parse_measures
from metrics.measures.registry import DEFAULT_MEASURES
from metrics.ranking.inputs import (ANNOTATIONS, EMBEDDINGS_QRELS, ITEM_EMBEDDINGS, ITEM_IDS,
                                    LABELS, MATRICES, MATRICES_LABELS, QRELS, QUERY_EMBEDDINGS,
                                    QUERY_IDS, RUNS, RUNS_QRELS, RUNS_TAXONOMY, TAXONOMY,
                                    EvaluationInputs)
from metrics.ranking.pipelines import input_items, judge_inputs

from metrics.cli.grouped import (Tables, check_group_options, evaluate_groups, groups_csv_rows,
                                 groups_json, groups_text, read_tables, ungrouped_json)
from metrics.cli.judging import COMMANDS as JUDGING_COMMANDS, run as run_judging
from metrics.cli.parser import build_parser
from metrics.cli.render import (Intervals, measure_table, render_comparison, render_evaluation,
                                render_power)

PAPER_FORMATS = ("latex", "markdown")   # compare's table for a paper (metrics/explain/paper_table)
# The input files of each evaluate command, as (role in the provenance record, argument name).
INPUT_ROLES = {
    "evaluate": (("run", "run"), ("truth", "truth"), ("taxonomy", "taxonomy")),
    "evaluate-matrix": (("matrix", "matrix"), ("labels", "labels")),
    "evaluate-embeddings": (("query_embeddings", "query_embeddings"), ("query_ids", "query_ids"),
                            ("item_embeddings", "item_embeddings"), ("item_ids", "item_ids"),
                            ("truth", "truth")),
}


def run(argv: Sequence[str] | None = None) -> int:
    """Parse ``argv`` (``sys.argv[1:]`` when None), run its command and print the result; 0 when
    done, or an InputError for bad input."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["trec-eval"]:   # (metrics.cli.run hands it on before this module is loaded)
        from metrics.cli import run as run_any
        return run_any(argv)
    args = build_parser().parse_args(argv)
    if args.command == "measures":
        sys.stdout.write(measure_table(args.format) + "\n")
        return 0
    if args.command == "protocols":
        text = (json.dumps(protocol_table("rows"), indent=2, ensure_ascii=False)
                if args.format == "json" else protocol_table(args.format))
        sys.stdout.write(text + "\n")
        return 0
    if args.command == "power":
        return _power(args)
    if args.command in JUDGING_COMMANDS:
        return run_judging(args)
    protocol = getattr(args, "protocol", None)
    _check_combination(args, protocol)
    measures = parse_measures(args.measures or _default_measures(args))
    if args.command == "compare":
        return _compare(args, measures)
    return _evaluate(args, measures, protocol)


def _default_measures(args) -> str:
    """The measures when none are named: trec_eval's default output (its names, in its order)
    for --format trec, else ours."""
    if getattr(args, "format", None) == "trec":
        from metrics.cli.trec_eval import default_output_names
        return ",".join(default_output_names())
    return DEFAULT_MEASURES


def _check_combination(args, protocol: str | None) -> None:
    """Refuse options that each parse but cannot go together."""
    if protocol is not None and args.measures is not None:
        raise InputError("give --measures or --protocol, not both: a protocol prints its "
                         "benchmark's own measures")
    if protocol is not None and args.aggregate != "mean":
        raise InputError(f"--protocol {protocol} aggregates as its reference code does; leave "
                         f"out --aggregate {args.aggregate}")
    if args.format == "trec" and (getattr(args, "ci", None) is not None or args.provenance):
        raise InputError("--ci and --provenance are printed by --format table, json and csv; "
                         "trec_eval's format has no place for them")


# ---- compare -----------------------------------------------------------------------------------

def _compare(args, measures) -> int:
    if args.format == "trec":
        raise InputError("--format trec is for evaluate, evaluate-matrix and "
                         "evaluate-embeddings; compare prints table, json or csv")
    if len(args.files) < 3:
        raise InputError("compare needs at least two runs and a ground-truth file")
    *runs, truth_path = args.files
    check_group_options(args)
    if args.format in PAPER_FORMATS:
        return _paper_table(args, measures)
    names, per_query, aggregates, warnings_list, evaluated = _evaluate_runs(args, measures)
    labels = [str(m) for m in measures]
    tests = args.test or list(TESTS)
    paired = compare_systems(per_query, labels, tests, args.seed, args.resamples)
    first = next(iter(evaluated.values()))
    tables = _tables(args, first[0].query_ids,
                     lambda: input_items(evaluation_inputs(args), first[1]))
    warnings_list.extend(tables.warnings)
    grouped = evaluate_groups(args, first[0], {s: r for s, (_, _, r) in evaluated.items()},
                              tables, first[1], tests) if args.group_by else []
    many = None
    if args.correction is not None:
        many = _many_systems(args, names, per_query, measures)
    elif args.baseline is not None:
        raise InputError("--baseline goes with --correction holm|bh|tukey (the correction of "
                         "the tests against it)")
    record = None
    if args.provenance:
        record = provenance.record(
            command="compare", inputs=provenance.input_files(
                [*(("run", p) for p in runs), ("truth", truth_path),
                 ("taxonomy", args.taxonomy)]),
            measures=measures, ties=args.ties, seed=args.seed,
            options={"tests": tests, "resamples": args.resamples,
                     "collection_size": args.collection_size, "correction": args.correction,
                     "baseline": args.baseline, "alpha": args.alpha},
            warnings=warnings_list)
    text = render_comparison(names, labels, aggregates, paired, args.format, record, many)
    _print_result(_with_groups(text, grouped, args.format, labels, False), warnings_list,
                  args.format)
    return 0


def _paper_table(args, measures) -> int:
    """``compare --format latex|markdown``: the table for a paper, and only that."""
    if args.group_by or args.provenance or args.test or args.baseline is not None:
        raise InputError(f"--format {args.format} prints the table for a paper only; leave out "
                         "--group-by, --provenance, --test and --baseline (the superscripts "
                         "compare every pair of systems)")
    _, per_query, _, warnings_list, _ = _evaluate_runs(args, measures)
    table = paper_table(per_query, [str(m) for m in measures],
                        {str(m): m.definition.higher_is_better for m in measures},
                        args.correction or Correction.HOLM, args.alpha, args.seed)
    _print_result(table.latex() if args.format == "latex" else table.markdown(), warnings_list,
                  args.format)
    return 0


def _evaluate_runs(args, measures):
    """Each run's per-query values and means on one ground truth. Systems are named as the app
    names them (:func:`metrics.loaders.runs.system_names`): by the run's tag, else the file's
    name; names that two runs share give way to the file names, then to the paths."""
    # the full lists only show a query: not kept while the other runs are read
    judged = judge_inputs(evaluation_inputs(args), keep_lists=False)
    systems, truth = judged.systems, judged.truth
    per_query, aggregates, warnings_list, evaluated = {}, {}, [], {}
    for name, system in systems.items():
        result = evaluate(system, measures)
        per_query[name] = {m: r.values for m, r in result.results.items()}
        aggregates[name] = result.aggregate("mean")
        warnings_list.extend(result.warnings)
        evaluated[name] = (system, truth, result)
    return list(systems), per_query, aggregates, warnings_list, evaluated


def _many_systems(args, names, per_query, measures) -> dict:
    """The pairwise matrices, groups and the tests against the baseline and the best."""
    if args.baseline is not None and args.baseline not in per_query:
        raise InputError(f"--baseline {args.baseline!r} is not one of the systems: "
                         f"{', '.join(names)}")
    matrices = {str(m): pairwise_matrix({s: per_query[s][str(m)] for s in names},
                                        args.correction, args.seed) for m in measures}
    rows = leaderboard(per_query, [str(m) for m in measures], args.baseline, args.correction,
                       {str(m): m.definition.higher_is_better for m in measures},
                       seed=args.seed, resamples=args.resamples)
    return {"correction": args.correction, "alpha": args.alpha,
            "baseline": args.baseline or names[0], "matrices": matrices, "rows": rows}


# ---- power -------------------------------------------------------------------------------------

def _power(args) -> int:
    """How many queries a difference between two runs needs (metrics.evaluation.power)."""
    measure = parse_measure(args.measure)
    names, per_query, _, warnings_list, _ = _evaluate_runs(args, [measure])
    a, b = (per_query[name][str(measure)] for name in names)
    analysis = power_analysis(a, b, args.alpha, args.power, args.delta)
    sentence = detectable_sentence(analysis, str(measure))
    _print_result(render_power(names, str(measure), analysis, sentence, args.format),
                  warnings_list, args.format)
    return 0


# ---- evaluate, evaluate-matrix, evaluate-embeddings --------------------------------------------

def _evaluate(args, measures, protocol: str | None) -> int:
    check_group_options(args)
    judged, truth, item_ids = _judge(args, protocol is not None and
                                     protocol_named(protocol).float32_scores)
    result = evaluate_protocol(judged, protocol) if protocol else evaluate(judged, measures)
    tables = _tables(args, judged.query_ids, item_ids)
    if tables.warnings:
        result = replace(result, warnings=result.warnings + tables.warnings)
    intervals = None
    if args.ci is not None:
        intervals = Intervals(aggregate_intervals(result, args.ci, args.seed, args.resamples,
                                                  args.aggregate),
                              args.ci, args.seed, args.resamples)
    record = _evaluation_record(args, judged, result, measures, intervals) \
        if args.provenance else None
    # with judged ties, the tied queries evaluated twice more (pessimistic, optimistic): only where
    # they print
    ranges = (tie_range(judged, measures, args.aggregate, result)
              if not protocol and args.format in ("json", "table") else {})
    grouped = evaluate_groups(args, judged, {judged.name: result}, tables, truth)
    text = render_evaluation(result, args.format, args.per_query, args.aggregate, protocol,
                             intervals, record, ranges)
    _print_result(_with_groups(text, grouped, args.format, result.measures, True),
                  result.warnings, args.format)
    return 0


def _tables(args, query_ids, item_ids) -> Tables:
    """The metadata tables of --item-metadata and --query-metadata (none when not given);
    ``item_ids()`` names the data's items, for the warning about those that match nothing."""
    if not (args.item_metadata or args.query_metadata):
        return Tables()
    return read_tables(args, [str(q) for q in query_ids],
                       item_ids() if args.item_metadata else None)


def _with_groups(text: str, grouped, fmt: str, measures, one_system: bool) -> str:
    """The output with the measures by group added: ``"groups"`` in JSON, a row per group in
    CSV, a block per grouping in the table."""
    if not grouped:
        return text
    if fmt == "json":
        out = json.loads(text)
        out["groups"] = groups_json(grouped, one_system)
        out["groups_ungrouped_queries"] = ungrouped_json(grouped)
        return json.dumps(out, indent=2)
    if fmt == "csv":
        import csv
        import io
        buffer = io.StringIO()
        csv.writer(buffer, lineterminator="\n").writerows(groups_csv_rows(grouped, measures))
        return text + "\n" + buffer.getvalue().rstrip("\n")
    return text + "\n\n" + groups_text(grouped, measures)


def evaluation_inputs(args, float32_scores: bool = False) -> EvaluationInputs:
    """The inputs a command line names (an evaluate command's files, or compare's and power's
    runs then ground truth), each file named as given; with ``float32_scores``, scores compared
    as float32 (a protocol's cast). The evaluate commands name their system by its file."""
    options = {"ties": args.ties, "collection_size": args.collection_size,
               "float32_scores": float32_scores,
               "named_by_file": args.command.startswith("evaluate")}
    if args.command == "evaluate-matrix":
        return EvaluationInputs(MATRICES_LABELS, _files((MATRICES, args.matrix),
                                                        (LABELS, args.labels)),
                                distance=args.distance, **options)
    if args.command == "evaluate-embeddings":
        return EvaluationInputs(EMBEDDINGS_QRELS, _files(
            (QUERY_EMBEDDINGS, args.query_embeddings), (QUERY_IDS, args.query_ids),
            (ITEM_EMBEDDINGS, args.item_embeddings), (ITEM_IDS, args.item_ids),
            (QRELS, args.truth)), similarity=args.similarity, **options)
    *runs, truth = [args.run, args.truth] if args.command == "evaluate" else args.files
    truth_files = ((TAXONOMY, args.taxonomy), (ANNOTATIONS, truth)) if args.taxonomy else \
        ((QRELS, truth),)
    return EvaluationInputs(RUNS_TAXONOMY if args.taxonomy else RUNS_QRELS,
                            _files(*((RUNS, run) for run in runs), *truth_files), **options)


def _files(*given) -> tuple:
    """(role, name, path) of files given on the command line as (role, path)."""
    return tuple((role.name, str(path), path) for role, path in given)


# what an evaluate command's progress bar counts
PROGRESS = {"evaluate": ("reading", "lines"), "evaluate-matrix": ("ranking", "queries"),
            "evaluate-embeddings": ("ranking", "queries")}


def _judge(args, float32_scores: bool = False):
    """(the judged ranking of an evaluate command's inputs (lists not kept: only the measures
    are printed), its ground truth, a function giving the ids of the items the inputs name);
    with ``float32_scores``, scores compared as float32 (a protocol's cast)."""
    inputs = evaluation_inputs(args, float32_scores)
    with dask_cluster(args) as cluster, progress_bar(*PROGRESS[args.command]) as progress:
        judged = judge_inputs(inputs, keep_lists=False, memory=getattr(args, "memory", None),
                              progress=progress, cluster=cluster)
    (system,) = judged.systems.values()
    truth = judged.truth
    if truth is None and args.group_by:   # a matrix's labels as cliques, for --group-by clique_size
        truth = load_label_truth(args.labels)
    return system, truth, lambda: input_items(inputs, truth)


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


# ---- inputs, cluster and terminal --------------------------------------------------------------

@contextmanager
def dask_cluster(args):
    """The Dask cluster of --scheduler or --workers (closed afterwards), or None."""
    if not (getattr(args, "scheduler", None) or getattr(args, "workers", None)):
        yield None
        return
    from metrics.ranking.cluster import from_options   # dask is imported only when asked for
    with from_options(args.scheduler, args.workers) as cluster:
        yield cluster


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


def _print_result(text: str, warnings_list, fmt: str) -> None:
    """The output on stdout with its warnings, each once, for every command and format: a
    ``"warnings"`` list in JSON (read by programs, so nothing beside it on stderr), else a
    ``warning:`` line each on stderr."""
    warnings_list = list(dict.fromkeys(warnings_list))
    if fmt == "json":   # non-ASCII kept as the renderer wrote it: escaped, or not (power's α)
        text = json.dumps({**json.loads(text), "warnings": warnings_list}, indent=2,
                          ensure_ascii=text.isascii())
    else:
        for warning in warnings_list:
            sys.stderr.write(f"warning: {warning}\n")
    sys.stdout.write(text + "\n")
