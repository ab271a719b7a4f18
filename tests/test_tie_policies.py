"""Tie policies (--ties stable | id | trec9 | trec10): how tied scores are ordered in a run and in
an all-vs-all matrix, trec_eval's float32 comparison, and the tie report that counts the tie
groups and the cutoffs they straddle; the policies' one owner, metrics.data.ties.TiePolicy (names,
former names, what each does, the help text of the command line and the dashboard). The
tie-aware policies (optimistic, pessimistic, expected) are in test_tie_aware.py."""

import subprocess
import sys
from pathlib import Path

import numpy as np
import pytest

from metrics import GroundTruth, InputError, Run, evaluate, judge, rank_run
from metrics.data.ties import TiePolicy
from metrics.ranking.streaming import judge_all_vs_all

ROOT = Path(__file__).resolve().parents[1]

TIED = Run.build(["q"] * 4, ["b", "c", "a", "d"], [1.0, 1.0, 1.0, 0.5])


def items(run, ties):
    ranked = rank_run(run, ties)
    return ranked.item_ids.tolist()


def test_stable_keeps_input_order():
    assert items(TIED, TiePolicy.STABLE) == ["b", "c", "a", "d"]


def test_id_ascending():
    assert items(TIED, TiePolicy.ID) == ["a", "b", "c", "d"]


def test_id_ascending_is_numeric_for_integer_ids():
    run = Run.build(["q"] * 3, ["10", "9", "100"], [1.0, 1.0, 1.0])
    assert items(run, TiePolicy.ID) == ["9", "10", "100"]


def test_trec_is_id_descending_after_float32_rounding():
    assert items(TIED, TiePolicy.TREC9) == ["c", "b", "a", "d"]
    # distinct in float64, equal in float32: trec_eval sees a tie and orders by id descending
    run = Run.build(["q", "q"], ["a", "b"], [0.1 + 1e-12, 0.1])
    assert items(run, TiePolicy.STABLE) == ["a", "b"]
    assert items(run, TiePolicy.TREC9) == ["b", "a"]


def test_ties_change_measures_and_are_reported():
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    assert evaluate(judge(TIED, truth, "stable"), "RR").aggregate()["RR"] == pytest.approx(1 / 3)
    assert evaluate(judge(TIED, truth, "id"), "RR").aggregate()["RR"] == 1.0
    report = judge(TIED, truth, "stable").ties
    assert (report.tied_items, report.tie_groups, report.queries_with_ties) == (3, 1, 1)
    assert [report.straddling(k) for k in (1, 2, 3, 4)] == [1, 1, 0, 0]
    assert "straddle rank 1" in report.describe([1, 3])
    result = evaluate(judge(TIED, truth), "P@2,P@3")
    assert any("1 straddle rank 2" in w for w in result.warnings)
    assert not any("rank 3" in w for w in result.warnings)


def test_no_ties():
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    report = judge(Run.build(["q", "q"], ["a", "b"], [2.0, 1.0]), truth).ties
    assert report.tie_groups == 0 and report.describe() == "no score ties"


def test_trec_ties_counted_in_float32():
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    run = Run.build(["q", "q", "q"], ["a", "b", "c"], [0.1 + 1e-12, 0.1, 0.05])
    assert judge(run, truth, "stable").ties.tie_groups == 0
    assert judge(run, truth, "trec").ties.straddling(1) == 1


def test_matrix_excludes_the_query_and_breaks_ties():
    scores = np.array([[9, 1, 1, 0], [1, 9, 2, 3], [1, 2, 9, 1], [0, 3, 1, 9]], dtype=float)
    ids = ["w", "x", "y", "z"]
    labels = ["A", "B", "A", "B"]
    judged = judge_all_vs_all(scores, ids, labels, ties=TiePolicy.STABLE)
    assert judged.ranked_list(0)[0].tolist() == ["x", "y", "z"]   # x and y tie: column order
    trec = judge_all_vs_all(scores, ids, labels, ties=TiePolicy.TREC9)
    assert trec.ranked_list(0)[0].tolist() == ["y", "x", "z"]
    assert judged.dense_grades(0)[0].tolist() == [0, 1, 0]
    assert trec.dense_grades(0)[0].tolist() == [1, 0, 0]
    assert judged.collection_sizes.tolist() == [3, 3, 3, 3]
    assert evaluate(judged, "FirstRank").results["FirstRank"].values.tolist() == [2, 1, 2, 1]
    distance = judge_all_vs_all(-scores, ids, labels, larger_is_better=False)
    for q in range(4):
        assert distance.ranked_list(q)[0].tolist() == judged.ranked_list(q)[0].tolist()
    # w: x and y tie at 1 (y a mate); y: w and z tie at 1 (w a mate)
    assert judged.ties.tie_groups == 2 and judged.ties.judged_only


