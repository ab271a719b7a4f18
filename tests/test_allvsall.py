"""The counting all-vs-all path agrees with sorting whole rows, with each counting kernel: NumPy,
and the C extension with its portable and its AVX2 first pass."""

import numpy as np
import pandas as pd
import pytest

from metrics import GroundTruth, Run, evaluate, judge
from metrics.ranking import allvsall
from metrics.ranking.allvsall import relevant_ranks as counted_ranks
from metrics.errors import InputError
from metrics.ranking.tie_order import id_order_key, policy_scores
from metrics.ranking.streaming import judge_all_vs_all
from metrics.data.ties import TiePolicy


def relevant_ranks(*args, **kwargs):
    """Each query's clique mates' ranks, ascending, NaN padded."""
    return counted_ranks(*args, **kwargs).sorted_ranks()

KERNELS = ["numpy", "c-portable", "c-avx2"]


@pytest.fixture(autouse=True, params=KERNELS)
def kernel(request, monkeypatch):
    """Every test here runs once per counting kernel."""
    if request.param == "numpy":
        monkeypatch.setattr(allvsall, "_counting", None)
        yield request.param
        return
    if allvsall._counting is None:
        pytest.skip("the C extension is not built (pip install -e . builds it)")
    chosen = allvsall._counting.instruction_set()
    if not allvsall._counting.use_instruction_set(request.param.removeprefix("c-")):
        pytest.skip(f"this CPU or build has no {request.param} code")
    yield request.param
    allvsall._counting.use_instruction_set(chosen)


MEASURES = "AP,AP@5,RR,RR@3,P@1,P@5,P@10,R@5,nDCG,nDCG@5,FirstRank,MedianRank,MeanRank,Rprec," \
           "MedianRank@5,MeanRank@5,FirstRank@3,BEP,NumRel,NumRelRet@5,Bpref,Bpref10,Fmax," \
           "AP(norm=min)@5,ERR,GAP,TN@5,Accuracy@5"


def dataset(seed, n=60, decimals=1):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n // 4, n)
    labels[rng.random(n) < 0.1] = 1000 + np.arange(n)[rng.random(n) < 0.1][:1].sum()  # singletons
    scores = np.round(rng.random((n, n)), decimals).astype(np.float32)   # many ties
    ids = [f"x{rng.integers(0, 10**6)}_{i}" for i in range(n)]
    return scores, labels.astype(str), ids


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", [TiePolicy.STABLE, TiePolicy.ID, TiePolicy.TREC9])
@pytest.mark.parametrize("larger", [True, False])
def test_counting_equals_sorting(seed, ties, larger):
    scores, labels, ids = dataset(seed)
    matrix = scores if larger else -scores
    truth = GroundTruth.from_labels(ids, labels)
    # reference: every row sorted into a full run (the query left in: judge() removes it)
    compared = policy_scores(matrix.astype(np.float64), ties) * (1 if larger else -1)
    run = Run.build(np.repeat(ids, len(ids)), np.tile(ids, len(ids)), compared.ravel())
    dense = evaluate(judge(run, truth, ties), MEASURES)
    fast = evaluate(judge_all_vs_all(matrix, ids, labels, ties, larger_is_better=larger),
                    MEASURES)
    for name in dense.measures:
        np.testing.assert_allclose(fast.results[name].values, dense.results[name].values,
                                   rtol=0, atol=1e-12, err_msg=name)


@pytest.mark.parametrize("ties", [TiePolicy.STABLE, TiePolicy.TREC9])
def test_one_large_clique_among_pairs_counted_a_few_rows_at_a_time(ties, monkeypatch):
    """A skewed collection (one clique of 40 among pairs): the per-mate counts are held for a few
    rows at a time and compacted to the pairs, whose ranks equal those of sorted full rows."""
    rng = np.random.default_rng(7)
    n = 90
    labels = np.array(["big"] * 40 + [f"p{i // 2}" for i in range(n - 40)])
    rng.shuffle(labels)
    scores = np.round(rng.random((n, n)), 1).astype(np.float32)
    ids = [f"i{i}" for i in range(n)]
    # 39 mates × 8 bytes × 7 fields per row: a budget of about 3 rows
    monkeypatch.setattr(allvsall, "COUNTS_BUDGET", 3 * 39 * 8 * 7)
    counted = counted_ranks(scores, labels, ids, ties)
    assert len(counted.query) == 40 * 39 + (n - 40)   # the pairs, not N × 39
    truth = GroundTruth.from_labels(ids, labels)
    compared = policy_scores(scores.astype(np.float64), ties)
    run = Run.build(np.repeat(ids, n), np.tile(ids, n), compared.ravel())
    dense = evaluate(judge(run, truth, ties), MEASURES)
    fast = evaluate(judge_all_vs_all(scores, ids, labels, ties), MEASURES)
    for name in dense.measures:
        np.testing.assert_allclose(fast.results[name].values, dense.results[name].values,
                                   rtol=0, atol=1e-12, err_msg=name)


