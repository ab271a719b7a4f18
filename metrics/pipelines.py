"""From files to a :class:`~metrics.model.JudgedRanking`: the combinations of inputs that the
command line and the app evaluate (run + qrels, all-vs-all matrix + labels, embeddings + qrels)."""

from __future__ import annotations

from .errors import InputError
from .loaders import (load_array, load_ids, load_label_truth, load_labels, load_qrels, load_run,
                      load_score_matrix, run_name, similarity)
from .loaders.arrays import check_embeddings, check_ids
from .loaders.text import Source, source_name
from .model import GroundTruth, JudgedRanking
from .ranking import judge, judge_scores


def load_truth(source: Source, name: str | None = None) -> GroundTruth:
    """Qrels, or a labels file (``item_id,label``) whose cliques make the relevance."""
    label = source_name(source, name)
    try:
        return load_qrels(source, label)
    except InputError as qrels_error:
        try:
            return load_label_truth(source, label)
        except InputError:
            raise qrels_error from None


def judge_run_file(run: Source, truth: GroundTruth, ties: str = "stable",
                   collection_size: int | None = None, name: str | None = None) -> JudgedRanking:
    return judge(load_run(run, name), truth, ties, collection_size)


def judge_matrix(matrix: Source, labels: Source, ties: str = "stable", distance: bool = False,
                 collection_size: int | None = None, matrix_name: str | None = None,
                 labels_name: str | None = None) -> JudgedRanking:
    """Rank every item against every other from an N×N similarity (or distance) matrix whose rows
    and columns are the items of the labels file, in order; the query item is excluded."""
    scores = load_score_matrix(matrix, matrix_name)
    labels_label = source_name(labels, labels_name)
    items, item_labels = load_labels(labels, labels_label)
    check_ids(items, scores.shape[0], labels_label, source_name(matrix, matrix_name))
    truth = GroundTruth.from_labels(items, item_labels, name=labels_label)
    return judge_scores(scores, items, items, truth, ties, collection_size,
                        name=run_name(source_name(matrix, matrix_name)),
                        larger_is_better=not distance)


def judge_embeddings(query_embeddings: Source, query_ids: Source, item_embeddings: Source,
                     item_ids: Source, truth: GroundTruth, kind: str = "cosine",
                     ties: str = "stable", collection_size: int | None = None,
                     name: str | None = None) -> JudgedRanking:
    """Rank all items for every query by embedding similarity (cosine, dot or negative Euclidean)."""
    queries = load_array(query_embeddings)
    items = load_array(item_embeddings)
    q_label, d_label = source_name(query_embeddings), source_name(item_embeddings)
    check_embeddings(queries, items, q_label, d_label)
    qids, dids = load_ids(query_ids), load_ids(item_ids)
    check_ids(qids, queries.shape[0], source_name(query_ids), q_label)
    check_ids(dids, items.shape[0], source_name(item_ids), d_label)
    scores = similarity(queries, items, kind)
    return judge_scores(scores, qids, dids, truth, ties, collection_size,
                        name=name or run_name(q_label))
