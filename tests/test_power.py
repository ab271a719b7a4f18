"""Power of the paired t-test, the minimum detectable difference and the queries a difference
needs, checked against simulation (scipy's paired t-test on many drawn collections) and against
the normal approximation of Sakai's topic set size design."""

import math

import numpy as np
import pytest
from scipy import stats

from metrics import InputError
from metrics.evaluation.power import (MAX_NONCENTRALITY, MAX_QUERIES, NONCENTRAL_T,
                                      NORMAL_APPROXIMATION, detectable_sentence, power_analysis,
                                      queries_needed, queries_needed_text, t_test_power)


def simulated_power(effect: float, n: int, alpha: float = 0.05, runs: int = 20_000,
                    seed: int = 5) -> float:
    """Share of drawn collections of n queries, differences ~ N(effect, 1), in which scipy's
    paired t-test rejects at alpha."""
    rng = np.random.default_rng(seed)
    diffs = rng.normal(effect, 1.0, size=(runs, n))
    p = stats.ttest_1samp(diffs, 0.0, axis=1).pvalue
    return float((p < alpha).mean())


@pytest.mark.parametrize("effect, n", [(0.5, 20), (0.3, 50), (0.8, 10)])
def test_observed_power_agrees_with_simulation(effect, n):
    rng = np.random.default_rng(1)
    z = rng.normal(size=n)
    diff = (z - z.mean()) / z.std(ddof=1) + effect   # sample mean = effect, sample sd = 1
    a = rng.uniform(size=n)
    result = power_analysis(a, a + diff)
    assert result.mean_diff == pytest.approx(effect)
    assert result.sd_diff == pytest.approx(1.0)
    # Monte Carlo error of 20,000 runs is about 0.0035
    assert result.observed_power == pytest.approx(simulated_power(effect, n), abs=0.012)


def test_minimum_detectable_difference_is_detected_with_the_power_asked():
    rng = np.random.default_rng(2)
    a, b = rng.uniform(size=40), rng.uniform(size=40)
    result = power_analysis(a, b, alpha=0.05, power=0.8)
    effect = result.min_detectable / result.sd_diff
    assert simulated_power(effect, 40) == pytest.approx(0.8, abs=0.012)
    # the normal approximation (z_{1−α/2} + z_{power}) / √n is a little smaller than the t's
    z = (stats.norm.ppf(0.975) + stats.norm.ppf(0.8)) / math.sqrt(40)
    assert z < effect < z * 1.05


def test_queries_needed_is_the_fewest_that_reach_the_power():
    n, method = queries_needed(0.5, alpha=0.05, power=0.8)
    assert method == NONCENTRAL_T
    # Sakai's normal approximation n ≈ ((z_{α/2} + z_β) / d)² + z_{α/2}²/2 gives 33.3
    z_alpha, z_beta = stats.norm.ppf(0.975), stats.norm.ppf(0.8)
    approx = ((z_alpha + z_beta) / 0.5) ** 2 + z_alpha ** 2 / 2
    assert abs(n - approx) <= 1.5
    assert simulated_power(0.5, n) >= 0.8 - 0.012
    assert simulated_power(0.5, n - 2) < 0.8


def test_the_difference_the_user_names_gives_the_queries_it_needs():
    rng = np.random.default_rng(3)
    z = rng.normal(size=30)
    a = np.full(30, 0.5)
    b = a + 0.1 * (z - z.mean()) / z.std(ddof=1)   # sd of the differences = 0.1
    result = power_analysis(a, b, delta=0.05)
    assert (result.queries_needed, result.queries_needed_method) == queries_needed(0.5)


def test_huge_effects_have_power_one_and_tiny_ones_need_many_queries():
    rng = np.random.default_rng(6)
    a = rng.uniform(size=200)
    huge = power_analysis(a, a + 0.5 + rng.normal(0, 0.01, size=200))   # noncentrality ≈ 700
    assert huge.observed_power == 1.0
    assert queries_needed(0.01).count == pytest.approx(78_500, rel=0.01)   # (2.80 / 0.01)²


