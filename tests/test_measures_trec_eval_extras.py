"""trec_eval's own measures (metrics/measures/trec_eval_extras.py): hand computations on one
small query, and the trec_eval 10 binary (tests/trec_eval_binary.py) on its own test files and on
generated cases, under trec_eval's names, for every number ``-q -m all_trec`` prints.

The query of the hand computations: ranks 1..6 hold x (unjudged), a (grade 3), c (0), e (−1:
pooled, not judged), b (1), y (unjudged); the ground truth also judges d (2) and f (1), never
retrieved. R_q = 4 (a, b, d, f), one judged non-relevant item (c)."""

from __future__ import annotations

import math
import subprocess

import numpy as np
import pytest

from metrics import GroundTruth, Run, evaluate, judge
from metrics.errors import InputError, MeasureError
from metrics.loaders.runs import load_run
from metrics.measures.aliases import TREC_EVAL_TEXT_NAMES
from metrics.measures.trec_eval_extras import relstring
from metrics.ranking.pipelines import load_truth
from trec_eval_binary import SOURCE

RUN = {"q1": {"x": 6.0, "a": 5.0, "c": 4.0, "e": 3.0, "b": 2.0, "y": 1.0}}
TRUTH = {"q1": {"a": 3, "b": 1, "c": 0, "d": 2, "e": -1, "f": 1}}
L2, L3, L5, L6 = (math.log2(n) for n in (2, 3, 5, 6))


def values(measures, run=RUN, truth=TRUTH, **judge_args):
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth), ties="trec10", **judge_args)
    return {name: r.values.tolist() for name, r in evaluate(judged, measures).results.items()}


def test_bin_g_discounts_each_relevant_item_by_the_non_relevant_above_it():
    # a: x above (1) -> 1/log2(3); b: x, c, e above (3) -> 1/log2(5); ÷ R_q = 4
    assert values("binG")["binG"] == [pytest.approx((1 / L3 + 1 / L5) / 4, abs=1e-15)]


def test_g_against_the_ideal_gain_so_far():
    # ideal gains 3, 2, 1, 1 (Σ 7); costs max(g*, 1): 3, 2, 1, 1, 1, 1.
    # a at 2: 3 / log2(2 + 5 − 3) = 1.5; b at 5: 1 / log2(2 + 8 − 4)
    assert values("G")["G"] == [pytest.approx((1.5 + 1 / L6) / 7, abs=1e-15)]


def _dcg_and_ideal():
    dcg2, dcg5 = 3 / L3, 3 / L3 + 1 / L6
    idcg2, idcg4 = 3 + 2 / L3, 3 + 2 / L3 + 1 / 2 + 1 / L5
    return dcg2, dcg5, idcg2, idcg4


def test_ndcg_rel_averages_ndcg_over_the_relevant_items():
    dcg2, dcg5, idcg2, idcg4 = _dcg_and_ideal()
    # a at 2: nDCG@2; b at 5: DCG@5 / IDCG@4; d and f missed: twice the whole list's nDCG
    expected = (dcg2 / idcg2 + dcg5 / idcg4 + 2 * dcg5 / idcg4) / 4
    assert values("ndcg_rel")["ndcg_rel"] == [pytest.approx(expected, abs=1e-15)]


def test_rndcg_at_the_r_levels_with_the_whole_list_only_two_past_the_ideal():
    dcg2, dcg5, idcg2, idcg4 = _dcg_and_ideal()
    # the ideal's gain changes after places 1 (grade 3), 2 (grade 2) and 4 (grade 1)
    at_levels = [0 / 3, dcg2 / idcg2, (3 / L3) / idcg4]
    # |A| = 6 = n + 2: the whole list's nDCG is a fourth term
    assert values("Rndcg")["Rndcg"] == [pytest.approx((sum(at_levels) + dcg5 / idcg4) / 4,
                                                      abs=1e-15)]
    # without y, |A| = 5 = n + 1: trec_eval adds no such term
    shorter = {"q1": {d: s for d, s in RUN["q1"].items() if d != "y"}}
    assert values("Rndcg", shorter)["Rndcg"] == [pytest.approx(sum(at_levels) / 3, abs=1e-15)]


