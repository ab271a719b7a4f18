"""Similarities of query embeddings to item embeddings, computed a block of query rows at a time
(:class:`EmbeddingScores`), for the streamed ranking of :mod:`metrics.ranking.streaming`.

Cosine and dot product scores are computed in the embeddings' own precision: float32 embeddings
give float32 scores (single-precision BLAS), anything else float64. Euclidean distances are
computed in float64 from shifted, scaled coordinates whatever the embeddings' precision, so that
a shift of the data changes no ranking. A score beyond the float range is refused, never ranked.
"""

from __future__ import annotations

import math
import threading
from typing import Callable, Iterator

import numpy as np

from metrics.errors import InputError


def _exponent(values: np.ndarray) -> np.ndarray:
    """floor(log2 v) for each v > 0, and 0 for 0: 2^that is an exact scale for v."""
    return np.where(values > 0, np.frexp(values)[1] - 1, 0)


def _scaled_rows(rows) -> tuple[np.ndarray, np.ndarray, np.ndarray]:
    """Each row in float64 divided by 2^k, k the exponent of its largest value, and the norms
    of the scaled rows: their squares neither overflow nor underflow, whatever the magnitude
    (1e200 or 1e-200). Returns (scaled rows, k, scaled norms)."""
    rows = np.asarray(rows, dtype=np.float64)
    exponent = _exponent(np.abs(rows).max(axis=1, initial=0.0))
    scaled = np.ldexp(rows, -exponent[:, None])
    return scaled, exponent, np.sqrt(np.einsum("ij,ij->i", scaled, scaled))


def _unit_rows(rows) -> np.ndarray:
    """Each row divided by its Euclidean norm, in float64; a zero row stays zero."""
    scaled, _, norms = _scaled_rows(rows)
    return scaled / np.where(norms == 0, 1.0, norms)[:, None]


def _inverse_norms(rows) -> np.ndarray:
    """1/‖x‖ per row in float64 (1 for a zero row), for rows of any finite magnitude."""
    _, exponent, norms = _scaled_rows(rows)
    return np.where(norms == 0, 1.0, np.ldexp(1.0 / np.where(norms == 0, 1.0, norms), -exponent))


def _norm_text(row) -> str:
    """‖x‖ written out, also where it is beyond a double."""
    _, exponent, norms = _scaled_rows(np.asarray(row)[None])
    if not norms[0]:
        return "0"
    decimal = math.log10(norms[0]) + int(exponent[0]) * math.log10(2)
    return f"{10 ** (decimal % 1):.3g}e{math.floor(decimal):+d}"


