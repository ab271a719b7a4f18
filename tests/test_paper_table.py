"""The table for the paper (metrics/explain/paper_table.py) against tables written by hand: three
systems on eight queries, whose p-values are scipy's paired t-tests corrected by Holm by hand."""

import numpy as np
import pytest
from scipy import stats

from metrics.explain.paper_table import latex_text, markdown_text, paper_table, system_letter
from metrics.evaluation.corrections import Correction
from oracles import holm_by_hand

BASE = np.array([0.10, 0.20, 0.30, 0.25, 0.15, 0.40, 0.35, 0.05])
MID = BASE + np.array([0.10, 0.05, 0.12, 0.02, 0.08, 0.15, 0.01, 0.09])
BEST = MID + np.array([0.30, -0.10, 0.20, 0.05, -0.02, 0.25, 0.10, 0.00])
RANK_BASE = np.array([3, 5, 2, 8, 4, 6, 3, 9.0])
RANK_MID = RANK_BASE - np.array([1, 2, 0, 3, 1, 2, 1, 4])
RANK_BEST = RANK_MID - np.array([1, 1, 0, 1, 0, 2, 1, 1])
NAMES = ("base", "a_b&c%", "best~{1}^$#\\")   # LaTeX's and Markdown's special characters
PER_QUERY = {NAMES[0]: {"AP": BASE, "FirstRank": RANK_BASE},
             NAMES[1]: {"AP": MID, "FirstRank": RANK_MID},
             NAMES[2]: {"AP": BEST, "FirstRank": RANK_BEST}}
LOWER_IS_BETTER = {"AP": True, "FirstRank": False}
PAIRS = [(0, 1), (0, 2), (1, 2)]


def holm_p(columns):
    raw = np.array([stats.ttest_rel(columns[j], columns[i]).pvalue for i, j in PAIRS])
    return raw, holm_by_hand(raw)


def test_the_hand_computed_p_values_behind_the_expected_tables():
    raw, holm = holm_p([BASE, MID, BEST])
    np.testing.assert_allclose(raw, [0.0026817, 0.0240844, 0.0915529], rtol=1e-4)
    # Holm: 3 × 0.00268, 2 × 0.0241, 1 × 0.0916: mid and best beat base, best not mid
    np.testing.assert_allclose(holm, [0.0080450, 0.0481688, 0.0915529], rtol=1e-4)
    raw, holm = holm_p([RANK_BASE, RANK_MID, RANK_BEST])
    # 3 × 0.00313, then 2 × 0.00620, then max(that, 0.00620): every pair differs
    np.testing.assert_allclose(holm, [0.0123950, 0.0093990, 0.0123950], rtol=1e-4)
    assert [BASE.mean(), MID.mean(), BEST.mean()] == pytest.approx([0.225, 0.3025, 0.4])
    assert [RANK_BASE.mean(), RANK_MID.mean(), RANK_BEST.mean()] == [5, 3.25, 2.375]


EXPECTED_LATEX = r"""% needs \usepackage{booktabs}
\begin{table}[t]
\centering
\caption{Mean of each measure over the queries where every system has a value; the best of each column in bold. A superscript names the systems (by their letter) that the system is significantly better than: Holm's step-down correction of paired t-tests, over the 3 pairs of systems of each measure, at $\alpha = 0.05$.}
\label{tab:results}
\begin{tabular}{clrr}
\toprule
 & System & AP & FirstRank \\
\midrule
a & base & 0.2250 & 5.0000 \\
b & a\_b\&c\% & 0.3025$^{a}$ & 3.2500$^{a}$ \\
c & best\textasciitilde{}\{1\}\textasciicircum{}\$\#\textbackslash{} & \textbf{0.4000}$^{a}$ & \textbf{2.3750}$^{ab}$ \\
\bottomrule
\end{tabular}
\end{table}"""

EXPECTED_MARKDOWN = r"""| | System | AP | FirstRank |
| --- | --- | ---: | ---: |
| a | base | 0.2250 | 5.0000 |
| b | a\_b\&c% | 0.3025<sup>a</sup> | 3.2500<sup>a</sup> |
| c | best\~\{1\}^\$\#\\ | **0.4000**<sup>a</sup> | **2.3750**<sup>ab</sup> |

Mean of each measure over the queries where every system has a value; the best of each column in bold. A superscript names the systems (by their letter) that the system is significantly better than: Holm's step-down correction of paired t-tests, over the 3 pairs of systems of each measure, at α = 0.05."""


def test_latex_and_markdown_are_the_tables_written_by_hand():
    table = paper_table(PER_QUERY, ["AP", "FirstRank"], LOWER_IS_BETTER, Correction.HOLM, 0.05)
    assert table.latex() == EXPECTED_LATEX
    assert table.markdown() == EXPECTED_MARKDOWN


def test_the_correction_and_alpha_decide_the_superscripts():
    # at α = 0.04 Holm's 0.0482 (best against base on AP) is no longer below α, while
    # Benjamini–Hochberg's 3/2 × 0.0241 = 0.0361 is
    raw, _ = holm_p([BASE, MID, BEST])
    assert stats.false_discovery_control(raw)[1] == pytest.approx(0.0361266, rel=1e-4)
    holm = paper_table(PER_QUERY, ["AP"], LOWER_IS_BETTER, Correction.HOLM, 0.04)
    bh = paper_table(PER_QUERY, ["AP"], LOWER_IS_BETTER, Correction.BH, 0.04)
    assert [row[0] for row in holm.beats] == ["", "a", ""]
    assert [row[0] for row in bh.beats] == ["", "a", "a"]
    assert r"Benjamini--Hochberg correction of paired t-tests" in bh.latex()
    assert r"$\alpha = 0.04$" in bh.latex()


def test_tied_printed_bests_are_both_bold_and_undefined_means_print_as_a_dash():
    # x and y print the same best mean (0.50001 and 0.49999 both print 0.5000)
    tied = {"x": {"AP": np.array([0.50001, 0.6, 0.4])},
            "y": {"AP": np.array([0.49999, 0.6, 0.4])},
            "z": {"AP": np.array([0.1, 0.2, 0.3])}}
    table = paper_table(tied, ["AP"])
    assert table.bold == ((True,), (True,), (False,))
    assert table.latex().count(r"\textbf{0.5000}") == 2
    # a system without a value on any query leaves no common query: nothing is defined
    none = {"x": {"AP": np.array([0.5, 0.6])}, "y": {"AP": np.array([np.nan, np.nan])}}
    table = paper_table(none, ["AP"])
    assert table.means == (("",), ("",)) and table.bold == ((False,), (False,))
    assert "a & x & -- \\\\" in table.latex() and "| b | y | — |" in table.markdown()


def test_letters_and_escapes():
    assert [system_letter(i) for i in (0, 25, 26, 27, 51, 52)] == ["a", "z", "aa", "ab", "az",
                                                                   "ba"]
    assert latex_text("a_b&c%") == r"a\_b\&c\%"
    assert markdown_text("[x](https:e.example) | *y*") == \
        r"\[x\]\(https:e.example\) \| \*y\*"
