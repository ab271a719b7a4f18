"""Measures by group of queries (metrics/evaluation/groups.py and group_stats.py, ``--group-by``):
group means against pytrec_eval's per-query values, the derived properties by hand, and the tests
per group against scipy with Holm's correction worked out here."""

import csv
import json
import re
import subprocess
import sys
import warnings
from collections import Counter
from pathlib import Path

import numpy as np
import pytest

from oracles import holm_by_hand
from test_browser import app_url, assert_healthy, browser, open_page  # noqa: F401

ROOT = Path(__file__).resolve().parents[1]
VERSIONS = ROOT / "sample_data" / "versions"
GENRES = ("rock", "jazz", "pop")


def cli(*args):
    done = subprocess.run([sys.executable, "-m", "metrics", *map(str, args)], cwd=ROOT,
                          capture_output=True, text=True, timeout=120)
    return done.returncode, done.stdout, done.stderr


def _qrels(path: Path) -> dict[str, dict[str, int]]:
    qrels: dict[str, dict[str, int]] = {}
    for line in path.read_text().splitlines():
        q, _, item, grade = line.split()
        qrels.setdefault(q, {})[item] = int(grade)
    return qrels


def _run(path: Path) -> dict[str, dict[str, float]]:
    run: dict[str, dict[str, float]] = {}
    for line in path.read_text().splitlines():
        q, _, item, _, score, _ = line.split()
        run.setdefault(q, {})[item] = float(score)
    return run


def _pytrec(qrels, run, measure="map") -> dict[str, float]:
    import pytrec_eval

    values = pytrec_eval.RelevanceEvaluator(qrels, {measure}).evaluate(run)
    return {q: values[q][measure] if q in values else 0.0 for q in qrels}


@pytest.fixture
def genres(tmp_path):
    """A query table of the versions sample: a genre for every query but the sixth (in no
    group), one query the data lacks, and a column the grouping ignores."""
    queries = list(_qrels(VERSIONS / "qrels.txt"))
    path = tmp_path / "queries.csv"
    with path.open("w", newline="") as f:
        writer = csv.writer(f)
        writer.writerow(["query_id", "genre", "title"])
        for i, q in enumerate(queries):
            writer.writerow([q, GENRES[i % 3] if i != 5 else "", f"Song, {i}"])
        writer.writerow(["nosuch", "rock", "Nowhere"])
    return path, {q: (GENRES[i % 3] if i != 5 else None) for i, q in enumerate(queries)}


def test_group_means_are_the_means_of_pytrec_evals_per_query_values(genres):
    path, genre_of = genres
    code, out, err = cli("evaluate", VERSIONS / "baseline.run", VERSIONS / "qrels.txt",
                         "--query-metadata", path, "--group-by", "genre", "-m", "AP,P@10",
                         "-f", "json", "--ties", "trec9")   # pytrec_eval's order of ties
    assert code == 0, err
    data = json.loads(out)
    qrels, run = _qrels(VERSIONS / "qrels.txt"), _run(VERSIONS / "baseline.run")
    ap, p10 = _pytrec(qrels, run, "map"), _pytrec(qrels, run, "P_10")
    for genre in GENRES:
        members = [q for q, g in genre_of.items() if g == genre]
        group = data["groups"]["genre"][genre]
        assert group["num_queries"] == len(members)
        assert group["AP"] == pytest.approx(np.mean([ap[q] for q in members]), abs=1e-12)
        assert group["P@10"] == pytest.approx(np.mean([p10[q] for q in members]), abs=1e-12)
    assert sorted(data["groups"]["genre"]) == sorted(GENRES)
    assert data["groups_ungrouped_queries"] == {"genre": 1}
    assert any("1 of its 61 queries match nothing" in w and "'nosuch'" in w
               for w in data["warnings"])


