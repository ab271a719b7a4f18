"""From files to judged rankings (:class:`~metrics.data.judged.JudgedRanking`): one function,
:func:`judge_inputs`, from the description of an evaluation's inputs that the command line and
the Data page build (:class:`~metrics.ranking.inputs.EvaluationInputs`: runs + a ground truth,
all-vs-all matrices + labels, embeddings + qrels), and the functions it calls for each kind."""

from __future__ import annotations

from collections.abc import Callable
from concurrent.futures import ThreadPoolExecutor
from dataclasses import dataclass, replace
from functools import partial

from metrics.data.ties import TiePolicy
from metrics.errors import InputError
from metrics.data.judged import JudgedRanking
from metrics.loaders import (load_ids, load_label_truth, load_labels, load_qrels, load_run,
                             load_taxonomy, open_array, run_name)
from metrics.loaders.runs import system_names
from metrics.loaders.arrays import check_embeddings, check_finite, check_ids, open_score_matrix
from metrics.loaders.text import Source, source_name
from metrics.data.truth import GroundTruth
from metrics.ranking.float32_scores import float32_rows, float32_run
from metrics.ranking.rank import judge
from metrics.ranking.run_stream import judge_run_stream
from metrics.ranking.embeddings import EmbeddingScores
from metrics.ranking.inputs import (ANNOTATIONS, EMBEDDINGS_QRELS, ITEM_EMBEDDINGS, ITEM_IDS,
                                    LABELS, MATRICES, MATRICES_LABELS, QRELS, QUERY_EMBEDDINGS,
                                    QUERY_IDS, RUNS, RUNS_LABELS, RUNS_TAXONOMY, TAXONOMY,
                                    EvaluationInputs)
from metrics.ranking.streaming import Progress, judge_all_vs_all, judge_streamed

# embedding files of several models are paired by name: MODEL_queries.npy with MODEL_items.npy
QUERIES_SUFFIX, ITEMS_SUFFIX = "_queries", "_items"


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


def judge_run_file(run: Source, truth: GroundTruth | Callable[[], GroundTruth],
                   ties: TiePolicy = TiePolicy.STABLE,
                   collection_size: int | str | None = None,
                   name: str | None = None, float32_scores: bool = False,
                   keep_lists: bool = True, memory: int | None = None,
                   progress: Progress | None = None, by_tag: bool = True) -> JudgedRanking:
    """A run file judged; with ``float32_scores`` its scores are compared as float32 (as the
    acoss and re-move protocols' reference codes compare them, see
    :mod:`metrics.ranking.float32_scores`). It is named as the system: the run's tag when the
    whole file has one (unless not ``by_tag``), else the file's name without extensions. Without
    ``keep_lists`` (the full lists, for display) a run sorted by query is judged as it is read
    (:mod:`metrics.ranking.run_stream`), in about ``memory`` bytes. ``truth`` may be a function
    that gives the ground truth (loading in another thread), called once it is needed."""
    if not (keep_lists or float32_scores):
        streamed = judge_run_stream(run, truth, ties, collection_size, name, memory=memory,
                                    progress=progress, by_tag=by_tag)
        if streamed is not None:
            return streamed.judged
    system = load_run(run, name)
    if by_tag:
        system = replace(system, name=system.system_name)
    if float32_scores:
        system = float32_run(system, source_name(run, name))
    return judge(system, truth() if callable(truth) else truth, ties, collection_size,
                 keep_lists=keep_lists)


