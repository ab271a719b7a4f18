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

trec_eval's command line and table of measures are :mod:`metrics.cli.trec_eval_options`'s, the
reading of its inputs :mod:`metrics.cli.trec_eval_inputs`'s; here are its driver and printing.
"""

from __future__ import annotations

import math
import sys
from dataclasses import replace
from pathlib import Path
from typing import Sequence

import numpy as np

from metrics.cli.trec_eval_inputs import judge, judged_inputs, queries_as_qrels, read_judgments
from metrics.cli.trec_eval_options import (  # noqa: F401  (default_output_names: commands.py's)
    DOUBLE, GEOMETRIC, LONG, MIN_GEO_MEAN, NUM_Q, PREFERENCES, PROG, READ_AS, RELSTRING, RUNID,
    Options, TrecEvalExit, Value, default_output_names, parse_command_line, selected_values)
from metrics.data.judged import JudgedRanking, TieReport
from metrics.errors import InputError
from metrics.evaluation.evaluate import evaluate
from metrics.loaders.runs import load_run
from metrics.loaders.trec_zscores import load_zscores, z_scores
from metrics.measures.aliases import trec_eval_nan
from metrics.measures.trec_eval_extras import relstring
from metrics.measures.trec_prefs import prefs_values, query_prefs
from metrics.measures.names import parse_measure


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
        options, None if judgments is None else queries_as_qrels(judgments))
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
        group = judge(options, run_source, groups[label])
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
