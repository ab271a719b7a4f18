"""The worked examples of the published sources (Müller's FMP, Serrà 2007, the instrument-retrieval
task), computed from their definitions by hand."""

from fractions import Fraction

import numpy as np
import pytest

from metrics import GroundTruth, Run, evaluate, judge
from metrics.explain.answer_sets import ERRATA, TABLE2_MEASURES, judged_answer_sets
from metrics.evaluation.curves import rank_curves
from metrics.loaders import load_run, load_taxonomy

# ---- Müller, FMP notebook C7S3 -------------------------------------------------------------------------

TOY1 = dict(ids=range(1, 11), scores=[8, 52, 22, 10, 12, 34, 11, 27, 72, 18], relevant={2, 7, 8, 9})
TOY2 = dict(ids=range(1, 9), scores=[0.7, 2.6, 3.6, 3.5, 3.2, 3.7, 1.5, 3.1], relevant={2, 3, 4, 8})


def fmp(example):
    ids = [str(i) for i in example["ids"]]
    run = Run.build(["Q"] * len(ids), ids, example["scores"])
    truth = GroundTruth.build(["Q"] * len(ids), ids,
                              [1 if int(i) in example["relevant"] else 0 for i in ids])
    return judge(run, truth)


def test_fmp_toy1_table():
    j = fmp(TOY1)
    assert list(j.ranked_list(0)[0]) == ["9", "2", "6", "8", "3", "10", "5", "7", "4", "1"]
    c = rank_curves(j, 0)
    assert list(c.chi) == [1, 1, 0, 1, 0, 0, 0, 1, 0, 0]
    printed_p = [1.00, 1.00, 0.67, 0.75, 0.60, 0.50, 0.43, 0.50, 0.44, 0.40]
    printed_r = [0.25, 0.50, 0.50, 0.75, 0.75, 0.75, 0.75, 1.00, 1.00, 1.00]
    printed_f = [0.4, 0.67, 0.57, 0.75, 0.67, 0.6, 0.55, 0.67, 0.62, 0.57]
    assert np.round(c.precision, 2).tolist() == printed_p
    assert np.round(c.recall, 2).tolist() == printed_r
    assert np.round(c.f, 2).tolist() == printed_f


def test_fmp_toy1_measures():
    values = evaluate(fmp(TOY1), "AP,BEP,Fmax").aggregate()
    assert values["AP"] == pytest.approx(0.8125, abs=1e-12)
    assert values["BEP"] == pytest.approx(0.75, abs=1e-12)
    assert values["Fmax"] == pytest.approx(0.75, abs=1e-12)


def test_fmp_toy1_swapping_ranks_8_and_9_lowers_only_ap():
    # FMP's text: moving the relevant item from rank 8 to 9 leaves BEP and F_max, AP -> 0.7975
    swapped = dict(TOY1, scores=[8, 52, 22, 11, 12, 34, 10, 27, 72, 18])
    values = evaluate(fmp(swapped), "AP,BEP,Fmax").aggregate()
    assert values["AP"] == pytest.approx((1 + 1 + 0.75 + 4 / 9) / 4, abs=1e-12)
    assert round(values["AP"], 4) == 0.7986  # the text prints 0.7975, using P(9) rounded to 0.44
    assert values["BEP"] == 0.75 and values["Fmax"] == 0.75


def test_fmp_toy2_table_and_measures():
    j = fmp(TOY2)
    assert list(j.ranked_list(0)[0]) == ["6", "3", "4", "5", "8", "2", "7", "1"]
    c = rank_curves(j, 0)
    assert np.round(c.precision, 2).tolist() == [0.0, 0.5, 0.67, 0.5, 0.6, 0.67, 0.57, 0.5]
    assert np.round(c.recall, 2).tolist() == [0.0, 0.25, 0.5, 0.5, 0.75, 1.0, 1.0, 1.0]
    assert np.round(c.f, 2).tolist() == [0.0, 0.33, 0.57, 0.5, 0.67, 0.8, 0.73, 0.67]
    values = evaluate(j, "AP,BEP,Fmax").aggregate()
    assert round(values["AP"], 5) == 0.60833
    assert values["BEP"] == pytest.approx(0.5)
    assert values["Fmax"] == pytest.approx(0.8)


# ---- Serrà (2007), Table 2 -------------------------------------------------------------------