def test_a_query_without_relevant_items_is_left_out_of_its_groups_mean(tmp_path):
    # q1: relevant at rank 1 of 2 (AP 1); q2: relevant at rank 2 (AP 1/2); q3: nothing relevant
    # (undefined: left out, as from the overall mean, where trec_eval would count 0)
    run = tmp_path / "r.run"
    run.write_text("q1 Q0 a 1 2 s\nq1 Q0 b 2 1 s\nq2 Q0 a 1 2 s\nq2 Q0 b 2 1 s\n"
                   "q3 Q0 a 1 2 s\n")
    qrels = tmp_path / "q.qrels"
    qrels.write_text("q1 0 a 1\nq2 0 b 1\nq3 0 a 0\n")
    table = tmp_path / "queries.tsv"
    table.write_text("query_id\tgenre\nq1\tx\nq2\tx\nq3\tx\n")
    code, out, err = cli("evaluate", run, qrels, "--query-metadata", table, "--group-by",
                         "genre", "-m", "AP", "-f", "json")
    assert code == 0, err
    data = json.loads(out)
    group = data["groups"]["genre"]["x"]
    assert group["num_queries"] == 3 and group["defined"] == {"AP": 2}
    assert group["AP"] == pytest.approx(0.75) == data["aggregate"]["AP"]


def test_r_q_groups_the_queries_by_their_number_of_relevant_items():
    code, out, err = cli("evaluate", VERSIONS / "baseline.run", VERSIONS / "qrels.txt",
                         "--group-by", "R_q", "-m", "AP", "-f", "json", "--ties", "trec9")
    assert code == 0, err
    qrels, run = _qrels(VERSIONS / "qrels.txt"), _run(VERSIONS / "baseline.run")
    ap = _pytrec(qrels, run)
    by_count = {}
    for q, judged in qrels.items():
        by_count.setdefault(sum(g >= 1 for g in judged.values()), []).append(q)
    groups = json.loads(out)["groups"]["R_q"]
    assert {int(k) for k in groups} == set(by_count)      # at most ten values: one group each
    for count, members in by_count.items():
        assert groups[str(count)]["num_queries"] == len(members)
        assert groups[str(count)]["AP"] == pytest.approx(np.mean([ap[q] for q in members]))


def test_compare_tests_each_group_and_corrects_over_the_groups(genres):
    from scipy import stats

    path, genre_of = genres
    code, out, err = cli("compare", VERSIONS / "baseline.run", VERSIONS / "cqt_net.run",
                         VERSIONS / "qrels.txt", "--query-metadata", path, "--group-by", "genre",
                         "-m", "AP", "--test", "t", "-f", "json", "--ties", "trec9")
    assert code == 0, err
    groups = json.loads(out)["groups"]["genre"]
    qrels = _qrels(VERSIONS / "qrels.txt")
    a = _pytrec(qrels, _run(VERSIONS / "baseline.run"))
    b = _pytrec(qrels, _run(VERSIONS / "cqt_net.run"))
    p = {}
    for genre in GENRES:
        members = [q for q, g in genre_of.items() if g == genre]
        test = groups[genre]["tests"][0]
        expected = stats.ttest_rel([b[q] for q in members], [a[q] for q in members])
        assert test["p"] == pytest.approx(expected.pvalue, rel=1e-9)
        assert test["mean_diff"] == pytest.approx(np.mean([b[q] - a[q] for q in members]))
        assert groups[genre]["aggregate"]["cqt_net"]["AP"] == pytest.approx(
            np.mean([b[q] for q in members]))
        p[genre] = expected.pvalue
    # Holm by hand over the three groups
    for genre, holm in zip(p, holm_by_hand(np.array(list(p.values())))):
        assert groups[genre]["tests"][0]["p_holm_over_groups"] == pytest.approx(holm)


def test_the_table_output_has_a_block_per_grouping(genres):
    code, out, err = cli("evaluate", VERSIONS / "baseline.run", VERSIONS / "qrels.txt",
                         "--query-metadata", genres[0], "--group-by", "genre", "--group-by",
                         "R_q", "-m", "AP")
    assert code == 0, err
    assert "by genre (1 query in no group)" in out and "by R_q" in out
    assert "warning: " in err and "'nosuch'" in err


