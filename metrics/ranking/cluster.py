"""Blocks of queries as tasks on a Dask cluster (``dask.distributed``), beyond one machine.

The streamed engine splits its work into blocks of queries
(:func:`metrics.ranking.streaming.count_block` for qrels,
:func:`metrics.ranking.allvsall.count_rows` for all against all); each block's result depends
only on its arguments. :meth:`Cluster.map` runs those same functions as Dask tasks and returns
their results in block order, so the counts, and everything computed from them, are those of a
run on one process. A worker that dies costs time only: the scheduler runs its tasks again
elsewhere.

Where the data comes from: what every block needs (the scores' source, the tie keys, the
cliques) is sent to every worker once, before the tasks (``scatter``, broadcast), never with each
task. A memory-mapped ``.npy`` file that every worker sees with the same size and the same
first and last megabyte at the same path (a shared file system, or identical copies) travels as
its path (:class:`~metrics.loaders.arrays.MappedFile`): each worker maps the file and reads only
the rows of its blocks. Any other array (a file some worker cannot see, a gzipped or uploaded
one) is read here and sent whole to every worker: fine for embeddings (N × d), but an N × N
matrix must then fit in each worker's memory, so put large matrices on a shared path.
"""

from __future__ import annotations

import importlib.util
import logging
import math
import uuid
from typing import Callable, Sequence

import numpy as np

from metrics.errors import InputError
from metrics.loaders.arrays import MappedFile, file_signature, whole_file_map

CONNECT_TIMEOUT = 5.0      # seconds to reach a scheduler before giving up
TASKS_PER_THREAD = 4       # at least this many tasks per worker thread: a lost task costs little
PAIRS_PER_TASK = 1 << 27   # query × item pairs a task counts, at most (well under a second)


def _dask():
    try:
        import distributed
    except ImportError:
        raise InputError("running on a Dask cluster needs dask[distributed]; install it with "
                         "pip install 'dask[distributed]'") from None
    return distributed