def test_undefined_cases_and_bad_levels():
    same = power_analysis(np.ones(5), np.ones(5) + 0.1)
    assert same.sd_diff == 0 and same.observed_power is None and same.min_detectable is None
    assert detectable_sentence(same, "AP") == (
        "With 5 queries, the paired t-test's power for AP is undefined: every query's "
        "difference B − A is 0.1, so the differences have no spread (sd 0) for t and Cohen's d "
        "to divide by.")
    one = power_analysis(np.array([0.1]), np.array([0.2]))
    assert one.n == 1 and one.observed_power is None
    both = power_analysis(np.array([0.1, np.nan, 0.3]), np.array([0.2, 0.5, np.nan]))
    assert both.n == 1
    for bad in ({"alpha": 0}, {"alpha": 1.5}, {"power": 1}, {"delta": -0.1},
                {"delta": float("nan")}):
        with pytest.raises(InputError):
            power_analysis(np.zeros(3), np.ones(3), **bad)


def test_the_sentence_names_queries_difference_and_measure():
    rng = np.random.default_rng(4)
    a, b = rng.uniform(size=50), rng.uniform(size=50)
    result = power_analysis(a, b)
    text = detectable_sentence(result, "AP")
    assert text.startswith("With these 50 queries, differences below ")
    assert f"{result.min_detectable:.3g} in AP are unlikely to be detected" in text


# ---- how the figures are printed (issue 40, defect 13) -----------------------------------------

def test_three_queries_on_a_measure_in_0_1_say_no_difference_in_its_range_is_detected():
    from statsmodels.stats.power import TTestPower

    a, b = np.array([0.0, 1.0, 0.0]), np.array([1.0, 0.0, 1.0])   # B − A = 1, −1, 1
    analysis = power_analysis(a, b)
    sd = np.std(b - a, ddof=1)
    at_one = TTestPower().power(effect_size=1 / sd, nobs=3, alpha=0.05,
                                alternative="two-sided")
    assert at_one == pytest.approx(0.1487, abs=5e-5)
    sentence = detectable_sentence(analysis, "map")   # trec_eval's name for AP
    assert sentence == ("With these 3 queries, no difference in map can be detected with power "
                        "0.8 (α = 0.05, paired t-test): its values lie in [0, 1], and even a "
                        f"difference of 1 has power {at_one:.4f}.")
    # a measure without an upper bound keeps the smallest detectable difference
    assert "differences below 3.77 in DCG@10" in detectable_sentence(analysis, "DCG@10")


def test_a_power_that_rounds_to_one_is_never_printed_as_one():
    from metrics.evaluation.power import power_text

    assert power_text(0.9999999999) == "> 0.9999"
    assert power_text(1.0) == "> 0.9999"
    assert power_text(0.99994) == "0.9999"
    assert power_text(0.35083627) == "0.3508"


# ---- beyond the searches (issue 42, items 1 and 16) --------------------------------------------

def sd_one(n: int, seed: int = 9) -> tuple[np.ndarray, np.ndarray]:
    """Two systems on n queries whose differences have mean 0.02 and sd exactly 0.1."""
    z = np.random.default_rng(seed).normal(size=n)
    a = np.full(n, 0.5)
    return a, a + 0.02 + 0.1 * (z - z.mean()) / z.std(ddof=1)


def test_a_difference_beyond_the_search_gets_the_normal_approximation_labelled():
    # was: queries_needed 10000001, the search's cap + 1 given as a count
    a, b = sd_one(30)
    tiny = power_analysis(a, b, delta=1e-9)
    z = stats.norm.ppf(1 - 0.05 / 2) + stats.norm.ppf(0.8)   # by hand: (z₁₋α/₂ + z_power) σ / δ
    expected = math.ceil((z * 0.1 / 1e-9) ** 2)               # ≈ 7.85e16
    assert tiny.queries_needed_method == NORMAL_APPROXIMATION
    assert tiny.queries_needed == pytest.approx(expected, rel=1e-9)
    assert tiny.queries_needed != MAX_QUERIES + 1
    assert queries_needed_text(tiny) == ("about 7.85e+16 (normal approximation, beyond the "
                                         "search's 10,000,000)")
    # just beyond the cap the approximation still counts in queries, with thousands separators
    beyond = power_analysis(a, b, delta=0.1 * z / math.sqrt(2.5e7))
    assert beyond.queries_needed == pytest.approx(2.5e7, abs=2)
    assert queries_needed_text(beyond).startswith("about 25,000,00")
    # a difference whose approximation overflows a double: no count, and says so
    overflow = power_analysis(a, b, delta=1e-170)
    assert overflow.queries_needed is None
    assert queries_needed_text(overflow) == "more than 10,000,000"


