"""From files to a :class:`~metrics.data.judged.JudgedRanking`: the combinations of inputs that the
command line and the app evaluate (run + qrels, all-vs-all matrix + labels, embeddings + qrels)."""

from __future__ import annotations

from dataclasses import dataclass, replace

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
from metrics.ranking.streaming import Progress, judge_all_vs_all, judge_streamed



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


def judge_run_file(run: Source, truth: GroundTruth, ties: TiePolicy | str = TiePolicy.STABLE,
                   collection_size: int | str | None = None,
                   name: str | None = None, float32_scores: bool = False,
                   keep_lists: bool = True) -> JudgedRanking:
    """A run file judged; with ``float32_scores`` its scores are compared as float32 (as the
    acoss and re-move protocols' reference codes compare them, see
    :mod:`metrics.ranking.float32_scores`). It is named as the system: the run's tag when the
    whole file has one, else the file's name without extensions. Without ``keep_lists`` (the
    full lists, for display) a run sorted by query is judged as it is read
    (:mod:`metrics.ranking.run_stream`)."""
    if not (keep_lists or float32_scores):
        streamed = judge_run_stream(run, truth, ties, collection_size, name, by_tag=True)
        if streamed is not None:
            return streamed.judged
    system = load_run(run, name)
    system = replace(system, name=system.system_name)
    return judge(float32_run(system) if float32_scores else system, truth, ties, collection_size,
                 keep_lists=keep_lists)


def judge_matrix(matrix: Source, labels: Source, ties: TiePolicy | str = TiePolicy.STABLE,
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
                     ties: TiePolicy | str = TiePolicy.STABLE,
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
class UploadRole:
    """One file (or several, ``many``) of an upload: its role name and what to ask for."""

    name: str
    label: str
    many: bool = False
    help: str | None = None


@dataclass(frozen=True)
class UploadKind:
    """A combination of files that :func:`judge_upload` turns into judged rankings."""

    title: str
    roles: tuple[UploadRole, ...]


RUNS = UploadRole("runs", "Run files", many=True,
                  help="Each system is named by its run's tag (TREC's 6th field, or a `tag` or "
                       "`run_id` column) when the whole file has one, else by its file name; "
                       "the names can be edited below once the files are read.")
QUERIES_SUFFIX, ITEMS_SUFFIX = "_queries", "_items"
EMBEDDINGS_HELP = ("Several embedding models at once, on the one query and item id list: name "
                   "each model's files MODEL_queries.npy and MODEL_items.npy (one of each: any "
                   "names). The system is called MODEL.")
UPLOADS = {
    "runs+qrels": UploadKind("Runs and qrels (TREC, CSV/TSV or Parquet)",
                             (RUNS, UploadRole("qrels", "Qrels"))),
    "runs+labels": UploadKind("Runs and clique labels (item_id,label)",
                              (RUNS, UploadRole("labels", "Labels CSV (item_id,label)"))),
    "runs+taxonomy": UploadKind("Runs, a class taxonomy and item annotations",
                                (RUNS, UploadRole("taxonomy", "Taxonomy CSV (class,parent)"),
                                 UploadRole("annotations", "Annotations CSV (item_id,class)"))),
    "matrices+labels": UploadKind(
        "All-vs-all score matrices (.npy) and labels",
        (UploadRole("matrices", "Score matrices (.npy, N×N)", many=True),
         UploadRole("labels", "Labels CSV in row order (item_id,label)"))),
    "embeddings+qrels": UploadKind("Query and item embeddings (.npy) with id lists and qrels",
                                   (UploadRole("query_embeddings", "Query embeddings (.npy)",
                                               many=True, help=EMBEDDINGS_HELP),
                                    UploadRole("query_ids", "Query ids (one per line)"),
                                    UploadRole("item_embeddings", "Item embeddings (.npy)",
                                               many=True, help=EMBEDDINGS_HELP),
                                    UploadRole("item_ids", "Item ids (one per line)"),
                                    UploadRole("qrels", "Qrels (query_id,item_id,relevance)"))),
}


# Two optional tables that describe the items and the queries of any kind of upload
# (metrics.loaders.metadata); they rank nothing: judge_upload leaves them alone.
METADATA_ROLES = (
    UploadRole("items", "Item table (optional): item_id and any columns (title, artist, …)",
               help="CSV, TSV or Parquet with a header naming `item_id`; titles and artists are "
                    "shown beside the ids. For cover songs the query is an item: this table "
                    "describes the queries too, unless a query table is given."),
    UploadRole("queries", "Query table (optional): query_id and any columns (text, genre, …)",
               help="CSV, TSV or Parquet with a header naming `query_id`; its columns can group "
                    "the queries (Groups page), and the Query box searches its text."),
)


def judge_upload(kind: str, files: dict[str, list[tuple[str, bytes]]],
                 ties: TiePolicy | str = TiePolicy.STABLE,
                 collection_size: int | str | None = None, distance: bool = False,
                 similarity_kind: str = "cosine") -> dict[str, JudgedRanking]:
    """Uploaded files (role -> [(file name, content)]) as judged rankings, one per system; the
    roles of each kind are those of :data:`UPLOADS`."""
    if kind not in UPLOADS:
        raise InputError(f"unknown kind of upload {kind!r}; use one of {', '.join(UPLOADS)}")

    def one(role: str) -> tuple[bytes, str]:
        given = files.get(role) or []
        if len(given) != 1:
            raise InputError(f"upload one {role.replace('_', ' ')} file")
        name, content = given[0]
        return content, name

    def systems(role: str) -> list[tuple[str, bytes]]:
        given = files.get(role) or []
        if not given:
            raise InputError(f"upload at least one file of {role}")
        return given

    if kind == "matrices+labels":
        labels, labels_name = one("labels")
        return named([(judge_matrix(content, labels, ties, distance, collection_size, name,
                                    labels_name), name) for name, content in systems("matrices")])
    if kind == "embeddings+qrels":
        content, name = one("qrels")
        truth = load_truth(content, name)
        ids = {role: one(role) for role in ("query_ids", "item_ids")}
        out = {}
        for model, (queries, items) in embedding_models(systems("query_embeddings"),
                                                        systems("item_embeddings")).items():
            out[model] = judge_embeddings(
                queries[1], ids["query_ids"][0], items[1], ids["item_ids"][0], truth,
                similarity_kind, ties, collection_size, name=model,
                names={"query_embeddings": queries[0], "item_embeddings": items[0],
                       "query_ids": ids["query_ids"][1], "item_ids": ids["item_ids"][1]})
        return out
    if kind == "runs+qrels":
        truth = load_qrels(*one("qrels"))
    elif kind == "runs+labels":
        truth = load_label_truth(*one("labels"))
    elif kind == "runs+taxonomy":
        (tax, tax_name), (notes, notes_name) = one("taxonomy"), one("annotations")
        truth = load_taxonomy(tax, notes, tax_name, notes_name)
    judged = []
    for name, content in systems("runs"):
        run = load_run(content, name)
        judged.append((judge(replace(run, name=run.system_name), truth, ties, collection_size),
                       name))
    return named(judged)


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
