"""Power of the paired t-test, the minimum detectable difference and the queries a difference
needs, checked against simulation (scipy's paired t-test on many drawn collections) and against
the normal approximation of Sakai's topic set size design."""

import math

import numpy as np
import pytest
from scipy import stats

from metrics import InputError
from metrics.evaluation.power import (MAX_QUERIES, detectable_sentence, power_analysis,
                                      queries_needed)


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
    n = queries_needed(0.5, alpha=0.05, power=0.8)
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
    assert result.queries_needed == queries_needed(0.5)


def test_huge_effects_have_power_one_and_tiny_ones_need_many_queries():
    rng = np.random.default_rng(6)
    a = rng.uniform(size=200)
    huge = power_analysis(a, a + 0.5 + rng.normal(0, 0.01, size=200))   # noncentrality ≈ 700
    assert huge.observed_power == 1.0
    assert queries_needed(1e-4) == MAX_QUERIES + 1   # needs ≈ 7.85e8: beyond the cap
    assert queries_needed(0.01) == pytest.approx(78_500, rel=0.01)   # (2.80 / 0.01)² ≈ 78,489


def test_undefined_cases_and_bad_levels():
    same = power_analysis(np.ones(5), np.ones(5) + 0.1)
    assert same.sd_diff == 0 and same.observed_power is None and same.min_detectable is None
    assert "undefined" in detectable_sentence(same, "AP")
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