# ---- trec9 and trec10 (issue 14, item 7) --------------------------------------------------------

def test_trec9_is_trec_eval_9_and_pytrec_eval_float32():
    pytrec_eval = pytest.importorskip("pytrec_eval")
    # d1 and d2 differ only past float32's precision: equal as float32, so d2 (id descending)
    # comes first for pytrec_eval; d4 and d3 likewise
    run = {"q1": {"d1": 0.5000000001, "d2": 0.5, "d3": 0.25, "d4": 0.2500000001}}
    qrels = {"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 0}}
    expected = pytrec_eval.RelevanceEvaluator(qrels, {"recip_rank", "map", "P.1"}).evaluate(run)
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(qrels), "trec9")
    got = evaluate(judged, "recip_rank,map,P_1").aggregate()
    assert got == pytest.approx({k: expected["q1"][k] for k in ("recip_rank", "map", "P_1")})
    assert expected["q1"]["recip_rank"] == 0.5        # the case really is a float32 tie
    assert rank_run(Run.from_dict(run), TiePolicy.TREC9).item_ids.tolist() == \
        ["d2", "d1", "d4", "d3"]
    # the former name, through the door that still takes names
    assert evaluate(judge(Run.from_dict(run), GroundTruth.from_dict(qrels), "trec"),
                    "recip_rank,map,P_1").aggregate() == got


def test_trec10_compares_as_double_and_breaks_exact_ties_by_id_descending():
    # by hand: as doubles d1 > d2 and d4 > d3; d5 and d6 are exactly equal, so id descending
    run = Run.from_dict({"q1": {"d1": 0.5000000001, "d2": 0.5, "d3": 0.25, "d4": 0.2500000001,
                                "d5": 0.1, "d6": 0.1}})
    assert rank_run(run, TiePolicy.TREC10).item_ids.tolist() == ["d1", "d2", "d4", "d3", "d6", "d5"]
    truth = GroundTruth.from_dict({"q1": {"d1": 1, "d2": 0, "d3": 1, "d4": 0}})
    # relevant at ranks 1 and 4: RR = 1, AP = (1/1 + 2/4) / 2
    got = evaluate(judge(run, truth, "trec10"), "RR,AP").aggregate()
    assert got == pytest.approx({"RR": 1.0, "AP": 0.75})
    assert judge(run, truth, "trec10").ties.tie_groups == 1      # only d5 = d6
    assert judge(run, truth, "trec9").ties.tie_groups == 3


def test_trec10_in_an_all_vs_all_matrix_compares_as_double():
    from metrics.ranking.allvsall import relevant_ranks
    scores = np.array([[9.0, 0.5000000001, 0.5], [0.5, 9.0, 0.5000000001],
                       [0.5000000001, 0.5, 9.0]])
    labels, ids = ["A", "A", "B"], ["x", "y", "z"]
    # query x: y (0.5000000001) beats z (0.5) as doubles; as float32 they tie and z (id
    # descending) comes first
    assert relevant_ranks(scores, labels, ids, TiePolicy.TREC10).sorted_ranks()[0, 0] == 1
    assert relevant_ranks(scores, labels, ids, TiePolicy.TREC9).sorted_ranks()[0, 0] == 2


def test_unknown_tie_policy():
    # names are parsed at the door (judge, the command line, the dashboard), not by rank_run
    with pytest.raises(InputError, match="use one of stable, id, trec9, trec10"):
        judge(TIED, GroundTruth.from_dict({"q": {"a": 1}}), "trec11")