def judge_matrix(matrix: Source, labels: Source, ties: TiePolicy = TiePolicy.STABLE,
                 distance: bool = False, collection_size: int | str | None = None,
                 matrix_name: str | None = None, labels_name: str | None = None,
                 progress: Progress | None = None, keep_lists: bool = True,
                 cluster=None, float32_scores: bool = False) -> JudgedRanking:
    """Rank every item against every other from an N×N similarity (or distance) matrix whose rows
    and columns are the items of the labels file, in order; the query item is excluded. A plain
    .npy file is memory-mapped and read row by row; given a ``cluster``
    (:class:`metrics.ranking.cluster.Cluster`) blocks of rows are counted by its workers. With
    ``float32_scores`` the scores are compared as float32, rounded as they are read."""
    matrix_label = source_name(matrix, matrix_name)
    scores = open_score_matrix(matrix, matrix_name)
    labels_label = source_name(labels, labels_name)
    items, item_labels = load_labels(labels, labels_label)
    check_ids(items, scores.shape[0], labels_label, matrix_label)
    if float32_scores:
        scores = float32_rows(scores, matrix_label)
    return judge_all_vs_all(scores, items, item_labels, ties, not distance, collection_size,
                            name=run_name(matrix_label), source=matrix_label,
                            truth_name=labels_label, progress=progress, keep_lists=keep_lists,
                            cluster=cluster)


def judge_embeddings(query_embeddings: Source, query_ids: Source, item_embeddings: Source,
                     item_ids: Source, truth: GroundTruth, kind: str = "cosine",
                     ties: TiePolicy = TiePolicy.STABLE,
                     collection_size: int | str | None = None,
                     name: str | None = None, names: dict[str, str] | None = None,
                     memory: int | None = None, progress: Progress | None = None,
                     keep_lists: bool = True, cluster=None,
                     float32_scores: bool = False) -> JudgedRanking:
    """Rank all items for every query by embedding similarity (cosine, dot or negative Euclidean),
    streamed in blocks of queries (see :mod:`metrics.ranking.streaming`). ``truth`` is qrels, or
    clique labels: then the queries and the items must be the same items, and every item is a query
    against all the others, itself excluded. ``names`` gives file names for uploaded bytes, by
    argument name. Given a ``cluster`` (:class:`metrics.ranking.cluster.Cluster`) blocks of queries
    are counted by its workers. With ``float32_scores`` the scores are compared as float32."""
    names = names or {}
    label = {role: source_name(src, names.get(role)) for role, src in (
        ("query_embeddings", query_embeddings), ("query_ids", query_ids),
        ("item_embeddings", item_embeddings), ("item_ids", item_ids))}
    queries = open_array(query_embeddings, label["query_embeddings"])
    items = open_array(item_embeddings, label["item_embeddings"])
    check_embeddings(queries, items, label["query_embeddings"], label["item_embeddings"])
    qids = load_ids(query_ids, label["query_ids"])
    dids = load_ids(item_ids, label["item_ids"])
    check_ids(qids, queries.shape[0], label["query_ids"], label["query_embeddings"])
    check_ids(dids, items.shape[0], label["item_ids"], label["item_embeddings"])
    check_finite(queries, label["query_embeddings"])
    if items is not queries:
        check_finite(items, label["item_embeddings"])
    scores = EmbeddingScores(queries, items, kind,
                             (label["query_embeddings"], label["item_embeddings"]))
    if float32_scores:
        scores = float32_rows(scores, label["item_embeddings"])
    name = name or run_name(label["query_embeddings"])
    if truth.item_labels is None:
        return judge_streamed(scores, qids, dids, truth, ties, collection_size=collection_size,
                              name=name, memory=memory, progress=progress,
                              keep_lists=keep_lists, cluster=cluster)
    if len(qids) != len(dids) or not (qids == dids).all():
        raise InputError("with clique labels every item is a query against all the others, so "
                         "the query and item embeddings must be the same items in the same order "
                         "(give the same files twice)", source=label["query_ids"])
    label_of = dict(zip(truth.self_items, truth.item_labels))
    unlabelled = [d for d in dids if d not in label_of]
    if unlabelled:
        raise InputError(f"item {unlabelled[0]!r} of the embeddings has no label "
                         f"({len(unlabelled)} in all); label every item", source=truth.name)
    if len(label_of) != len(dids):
        extra = next(d for d in truth.self_items if d not in set(dids))
        raise InputError(f"labels item {extra!r} is not among the embeddings' ids",
                         source=truth.name)
    return judge_all_vs_all(scores, dids, [label_of[d] for d in dids], ties, True,
                            collection_size, name=name, source=label["item_embeddings"],
                            truth_name=truth.name, progress=progress, keep_lists=keep_lists,
                            cluster=cluster)


