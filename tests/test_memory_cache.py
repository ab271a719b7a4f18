"""The dashboard's cache of datasets, bounded by memory, and the byte count it relies on."""

import sys
import threading
import time

import numpy as np
import polars as pl
import pytest

from dashboard.memory_cache import MemoryBoundedCache
from metrics.data.footprint import deep_nbytes
from metrics.data.idcolumn import IdColumn
from metrics.data.judged import JudgedRanking
from uploads import judge_upload
from metrics.ranking.rank import RunLists


def sized(budget):
    """A cache of byte strings whose size is their length."""
    return MemoryBoundedCache(budget, len)


def test_least_recently_used_goes_first_and_the_budget_holds():
    cache = sized(100)
    for key in "abc":
        cache.get(key, lambda: b"x" * 30)
    assert cache.keys() == ["a", "b", "c"] and cache.total == 90
    cache.get("a", lambda: pytest.fail("a is kept: not computed again"))   # a used: b is oldest
    cache.get("d", lambda: b"y" * 30)   # 120 > 100: b goes
    assert cache.keys() == ["c", "a", "d"] and cache.total == 90
    cache.get("e", lambda: b"z" * 70)   # 160: c and a go, 100 = the budget is allowed
    assert cache.keys() == ["d", "e"] and cache.total == 100


def test_a_value_larger_than_the_budget_is_served_not_kept_and_evicts_nothing():
    cache = sized(100)
    cache.get("small", lambda: b"s" * 40)
    assert cache.get("big", lambda: b"b" * 101) == b"b" * 101
    assert cache.keys() == ["small"] and cache.total == 40
    calls = []
    cache.get("big", lambda: calls.append(1) or b"b" * 101)
    assert calls == [1]   # computed again on its next use


def test_an_exception_is_raised_and_not_kept():
    cache = sized(100)
    with pytest.raises(ValueError, match="bad file"):
        cache.get("k", lambda: (_ for _ in ()).throw(ValueError("bad file")))
    assert cache.keys() == []
    assert cache.get("k", lambda: b"ok") == b"ok"


def test_threads_asking_for_one_key_compute_it_once_and_share_the_value():
    cache = sized(1000)
    calls, results = [], []

    def slow():
        calls.append(threading.get_ident())
        time.sleep(0.3)
        return bytearray(10)

    threads = [threading.Thread(target=lambda: results.append(cache.get("k", slow)))
               for _ in range(6)]
    for t in threads:
        t.start()
    for t in threads:
        t.join()
    assert len(calls) == 1 and len(results) == 6
    assert all(r is results[0] for r in results)


def test_different_keys_do_not_wait_for_each_other():
    # no clock: the slow computation holds until the fast one has returned, so a fast get that
    # waited for the slow key would only return after the slow thread ended (10 s at most)
    cache = sized(1000)
    started, release = threading.Event(), threading.Event()

    def slow():
        started.set()
        release.wait(10)
        return b"slow"

    t = threading.Thread(target=cache.get, args=("slow", slow))
    t.start()
    started.wait()
    assert cache.get("fast", lambda: b"fast") == b"fast"
    assert t.is_alive() and not release.is_set()   # the slow key is still being computed
    release.set()
    t.join()


# ---- the byte count ----------------------------------------------------------------------------

def test_nbytes_of_answer_sets_by_hand():
    # two lists: [1, 0, 1] with R = 2 and [0] with R = 1 (Serrà's form); no |D|
    j = JudgedRanking.from_relevance([[1, 0, 1], [0]], [2, 1])
    # int64 arrays: lengths 2, offsets 3, hit ranks 4, hit grades 4; the truth's grade counts are
    # (query, grade, count) triples: q0 has grades 0 and 1, q1 has 0 and 1 -> 4 triples of 3
    # arrays; query ids: an object array of 2 pointers and the strings "A1", "A2"
    by_hand = 8 * (2 + 3 + 4 + 4) + 8 * 3 * 4 + 8 * 2 + 2 * sys.getsizeof("A1")
    assert len(j.truth_grades.query) == 4   # the count above assumes four triples
    assert j.nbytes == by_hand


def test_nbytes_counts_the_lists_kept_for_display_and_each_buffer_once():
    j = JudgedRanking.from_relevance([[1, 0, 1], [0]], [2, 1])
    rows = np.arange(4, dtype=np.int64)
    scores = np.linspace(1, 0, 4)
    items = IdColumn(pl.Series(["d1", "d2", "d3", "d4"]))
    lists = RunLists(rows, np.array([0, 3]), np.array([3, 1]), items, scores)
    from dataclasses import replace
    shown = replace(j, lists=lists, query_rows=rows[:2])   # a view of rows: no new buffer
    # the ids: polars' estimate (their 8 bytes) and a 16-byte view per string
    assert items.series.estimated_size() == 4 * 2
    expected = j.nbytes + rows.nbytes + 16 + 16 + scores.nbytes + 4 * 2 + 4 * 16
    assert shown.nbytes == expected
    # two systems sharing the same lists count them once
    assert deep_nbytes(shown, replace(shown, name="other")) == expected


def test_nbytes_counts_the_bytes_under_an_array_once_and_a_memory_map_not_at_all(tmp_path):
    data = bytes(800)
    view = np.frombuffer(data, dtype=np.int64)
    assert deep_nbytes(view, view[10:], data) == 800
    path = tmp_path / "a.npy"
    np.save(path, np.zeros(1000))
    assert deep_nbytes(np.load(path, mmap_mode="r")) == 0


def test_a_loaded_trec_run_is_counted_near_its_arrays():
    run = "".join(f"q{q} Q0 d{d} {d} {1 / d} s\n" for q in range(20) for d in range(1, 501))
    qrels = "".join(f"q{q} 0 d{d} 1\n" for q in range(20) for d in range(1, 500, 7))
    data = judge_upload("runs+qrels", {"runs": [("s.run", run.encode())],
                                       "qrels": [("t.qrels", qrels.encode())]})
    (judged,) = data.values()
    lists = judged.lists
    floor = lists.rows.nbytes + lists.scores.nbytes + 16 * len(lists.items)
    assert floor < judged.nbytes < floor + 2_000_000


def test_the_budget_comes_from_the_environment_in_mebibytes(monkeypatch, capsys):
    from dashboard.datasets import CACHE_BUDGET_VARIABLE, dataset_cache_budget

    monkeypatch.delenv(CACHE_BUDGET_VARIABLE, raising=False)
    assert dataset_cache_budget() == 1024 * 2**20
    monkeypatch.setenv(CACHE_BUDGET_VARIABLE, "256")
    assert dataset_cache_budget() == 256 * 2**20
    monkeypatch.setenv(CACHE_BUDGET_VARIABLE, "a lot")
    assert dataset_cache_budget() == 1024 * 2**20
    assert "'a lot' is not a number of megabytes" in capsys.readouterr().err
