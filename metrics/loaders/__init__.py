"""Loaders for every input format (docs/formats.md). Each raises :class:`metrics.errors.InputError`
naming the file, the line (or row/column) and what is wrong."""

from metrics.loaders.annotations import load_label_truth, load_labels, load_taxonomy
from metrics.loaders.arrays import load_array, load_score_matrix, open_array
from metrics.loaders.ids import load_ids
from metrics.loaders.runs import load_qrels, load_run, run_name

__all__ = ["load_array", "load_ids", "load_label_truth", "load_labels", "load_qrels",
           "load_run", "load_score_matrix", "load_taxonomy", "run_name", "open_array"]