class EmbeddingScores:
    """Query × item similarities computed block by block: cosine, dot product or negative
    Euclidean distance (larger is more similar).

    The items are never copied whole: a memory-mapped file stays on disk and in the page cache.
    Cosine and dot product are one BLAS product per block in the embeddings' precision; only one
    number per item is kept (its inverse norm, for cosine), computed on first use, in steps.

    Euclidean distances come from ‖q − x‖² = ‖q‖² + ‖x‖² − 2q·x, which cancels when the vectors
    sit far from the origin (adding 1000 to every coordinate changes no distance but wipes out
    float32's digits). So every row is first shifted by one vector c and scaled by one power of
    two 2^−e — which changes no ranking, and each distance by exactly 2^e — and the distances are
    computed in float64, items a step of rows at a time: c is the midpoint of each coordinate's
    range over queries and items, rounded to a multiple of a power of two near that range (so
    x − c is exact, and vectors of small whole numbers stay exact); 2^e is near the largest
    range. The centred, scaled values are at most about 2, so nothing overflows or underflows,
    and the scores are −2^e·‖q_c − x_c‖.

    A score that is not finite (the dot product of vectors with norms near 1e200, say) is refused
    with an error naming the files, never ranked. Pickled (sent to a cluster's workers) it
    carries only its arrays, kind and file names; each process computes the rest again."""

    STEP_BYTES = 8 << 20   # float64 rows read at a time: for norms, ranges and distances

    def __init__(self, queries: np.ndarray, items: np.ndarray, kind: str = "cosine",
                 sources: tuple[str, str] = ("query embeddings", "item embeddings")):
        if kind not in ("cosine", "dot", "euclidean"):
            raise InputError(f"unknown similarity {kind!r}; use one of cosine, dot, euclidean")
        both32 = queries.dtype == np.float32 and items.dtype == np.float32
        self.dtype = np.dtype(np.float32 if both32 and kind != "euclidean" else np.float64)
        self.kind = kind
        self.queries = queries
        self.raw_items = items
        self.sources = tuple(sources)
        self.shape = (queries.shape[0], items.shape[0])
        self._items = self._item_scale = self._frame = None
        self._preparing = threading.RLock()   # blocks counted on several threads prepare once

    def __reduce__(self):
        return EmbeddingScores, (self.queries, self.raw_items, self.kind, self.sources)

    def placed(self, place: Callable) -> "EmbeddingScores":
        """The same scores with each array replaced by ``place(array)`` (see
        :meth:`metrics.ranking.cluster.Cluster.place`)."""
        same = self.raw_items is self.queries
        queries = place(self.queries)
        return EmbeddingScores(queries, queries if same else place(self.raw_items), self.kind,
                               self.sources)

    @property
    def items(self) -> np.ndarray:
        """The item rows as given (a worker maps a shared file here), converted only when the
        two sides' precisions differ and the product needs them whole (cosine, dot)."""
        with self._preparing:
            if self._items is None:
                raw = getattr(self.raw_items, "array", self.raw_items)
                convert = raw.dtype != self.dtype and self.kind != "euclidean"
                self._items = np.asarray(raw, self.dtype) if convert else raw
        return self._items

    def _steps(self, rows) -> Iterator[tuple[int, np.ndarray]]:
        """(first row, rows) of an array, a step of :attr:`STEP_BYTES` (as float64) at a time."""
        step = max(1, self.STEP_BYTES // (8 * max(1, rows.shape[1])))
        for start in range(0, rows.shape[0], step):
            yield start, np.asarray(rows[start:start + step])

    @property
    def frame(self) -> tuple[np.ndarray, int]:
        """Euclidean only: the shift c and the exponent e of the class docstring, computed on
        first use from the coordinates' ranges, in steps of rows."""
        with self._preparing:
            if self._frame is None:
                low = np.full(self.queries.shape[1], np.inf)
                high = -low
                sides = [self.queries] + ([] if self.raw_items is self.queries else [self.items])
                for side in sides:
                    for _, part in self._steps(side):
                        low = np.minimum(low, part.min(axis=0))
                        high = np.maximum(high, part.max(axis=0))
                low, high = low.astype(np.float64), high.astype(np.float64)
                half_range = high / 2 - low / 2   # cannot overflow
                step = np.ldexp(1.0, _exponent(half_range))
                shift = np.where(half_range > 0, np.round((high / 2 + low / 2) / step) * step,
                                 low)              # a constant coordinate: its value
                exponent = int(_exponent(half_range.max(initial=0.0)))
                self._frame = shift, min(max(exponent, -1000), 1023)
        return self._frame

    def _centred(self, rows) -> np.ndarray:
        """Rows shifted by c and scaled by 2^−e, in float64."""
        shift, exponent = self.frame
        return np.ldexp(np.asarray(rows, dtype=np.float64) - shift, -exponent)

    @property
    def item_scale(self) -> np.ndarray | None:
        """1/‖x‖ per item for cosine (1 for a zero vector, whose scores are all 0), ‖x_c‖² of the
        centred, scaled item for Euclidean, None for the dot product; float64, computed on
        first use in steps."""
        if self.kind == "dot":
            return None
        with self._preparing:
            if self._item_scale is None:
                out = np.empty(self.shape[1])
                for start, part in self._steps(self.items):
                    if self.kind == "euclidean":
                        part = self._centred(part)
                        out[start:start + len(part)] = np.einsum("ij,ij->i", part, part)
                    else:
                        out[start:start + len(part)] = _inverse_norms(part)
                self._item_scale = out
        return self._item_scale

    def rows(self, which) -> np.ndarray:
        """Scores of some query rows (a slice or an index array) against every item."""
        with np.errstate(over="ignore", invalid="ignore", under="ignore"):
            if self.kind == "euclidean":
                scores = self._distances(self.queries[which])
            elif self.kind == "cosine":
                q = _unit_rows(self.queries[which]).astype(self.dtype, copy=False)
                scores = q @ self.items.T
                scores *= self.item_scale
            else:
                scores = np.asarray(self.queries[which], dtype=self.dtype) @ self.items.T
            total = np.add.reduce(scores, axis=None)   # one pass; an exact check if it fails
        if not np.isfinite(total) and not np.isfinite(scores).all():
            raise self._overflow(which, scores)
        return scores

    def _distances(self, queries) -> np.ndarray:
        """−‖q − x‖ for the query rows against every item, item rows a step at a time."""
        q = self._centred(queries)
        squared = np.empty((len(q), self.shape[1]))
        for start, part in self._steps(self.items):
            squared[:, start:start + len(part)] = q @ self._centred(part).T
        squared *= -2
        squared += np.einsum("ij,ij->i", q, q)[:, None]
        squared += self.item_scale[None, :]
        np.maximum(squared, 0, out=squared)
        np.sqrt(squared, out=squared)
        np.ldexp(squared, self.frame[1], out=squared)
        return np.negative(squared, out=squared)

    def _overflow(self, which, scores) -> InputError:
        """The error for a score beyond the scores' float range, naming the files and norms."""
        r, c = (int(i) for i in np.argwhere(~np.isfinite(scores))[0])
        row = int(np.arange(self.shape[0])[which][r])
        kind = {"dot": "dot product", "cosine": "cosine", "euclidean": "distance"}[self.kind]
        return InputError(
            f"the {kind} of query row {row} (norm {_norm_text(self.queries[row])}) and row {c} "
            f"of {self.sources[1]} (norm {_norm_text(self.items[c])}) is beyond {self.dtype}'s "
            f"range (about {float(np.finfo(self.dtype).max):.2g}): the embeddings' norms are "
            f"too large; rescale them", source=self.sources[0])

    def __getitem__(self, which) -> np.ndarray:
        return self.rows(which)