def test_parent_class_groups_instrument_queries_by_family():
    d = ROOT / "sample_data" / "instruments"
    code, out, err = cli("evaluate", d / "system_a.run", d / "annotations.csv", "--taxonomy",
                         d / "taxonomy.csv", "--group-by", "parent_class", "-m", "AP", "-f",
                         "json")
    assert code == 0, err
    parents = dict(line.split(",") for line in (d / "taxonomy.csv").read_text().splitlines()[1:])
    children = Counter(p for c, p in parents.items() if p)
    groups = json.loads(out)["groups"]["parent_class"]
    assert {g: v["num_queries"] for g, v in groups.items()} == dict(children)


def test_clique_size_groups_cover_song_queries_by_the_size_of_their_clique():
    d = ROOT / "sample_data" / "covers"
    code, out, err = cli("evaluate-matrix", d / "system_a.npy", d / "labels.csv", "--group-by",
                         "clique_size", "-m", "AP", "-f", "json")
    assert code == 0, err
    labels = [line.split(",")[1] for line in (d / "labels.csv").read_text().splitlines()[1:]]
    size = Counter(labels)
    sizes = sorted(size[label] for label in labels)       # one per query (every item is one)
    groups = json.loads(out)["groups"]["clique_size"]
    assert sum(g["num_queries"] for g in groups.values()) == len(sizes)
    for label, g in groups.items():   # "lo–hi": the smallest and largest size of the group
        low, high = (int(x) for x in label.split("–")) if "–" in label else (int(label),) * 2
        assert g["num_queries"] == sum(low <= s <= high for s in sizes)


@pytest.mark.parametrize("args, words", [
    (["--group-by", "mood"], "cannot group by 'mood'"),
    (["--group-by", "clique_size"], "clique_size needs clique labels"),
    (["--group-by", "R_q", "-f", "trec"], "trec_eval's format has no place for groups"),
    (["--group-by", "R_q", "--group-by", "R_q"], "names a grouping twice"),
    (["--query-metadata", "missing.csv"], "missing.csv: file not found"),
])
def test_bad_group_options_exit_2_with_one_line(args, words):
    code, out, err = cli("evaluate", VERSIONS / "baseline.run", VERSIONS / "qrels.txt", *args)
    assert code == 2 and out == ""
    assert words in err and err.count("\n") == 1, err


def test_an_item_table_whose_ids_match_nothing_is_a_warning_with_counts(tmp_path):
    items = tmp_path / "items.csv"
    items.write_text("item_id,title\nrec000,A song\nnowhere1,x\nnowhere2,y\n")
    code, out, err = cli("evaluate", VERSIONS / "baseline.run", VERSIONS / "qrels.txt",
                         "--item-metadata", items, "-m", "AP")
    assert code == 0, err
    assert f"warning: {items}: 2 of its 3 items match nothing in the run or ground truth " \
           "(first: 'nowhere1')" in err


@pytest.mark.parametrize("command", [["evaluate"], ["evaluate", "--protocol", "acoss"],
                                     ["compare"]])
def test_the_items_of_a_labels_truth_are_the_same_on_every_path(tmp_path, command):
    # "solo", a clique of one, is judged against nothing yet is an item of the labels file: the
    # whole-file and float32 paths of evaluate had left it out of the ground truth's items (the
    # table's "solo" then matched nothing) while compare and the app counted it
    (tmp_path / "labels.csv").write_text("item_id,label\na,x\nb,x\nc,y\nd,y\nsolo,z\n")
    rows = [f"{q} Q0 {i} {r} {10 - r} sys" for q in "abcd"
            for r, i in enumerate((i for i in "abcd" if i != q), 1)]
    (tmp_path / "run.txt").write_text("\n".join(rows) + "\n")
    items = tmp_path / "items.csv"
    items.write_text("item_id,title\na,A\nsolo,S\nnowhere,N\n")
    runs = [tmp_path / "run.txt"]
    if command == ["compare"]:
        (tmp_path / "run2.txt").write_text((tmp_path / "run.txt").read_text())
        runs = [tmp_path / "run.txt", tmp_path / "run2.txt"]
    measures = [] if "--protocol" in command else ["-m", "AP"]
    code, _, err = cli(*command, *runs, tmp_path / "labels.csv", "--item-metadata", items,
                       *measures)
    assert code == 0, err
    unmatched = [line for line in err.splitlines() if "match nothing" in line]
    assert unmatched == [f"warning: {items}: 1 of its 3 items match nothing in the run or "
                         "ground truth (first: 'nowhere')"]