PRINTED = {  # Table 2 as printed in the paper
    "TP": [1, 4, 4, 4, 4, 0],
    "FP": [13, 10, 10, 10, 10, 14],
    "FN": [0, 3, 3, 10, 10, 14],
    "TN": [2040, 2037, 2037, 2030, 2030, 2036],
    "Accuracy": [0.994, 0.994, 0.994, 0.990, 0.990, 0.991],
    "Sensitivity": [1.000, 0.571, 0.571, 0.285, 0.285, 0.000],
    "Specificity": [1.000, 0.998, 0.998, 0.995, 0.995, 0.998],
    "Fallout rate": [0.006, 0.005, 0.005, 0.005, 0.005, 0.007],
    "Precision": [0.071, 0.286, 0.286, 0.286, 0.286, 0.000],
    "Recall": [1.000, 0.571, 0.571, 0.286, 0.286, 0.000],
    "Break-even point": [0.3, 0.7, 0.3, 0.5, 0.4, 0.1],
    "AP": [0.250, 0.950, 0.307, 0.500, 0.496, 0.000],
    "F-measure": [0.133, 0.381, 0.381, 0.286, 0.286, 0.000],
    "RR": [0.018, 0.145, 0.038, 0.074, 0.095, 0.000],
    "DCG": [0.721, 3.974, 1.987, 3.203, 2.371, 0.000],
    "bpref": [-2.000, 0.550, 0.143, 0.235, 0.194, 0.000],
    "bpref-10": [0.727, 0.563, 0.395, 0.256, 0.232, 0.000],
    "bpref*": [0.800, 0.564, 0.428, 0.260, 0.239, 0.000],
}
SETS = ["A1", "A2", "A3", "A4", "A5", "A6"]


@pytest.fixture(scope="module")
def table2():
    result = evaluate(judged_answer_sets(), list(TABLE2_MEASURES.values()))
    return {row: result.results[m].values for row, m in TABLE2_MEASURES.items()}


def test_every_reproducible_cell_equals_the_paper(table2):
    checked = 0
    for row, printed_row in PRINTED.items():
        for a, printed, ours in zip(SETS, printed_row, table2[row]):
            if (row, a) in ERRATA:
                continue
            digits = 0 if row in ("TP", "FP", "FN", "TN") else (1 if row == "Break-even point"
                                                                 else 3)
            assert round(float(ours), digits) == pytest.approx(printed, abs=1e-9), (row, a, ours)
            checked += 1
    assert checked == 18 * 6 - len(ERRATA)


def test_errata_are_real_disagreements(table2):
    for (row, a), why in ERRATA.items():
        ours = float(table2[row][SETS.index(a)])
        printed = PRINTED[row][SETS.index(a)]
        digits = 1 if row == "Break-even point" else (0 if row == "FN" else 3)
        assert round(ours, digits) != printed, (row, a, why)


def test_errata_values_pinned(table2):
    assert table2["FN"][5] == 4                      # printed 14
    specificity = table2["Specificity"]
    assert np.allclose(specificity, 1 - table2["Fallout rate"])
    assert round(specificity[0], 4) == round(2040 / 2053, 4)  # printed 1.000
    assert np.allclose(table2["Break-even point"], [0, 4 / 7, 2 / 7, 4 / 14, 4 / 14, 0])
    for row, a in [("Sensitivity", "A4"), ("Sensitivity", "A5"), ("bpref*", "A2"),
                   ("bpref*", "A3"), ("bpref*", "A5")]:   # printed truncated, not rounded
        ours = table2[row][SETS.index(a)]
        assert np.floor(ours * 1000) / 1000 == pytest.approx(PRINTED[row][SETS.index(a)])
    assert table2["bpref"][1] == pytest.approx(27 / 49)
    assert table2["DCG"][4] == pytest.approx(1 + 1 / np.log(8) + 1 / np.log(9) + 1 / np.log(10))


def test_serra_conventions_by_hand(table2):
    assert table2["AP"][2] == pytest.approx((1 / 6 + 2 / 7 + 3 / 8 + 4 / 10) / 4)
    assert table2["RR"][1] == pytest.approx((1 + 1 / 2 + 1 / 3 + 1 / 5) / 14)
    assert table2["DCG"][1] == pytest.approx(1 + 1 / np.log(2) + 1 / np.log(3) + 1 / np.log(5))
    assert table2["bpref"][0] == pytest.approx(-2.0)          # (1 − 3/1)
    assert table2["bpref-10"][0] == pytest.approx(1 - 3 / 11)
    assert table2["bpref*"][0] == pytest.approx(1 - 3 / 15)


