"""The Data page (AppTest): the means with their intervals and query counts, the tie notices and
report, uploads (runs, embeddings, a collection size or none) and the systems' names."""

import numpy as np
import pandas as pd
import pytest

from apptest import app, confusion_cells, upload_of
from dashboard.safe import md
from dashboard.settings import DataSource


def test_data_page_shows_the_means():
    # the grid is handed each mean as printed to four decimals: (0.8125 + 0.60833…)/2 = 0.71041…
    at = app(sample="fmp", measures="AP,BEP")
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["fmp", "AP"] == 0.7104
    assert table.loc["fmp", "BEP"] == (0.75 + 0.5) / 2


def test_bad_measure_shows_an_error_not_a_traceback():
    at = app(measures="AP,Nope@3")
    assert not at.exception
    shown = at.error[0].value.replace("\\", "")
    assert "unknown measure 'Nope'" in shown
    # the app names its own list of names, the picker beside the box, not a command
    assert "Pick a measure from the list" in shown and "python -m" not in shown


def _small_upload(collection_size):   # the system is named by the run's tag, "mine"
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} mine\n".encode() for i in range(1, 6))
    qrels = b"".join(f"q1 0 d{i} {int(i == 2)}\n".encode() for i in range(1, 7))
    return upload_of({"mine.run": run}, qrels, collection_size)


def test_an_upload_without_collection_size_says_where_to_give_it():
    at = app("pages/data.py", upload=_small_upload(None), sample="upload", measures="TN@3")
    assert not at.exception
    shown = " ".join(e.value.replace("\\", "") for e in at.error)
    assert "TN@3 needs the collection size |D|" in shown and "On the Data page" in shown
    assert "--collection-size" not in shown                # the app names its own control
    curves = app("pages/curves.py", upload=_small_upload(None), sample="upload", curve_tab="ROC")
    info = " ".join(i.value for i in curves.info)
    assert "ROC needs the collection size |D|" in info and "--collection-size" not in info
    explorer = app("pages/explorer.py", upload=_small_upload(None), sample="upload", cutoff=3)
    assert confusion_cells(explorer) == [["TP = 1", "FN = 0"],
                                         ["FP = 2", "TN = ?<br>(|D| unknown)"]]


def test_an_upload_whose_qrels_judge_every_item_has_its_collection_size():
    # six documents judged, d2 relevant, five retrieved: at K = 3 TN = 6 − 3 − 0 = 3
    at = app("pages/data.py", upload=_small_upload("judged"), sample="upload",
             measures="TN@3,Accuracy@3")
    assert not at.exception and not at.error
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["mine", "TN@3"] == 3
    assert table.loc["mine", "Accuracy@3"] == 0.6667          # 4/6, as printed
    summary = at.table[0].value            # Markdown, escaped: "|D|" is written "\|D\|"
    assert summary.loc["collection size \\|D\\|", "mine"] == "6"


def test_good_upload_is_evaluated():   # the system is named by the run's tag, "mine"
    run = b"".join(f"q1 Q0 d{i} {i} {10 - i} mine\n".encode() for i in range(1, 6))
    qrels = b"q1 0 d2 1\nq1 0 d9 1\n"
    candidate = upload_of({"mine.run": run}, qrels)
    at = app("pages/data.py", upload=candidate, sample="upload", measures="AP,RR")
    assert not at.exception and not at.error
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["mine", "AP"] == pytest.approx(0.5 / 2)
    assert table.loc["mine", "RR"] == pytest.approx(0.5)


def test_tie_notices_name_their_system():
    at = app("pages/data.py", sample="covers", measures="AP,P@10")   # ties straddle K = 10
    notices = [i.value.replace("\\", "") for i in at.info if "score ties" in i.value]
    assert len(notices) == 1 and notices[0].startswith("**system_a** — score ties")


def test_the_means_say_how_many_queries_they_average():
    # Serrà's A6 retrieves no relevant item: FirstRank is undefined there, AP is not
    at = app("pages/data.py", sample="serra", measures="AP,FirstRank")
    table = at.dataframe[0].value.set_index("system")
    assert table.loc["answer sets", "queries averaged"] == "5–6"
    assert "answer sets — FirstRank: 5 of 6" in " ".join(c.value.replace("\\", "")
                                                        for c in at.caption)
    at = app("pages/data.py", sample="serra", measures="AP")
    assert at.dataframe[0].value.set_index("system").loc["answer sets", "queries averaged"] == 6


def test_tie_report_shows_how_far_ties_move_each_query():
    from metrics import evaluate
    from metrics.explain.samples import load_sample
    from metrics.data.ties import TiePolicy
    from metrics.ranking.tie_aware import reordered
    at = app("pages/data.py", sample="covers", measures="AP,P@10")
    boxes = [e for e in at.expander if "how far tied scores can move" in e.label]
    assert len(boxes) == 1 and boxes[0].label.startswith(md("system_a"))
    moves = boxes[0].dataframe[0].value
    judged = load_sample("covers", TiePolicy.STABLE)["system_a"]
    for policy in (TiePolicy.PESSIMISTIC, TiePolicy.OPTIMISTIC):
        values = evaluate(reordered(judged, policy), "AP,P@10").per_query().set_index("query_id")
        for _, row in moves.iterrows():   # shown to four decimals
            assert row[policy] == pytest.approx(values.loc[row["query_id"], row["measure"]],
                                                abs=5e-5)
    ap = moves[moves["measure"] == "AP"]
    assert len(ap) and (ap["pessimistic"] < ap["optimistic"]).all()


