"""The judging commands: ``pool`` (what to judge over several runs), ``agreement`` (how far two
judges agree, and whether they order the systems alike) and ``judgments export`` (the judged
ground truth from the judgments' database, as TREC qrels). The engine is
:mod:`metrics.judgments`; these read the files, call it and print.
"""

from __future__ import annotations

import json
import sys
from pathlib import Path

from metrics.data.ties import TiePolicy
from metrics.errors import InputError

COMMANDS = ("pool", "agreement", "judgments")
POOL_FORMATS = ("trec", "csv", "json")


def add_commands(sub, whole_number, tie_policy, tie_names: str) -> None:
    """The judging commands' grammar, on the command line's subparsers (``whole_number``,
    ``tie_policy``: the parser's option types; ``tie_names`` its list of policies)."""
    pl = sub.add_parser("pool", help="what to judge over several runs: depth-K pooling, or "
                                     "Take@N round-robin by rank")
    pl.add_argument("runs", nargs="+", metavar="RUN", help="runs (TREC, CSV/TSV or Parquet)")
    pl.add_argument("--judged", metavar="QRELS", default=None,
                    help="qrels of the pairs already judged: left out of the pool (a grade -1, "
                         "pooled but not judged, stays in)")
    pl.add_argument("--depth", type=whole_number, required=True, metavar="K",
                    help="each run's top K items of every query")
    pl.add_argument("--take", type=whole_number, default=None, metavar="N",
                    help="at most N items per query, taken round-robin by rank across the runs "
                         "(rank 1 of every run, then rank 2, ...) within their top K")
    pl.add_argument("--format", "-f", choices=POOL_FORMATS, default="trec",
                    help="trec: qrels lines with grade -1 (trec_eval's pooled, not judged); "
                         "csv and json: with each item's best rank, first system and number "
                         "of systems")
    pl.add_argument("--ties", type=tie_policy, metavar=tie_names, default=TiePolicy.STABLE,
                    help="order of equal scores (see evaluate)")

    ag = sub.add_parser("agreement", help="two judges' agreement (Cohen's kappa) and, with runs, "
                                          "whether they order the systems alike")
    ag.add_argument("files", nargs="+", metavar="QRELS_A QRELS_B [RUN ...]",
                    help="two judges' qrels, then optionally runs")
    ag.add_argument("--format", "-f", choices=("table", "json"), default="table")
    ag.add_argument("--measure", default="AP",
                    help="with runs: the measure whose means order the systems (default AP)")
    ag.add_argument("--rel", type=whole_number, default=1, metavar="N",
                    help="kappa on relevance counts grade N and above relevant (default 1)")
    ag.add_argument("--ties", type=tie_policy, metavar=tie_names, default=TiePolicy.STABLE,
                    help="order of equal scores (see evaluate)")

    jd = sub.add_parser("judgments", help="the judgments' database: export the judged ground "
                                          "truth as TREC qrels")
    actions = jd.add_subparsers(dest="action", required=True, parser_class=type(jd))
    ex = actions.add_parser("export", help="write the judged ground truth as TREC qrels")
    ex.add_argument("database", metavar="DB",
                    help="the judgments' database: a SQLite file or a postgresql:// URL")
    ex.add_argument("--dataset", required=True, metavar="ID",
                    help="the dataset's content hash (SHA-256 of its ground-truth file, as "
                         "sha256sum prints it), or that file")
    ex.add_argument("--judge", default=None, metavar="NAME", help="only this judge's judgments")
    ex.add_argument("--only-new", action="store_true",
                    help="only the judgments (with --qrels: those that add to or change it)")
    ex.add_argument("--qrels", default=None, metavar="ORIGINAL",
                    help="the original ground truth: written merged with the judgments")


def run(args) -> int:
    """Run a judging command; 0 when done, or an InputError for bad input."""
    if args.command == "pool":
        return _pool(args)
    if args.command == "agreement":
        return _agreement(args)
    return _export(args)


# ---- pool --------------------------------------------------------------------------------------

def warned(*loaded) -> list:
    """Loaded files (runs, ground truths), their reader's warnings written to stderr, one
    ``warning:`` line each."""
    for each in loaded:
        for warning in each.warnings:
            sys.stderr.write(f"warning: {warning}\n")
    return list(loaded)


def load_named_runs(paths: list[str]) -> dict:
    """Runs by system name (the rule of :func:`~metrics.loaders.runs.system_names`)."""
    from dataclasses import replace

    from metrics.loaders import load_run
    from metrics.loaders.runs import system_names

    if len(set(paths)) != len(paths):
        twice = next(p for p in paths if paths.count(p) > 1)
        raise InputError(f"{twice} is given twice; give each run once")
    runs = warned(*(load_run(path) for path in paths))
    names = system_names([(r.system_name, path) for r, path in zip(runs, paths)])
    return {name: replace(r, name=name) for name, r in zip(names, runs)}