def test_every_name_and_former_name_parses_to_one_policy():
    assert TiePolicy.parse("trec") is TiePolicy.TREC9
    assert TiePolicy.parse("expected") is TiePolicy.EXPECTED
    assert TiePolicy.parse(TiePolicy.ID) is TiePolicy.ID
    assert [p.value for p in TiePolicy] == ["stable", "id", "trec9", "trec10", "optimistic",
                                            "pessimistic", "expected"]
    assert TiePolicy.ordering_names() == ("stable", "id", "trec9", "trec10")


def test_an_unknown_policy_is_refused_once_with_the_list():
    with pytest.raises(InputError, match="unknown tie policy 'random'; use one of stable, id, "
                                         "trec9, trec10, optimistic, pessimistic, expected"):
        TiePolicy.parse("random")
    run = Run.from_dict({"q": {"a": 1.0, "b": 1.0}})
    truth = GroundTruth.from_dict({"q": {"a": 1}})
    with pytest.raises(InputError, match="unknown tie policy"):
        judge(run, truth, ties="random")


def test_what_each_policy_does():
    assert [p.tie_aware for p in TiePolicy] == [False] * 4 + [True] * 3
    assert [p.ordering for p in TiePolicy] == [TiePolicy.STABLE, TiePolicy.ID, TiePolicy.TREC9,
                                               TiePolicy.TREC10] + [TiePolicy.STABLE] * 3
    assert [p for p in TiePolicy if p.float32] == [TiePolicy.TREC9]
    assert [p for p in TiePolicy if p.id_descending] == [TiePolicy.TREC9, TiePolicy.TREC10]
    assert [p for p in TiePolicy if p.reorders] == [TiePolicy.OPTIMISTIC, TiePolicy.PESSIMISTIC]


def test_the_former_name_ranks_as_trec9():
    # 0.1 and 0.1 + 1e-9 differ as doubles, tie as float32: trec9 breaks the tie by id descending
    run = Run.from_dict({"q": {"a": 0.1 + 1e-9, "b": 0.1}})
    truth = GroundTruth.from_dict({"q": {"a": 1, "b": 0}})
    for name in ("trec", "trec9"):
        judged = judge(run, truth, ties=name)
        assert judged.hit_ranks[judged.hit_grades == 1].tolist() == [2], name
    judged = judge(run, truth, ties="trec10")
    assert judged.hit_ranks[judged.hit_grades == 1].tolist() == [1]


def test_the_command_line_offers_every_policy_with_its_description():
    done = subprocess.run([sys.executable, "-m", "metrics", "evaluate", "-h"], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    help_text = " ".join(done.stdout.split())
    for policy in TiePolicy:
        assert policy.value in help_text
        assert " ".join(policy.description.split())[:40] in help_text, policy
    assert "trec is trec9's former name" in help_text


def test_the_dashboard_help_names_only_the_policies_it_offers():
    text = TiePolicy.help_text(TiePolicy.orderings())
    assert all(p.value in text for p in TiePolicy.orderings())
    assert "optimistic" not in text and "expected" not in text
    assert np.all([p.description in TiePolicy.help_text() for p in TiePolicy])


def test_trec9_scores_beyond_float32_become_infinities_without_a_warning(tmp_path, capsys):
    # issue 42, item 17: --ties trec9 with a score of 1e308 printed NumPy's RuntimeWarning
    # "overflow encountered in cast"; trec_eval's cast to float makes it inf, silently
    import warnings

    from metrics.cli import main

    run, qrels = tmp_path / "a.run", tmp_path / "q.qrels"
    run.write_text("q1 Q0 d1 1 1e308 s\nq1 Q0 d2 2 -1e308 s\nq1 Q0 d3 3 5 s\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d2 1\n")
    with warnings.catch_warnings():
        warnings.simplefilter("error")
        assert main(["evaluate", str(run), str(qrels), "--ties", "trec9", "-m", "AP",
                     "-f", "json"]) == 0
    # by hand: d1 (inf) first, d3 (5) second, d2 (-inf) third: AP = (1/1 + 2/3) / 2
    import json
    assert json.loads(capsys.readouterr().out)["aggregate"]["AP"] == pytest.approx(5 / 6)
