"""Many systems: corrected p-values against scipy's own functions on per-query values that come
from pytrec_eval, the leaderboard's means and flags, and the groups that cannot be told apart."""

import numpy as np
import pytest
import pytrec_eval
from scipy import stats

from metrics import InputError
from metrics.evaluation.leaderboard import leaderboard, pairwise_matrix
from oracles import holm_by_hand


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
    for correction, expected in (("holm", holm_by_hand(raw)),
                                 ("bh", stats.false_discovery_control(raw, method="bh"))):
        matrix = pairwise_matrix(values, correction)
        got = np.array([matrix.p_adjusted[i, j] for i, j in pairs])
        np.testing.assert_allclose(got, expected, rtol=1e-10)
        assert np.allclose(matrix.p_adjusted, matrix.p_adjusted.T)
    means = np.array([values[n].mean() for n in names])
    np.testing.assert_allclose(matrix.mean_diff, means[None, :] - means[:, None])


def test_tukey_is_scipys_all_pairs_test(five_systems):
    values = values_of(five_systems)
    expected = stats.tukey_hsd(*values.values()).pvalue
    np.testing.assert_allclose(pairwise_matrix(values, "tukey").p_adjusted, expected, rtol=1e-12)


def test_leaderboard_against_baseline_and_best(five_systems):
    rows = leaderboard(five_systems, ["AP"], baseline="sys0", correction="holm", resamples=2000)
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
    matrix = pairwise_matrix(values, "holm")
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
    matrix = pairwise_matrix(values, "holm")
    assert matrix.n == 2
    with pytest.raises(InputError, match="unknown correction 'bonferroni'"):
        pairwise_matrix(values, "bonferroni")
    with pytest.raises(InputError, match="at least two systems"):
        pairwise_matrix({"a": np.ones(3)}, "holm")
    with pytest.raises(InputError, match="no system named 'c'"):
        leaderboard({"a": {"AP": np.ones(3)}, "b": {"AP": np.ones(3)}}, ["AP"], baseline="c")
