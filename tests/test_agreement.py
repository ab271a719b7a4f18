"""Two judges' agreement (metrics/judgments/agreement.py, ``python -m metrics agreement``):
Cohen's κ and linearly weighted κ against scikit-learn's cohen_kappa_score, the systems' means
against pytrec_eval, Kendall's τ against scipy, the swaps against a pairwise count written out
here; an undefined κ is null with its reason, never a number."""

from __future__ import annotations

import json
import warnings
from itertools import combinations
from pathlib import Path

import numpy as np
import pytest
import pytrec_eval
from scipy import stats
from sklearn.metrics import cohen_kappa_score

from cli_in_process import run_cli
from metrics.data.run import Run
from metrics.data.truth import GroundTruth
from metrics.judgments import agreement

QUERIES = [f"q{n}" for n in range(6)]
ITEMS = [f"d{n:02d}" for n in range(25)]


def sklearn_kappa(a, b, **options) -> float | None:
    """scikit-learn's κ, None where it is nan (0/0)."""
    with warnings.catch_warnings():
        warnings.simplefilter("ignore")   # its notes on 0/0, which the tests check apart
        value = float(cohen_kappa_score(a, b, **options))
    return None if np.isnan(value) else value


def random_judges(seed: int) -> tuple[dict, dict]:
    """Two judges' qrels {query: {item: grade}}: overlapping pairs, some judged by one only,
    some −1 (pooled, not judged) on one side; every query has a relevant item under both."""
    rng = np.random.default_rng(seed)
    a: dict[str, dict[str, int]] = {}
    b: dict[str, dict[str, int]] = {}
    for query in QUERIES:
        for item in rng.choice(ITEMS, size=int(rng.integers(4, 15)), replace=False):
            grade = int(rng.integers(0, 4))
            a.setdefault(query, {})[item] = grade
            if rng.random() < 0.8:   # B mostly agrees, off by a grade now and then
                other = grade if rng.random() < 0.6 else int(rng.integers(0, 4))
                b.setdefault(query, {})[item] = -1 if rng.random() < 0.05 else other
        for extra in rng.choice(ITEMS, size=2, replace=False):
            b.setdefault(query, {}).setdefault(str(extra), int(rng.integers(0, 3)))
        a[query][ITEMS[24]] = 3   # a relevant item for both, for the systems' means
        b[query][ITEMS[24]] = 2
    return a, b


def common(a: dict, b: dict) -> list[tuple[str, str, int, int]]:
    return [(q, i, a[q][i], b[q][i]) for q in a for i in a[q]
            if q in b and i in b[q] and a[q][i] >= 0 and b[q][i] >= 0]


def qrels_file(path: Path, qrels: dict) -> Path:
    path.write_text("".join(f"{q} 0 {i} {g}\n" for q, items in qrels.items()
                            for i, g in items.items()))
    return path


@pytest.mark.parametrize("seed", range(8))
@pytest.mark.parametrize("rel", [1, 2])
def test_kappa_is_sklearn_cohen_kappa(seed, rel):
    a, b = random_judges(seed)
    result = agreement(GroundTruth.from_dict(a), GroundTruth.from_dict(b), rel=rel)
    pairs = common(a, b)
    assert result.pairs == len(pairs)
    grades_a = [ga for *_, ga, _ in pairs]
    grades_b = [gb for *_, gb in pairs]
    expected = sklearn_kappa([g >= rel for g in grades_a], [g >= rel for g in grades_b])
    assert result.kappa == pytest.approx(expected, rel=1e-12, abs=1e-15)
    low, high = min(grades_a + grades_b), max(grades_a + grades_b)
    weighted = sklearn_kappa(grades_a, grades_b, weights="linear",
                             labels=list(range(low, high + 1)))
    assert result.weighted_kappa == pytest.approx(weighted, rel=1e-12, abs=1e-15)
    for query in QUERIES:
        mine = [(ga >= rel, gb >= rel) for q, _, ga, gb in pairs if q == query]
        got = result.per_query[query]
        assert got.pairs == len(mine)
        want = sklearn_kappa([x for x, _ in mine], [y for _, y in mine]) if mine else None
        if want is None:
            assert got.kappa is None and got.reason
        else:
            assert got.kappa == pytest.approx(want, rel=1e-12, abs=1e-15)