# ---- the instrument-retrieval task, with a two-level taxonomy ------------------------------------------

@pytest.fixture
def violin(tmp_path):
    (tmp_path / "taxonomy.csv").write_text(
        "class,parent\nstrings,\nwinds,\nviolin,strings\ncello,strings\nguitar,strings\n"
        "flute,winds\nclarinet,winds\n")
    (tmp_path / "annotations.csv").write_text(
        "item_id,class\nx1,violin\nx2,flute\nx3,cello\nx4,violin\nx4,flute\nx5,guitar\n"
        "x5,clarinet\nx6,clarinet\nx7,violin\n")
    # ranking for the query "violin": x3 x1 x2 x5 x4 -> grades 1 2 0 1 2
    (tmp_path / "system.run").write_text(
        "".join(f"violin Q0 {d} {r} {6 - r} s\n" for r, d in enumerate(
            ["x3", "x1", "x2", "x5", "x4"], start=1)))
    truth = load_taxonomy(tmp_path / "taxonomy.csv", tmp_path / "annotations.csv")
    judged = judge(load_run(tmp_path / "system.run"), truth)
    row = list(judged.query_ids).index("violin")
    return judged.subset(np.array([row]))


def test_taxonomy_grades(violin):
    assert violin.dense_grades(0)[0].tolist() == [1, 2, 0, 1, 2]
    counts = violin.truth_grades   # x2 x6 | x3 x5 | x1 x4 x7
    assert dict(zip(counts.grade.tolist(), counts.count.tolist())) == {0: 2, 1: 2, 2: 3}


def test_err_linear_seed003(violin):
    # p_i = g_i / 2 = .5, 1, 0, .5, 1: ERR = .5/1 + (1-.5)·1/2, then the user has stopped
    assert evaluate(violin, "ERR(p=linear)").aggregate()["ERR(p=linear)"] == pytest.approx(0.75)


def test_err_exponential(violin):
    p = [0.25, 0.75, 0.0, 0.25, 0.75]   # (2^g − 1)/2^2
    expected = 0.25 + 0.75 * 0.75 / 2 + 0 + 0.75 * 0.25 * 1 * 0.25 / 4 \
        + 0.75 * 0.25 * 1 * 0.75 * 0.75 / 5
    assert p[0] == 0.25
    assert evaluate(violin, "ERR").aggregate()["ERR"] == pytest.approx(expected)
    assert expected == pytest.approx(0.5640625)


def test_expected_precision(violin):
    got = evaluate(violin, "EP@2,EP@4").aggregate()
    assert got["EP@2"] == pytest.approx(Fraction(1, 3) * 1 + Fraction(2, 3) * Fraction(1, 2))
    assert got["EP@4"] == pytest.approx(float(Fraction(1, 3) * Fraction(3, 4)
                                              + Fraction(2, 3) * Fraction(1, 4)))


def test_graded_average_precision(violin):
    numerator = (Fraction(1, 3) * 1                                            # rank 1, g=1
                 + Fraction(1, 3) * 1 + Fraction(2, 3) * Fraction(1, 2)        # rank 2, g=2
                 + Fraction(1, 3) * Fraction(3, 4)                             # rank 4, g=1
                 + Fraction(1, 3) * Fraction(4, 5) + Fraction(2, 3) * Fraction(2, 5))  # rank 5
    denominator = 3 * (Fraction(1, 3) + Fraction(2, 3)) + 2 * Fraction(1, 3)
    assert numerator / denominator == Fraction(107, 220)
    assert evaluate(violin, "GAP").aggregate()["GAP"] == pytest.approx(107 / 220)


def test_flat_measures_count_only_the_query_class(violin):
    got = evaluate(violin, "AP(rel=2),RR(rel=2),P(rel=2)@5").aggregate()
    assert got["AP(rel=2)"] == pytest.approx((1 / 2 + 2 / 5) / 3)
    assert got["RR(rel=2)"] == pytest.approx(1 / 2)
    assert got["P(rel=2)@5"] == pytest.approx(2 / 5)
