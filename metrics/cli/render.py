"""What the command line prints: an evaluation, a comparison or the measure registry as a text
table, JSON, CSV or trec_eval's own lines.

Pure functions from results to text; reading inputs and writing to stdout is
:mod:`metrics.cli.commands`' job.
"""

from __future__ import annotations

import csv
import io
import json
import math
from dataclasses import dataclass

from metrics.errors import InputError
from metrics.evaluation.cells import p_printed, printed
from metrics.evaluation.evaluate import EvaluationResult
from metrics.evaluation.protocols import PROTOCOLS
from metrics.evaluation.power import min_detectable_text, power_text, queries_needed_text
from metrics.evaluation.provenance import comment_lines
from metrics.evaluation.stats import CI_METHOD
from metrics.measures.names import parse_measure


# ---- numbers and tables ------------------------------------------------------------------------

def json_number(value):
    """A value as JSON has it: a float, or null for a value that is missing, NaN or infinite."""
    if value is None:
        return None
    value = float(value)
    return value if math.isfinite(value) else None


def text_number(value) -> str:
    """A value in a text table: "-" when undefined, a whole number without its ".0", else four
    decimals."""
    if value is None or (isinstance(value, float) and not math.isfinite(value)):
        return "-"
    return printed(value)


def csv_number(value) -> str:
    """A value in a CSV cell: empty when undefined, otherwise its shortest exact form."""
    value = json_number(value)
    return "" if value is None else repr(value)


def p_value(value) -> str:
    """A p-value in a text table: "-" when undefined, else as every table prints it ("< 1e-16",
    never "0")."""
    return "-" if value is None else p_printed(value)


def aligned_table(header: list[str], rows: list[list[str]]) -> str:
    """Columns padded to their widest cell, the first left-aligned and the others (numbers)
    right-aligned, with a rule of dashes under the header."""
    widths = [max(len(str(x)) for x in col) for col in zip(header, *rows)]
    lines = ["  ".join(str(c).ljust(w) if i == 0 else str(c).rjust(w)
                       for i, (c, w) in enumerate(zip(row, widths)))
             for row in [header, *rows]]
    lines.insert(1, "  ".join("-" * w for w in widths))
    return "\n".join(lines)


def with_comments(csv_text: str, provenance: dict | None) -> str:
    """A CSV with the provenance record as leading '# key: value' lines."""
    return csv_text if provenance is None else comment_lines(provenance) + "\n" + csv_text


# ---- the measure registry ----------------------------------------------------------------------

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


# ---- an evaluation -----------------------------------------------------------------------------

def _trec_sort_key(query_id) -> bytes:
    return str(query_id).encode("utf-8")   # trec_eval orders queries by strcmp