@dataclass(frozen=True)
class JudgedInputs:
    """The judged rankings of an evaluation's inputs, one per system (under distinct names), and
    the ground truth read for them (None where ranking reads none: a matrix's labels)."""

    systems: dict[str, JudgedRanking]
    truth: GroundTruth | None


def judge_inputs(inputs: EvaluationInputs, keep_lists: bool = True, memory: int | None = None,
                 progress: Progress | None = None, cluster=None) -> JudgedInputs:
    """The one way from files to judged rankings, for the command line and the Data page alike.
    Without ``keep_lists`` (the full lists, for display) a run sorted by query is judged as it is
    read, in about ``memory`` bytes (:mod:`metrics.ranking.run_stream`); ``progress`` is called
    with the lines or queries done; given a ``cluster``
    (:class:`metrics.ranking.cluster.Cluster`) its workers count matrices and embeddings."""
    if inputs.kind == MATRICES_LABELS:
        labels, labels_name = inputs.one(LABELS)
        return JudgedInputs(named([(judge_matrix(
            source, labels, inputs.ties, inputs.distance, inputs.collection_size, name,
            labels_name, progress, keep_lists, cluster, inputs.float32_scores), name)
            for name, source in inputs.several(MATRICES)]), None)
    if inputs.kind == EMBEDDINGS_QRELS:
        return _judge_embedding_models(inputs, keep_lists, memory, progress, cluster)
    return _judge_runs(inputs, keep_lists, memory, progress)


def _judge_runs(inputs: EvaluationInputs, keep_lists: bool, memory: int | None,
                progress: Progress | None) -> JudgedInputs:
    """Runs on one ground truth. The ground truth loads in a thread while the first run is read;
    its error, if any, comes first, as when the files were read one after the other. A path
    given twice is refused; the same content uploaded twice is two systems."""
    if inputs.kind == RUNS_TAXONOMY:
        (tax, tax_name), (notes, notes_name) = inputs.one(TAXONOMY), inputs.one(ANNOTATIONS)
        read_truth = partial(load_taxonomy, tax, notes, tax_name, notes_name)
    elif inputs.kind == RUNS_LABELS:
        read_truth = partial(load_label_truth, *inputs.one(LABELS))
    else:
        read_truth = partial(load_truth, *inputs.one(QRELS))
    runs = inputs.several(RUNS)
    judged = []
    with ThreadPoolExecutor(max_workers=1) as pool:
        pending = pool.submit(read_truth)
        for name, source in runs:
            if not isinstance(source, (bytes, bytearray)) and \
                    name in (given for _, given in judged):
                raise InputError(f"{name} is given twice; give each run once")
            try:
                judged.append((judge_run_file(
                    source, pending.result, inputs.ties, inputs.collection_size, name,
                    inputs.float32_scores, keep_lists, memory, progress,
                    by_tag=not inputs.named_by_file), name))
            except InputError:
                pending.result()
                raise
        truth = pending.result()
    return JudgedInputs(named(judged), truth)


def _judge_embedding_models(inputs: EvaluationInputs, keep_lists: bool, memory: int | None,
                            progress: Progress | None, cluster) -> JudgedInputs:
    """Each embedding model's query and item embeddings, on one id list each and one ground
    truth."""
    truth = load_truth(*inputs.one(QRELS))
    ids = {role: inputs.one(role) for role in (QUERY_IDS, ITEM_IDS)}
    systems = {}
    for model, (queries, items) in embedding_models(inputs.several(QUERY_EMBEDDINGS),
                                                    inputs.several(ITEM_EMBEDDINGS)).items():
        systems[model] = judge_embeddings(
            queries[1], ids[QUERY_IDS][0], items[1], ids[ITEM_IDS][0], truth, inputs.similarity,
            inputs.ties, inputs.collection_size, None if inputs.named_by_file else model,
            {QUERY_EMBEDDINGS.name: queries[0], ITEM_EMBEDDINGS.name: items[0],
             QUERY_IDS.name: ids[QUERY_IDS][1], ITEM_IDS.name: ids[ITEM_IDS][1]},
            memory, progress, keep_lists, cluster, inputs.float32_scores)
    return JudgedInputs(systems, truth)