def test_weighted_kappa_spaces_grades_by_value_not_by_those_seen():
    # grades 0, 1 and 3 (none 2): 1 and 3 are two apart on the scale, not neighbours
    grades_a, grades_b = [0, 1, 3, 3, 0], [1, 0, 3, 1, 0]
    a = {"q": {f"i{n}": g for n, g in enumerate(grades_a)}}
    b = {"q": {f"i{n}": g for n, g in enumerate(grades_b)}}
    result = agreement(GroundTruth.from_dict(a), GroundTruth.from_dict(b))
    # by hand, weights |i - j| / 3: observed Σw·O = (1/3 + 1/3 + 2/3) / 5 = 4/15, chance
    # Σw·E = 34/75 (marginals A 2/5, 1/5, 0, 2/5 and B 2/5, 2/5, 0, 1/5)
    assert result.weighted_kappa == pytest.approx(1 - (4 / 15) / (34 / 75), rel=1e-12)
    assert result.weighted_kappa == pytest.approx(sklearn_kappa(
        grades_a, grades_b, weights="linear", labels=[0, 1, 2, 3]), rel=1e-12)
    # scikit-learn without labels spaces the grades seen one apart: another number
    assert sklearn_kappa(grades_a, grades_b, weights="linear") != pytest.approx(
        result.weighted_kappa, rel=1e-3)