class Cluster:
    """A connection to a dask.distributed scheduler (or a local cluster it started), running
    blocks of work as tasks. Use as a context manager, or call :meth:`close`."""

    def __init__(self, client, local=None, block_rows: int | None = None):
        self.client = client
        self.local = local
        self.block_rows = block_rows    # fixed rows per task (tests: many small blocks)
        self._seen: dict[str, bool] = {}
        self.traffic: dict[str, float] = {}   # what the last map moved (see :meth:`map`)

    @classmethod
    def connect(cls, address: str, timeout: float = CONNECT_TIMEOUT,
                block_rows: int | None = None) -> "Cluster":
        """A client of the scheduler at ``address`` (``tcp://HOST:PORT``); an
        :class:`InputError` naming it if it cannot be reached within ``timeout`` seconds."""
        distributed = _dask()
        try:
            client = distributed.Client(address, timeout=timeout, set_as_default=False)
        except Exception as exc:   # refused, timed out, or not an address at all
            reason = str(exc) or type(exc).__name__
            raise InputError(f"cannot reach the Dask scheduler at {address} within "
                             f"{timeout:g} s ({reason})") from None
        try:
            _check_workers(client, address, timeout)
        except BaseException:
            client.close()
            raise
        return cls(client, block_rows=block_rows)

    @classmethod
    def start_local(cls, workers: int, memory_limit: str | int = 0,
                    block_rows: int | None = None) -> "Cluster":
        """A ``LocalCluster`` of ``workers`` processes of one thread each, listening on
        127.0.0.1 only. ``memory_limit`` 0: no limit per worker (the pages of a memory-mapped
        file count in a worker's memory, and Dask would restart a worker that reads a large one).
        """
        distributed = _dask()
        local = distributed.LocalCluster(n_workers=workers, threads_per_worker=1,
                                         processes=True, host="127.0.0.1",
                                         dashboard_address="127.0.0.1:0",
                                         memory_limit=memory_limit, silence_logs=logging.ERROR)
        return cls(distributed.Client(local, set_as_default=False), local, block_rows)

    def close(self) -> None:
        self.client.close()
        if self.local is not None:
            self.local.close()

    def __enter__(self) -> "Cluster":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    @property
    def threads(self) -> int:
        return max(1, sum(self.client.nthreads().values()))

    def rows_per_task(self, n_rows: int, n_items: int, at_most: int | None = None) -> int:
        """Query rows per task: enough tasks for every worker thread several times over, each at
        most :data:`PAIRS_PER_TASK` pairs and ``at_most`` rows (the memory budget's block)."""
        if self.block_rows:
            step = self.block_rows
        else:
            tasks = max(TASKS_PER_THREAD * self.threads,
                        math.ceil(n_rows * max(n_items, 1) / PAIRS_PER_TASK))
            step = max(1, math.ceil(n_rows / tasks))
        return max(1, min(step, at_most or step))

    def sees(self, path: str) -> bool:
        """Whether every worker sees the file at ``path`` as this process does."""
        if path not in self._seen:
            mine = file_signature(path)
            theirs = self.client.run(file_signature, path, on_error="return")
            self._seen[path] = bool(theirs) and all(
                not isinstance(v, BaseException) and tuple(v) == mine for v in theirs.values())
        return self._seen[path]

    def place(self, value):
        """``value`` as it should travel to the workers: a memory map that they all see as its
        path, any other memory map as its values; objects that hold arrays (embedding scores)
        with their arrays placed the same way."""
        if hasattr(value, "placed"):
            return value.placed(self.place)
        if isinstance(value, np.memmap):
            if whole_file_map(value) and self.sees(value.filename):
                return MappedFile.of(value)
            return np.array(value)
        return value

    def map(self, work: Callable, common: Sequence, blocks: Sequence[tuple],
            weights: Sequence[int], progress: Callable[[int], None] | None = None) -> list:
        """``[work(*common, *block) for block in blocks]``, each call a task on the cluster. The
        ``common`` arguments go to every worker once; ``progress(weight)`` is called as each
        block's result arrives. A task's error (bad input found by a worker) is raised here.
        Afterwards :attr:`traffic` holds the tasks' count and the bytes of array data sent to
        each worker once, into a task and out of one (means)."""
        distributed = _dask()
        placed = [self.place(value) if _bulky(value) else value for value in common]
        sent = [self.client.scatter(value, broadcast=True, hash=False) if _bulky(value)
                else value for value in placed]
        name = f"{getattr(work, '__name__', 'block')}-{uuid.uuid4().hex[:12]}"
        futures = [self.client.submit(work, *sent, *block, key=f"{name}-{i}", pure=False)
                   for i, block in enumerate(blocks)]
        index = {future.key: i for i, future in enumerate(futures)}
        results: list = [None] * len(futures)
        try:
            for future, value in distributed.as_completed(futures, with_results=True,
                                                             loop=self.client.loop):
                i = index[future.key]
                results[i] = value
                if progress is not None:
                    progress(weights[i])
        finally:
            self.client.cancel([*futures, *(x for x in sent if _is_future(x, distributed))])
        tasks = max(len(blocks), 1)
        self.traffic = {"tasks": len(blocks), "to_each_worker": _nbytes(placed),
                        "into_task": _nbytes(list(blocks)) / tasks,
                        "out_of_task": _nbytes(results) / tasks}
        return results


def _check_workers(client, address: str, timeout: float) -> None:
    """An :class:`InputError` unless the scheduler has a worker, and every worker can import
    this package (the tasks are its functions)."""
    try:
        client.wait_for_workers(1, timeout=timeout)
    except Exception:
        raise InputError(f"the Dask scheduler at {address} has no workers (none joined within "
                         f"{timeout:g} s); start some with: dask worker {address}") from None
    found = client.run(importlib.util.find_spec, __name__.split(".")[0], on_error="return")
    lacking = [worker for worker, spec in found.items()
               if spec is None or isinstance(spec, BaseException)]
    if lacking:
        raise InputError(f"the Dask worker {lacking[0]} ({len(lacking)} of {len(found)}) cannot "
                         f"import the package 'metrics'; install it where every worker runs "
                         f"(pip install .)")


def _bulky(value) -> bool:
    """Whether an argument is sent to the workers once ahead of the tasks (anything but a plain
    number, string or flag)."""
    return not isinstance(value, (str, bytes, int, float, bool, type(None)))


def _nbytes(value) -> int:
    """Bytes of array data in a value (arrays, and those held in sequences or objects' fields);
    about what pickling it moves."""
    if isinstance(value, np.ndarray) and not isinstance(value, np.memmap):
        return value.nbytes
    if isinstance(value, (list, tuple)):
        return sum(_nbytes(x) for x in value)
    if hasattr(value, "__dict__") and not isinstance(value, type):
        return sum(_nbytes(x) for x in vars(value).values())
    return 0


def _is_future(value, distributed) -> bool:
    return isinstance(value, distributed.Future)


def from_options(scheduler: str | None, workers: int | None) -> Cluster | None:
    """The cluster the command line asked for: ``--scheduler`` or ``--workers``, else None."""
    if scheduler:
        return Cluster.connect(scheduler)
    if workers:
        return Cluster.start_local(workers)
    return None