def test_data_page_shows_each_mean_with_its_interval():
    closed = app(sample="covers", measures="AP,P@10")   # closed: no bootstrap on a first page
    assert not any("CI low" in d.value.columns for d in closed.main.dataframe)
    at = app(sample="covers", measures="AP,P@10", intervals_open=True)
    assert not at.exception, at.exception
    table = next(d.value for d in at.main.dataframe if "CI low" in d.value.columns)
    assert set(table["measure"]) == {"AP", "P@10"} and len(table) == 2 * table["system"].nunique()
    assert ((table["CI low"] <= table["mean"]) & (table["mean"] <= table["CI high"])).all()
    assert (table["CI low"] < table["CI high"]).all()


def _means(at) -> pd.DataFrame:
    return at.dataframe[0].value.set_index("system")


def test_an_upload_of_run_and_run_trec_gives_two_systems():
    first = b"q1 Q0 d1 1 2 a\nq1 Q0 d2 2 1 b\n"   # two tags: named by the file
    second = b"q1 Q0 d2 1 2 a\nq1 Q0 d1 2 1 b\n"
    third = b"q1 Q0 d3 1 3 a\nq1 Q0 d2 2 2 a\nq1 Q0 d1 3 1 b\n"
    # a second file named "run" (from another folder): a system of its own, not a replacement
    upload = DataSource.of_upload("runs+qrels", (
        ("runs", "run", first), ("runs", "run.trec", second), ("runs", "run", third),
        ("qrels", "q.qrels", b"q1 0 d1 1\n")), None, False, "cosine")
    at = app("pages/data.py", upload=upload, sample="upload", measures="AP")
    assert not at.exception and not at.error
    # by hand: d1, the one relevant item, at rank 1, 2 and 3
    assert _means(at)["AP"].to_dict() == {"run": 1.0, "run.trec": 0.5, "run (2)": round(1 / 3, 4)}


def _npy(array) -> bytes:
    import io
    out = io.BytesIO()
    np.save(out, np.asarray(array, dtype=np.float64))
    return out.getvalue()


def test_several_embedding_models_uploaded_at_once():
    eye = np.eye(2)
    files = (("qrels", "qrels.csv", b"query_id,item_id,relevance\nq1,d1,1\nq2,d2,1\n"),
             ("query_ids", "query_ids.txt", b"q1\nq2\n"), ("item_ids", "item_ids.txt",
                                                           b"d1\nd2\n"),
             ("query_embeddings", "good_queries.npy", _npy(eye)),
             ("query_embeddings", "bad_queries.npy", _npy(eye)),
             ("item_embeddings", "good_items.npy", _npy(eye)),
             ("item_embeddings", "bad_items.npy", _npy(eye[::-1])))
    upload = DataSource.of_upload("embeddings+qrels", files, None, False, "cosine")
    at = app("pages/data.py", upload=upload, sample="upload", measures="RR")
    assert not at.exception and not at.error
    # by hand: "good" ranks each query's relevant item first, "bad" second
    assert _means(at)["RR"].to_dict() == {"good": 1.0, "bad": 0.5}


def test_a_system_renamed_on_the_data_page_is_named_so_and_a_duplicate_is_refused():
    runs = {"run": b"q1 Q0 d1 1 2 bm25\nq1 Q0 d2 2 1 bm25\n",     # named by its tag
            "other.run": b"q1 Q0 d2 1 2 a\nq1 Q0 d1 2 1 b\n"}
    at = app("pages/data.py", upload=upload_of(runs, b"q1 0 d1 1\n"), sample="upload",
             measures="AP")
    assert list(_means(at).index) == ["bm25", "other"]
    at.text_input(key="system_name_1").input("*my* | system")
    next(b for b in at.button if b.label == "Use these names").click().run()
    assert not at.exception and not at.error
    assert _means(at)["AP"].to_dict() == {"bm25": 1.0, "*my* | system": 0.5}
    assert at.session_state["upload"].names == (("other", "*my* | system"),)
    summary = at.table[0].value
    assert md("*my* | system") in summary.columns   # shown escaped, as written
    compare = app("pages/compare.py", upload=at.session_state["upload"], sample="upload",
                  measures="AP")
    assert not compare.exception
    assert "*my* | system" in [o for box in compare.selectbox for o in box.options]
    at.text_input(key="system_name_1").input("bm25")
    next(b for b in at.button if b.label == "Use these names").click().run()
    assert any("the name 'bm25' is given to 2 systems" in e.value for e in at.error)
    assert list(_means(at).index) == ["bm25", "*my* | system"]    # unchanged
    at.text_input(key="system_name_0").input("  ")
    next(b for b in at.button if b.label == "Use these names").click().run()
    assert any("the name of 'bm25' is empty" in e.value for e in at.error)
