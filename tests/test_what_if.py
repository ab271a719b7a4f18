""""What if" edits of one query (metrics.explain.what_if) against pytrec_eval on the edited
ranking: the edited run and qrels are built here from dicts, independently of the engine."""

import numpy as np
import pytest
import pytrec_eval

from metrics import GroundTruth, InputError, Run, judge
from metrics.explain.summaries import failure_report
from metrics.explain.what_if import apply_edits, parse_edits, what_if

# trec_eval's names -> ours (as tests/test_oracles.py)
TREC_TO_OURS = {"map": "AP", "P_4": "P@4", "P_5": "P@5", "recall_5": "R@5", "recip_rank": "RR",
                "Rprec": "Rprec", "ndcg": "nDCG", "ndcg_cut_10": "nDCG@10",
                "num_rel": "NumRel", "num_rel_ret": "NumRelRet"}
REQUEST = {"map", "P.4,5", "recall.5", "recip_rank", "Rprec", "ndcg", "ndcg_cut.10", "num_rel",
           "num_rel_ret"}

# FMP C7S3's toy 1: items in rank order, relevant (grade 1) at ranks 1, 2, 4 and 8
TOY1 = ["9", "2", "6", "8", "3", "10", "5", "7", "4", "1"]
TOY1_RELEVANT = {"9", "2", "8", "7"}


def edited_by_hand(items: list[str], qrels: dict[str, int], edits: list[tuple]):
    """The edits applied to a list of ids and a qrels dict, as a lecturer would by hand."""
    items, qrels = list(items), dict(qrels)
    for kind, rank, value in edits:
        if kind == "g":
            qrels[items[rank - 1]] = value
        else:
            items.insert(value - 1, items.pop(rank - 1))
    return items, qrels


def trec(items: list[str], qrels: dict[str, int]) -> dict[str, float]:
    run = {"q": {item: float(len(items) - i) for i, item in enumerate(items)}}
    values = pytrec_eval.RelevanceEvaluator({"q": qrels}, REQUEST).evaluate(run)["q"]
    return {ours: values[name] for name, ours in TREC_TO_OURS.items()}


def ours(items, qrels, text: str, query: int = 0, other: dict | None = None):
    run = {"q": {item: float(len(items) - i) for i, item in enumerate(items)}}
    truth = {"q": qrels}
    if other:   # a second query before or after, so that the query's index matters
        run.update({q: r for q, (r, _) in other.items()})
        truth.update({q: t for q, (_, t) in other.items()})
    judged = judge(Run.from_dict(run), GroundTruth.from_dict(truth))
    q = list(judged.query_ids).index("q")
    return what_if(judged, q, parse_edits(text), ",".join(TREC_TO_OURS.values()))


def test_fmp_toy1_edited_agrees_with_pytrec_eval():
    qrels = {item: int(item in TOY1_RELEVANT) for item in TOY1}   # every document judged
    # judge rank 3 relevant, then move rank 8 (item 7) up to rank 5
    result = ours(TOY1, qrels, "g3:1,m8:5")
    items, edited = edited_by_hand(TOY1, qrels, [("g", 3, 1), ("m", 8, 5)])
    assert items == ["9", "2", "6", "8", "7", "3", "10", "5", "4", "1"]
    expected = trec(items, edited)
    assert expected["AP"] == 1.0     # relevant at ranks 1–5 of R_q = 5
    assert result.after == pytest.approx(expected, abs=1e-12)
    assert result.before == pytest.approx(trec(TOY1, qrels), abs=1e-12)
    assert result.change("AP") == pytest.approx(1.0 - 0.8125)    # FMP: AP of toy 1 = 0.8125


def test_no_edit_is_the_query_as_it_is():
    qrels = {item: int(item in TOY1_RELEVANT) for item in TOY1}
    result = ours(TOY1, qrels, "")
    assert result.after == result.before == pytest.approx(trec(TOY1, qrels), abs=1e-12)


