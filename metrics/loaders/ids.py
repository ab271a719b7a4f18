"""Loading an id list that names the rows of an array, one id per line (or a CSV column)."""

from __future__ import annotations

import numpy as np

from metrics.data.rows import id_strings
from metrics.loaders.tables import Layout, check_unique, read_table, text_column
from metrics.loaders.text import Source, source_name

IDS = Layout("id list", trec=("item_id",), required=("item_id",),
             alternatives=(("query_id",),))


def load_ids(source: Source, name: str | None = None) -> np.ndarray:
    """Ids in row order: one per line, or a CSV/TSV with an ``item_id`` (or ``query_id``) column
    (other columns, such as a label, are ignored). Ids must be unique; whole-float ids are the
    integers, as in runs and ground truth (:func:`~metrics.data.rows.id_strings`).

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The ids: a path or the file's bytes.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).

    Returns
    -------
    numpy.ndarray of str
        The ids, one per row of the embeddings or matrix they name.

    Raises
    ------
    InputError
        An id given twice, or none.

    Examples
    --------
    >>> from metrics.loaders import load_ids
    >>> load_ids("sample_data/text2music/query_ids.txt")[:3].tolist()
    ['t001', 't002', 't003']
    """
    table = read_table(source, IDS, source_name(source, name))
    column = "item_id" if "item_id" in table.columns else "query_id"
    ids = id_strings(text_column(table, column))
    check_unique(table, ids, "id", "ids must be unique")
    return ids