@pytest.mark.parametrize("groups,systems", [(100, 2), (100, 3), (4, 2)])
def test_every_group_keeps_a_row_where_its_systems_markers_do_not_overlap(groups, systems):
    # the covers' 100 artists: a height cap had squeezed each group's row to 15 px, under the
    # two 11 px markers drawn side by side in it
    from charts.groups import group_means_figure

    means = np.full((groups, systems), 0.5)
    fig = group_means_figure([f"g{i}" for i in range(groups)], [1] * groups,
                             [f"s{j}" for j in range(systems)], means, means - 0.1, means + 0.1,
                             measure="AP", grouping="artist", level=0.95)
    margin = fig.layout.margin
    plot = fig.layout.height - margin.t - margin.b
    size = fig.data[0].marker.size
    assert plot / groups >= systems * (size + 4), (fig.layout.height, groups)
    # no empty rows above the first group or below the last, the first on top
    assert list(fig.layout.yaxis.range) == [groups - 0.5, -0.5]


def test_each_system_has_its_own_line_in_its_groups_row_a_legend_name_and_a_hover():
    # five systems, three groups, every mean and interval alike: they lay on one line per group
    # (issue 40); each must sit at its own y, inside its group's row, in the systems' order
    from charts.groups import group_means_figure

    systems = ["baseline", "chroma_dtw", "cqt_net", "cqt_net_aug", "transformer"]
    means = np.full((3, 5), 0.5)
    fig = group_means_figure(["rock", "jazz", "pop"], [12, 7, 1], systems, means, means - 0.1,
                             means + 0.2, measure="AP", grouping="genre", level=0.95)
    assert [t.name for t in fig.data] == systems and fig.layout.showlegend
    y = np.array([list(t.y) for t in fig.data])          # systems × groups
    for group in range(3):
        column = y[:, group]
        assert len(set(column)) == 5 and list(column) == sorted(column)   # first system on top
        assert all(group - 0.5 < v < group + 0.5 for v in column)         # within its row
        # apart by more than a marker: the row's pixels / spread over the five
        plot = fig.layout.height - fig.layout.margin.t - fig.layout.margin.b
        apart = np.diff(column).min() * plot / 3
        assert apart >= fig.data[0].marker.size + 2, (apart, fig.layout.height)
    assert list(fig.layout.yaxis.tickvals) == [0, 1, 2]
    assert list(fig.layout.yaxis.ticktext) == ["rock (12)", "jazz (7)", "pop (1)"]
    assert [list(t.customdata) for t in fig.data] == [[0, 1, 2]] * 5     # a click names the group
    assert fig.data[2].hovertext[1] == ("genre = jazz (n = 7 queries)<br>cqt_net: mean 0.5000, "
                                        "95% interval [0.4000, 0.7000]")
    assert fig.data[4].hovertext[2].startswith("genre = pop (n = 1 query)<br>transformer")