def input_items(inputs: EvaluationInputs, truth: GroundTruth | None) -> set[str]:
    """Every item the inputs name (their runs read again: the lists are not kept while runs are
    judged), for the warning about an item table's ids that match none of them."""
    if inputs.kind == MATRICES_LABELS:
        return set(map(str, load_ids(inputs.one(LABELS)[0])))
    if inputs.kind == EMBEDDINGS_QRELS:
        return set(map(str, load_ids(inputs.one(ITEM_IDS)[0])))
    known = truth.item_ids()
    for name, source in inputs.given(RUNS):
        known.update(load_run(source, name).items.series.unique().to_list())
    return known


def named(systems: list[tuple[JudgedRanking, str]]) -> dict[str, JudgedRanking]:
    """Judged rankings (each with the file it came from) under distinct names, by
    :func:`~metrics.loaders.runs.system_names`' rule."""
    names = system_names([(judged.name, given) for judged, given in systems])
    return {name: renamed(judged, name) for name, (judged, _) in zip(names, systems)}


def renamed(judged: JudgedRanking, name: str) -> JudgedRanking:
    """The judged ranking under another name, its warnings (which begin with the name) too."""
    if name == judged.name:
        return judged
    old = f"{judged.name}: "
    return replace(judged, name=name, warnings=tuple(
        f"{name}: {w[len(old):]}" if w.startswith(old) else w for w in judged.warnings))


def embedding_models(queries: list[tuple[str, bytes]], items: list[tuple[str, bytes]]
                     ) -> dict[str, tuple[tuple[str, bytes], tuple[str, bytes]]]:
    """Query and item embedding files (name, content) paired by model: MODEL_queries.npy with
    MODEL_items.npy. One file of each is a pair whatever their names (named by the model if
    they follow the rule, else by the query file)."""
    def model(file: str, suffix: str) -> str | None:
        stem = run_name(file)
        return stem.removesuffix(suffix) if stem.endswith(suffix) and stem != suffix else None

    if len(queries) == 1 and len(items) == 1:
        (q_name, _), (i_name, _) = queries[0], items[0]
        pair_model = model(q_name, QUERIES_SUFFIX)
        if pair_model is None or pair_model != model(i_name, ITEMS_SUFFIX):
            pair_model = run_name(q_name)
        return {pair_model: (queries[0], items[0])}
    by_model: list[dict[str, tuple[str, bytes]]] = []
    for files, suffix in ((queries, QUERIES_SUFFIX), (items, ITEMS_SUFFIX)):
        found: dict[str, tuple[str, bytes]] = {}
        for file in files:
            key = model(file[0], suffix)
            if key is None:
                raise InputError(f"with several embedding models each file is named "
                                 f"MODEL{suffix}.npy; rename it", source=file[0])
            if key in found:
                raise InputError(f"model {key!r} has two files of {suffix[1:]}: "
                                 f"{found[key][0]} and {file[0]}; give one", source=file[0])
            found[key] = file
        by_model.append(found)
    found_queries, found_items = by_model
    for have, lack, suffix in ((found_queries, found_items, ITEMS_SUFFIX),
                               (found_items, found_queries, QUERIES_SUFFIX)):
        alone = sorted(m for m in have if m not in lack)
        if alone:
            raise InputError(f"has no {suffix[1:]} file of its model: "
                             f"expected {alone[0]}{suffix}.npy ({len(alone)} model(s) lack "
                             "one); upload each model's query and item files together",
                             source=have[alone[0]][0])
    return {m: (found_queries[m], found_items[m]) for m in found_queries}
