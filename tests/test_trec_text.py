"""One order for reading TREC text (metrics.loaders.runs.read_trec_text): the C reader, then
polars, then the careful reader, for a run read whole, for qrels, and for a run read as a stream
(metrics.loaders.run_blocks). The C reader is switched off in that one place, for all three."""

from __future__ import annotations

import os

import numpy as np
import pytest

from metrics.loaders import load_qrels, load_run, runs
from metrics.loaders import trec_lines
from metrics.loaders.run_blocks import run_blocks
from metrics.loaders.trec_lines import BlockIds

pytestmark = pytest.mark.skipif(not trec_lines.COMPILED and os.environ.get("CI") != "true",
                                reason="the C reader is not built here")

RUN = (b"q2 Q0 d3 1 0.7 tag\nq1 Q0 d1 1 0.9 tag\nq1 Q0 d2 2 0.5 tag\n"
       b"q2 Q0 d3 2 0.1 tag\nq1 Q0 d4 3 -1e-3 tag\nq3 Q0 d1 1 1e300 tag\n")   # q2's d3 twice


def columns(run) -> tuple:
    return (run.query_ids.tolist(), run.items.tolist(), run.scores.tolist(), run.tag,
            run.name, run.warnings)


@pytest.mark.parametrize("text", [
    RUN,
    RUN.replace(b" tag\n", b" other\n", 1),   # tags that differ: no tag
    b"1.0 Q0 10.0 1 0.5 t\n1.0 Q0 11.0 2 0.4 t\n2.0 Q0 10.0 1 0.3 t\n",   # whole-float ids
    b"q1\tQ0\td1\t1\t0.25\tt\nq1\tQ0\td2\t2\t0.125\tt",   # tabs, no last line end
])
def test_a_run_read_whole_by_the_c_reader_is_the_one_polars_reads(monkeypatch, text):
    c = load_run(text, "a.run")
    monkeypatch.setattr(runs, "COMPILED", False)
    polars = load_run(text, "a.run")
    assert columns(c) == columns(polars)
    assert not isinstance(polars.items, BlockIds)


def test_the_c_reader_reads_a_run_whole_as_it_reads_qrels_and_streams():
    assert isinstance(load_run(RUN, "a.run").items, BlockIds)
    assert isinstance(load_qrels(b"q1 0 d1 1\nq1 0 d2 0\n", "q").pair_items, BlockIds)


def test_switched_off_in_the_one_place_the_c_reader_reads_nothing(monkeypatch, tmp_path):
    path = tmp_path / "a.run"
    path.write_bytes(RUN.replace(b"q2 Q0 d3 2 0.1 tag\n", b""))   # sorted by query
    monkeypatch.setattr(runs, "COMPILED", False)
    assert not isinstance(load_run(path).items, BlockIds)
    assert not isinstance(load_qrels(b"q1 0 d1 1\nq1 0 d2 0\n", "q").pair_items, BlockIds)
    blocks = list(run_blocks(path, "a.run", 40))
    assert len(blocks) > 1 and all(b.run_flags is None for b in blocks)   # polars' blocks


def test_filtered_block_ids_keep_the_chosen_ids_and_their_keys():
    ids = BlockIds.from_strings(["a", "bcd", "", "ef", "g", "hi"]).slice(1, 5)   # bcd … hi
    kept = ids.filter(np.array([True, True, False, False, True]))
    assert kept.tolist() == ["bcd", "", "hi"]
    assert kept.offsets.tolist() == [0, 3, 3, 5]
    assert kept.keys.tolist() == BlockIds.from_strings(["bcd", "", "hi"]).keys.tolist()
