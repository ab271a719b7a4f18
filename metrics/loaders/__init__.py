"""Loaders for every input format (docs/formats.md). Each raises :class:`metrics.errors.InputError`
naming the file, the line (or row/column) and what is wrong.

Every loader reads ``source``, a path or a file's content as bytes (an upload), and takes an
optional ``name``: the name its messages give the file, whose extension (``.csv``, ``.tsv``,
``.parquet``, ``.gz``, ...) says the format of bytes; by default, the path. docs/bad_inputs.md
lists every known way a file can be wrong and the message it gets."""

from metrics.loaders.annotations import load_label_truth, load_labels, load_taxonomy
from metrics.loaders.arrays import load_array, load_score_matrix, open_array
from metrics.loaders.ids import load_ids
from metrics.loaders.runs import load_qrels, load_run, run_name

__all__ = ["load_array", "load_ids", "load_label_truth", "load_labels", "load_qrels",
           "load_run", "load_score_matrix", "load_taxonomy", "run_name", "open_array"]