def test_a_difference_within_the_search_agrees_with_statsmodels():
    from statsmodels.stats.power import TTestPower

    a, b = sd_one(30)
    result = power_analysis(a, b, delta=0.0004)   # d = 0.004: about 490,000 queries
    assert result.queries_needed_method == NONCENTRAL_T
    expected = TTestPower().solve_power(effect_size=0.004, alpha=0.05, power=0.8,
                                        alternative="two-sided")
    assert result.queries_needed == math.ceil(expected)
    assert queries_needed_text(result) == f"{math.ceil(expected):,}"


def noncentral_t_power(df: int, alpha: float, noncentrality: float) -> float:
    """P(|T| > t₁₋α/₂) for T noncentral t, by mpmath: the integral over S = √(χ²_df / df) of
    Φ(λ − c·S) + Φ(−λ − c·S) at 30 digits (the engine integrates over the normal instead)."""
    import mpmath

    mpmath.mp.dps = 30
    c = mpmath.mpf(stats.t.isf(alpha / 2, df))
    k, lam = mpmath.mpf(df), mpmath.mpf(noncentrality)

    def density(s):   # of S: chi with df degrees of freedom, scaled by 1/√df
        return (2 * (k / 2) ** (k / 2) * s ** (k - 1) * mpmath.exp(-k * s * s / 2)
                / mpmath.gamma(k / 2))

    def integrand(s):
        return density(s) * (mpmath.ncdf(lam - c * s) + mpmath.ncdf(-lam - c * s))

    edge = lam / c   # where Φ(λ − c·S) falls from 1 to 0
    return float(mpmath.quad(integrand, [0, *sorted({edge / 2, edge, 2 * edge, 1}), mpmath.inf]))


@pytest.mark.parametrize("df, alpha, noncentrality", [
    (1, 0.05, 40.0),      # scipy's noncentral t: NaN
    (1, 0.001, 1000.0),
    (29, 0.05, 10.0),     # NaN
    (29, 1e-6, 5.0),      # NaN; the normal approximation it fell back to said 0.067
    (4, 0.05, 2.0)])
def test_the_power_where_scipys_noncentral_t_fails(df, alpha, noncentrality):
    n = df + 1
    got = t_test_power(noncentrality / math.sqrt(n), n, alpha)
    assert got == pytest.approx(noncentral_t_power(df, alpha, noncentrality), abs=1e-9)


@pytest.mark.parametrize("n, alpha", [(2, 0.001), (2, 1e-6), (30, 1e-12)])
def test_a_tiny_alpha_on_few_queries_gives_a_value(n, alpha):
    # was: internal error (ValueError: f(a) and f(b) must have different signs)
    a, b = sd_one(n)
    result = power_analysis(a, b, alpha=alpha)
    effect = result.min_detectable / result.sd_diff
    assert noncentral_t_power(n - 1, alpha, effect * math.sqrt(n)) == pytest.approx(0.8,
                                                                                     abs=1e-8)


