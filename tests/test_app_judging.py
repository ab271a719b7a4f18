"""Judging in the Query explorer (issue 44): the holes of the text-to-music sample's top K judged
through the panel's buttons, stored in a real SQLite file, and every number of the query
following the grown ground truth, as pytrec_eval computes it on the merged qrels."""

from __future__ import annotations

import hashlib
import json
import sqlite3

import pandas as pd
import pytest

from apptest import app
from oracles import (TEXT2MUSIC, judged_and_ap_by_pytrec_eval, text2music_by_numpy,
                     text2music_qrels_with)

QUERY, SYSTEM, K = "t001", "model_a", 10


@pytest.fixture
def store(tmp_path, monkeypatch):
    """A judgments database of the test's own (the server's --judgments, by its variable)."""
    target = tmp_path / "judgments.sqlite"
    monkeypatch.setenv("MRE_JUDGMENTS", str(target))
    return target


def _explorer(**state):
    return app("pages/explorer.py", sample="text2music", query=QUERY, system=SYSTEM, cutoff=K,
               measures="AP,nDCG@10", judge="alice", **state)


def _before_and_now(at) -> pd.DataFrame:
    [table] = [d.value for d in at.dataframe if "before judging" in d.value.columns]
    return table.set_index("measure")


def _queue(at) -> list[str]:
    """The queue's items in the order shown (each line starts with its number)."""
    lines = [m.value for m in at.markdown if m.value.lstrip("▶ ").startswith("**")
             and " · " in m.value and ("unjudged" in m.value or "judged " in m.value)]
    return [line.split("** ", 1)[1].split(" · ")[0].replace("\\", "") for line in lines]


def _ranked_list(at) -> pd.DataFrame:
    [table] = [d.value for d in at.dataframe if "judging" in getattr(d.value, "columns", [])]
    return table.data if hasattr(table, "data") else table


def test_judging_grows_the_ground_truth_and_every_number_follows_pytrec_eval(store):
    qrels_file = (TEXT2MUSIC / "qrels.csv").read_bytes()
    at = _explorer()
    assert not at.exception and not at.error
    queue = _queue(at)
    run = text2music_by_numpy(SYSTEM)
    top = sorted(run[QUERY], key=lambda i: -run[QUERY][i])[:K]
    # the queue holds the unjudged items of both models' top 10, this model's among them
    original = text2music_qrels_with({})
    assert set(top) - set(original[QUERY]) <= set(queue)
    table = _before_and_now(at)
    judged, ap = judged_and_ap_by_pytrec_eval(run, original, QUERY, K)
    assert table.at[f"Judged@{K}", "now"] == pytest.approx(judged)
    assert table.at["AP", "now"] == pytest.approx(ap)

    given: dict[tuple[str, str], int] = {}
    in_top = [i for i in queue if i in top][:3]
    for item, grade in zip(in_top, (2, 0, 1)):
        at.button(key=f"judge_{queue.index(item)}_grade_{grade}").click().run()
        assert not at.exception and not at.error
        given[(QUERY, item)] = grade
        merged = text2music_qrels_with(given)
        judged, ap = judged_and_ap_by_pytrec_eval(run, merged, QUERY, K)
        table = _before_and_now(at)
        assert table.at[f"Judged@{K}", "now"] == pytest.approx(judged)
        assert table.at["AP", "now"] == pytest.approx(ap)
        # before judging: the file's ground truth, unchanged
        assert table.at["AP", "before judging"] == pytest.approx(
            judged_and_ap_by_pytrec_eval(run, original, QUERY, K)[1])
    assert judged == pytest.approx(judged_and_ap_by_pytrec_eval(run, original, QUERY, K)[0]
                                   + 3 / K)   # Judged@10 rose by the three judged
    # the ranked list marks what is judged now and what is left to judge in the top K
    ranked = _ranked_list(at)
    marks = dict(zip(ranked["item"], ranked["judging"]))
    assert {i for i, m in marks.items() if m == "judged now"} == set(in_top)
    assert {i for i, m in marks.items() if m == "to judge"} == \
        set(top) - set(original[QUERY]) - set(in_top)
    # stored with the judge's name and the pool; the ground-truth file is never written
    rows = sqlite3.connect(store).execute(
        "select dataset, query, item, grade, judge, pool from judgments order by id").fetchall()
    dataset = hashlib.sha256(qrels_file).hexdigest()
    assert rows == [(dataset, QUERY, item, grade, "alice", f"explorer top {K} of model_a, "
                     "model_b") for (_, item), grade in given.items()]
    assert (TEXT2MUSIC / "qrels.csv").read_bytes() == qrels_file
    # another session (a fresh page on the same database) shows the grown truth too
    again = _explorer()
    assert _before_and_now(again).at["AP", "now"] == pytest.approx(ap)
    assert any("grown by 3 stored judgments" in c.value for c in again.sidebar.caption)


