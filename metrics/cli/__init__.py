"""The command line: ``python -m metrics evaluate | evaluate-matrix | evaluate-embeddings |
compare | power | trec-eval | pool | agreement | judgments | measures | protocols``.

Exit status 0 on success and 2 on bad input, with one line on stderr naming the file and line.

:func:`main` sets the process up and turns every failure into that one line and an exit status;
the grammar is :mod:`metrics.cli.parser`, running a command :mod:`metrics.cli.commands`, what it
prints :mod:`metrics.cli.render`.
"""

from __future__ import annotations

import os
import sys
from typing import Sequence

from metrics.errors import CollectionSizeNeeded, InputError, UnknownMeasure
from metrics.ranking.rank import JUDGED

__all__ = ["main"]


def run(argv: Sequence[str] | None = None) -> int:
    """Run the command ``argv`` (``sys.argv[1:]`` when None); its exit status, or an InputError.
    ``trec-eval`` (trec_eval's own grammar, getopt's rather than argparse's) is handed on before
    the other commands' modules are loaded: what they import (the tests, the leaderboard, the
    power, the provenance record, argparse) is some 40 ms that a trec_eval run never uses."""
    argv = sys.argv[1:] if argv is None else list(argv)
    if argv[:1] == ["trec-eval"]:
        from metrics.cli.trec_eval import run as trec_eval
        return trec_eval(argv[1:])
    from metrics.cli.commands import run as run_command
    return run_command(argv)


def _no_huge_pages() -> None:
    """Ask NumPy not to request transparent huge pages for its large arrays (the
    ``NUMPY_MADVISE_HUGEPAGE=0`` setting, unless the user has set that variable).

    A command-line run allocates each large array once and exits; where the kernel compacts
    memory to find a 2 MB page on first touch (THP ``defrag=madvise``, a common default), that
    costs more than the small pages it saves. In two alternating series on the W1 benchmark it
    took 0.1 and 0.4 s off a median of about 4.3 s, mostly system time. The app, a long-lived
    process, keeps NumPy's default."""
    if "NUMPY_MADVISE_HUGEPAGE" in os.environ:
        return
    try:
        from numpy._core import multiarray
    except ImportError:  # NumPy 1.x
        from numpy.core import multiarray
    setter = getattr(multiarray, "_set_madvise_hugepage", None)
    if setter is not None:
        setter(False)


def main(argv: Sequence[str] | None = None) -> int:
    """Run the command line ``argv`` (``sys.argv[1:]`` when None) and return its exit status:
    0 done, 2 bad input, 1 out of memory or a bug."""
    _no_huge_pages()
    try:
        return run(argv)
    except CollectionSizeNeeded as exc:
        sys.stderr.write(f"error: {exc}: give it with --collection-size N, or --collection-size "
                         f"{JUDGED} when the ground truth judges every item of each query\n")
        return 2
    except UnknownMeasure as exc:
        sys.stderr.write(f"error: {exc}; 'python -m metrics measures' lists every measure and "
                         f"alias\n")
        return 2
    except InputError as exc:
        sys.stderr.write(f"error: {exc}\n")
        return 2
    except MemoryError:
        sys.stderr.write("error: not enough memory for this input\n")
        return 1
    except BrokenPipeError:   # the reader (head, less) has gone: nothing left to say
        return 0
    except Exception as exc:  # a bug: still one line, but say so
        if os.environ.get("METRICS_DEBUG"):
            raise
        sys.stderr.write(f"internal error ({type(exc).__name__}: {exc}); rerun with "
                         f"METRICS_DEBUG=1 for details and please report it\n")
        return 1
    except BaseException as exc:   # a Rust panic in polars/pyarrow is a BaseException
        if isinstance(exc, (KeyboardInterrupt, SystemExit, GeneratorExit)) or os.environ.get(
                "METRICS_DEBUG"):
            raise
        first = str(exc).strip().splitlines()[0] if str(exc).strip() else ""
        sys.stderr.write(f"error: a file reader stopped ({type(exc).__name__}: {first}), most "
                         f"often for lack of memory; try again with more memory free, or a "
                         f"smaller --memory\n")
        return 1


if __name__ == "__main__":  # pragma: no cover
    raise SystemExit(main())