def test_ranks_by_hand():
    scores = np.array([[9, 5, 5, 1], [5, 9, 2, 3], [5, 2, 9, 4], [1, 3, 4, 9]], dtype=np.float32)
    ranks = relevant_ranks(scores, ["a", "b", "a", "b"], ["w", "x", "y", "z"], TiePolicy.STABLE)
    # w: x and y tie at 5, x is the earlier column, so y (relevant) is rank 2
    assert ranks[0].tolist() == [2.0]
    ranks = relevant_ranks(scores, ["a", "b", "a", "b"], ["w", "x", "y", "z"], TiePolicy.TREC9)
    assert ranks[0].tolist() == [1.0]   # trec: id descending puts y before x
    assert ranks[1].tolist() == [2.0]   # x: w 5, z 3, y 2 -> z (relevant) second


def sorting_ranks(matrix, labels, ids, ties, larger):
    """Reference: sort every row as the dense engine does and read off the clique mates' ranks."""
    scores = policy_scores(np.asarray(matrix, dtype=np.float64), ties)
    scores = scores if larger else -scores
    ids = np.asarray(ids, dtype=object)
    if ties == "stable":
        column_order = np.arange(len(ids))
    elif ties == "id":
        column_order = np.argsort(id_order_key(ids), kind="stable")
    else:
        column_order = np.argsort(-pd.factorize(ids, sort=True)[0], kind="stable")
    labels = np.asarray(labels)
    width = max(max(np.unique(labels, return_counts=True)[1]) - 1, 1)
    out = np.full((len(ids), width), np.nan)
    for i in range(len(ids)):
        order = column_order[np.argsort(-scores[i, column_order], kind="stable")]
        order = order[order != i]
        position = np.empty(len(ids), dtype=np.int64)
        position[order] = np.arange(1, len(order) + 1)
        mates = np.flatnonzero((labels == labels[i]) & (np.arange(len(ids)) != i))
        out[i, :len(mates)] = np.sort(position[mates])
    return out


def tied_dataset(n=150, seed=0):
    """Scores with many exact ties (one decimal), 0.0 and -0.0, queries tied with their mates."""
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n // 6, n).astype(str)
    scores = np.round(rng.random((n, n)), 1).astype(np.float32)
    scores[rng.random((n, n)) < 0.05] = -0.0
    np.fill_diagonal(scores, 0.5)
    ids = [f"q{rng.integers(0, 40)}_{i}" for i in range(n)]
    return scores, labels, ids


@pytest.mark.parametrize("ties", [TiePolicy.STABLE, TiePolicy.ID, TiePolicy.TREC9])
@pytest.mark.parametrize("larger", [True, False])
@pytest.mark.parametrize("sort_cost", [0.0, None, float("inf")])   # always / as tuned / never sort
def test_ranks_equal_sorting_with_exact_ties(ties, larger, sort_cost, monkeypatch):
    if sort_cost is not None:
        monkeypatch.setattr(allvsall, "_SORT_COST", sort_cost)
    scores, labels, ids = tied_dataset()
    matrix = scores if larger else -scores
    expected = sorting_ranks(matrix, labels, ids, ties, larger)
    for chunk_rows in (1, 7, 64, 500):   # 150 rows: chunks that do not divide N, and one chunk
        ranks = relevant_ranks(matrix, labels, ids, ties, larger_is_better=larger,
                               chunk_rows=chunk_rows)
        np.testing.assert_array_equal(ranks, expected, err_msg=f"chunk_rows={chunk_rows}")