def test_judging_again_keeps_the_history_and_the_latest_counts(store):
    at = _explorer()
    item = _queue(at)[0]
    at.button(key="judge_0_grade_2").click().run()
    at.button(key="judge_0_grade_0").click().run()
    assert not at.exception and not at.error
    rows = sqlite3.connect(store).execute("select item, grade from judgments").fetchall()
    assert rows == [(item, 2), (item, 0)]
    run = text2music_by_numpy(SYSTEM)
    _, ap = judged_and_ap_by_pytrec_eval(run, text2music_qrels_with({(QUERY, item): 0}), QUERY, K)
    assert _before_and_now(at).at["AP", "now"] == pytest.approx(ap)


def test_a_judgment_that_cannot_be_stored_says_so_and_nothing_applies(tmp_path, monkeypatch):
    monkeypatch.setenv("MRE_JUDGMENTS", str(tmp_path / "no such folder" / "j.sqlite"))
    at = _explorer()
    before = _before_and_now(at)
    at.button(key="judge_0_grade_2").click().run()
    assert not at.exception
    [error] = [e.value for e in at.error]
    assert error.startswith("not stored: ") and "does not exist" in error
    after = _before_and_now(at)
    pd.testing.assert_frame_equal(before, after)
    assert (after["change"] == "0").all()


def test_a_dataset_without_qrels_has_no_judging_panel(store):
    at = app("pages/explorer.py", sample="covers", cutoff=10)
    assert not at.exception and not at.error
    assert not [b for b in at.button if str(b.key).startswith("judge_")]
    assert not store.exists()   # reading creates no database


def test_the_database_is_named_at_start_up_or_in_the_data_folder():
    from dashboard.judging import judgments_target

    assert judgments_target(["--judgments", "team.sqlite"], {}) == "team.sqlite"
    assert judgments_target(["--judgments=postgresql://u@h/db"], {}) == "postgresql://u@h/db"
    assert judgments_target([], {"MRE_JUDGMENTS": "x.sqlite"}) == "x.sqlite"
    assert judgments_target([], {"XDG_DATA_HOME": "/data"}) == \
        "/data/music-retrieval-evaluation/judgments.sqlite"


# ---- the agreement panel (Leaderboard) ------------------------------------------------------------

def _metrics(at) -> dict[str, str]:
    return {m.label: m.value for m in at.metric}


def _kappas_by_sklearn(a: dict[tuple[str, str], int], b: dict[tuple[str, str], int], rel: int):
    """Pairs judged by both, κ on grade ≥ rel and linearly weighted κ on the grades (every grade
    from the smallest to the largest either gave), by scikit-learn."""
    from sklearn.metrics import cohen_kappa_score

    both = sorted(set(a) & set(b))
    x, y = [a[p] for p in both], [b[p] for p in both]
    grades = list(range(min(x + y), max(x + y) + 1))
    return (len(both), cohen_kappa_score([g >= rel for g in x], [g >= rel for g in y]),
            cohen_kappa_score(x, y, weights="linear", labels=grades))


def _qrels_pairs(text: str) -> dict[tuple[str, str], int]:
    return {(q, i): int(g) for q, _, i, g in (line.split() for line in text.splitlines())}


def _listed_map(run_file, qrels_text: str) -> float:
    """pytrec_eval's mean map of a TREC run in the order its lines list each query's items
    (the sidebar's "stable" ties: equal scores keep the file's order), on qrels text."""
    import pytrec_eval

    qrels: dict[str, dict[str, int]] = {}
    for (query, item), grade in _qrels_pairs(qrels_text).items():
        qrels.setdefault(query, {})[item] = grade
    run: dict[str, dict[str, float]] = {}
    for line in run_file.read_text().splitlines():
        query, _, item = line.split()[:3]
        run.setdefault(query, {})[item] = -float(len(run.get(query, {})))
    values = pytrec_eval.RelevanceEvaluator(qrels, {"map"}).evaluate(run)
    return sum(v["map"] for v in values.values()) / len(values)


