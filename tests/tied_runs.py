"""A TREC run full of ties and its qrels (:func:`write_run`), and the check that two judged
rankings are the same bit for bit (:func:`same_judged`): shared by the tests of the run stream
(test_run_stream.py) and of the C reader (test_trec_lines.py).

Not a test module: the tests import it (``from tied_runs import same_judged, write_run``)."""

from __future__ import annotations

from pathlib import Path

import numpy as np


def write_run(path: Path, seed: int, queries: int = 12, shuffled: bool = False,
              ids: str = "d") -> tuple[Path, Path]:
    """A run with many ties (scores from a few values, some equal only in float32), a few
    duplicated lines, queries the qrels lack and qrels queries the run lacks; and its qrels."""
    rng = np.random.default_rng(seed)
    lines, qrels = [], []
    for q in range(queries):
        depth = int(rng.integers(1, 40))
        items = rng.choice(200, depth, replace=False)
        base = rng.choice([1.0, 0.5, 0.25, 0.1 + 1e-12, 0.1, 3.0], depth)
        scores = np.sort(base)[::-1] if not shuffled else base
        for item, score in zip(items, scores):
            lines.append(f"q{q} Q0 {ids}{item} 0 {float(score)!r} tag")
        if rng.random() < 0.3:
            lines.append(lines[-1])   # a duplicated line
        if q % 5 != 4:   # q4, q9: not judged
            judged = rng.choice(items, min(depth, 8), replace=False)
            qrels += [f"q{q} 0 {ids}{d} {int(rng.integers(-1, 3))}" for d in judged]
            qrels.append(f"q{q} 0 {ids}999 1")   # relevant, never retrieved
    qrels.append("qmissing 0 d1 1")
    if shuffled:
        rng.shuffle(lines)
    run_path, qrels_path = path / f"run{seed}.trec", path / f"qrels{seed}"
    run_path.write_text("\n".join(lines) + "\n")
    qrels_path.write_text("\n".join(qrels) + "\n")
    return run_path, qrels_path


def same_judged(a, b) -> None:
    for name in ("query_ids", "lengths", "offsets", "hit_ranks", "hit_grades", "hit_tie_first",
                 "hit_tie_size"):
        x, y = getattr(a, name), getattr(b, name)
        assert (x is None) == (y is None), name
        if x is not None:
            assert np.array_equal(x, y), name
    assert a.warnings == b.warnings
    assert a.name == b.name and a.run_only_queries == b.run_only_queries
    assert (a.ties.tied_items, a.ties.queries_with_ties) == (b.ties.tied_items,
                                                             b.ties.queries_with_ties)
    assert np.array_equal(a.ties.first_positions, b.ties.first_positions)
    assert np.array_equal(a.ties.last_positions, b.ties.last_positions)
    assert a.tie_policy == b.tie_policy


def agrees_with_pytrec_eval(judged, run_path: Path, qrels_path: Path) -> int:
    """Assert that per-query AP, P@10, RR, nDCG@10, bpref and R-prec of a judged ranking (under
    trec9) are pytrec_eval's for the run and qrels files (the first of duplicated lines, as
    ours); the number of values compared."""
    import pytest

    from metrics import evaluate

    pytrec_eval = pytest.importorskip("pytrec_eval")
    run: dict = {}
    for line in run_path.read_text().splitlines():
        q, _, d, _, s, _ = line.split()
        run.setdefault(q, {}).setdefault(d, float(s))
    qrels: dict = {}
    for line in qrels_path.read_text().splitlines():
        q, _, d, g = line.split()
        qrels.setdefault(q, {})[d] = int(g)
    names = {"map": "AP", "P_10": "P@10", "recip_rank": "RR", "ndcg_cut_10": "nDCG@10",
             "bpref": "Bpref", "Rprec": "Rprec"}
    oracle = pytrec_eval.RelevanceEvaluator(qrels, {"map", "P", "recip_rank", "ndcg_cut",
                                                    "bpref", "Rprec"}).evaluate(run)
    result = evaluate(judged, ",".join(names.values()))
    ids = list(judged.query_ids)
    compared = 0
    for q, values in oracle.items():
        for theirs, ours in names.items():
            assert result.results[ours].values[ids.index(q)] == pytest.approx(values[theirs],
                                                                             abs=1e-12)
            compared += 1
    return compared
