"""The table for the paper: systems × measures as LaTeX (booktabs) or Markdown, the numbers the
Leaderboard shows.

Each system has a letter (a, b, c, … in the order given, as ranx's ``Report.to_latex`` and
PyTerrier's tables mark them); a mean carries as superscript the letters of the systems it is
significantly better than (the pairwise matrix of :func:`metrics.evaluation.leaderboard.
pairwise_matrix`: each measure's pairs of systems one family, corrected by Holm, Benjamini–
Hochberg or Tukey's HSD, at α), and the best mean of each column is in bold (every system that
prints it, when printed means tie). The test, the correction and α are in the caption. Means are
printed to four decimals (:func:`metrics.evaluation.cells.fixed`), over the queries where every
system has a value of the measure, as the Leaderboard computes them. User text (system and
measure names) is escaped for LaTeX and for Markdown.
"""

from __future__ import annotations

from dataclasses import dataclass

import numpy as np

from metrics.evaluation.cells import fixed
from metrics.evaluation.corrections import Correction
from metrics.evaluation.leaderboard import common_queries, pairwise_matrix
from metrics.evaluation.stats import DEFAULT_ALPHA, DEFAULT_SEED, why_undefined

# LaTeX's special characters in text, and what prints each literally
_LATEX = {"\\": r"\textbackslash{}", "&": r"\&", "%": r"\%", "$": r"\$", "#": r"\#", "_": r"\_",
          "{": r"\{", "}": r"\}", "~": r"\textasciitilde{}", "^": r"\textasciicircum{}",
          "–": "--", "—": "---"}
# Markdown's characters that could make user text a link, emphasis, code, HTML or a new cell
_MARKDOWN = set("\\`*_{}[]()<>#|!~&$")


def latex_text(text: object) -> str:
    """``text`` that LaTeX prints as it is."""
    return "".join(_LATEX.get(c, c) for c in str(text))


def markdown_text(text: object) -> str:
    """``text`` that Markdown prints as it is (each special character backslash-escaped)."""
    return "".join("\\" + c if c in _MARKDOWN else c for c in str(text))


def system_letter(index: int) -> str:
    """a, b, …, z, then aa, ab, …: the letter that names the ``index``-th system (from 0)."""
    letters = ""
    index += 1
    while index:
        index, rest = divmod(index - 1, 26)
        letters = chr(ord("a") + rest) + letters
    return letters


@dataclass(frozen=True)
class PaperTable:
    """Systems × measures: the printed means, which are bold, and whom each one beats."""

    systems: tuple[str, ...]
    measures: tuple[str, ...]
    means: tuple[tuple[str, ...], ...]      # [system][measure], printed; "" where undefined
    bold: tuple[tuple[bool, ...], ...]      # the best printed mean of its column
    beats: tuple[tuple[str, ...], ...]      # letters of the systems it is significantly above
    correction: Correction
    alpha: float
    undefined: tuple[str, ...] = ()          # why a cell has no mean or no test, by measure

    @property
    def letters(self) -> list[str]:
        return [system_letter(i) for i in range(len(self.systems))]

    def caption(self, escape, alpha: str) -> str:
        pairs = len(self.systems) * (len(self.systems) - 1) // 2
        return (f"Mean of each measure over the queries where every system has a value; the "
                f"best of each column in bold. A superscript names the systems (by their "
                f"letter) that the system is significantly better than: "
                f"{escape(self.correction.description)}, over the {pairs} pairs of systems of "
                f"each measure, at {alpha}."
                + "".join(f" {escape(note)}" for note in self.undefined))

    def _cells(self, i: int, undefined: str, bold: str, superscript: str) -> list[str]:
        """System ``i``'s cells in one markup: each mean (``undefined`` where it has none), in
        ``bold`` (a format) where best, then the letters it beats as a ``superscript``."""
        cells = []
        for j in range(len(self.measures)):
            mean = self.means[i][j] or undefined
            mean = bold.format(mean) if self.bold[i][j] else mean
            beats = self.beats[i][j]
            cells.append(mean + (superscript.format(beats) if beats else ""))
        return cells

    def latex(self) -> str:
        """A booktabs table (``\\usepackage{booktabs}``)."""
        rows = []
        for i, letter in enumerate(self.letters):
            cells = self._cells(i, "--", r"\textbf{{{}}}", "$^{{{}}}$")
            rows.append(" & ".join([letter, latex_text(self.systems[i]), *cells]) + r" \\")
        header = " & ".join(["", "System", *(latex_text(m) for m in self.measures)]) + r" \\"
        caption = self.caption(latex_text, rf"$\alpha = {self.alpha:g}$")
        return "\n".join([
            r"% needs \usepackage{booktabs}",
            r"\begin{table}[t]",
            r"\centering",
            rf"\caption{{{caption}}}",
            r"\label{tab:results}",
            rf"\begin{{tabular}}{{cl{'r' * len(self.measures)}}}",
            r"\toprule",
            header,
            r"\midrule",
            *rows,
            r"\bottomrule",
            r"\end{tabular}",
            r"\end{table}"])

    def markdown(self) -> str:
        """A pipe table (GitHub, pandoc); superscripts as ``<sup>``, the caption below."""
        lines = ["| | System | " + " | ".join(markdown_text(m) for m in self.measures) + " |",
                 "| --- | --- | " + " | ".join("---:" for _ in self.measures) + " |"]
        for i, letter in enumerate(self.letters):
            cells = self._cells(i, "—", "**{}**", "<sup>{}</sup>")
            lines.append(f"| {letter} | {markdown_text(self.systems[i])} | "
                         + " | ".join(cells) + " |")
        return "\n".join(lines) + "\n\n" + self.caption(markdown_text,
                                                        f"α = {self.alpha:g}")


