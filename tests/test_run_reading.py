"""How a streamed run is read fast: metrics.parallel.read_ahead makes the next block on a thread
of its own while this one is judged (same items in the same order, the producer's errors where
they happened, no thread left behind when the consumer stops early), and a plain file is read a
block of whole lines at a time, each by one read (metrics.loaders.run_blocks)."""

import threading
import time

import pytest

from metrics.parallel import read_ahead


def _threads() -> list[str]:
    return [t.name for t in threading.enumerate() if t.name == "metrics-read-ahead"]


def test_items_come_in_order_made_on_another_thread():
    made_on = []

    def produce():
        for i in range(50):
            made_on.append(threading.get_ident())
            yield i

    assert list(read_ahead(produce)) == list(range(50))
    assert set(made_on) == {made_on[0]} and made_on[0] != threading.get_ident()
    assert not _threads()


def test_producer_runs_at_most_one_item_ahead():
    made = []

    def produce():
        for i in range(10):
            made.append(i)
            yield i

    items = read_ahead(produce)
    assert next(items) == 0
    time.sleep(0.5)   # time enough for a producer without a bound to make them all
    # at most: 0 taken, 1 waiting in the hand-over, 2 made and waiting to be handed over
    assert made[:2] == [0, 1] and len(made) <= 3
    items.close()


def test_producer_error_comes_after_the_items_before_it():
    def produce():
        yield "a"
        yield "b"
        raise ValueError("block 3 is bad")

    got = []
    with pytest.raises(ValueError, match="block 3 is bad"):
        for item in read_ahead(produce):
            got.append(item)
    assert got == ["a", "b"]
    assert not _threads()


def test_stopping_early_closes_the_producer_and_ends_its_thread():
    closed = threading.Event()

    def produce():
        try:
            for i in range(1000):
                yield i
        finally:
            closed.set()

    items = read_ahead(produce)
    assert [next(items), next(items)] == [0, 1]
    items.close()
    assert closed.is_set()
    assert not _threads()


def test_unsorted_streamed_run_gives_way_without_a_thread_left(tmp_path):
    """judge_run_stream stops at the block where a query comes back (reading ahead of it)."""
    from metrics.loaders import load_qrels
    from metrics.ranking.run_stream import judge_run_stream

    run = tmp_path / "run.trec"
    lines = [f"q{q} Q0 d{d} 0 {10 - d} tag" for q in (1, 2) for d in range(5)]
    lines += ["q1 Q0 d9 0 0.5 tag"] + [f"q3 Q0 d{d} 0 {10 - d} tag" for d in range(200)]
    run.write_text("\n".join(lines) + "\n")
    qrels = tmp_path / "qrels"
    qrels.write_text("q1 0 d1 1\nq2 0 d2 1\nq3 0 d3 1\n")
    assert judge_run_stream(run, load_qrels(qrels), block=40) is None
    assert not _threads()


@pytest.mark.parametrize("smallest_buffer", [1, 7, 64, 1 << 16])
@pytest.mark.parametrize("block", [1, 10, 40, 333, 1 << 20])
@pytest.mark.parametrize("last_line_end", [True, False])
def test_plain_blocks_are_whole_lines_of_the_file(tmp_path, monkeypatch, smallest_buffer, block,
                                                  last_line_end):
    """A plain run is read a block at a time into one buffer: every block is whole lines,
    together they are the file, and a line longer than the block or the buffer is read on to its
    end (lines here of 1 to 300 bytes; the buffer grows for them)."""
    from metrics.loaders import run_blocks

    monkeypatch.setattr(run_blocks, "_SMALLEST_BUFFER", smallest_buffer)
    lines = [b"x" * (1 + (i * 37) % 300) for i in range(200)]
    text = b"\n".join(lines) + (b"\n" if last_line_end else b"")
    path = tmp_path / "run.trec"
    path.write_bytes(text)
    # each block is a view of the reading buffer, good until the next one is read: copied here
    blocks = [bytes(b) for b in run_blocks._plain_line_blocks(path, "run.trec", block)]
    assert b"".join(blocks) == text
    assert all(b.endswith(b"\n") for b in blocks[:-1]) and all(blocks)
    longest = max(map(len, lines)) + 1
    assert all(len(b) <= max(block, 1) + longest for b in blocks)
    if block >= longest:   # each block holds the lines that fit, not a line more or less
        ends = [len(b) for b in blocks]
        assert all(size > block - longest for size in ends[:-1])
