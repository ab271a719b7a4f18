"""The counting all-vs-all path agrees with the dense engine (which sorts whole rows)."""

import numpy as np
import pytest

from metrics import GroundTruth, evaluate
from metrics.allvsall import evaluate_ranks, relevant_ranks, streamable
from metrics.ranking import judge_scores
from metrics.registry import parse_measures

MEASURES = "AP,AP@5,RR,RR@3,P@1,P@5,P@10,R@5,nDCG,nDCG@5,FirstRank,MedianRank,MeanRank,Rprec," \
           "BEP,NumRel,NumRelRet@5"


def dataset(seed, n=60, decimals=1):
    rng = np.random.default_rng(seed)
    labels = rng.integers(0, n // 4, n)
    labels[rng.random(n) < 0.1] = 1000 + np.arange(n)[rng.random(n) < 0.1][:1].sum()  # singletons
    scores = np.round(rng.random((n, n)), decimals).astype(np.float32)   # many ties
    ids = [f"x{rng.integers(0, 10**6)}_{i}" for i in range(n)]
    return scores, labels.astype(str), ids


@pytest.mark.parametrize("seed", range(4))
@pytest.mark.parametrize("ties", ["stable", "id", "trec"])
@pytest.mark.parametrize("larger", [True, False])
def test_counting_equals_sorting(seed, ties, larger):
    scores, labels, ids = dataset(seed)
    matrix = scores if larger else -scores
    truth = GroundTruth.from_labels(ids, labels)
    dense = evaluate(judge_scores(matrix, ids, ids, truth, ties, larger_is_better=larger),
                     MEASURES)
    ranks = relevant_ranks(matrix, labels, ids, ties, larger_is_better=larger, chunk_rows=7)
    fast = evaluate_ranks(ranks, ids, MEASURES, list_length=len(ids) - 1)
    for name in dense.measures:
        np.testing.assert_allclose(fast.results[name].values, dense.results[name].values,
                                   rtol=0, atol=1e-12, err_msg=name)


def test_ranks_by_hand():
    scores = np.array([[9, 5, 5, 1], [5, 9, 2, 3], [5, 2, 9, 4], [1, 3, 4, 9]], dtype=np.float32)
    ranks = relevant_ranks(scores, ["a", "b", "a", "b"], ["w", "x", "y", "z"], "stable")
    # w: x and y tie at 5, x is the earlier column, so y (relevant) is rank 2
    assert ranks[0].tolist() == [2.0]
    ranks = relevant_ranks(scores, ["a", "b", "a", "b"], ["w", "x", "y", "z"], "trec")
    assert ranks[0].tolist() == [1.0]   # trec: id descending puts y before x
    assert ranks[1].tolist() == [2.0]   # x: w 5, z 3, y 2 -> z (relevant) second


def test_only_rank_measures_stream():
    assert streamable(parse_measures("AP,P@10,FirstRank,MedianRank"))
    assert not streamable(parse_measures("AP,Bpref"))
    assert not streamable(parse_measures("AP(norm=min)@10"))