def test_relp_divides_by_the_highest_precision_possible():
    got = values("relative_P_3,relative_P_5,set_relative_P,RelP@1")
    assert got == {"relative_P_3": [1 / 3], "relative_P_5": [2 / 4], "set_relative_P": [2 / 4],
                   "RelP@1": [0.0]}


def test_set_ap_is_tp_squared_over_retrieved_times_relevant():
    assert values("set_map,SetAP") == {"set_map": [4 / 24], "SetAP": [4 / 24]}


def test_num_nonrel_judged_ret_counts_grade_zero_only_and_is_summed():
    judged = judge(Run.from_dict(RUN | {"q2": {"c2": 1.0, "n2": 0.5}}),
                   GroundTruth.from_dict(TRUTH | {"q2": {"c2": 0, "r2": 1}}), ties="trec10")
    result = evaluate(judged, "num_nonrel_judged_ret,NumNonrelJudgedRet(rel=2)")
    assert result.results["num_nonrel_judged_ret"].values.tolist() == [1, 1]   # c; c2 (n2 unjudged)
    assert result.aggregate()["num_nonrel_judged_ret"] == 2                      # a sum
    assert result.results["NumNonrelJudgedRet(rel=2)"].values.tolist()[0] == 2   # c and b


def test_unjudged_divides_by_k_past_the_end_of_the_list():
    # x and e in the top 4; x, e and y in the whole list of 6, ÷ 10
    assert values("unj_4,unj.10,Unjudged@1") == {"unj_4": [0.5], "unj.10": [0.3],
                                                 "Unjudged@1": [1.0]}


def test_yaap_is_the_log_odds_of_aps_numerator():
    s = 1 / 2 + 2 / 5
    assert values("yaap")["yaap"] == [pytest.approx(math.log((1 + s) / (1 + 4 - s)), abs=1e-15)]


def test_utility_weighs_the_contingency_table():
    got = values("utility,Utility(tp=2,fp=-1,fn=-0.5)")
    assert got == {"utility": [2 - 4], "Utility(tp=2,fp=-1,fn=-0.5)": [4 - 4 - 0.5 * 2]}
    # tn counts the collection's rest: |D| + TP − |A| − R_q = 10 + 2 − 6 − 4 = 2
    assert values("Utility(tn=3)", collection_size=10)["Utility(tn=3)"] == [2 - 4 + 3 * 2]
    with pytest.raises(MeasureError, match="collection size"):
        values("Utility(tn=3)")



# ---- measures with parameters in trec_eval's syntax (its out.test.meas_params) ------------------

@pytest.mark.parametrize("trec_name, ours", [
    ("utility_2,-1,0,0", "Utility(tp=2)"), ("utility.1,-2,0.5,0.25",
                                            "Utility(fp=-2,fn=0.5,tn=0.25)"),
    ("11pt_avg_.25,.5,.75", "IPrecAvg(rounding=trec10,levels=0.25;0.5;0.75)"),
    ("ndcg_1=3,2=9,4=4.5", "nDCG(gains=1:3;2:9;4:4.5)"), ("G.1=-2,3=0.5", "G(gains=1:-2;3:0.5)"),
    ("rbp_p=0.5", "RBP(p=0.5,gain=graded)"), ("rbp_resid.p=0.5", "RBPResidual(p=0.5,form=trec)"),
])
def test_trec_evals_parameters_name_registered_parameters(trec_name, ours):
    from metrics.measures.names import parse_measure
    assert parse_measure(trec_name).canonical == ours
    assert str(parse_measure(trec_name)) == trec_name   # printed back under trec_eval's name


def test_recall_levels_out_of_order_are_refused():
    """trec_eval's 11pt_avg walks its levels as given, assuming them ascending."""
    from metrics.measures.names import parse_measure
    with pytest.raises(MeasureError, match="ascending"):
        parse_measure("11pt_avg.0.5,0.2")


