"""Measure names are canonical: a parameter written at its default is the same measure (as
ir_measures' ``AP(rel=1) == AP``), and is printed back as the user wrote it."""

import ir_measures

from metrics import GroundTruth, Run, evaluate, judge, parse_measure, parse_measures


def test_defaults_written_out_are_the_same_measure():
    plain = parse_measure("AP")
    for written in ("AP(rel=1)", "AP(norm=rq)", "AP(norm=rq,rel=1)"):
        measure = parse_measure(written)
        assert measure == plain and hash(measure) == hash(plain), written
        assert measure.canonical == "AP"
        assert str(measure) == written          # printed back as written
    assert parse_measure("AP(rel=2)") != plain
    assert parse_measure("AP(norm=min)@10") != parse_measure("AP@10")
    assert parse_measure("DCG(form=trec)@5") == parse_measure("DCG@5")
    assert parse_measure("map") == plain and str(parse_measure("map")) == "map"
    # ir_measures agrees that these are one measure
    assert ir_measures.AP(rel=1) == ir_measures.AP


def test_results_are_keyed_by_the_name_as_written_with_equal_values():
    run = Run.from_dict({"q": {"a": 0.9, "b": 0.5, "c": 0.1}})
    truth = GroundTruth.from_dict({"q": {"b": 1, "c": 2}})
    result = evaluate(judge(run, truth), "AP,AP(rel=1),AP(rel=2)")
    values = result.aggregate()
    assert list(values) == ["AP", "AP(rel=1)", "AP(rel=2)"]
    assert values["AP"] == values["AP(rel=1)"] == (1 / 2 + 2 / 3) / 2   # hand computed
    assert values["AP(rel=2)"] == 1 / 3


def test_a_threshold_for_all_measures_keeps_a_rel_the_user_wrote():
    from metrics.measures.names import with_relevance_threshold
    measures = with_relevance_threshold(parse_measures("AP,AP(rel=1),P@5"), 2)
    assert [str(m) for m in measures] == ["AP(rel=2)", "AP(rel=1)", "P(rel=2)@5"]
