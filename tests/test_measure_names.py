"""Measures by name: names and parameters as written and printed back, the errors of names that
are wrong, aliases (trec_eval's and the papers' names) and the values trec_eval gives under its
names, and the registry behind them (every measure documented and runnable, undefined values NaN
and left out, count measures summed).

The values of each measure are tested in the module of its family, tests/test_measures_*.py."""

import math

import numpy as np
import pytest

from metrics import (REGISTRY, GroundTruth, MeasureError, Run, evaluate, judge, parse_measure,
                     parse_measures, split_measure_list)
from metrics.measures.aliases import ALIASES


def test_split_on_commas_outside_parentheses():
    assert split_measure_list("AP, P@10,DCG(form=jarvelin,base=e)@10,nDCG@10") == [
        "AP", "P@10", "DCG(form=jarvelin,base=e)@10", "nDCG@10"]


@pytest.mark.parametrize("text,printed", [
    ("AP", "AP"), ("P@10", "P@10"), ("DCG(base=e,form=jarvelin)@10", "DCG(form=jarvelin,base=e)@10"),
    ("F(beta=2)@5", "F(beta=2)@5"), ("AP(norm=min)@10", "AP(norm=min)@10"),
    (" nDCG @ 10 ", "nDCG@10"), ("ERR(p=linear)@20", "ERR(p=linear)@20"),
])
def test_parse_and_print(text, printed):
    assert str(parse_measure(text)) == printed


@pytest.mark.parametrize("text,words", [
    ("Foo", "unknown measure 'Foo'"), ("ap", "did you mean AP"), ("P@0", "at least 1"),
    ("P@x", "not a whole number"), ("Rprec@10", "takes no cutoff"), ("AP(norm=max)", "not one of"),
    ("AP(x=1)", "has no parameter 'x'"), ("AP(norm)", "name=value"), ("DCG(base=1)", "cannot be 1"),
    ("AP(rel=1,rel=2)", "given twice"), ("P@10@2", "not a whole number"), ("P(@10", "cannot read"),
])
def test_bad_measure_names(text, words):
    with pytest.raises(MeasureError, match=words):
        parse_measure(text)


def test_unbalanced_parentheses():
    with pytest.raises(MeasureError, match="unbalanced"):
        split_measure_list("DCG(form=trec,P@10")


def test_every_measure_is_documented():
    for name, definition in REGISTRY.items():
        assert definition.meaning and definition.convention and definition.reference, name
        assert definition.compute.__doc__, name


def test_every_measure_runs_on_an_empty_list_and_a_full_one():
    run = Run.from_dict({"q1": {"a": 2.0, "b": 1.0}})
    truth = GroundTruth.from_dict({"q1": {"a": 1, "c": 2}, "q2": {"a": 1}})
    judged = judge(run, truth, collection_size=10)
    for name, definition in REGISTRY.items():
        at = "@0.5" if definition.at == "recall" else "@5"
        text = name + (at if definition.cutoff == "required" else "")
        values = evaluate(judged, text).results[text].values
        assert values.shape == (2,)


def test_undefined_values_are_nan_and_excluded():
    run = Run.from_dict({"q1": {"a": 1.0}, "q2": {"b": 1.0}})
    truth = GroundTruth.from_dict({"q1": {"a": 1}, "q2": {"b": 0}})
    result = evaluate(judge(run, truth), "AP,P@1")
    assert math.isnan(result.results["AP"].values[1])
    assert result.undefined() == {"AP": 1, "P@1": 1}
    assert result.aggregate() == {"AP": 1.0, "P@1": 1.0}
    assert any("no relevant item" in w for w in result.warnings)


# ---- float parameters are printed back exactly (issue 14, item 4) ------------------------------

def _f_by_hand(beta: float, p: float, r: float) -> float:
    return (1 + beta ** 2) * p * r / (beta ** 2 * p + r)