def _pool(args) -> int:
    from metrics.data.truth import GroundTruth
    from metrics.judgments import depth_pool, qrels_text, take_pool
    from metrics.loaders import load_qrels

    judged = warned(load_qrels(args.judged))[0] if args.judged else None
    runs = load_named_runs(args.runs)
    if args.take is None:
        pool = depth_pool(runs, args.depth, judged, args.ties)
    else:
        pool = take_pool(runs, args.take, judged, args.depth, args.ties)
    if args.format == "trec":
        pooled = GroundTruth.build(pool["query_id"].to_numpy(), pool["item_id"].to_numpy(),
                                   [-1] * len(pool), name="pool")
        sys.stdout.write(qrels_text(pooled, "the pool"))
    elif args.format == "csv":
        sys.stdout.write(pool.to_csv(index=False, lineterminator="\n"))
    else:
        sys.stdout.write(json.dumps({
            "systems": list(runs), "depth": args.depth, "take": args.take,
            "pool": [{"query_id": str(q), "item_id": str(i), "best_rank": int(r),
                      "first_system": str(s), "num_systems": int(n)}
                     for q, i, r, s, n in pool.itertuples(index=False)]}, indent=2) + "\n")
    return 0


# ---- agreement ---------------------------------------------------------------------------------

def _agreement(args) -> int:
    from metrics.judgments import agreement
    from metrics.loaders import load_qrels
    from metrics.measures.names import parse_measure

    if len(args.files) < 2:
        raise InputError("agreement needs two qrels files (two judges), then optionally runs")
    parse_measure(args.measure)   # a bad name is refused before any file is read
    path_a, path_b, *run_paths = args.files
    truth_a, truth_b = warned(load_qrels(path_a), load_qrels(path_b))
    runs = load_named_runs(run_paths) if run_paths else None
    result = agreement(truth_a, truth_b, args.rel, runs, args.measure, args.ties)
    for note in result.notes():   # why a value is null: beside the JSON, never in place of it
        sys.stderr.write(f"note: {note}\n")
    if args.format == "json":
        sys.stdout.write(json.dumps(result.to_json(), indent=2) + "\n")
    else:
        sys.stdout.write(agreement_table(result, path_a, path_b) + "\n")
    return 0


def _number(value) -> str:
    return "undefined" if value is None else f"{value:.4f}"


def agreement_table(result, name_a: str, name_b: str) -> str:
    """The agreement as text: the overall values, per query, and the systems."""
    lines = [f"A: {name_a}", f"B: {name_b}",
             f"pairs judged by both\t{result.pairs}",
             f"kappa (grade >= {result.rel})\t{_number(result.kappa)}",
             f"weighted kappa (linear)\t{_number(result.weighted_kappa)}", "",
             "query\tpairs\tkappa"]
    lines += [f"{q}\t{a.pairs}\t{_number(a.kappa)}" for q, a in result.per_query.items()]
    if result.systems is not None:
        s = result.systems
        lines += ["", f"system\t{s.measure} (A)\t{s.measure} (B)"]
        lines += [f"{n}\t{_number(a)}\t{_number(b)}"
                  for n, a, b in zip(s.names, s.mean_a, s.mean_b)]
        lines += ["", f"Kendall's tau\t{_number(s.kendall_tau)}",
                  f"swapped pairs\t{len(s.swaps)}"]
        lines += [f"  {hi} > {lo} under A, {lo} > {hi} under B" for hi, lo in s.swaps]
    return "\n".join(lines)


# ---- judgments export --------------------------------------------------------------------------

def _export(args) -> int:
    from metrics.judgments import JudgmentStore, dataset_digest, merged_qrels, qrels_text
    from metrics.loaders import load_qrels
    from metrics.loaders.text import read_bytes

    database = args.database
    if "://" not in database and not Path(database).is_file():
        raise InputError(f"{database}: no such judgments database (a SQLite file or a "
                         "postgresql:// URL)")
    dataset = args.dataset
    if Path(dataset).is_file():
        dataset = dataset_digest(read_bytes(dataset, dataset))
    original = warned(load_qrels(args.qrels))[0] if args.qrels else None
    if original is None and not (args.only_new or args.judge):
        raise InputError("say what to export: --qrels ORIGINAL (the original merged with the "
                         "judgments), --only-new (the judgments alone) or --judge NAME")
    with JudgmentStore(database) as store:
        known = store.datasets()
        if dataset not in known:
            listed = ", ".join(known[:5]) + (" ..." if len(known) > 5 else "")
            raise InputError(f"has no judgments of dataset {dataset}"
                             + (f"; its datasets: {listed}" if known else "; it is empty"),
                             source=store.name)
        if args.judge is not None and args.judge not in store.judges(dataset):
            raise InputError(f"judge {args.judge!r} has no judgments of dataset {dataset}; "
                             f"its judges: {', '.join(store.judges(dataset))}",
                             source=store.name)
        judgments = store.latest(dataset, args.judge)
    if args.qrels:
        if dataset_digest(read_bytes(args.qrels, args.qrels)) != dataset:
            sys.stderr.write(f"warning: {args.qrels} is not the file of dataset {dataset} "
                             "(its SHA-256 differs): the judgments are merged into it all "
                             "the same\n")
    if original is not None and args.only_new:   # what adds to or changes the original
        before = {(str(original.query_ids[int(q)]), i): int(g) for q, i, g in zip(
            original.pair_query, original.pair_items.tolist(), original.pair_grade)}
        judgments = {pair: grade for pair, grade in judgments.items()
                     if before.get(pair) != grade}
        original = None
    sys.stdout.write(qrels_text(merged_qrels(original, judgments), store.name))
    return 0
