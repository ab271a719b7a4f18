"""Array work split over the machine's cores.

NumPy's loops (comparisons, gathers, sorts, searches) and polars' kernels release the GIL, so
threads working on contiguous parts of the same arrays run in parallel. The engine's passes over
ten million rows are written as functions of a row range and run through :func:`over_parts`;
small inputs stay in one part, on the calling thread.
"""

from __future__ import annotations

import os
import queue
import threading
from concurrent.futures import ThreadPoolExecutor
from typing import Callable, Iterator, TypeVar

import numpy as np

T = TypeVar("T")
U = TypeVar("U")

WORKERS = max(1, min(len(os.sched_getaffinity(0)) if hasattr(os, "sched_getaffinity")
                     else os.cpu_count() or 1, 8))
MIN_PART = 1 << 20  # rows (or bytes) below which a thread costs more than it saves

_PREFIX = "metrics-part"
_pool: ThreadPoolExecutor | None = None
_pool_lock = threading.Lock()


def over_parts(work: Callable[[int, int], T], n: int, width: int = 1) -> list[T]:
    """``[work(start, stop), ...]`` over contiguous parts of ``range(n)``, in order; the parts run
    on up to :data:`WORKERS` threads, each part at least :data:`MIN_PART` elements long (a row of
    a matrix counting ``width`` elements)."""
    parts = max(1, min(WORKERS, n * width // MIN_PART, n))
    if threading.current_thread().name.startswith(_PREFIX):
        parts = 1  # already on a worker: waiting on the same pool from inside it could deadlock
    bounds = [n * i // parts for i in range(parts + 1)]
    if parts == 1:
        return [work(0, n)]
    return list(_workers().map(lambda i: work(bounds[i], bounds[i + 1]), range(parts)))


def _workers() -> ThreadPoolExecutor:
    global _pool
    with _pool_lock:
        if _pool is None:
            _pool = ThreadPoolExecutor(max_workers=WORKERS, thread_name_prefix=_PREFIX)
    return _pool


def both(first: Callable[[], T], second: Callable[[], U]) -> tuple[T, U]:
    """``(first(), second())``, the second run on a worker thread while the first runs here; both
    have ended when this returns or raises (the first one's exception first)."""
    if threading.current_thread().name.startswith(_PREFIX):
        return first(), second()   # already on a worker (see over_parts)
    pending = _workers().submit(second)
    try:
        mine = first()
    except BaseException:
        pending.exception()   # waited for: what it works on must outlive it
        raise
    return mine, pending.result()


def arange_in_parts(n: int) -> np.ndarray:
    """``np.arange(n)`` (int64), written by parts on the cores. Ten million rows are 80 MB of
    fresh pages, and first touching them costs more than computing them."""
    out = np.empty(n, dtype=np.int64)

    def fill(start: int, stop: int) -> None:
        out[start:stop] = np.arange(start, stop)
    over_parts(fill, n)
    return out


def repeat_in_parts(values: np.ndarray, counts: np.ndarray) -> np.ndarray:
    """``np.repeat(values, counts)``, written by parts on the cores (whole blocks per part)."""
    counts = np.asarray(counts, dtype=np.int64)
    ends = np.cumsum(counts)
    total = int(ends[-1]) if len(ends) else 0
    out = np.empty(total, dtype=np.asarray(values).dtype)

    def fill(first: int, last: int) -> None:
        begin = int(ends[first - 1]) if first else 0
        out[begin:int(ends[last - 1])] = np.repeat(values[first:last], counts[first:last])
    if len(counts):
        over_parts(fill, len(counts), width=max(total // len(counts), 1))
    return out


_DONE = object()


def read_ahead(produce: Callable[[], Iterator[T]], ahead: int = 1) -> Iterator[T]:
    """The items of ``produce()``, made up to ``ahead`` items ahead on a thread of their own:
    reading and parsing the next block of a file (polars, NumPy and the C reader release the
    GIL) overlaps the work on this one, at the cost of the items held. An exception of the
    producer comes out here, at the item where it happened; when the consumer stops early, the
    producer stops at its next item (it is closed, so its files are)."""
    handoff: queue.Queue = queue.Queue(maxsize=ahead)
    stop = threading.Event()

    def give(item) -> bool:
        while not stop.is_set():
            try:
                handoff.put(item, timeout=0.05)
                return True
            except queue.Full:
                continue
        return False

    def run() -> None:
        items = produce()
        try:
            for item in items:
                if not give((True, item)):
                    return
            give((True, _DONE))
        except BaseException as exc:   # handed over, raised again on the consumer's side
            give((False, exc))
        finally:
            close = getattr(items, "close", None)
            if close is not None:
                close()

    worker = threading.Thread(target=run, name="metrics-read-ahead", daemon=True)
    worker.start()
    try:
        while True:
            ok, item = handoff.get()
            if not ok:
                raise item
            if item is _DONE:
                return
            yield item
    finally:
        stop.set()
        worker.join()