def test_float_parameters_keep_what_was_asked():
    first, second = parse_measure("F(beta=0.70710678)"), parse_measure("F(beta=0.7071074)")
    assert (str(first), str(second)) == ("F(beta=0.70710678)", "F(beta=0.7071074)")
    assert first != second
    assert [str(m) for m in parse_measures("F(beta=0.70710678),F(beta=0.7071074)")] == [
        "F(beta=0.70710678)", "F(beta=0.7071074)"]
    # a query with P = 1/2 and R = 1: each beta gets its own value (hand computation)
    run = Run.from_dict({"q": {"a": 2.0, "x": 1.0}})
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    got = evaluate(judge(run, truth), "F(beta=0.70710678),F(beta=0.7071074)").aggregate()
    assert got["F(beta=0.70710678)"] == pytest.approx(_f_by_hand(0.70710678, 0.5, 1.0), abs=0)
    assert got["F(beta=0.7071074)"] == pytest.approx(_f_by_hand(0.7071074, 0.5, 1.0), abs=0)
    assert got["F(beta=0.70710678)"] != got["F(beta=0.7071074)"]


@pytest.mark.parametrize("text,printed", [
    ("F(beta=2.0)", "F(beta=2)"), ("F(beta=0.5)", "F(beta=0.5)"), ("F(beta=1e-7)", "F(beta=1e-07)"),
    ("F(beta=0.1000000000000001)", "F(beta=0.1000000000000001)"),
    ("DCG(base=e)@3", "DCG(base=e)@3"), ("DCG(base=2.718281828459045)@3", "DCG(base=e)@3"),
    ("DCG(base=10)@3", "DCG(base=10)@3"), ("DCG(base=1.5)@3", "DCG(base=1.5)@3"),
])
def test_parameters_print_back_and_read_again_as_the_same_measure(text, printed):
    measure = parse_measure(text)
    assert str(measure) == printed
    assert parse_measure(str(measure)) == measure


# ---- aliases: trec_eval's names and papers' names (issue 14, item 5) ---------------------------

@pytest.mark.parametrize("alias,ours", [
    ("map", "AP"), ("map_cut_10", "AP@10"), ("map_cut.10", "AP@10"), ("P_10", "P@10"),
    ("P.10", "P@10"), ("recall_100", "R@100"), ("recall.100", "R@100"), ("ndcg", "nDCG"),
    ("ndcg_cut_10", "nDCG@10"), ("ndcg_cut.10", "nDCG@10"), ("recip_rank", "RR"),
    ("Rprec", "Rprec"), ("bpref", "Bpref"), ("num_rel", "NumRel"), ("num_ret", "NumRet"),
    ("num_rel_ret", "NumRelRet"), ("set_P", "P"), ("set_recall", "R"), ("set_F", "F"),
    ("recall", "R"), ("P", "P"), ("set_F.0.5", "F(beta=0.7071067811865476)"),
    ("set_F_0.25", "F(beta=0.5)"), ("MAP", "AP"), ("MAP@10", "AP@10"),
    ("mAP@10", "AP(norm=min)@10"), ("MRR", "RR"), ("MRR@10", "RR@10"), ("MedR", "MedianRank"),
    ("MR1", "FirstRank"), ("MR", "MeanRank"), ("R@10", "R@10"), ("SetP", "P"),
    ("mAP(rel=2)@5", "AP(norm=min,rel=2)@5"), (" map_cut_10 ", "AP@10"),
])
def test_alias_means_one_measure_and_prints_back_as_given(alias, ours):
    measure = parse_measure(alias)
    assert measure.canonical == ours
    assert measure == parse_measure(ours)
    assert str(measure) == alias.strip()


# the aliases of issue 14's new measures, and every alias's measure is registered
NEW_MEASURE_ALIASES = [("num_q", "NumQ"), ("success_10", "Success@10"), ("success.5", "Success@5"),
                       ("HR@10", "Success@10"),
                       ("iprec_at_recall_0.10", "IPrec(rounding=trec10)@0.1"),
                       ("iprec_at_recall.1", "IPrec(rounding=trec10)@1"), ("infAP", "infAP")]


@pytest.mark.parametrize("alias,ours", NEW_MEASURE_ALIASES)
def test_alias_of_a_new_measure(alias, ours):
    assert parse_measure(alias).canonical == parse_measure(ours).canonical == ours


def test_every_alias_means_a_registered_measure():
    for alias in ALIASES:
        target = alias.target.split("(")[0].split("@")[0]
        assert target in REGISTRY, alias.written


