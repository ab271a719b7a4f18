"""What the dashboard shows about one query (metrics/inspect.py, curves drawn from fewer points),
checked against brute force over the raw files."""

import numpy as np
import pandas as pd
import pytest

from metrics.evaluation.curves import drawn_ranks, rank_curves
from metrics.explain.summaries import failure_report, query_table, unjudged_in_top
from oracles import covers_by_hand
from metrics.loaders import load_qrels
from metrics.ranking.pipelines import judge_run_file
from metrics.explain.samples import SAMPLES, load_sample, sample_metadata


def _random_pair(tmp_path, seed):
    """Two runs and qrels over the same queries, written as files, and the same as dicts."""
    rng = np.random.default_rng(seed)
    runs, qrels = {}, {}
    for q in range(6):
        pool = [f"d{i}" for i in range(40)]
        qrels[f"q{q}"] = {d: int(rng.integers(0, 3)) for d in rng.choice(pool, 20, replace=False)}
        for name in ("a", "b"):
            listed = list(rng.choice(pool, int(rng.integers(1, 25)), replace=False))
            runs.setdefault(name, {})[f"q{q}"] = listed
    qrels["q0"]["zz_never_listed"] = 2
    for name, lists in runs.items():
        (tmp_path / f"{name}.run").write_text("".join(
            f"{q} Q0 {d} {r + 1} {100 - r} {name}\n" for q, items in lists.items()
            for r, d in enumerate(items)))
    (tmp_path / "t.qrels").write_text("".join(
        f"{q} 0 {d} {g}\n" for q, judged in qrels.items() for d, g in judged.items()))
    truth = load_qrels(tmp_path / "t.qrels")
    judged = {n: judge_run_file(tmp_path / f"{n}.run", truth) for n in runs}
    return runs, qrels, judged


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("threshold,cutoff", [(1, 5), (2, 10), (1, 1)])
def test_failure_report_against_brute_force(tmp_path, seed, threshold, cutoff):
    runs, qrels, judged = _random_pair(tmp_path, seed)
    a, b = judged["a"], judged["b"]
    for q, query_id in enumerate(a.query_ids):
        report = failure_report(a, q, threshold, other=b, other_name="b")
        listed, truth = runs["a"][query_id], qrels[query_id]
        relevant = {d for d, g in truth.items() if g >= threshold}
        missed = sorted(relevant - set(listed), key=lambda d: (-truth[d], d))
        assert report.missed["item"].tolist() == missed
        assert report.missed["grade"].tolist() == [truth[d] for d in missed]
        other = runs["b"][query_id]
        assert [None if pd.isna(r) else int(r) for r in report.missed["rank in b"]] == \
            [other.index(d) + 1 if d in other else None for d in missed]
        assert report.num_relevant == len(relevant)
        assert report.found == len(relevant & set(listed))
        first = [r + 1 for r, d in enumerate(listed) if d in relevant]
        assert report.first_relevant == (first[0] if first else None)
        top = listed[:cutoff]
        assert unjudged_in_top(a, q, cutoff) == (len(top), sum(d not in truth for d in top))
        # every relevant item by name, its rank here (None: not retrieved) and in b, its grade:
        # those of the list by rank, then the missed ones as above (issue 40, defect 9)
        ranked = [(d, r + 1) for r, d in enumerate(listed) if d in relevant]
        everyone = ranked + [(d, None) for d in missed]
        rows = report.relevant
        assert rows["item"].tolist() == [d for d, _ in everyone]
        assert [None if pd.isna(r) else int(r) for r in rows["rank"]] == [r for _, r in everyone]
        assert rows["grade"].tolist() == [truth[d] for d, _ in everyone]
        assert [None if pd.isna(r) else int(r) for r in rows["rank in b"]] == \
            [other.index(d) + 1 if d in other else None for d, _ in everyone]
        # what a top K misses: below it by rank, then not retrieved
        below = [(d, r) for d, r in everyone if r is None or r > cutoff]
        at_k = report.missed_at(cutoff)
        assert at_k["item"].tolist() == [d for d, _ in below]
        assert [None if pd.isna(r) else int(r) for r in at_k["rank"]] == [r for _, r in below]


def test_failure_report_without_item_ids_and_with_whole_collection_judged():
    serra = load_sample("serra")["answer sets"]
    report = failure_report(serra, 1)
    assert not report.missed_ids_known and report.missed.empty
    # A2: relevant at ranks 1, 2, 3, 5 of R_q = 7 (Table 1 as every row of Table 2 reads it)
    assert (report.num_relevant, report.found, report.first_relevant) == (7, 4, 1)
    covers = load_sample("covers")["system_a"]         # labels judge every item: none unjudged
    assert unjudged_in_top(covers, 0, 50) == (50, 0)
    assert failure_report(covers, 0).missed.empty   # all-vs-all: every item is in every list


def test_the_covers_failing_query_names_its_relevant_item_and_the_other_systems_rank():
    # brute force from the sample's files (tests/oracles.py): c0047's clique-mate, ranked by
    # each system's row of the similarity matrix
    by_hand = {s: covers_by_hand(s) for s in ("system_a", "system_b")}
    q = by_hand["system_a"].index.get_loc("c0047")
    mates = by_hand["system_a"].at["c0047", "mates"]
    ranks = {s: by_hand[s].at["c0047", "rank"] for s in by_hand}
    data = load_sample("covers")
    report = failure_report(data["system_a"], q, 1, data["system_b"], "system_b")
    assert report.relevant["item"].tolist() == mates
    assert report.relevant["rank"].tolist() == [ranks["system_a"][d] for d in mates]
    assert report.relevant["rank in system_b"].tolist() == [ranks["system_b"][d] for d in mates]
    assert report.missed_at(4)["item"].tolist() == [d for d in mates if ranks["system_a"][d] > 4]