def test_a_query_tables_cells_group_as_written_and_an_absent_query_is_in_no_group():
    # None (an empty cell) and a query the table lacks: no group; any other cell is its text, a
    # NaN put in by pandas included ("nan"), and a number as Python writes it
    import pandas as pd

    from metrics import GroundTruth, Run, judge
    from metrics.evaluation.groups import grouping

    ids = ["q1", "q2", "q3", "q4", "q5", "q6"]
    run = Run.from_dict({q: {"a": 1.0} for q in ids})
    judged = judge(run, GroundTruth.from_dict({q: {"a": 1} for q in ids}))
    table = pd.DataFrame({"genre": ["rock", None, float("nan"), 1990, "rock"],
                          "text": ["two  words", None, float("nan"), "", "a b c"]},
                         index=pd.Index(["q1", "q2", "q3", "q4", "q5"], name="query_id"),
                         dtype=object)
    genre = grouping("genre", judged, table)
    assert genre.labels.tolist() == ["rock", None, "nan", "1990", "rock", None]
    assert set(genre.groups) == {"1990", "nan", "rock"} and genre.ungrouped == 2
    words = grouping("text_words", judged, table)
    assert words.labels.tolist() == ["2", None, "1", "0", "3", None]


# ---- many groups: every statistic of all the groups that hold as many queries at once ---------

def _many_groups(groups=400, seed=5):
    """Two systems' values on queries in ``groups`` groups of 1 to 6 queries (and some in no
    group): AP undefined on about a fifth of the queries, NumRel (summed) everywhere."""
    from metrics.evaluation.evaluate import EvaluationResult, MeasureResult
    from metrics.evaluation.groups import Grouping

    rng = np.random.default_rng(seed)
    codes = np.repeat(np.arange(groups), rng.integers(1, 7, groups))
    codes = np.concatenate([codes, np.full(30, -1)])
    rng.shuffle(codes)
    labels = np.array([None if c < 0 else f"g{c}" for c in codes], dtype=object)
    n = len(codes)

    def result(seed):
        r = np.random.default_rng(seed)
        ap = r.random(n)
        ap[r.random(n) < 0.2] = np.nan
        return EvaluationResult(np.array([f"q{i}" for i in range(n)]), {
            "AP": MeasureResult("AP", ap, "ours"),
            "NumRel": MeasureResult("NumRel", r.integers(0, 5, n).astype(float), "ours",
                                    summed=True)})

    return {"A": result(1), "B": result(2)}, Grouping("g", labels,
                                                    tuple(f"g{i}" for i in range(groups))), codes


@pytest.mark.parametrize("how", ["mean", "median", "std"])
def test_every_groups_aggregate_and_interval_is_its_queries_alone(how):
    # each group's aggregate by hand over its own values, and its interval scipy.stats.bootstrap
    # of them alone (seeded as the overall interval is): the groups of one size are computed
    # together, one row each
    from scipy import stats

    from metrics.evaluation.group_stats import group_means

    results, grouping, codes = _many_groups()
    rows = group_means(results, grouping, 0.95, seed=11, resamples=300, how=how)
    assert [(r.group, r.system) for r in rows] == [(f"g{i}", s) for i in range(400)
                                                   for s in ("A", "B")]
    by_hand = {"mean": np.mean, "median": np.median,
               "std": lambda x, axis=None: np.std(x, axis=axis, ddof=1)}[how]
    for row in rows[::7]:
        members = codes == int(row.group[1:])
        assert row.num_queries == members.sum()
        for m, r in results[row.system].results.items():
            values = r.values[members & ~np.isnan(r.values)]
            statistic = np.sum if (m == "NumRel" and how == "mean") else by_hand
            assert row.defined[m] == len(values)
            if len(values) < (2 if how == "std" else 1):
                assert row.means[m] is None
            else:
                assert row.means[m] == pytest.approx(float(statistic(values)), rel=1e-12)
            if len(values) < 2:
                assert row.intervals[m] == (None, None)
                continue
            alone = stats.bootstrap((values,), statistic, vectorized=True, axis=-1,
                                    n_resamples=300, method="percentile",
                                    rng=np.random.default_rng(11)).confidence_interval
            assert row.intervals[m] == pytest.approx(tuple(alone), rel=1e-12, abs=1e-15)


