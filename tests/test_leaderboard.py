"""Many systems: corrected p-values against scipy's own functions on per-query values that come
from pytrec_eval, the leaderboard's means and flags, and the groups that cannot be told apart."""

import numpy as np
import pytest
import pytrec_eval
from scipy import stats

from metrics import InputError
from metrics.evaluation.leaderboard import leaderboard, pairwise_matrix
from metrics.evaluation.corrections import Correction
from oracles import holm_by_hand, paired_tukey_by_statsmodels


@pytest.fixture(scope="module")
def five_systems():
    """Per-query AP of five systems on 40 queries, computed by pytrec_eval (the oracle)."""
    rng = np.random.default_rng(11)
    qrels = {f"q{q}": {f"d{d}": int(rng.integers(0, 2)) for d in range(15)} for q in range(40)}
    for q in qrels:
        qrels[q]["d0"] = 1
    evaluator = pytrec_eval.RelevanceEvaluator(qrels, {"map"})
    per_query = {}
    for s, skill in enumerate([0.0, 0.3, 0.6, 0.65, 1.2]):
        run = {q: {d: float(skill * g + rng.normal()) for d, g in docs.items()}
               for q, docs in qrels.items()}
        ap = evaluator.evaluate(run)
        per_query[f"sys{s}"] = {"AP": np.array([ap[q]["map"] for q in sorted(qrels)])}
    return per_query


def values_of(per_query, measure="AP"):
    return {s: v[measure] for s, v in per_query.items()}


def test_holm_and_bh_agree_with_scipy_on_every_pair(five_systems):
    values = values_of(five_systems)
    names = list(values)
    pairs = [(i, j) for i in range(5) for j in range(i + 1, 5)]
    raw = np.array([stats.ttest_rel(values[names[j]], values[names[i]]).pvalue for i, j in pairs])
    for correction, expected in ((Correction.HOLM, holm_by_hand(raw)),
                                 (Correction.BH, stats.false_discovery_control(raw, method="bh"))):
        matrix = pairwise_matrix(values, correction)
        got = np.array([matrix.p_adjusted[i, j] for i, j in pairs])
        np.testing.assert_allclose(got, expected, rtol=1e-10)
        assert np.allclose(matrix.p_adjusted, matrix.p_adjusted.T)
    means = np.array([values[n].mean() for n in names])
    np.testing.assert_allclose(matrix.mean_diff, means[None, :] - means[:, None])


def test_tukey_is_paired_by_query_on_the_two_way_anovas_residual_by_hand():
    # three systems on six queries whose difficulty differs widely (0.05 to 0.9), each system a
    # small, steady shift above the last (0.04), plus a residual of ±d on four queries: by hand,
    # SSE = 8 d² on (k − 1)(n − 1) = 2 × 5 = 10 degrees of freedom, MSE = 0.8 d², and
    # q = 0.04 / √(MSE / 6) for neighbours, 0.08 / √(MSE / 6) for the first and the last
    difficulty = np.array([0.05, 0.9, 0.3, 0.6, 0.15, 0.75])
    d = 0.01
    residual = np.array([[1, -1, 1, -1, 0, 0], [-1, 1, -1, 1, 0, 0], [0, 0, 0, 0, 0, 0]]) * d
    table = difficulty[None, :] + np.array([0.0, 0.04, 0.08])[:, None] + residual
    values = {"a": table[0], "b": table[1], "c": table[2]}
    se = np.sqrt(0.8 * d ** 2 / 6)
    near, far = (stats.studentized_range.sf(step / se, 3, 10) for step in (0.04, 0.08))
    expected = np.array([[1, near, far], [near, 1, near], [far, near, 1]])
    matrix = pairwise_matrix(values, Correction.TUKEY)
    np.testing.assert_allclose(matrix.p_adjusted, expected, rtol=1e-9)
    # paired, every difference is significant; as independent samples (scipy's one-way
    # tukey_hsd, the test before issue 40) the queries' spread swamps them: none is
    assert (matrix.p_adjusted[np.triu_indices(3, 1)] < 0.001).all()
    assert (stats.tukey_hsd(*table).pvalue[np.triu_indices(3, 1)] > 0.9).all()
    assert matrix.groups(0.05) == [("c",), ("b",), ("a",)]
    # the leaderboard reads its tests against the baseline and the best off the same matrix
    rows = {r.system: r for r in leaderboard({s: {"AP": v} for s, v in values.items()}, ["AP"],
                                             baseline="a", correction=Correction.TUKEY,
                                             resamples=200)}
    assert (rows["b"].p_baseline, rows["c"].p_baseline) == pytest.approx((near, far), rel=1e-9)
    assert (rows["a"].p_best, rows["b"].p_best) == pytest.approx((far, near), rel=1e-9)


