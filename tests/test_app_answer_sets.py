"""The Answer sets page (AppTest): Serrà's answer sets beside the paper's printed table, the
agreement of the measures, and answer sets that cannot add up."""

import pytest

from apptest import app, chart_figures, grid_text


def _preferred_order(at):
    return next(box for box in at.text_input if box.label.startswith("Your preferred order"))


def test_answer_sets_page_shows_paper_beside_ours():
    # at.dataframe[0] is the answer-set editor, [1] Table 2 computed, [2] as printed, [3] the
    # agreement
    at = app("pages/answer_sets.py")
    computed, printed = at.dataframe[1].value, at.dataframe[2].value
    assert list(computed.columns) == list(printed.columns) == [f"A{i}" for i in range(1, 7)]
    assert computed.loc["FN", "A6"] == 4 and printed.loc["FN", "A6"] == 14
    assert computed.loc["bpref", "A1"] == pytest.approx(-2.0)
    errata = " ".join(m.value for m in at.markdown)
    assert "FN, A6" in errata and "Specificity, A1" in errata
    assert "bpref = BprefUncapped" in " ".join(c.value for c in at.caption)


def test_answer_sets_curves_name_their_means():
    import json

    at = app("pages/answer_sets.py")
    assert not at.exception
    names = [t.get("name") for figure in chart_figures(at) for t in figure["data"]]
    assert "mean: answer sets" in names and "mean interpolated: answer sets" in names
    assert not any(n and n.endswith(": mean") for n in names), names
    assert [n for n in names if n in {f"A{i}" for i in range(1, 7)}] == [
        f"A{i}" for i in range(1, 7)] * 2     # each answer set in both figures


def test_answer_sets_counts_are_whole_numbers():
    at = app("pages/answer_sets.py")
    for frame in at.dataframe[1:3]:
        shown = grid_text(frame)
        assert shown.loc["TN", "A1"] == "2040" and shown.loc["FP", "A1"] == "13"
        assert shown.loc["Accuracy", "A1"] == "0.994"   # the rates keep three decimals


def test_answer_sets_agreement_puts_the_bpref_variants_first():
    at = app("pages/answer_sets.py")
    agreement = at.dataframe[3].value
    assert set(agreement["measure"][:2]) == {"bpref-10", "bpref*"}
    assert agreement["Kendall τ"][:2].tolist() == pytest.approx([1.0, 1.0])
    _preferred_order(at).set_value("A6, A5, A4, A3, A2, A1").run()
    reversed_order = at.dataframe[3].value
    assert reversed_order["measure"].iloc[-1] in ("bpref-10", "bpref*")
    assert reversed_order["Kendall τ"].iloc[-1] == pytest.approx(-1.0)


def test_answer_sets_without_the_papers_collection_size_hide_the_paper():
    at = app("pages/answer_sets.py")
    at.number_input(key="answer_collection_size").set_value(5000).run()
    assert len(at.dataframe) == 3   # editor, computed, agreement: no printed table
    table = at.dataframe[1].value
    assert table.loc["TN", "A1"] == 5000 - 14


def _no_negative_count(at) -> None:
    for frame in at.dataframe[1:]:
        counts = frame.value.loc[[r for r in ("TP", "FP", "FN", "TN") if r in frame.value.index]]
        assert (counts.to_numpy(dtype=float) >= 0).all(), counts


def _edit_answer_sets(edits: dict, size: int | None = None):
    at = app("pages/answer_sets.py")
    at.session_state["answer_sets_editor"] = {"edited_rows": edits, "added_rows": [],
                                              "deleted_rows": []}
    if size is not None:
        at.number_input(key="answer_collection_size").set_value(size)
    return at.run()


@pytest.mark.parametrize("edits,size,message", [
    ({0: {"num_relevant": 1_000_000}}, None,
     "answer set A1: R_q = 1,000,000 is larger than the collection |D| = 2,054"),
    # 2,050 relevant and the list's 13 non-relevant items do not fit in 2,054: TN would be −9
    ({0: {"num_relevant": 2_050}}, None, "answer set A1: R_q = 2,050 relevant items and the "
                                         "list's 13 non-relevant ones are 2,063 items"),
    ({1: {"num_relevant": 3}}, None, "answer set A2: the list has 4 relevant items but R_q is 3"),
    ({0: {"num_relevant": 10**18}}, None, "answer set A1: R_q = 1,000,000,000,000,000,000 is "
                                          "beyond 9,007,199,254,740,991"),
    ({}, 10, "|A| = 14 is larger than the collection |D| = 10"),
    ({5: {"answer_set": "A1"}}, None, "the name 'A1' is given twice"),
])
def test_answer_sets_that_cannot_add_up_are_refused_with_what_to_fix(edits, size, message):
    # before: TN −997,959 and Accuracy −485.9 for an R_q of 10^6 (TP + FN + FP + TN = |D|
    # broken), a MemoryError for 10^15
    at = _edit_answer_sets(edits, size)
    assert not at.exception, at.exception
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    assert message in shown, shown
    assert len(at.dataframe) == 1        # the editor only: no table of impossible counts


def test_answer_sets_with_an_r_q_of_10_to_the_15_are_counted_not_allocated():
    # |D| = 2·10^15, R_q(A1) = 10^15, A1 relevant at rank 4 of 14: TP = 1, FP = 13,
    # FN = 10^15 − 1, TN = |D| − |A| − FN = 2·10^15 − 14 − (10^15 − 1) = 10^15 − 13
    at = _edit_answer_sets({0: {"num_relevant": 10**15}}, 2 * 10**15)
    assert not at.exception and not at.error, [e.value for e in at.error]
    table = at.dataframe[1].value
    assert table.loc[["TP", "FP", "FN", "TN"], "A1"].tolist() == [1, 13, 10**15 - 1, 10**15 - 13]
    _no_negative_count(at)