def test_ndcg_with_gains_sorts_them_as_trec_eval():
    # gains: grade 1 → 3, 2 → 9, 3 keeps 3, 0 keeps 0; trec_eval's merge sort by the truncated
    # difference gives (0,0) (1,3) (3,3) (2,9): the ideal from the end is d (9), a (3), b and f
    # (3 each); then grade 0, gain 0: stop. Retrieved: a (3) at rank 2, b (3) at rank 5
    expected = (3 / L3 + 3 / L6) / (9 + 3 / L3 + 3 / 2 + 3 / L5)
    got = values(["ndcg_1=3,2=9"])["ndcg_1=3,2=9"]   # a list: the name has commas
    assert got == [pytest.approx(expected, abs=1e-15)]


def test_g_with_gains_against_trec_evals_ideal_ranking():
    # gains a 3, b 3 (grade 1), d 9 (grade 2), f 3; ideal 9, 3, 3, 3 (Σ 18), so the costs
    # Σ max(g*, 1) are 9, 12, 15, 18, then 19 at rank 5. a at 2: 3 / log2(2 + 12 − 3);
    # b at 5: 3 / log2(2 + 19 − 6)
    expected = (3 / math.log2(11) + 3 / math.log2(15)) / 18
    got = values(["G_1=3,2=9"])["G_1=3,2=9"]
    assert got == [pytest.approx(expected, abs=1e-15)]


def test_ndcg_rel_with_gains_against_trec_evals_ideal_ranking():
    # gains as above: ideal 9, 3, 3, 3 (n = 4); a (3) at rank 2, b (3) at rank 5
    dcg2, dcg5 = 3 / L3, 3 / L3 + 3 / L6
    idcg2, idcg4 = 9 + 3 / L3, 9 + 3 / L3 + 3 / 2 + 3 / L5
    expected = (dcg2 / idcg2 + dcg5 / idcg4 + 2 * dcg5 / idcg4) / 4
    got = values(["ndcg_rel_1=3,2=9"])["ndcg_rel_1=3,2=9"]
    assert got == [pytest.approx(expected, abs=1e-15)]


def test_rndcg_with_gains_at_the_changes_of_the_ideal_gain():
    # ideal 9, 3, 3, 3: the gain changes after place 1 and ends after place 4; |A| = 6 >= 4 + 2
    # adds the whole list. nDCG@1 = 0 (x is unjudged)
    idcg4 = 9 + 3 / L3 + 3 / 2 + 3 / L5
    expected = (0 + (3 / L3) / idcg4 + (3 / L3 + 3 / L6) / idcg4) / 3
    got = values(["Rndcg_1=3,2=9"])["Rndcg_1=3,2=9"]
    assert got == [pytest.approx(expected, abs=1e-15)]


def test_gains_less_than_one_apart_keep_their_order_as_trec_evals_sort_leaves_them():
    from metrics.measures.trec_gains import trec_sorted
    # (int)(0.5 - 0) == 0: equal, so the given grade 1 stays before grade 0, and the ideal
    # ranking, read from the end, meets grade 0's gain 0 first and is empty: nDCG undefined
    assert trec_sorted([(1, 0.5), (0, 0.0)]) == [(1, 0.5), (0, 0.0)]
    assert trec_sorted([(1, 3.0), (2, 9.0), (0, 0.0), (3, 3.0)]) == [
        (0, 0.0), (1, 3.0), (3, 3.0), (2, 9.0)]
    got = values("nDCG(gains=1:0.5)", run={"q1": {"a": 2.0, "c": 1.0}},
                 truth={"q1": {"a": 1, "c": 0}})
    assert np.isnan(got["nDCG(gains=1:0.5)"][0])


def test_11pt_avg_over_the_levels_given():
    # R_q = 4; relevant at ranks 2 (P = 1/2) and 5 (P = 2/5). Levels .25, .5, .75 need
    # lround(1, 2, 3) relevant items: max P from rank 2 on = 1/2, from rank 5 on = 2/5, 0
    got = values(["11pt_avg.0.25,0.5,0.75"])["11pt_avg.0.25,0.5,0.75"]
    assert got == [pytest.approx((0 + 0.4 + 0.5) / 3, abs=1e-15)]