def test_tukey_agrees_with_statsmodels_two_way_anova_on_pytrec_eval_values(five_systems):
    values = values_of(five_systems)
    expected = paired_tukey_by_statsmodels(list(values.values()))
    np.testing.assert_allclose(pairwise_matrix(values, Correction.TUKEY).p_adjusted, expected, rtol=1e-9)


def test_tukey_leaves_out_a_query_undefined_for_any_system():
    # the two-way table must be complete: the queries where every system has a value, as for
    # the paired t-tests (q2 and q5 are left out, n = 5)
    rng = np.random.default_rng(3)
    values = {s: rng.uniform(size=7) + shift for s, shift in (("a", 0), ("b", 0.3), ("c", 0.1))}
    values["a"][2] = np.nan
    values["c"][5] = np.nan
    matrix = pairwise_matrix(values, Correction.TUKEY)
    keep = [0, 1, 3, 4, 6]
    assert matrix.n == 5
    np.testing.assert_allclose(matrix.p_adjusted,
                               paired_tukey_by_statsmodels([v[keep] for v in values.values()]),
                               rtol=1e-9)


def test_tukey_without_error_or_degrees_of_freedom():
    # each system a constant shift of another on every query: no residual, q = difference / 0;
    # undefined, as the paired t-test is when every difference is equal (issue 42, items 5 and
    # 17; it had been p = 0 with a null statistic), with the reason; one query: no degree of
    # freedom
    from metrics.evaluation.stats import why_undefined

    base = np.array([0.2, 0.7, 0.4])
    assert why_undefined(base, base + 0.25) is not None         # the paired t-test: undefined
    matrix = pairwise_matrix({"a": base, "b": base + 0.25, "c": base},
                             Correction.TUKEY)
    nan = np.nan
    np.testing.assert_array_equal(matrix.p_adjusted, [[1, nan, nan], [nan, 1, nan],
                                                      [nan, nan, 1]])
    assert matrix.undefined == ("every system is a constant shift of every other on every "
                                "query, so the residual of the two-way ANOVA is 0: no error "
                                "for q to divide by")
    one = pairwise_matrix({"a": np.array([0.2]), "b": np.array([0.5])}, Correction.TUKEY)
    assert np.isnan(one.p_adjusted[0, 1]) and one.undefined.startswith("only one query has")
    assert pairwise_matrix({"a": base, "b": base[::-1]}, Correction.TUKEY).undefined is None


def test_no_p_value_prints_as_zero():
    from charts.leaderboard import pairwise_figure
    from metrics.cli.render import p_value
    from metrics.evaluation.cells import p_printed, p_stated

    assert [p_printed(p) for p in (0.0, 5e-17, 1e-16, 0.012345, 1.0)] == [
        "< 1e-16", "< 1e-16", "1e-16", "0.01235", "1"]
    assert (p_stated(0.0), p_stated(0.0341, 2)) == ("p < 1e-16", "p = 0.034")
    assert (p_value(0.0), p_value(None)) == ("< 1e-16", "-")
    fig = pairwise_figure(["a", "b"], np.array([[0, 0.25], [-0.25, 0]]),
                          np.array([[1, 0.0], [0.0, 1]]), measure="AP", correction="Tukey's HSD",
                          alpha=0.05)
    assert fig.data[0].text[0][1] == "+0.2500<br>p < 1e-16 *"