@pytest.mark.parametrize("workers", [2, 3])
def test_rows_split_over_threads_give_the_same_ranks(workers, monkeypatch):
    from metrics import parallel

    scores, labels, ids = tied_dataset()
    expected = sorting_ranks(scores, labels, ids, TiePolicy.TREC9, True)
    monkeypatch.setattr(parallel, "MIN_PART", 1)
    monkeypatch.setattr(parallel, "WORKERS", workers)
    for chunk_rows in (1, 7, 64):
        np.testing.assert_array_equal(
            relevant_ranks(scores, labels, ids, TiePolicy.TREC9, chunk_rows=chunk_rows), expected)
    # the first non-finite value in row order is the one reported, whichever thread meets it
    scores[140, 2] = np.nan
    scores[9, 17] = np.inf
    with pytest.raises(InputError, match=r"value at index \(9, 17\) is inf"):
        relevant_ranks(scores, labels, ids, chunk_rows=16)


def test_a_huge_finite_sum_is_not_an_error():
    scores, labels, ids = tied_dataset(n=40)
    scores[5, :] = 3e38   # each finite, the row's sum is not
    ranks = relevant_ranks(scores, labels, ids, chunk_rows=16)
    np.testing.assert_array_equal(ranks, sorting_ranks(scores, labels, ids, TiePolicy.STABLE, True))


@pytest.mark.parametrize("dtype", [np.float32, np.float64, np.int32])
def test_memory_mapped_continuous_scores(dtype, tmp_path):
    rng = np.random.default_rng(3)
    n = 300
    labels = rng.integers(0, 50, n).astype(str)
    emb = rng.standard_normal((n, 8))
    scores = emb @ emb.T - 0.5   # relevant scores on both sides of zero
    scores[rng.random((n, n)) < 0.01] = 1e8   # far above every relevant score
    matrix = (np.round(scores * 10) if dtype == np.int32 else scores).astype(dtype)
    np.save(tmp_path / "m.npy", matrix)
    mapped = np.load(tmp_path / "m.npy", mmap_mode="r")
    ids = [str(i) for i in range(n)]
    for ties in (TiePolicy.STABLE, TiePolicy.TREC9):
        # scores that are not float64 are compared as float32
        expected = sorting_ranks(matrix.astype(np.float32) if dtype == np.int32 else matrix,
                                 labels, ids, ties, True)
        np.testing.assert_array_equal(relevant_ranks(mapped, labels, None, ties, chunk_rows=64),
                                      expected)


@pytest.mark.parametrize("larger", [True, False])
def test_first_non_finite_value_is_reported(larger):
    scores, labels, ids = tied_dataset(n=40)
    scores[30, 2] = np.nan
    scores[9, 17] = -np.inf
    with pytest.raises(InputError, match=r"m\.npy: value at index \(9, 17\) is -inf"):
        relevant_ranks(scores, labels, ids, larger_is_better=larger, chunk_rows=16,
                       source="m.npy")


@pytest.mark.parametrize("dtype", [np.float32, np.float64])
@pytest.mark.parametrize("larger", [True, False])
def test_rows_of_every_length_up_to_a_few_vectors(dtype, larger):
    """Row lengths around the 4- and 8-lane vectors and the 16-item steps of the first pass, so
    that every row ends in a partial vector somewhere; a non-finite value in that last part."""
    rng = np.random.default_rng(7)
    for n in (2, 3, 5, 7, 8, 9, 15, 16, 17, 31, 33):
        labels = rng.integers(0, max(n // 3, 1), n).astype(str)
        scores = np.round(rng.random((n, n)), 1).astype(dtype)
        ids = [str(i) for i in range(n)]
        matrix = scores if larger else -scores
        np.testing.assert_array_equal(
            relevant_ranks(matrix, labels, ids, TiePolicy.STABLE, larger_is_better=larger,
                           chunk_rows=4),
            sorting_ranks(matrix, labels, ids, TiePolicy.STABLE, larger), err_msg=f"n={n}")
    matrix[5, n - 1] = np.nan
    with pytest.raises(InputError, match=rf"value at index \(5, {n - 1}\) is nan"):
        relevant_ranks(matrix, labels, ids, larger_is_better=larger)