def test_undefined_kappa_is_null_with_a_reason(tmp_path, capsys):
    # every pair relevant on both sides: chance agreement 1, κ = 0/0
    a = qrels_file(tmp_path / "a.qrels", {"q1": {"x": 1, "y": 1}, "q2": {"z": 0, "w": 1}})
    b = qrels_file(tmp_path / "b.qrels", {"q1": {"x": 1, "y": 1}, "q2": {"z": 1, "u": 0}})
    assert sklearn_kappa([1, 1], [1, 1]) is None   # scikit-learn: nan too
    code, out, err = run_cli(capsys, "agreement", a, b, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert data["per_query"]["q1"] == {"pairs": 2, "kappa": None}
    # one pair, 0 against 1: each side in one category, but not the same one: κ = 0
    assert data["per_query"]["q2"] == {"pairs": 1, "kappa": sklearn_kappa([0], [1])}
    assert data["pairs"] == 3 and data["kappa"] == pytest.approx(sklearn_kappa([1, 1, 0],
                                                                              [1, 1, 1]))
    assert "kappa of 1 query (q1) is undefined: every pair is in one category on both sides" \
        in err
    both_same = qrels_file(tmp_path / "c.qrels", {"q1": {"x": 1, "y": 1}})
    code, out, err = run_cli(capsys, "agreement", both_same, both_same, "--format", "json")
    data = json.loads(out)
    assert data["kappa"] is None and data["weighted_kappa"] is None
    assert "kappa is undefined: every pair is in one category on both sides" in err
    disjoint = qrels_file(tmp_path / "d.qrels", {"q9": {"x": 1}})
    code, out, err = run_cli(capsys, "agreement", both_same, disjoint, "--format", "json")
    data = json.loads(out)
    assert data["pairs"] == 0 and data["kappa"] is None
    assert data["per_query"] == {"q1": {"pairs": 0, "kappa": None},
                                 "q9": {"pairs": 0, "kappa": None}}
    assert "no pair is judged by both" in err


def random_runs(folder: Path, seed: int, systems: int = 5) -> list[Path]:
    rng = np.random.default_rng(1000 + seed)
    paths = []
    for s in range(systems):
        lines = []
        for query in QUERIES:
            items = rng.choice(ITEMS, size=12, replace=False)
            scores = rng.permutation(200)[:12] / 7.0 + 0.5   # distinct: no ties to break
            lines += [f"{query} Q0 {i} 0 {v:.6f} sys{s}\n" for i, v in zip(items, scores)]
        path = folder / f"sys{s}.run"
        path.write_text("".join(lines))
        paths.append(path)
    return paths


def pytrec_eval_map(qrels: dict, run_path: Path) -> float:
    run: dict[str, dict[str, float]] = {}
    for line in run_path.read_text().splitlines():
        q, _, i, _, v, _ = line.split()
        run.setdefault(q, {})[i] = float(v)
    judged = {q: {i: g for i, g in items.items()} for q, items in qrels.items()}
    per_query = pytrec_eval.RelevanceEvaluator(judged, {"map"}).evaluate(run)
    assert set(per_query) == set(QUERIES)
    return float(np.mean([v["map"] for v in per_query.values()]))


@pytest.mark.parametrize("seed", range(4))
def test_systems_means_tau_and_swaps(tmp_path, capsys, seed):
    a, b = random_judges(seed)
    paths = random_runs(tmp_path, seed)
    code, out, err = run_cli(capsys, "agreement", qrels_file(tmp_path / "a.qrels", a),
                             qrels_file(tmp_path / "b.qrels", b), *paths, "--format", "json")
    assert code == 0, err
    data = json.loads(out)
    assert set(data) == {"pairs", "kappa", "weighted_kappa", "per_query", "systems"}
    assert set(data["systems"]) == {"names", "mean_a", "mean_b", "kendall_tau", "swaps"}
    systems = data["systems"]
    assert systems["names"] == [p.stem for p in paths]
    mean_a = [pytrec_eval_map(a, p) for p in paths]
    mean_b = [pytrec_eval_map(b, p) for p in paths]
    assert systems["mean_a"] == pytest.approx(mean_a, rel=1e-12)
    assert systems["mean_b"] == pytest.approx(mean_b, rel=1e-12)
    assert systems["kendall_tau"] == pytest.approx(stats.kendalltau(mean_a, mean_b).statistic,
                                                   rel=1e-12)
    swaps = []
    for i, j in combinations(range(len(paths)), 2):
        if (mean_a[i] - mean_a[j]) * (mean_b[i] - mean_b[j]) < 0:
            swaps.append([paths[i].stem, paths[j].stem] if mean_a[i] > mean_a[j]
                         else [paths[j].stem, paths[i].stem])
    assert sorted(systems["swaps"]) == sorted(swaps)


def test_swaps_and_tau_by_hand():
    # A judges x relevant, B judges z: under A s1 > s2 > s3, under B s3 > s2 > s1
    a = {"q": {"x": 1, "y": 0, "z": 0, "w": 0}}
    b = {"q": {"x": 0, "y": 0, "z": 1, "w": 0}}
    runs = {"s1": Run.from_lists({"q": ["x", "y", "w", "z"]}),
            "s2": Run.from_lists({"q": ["y", "x", "z", "w"]}),
            "s3": Run.from_lists({"q": ["z", "w", "y", "x"]})}
    result = agreement(GroundTruth.from_dict(a), GroundTruth.from_dict(b), runs=runs)
    assert result.systems.mean_a == pytest.approx([1, 1 / 2, 1 / 4])
    assert result.systems.mean_b == pytest.approx([1 / 4, 1 / 3, 1])
    assert result.systems.kendall_tau == pytest.approx(-1.0)
    assert result.systems.swaps == [("s1", "s2"), ("s1", "s3"), ("s2", "s3")]
    one = agreement(GroundTruth.from_dict(a), GroundTruth.from_dict(b),
                    runs={"s1": runs["s1"]})
    assert one.systems.kendall_tau is None and "fewer than two systems" in one.systems.tau_reason
    assert one.systems.swaps == []


def test_table_format(tmp_path, capsys):
    a = qrels_file(tmp_path / "a.qrels", {"q1": {"x": 1, "y": 0, "z": 2}})
    b = qrels_file(tmp_path / "b.qrels", {"q1": {"x": 1, "y": 1, "z": 2}})
    code, out, err = run_cli(capsys, "agreement", a, b)
    assert code == 0, err
    assert "pairs judged by both\t3" in out
    assert "kappa (grade >= 1)\t0.0000" in out   # A: 1 0 1, B: 1 1 1 → p_o = p_e = 2/3


@pytest.mark.parametrize("args,message", [
    (["ONE"], "agreement needs two qrels files"),
    (["ONE", "TWO", "--measure", "NoSuchMeasure"], "NoSuchMeasure"),
    (["ONE", "missing.qrels"], "missing.qrels"),
    (["ONE", "TWO", "--rel", "0"], "argument --rel"),
])
def test_bad_input_one_line_exit_2(tmp_path, capsys, args, message):
    one = qrels_file(tmp_path / "one.qrels", {"q": {"x": 1}})
    two = qrels_file(tmp_path / "two.qrels", {"q": {"x": 0}})
    args = [one if a == "ONE" else two if a == "TWO" else
            tmp_path / a if a.endswith(".qrels") else a for a in args]
    code, out, err = run_cli(capsys, "agreement", *args)
    assert code == 2 and out == ""
    assert len(err.splitlines()) == 1 and message in err, err


def test_bad_qrels_line_named(tmp_path, capsys):
    one = qrels_file(tmp_path / "one.qrels", {"q": {"x": 1}})
    bad = tmp_path / "bad.qrels"
    bad.write_text("q 0 x 1\nq 0 y high\n")
    code, _, err = run_cli(capsys, "agreement", one, bad)
    assert code == 2 and len(err.splitlines()) == 1
    assert "bad.qrels" in err and "line 2" in err, err