@pytest.mark.parametrize("n", [2, 9, 401, 1500])   # 401 and 1500: resamples drawn in batches
def test_each_rows_interval_is_scipys_bootstrap_of_the_row_alone(n):
    from scipy import stats

    from metrics.evaluation.stats import bootstrap_batch, bootstrap_rows

    values = np.random.default_rng(n).random((3, n))
    for statistic in (np.mean, np.median, np.sum):
        low, high = bootstrap_rows(values, statistic, 0.9, seed=5, resamples=3000)
        for row, lo, hi in zip(values, low, high):
            alone = stats.bootstrap((row,), statistic, vectorized=True, axis=-1,
                                    confidence_level=0.9, n_resamples=3000,
                                    method="percentile", batch=bootstrap_batch(n),
                                    rng=np.random.default_rng(5)).confidence_interval
            assert (lo, hi) == pytest.approx(tuple(alone), rel=1e-12)


def test_the_t_test_of_every_group_is_scipys_on_its_queries_alone():
    from scipy import stats

    from metrics.evaluation.group_stats import group_differences

    results, grouping, codes = _many_groups()
    per_query = {s: {"AP": r.results["AP"].values} for s, r in results.items()}
    rows = group_differences(per_query, ["AP"], grouping)
    p_by_hand = []
    for i, row in enumerate(rows):
        a, b = (per_query[s]["AP"][codes == i] for s in ("A", "B"))
        both = ~np.isnan(a) & ~np.isnan(b)
        a, b = a[both], b[both]
        assert row.n == len(a)
        p = stats.ttest_rel(b, a).pvalue if len(a) >= 2 else None
        p_by_hand.append(p)
        if p is None:
            assert row.p is None and row.undefined, row
        else:
            assert row.p == pytest.approx(p, rel=1e-12) and row.undefined is None
            assert row.mean_diff == pytest.approx(float((b - a).mean()), rel=1e-12)
    tested = [i for i, p in enumerate(p_by_hand) if p is not None]   # Holm over the defined
    assert [rows[i].p_corrected for i in tested] == pytest.approx(
        list(holm_by_hand(np.array([p_by_hand[i] for i in tested]))), rel=1e-12)
    assert all(rows[i].p_corrected is None for i in range(len(rows)) if i not in set(tested))


def test_the_chart_of_many_groups_shows_the_largest_the_best_and_the_worst():
    from metrics.evaluation.group_stats import (CHART_ALL, CHART_EACH, charted_groups,
                                                group_aggregates)

    results, grouping, codes = _many_groups()
    table = group_aggregates(results, grouping)
    shown = charted_groups(table, "AP")
    sizes = np.bincount(codes[codes >= 0], minlength=400)
    with warnings.catch_warnings():
        warnings.simplefilter("ignore", RuntimeWarning)   # a group where AP is undefined: NaN
        mean = np.nanmean(table.values["AP"], axis=1)
    assert len(shown) <= 3 * CHART_EACH and len(set(shown)) == len(shown)
    # by hand: the 10 with most queries (the first in order among equals), the 10 best, 10 worst
    largest = sorted(range(400), key=lambda g: (-sizes[g], g))[:CHART_EACH]
    defined = [g for g in range(400) if not np.isnan(mean[g])]
    best = sorted(defined, key=lambda g: (-mean[g], g))[:CHART_EACH]
    worst = sorted(defined, key=lambda g: (mean[g], g))[:CHART_EACH]
    assert set(shown) == set(largest) | set(best) | set(worst)
    assert list(mean[shown]) == sorted(mean[shown], reverse=True)   # best at the top
    # lower is better (a rank, an error): the best are the lowest
    assert set(charted_groups(table, "AP", higher_is_better=False)[:CHART_EACH]) == set(worst)
    # up to CHART_ALL groups (the covers' 137 artists): all of them, in their order
    few = group_aggregates(results, type(grouping)("g", grouping.labels,
                                                   grouping.groups[:CHART_ALL]))
    assert list(charted_groups(few, "AP")) == list(range(CHART_ALL))