def test_trec10_iprec_of_an_empty_list_is_zero_over_zero():
    """trec_eval 10 takes the precision of the whole list, num_rel_ret / num_ret, for a level
    that rounds to no relevant item when none is retrieved: 0/0 for an empty list (it prints
    -nan), 0 for a list without a relevant item; trec_eval 9's rounding needs one item."""
    truth = TRUTH | {"q2": {"r": 1, "s": 1, "t": 1, "u": 1}, "q3": {"v": 1}}
    run = RUN | {"q3": {"w": 1.0}}   # q2: nothing retrieved; q3: one unjudged item
    got = values("iprec_at_recall_0.00,iprec_at_recall_0.10,iprec_at_recall_0.20,IPrec@0",
                 run=run, truth=truth)
    # q2: R_q = 4, 0.1 · 4 = 0.4 rounds to 0 relevant items (NaN), 0.2 · 4 to 1 (0)
    assert np.isnan(got["iprec_at_recall_0.00"][1]) and np.isnan(got["iprec_at_recall_0.10"][1])
    assert got["iprec_at_recall_0.20"][1] == 0.0 and got["IPrec@0"][1] == 0.0
    assert got["iprec_at_recall_0.00"][2] == 0.0   # 0 / 1
    assert got["iprec_at_recall_0.00"][0] == 0.5   # q1: max P from the first relevant on

def test_gmap_and_gmbpref_are_geometric_means_floored_at_1e_5():
    run = RUN | {"q2": {"n": 1.0}}
    truth = TRUTH | {"q2": {"r": 1, "c2": 0}}
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth), ties="trec10")
    result = evaluate(judged, "gm_map,gm_bpref,map")
    ap = (1 / 2 + 2 / 5) / 4
    assert result.results["gm_map"].values.tolist() == [ap, 0.0]   # per query: AP
    assert result.aggregate()["gm_map"] == pytest.approx(math.sqrt(ap * 1e-5), rel=1e-14)
    assert result.aggregate()["map"] == pytest.approx(ap / 2)
    # bpref: a has no judged non-relevant item above it (1), b has c (1 − 1/min(4, 1) = 0)
    assert result.results["gm_bpref"].values.tolist() == [0.25, 0.0]
    assert result.aggregate()["gm_bpref"] == pytest.approx(math.sqrt(0.25 * 1e-5), rel=1e-14)


def test_relstring_shows_each_grade_and_what_is_not_judged():
    judged = judge(Run.from_dict(RUN), GroundTruth.from_dict(TRUTH), ties="trec10")
    assert relstring(judged, 0) == "-30.1-"
    assert relstring(judged, 0, 3) == "-30"


# ---- the oracle: the trec_eval 10 binary -----------------------------------------------------


def _trec_eval(binary, qrels, run, *flags) -> dict[tuple[str, str], str]:
    out = subprocess.run([str(binary), "-q", "-m", "all_trec", *flags, str(qrels), str(run)],
                         capture_output=True, text=True, check=True).stdout
    return {(name.strip(), query): value
            for name, query, value in (line.split("\t") for line in out.splitlines())}


def _ours(qrels, run, names, level=1) -> dict[tuple[str, str], str]:
    """Our values under trec_eval's names, printed as trec_eval prints them; an undefined value
    (a query without a relevant item, as trec_eval counts it) is its 0."""
    from metrics.measures.names import parse_measures, with_relevance_threshold
    judged = judge(load_run(str(run)), load_truth(str(qrels)), ties="trec10")
    measures = with_relevance_threshold(parse_measures(names), level)
    result = evaluate(judged, measures, score_no_relevant=True)
    printed = {}
    for measure, name in zip(measures, names):
        r = result.results[str(measure)]
        per_query = np.nan_to_num(r.values, nan=0.0)
        count = r.is_summed
        for query, value in zip(judged.query_ids, per_query):
            printed[(name, query)] = f"{int(value)}" if count else f"{value:.4f}"
        if r.is_geometric:
            from metrics.measures.trec_eval_extras import geometric_mean
            summary = geometric_mean(per_query)
        elif count:
            summary = per_query.sum()
        else:   # trec_eval adds the queries' values one by one, then divides
            summary = np.cumsum(per_query)[-1] / len(per_query)
        printed[(name, "all")] = f"{int(summary)}" if count else f"{summary:.4f}"
    return printed


