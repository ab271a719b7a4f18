"""Tukey's HSD at its edges (issue 42, item 17 and item 5's rule): fifty systems without SciPy's
integration warning, and no p from a null error: when every system is a constant shift of every
other the test is undefined, with the reason, in the engine, the command line, the Leaderboard and
the table for the paper."""

import json
import subprocess
import sys
import warnings
from pathlib import Path

import numpy as np
import pytest

ROOT = Path(__file__).resolve().parents[1]
# the studentized range of 50 means with 49 × 29 degrees of freedom (50 systems, 30 queries):
# scipy's quad warns "The integral is probably divergent, or slowly convergent" here, where the
# cdf is about 1e-11 (found by 50 random systems on 30 queries, as the run was)
WARNED_Q, SYSTEMS, QUERIES = 1.5883430660841091, 50, 30


def _fifty_systems_at_the_warned_q() -> dict[str, np.ndarray]:
    """50 systems on 30 queries whose two-way residual is known exactly (values in 64ths, so every
    sum is exact): 49 systems with the same mean, and one above them by the difference that
    makes q the warned one."""
    rng = np.random.default_rng(0)
    base = rng.integers(16, 48, QUERIES) / 64
    noise = np.tile([1, -1], QUERIES // 2) / 64          # sums to 0: every mean is base's
    table = np.array([base + rng.permutation(noise) for _ in range(SYSTEMS)])
    residual = table - table.mean(axis=1)[:, None] - table.mean(axis=0)[None, :] + table.mean()
    mse = (residual ** 2).sum() / ((SYSTEMS - 1) * (QUERIES - 1))
    table[-1] += WARNED_Q * np.sqrt(mse / QUERIES)
    return {f"s{i:02d}": row for i, row in enumerate(table)}


def test_fifty_systems_give_tukeys_p_without_scipys_integration_warning():
    from scipy.integrate import IntegrationWarning
    from scipy.stats import studentized_range
    from statsmodels.stats.libqsturng import psturng

    from metrics.evaluation.corrections import tukey_p_values

    with warnings.catch_warnings():
        warnings.simplefilter("error", IntegrationWarning)   # it had been printed
        with pytest.raises(IntegrationWarning):             # scipy's own call warns here
            studentized_range.sf(WARNED_Q, SYSTEMS, (SYSTEMS - 1) * (QUERIES - 1))
        p = tukey_p_values(_fifty_systems_at_the_warned_q())
    # the 49 pairs with the last system: p is within 1e-10 of 1 by the limit of infinite degrees
    # of freedom (a single integral, no warning) and beyond statsmodels' table (p > 0.9 there)
    limit = studentized_range.sf(WARNED_Q, SYSTEMS, np.inf)
    assert p[-1, :-1] == pytest.approx(np.full(SYSTEMS - 1, limit), abs=1e-10)
    assert float(psturng(WARNED_Q, SYSTEMS, (SYSTEMS - 1) * (QUERIES - 1))) >= 0.9
    assert (p[:-1, :-1] == 1).all()     # equal means: nothing differs


# three systems whose AP is 1, 1/2 and 1/3 on every query: each a constant shift of the others
RUNS = {name: "".join(f"q{q} Q0 {d} {rank} {10 - rank} {name}\n" for q in (1, 2, 3)
                      for rank, d in enumerate(order, 1))
        for name, order in (("a", "rxy"), ("b", "xry"), ("c", "xyr"))}
QRELS = "".join(f"q{q} 0 r 1\nq{q} 0 x 0\nq{q} 0 y 0\n" for q in (1, 2, 3))
REASON = ("every system is a constant shift of every other on every query, so the residual of "
          "the two-way ANOVA is 0: no error for q to divide by")


@pytest.fixture
def shifted(tmp_path):
    paths = []
    for name, text in RUNS.items():
        (tmp_path / f"{name}.run").write_text(text)
        paths.append(tmp_path / f"{name}.run")
    (tmp_path / "q.qrels").write_text(QRELS)
    return [*paths, tmp_path / "q.qrels"]


def test_the_command_line_says_why_tukey_has_no_p_for_constant_shifts(shifted):
    def compare(*extra):
        done = subprocess.run([sys.executable, "-m", "metrics", "compare", *map(str, shifted),
                               "-m", "AP", "--correction", "tukey", *extra], cwd=ROOT,
                              capture_output=True, text=True, timeout=120)
        assert done.returncode == 0, done.stderr
        return done.stdout

    text = compare()
    assert f"Tukey's HSD on AP is undefined: {REASON}" in text
    assert "< 1e-16" not in text          # it had been p = 0, printed "< 1e-16"
    matrix = json.loads(compare("--format", "json"))["matrix"]["AP"]
    assert matrix["undefined"] == REASON
    assert matrix["p_adjusted"] == [[1, None, None], [None, 1, None], [None, None, 1]]


def test_the_leaderboard_says_why_tukey_has_no_p_for_constant_shifts():
    from apptest import app, upload_of

    upload = upload_of({f"{n}.run": t.encode() for n, t in RUNS.items()}, QRELS.encode())
    at = app("pages/leaderboard.py", upload=upload, sample="upload", measures="AP",
             correction="tukey")
    assert not at.exception and not at.error, [e.value for e in at.error]
    captions = " ".join(c.value.replace("\\", "") for c in at.caption)
    assert f"Tukey's HSD is undefined here: {REASON}." in captions


def test_the_paper_tables_caption_says_why_a_cell_is_empty_or_has_no_letters():
    from metrics.evaluation.corrections import Correction
    from metrics.explain.paper_table import paper_table

    ap = {"a": np.ones(3), "b": np.full(3, 0.5), "c": np.full(3, 1 / 3)}
    shifted = {s: {"AP": v} for s, v in ap.items()}
    table = paper_table(shifted, ["AP"], correction=Correction.TUKEY)
    assert table.beats == (("",), ("",), ("",))     # had been "bc", "c": from p = 0
    assert table.markdown().endswith(f" AP: no superscript, as Tukey's HSD is undefined: "
                                     f"{REASON}.")
    # Holm: the paired t-test of each pair is undefined (every difference equal), said once
    holm = paper_table(shifted, ["AP"])
    assert holm.undefined == (
        "AP: 3 of the pairs have no test (for a and b: every query's difference B − A is "
        "-0.5, so the differences have no spread (sd 0) for t and Cohen's d to divide by).",)
    assert holm.latex().count("AP: 3 of the pairs have no test") == 1   # in the caption
    # no query where every system has a value: no mean, and the caption says why
    none = {"x": {"AP": np.array([0.5, np.nan])}, "y": {"AP": np.array([np.nan, 0.4])}}
    assert "AP: no mean, as no query has a value of it for every system." in \
        paper_table(none, ["AP"]).latex()