def test_another_judges_qrels_beside_the_ground_truth_give_the_agreement_panel(store):
    from oracles import VERSIONS

    original = (VERSIONS / "qrels.txt").read_text()
    lines = original.splitlines()
    # the other judge disagrees on every fifth pair (relevant ↔ not) and leaves out the last ten
    other = "".join((line if n % 5 else " ".join(line.split()[:3] + [
        "0" if int(line.split()[3]) else "1"])) + "\n" for n, line in enumerate(lines[:-10]))
    second = {"dataset": hashlib.sha256(original.encode()).hexdigest(), "name": "other.qrels",
              "content": other.encode()}
    at = app("pages/leaderboard.py", sample="versions", measures="AP", second_truth=second)
    assert not at.exception and not at.error
    pairs, kappa, weighted = _kappas_by_sklearn(_qrels_pairs(original), _qrels_pairs(other), 1)
    shown = _metrics(at)
    assert shown["Pairs judged by both"] == f"{pairs:,}"
    assert shown["κ on relevance (grade ≥ 1)"] == f"{kappa:.3f}"
    assert shown["Weighted κ on grades (linear)"] == f"{weighted:.3f}"
    [means] = [d.value for d in at.dataframe if "AP under other.qrels" in d.value.columns]
    for system, mean in zip(means["system"], means["AP under the ground truth"]):
        assert mean == pytest.approx(_listed_map(VERSIONS / f"{system}.run", original))
    # without a second ground truth there is no panel
    alone = app("pages/leaderboard.py", sample="versions", measures="AP")
    assert "Pairs judged by both" not in _metrics(alone)


def test_two_judges_in_the_store_give_the_agreement_panel(store):
    from metrics.judgments import Judgment, JudgmentStore

    dataset = hashlib.sha256((TEXT2MUSIC / "qrels.csv").read_bytes()).hexdigest()
    alice = {("t001", f"m{n:04d}"): n % 3 for n in range(1, 13)}
    bob = {pair: (grade if n % 4 else 2 - grade) for n, (pair, grade) in enumerate(alice.items())}
    with JudgmentStore(str(store)) as db:
        for judge, given in (("alice", alice), ("bob", bob)):
            for (query, item), grade in given.items():
                db.add(Judgment(dataset, query, item, grade, judge, "test"))
    at = app("pages/leaderboard.py", sample="text2music", measures="AP")
    assert not at.exception and not at.error
    pairs, kappa, weighted = _kappas_by_sklearn(alice, bob, 1)
    shown = _metrics(at)
    assert shown["Pairs judged by both"] == f"{pairs:,}" == "12"
    assert shown["κ on relevance (grade ≥ 1)"] == f"{kappa:.3f}"
    assert shown["Weighted κ on grades (linear)"] == f"{weighted:.3f}"


def test_the_csv_downloads_provenance_names_the_judgments_applied(store):
    from streamlit.testing.v1 import AppTest

    from metrics.judgments import Judgment, JudgmentStore

    dataset = hashlib.sha256((TEXT2MUSIC / "qrels.csv").read_bytes()).hexdigest()
    with JudgmentStore(str(store)) as db:
        db.add(Judgment(dataset, "t001", "m0001", 1, "dan", "test"))

    def script():
        import json

        import streamlit as st
        from dashboard.provenance_records import provenance_record
        from dashboard.settings import init_state
        init_state()
        st.session_state["sample"] = "text2music"
        st.text(json.dumps(provenance_record()["options"]))

    at = AppTest.from_function(script, default_timeout=60).run()
    assert not at.exception
    listed = b"t001\tm0001\t1\n"
    assert json.loads(at.text[0].value) == {"judgments": {
        "applied": 1, "sha256": hashlib.sha256(listed).hexdigest()}}


def test_a_database_that_cannot_be_read_leaves_the_files_ground_truth_and_says_so(store):
    store.write_bytes(b"this is not a database\n" * 100)
    at = _explorer()
    assert not at.exception
    notes = [c.value for c in at.sidebar.caption if "cannot be read" in c.value]
    assert notes and "the ground truth is the file" in notes[0].replace("\\", "")
    run = text2music_by_numpy(SYSTEM)
    _, ap = judged_and_ap_by_pytrec_eval(run, text2music_qrels_with({}), QUERY, K)
    assert _before_and_now(at).at["AP", "now"] == pytest.approx(ap)
    at.button(key="judge_0_grade_2").click().run()
    assert [e.value for e in at.error][0].startswith("not stored: ")