# m_rbp.c compares the gains with two variables it never sets (min, max): what rbp prints
# depends on the stack (the session's -O2 build prints other numbers than the Makefile's -g
# build, whose are in test/out.test.aq). rbp is checked against those reference outputs instead.
UNDEFINED_IN_C = ("rbp",)


def _assert_agrees(binary, qrels, run, *flags):
    theirs = _trec_eval(binary, qrels, run, *flags)
    names = [n for n in dict.fromkeys(name for name, _ in theirs)
             if n not in TREC_EVAL_TEXT_NAMES + UNDEFINED_IN_C]
    level = int(flags[flags.index("-l") + 1]) if "-l" in flags else 1
    ours = _ours(qrels, run, names, level)
    differ = [(key, ours.get(key), value) for key, value in theirs.items()
              if key[0] in names and ours.get(key) != value]
    assert not differ, f"{len(differ)} values differ from trec_eval's, first {differ[:5]}"
    return names


@pytest.mark.parametrize("qrels,run,flags", [
    ("qrels.test", "results.test", ()), ("qrels.rel_level", "results.test", ()),
    ("qrels.rel_level", "results.test", ("-l", "2")), ("qrels-302.test", "results-302.test", ())])
def test_every_number_of_all_trec_agrees_with_trec_eval_on_its_test_files(trec_eval_binary, qrels,
                                                                          run, flags):
    names = _assert_agrees(trec_eval_binary, SOURCE / "test" / qrels, SOURCE / "test" / run,
                           *flags)
    assert len(names) == 97 and "gm_map" in names and "iprec_at_recall_0.60" in names


@pytest.mark.parametrize("qrels,expected,flags", [("qrels.test", "out.test.aq", ()),
                                                  ("qrels.rel_level", "out.test.aql", ("-l", "2"))])
def test_rbp_agrees_with_trec_evals_reference_output(qrels, expected, flags):
    """trec_eval's rbp with its gains read as m_rbp.c means them (min 0, max the query's top
    grade: rescaled into [0, 1] only when a grade is above 1), as its test/out.test.aq* print."""
    lines = (SOURCE / "test" / expected).read_text().splitlines()
    theirs = {q: v for name, q, v in (line.split("\t") for line in lines) if name.strip() == "rbp"}
    level = int(flags[1]) if flags else 1
    ours = _ours(SOURCE / "test" / qrels, SOURCE / "test" / "results.test", ["rbp"], level)
    assert {q: ours[("rbp", q)] for q in theirs} == theirs


def _generated(seed: int, directory):
    """A qrels and a run with grades −1..4, unjudged items, ties among doubles and ties that
    exist in float32 only, queries without a relevant item, and a run query the qrels lack."""
    rng = np.random.default_rng(seed)
    qrels, run = [], []
    for q in range(12):
        length = int(rng.integers(1, 40))
        items = [f"d{i:03d}" for i in rng.choice(200, length, replace=False)]
        judged = list(rng.choice(items, int(rng.integers(1, length + 1)), replace=False))
        judged += [f"m{q}_{i}" for i in range(int(rng.integers(0, 4)))]   # never retrieved
        grades = rng.integers(-1, 5, len(judged)) if q % 4 else np.zeros(len(judged), int)
        qrels += [f"{q} 0 {d} {g}" for d, g in zip(judged, grades)]
        base = np.round(rng.uniform(0, 2, length), 1)
        nudge = rng.integers(0, 2, length) * 1e-12   # equal as float32, not as double
        run += [f"{q} Q0 {d} {i} {float(s)!r} gen"
                for i, (d, s) in enumerate(zip(items, base + nudge))]
    run += ["99 Q0 d001 1 1.0 gen"]   # a query the qrels lack: trec_eval skips it
    (directory / "qrels").write_text("\n".join(qrels) + "\n")
    (directory / "run").write_text("\n".join(run) + "\n")
    return directory / "qrels", directory / "run"


