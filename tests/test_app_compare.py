"""The Compare page (AppTest): the paired tests against scipy, one verdict, Holm over every pair,
the power sentence against statsmodels, the side-by-side lists and a link to two systems."""

import numpy as np
import pandas as pd
import pytest

from apptest import address_params, app, grid_data, grid_text, linked, upload_of
from oracles import holm_by_hand


def test_compare_page_statistics_match_scipy():
    from scipy import stats

    from metrics import evaluate
    from metrics.explain.samples import load_sample
    at = app("pages/compare.py", sample="instruments", measures="AP,nDCG@10")
    assert not at.exception and not at.error
    tests = at.dataframe[0].value     # one column per test, one row per quantity
    assert list(tests.columns) == ["t-test", "Wilcoxon", "randomisation"]
    data = load_sample("instruments")
    a = evaluate(data["system_a"], "AP").results["AP"].values
    b = evaluate(data["system_b"], "AP").results["AP"].values
    assert float(tests.loc["p", "t-test"]) == pytest.approx(stats.ttest_rel(b, a).pvalue, 1e-3)
    assert float(tests.loc["p", "Wilcoxon"]) == pytest.approx(stats.wilcoxon(b, a).pvalue, 1e-3)
    assert tests.loc["mean B − A", "t-test"] == f"{(b - a).mean():.4f}"
    wins, ties, losses = map(int, tests.loc["wins / ties / losses", "t-test"].split(" / "))
    assert wins + ties + losses == len(a) and wins == int((b > a).sum())
    # each test in words above the table, its p from scipy
    words = [m.value.replace("\\", "") for m in at.markdown if "average" in m.value]
    [t_test] = [line for line in words[0].splitlines() if "(paired t-test)" in line]
    assert stats.ttest_rel(b, a).pvalue < 0.001 and "p < 0.001" in t_test
    assert f"system_b is {(b - a).mean():.3g} AP better than system_a" in t_test


def test_compare_says_one_verdict_then_the_tests():
    # issue 40, defect 10: the same sentence was printed once per test
    from scipy import stats

    from metrics import evaluate
    from metrics.explain.samples import load_sample
    at = app("pages/compare.py", sample="instruments", measures="AP")
    said = [m.value.replace("\\", "") for m in at.markdown if "on average" in m.value]
    assert len(said) == 1 and said[0].count("on average") == 1, said
    data = load_sample("instruments")
    a, b = (evaluate(data[s], "AP").results["AP"].values for s in ("system_a", "system_b"))
    p = stats.wilcoxon(b, a).pvalue
    for test in ("(paired t-test)", "(Wilcoxon signed-rank test)", "(randomisation test)"):
        assert said[0].count(test) == 1
    assert ((f"p = {p:.2g}" if p >= 0.001 else "p < 0.001") + " (Wilcoxon signed-rank test)"
            in said[0])
    assert list(at.dataframe[0].value.columns) == ["t-test", "Wilcoxon", "randomisation"]


def test_compare_page_of_five_systems_shows_holm_over_the_ten_pairs():
    from scipy import stats

    from metrics import evaluate
    from metrics.explain.samples import load_sample
    at = app("pages/compare.py", sample="versions", measures="AP")
    assert not at.exception and not at.error
    tests = at.dataframe[0].value
    assert list(tests.index) == ["mean B − A", "95% interval", "p", "p (Holm)", "d",
                                 "wins / ties / losses"]
    # Holm by hand over the ten paired t-tests of five systems, from scipy's p-values
    data = load_sample("versions")
    ap = {s: evaluate(run, "AP").results["AP"].values for s, run in data.items()}
    names = list(ap)
    raw = {(a, b): stats.ttest_rel(ap[b], ap[a]).pvalue
           for i, a in enumerate(names) for b in names[i + 1:]}
    assert len(raw) == 10
    holm = dict(zip(raw, holm_by_hand(np.array(list(raw.values())))))
    a, b = at.selectbox(key="system_a_box").value, at.selectbox(key="system_b_box").value
    pair = (a, b) if (a, b) in holm else (b, a)
    assert float(tests.loc["p (Holm)", "t-test"]) == pytest.approx(holm[pair], rel=1e-3)


def test_compare_side_by_side_changes_with_the_query():
    at = app("pages/compare.py", sample="covers", measures="AP")
    first = at.selectbox(key="compare_query_box").value
    tables = at.main.dataframe
    left, right = tables[-2].value, tables[-1].value
    assert "rank in other" in left.columns and len(left) == len(right) == 299
    other = "c0001" if first != "c0001" else "c0002"   # the options' labels hold the titles
    at.selectbox(key="compare_query_box").set_value(other).run()
    assert at.selectbox(key="compare_query_box").value == other != first


def test_compare_needs_two_systems():
    at = app("pages/compare.py", sample="fmp")
    assert not at.exception
    assert "one system" in at.info[0].value


