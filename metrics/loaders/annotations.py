"""Loading ground truth given as annotations: clique labels (cover songs) and a two-level class
taxonomy with per-item class annotations (instrument retrieval)."""

from __future__ import annotations

from typing import Iterable, Mapping, Sequence

import numpy as np

from metrics.errors import InputError
from metrics.data.rows import as_str_array, id_strings
from metrics.data.truth import GroundTruth
from metrics.loaders.tables import Layout, check_unique, read_table, text_column
from metrics.loaders.text import Source, source_name

LABELS = Layout("labels file", trec=("item_id", "label"), required=("item_id", "label"))
TAXONOMY = Layout("taxonomy", trec=("class", "parent"), required=("class", "parent"))
ANNOTATIONS = Layout("annotations file", trec=("item_id", "class"), required=("item_id", "class"))


def load_labels(source: Source, name: str | None = None) -> tuple[np.ndarray, np.ndarray]:
    """``item_id,label`` rows (a CSV with that header, or two whitespace-separated columns): item
    ids and their clique labels, in file order (the row order of a score matrix).

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The labels: a path or the file's bytes.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).

    Returns
    -------
    item_ids, labels : numpy.ndarray of str
        Row by row; items sharing a label are relevant to each other (a clique of covers).

    Raises
    ------
    InputError
        An item without a label, or with two.

    Examples
    --------
    >>> from metrics.loaders import load_labels
    >>> items, labels = load_labels("sample_data/covers/labels.csv")
    >>> items[:2].tolist(), labels[:2].tolist()
    (['c0001', 'c0002'], ['work003', 'work005'])
    """
    label = source_name(source, name)
    table = read_table(source, LABELS, label)
    items = id_strings(text_column(table, "item_id"))
    labels = text_column(table, "label")
    check_unique(table, items, "item", "each item needs exactly one label")
    return items, labels


def load_label_truth(source: Source, name: str | None = None) -> GroundTruth:
    """The ground truth of clique labels (:func:`load_labels`): each item a query, the other items
    of its clique relevant (grade 1), the query's own item left out of its ranking.

    Parameters
    ----------
    source : str, os.PathLike or bytes
        The labels, as for :func:`load_labels`.
    name : str, optional
        Its name in messages (see :mod:`metrics.loaders`).

    Returns
    -------
    GroundTruth
        One query per item; every item judged for every query.

    Raises
    ------
    InputError
        As :func:`load_labels`.

    Examples
    --------
    >>> from metrics.loaders import load_label_truth
    >>> len(load_label_truth("sample_data/covers/labels.csv").query_ids)
    300
    """
    items, labels = load_labels(source, name)
    return GroundTruth.from_labels(items, labels, name=source_name(source, name))


def load_taxonomy(taxonomy: Source, annotations: Source, taxonomy_name: str | None = None,
                  annotations_name: str | None = None) -> GroundTruth:
    """A ``class,parent`` taxonomy (empty parent for a top-level class) and ``item_id,class``
    annotations, one row per (item, class): relevance 2 for the query class, 1 for a sibling.

    Parameters
    ----------
    taxonomy, annotations : str, os.PathLike or bytes
        The two files: paths, or their content.
    taxonomy_name, annotations_name : str, optional
        Their names, for messages and the format of bytes (default: the paths).

    Returns
    -------
    GroundTruth
        One query per class that is not a parent; every annotated item judged for every query.

    Raises
    ------
    InputError
        A taxonomy of more than two levels, a class annotated but not in the taxonomy, or no
        annotations.

    Examples
    --------
    >>> from metrics.loaders import load_taxonomy
    >>> truth = load_taxonomy("sample_data/instruments/taxonomy.csv",
    ...                       "sample_data/instruments/annotations.csv")
    >>> truth.query_ids[:3].tolist()
    ['violin', 'cello', 'acoustic_guitar']
    """
    tax_label = source_name(taxonomy, taxonomy_name)
    tax = read_table(taxonomy, TAXONOMY, tax_label)
    classes = text_column(tax, "class")
    parents = tax.columns["parent"]
    check_unique(tax, classes, "class", "give each class one parent")
    parent_of: dict[str, str] = dict(zip(classes, parents))
    for i, parent in enumerate(parents):
        if parent and parent_of.get(parent, "") != "":
            raise tax.error(i, f"parent {parent!r} has a parent itself; the taxonomy must have two "
                               f"levels")
    for parent in set(parents) - {""} - set(parent_of):
        parent_of[parent] = ""  # a parent named only as a parent is a top-level class
    notes_label = source_name(annotations, annotations_name)
    notes = read_table(annotations, ANNOTATIONS, notes_label)
    items = text_column(notes, "item_id")
    note_classes = text_column(notes, "class")
    for i, cls in enumerate(note_classes):
        if cls not in parent_of:
            raise notes.error(i, f"class {cls!r} is not in the taxonomy {tax_label}")
    if not len(items):
        raise InputError("has no annotations", source=notes_label)
    leaves = [c for c in parent_of if parent_of[c] != "" or c not in set(parents)]
    return taxonomy_truth(parent_of, zip(items, note_classes), name=tax_label, queries=leaves)


def taxonomy_truth(parents: Mapping[str, str], annotations: Iterable[tuple[str, str]],
                   name: str = "taxonomy", queries: Sequence[str] | None = None) -> GroundTruth:
    """The grading rule of a two-level taxonomy (the instrument-retrieval task): relevance of an
    item to query class q is 2 if q is among its classes, 1 if a sibling of q (another class with
    the same parent) is, else 0 — the maximum over its classes. Every class of the taxonomy is a
    query unless ``queries`` says otherwise; every annotated item is judged for every query."""
    import pandas as pd
    notes = pd.DataFrame(list(annotations), columns=["item", "cls"])
    notes["item"] = id_strings(notes["item"].to_numpy(), name, "item_id")
    notes = notes.astype(str)
    classes = pd.Series(parents, dtype=object).astype(str)
    unknown = sorted(set(notes["cls"]) - set(classes.index))
    if unknown:
        raise InputError(f"class {unknown[0]!r} of the annotations is not in the taxonomy",
                         source=name)
    query_ids = as_str_array(classes.index if queries is None else queries)
    notes["parent"] = classes.reindex(notes["cls"]).to_numpy()
    q_frame = pd.DataFrame({"query": query_ids,
                            "parent": classes.reindex(query_ids).to_numpy()})
    exact = notes.rename(columns={"cls": "query"})[["query", "item"]].assign(grade=2)
    exact = exact[exact["query"].isin(set(query_ids))]
    sib = notes[notes["parent"].fillna("") != ""].merge(q_frame, on="parent")
    sib = sib[sib["cls"] != sib["query"]][["query", "item"]].assign(grade=1)
    pairs = (pd.concat([exact, sib]).groupby(["query", "item"], sort=False)["grade"].max()
             .reset_index())
    q_index = pd.Index(query_ids)
    n_items = notes["item"].nunique()
    return GroundTruth(query_ids, q_index.get_indexer(pairs["query"]).astype(np.int64),
                       as_str_array(pairs["item"]), pairs["grade"].to_numpy(np.int64),
                       unlisted_judged=True,
                       candidates=np.full(len(query_ids), n_items, np.int64), name=name,
                       query_parents=as_str_array(q_frame["parent"].fillna("")))