@pytest.mark.parametrize("seed", range(6))
def test_random_edits_of_graded_lists_agree_with_pytrec_eval(seed):
    rng = np.random.default_rng(seed)
    n = int(rng.integers(5, 30))
    items = [f"d{i}" for i in rng.permutation(60)[:n]]
    # some retrieved items judged (grades 0–3), some unjudged, and relevant items never retrieved
    qrels = {item: int(rng.integers(0, 4)) for item in items if rng.random() < 0.6}
    qrels.update({f"missed{i}": int(rng.integers(1, 4)) for i in range(int(rng.integers(0, 3)))})
    if not any(g > 0 for g in qrels.values()):
        qrels["missed_x"] = 2
    edits = []
    for _ in range(int(rng.integers(1, 6))):
        if rng.random() < 0.5:
            edits.append(("g", int(rng.integers(1, n + 1)), int(rng.integers(0, 4))))
        else:
            edits.append(("m", int(rng.integers(1, n + 1)), int(rng.integers(1, n + 1))))
    text = ",".join(f"{k}{r}:{v}" for k, r, v in edits)
    other = {"a": ({"x1": 2.0, "x2": 1.0}, {"x2": 1}), "z": ({"y1": 1.0}, {"y1": 0, "y2": 3})}
    result = ours(items, qrels, text, other=other)
    edited_items, edited_qrels = edited_by_hand(items, qrels, edits)
    expected = trec(edited_items, edited_qrels)
    if expected["NumRel"] == 0:   # everything judged not relevant: our measures are undefined
        assert all(np.isnan(v) for m, v in result.after.items() if m not in ("NumRel",))
        return
    assert result.after == pytest.approx(expected, abs=1e-12), text
    shown = result.edited.ranked_list(0)[0].tolist()
    assert shown == edited_items


def test_edits_are_applied_in_order():
    judged = judge(Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}}),
                   GroundTruth.from_dict({"q": {"c": 1}}))
    # move c (rank 3) to the top, then judge the item now at rank 3 (b) relevant
    edited = apply_edits(judged, 0, parse_edits("m3:1,g3:1"))
    assert edited.ranked_list(0)[0].tolist() == ["c", "a", "b"]
    assert edited.hit_ranks.tolist() == [1, 3] and int(edited.num_relevant()[0]) == 2


@pytest.mark.parametrize("text,message", [
    ("x3:1", "'x3:1', is not g<rank>:<grade>"),
    ("g3", "is not g<rank>:<grade>"),
    ("g3:-1", "is not g<rank>:<grade>"),
    ("g3:1,,m1:2", "edit 2, '', is not"),
    ("g11:1", "rank 11 is not in the list, which has ranks 1 to 10"),
    ("m0:1", "rank 0 is not in the list"),
    ("m2:12", "moves the item to rank 12, but the list has ranks 1 to 10"),
    ("g1:99999999999", "grade 99999999999 is above"),
    # issue 42, item 17: digits other than 0-9 (int() reads them), numbers int() refuses
    ("g\uff13:1", "is not g<rank>:<grade> .* in the digits 0-9"),
    ("m\u0663:\u0661", "is not g<rank>:<grade>"),
    ("g" + "1" * 5000 + ":1", "a rank of more than 18 digits is in no list"),
    ("g1:" + "1" * 5000, "a grade of 5,000 digits is above"),
])
def test_an_edit_that_cannot_be_applied_says_which_and_why(text, message):
    judged = judge(Run.from_dict({"q": {item: float(10 - i) for i, item in enumerate(TOY1)}}),
                   GroundTruth.from_dict({"q": {"9": 1}}))
    with pytest.raises(InputError, match=message.replace("(", r"\(").replace("<", "<")):
        apply_edits(judged, 0, parse_edits(text))


def test_the_failure_report_of_an_edited_list_describes_the_edited_list():
    # toy 1 with two relevant items never retrieved ("11", "12"); rank 2 (item "2", relevant)
    # judged not relevant, rank 3 (item "6") judged relevant, then rank 8 (item "7") moved to
    # rank 1. By hand: the list is 7 9 2 6 8 3 10 5 4 1, relevant 7 9 6 8 at ranks 1, 2, 4, 5;
    # R_q = 6 - 1 + 1 = 6, so 2 are missed, and they are the never-retrieved 11 and 12 ("2" is
    # still in the list, judged not relevant: neither found nor missed)
    qrels = {item: int(item in TOY1_RELEVANT) for item in TOY1} | {"11": 1, "12": 2}
    judged = judge(Run.from_dict({"q": {item: float(10 - i) for i, item in enumerate(TOY1)}}),
                   GroundTruth.from_dict({"q": qrels}))
    edited = apply_edits(judged, 0, parse_edits("g2:0,g3:1,m8:1"))
    report = failure_report(edited, 0)
    assert (report.num_relevant, report.found, report.first_relevant) == (6, 4, 1)
    assert report.missed["item"].tolist() == ["12", "11"]       # highest grade first
    assert report.num_missed == len(report.missed) == 2
    assert report.judged_nonrelevant == 6        # 6 judged 0, "2" in and "6" out
    before = failure_report(judged, 0)
    assert (before.num_relevant, before.found, before.first_relevant) == (6, 4, 1)
    assert before.missed["item"].tolist() == ["12", "11"]
    # made not relevant, the only relevant item at rank 1 leaves the list starting without one
    first = failure_report(apply_edits(judged, 0, parse_edits("g1:0")), 0)
    assert (first.num_relevant, first.found, first.first_relevant) == (5, 3, 2)
    assert first.missed["item"].tolist() == ["12", "11"] and first.fails