def paper_table(per_query: dict[str, dict[str, np.ndarray]], measures: list[str],
                higher_is_better: dict[str, bool] | None = None,
                correction: Correction = Correction.HOLM,
                alpha: float = DEFAULT_ALPHA, seed: int = DEFAULT_SEED) -> PaperTable:
    """The table of ``per_query`` (system → measure → per-query values, NaN where undefined) on
    ``measures``; ``higher_is_better`` by measure (default: higher is better)."""
    systems = list(per_query)
    k = len(systems)
    means = [[""] * len(measures) for _ in systems]
    bold = [[False] * len(measures) for _ in systems]
    beats = [[""] * len(measures) for _ in systems]
    undefined = []
    for j, measure in enumerate(measures):
        matrix = pairwise_matrix({s: per_query[s][measure] for s in systems}, correction, seed)
        undefined.extend(_why_undefined(matrix, measure,
                                        {s: per_query[s][measure] for s in systems}))
        higher = (higher_is_better or {}).get(measure, True)
        printed = [None if np.isnan(m) else fixed(m) for m in matrix.means]
        defined = [float(p) for p in printed if p is not None]
        best = (max if higher else min)(defined) if defined else None
        for i in range(k):
            if printed[i] is None:
                continue
            means[i][j] = printed[i]
            bold[i][j] = float(printed[i]) == best
            better = [o for o in range(k) if o != i
                      and not np.isnan(matrix.means[o])
                      and (matrix.means[i] > matrix.means[o] if higher
                           else matrix.means[i] < matrix.means[o])
                      and matrix.p_adjusted[i, o] < alpha]
            beats[i][j] = "".join(system_letter(o) for o in better)
    return PaperTable(tuple(systems), tuple(measures), tuple(map(tuple, means)),
                      tuple(map(tuple, bold)), tuple(map(tuple, beats)), correction, alpha,
                      tuple(undefined))


def _why_undefined(matrix, measure: str, values: dict[str, np.ndarray]) -> list[str]:
    """The caption's sentences on a measure whose cells have no mean (no query where every
    system has a value) or whose pairs have no test (why, as the Leaderboard and the command
    line say it), so that an empty cell or a missing superscript is explained."""
    if np.isnan(matrix.means).all():
        return [f"{measure}: no mean, as no query has a value of it for every system."]
    if matrix.undefined:
        return [f"{measure}: no superscript, as {matrix.correction.title} is undefined: "
                f"{matrix.undefined}."]
    common = common_queries(values)
    names = list(common)
    untested = [(i, j) for i in range(len(names)) for j in range(i + 1, len(names))
                if np.isnan(matrix.p_adjusted[i, j])]
    if not untested:
        return []
    i, j = untested[0]
    return [f"{measure}: {len(untested)} of the pairs have no test (for {names[i]} and "
            f"{names[j]}: {why_undefined(common[names[i]], common[names[j]])})."]
