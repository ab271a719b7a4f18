"""Where every query stands across systems (metrics/explain/standings.py), worked by hand."""

import numpy as np
import pytest

from metrics.explain.standings import standings


def test_where_every_query_stands_by_hand():
    values = {"a": np.array([0.0, 0.5, 1.0, np.nan]), "b": np.array([0.0, 0.1, 0.8, 0.0]),
              "c": np.array([0.0, 0.9, 0.6, np.nan])}
    hardest, failed, disagreement = standings(["q1", "q2", "q3", "q4"], values)
    # means over the systems with a value: q1 0, q2 0.5, q3 0.8, q4 0 (q1 before q4: their order)
    assert hardest.index.tolist() == ["q1", "q4", "q2", "q3"]
    assert hardest["mean over systems"].tolist() == pytest.approx([0.0, 0.0, 0.5, 0.8])
    assert list(hardest.columns) == ["a", "b", "c", "mean over systems"]
    assert failed == ["q1", "q4"]           # every system 0 or undefined
    assert disagreement.index.tolist() == ["q2", "q3", "q1"]   # q4: one value, no spread
    assert disagreement["spread"].tolist() == pytest.approx([0.8, 0.4, 0.0])
    assert disagreement.loc["q2", "best system"] == "c"
    assert disagreement.loc["q2", "worst system"] == "b"
    assert (disagreement.loc["q3", "best system"], disagreement.loc["q3", "worst system"]) == (
        "a", "c")


def test_for_a_rank_the_hardest_query_has_the_largest_mean_and_failing_is_undefined():
    # FirstRank: lower is better. Means q1 (1+3+2)/3 = 2, q2 (5+2)/2 = 3.5, q3 undefined (last)
    values = {"a": np.array([1.0, 5.0, np.nan]), "b": np.array([3.0, 2.0, np.nan]),
              "c": np.array([2.0, np.nan, np.nan])}
    hardest, failed, disagreement = standings(["q1", "q2", "q3"], values, False)
    assert hardest.index.tolist() == ["q2", "q1", "q3"]
    assert failed == ["q3"]                 # a rank of 1 is no failure: undefined for all only
    assert disagreement.index.tolist() == ["q2", "q1"]
    assert disagreement["spread"].tolist() == [3.0, 2.0]
    assert disagreement.loc["q2", ["best system", "worst system"]].tolist() == ["b", "a"]
    assert disagreement.loc["q1", ["best system", "worst system"]].tolist() == ["a", "b"]