@pytest.mark.parametrize("seed", range(3))
def test_every_number_of_all_trec_agrees_with_trec_eval_on_generated_cases(trec_eval_binary,
                                                                          tmp_path, seed):
    qrels, run = _generated(seed, tmp_path)
    _assert_agrees(trec_eval_binary, qrels, run)
    _assert_agrees(trec_eval_binary, qrels, run, "-l", "3")


# ---- preferences (-R prefs, qrels_prefs): metrics/measures/trec_prefs.py, by hand ---------------

def _prefs(*lines):
    from metrics.loaders.trec_prefs import Preference
    return [Preference(b"g", subgroup.encode(), item.encode(), level)
            for subgroup, item, level in lines]


def test_prefs_of_one_subgroup_count_each_pair_of_levels():
    from metrics.measures.trec_prefs import prefs_values, query_prefs
    # levels A 2, B 1, D 1, C 0; ranked B, A, C (D not retrieved): internal ranks B 0, A 1,
    # C 2, D 3. A>B fails, A>C and B>C are fulfilled (both retrieved), A>D is fulfilled by
    # implication (A retrieved, D not), D>C fails by implication
    q = query_prefs(_prefs(("s", "A", 2.0), ("s", "B", 1.0), ("s", "D", 1.0),
                           ("s", "C", 0.0)), [b"B", b"A", b"X", b"C"])
    got = prefs_values(q)
    assert (got["prefs_num_prefs_poss"], got["prefs_num_prefs_ful"],
            got["prefs_num_prefs_ful_ret"]) == (5, 3, 2)
    assert got["prefs_simp"] == got["prefs_avgjg"] == got["prefs_simp_imp"] == 3 / 5
    assert got["prefs_simp_ret"] == got["prefs_avgjg_ret"] == 2 / 3
    # pairs: (B,A) 0, (B,C) 1, (A,C) 1, (A,D) 1, (C,D) 0
    assert got["prefs_pair"] == got["prefs_pair_imp"] == 3 / 5
    assert got["prefs_pair_ret"] == 2 / 3
    # R = 3 relevant (2 retrieved), N = 1 non-relevant: (3 + 2·2) / (5 + 3·2)
    assert got["prefs_avgjg_Rnonrel"] == 7 / 11
    # retrieved only: R = 2, N = 1: (2 + 2·1) / (3 + 3·1)
    assert got["prefs_avgjg_Rnonrel_ret"] == 4 / 6


def test_prefs_of_several_subgroups_are_closed_under_transitivity():
    from metrics.measures.trec_prefs import prefs_values, query_prefs
    # s1: A > B; s2: B > C; so A > C too. Ranked C, A, B: A>B fulfilled, B>C and A>C fail
    q = query_prefs(_prefs(("s1", "A", 2.0), ("s1", "B", 1.0), ("s2", "B", 1.0),
                           ("s2", "C", 0.0)), [b"C", b"A", b"B"])
    got = prefs_values(q)
    assert (got["prefs_num_prefs_poss"], got["prefs_num_prefs_ful"]) == (3, 1)
    assert got["prefs_simp"] == 1 / 3
    assert got["prefs_avgjg_Rnonrel"] == 3 / 5   # R = 2, N = 1: (1 + 2·1) / (3 + 2·1)


def test_prefs_refuse_what_trec_eval_reads_past_its_data():
    """prefs_avgjg_Rnonrel takes the first R items of the lowest level as the non-relevant
    ones; with fewer there, trec_eval reads on past them (its value is then undefined)."""
    from metrics.measures.trec_prefs import prefs_values, query_prefs
    # R = 3 (level 1) < N = 4 (levels 0 and -1); the lowest level, -1, has one item
    q = query_prefs(_prefs(("s", "A", 1.0), ("s", "B", 1.0), ("s", "C", 1.0), ("s", "D", 0.0),
                           ("s", "E", -1.0), ("s", "F", 0.0), ("s", "G", 0.0)), [b"A"])
    # 3 × 3 + 3 × 1 + 3 × 1 = 15 preferences; A (retrieved) fulfils its 4 by implication
    assert prefs_values(q, ["prefs_simp"])["prefs_simp"] == 4 / 15
    with pytest.raises(InputError, match="reads past"):
        prefs_values(q, ["prefs_avgjg_Rnonrel"])
