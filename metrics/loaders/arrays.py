"""Loading ``.npy`` arrays: an N×N score matrix and embedding matrices. Never unpickles."""

from __future__ import annotations

import io
import os

import numpy as np

from metrics.errors import InputError
from metrics.loaders.text import NUMPY_MAGIC, Source, open_regular, read_bytes, source_name

SIMILARITIES = ("cosine", "dot", "euclidean")


def load_array(source: Source, name: str | None = None, ndim: int = 2) -> np.ndarray:
    """A numeric ``.npy`` array of the given dimension, read with ``allow_pickle=False``.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The ``.npy`` array: a path or the file's bytes.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).
    ndim : int, default 2
        The number of dimensions the array must have (2 for embeddings and matrices).

    Returns
    -------
    numpy.ndarray
        The array, loaded whole (:func:`open_array` maps a large file instead).

    Raises
    ------
    InputError
        Not a numeric array of that dimension, or holding NaN or infinity.

    Examples
    --------
    >>> from metrics.loaders import load_array
    >>> load_array("sample_data/text2music/model_a_queries.npy").shape
    (40, 32)
    """
    label = source_name(source, name)
    data = read_bytes(source, label, binary=True)
    if not data:
        raise InputError("is empty: expected a .npy array", source=label)
    if data[:6] != NUMPY_MAGIC:
        raise InputError("is not a .npy file (save it with numpy.save)", source=label)
    try:
        array = np.load(io.BytesIO(data), allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower() or "object" in str(exc).lower():
            raise InputError("holds Python objects (a pickled array), which are never loaded; "
                             "save a numeric array", source=label) from None
        raise InputError(f"cannot be read as .npy ({exc})", source=label) from None
    except (OSError, EOFError) as exc:
        raise InputError(f"is truncated or damaged ({exc})", source=label) from None
    if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise InputError(f"has dtype {array.dtype}; a numeric (float) array is needed",
                         source=label)
    if array.ndim != ndim:
        raise InputError(f"has shape {array.shape}; a {ndim}-dimensional array is needed",
                         source=label)
    if array.size == 0:
        raise InputError(f"has shape {array.shape} with no values", source=label)
    check_finite(array, label)
    return array


def check_finite(array: np.ndarray, source: str, rows_per_step: int = 1 << 14) -> None:
    """NaN or infinity anywhere is an error naming the file and the value's index; read in steps
    of rows, so a memory-mapped file is never loaded whole."""
    for start in range(0, array.shape[0], rows_per_step):
        part = np.asarray(array[start:start + rows_per_step])
        finite = np.isfinite(part)
        if not finite.all():
            where = np.argwhere(~finite)[0]
            index = (start + int(where[0]), *(int(i) for i in where[1:]))
            raise InputError(f"value at index {index} is {part[tuple(where)]}; every value "
                             f"must be a finite number", source=source)


def load_score_matrix(source: Source, name: str | None = None) -> np.ndarray:
    """An N×N all-vs-all similarity (or distance) matrix.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The ``.npy`` matrix: a path or the file's bytes.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).

    Returns
    -------
    numpy.ndarray
        The matrix, row i the scores of item i (the rows of :func:`load_labels`) against all.

    Raises
    ------
    InputError
        Not a square numeric matrix, or holding NaN or infinity.

    Examples
    --------
    >>> from metrics.loaders import load_score_matrix
    >>> load_score_matrix("sample_data/covers/system_a.npy").shape
    (300, 300)
    """
    matrix = load_array(source, name, ndim=2)
    if matrix.shape[0] != matrix.shape[1]:
        raise InputError(f"has shape {matrix.shape}; an all-vs-all matrix must be square (N×N)",
                         source=source_name(source, name))
    return matrix


def check_embeddings(queries: np.ndarray, items: np.ndarray, query_label: str,
                     item_label: str) -> None:
    if queries.shape[1] != items.shape[1]:
        raise InputError(f"query embeddings have dimension {queries.shape[1]} but the item "
                         f"embeddings ({item_label}) have {items.shape[1]}; both must match",
                         source=query_label)


def check_ids(ids: np.ndarray, rows: int, ids_label: str, array_label: str) -> None:
    if len(ids) != rows:
        raise InputError(f"lists {len(ids)} ids but {array_label} has {rows} rows; the ids must "
                         f"name the rows in order", source=ids_label)


def open_array(source: Source, name: str | None = None, ndim: int = 2) -> np.ndarray:
    """A numeric array memory-mapped from a plain ``.npy`` file (so an array larger than memory
    is streamed, never loaded whole), or loaded like :func:`load_array` from bytes or a gzipped
    file. Memory-mapped values are checked for NaN and infinity by whoever streams through them.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The ``.npy`` file (mapped), or bytes (loaded).
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).
    ndim : int, default 2
        The number of dimensions the array must have.

    Returns
    -------
    numpy.ndarray
        A read-only ``numpy.memmap`` of a plain ``.npy`` file, else the array loaded.

    Raises
    ------
    InputError
        Not a numeric array of that dimension.

    Examples
    --------
    >>> from metrics.loaders import open_array
    >>> matrix = open_array("sample_data/covers/system_a.npy")
    >>> matrix.shape, matrix.flags.writeable
    ((300, 300), False)
    """
    label = source_name(source, name)
    if isinstance(source, (bytes, bytearray)):
        return load_array(source, name, ndim)
    with open_regular(source, label) as handle:   # never a FIFO or device
        head = handle.read(6)
    if head != NUMPY_MAGIC:
        return load_array(source, name, ndim)
    try:
        array = np.load(source, mmap_mode="r", allow_pickle=False)
    except ValueError as exc:
        if "pickle" in str(exc).lower() or "object" in str(exc).lower():
            raise InputError("holds Python objects (a pickled array), which are never loaded; "
                             "save a numeric array", source=label) from None
        raise InputError(f"cannot be memory-mapped as a numeric .npy ({exc})",
                         source=label) from None
    if not (np.issubdtype(array.dtype, np.floating) or np.issubdtype(array.dtype, np.integer)):
        raise InputError(f"has dtype {array.dtype}; a numeric (float) array is needed",
                         source=label)
    if array.ndim != ndim or array.size == 0:
        raise InputError(f"has shape {array.shape}; a non-empty {ndim}-dimensional array is "
                         f"needed", source=label)
    return array


def open_score_matrix(source: Source, name: str | None = None) -> np.ndarray:
    """An N×N matrix, memory-mapped where it can be (see :func:`open_array`)."""
    matrix = open_array(source, name)
    if matrix.shape[0] != matrix.shape[1]:
        raise InputError(f"has shape {matrix.shape}; an all-vs-all matrix must be square (N×N)",
                         source=source_name(source, name))
    return matrix


class MappedFile:
    """A read-only memory map of a whole ``.npy`` file that pickles as the file's path: a process
    that receives it (a cluster's worker) maps the same file instead of receiving the values.
    Row slices and index arrays, ``shape``, ``dtype`` and ``flags`` are the memory map's."""

    def __init__(self, path: str, shape: tuple, dtype: np.dtype):
        self.path, self.shape, self.dtype = path, tuple(shape), np.dtype(dtype)
        self._array = None

    @classmethod
    def of(cls, array: np.memmap) -> "MappedFile":
        return cls(array.filename, array.shape, array.dtype)

    def __reduce__(self):
        return MappedFile, (self.path, self.shape, self.dtype)

    @property
    def array(self) -> np.ndarray:
        if self._array is None:
            array = np.load(self.path, mmap_mode="r", allow_pickle=False)
            if array.shape != self.shape or array.dtype != self.dtype:
                raise InputError(f"holds a {array.dtype} array of shape {array.shape} here, not "
                                 f"the {self.dtype} {self.shape} it was; is the file the same "
                                 f"on every machine?", source=self.path)
            self._array = array
        return self._array

    @property
    def flags(self):
        return self.array.flags

    @property
    def ndim(self) -> int:
        return len(self.shape)

    def __len__(self) -> int:
        return self.shape[0]

    def __getitem__(self, which):
        return self.array[which]

    def __array__(self, dtype=None, copy=None):
        return np.asarray(self.array, dtype=dtype)


def whole_file_map(array) -> bool:
    """Whether ``array`` is a memory map of a whole ``.npy`` file (so :class:`MappedFile` can
    name it by its path)."""
    if not isinstance(array, np.memmap) or not array.filename:
        return False
    try:
        return np.lib.format.open_memmap(array.filename, mode="r").shape == array.shape
    except (OSError, ValueError):
        return False


def file_signature(path: str) -> tuple[int, str]:
    """The size and a digest of the first and last MB of a file: equal on two machines when they
    see the same file (a shared file system, or identical copies)."""
    import hashlib   # here: OpenSSL's import costs the command line 17 ms

    digest = hashlib.blake2b(digest_size=16)
    size = os.path.getsize(path)
    with open(path, "rb") as handle:
        digest.update(handle.read(1 << 20))
        if size > 2 << 20:
            handle.seek(size - (1 << 20))
            digest.update(handle.read())
    return size, digest.hexdigest()