def test_the_randomisation_caption_says_when_the_test_is_exact():
    at = app("pages/compare.py", sample="instruments", measures="AP")   # 12 queries: 4,096
    caption = " ".join(c.value for c in at.caption)
    assert "exact (all 2^12 = 4,096 sign assignments" in caption and "10,000" not in caption
    at = app("pages/compare.py", sample="covers", measures="AP")        # 300 queries
    assert "10,000 seeded random sign assignments" in " ".join(c.value for c in at.caption)


def test_items_the_other_system_missed_say_not_retrieved():
    at = app("pages/compare.py", sample="instruments", measures="AP")   # 100 rows: styled
    left = grid_text(at.main.dataframe[-2])
    shown = set(left["rank in other"])
    assert "not retrieved" in shown and "None" not in shown
    drawn = grid_data(at.main.dataframe[-2])["rank in other"]
    assert not drawn.isna().any() and "not retrieved" in set(drawn)
    from dashboard.tables import plain_ranked_list   # lists longer than 200 rows

    long = pd.DataFrame({"rank": [1, 2], "item": ["a", "b"], "grade": pd.array([1, None], "Int64"),
                         "χ": [1, 0], "rank in other": pd.array([3, None], dtype="Int64")})
    assert plain_ranked_list(long)["rank in other"].tolist() == ["3", "not retrieved"]
    assert plain_ranked_list(long)["grade"].tolist() == ["1", "unjudged"]


def test_compare_says_which_differences_these_queries_can_detect():
    from statsmodels.stats.power import TTestPower

    from metrics import evaluate
    from metrics.explain.samples import load_sample

    at = app("pages/compare.py", sample="covers", measures="AP")
    data = load_sample("covers")
    a = evaluate(data["system_a"], "AP").results["AP"].values
    b = evaluate(data["system_b"], "AP").results["AP"].values
    diff = b - a
    effect = TTestPower().solve_power(nobs=len(diff), alpha=0.05, power=0.8)
    smallest = effect * diff.std(ddof=1)
    sentence = next(m.value for m in at.markdown if "unlikely to be detected" in m.value)
    assert sentence.replace("\\", "") == (
        f"With these {len(diff)} queries, differences below {smallest:.3g} in AP are unlikely "
        f"to be detected (power 0.8 at α = 0.05, paired t-test).")
    at.number_input(key="compare_delta").set_value(0.02).run()
    needed = next(m.value for m in at.markdown if "needs" in m.value).replace("\\", "")
    import math
    by_statsmodels = math.ceil(TTestPower().solve_power(effect_size=0.02 / diff.std(ddof=1),
                                                        alpha=0.05, power=0.8))
    assert f"needs {by_statsmodels:,} queries" in needed


def test_a_link_with_two_systems_opens_compare_on_them():
    at = linked("pages/compare.py", dataset="instruments", systems=["system_b", "system_a"])
    assert not at.exception and not at.error
    assert at.selectbox(key="system_a_box").value == "system_b"
    assert at.selectbox(key="system_b_box").value == "system_a"
    assert address_params(at)["systems"] == ["system_b", "system_a"]


def test_a_constant_difference_leaves_the_t_test_and_its_power_undefined_and_says_why():
    # issue 42, item 5: B = A + 0.5 on every query gave p = 0 (t-test) and the page said the
    # power was undefined; identical systems gave t = 0, p = 1, d = 0. scipy's ttest_rel: NaN
    from scipy import stats

    qrels = "".join(f"q{i} 0 r{i} 1\n" for i in range(8)).encode()
    runs = {"A.run": "".join(f"q{i} Q0 x{i} 1 2 A\nq{i} Q0 r{i} 2 1 A\n" for i in range(8)),
            "B.run": "".join(f"q{i} Q0 r{i} 1 2 B\nq{i} Q0 x{i} 2 1 B\n" for i in range(8))}
    # by hand: A ranks each query's one relevant item 2nd (AP 0.5), B 1st (AP 1)
    at = app("pages/compare.py", upload=upload_of({n: r.encode() for n, r in runs.items()},
                                                  qrels), sample="upload", measures="AP")
    assert not at.exception and not at.error
    table = at.dataframe[0].value
    assert table.loc["p", "t-test"] == "—" and table.loc["d", "t-test"] == "—"
    assert float(table.loc["p", "Wilcoxon"]) == pytest.approx(
        stats.wilcoxon(np.full(8, 1.0), np.full(8, 0.5)).pvalue, rel=1e-3)
    texts = [m.value.replace("\\", "") for m in at.markdown]
    reason = ("every query's difference B − A is 0.5, so the differences have no spread (sd 0) "
              "for t and Cohen's d to divide by")
    verdict = next(t for t in texts if "on average" in t)
    assert verdict.endswith("(the paired t-test is undefined here): this collection shows a "
                            "difference. " + reason[0].upper() + reason[1:] + ".")
    assert f"With 8 queries, the paired t-test's power for AP is undefined: {reason}." in texts