def test_aliases_agree_with_ir_measures_reading_of_trec_eval_names():
    ir_measures = pytest.importorskip("ir_measures")
    # where ir_measures' name for a trec_eval measure is also ours (not iprec_at_recall_r:
    # ir_measures reads it as trec_eval 9's IPrec@r, our aliases as trec_eval 10's)
    for trec_name in ["map", "map_cut_10", "P_10", "recall_100", "ndcg", "ndcg_cut_10",
                      "recip_rank", "Rprec", "bpref", "num_rel", "num_ret", "infAP"]:
        [theirs] = ir_measures.parse_trec_measure(trec_name)
        assert parse_measure(trec_name).canonical == str(theirs), trec_name


def test_no_alias_hides_a_measure_of_ours():
    for alias in ALIASES:
        if alias.name is not None and alias.name in REGISTRY:
            assert alias.means.split("@")[0] == alias.name, alias.written  # a "same name" note


@pytest.mark.parametrize("text,words", [
    ("NDCG@10", "did you mean nDCG@10, ndcg@10"), ("ndcg_cut10", "ndcg_cut_k"),
    ("Map", "did you mean map, MAP, mAP"), ("mrr@10", "did you mean MRR@10"),
    ("bpref10", "Bpref10"), ("Bogus@3", "unknown measure 'Bogus'"),
    ("num_rel@3", r"num_rel@3 \(= NumRel@3\): NumRel takes no cutoff"),
    ("mAP(norm=rq)@10", "parameter 'norm' given twice"), ("P_0", "at least 1"),
])
def test_alias_and_unknown_name_errors(text, words):
    with pytest.raises(MeasureError, match=words) as info:
        parse_measure(text)
    assert "\n" not in str(info.value)


def _oracle_run_and_qrels(seed: int):
    rng = np.random.default_rng(seed)
    qrels, run = {}, {}
    for q in range(12):
        docs = [f"d{i}" for i in rng.choice(60, size=30, replace=False)]
        grades = rng.choice([0, 0, 1, 2], size=20)
        grades[0] = max(grades[0], 1)                     # R_q > 0: no undefined value
        qrels[f"q{q}"] = {d: int(g) for d, g in zip(docs[:20], grades)}
        retrieved = docs[5:5 + int(rng.integers(3, 25))]
        run[f"q{q}"] = {d: float(np.round(rng.random(), 2)) for d in retrieved}
    return run, qrels


TREC_NAMES = ["map", "map_cut_10", "P_5", "P_10", "recall_10", "ndcg", "ndcg_cut_10",
              "recip_rank", "Rprec", "bpref", "num_rel", "num_ret", "num_rel_ret", "set_P",
              "set_recall", "set_F"]
TREC_REQUEST = {"map", "map_cut.10", "P.5,10", "recall.10", "ndcg", "ndcg_cut.10", "recip_rank",
                "Rprec", "bpref", "num_rel", "num_ret", "num_rel_ret", "set_P", "set_recall",
                "set_F"}


@pytest.mark.parametrize("seed", [0, 1, 2])
def test_trec_eval_names_give_trec_eval_values_under_its_names(seed):
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = _oracle_run_and_qrels(seed)
    expected = pytrec_eval.RelevanceEvaluator(qrels, TREC_REQUEST).evaluate(run)
    result = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels), "trec9"),
                      ",".join(TREC_NAMES))
    assert result.measures == TREC_NAMES
    for i, q in enumerate(result.query_ids):
        for name in TREC_NAMES:
            tolerance = 1e-6 if name == "bpref" else 1e-9   # trec_eval's bpref is in C float
            assert result.results[name].values[i] == pytest.approx(expected[q][name],
                                                                   abs=tolerance), (q, name)
    # aggregates: counts summed, the rest averaged, as trec_eval (every query has R_q > 0 here)
    summary = result.aggregate()
    for name in TREC_NAMES:
        values = [expected[q][name] for q in expected]
        want = sum(values) if name.startswith("num_") else sum(values) / len(values)
        assert summary[name] == pytest.approx(want, abs=1e-6), name


def test_set_f_with_its_parameter_matches_pytrec_eval():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    run, qrels = _oracle_run_and_qrels(5)
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"set_F.0.5"}).evaluate(run)
    result = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels)),
                      "set_F.0.5,F(beta=0.70710678),F(beta=0.7071074)")
    values = result.results["set_F.0.5"].values
    for i, q in enumerate(result.query_ids):
        assert values[i] == pytest.approx(expected[q]["set_F"], abs=1e-12), q
    assert result.results["F(beta=0.70710678)"].values.tolist() != \
        result.results["F(beta=0.7071074)"].values.tolist()