# ---- in a browser ------------------------------------------------------------------------------

FIVE_SYSTEMS = ["baseline", "chroma_dtw", "cqt_net", "cqt_net_aug", "transformer"]
# each system's drawn markers: the group (the point's index) and its box on the screen
MARKER_BOXES = """() => {
  const gd = document.querySelector('.chart-in-place');
  return Array.from(gd.querySelectorAll('.scatterlayer .trace')).map(trace =>
    Array.from(trace.querySelectorAll('path.point')).map(p => {
      const r = p.getBoundingClientRect();
      return {group: p.__data__.i, top: r.top, bottom: r.bottom, x: r.x + r.width / 2,
              y: r.y + r.height / 2};
    }));
}"""


@pytest.mark.browser
def test_five_systems_markers_of_a_group_lie_apart_named_in_the_legend(app_url, browser):
    # the version-identification sample's five systems grouped by R_q at 1400 × 1000: in each
    # group's row the five markers had lain on one line, each over the next (issue 40)

    page, errors = open_page(browser, f"{app_url}/groups?dataset=versions&group_by=R_q",
                             1400, 1000)
    page.wait_for_selector('.chart-in-place .scatterlayer path.point')
    traces = page.evaluate(MARKER_BOXES)
    assert len(traces) == 5, traces
    legend = page.locator('.chart-in-place .legend .legendtext').evaluate_all(
        "(texts) => texts.map(t => t.textContent)")
    assert legend == FIVE_SYSTEMS
    by_group = {}
    for system, points in zip(FIVE_SYSTEMS, traces):
        for point in points:
            by_group.setdefault(point["group"], []).append((system, point))
    assert len(by_group) >= 3, by_group
    for group, markers in by_group.items():
        assert [s for s, _ in markers] == FIVE_SYSTEMS, (group, markers)   # top to bottom
        boxes = [box for _, box in markers]
        for above, below in zip(boxes, boxes[1:]):
            assert below["top"] >= above["bottom"], (group, above, below)   # apart, in order
    # hover on the third system's marker of the first group: its group, n and interval
    point = by_group[0][2][1]
    page.mouse.move(point["x"], point["y"])
    hover = page.locator('.chart-in-place .hoverlayer .hovertext')
    hover.first.wait_for()
    text = hover.first.text_content()
    assert "R_q = " in text and "(n = " in text and "cqt_net: mean " in text, text
    assert re.search(r"95% interval \[\d\.\d{4}, \d\.\d{4}\]", text), text
    page.locator('.chart-in-place').first.screenshot(
        path="tests/artifacts/groups_five_systems.png")
    assert_healthy(page, errors, "Groups of queries")
    page.close()


@pytest.mark.browser
def test_a_click_on_a_groups_marker_opens_its_queries_in_the_explorer(app_url, browser):
    # the groups chart is clicked through dashboard/chart_in_place.py's one-time click event (it
    # was st.plotly_chart's selection): row 0 of R_q is the queries with one relevant version
    relevant = Counter()
    for line in (ROOT / "sample_data" / "versions" / "qrels.txt").read_text().splitlines():
        query, _, _, grade = line.split()
        relevant[query] += int(grade) >= 1
    expected = sum(1 for count in relevant.values() if count == 1)
    page, errors = open_page(browser, f"{app_url}/groups?dataset=versions&group_by=R_q",
                             1400, 1000)
    page.wait_for_selector('.chart-in-place .scatterlayer path.point')
    marker = page.evaluate(MARKER_BOXES)[2][0]           # cqt_net's marker of the first row
    assert marker["group"] == 0
    page.mouse.click(marker["x"], marker["y"])
    page.wait_for_function("() => location.pathname.endsWith('/explorer')", timeout=30_000)
    assert_healthy(page, errors, "Query explorer")
    note = page.get_by_text("(from the Groups page), worst first").inner_text()
    assert f"The {expected} queries of R_q = 1 " in note, note
    page.close()

