"""Scores rounded to float32 before they are ranked, as the acoss and re-move reference codes rank
them (``np.array(D, dtype=np.float32)``, ``tensor.float()``): two scores that differ by less than
float32 resolves become equal there, and are then ordered by the tie policy.

Rounding is round-to-nearest-even, what NumPy's and torch's casts do. A finite score beyond
float32's range would become an infinity there; it is refused, naming where it is. Nothing is
held whole: rows of a matrix (or of embedding scores) are rounded as they are read.
"""

from __future__ import annotations

from dataclasses import dataclass, replace

import numpy as np

from metrics.data.run import Run
from metrics.errors import InputError

FLOAT32_MAX = float(np.finfo(np.float32).max)


def _out_of_range(values: np.ndarray, rounded: np.ndarray) -> np.ndarray:
    """Where a finite value became an infinity in float32 (NaN and infinities are left to the
    finiteness checks downstream, which name them as they are)."""
    return np.isinf(rounded) & np.isfinite(values)


def _range_message(value: float) -> str:
    return (f"is {value!r}, beyond float32's range (±{FLOAT32_MAX:.7g}): the protocol compares "
            f"scores as float32, as its reference code casts them; rescale the scores")


def rounded(values: np.ndarray) -> np.ndarray:
    """The values as float32 (no warning: an overflow is looked for by the caller)."""
    with np.errstate(over="ignore", invalid="ignore"):
        return np.asarray(values).astype(np.float32)


@dataclass(frozen=True, eq=False)
class Float32Rows:
    """Rows of scores (an N×N array or memory map, or :class:`EmbeddingScores`) handed out as
    float32, each block rounded as it is read. Sent to a cluster's workers, the scores inside are
    placed as they would be on their own (a shared memory-mapped file travels as its path)."""

    scores: object
    source: str

    @property
    def shape(self) -> tuple[int, int]:
        return tuple(self.scores.shape)

    @property
    def dtype(self) -> np.dtype:
        return np.dtype(np.float32)

    def __len__(self) -> int:
        return self.shape[0]

    def placed(self, place) -> "Float32Rows":
        return Float32Rows(place(self.scores), self.source)

    def rows(self, which) -> np.ndarray:
        """Rows ``which`` (a slice or an index array) as float32."""
        block = (self.scores.rows(which) if hasattr(self.scores, "rows")
                 else np.asarray(self.scores[which]))
        out = rounded(block)
        bad = _out_of_range(block, out)
        if bad.any():
            r, c = (int(i) for i in np.argwhere(bad)[0])
            row = int(np.arange(self.shape[0])[which][r])
            raise InputError(f"value at index ({row}, {c}) {_range_message(float(block[r, c]))}",
                             source=self.source)
        return out

    def __getitem__(self, which) -> np.ndarray:
        return self.rows(which)


def float32_rows(scores, source: str):
    """``scores`` compared as float32: as they are when they already are float32 (a float32 file
    stays memory-mapped and is read in place), else :class:`Float32Rows`."""
    if np.dtype(getattr(scores, "dtype", np.float64)) == np.float32:
        return scores
    return Float32Rows(scores, source)


def float32_run(run: Run, source: str | None = None) -> Run:
    """The run with every score rounded to float32 (kept as float64 values, which hold them
    exactly); a bare ranked list has no scores and stays as it is."""
    if run.scores is None:
        return run
    out = rounded(run.scores)
    bad = np.flatnonzero(_out_of_range(run.scores, out))
    if len(bad):
        raise InputError(f"score {_range_message(float(run.scores[bad[0]]))}",
                         source=source or run.name, row=int(bad[0]) + 1)
    return replace(run, scores=out.astype(np.float64))


__all__ = ["Float32Rows", "float32_rows", "float32_run"]