def test_compare_on_the_command_line_prints_no_p_of_zero(tmp_path):
    # 30 queries, one relevant item each: "first" finds it at rank 1 (AP 1), "second" at rank 2
    # or 3 (AP 1/2 or 1/3). Tukey's q is some 50 and its p underflows to 0; it printed as "0"
    import subprocess
    import sys
    from pathlib import Path

    queries = [f"q{i:02d}" for i in range(30)]
    (tmp_path / "qrels.txt").write_text("".join(f"{q} 0 hit 1\n" for q in queries))
    for name, rank_of_hit in (("first", lambda i: 1), ("second", lambda i: 2 + i % 2)):
        lines = []
        for i, q in enumerate(queries):
            items = [f"miss{r}" for r in range(1, 4)]
            items.insert(rank_of_hit(i) - 1, "hit")
            lines += [f"{q} Q0 {item} {r} {10 - r} {name}\n" for r, item in enumerate(items, 1)]
        (tmp_path / f"{name}.run").write_text("".join(lines))
    done = subprocess.run(
        [sys.executable, "-m", "metrics", "compare", tmp_path / "first.run",
         tmp_path / "second.run", tmp_path / "qrels.txt", "-m", "AP", "--test", "t",
         "--correction", "tukey"], cwd=Path(__file__).resolve().parents[1], capture_output=True,
        text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    lines = done.stdout.splitlines()
    matrix = lines[lines.index(next(line for line in lines if line.startswith("AP: p / B−A"))):]
    assert matrix[2].split()[1:] == ["—", "<", "1e-16", "/", "-0.5833"], done.stdout
    assert matrix[3].split()[1:] == ["<", "1e-16", "/", "0.5833", "—"], done.stdout
    against = next(line.split() for line in matrix if line.split()[:2] == ["AP", "second"])
    assert against[2:] == ["0.4167", "-0.5833", "<", "1e-16", "-0.5833", "<", "1e-16"], against


def test_leaderboard_against_baseline_and_best(five_systems):
    rows = leaderboard(five_systems, ["AP"], baseline="sys0", correction=Correction.HOLM,
                       resamples=2000)
    by_system = {r.system: r for r in rows}
    values = values_of(five_systems)
    assert [r.system for r in rows if r.best] == ["sys4"]
    raw = [stats.ttest_rel(values[s], values["sys0"]).pvalue for s in ("sys1", "sys2", "sys3",
                                                                       "sys4")]
    np.testing.assert_allclose([by_system[s].p_baseline for s in ("sys1", "sys2", "sys3", "sys4")],
                               holm_by_hand(np.array(raw)), rtol=1e-10)
    assert by_system["sys0"].p_baseline is None and by_system["sys4"].p_best is None
    assert by_system["sys2"].diff_baseline == pytest.approx(values["sys2"].mean()
                                                            - values["sys0"].mean())
    low, high = by_system["sys2"].ci
    assert low < values["sys2"].mean() < high


def test_groups_that_cannot_be_told_apart(five_systems):
    values = values_of(five_systems)
    matrix = pairwise_matrix(values, Correction.HOLM)
    groups = matrix.groups(alpha=0.05)
    order = sorted(values, key=lambda s: -values[s].mean())
    # every group is a run of the mean order whose pairs all have p >= alpha, and maximal
    for group in groups:
        idx = [list(values).index(s) for s in group]
        assert all(matrix.p_adjusted[a, b] >= 0.05 for a in idx for b in idx if a != b)
        positions = [order.index(s) for s in group]
        assert positions == list(range(positions[0], positions[-1] + 1))
    assert {s for g in groups for s in g} == set(values)
    # sys2 and sys3 were drawn almost alike: they share a group
    assert any({"sys2", "sys3"} <= set(g) for g in groups)


def test_common_queries_and_bad_arguments():
    values = {"a": np.array([0.1, np.nan, 0.3, 0.2]), "b": np.array([0.2, 0.5, np.nan, 0.1])}
    matrix = pairwise_matrix(values, Correction.HOLM)
    assert matrix.n == 2
    with pytest.raises(InputError, match="unknown correction 'bonferroni'"):
        Correction.parse("bonferroni")
    with pytest.raises(InputError, match="at least two systems"):
        pairwise_matrix({"a": np.ones(3)}, Correction.HOLM)
    with pytest.raises(InputError, match="no system named 'c'"):
        leaderboard({"a": {"AP": np.ones(3)}, "b": {"AP": np.ones(3)}}, ["AP"], baseline="c")
