"""A cache bounded by the bytes its values hold, least recently used out first.

Streamlit's own caches are bounded by entry count and time only; a loaded dataset can take a few
MB or a GB, so the dashboard keeps its datasets here instead. Rules:

* a key is computed once, even when several threads (sessions) ask for it at the same time: the
  others wait for the first and get its value (or its exception; exceptions are not kept);
* after a value is stored, the least recently used values are evicted until the sizes sum to at
  most the budget;
* a value larger than the whole budget is returned but not kept (keeping it would break the
  budget; every use computes it again), and evicts nothing;
* after a value is stored, the memory freed by the computation and by the evictions is handed
  back to the system (:func:`release_freed_memory`).

No Streamlit here: the dashboard holds one instance per server process (dashboard/datasets.py).
"""

from __future__ import annotations

import ctypes
import gc
import threading
from collections import OrderedDict
from typing import Callable, Hashable


class _Pending:
    """A computation in progress: threads asking for the same key wait on ``done``."""

    def __init__(self) -> None:
        self.done = threading.Event()
        self.value = None
        self.error: BaseException | None = None


class MemoryBoundedCache:
    """Values by key, their sizes (``sizeof(value)``, bytes) summing to at most ``budget``."""

    def __init__(self, budget: int, sizeof: Callable[[object], int]):
        self.budget = int(budget)
        self.sizeof = sizeof
        self._entries: OrderedDict[Hashable, tuple[object, int]] = OrderedDict()  # oldest first
        self._pending: dict[Hashable, _Pending] = {}
        self._lock = threading.Lock()

    @property
    def total(self) -> int:
        """The bytes the kept values hold."""
        with self._lock:
            return sum(size for _, size in self._entries.values())

    def keys(self) -> list:
        """The kept keys, least recently used first."""
        with self._lock:
            return list(self._entries)

    def __contains__(self, key) -> bool:
        with self._lock:
            return key in self._entries

    def get(self, key: Hashable, compute: Callable[[], object]):
        """The value of ``key``: kept, being computed by another thread, or ``compute()`` now."""
        with self._lock:
            if key in self._entries:
                self._entries.move_to_end(key)
                return self._entries[key][0]
            pending = self._pending.get(key)
            mine = pending is None
            if mine:
                pending = self._pending[key] = _Pending()
        if not mine:
            pending.done.wait()
            if pending.error is not None:
                raise pending.error
            return pending.value
        try:
            value = compute()
        except BaseException as exc:
            pending.error = exc
            raise
        else:
            pending.value = value
            self._store(key, value)
            return value
        finally:
            with self._lock:
                del self._pending[key]
            pending.done.set()

    def _store(self, key: Hashable, value) -> None:
        size = int(self.sizeof(value))
        if size > self.budget:
            return
        with self._lock:
            self._entries[key] = (value, size)
            total = sum(s for _, s in self._entries.values())
            while total > self.budget:   # no reference to an evicted value is kept here
                total -= self._entries.popitem(last=False)[1][1]
        # a load is seconds of work: a full collection here (a tenth of a second) frees the
        # cycles its parsing and the evicted values left, which the server does not collect
        # after every script run (.streamlit/config.toml, runner.postScriptGC)
        gc.collect()
        release_freed_memory()

    def clear(self) -> None:
        with self._lock:
            self._entries.clear()


def release_freed_memory() -> None:
    """Hand memory that was freed back to the system (glibc's ``malloc_trim``; elsewhere
    nothing). glibc keeps freed blocks below its mmap threshold, which grows up to 32 MB as large
    arrays are freed, in its per-thread arenas. Measured in a server taking twenty 50 MB uploads:
    once the cache was full (0.93 GiB of datasets), resident memory still grew by about 50 MB
    per upload, to 1.85 GiB; with this call after each stored dataset it stayed at 1.25 GiB."""
    try:
        ctypes.CDLL("libc.so.6").malloc_trim(0)
    except (OSError, AttributeError):   # not glibc (macOS, musl): its allocator decides
        pass