def test_query_texts_of_the_text_to_music_sample():
    # the text the explorer shows above a query: the text column of the sample's query table
    texts = sample_metadata("text2music")[1]["text"]
    ids = load_sample("text2music")["model_a"].query_ids
    assert set(ids) <= set(texts.index) and all(texts[q].strip() for q in ids)
    assert all(sample_metadata(key)[1] is None or "text" not in sample_metadata(key)[1]
               for key in SAMPLES if key != "text2music")


@pytest.mark.parametrize("key", ["fmp", "instruments", "covers", "text2music", "serra"])
def test_a_page_of_the_ranked_table_is_those_rows_of_the_whole(key):
    for judged in load_sample(key).values():
        for q in range(min(3, judged.num_queries)):
            whole = query_table(judged, q)
            for first, stop in [(0, 3), (2, 7), (len(whole) - 2, len(whole) + 5)]:
                page = query_table(judged, q, first=first, stop=stop)
                pd.testing.assert_frame_equal(
                    page, whole.iloc[first:stop].reset_index(drop=True))


def test_drawn_ranks_keep_every_corner_of_the_pr_curve():
    rng = np.random.default_rng(5)
    chi = (rng.random(50_000) < 0.002).astype(float)
    keep = drawn_ranks(chi, max_points=1000)
    assert len(keep) <= 1000 and keep[0] == 0 and keep[-1] == len(chi) - 1
    hits = np.flatnonzero(chi)
    assert set(hits) <= set(keep) and set(hits[hits > 0] - 1) <= set(keep)
    # drawn through the kept points, the curve is the full one: between two kept points recall
    # is constant (a vertical segment) or the points are neighbours
    tp = np.cumsum(chi)
    for x, y in zip(keep[:-1], keep[1:]):
        assert y == x + 1 or tp[y] == tp[x]
    assert len(drawn_ranks(chi[:300])) == 300                # short lists: every point
    many = np.ones(10_000)
    assert len(drawn_ranks(many, max_points=1000)) <= 1000   # too many hits: thinned


def test_drawn_curve_of_a_long_list_matches_the_full_curve_at_its_points(tmp_path):
    n = 30_000
    (tmp_path / "r.run").write_text("".join(f"q Q0 d{i} {i + 1} {n - i} s\n" for i in range(n)))
    (tmp_path / "q.qrels").write_text("".join(f"q 0 d{i} 1\n" for i in (3, 77, 29_000)))
    judged = judge_run_file(tmp_path / "r.run", load_qrels(tmp_path / "q.qrels"))
    curves = rank_curves(judged, 0)
    keep = drawn_ranks(curves.chi, max_points=100)
    assert keep.tolist() == [0, 2, 3, 76, 77, 28_999, 29_000, n - 1]
    assert curves.precision[keep][2] == 1 / 4 and curves.recall[keep][-1] == 1.0


@pytest.mark.parametrize("seed", range(5))
def test_exact_interpolated_precision_against_brute_force(tmp_path, seed):
    from metrics.evaluation.curves import exact_interpolated_precision

    runs, qrels, judged = _random_pair(tmp_path, seed)
    a = judged["a"]
    for q in range(a.num_queries):
        curves = rank_curves(a, q)
        if not a.num_relevant()[q]:
            continue
        p, r = curves.precision, curves.recall
        brute = [max(p[j] for j in range(len(p)) if r[j] >= r[i] - 1e-12) for i in range(len(p))]
        assert exact_interpolated_precision(curves) == pytest.approx(brute)


def _roc_at(fpr_points, tpr_points, f):
    """Brute force: the highest TPR the drawn ROC polyline reaches at FPR f."""
    best = 0.0
    for (x0, y0), (x1, y1) in zip(zip(fpr_points, tpr_points),
                                  zip(fpr_points[1:], tpr_points[1:])):
        if x0 - 1e-12 <= f <= x1 + 1e-12:
            y = y1 if x1 - x0 < 1e-15 else y0 + (y1 - y0) * (f - x0) / (x1 - x0)
            best = max(best, y)
    return best


@pytest.mark.parametrize("seed", range(3))
def test_mean_roc_against_the_average_of_the_drawn_curves(tmp_path, seed):
    from metrics.evaluation.curves import mean_roc, roc_curve

    runs, qrels, judged = _random_pair(tmp_path, seed)
    truth = load_qrels(tmp_path / "t.qrels")
    a = judge_run_file(tmp_path / "a.run", truth, collection_size=60)
    grid, mean = mean_roc(a, 1, grid_points=41)
    usable = [q for q in range(a.num_queries) if a.num_relevant()[q] > 0]
    curves = [roc_curve(a, q) for q in usable]
    brute = [np.mean([_roc_at(c.fpr, c.tpr, f) for c in curves]) for f in grid]
    assert mean == pytest.approx(brute)
    assert mean[0] >= 0 and mean[-1] == pytest.approx(1.0)


def test_a_tie_group_crossing_a_page_edge_keeps_its_ranks_in_the_whole_list():
    from metrics import GroundTruth, Run, judge

    scores = [5, 4, 4, 4, 4, 3, 2, 2]               # ranks 2–5 and 7–8 tie
    run = Run.from_dict({"q": {f"d{i}": float(s) for i, s in enumerate(scores)}})
    judged = judge(run, GroundTruth.from_dict({"q": {"d0": 1}}))
    page = query_table(judged, 0, first=2, stop=4)    # ranks 3 and 4: inside the group
    assert page["tied ranks"].tolist() == ["2–5", "2–5"]
    page = query_table(judged, 0, first=4, stop=7)    # ranks 5, 6, 7
    assert page["tied ranks"].tolist() == ["2–5", "", "7–8"]