def _trec_field(text: str, what: str) -> None:
    """Refuse what trec_eval's lines cannot hold: readers split them on whitespace, so a field
    with a space or a tab in it shifts every field after it, and a query named ``all`` reads as
    the aggregate line. No escape is invented: the other formats hold any id."""
    if text == "all" or any(c.isspace() for c in text):
        problem = ("is trec_eval's name for the aggregate line" if text == "all"
                   else "contains whitespace, which would split trec_eval's "
                        "'measure<TAB>query<TAB>value' line into more fields")
        raise InputError(f"{what} {text!r} {problem}; use --format json, csv or table, which "
                         f"hold any {what}")


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
    line is the aggregate over the queries where the measure is defined. A query id or measure
    name that would not be one whitespace-free field is refused (see :func:`_trec_field`)."""
    for m in result.results:
        _trec_field(m, "measure name")
    if per_query:
        for query in result.query_ids:
            _trec_field(str(query), "query id")

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
        return f"[{text_number(low)}, {text_number(high)}]"


def render_evaluation(result: EvaluationResult, fmt: str, per_query: bool, how: str,
                      protocol: str | None = None, intervals: Intervals | None = None,
                      provenance: dict | None = None, ranges: dict | None = None) -> str:
    """The result in one of the output formats. With ``protocol``, the columns are that
    benchmark's (each aggregated as its reference code does) and the JSON names the protocol;
    with ``intervals``, each aggregate's confidence interval is printed beside it; with
    ``provenance``, the record is added (see :mod:`metrics.evaluation.provenance`); ``ranges``
    (from :func:`metrics.evaluation.evaluate.tie_range`), when the run has ties, adds each
    measure's aggregate under the pessimistic and optimistic tie orders."""
    ranges = ranges or {}
    if fmt == "trec":
        return render_trec(result, per_query, how)
    summary = result.aggregate(how)
    undefined = result.undefined()
    summed = result.summed()
    if fmt == "json":
        out = {"measures": result.measures,
               "aggregate": {m: json_number(v) for m, v in summary.items()}}
        if protocol is not None:
            p = PROTOCOLS[protocol]
            out["protocol"] = {"name": p.name, "title": p.title, "source": p.source,
                               "conventions": p.conventions}
        if per_query:
            out["per_query"] = {
                str(q): {m: json_number(r.values[i]) for m, r in result.results.items()}
                for i, q in enumerate(result.query_ids)}
        if intervals is not None:
            out["ci"] = {m: [json_number(v) for v in intervals.bounds[m]]
                         for m in result.measures}
            out["ci_level"] = intervals.level
            out["ci_method"] = intervals.method
            out["ci_resamples"] = intervals.resamples
            out["seed"] = intervals.seed
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
            out["tie_range"] = {m: [json_number(lo), json_number(hi)]
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
                writer.writerow([q, *[csv_number(r.values[i]) for r in result.results.values()]])
        writer.writerow([f"all ({how})", *[csv_number(summary[m]) for m in result.measures]])
        if intervals is not None:
            for side, name in enumerate(("low", "high")):
                writer.writerow([f"ci {name} ({intervals.level:g})",
                                 *[csv_number(intervals.bounds[m][side])
                                   for m in result.measures]])
        return with_comments(buffer.getvalue().rstrip("\n"), provenance)
    blocks = []
    if per_query:
        rows = [[str(q), *[text_number(r.values[i]) for r in result.results.values()]]
                for i, q in enumerate(result.query_ids)]
        blocks.append(aligned_table(["query", *result.measures], rows))
    rows = [[m, text_number(summary[m]),
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
            row.append(f"{text_number(lo)}..{text_number(hi)}")
    blocks.append(aligned_table(header, rows))
    if provenance is not None:
        blocks.append(comment_lines(provenance))
    return "\n\n".join(blocks)


# ---- a comparison ------------------------------------------------------------------------------

def render_comparison(systems, measures, aggregates, tests, fmt: str,
                      provenance: dict | None = None, many: dict | None = None) -> str:
    """Each system's aggregates, then every paired test (:func:`metrics.evaluation.stats.
    compare_systems`), as a text table, JSON or CSV (the CSV holds the tests only); with
    ``many`` (``compare --correction``), each measure's pairwise matrix and groups and the
    tests against the baseline and the best."""
    if fmt == "json":
        out = {"systems": systems, "measures": measures,
               "aggregate": {s: {m: json_number(v) for m, v in aggregates[s].items()}
                             for s in systems},
               "tests": [t.as_dict() for t in tests]}
        if many is not None:
            out.update(_many_as_json(many))
        if provenance is not None:
            out["provenance"] = provenance
        return json.dumps(out, indent=2)
    def cells(t, number, p) -> list[str]:
        return [t.measure, t.a, t.b, t.test, number(t.mean_diff),
                f"[{number(t.ci[0])}, {number(t.ci[1])}]", number(t.statistic), p(t.p),
                p(t.p_holm), number(t.effect_size), str(t.n), f"{t.wins}/{t.ties}/{t.losses}"]

    # why a test has no statistic and p (stats.why_undefined): a column of the CSV, a line under
    # the text table
    undefined = [f"{t.test} of {t.b} against {t.a} on {t.measure} is undefined: {t.undefined}"
                 for t in tests if t.undefined is not None]

    # 95%: the level of stats.bootstrap_ci, which compare_systems calls with its default
    header = ["measure", "A", "B", "test", "B−A", "95% CI", "statistic", "p", "p (Holm)",
              "d", "n", "win/tie/loss"]
    if fmt == "csv":   # numbers as numbers: a p below 1e-16 is a number, not "< 1e-16"
        buffer = io.StringIO()
        writer = csv.writer(buffer, lineterminator="\n")
        writer.writerow([*header, "undefined"])
        writer.writerows([*cells(t, csv_number, csv_number), t.undefined or ""] for t in tests)
        return with_comments(buffer.getvalue().rstrip("\n"), provenance)
    rows = [cells(t, text_number, p_value) for t in tests]
    means = aligned_table(["system", *measures],
                          [[s, *[text_number(aggregates[s][m]) for m in measures]]
                           for s in systems])
    text = means + "\n\n" + aligned_table(header, rows)
    if undefined:
        text += "\n" + "\n".join(undefined)
    if many is not None:
        text += "\n\n" + _many_as_text(many)
    return text if provenance is None else text + "\n\n" + comment_lines(provenance)


def _many_as_json(many: dict) -> dict:
    """``"matrix"``: per measure, every pair's adjusted p and mean difference (column − row) and
    the groups; ``"against"``: each system against the baseline and the best."""
    matrix = {}
    for measure, m in many["matrices"].items():
        matrix[measure] = {
            "systems": list(m.systems), "n": m.n,
            "mean_diff": [[json_number(v) for v in row] for row in m.mean_diff],
            "p_adjusted": [[json_number(v) for v in row] for row in m.p_adjusted],
            "groups": [list(g) for g in m.groups(many["alpha"])],
            "undefined": m.undefined}   # why no pair has a p (Tukey without error)
    against = [{"system": r.system, "measure": r.measure, "mean": json_number(r.mean),
                "ci": [json_number(r.ci[0]), json_number(r.ci[1])], "best": r.best,
                "diff_baseline": json_number(r.diff_baseline),
                "p_baseline": json_number(r.p_baseline), "diff_best": json_number(r.diff_best),
                "p_best": json_number(r.p_best)} for r in many["rows"]]
    return {"correction": many["correction"], "alpha": many["alpha"],
            "baseline": many["baseline"], "matrix": matrix, "against": against}


def _many_as_text(many: dict) -> str:
    method = f"{many['correction'].description}; groups at α = {many['alpha']:g}"
    parts = []
    for measure, m in many["matrices"].items():
        header = [f"{measure}: p / B−A", *m.systems]
        rows = [[a, *["—" if i == j else f"{p_value(m.p_adjusted[i, j])} / "
                      f"{text_number(m.mean_diff[i, j])}" for j in range(len(m.systems))]]
                for i, a in enumerate(m.systems)]
        groups = "; ".join("{" + ", ".join(g) + "}" for g in m.groups(many["alpha"]))
        parts.append(aligned_table(header, rows) + f"\ncannot be told apart: {groups}"
                     + (f"\n{m.correction.title} on {measure} is undefined: {m.undefined}"
                        if m.undefined else ""))
    rows = [[r.measure, r.system, text_number(r.mean), text_number(r.diff_baseline),
             p_value(r.p_baseline), text_number(r.diff_best), p_value(r.p_best),
             "best" if r.best else ""] for r in many["rows"]]
    parts.append(aligned_table(["measure", "system", "mean", f"−{many['baseline']}", "p",
                                "−best", "p", ""], rows))
    return "\n\n".join(parts) + f"\n({method}; B−A is the column's mean minus the row's)"


def render_power(systems, measure: str, analysis, sentence: str, fmt: str) -> str:
    """``python -m metrics power``: the power figures of one measure for two systems."""
    if fmt == "json":
        return json.dumps({"systems": systems, "measure": measure,
                           **{k: json_number(v) if isinstance(v, float) else v
                              for k, v in analysis.as_dict().items()},
                           "sentence": sentence}, indent=2, ensure_ascii=False)
    rows = [["queries", str(analysis.n)], ["mean difference (B − A)",
                                           text_number(analysis.mean_diff)],
            ["sd of the differences", text_number(analysis.sd_diff)],
            ["power for the observed difference",
             "-" if analysis.observed_power is None else power_text(analysis.observed_power)],
            [f"smallest difference detected with power {analysis.power:g}",
             min_detectable_text(analysis, measure, text_number)]]
    if analysis.delta is not None:
        rows.append([f"queries needed for a difference of {analysis.delta:g}",
                     queries_needed_text(analysis)])
    header = [f"{measure}: {systems[1]} vs {systems[0]}", f"paired t-test, α = {analysis.alpha:g}"]
    return aligned_table(header, rows) + "\n" + sentence