def test_count_measures_are_summed_as_ir_measures_does():
    ir_measures = pytest.importorskip("ir_measures")
    run, qrels = _oracle_run_and_qrels(3)
    expected = ir_measures.calc_aggregate(
        [ir_measures.NumRel, ir_measures.NumRet, ir_measures.NumRet(rel=1), ir_measures.AP],
        qrels, run)
    got = evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels), "trec9"),
                   "NumRel,NumRet,NumRelRet,AP").aggregate()
    assert got["NumRel"] == expected[ir_measures.NumRel]
    assert got["NumRet"] == expected[ir_measures.NumRet]
    assert got["NumRelRet"] == expected[ir_measures.NumRet(rel=1)]
    assert got["AP"] == pytest.approx(expected[ir_measures.AP], abs=1e-9)


def test_count_sums_leave_out_undefined_queries_and_median_stays_a_median():
    run = Run.from_dict({"q1": {"a": 1.0, "b": 0.5}, "q2": {"c": 1.0}, "q3": {"d": 1.0}})
    truth = GroundTruth.from_dict({"q1": {"a": 1, "b": 1}, "q2": {"c": 1, "e": 1, "f": 1},
                                   "q3": {"d": 0}})
    result = evaluate(judge(run, truth), "num_rel,NumRet,AP")
    assert result.aggregate() == pytest.approx({"num_rel": 5.0, "NumRet": 3.0,
                                                "AP": (1 + 1 / 3) / 2})
    assert result.aggregate("median")["num_rel"] == 2.5
    assert result.summed() == ["num_rel", "NumRet"]


def test_ambiguous_map_at_k_says_which_it_is():
    run = Run.from_dict({"q": {"a": 2.0, "b": 1.0}})
    truth = GroundTruth.from_dict({"q": {"b": 1, "c": 1, "d": 1}})
    result = evaluate(judge(run, truth), "MAP@2,mAP@2,MAP")
    # relevant b at rank 2: precision 1/2; ÷ R_q = 3 or ÷ min(k, R_q) = 2 (hand computation)
    assert result.aggregate() == pytest.approx({"MAP@2": 0.5 / 3, "mAP@2": 0.5 / 2,
                                                "MAP": 0.5 / 3})
    assert any(w.startswith("MAP@2 is read as AP@2") for w in result.warnings)
    assert any(w.startswith("mAP@2 is read as AP(norm=min)@2") for w in result.warnings)
    assert not any(w.startswith("MAP is") for w in result.warnings)


# ---- recall levels and RBP's parameters (issue 14, item 8) -----------------------------------

@pytest.mark.parametrize("written,canonical", [
    ("IPrec@0.1", "IPrec@0.1"), ("IPrec@.1", "IPrec@0.1"),
    ("iprec_at_recall_0.10", "IPrec(rounding=trec10)@0.1"),
    ("iprec_at_recall.0.1", "IPrec(rounding=trec10)@0.1"), ("IPrec@1", "IPrec@1"),
    ("IPrec@1.00", "IPrec@1"),
    ("IPrec(rel=2)@0", "IPrec(rel=2)@0")])
def test_iprec_names_print_back_as_given(written, canonical):
    measure = parse_measure(written)
    assert str(measure) == written
    assert measure.canonical == canonical
    assert measure.rank_cutoff is None   # a recall level is no rank cutoff


@pytest.mark.parametrize("written,message", [
    ("IPrec", "needs a recall level from 0 to 1"),
    ("IPrec@1.5", "'1.5' is past 1"),
    ("iprec_at_recall_1.5", "'1.5' is past 1"),
    ("IPrec@-0.1", "not a number from 0 to 1"),
    ("IPrec@nan", "not a number from 0 to 1"),
    ("P@0.5", "cutoff '0.5' is not a whole number"),   # @k stays a whole number elsewhere
])
def test_bad_recall_levels_are_named(written, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(written)


@pytest.mark.parametrize("written,message", [
    ("RBP(p=1)", "must be from 0 up to"), ("RBP(p=-0.1)", "must be from 0 up to"),
    ("RBP(p=x)", "is not a number"), ("RBPResidual(rel=2)", "has no parameter 'rel'")])
def test_bad_rbp_parameters_are_named(written, message):
    with pytest.raises(MeasureError, match=message):
        parse_measure(written)