def test_a_power_out_of_reach_says_so():
    a, b = sd_one(2)   # one degree of freedom: t's critical value at α = 1e-16 is 6.4e15
    result = power_analysis(a, b, alpha=1e-16)
    assert result.min_detectable is None
    reach = MAX_NONCENTRALITY / math.sqrt(2) * result.sd_diff
    assert result.not_reached_up_to == pytest.approx(reach)
    assert noncentral_t_power(1, 1e-16, MAX_NONCENTRALITY) < 0.8   # truly not reached there
    assert detectable_sentence(result, "DCG") == (
        f"With these 2 queries, no difference in DCG up to {reach:.3g} is detected with power "
        "0.8 at α = 1e-16 (paired t-test): the power asked for is not reachable within a "
        "noncentrality of 1,000,000; a larger α or more queries would reach it.")
    assert "no difference in AP can be detected" in detectable_sentence(result, "AP")


@pytest.mark.parametrize("bad", [{"alpha": 1e-300}, {"alpha": 1e-17}, {"alpha": 0.9}])
def test_levels_the_power_analysis_refuses(bad):
    a, b = sd_one(30)
    with pytest.raises(InputError, match="significance level"):
        power_analysis(a, b, **bad)


# ---- the command line --------------------------------------------------------------------------

def two_runs(tmp_path, queries: int) -> list[str]:
    """Runs A and B and qrels on ``queries`` queries of one relevant item each: A ranks it
    first on every query, B first on the even ones and second on the odd ones (AP 1, 0.5)."""
    qrels = "".join(f"q{i} 0 r{i} 1\n" for i in range(queries))
    a = "".join(f"q{i} Q0 r{i} 1 2 A\nq{i} Q0 x{i} 2 1 A\n" for i in range(queries))
    b = "".join(f"q{i} Q0 r{i} 1 2 B\nq{i} Q0 x{i} 2 1 B\n" if i % 2 == 0 else
                f"q{i} Q0 x{i} 1 2 B\nq{i} Q0 r{i} 2 1 B\n" for i in range(queries))
    paths = []
    for name, text in (("a.run", a), ("b.run", b), ("q.qrels", qrels)):
        (tmp_path / name).write_text(text)
        paths.append(str(tmp_path / name))
    return paths


def test_the_command_line_labels_the_normal_approximation(tmp_path, capsys):
    import json

    from metrics.cli import main

    assert main(["power", *two_runs(tmp_path, 30), "--delta", "1e-9", "-f", "json"]) == 0
    out = json.loads(capsys.readouterr().out)
    sd = np.std(np.where(np.arange(30) % 2, -0.5, 0.0), ddof=1)   # B − A: 0, −0.5, 0, …
    z = stats.norm.isf(0.025) + stats.norm.ppf(0.8)
    assert out["queries_needed_method"] == "normal approximation"
    assert out["queries_needed"] == pytest.approx((z * sd / 1e-9) ** 2, rel=1e-9)
    assert main(["power", *two_runs(tmp_path, 30), "--delta", "1e-9"]) == 0
    row = next(line for line in capsys.readouterr().out.splitlines()
               if line.startswith("queries needed"))
    assert row.endswith(f"about {(z * sd / 1e-9) ** 2:.3g} (normal approximation, beyond the "
                        f"search's 10,000,000)")


@pytest.mark.parametrize("queries, alpha", [(2, "0.001"), (30, "1e-12")])
def test_the_command_line_gives_a_value_for_a_tiny_alpha(tmp_path, capsys, queries, alpha):
    from metrics.cli import main

    assert main(["power", *two_runs(tmp_path, queries), "--alpha", alpha]) == 0
    assert "internal error" not in capsys.readouterr().err


@pytest.mark.parametrize("options, words", [
    (["--alpha", "1e-300"], "error: argument --alpha: a significance level must lie between "
                            "1e-16 and 1, e.g. 0.05, not 1e-300"),
    (["--alpha", "0.9"], "error: the power asked for (0.8) must be above the significance level "
                         "α (0.9)")])
def test_the_command_line_refuses_a_level_in_one_line(tmp_path, capsys, options, words):
    from metrics.cli import main

    try:   # argparse refuses by SystemExit, the engine's InputError by main's exit status
        status = main(["power", *two_runs(tmp_path, 30), *options])
    except SystemExit as exc:
        status = exc.code
    err = capsys.readouterr().err
    assert status == 2 and err.startswith(words) and err.count("\n") == 1
