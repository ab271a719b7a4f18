"""The command line's metadata tables (``--item-metadata``, ``--query-metadata``) and measures by
group of queries (``--group-by``): reading the tables, the warnings about ids that match nothing,
and the groups' blocks of JSON, CSV and text (metrics/evaluation/group_stats.py computes them)."""

from __future__ import annotations

from dataclasses import dataclass

from metrics.errors import InputError
from metrics.evaluation.cells import counted
from metrics.evaluation.group_stats import (GroupDifference, GroupMeans, group_differences,
                                            group_means)
from metrics.evaluation.groups import Grouping, grouping
from metrics.loaders.metadata import (query_metadata, read_item_table, read_query_table,
                                      unmatched_ids)

from metrics.cli.render import aligned_table, csv_number, json_number, p_value, text_number


def add_metadata_options(parser) -> None:
    parser.add_argument("--item-metadata", metavar="FILE", default=None,
                        help="item table (CSV, TSV or Parquet): item_id and any columns (title, "
                             "artist, …); where queries are items (cover songs) it describes "
                             "them too")
    parser.add_argument("--query-metadata", metavar="FILE", default=None,
                        help="query table (CSV, TSV or Parquet): query_id and any columns "
                             "(text, genre, …), for --group-by")
    parser.add_argument("--group-by", action="append", default=None, metavar="NAME",
                        help="the measures per group of queries: a column of the query table "
                             "or a derived property (R_q, clique_size, tie_share, text_words, "
                             "parent_class; a column bearing one's name is column:NAME, the "
                             "property derived:NAME); repeat for several")


@dataclass(frozen=True)
class Tables:
    items: object = None      # pandas DataFrames, or None
    queries: object = None    # the table describing the queries (the item table where they are)
    warnings: tuple[str, ...] = ()


def read_tables(args, query_ids, item_ids=None) -> Tables:
    """The tables the options name, with a warning for each whose ids match nothing in the data
    (``item_ids``: the items the data names, None when they are not at hand)."""
    items = read_item_table(args.item_metadata) if args.item_metadata else None
    queries = read_query_table(args.query_metadata) if args.query_metadata else None
    warnings = []
    if items is not None and item_ids is not None:
        warnings.append(unmatched_ids(items, item_ids, "items"))
    if queries is not None:
        warnings.append(unmatched_ids(queries, query_ids, "queries"))
    return Tables(items, query_metadata(items, queries, query_ids),
                  tuple(w for w in warnings if w))


def check_group_options(args) -> None:
    if args.group_by and args.format == "trec":
        raise InputError("--group-by is printed by --format table, json and csv; trec_eval's "
                         "format has no place for groups")
    if args.group_by and len(set(args.group_by)) != len(args.group_by):
        raise InputError("--group-by names a grouping twice; give each once")


@dataclass(frozen=True)
class GroupedMeans:
    grouping: Grouping
    means: list[GroupMeans]
    differences: list[GroupDifference] = ()


def evaluate_groups(args, judged, results: dict, tables: Tables, truth=None,
                    tests=None) -> list[GroupedMeans]:
    """For each ``--group-by``: every system's aggregates per group (with their intervals when
    ``--ci`` is given), and with ``tests`` the paired tests per group. The groups are those of
    ``judged`` (with several systems, the first: R_q and cliques are the ground truth's, the
    share of ties is the first system's)."""
    out = []
    level = getattr(args, "ci", None)
    if tests:   # the same per-query values for every grouping
        per_query = {s: {m: r.results[m].values for m in r.measures} for s, r in results.items()}
        measures = next(iter(results.values())).measures
    for name in args.group_by or []:
        groups = grouping(name, judged, tables.queries, 1, truth)
        means = group_means(results, groups, level, args.seed, args.resamples,
                            getattr(args, "aggregate", "mean"))
        differences = []
        if tests:
            differences = group_differences(per_query, measures, groups, tests, args.seed,
                                            args.resamples)
        out.append(GroupedMeans(groups, means, differences))
    return out


def groups_json(grouped: list[GroupedMeans], one_system: bool) -> dict:
    """``{"genre": {"rock": {"num_queries": n, "AP": mean, …}}}`` for one system (with
    ``"defined"``: the queries each measure averages, and ``"ci"`` with --ci); with several,
    each group's ``"aggregate"`` per system and its ``"tests"``."""
    out = {}
    for g in grouped:
        block: dict = {}
        for row in g.means:
            group = block.setdefault(row.group, {"num_queries": row.num_queries})
            values = {m: json_number(v) for m, v in row.means.items()}
            target = group if one_system else group.setdefault("aggregate", {}).setdefault(
                row.system, {})
            target.update(values)
            if row.intervals is not None:
                target_ci = group.setdefault("ci", {}) if one_system else \
                    group.setdefault("ci", {}).setdefault(row.system, {})
                target_ci.update({m: [json_number(v) for v in bounds]
                                  for m, bounds in row.intervals.items()})
            if one_system:
                group["defined"] = row.defined
        for d in g.differences:
            block[d.group].setdefault("tests", []).append({
                "measure": d.measure, "a": d.a, "b": d.b, "test": d.test, "n": d.n,
                "mean_diff": json_number(d.mean_diff), "p": json_number(d.p),
                "p_holm_over_groups": json_number(d.p_corrected), "undefined": d.undefined})
        out[g.grouping.name] = block
    return out


def ungrouped_json(grouped: list[GroupedMeans]) -> dict:
    """How many queries each grouping leaves in no group (no value in the query table)."""
    return {g.grouping.name: g.grouping.ungrouped for g in grouped}


def groups_csv_rows(grouped: list[GroupedMeans], measures: list[str]) -> list[list[str]]:
    """One CSV row per group (one system): its name=group label, then its aggregates."""
    return [[f"{g.grouping.name}={row.group} "
             f"({counted(row.num_queries, 'query', 'queries')})",
             *[csv_number(row.means[m]) for m in measures]]
            for g in grouped for row in g.means]


def groups_text(grouped: list[GroupedMeans], measures: list[str]) -> str:
    """A block per grouping: a row per group (and system), then the tests per group."""
    blocks = []
    for g in grouped:
        several = len({row.system for row in g.means}) > 1
        header = ([g.grouping.name] + (["system"] if several else []) + ["queries"] + measures)
        rows = []
        for row in g.means:
            cells = [text_number(row.means[m]) + (
                f" [{text_number(row.intervals[m][0])}, {text_number(row.intervals[m][1])}]"
                if row.intervals is not None else "") for m in measures]
            rows.append([row.group] + ([row.system] if several else []) +
                        [str(row.num_queries)] + cells)
        text = f"by {g.grouping.name}" + (
            f" ({counted(g.grouping.ungrouped, 'query', 'queries')} in no group)"
            if g.grouping.ungrouped else "")
        text += "\n" + aligned_table(header, rows)
        if g.differences:
            text += "\n\n" + aligned_table(
                [g.grouping.name, "measure", "A", "B", "test", "n", "B−A", "p",
                 "p (Holm over groups)"],
                [[d.group, d.measure, d.a, d.b, d.test, str(d.n), text_number(d.mean_diff),
                  p_value(d.p), p_value(d.p_corrected)] for d in g.differences])
        blocks.append(text)
    return "\n\n".join(blocks)

