"""The Data page's upload form: the kinds of inputs it offers, with a title each, and what it asks
for each file (label and help). The kinds and their roles are the engine's
(:data:`metrics.ranking.inputs.KINDS`, every one offered, its roles in its order); only the
words are here."""

from __future__ import annotations

from dataclasses import dataclass

from metrics.ranking.inputs import (ANNOTATIONS, EMBEDDINGS_QRELS, ITEM_EMBEDDINGS, ITEM_IDS,
                                    ITEMS, LABELS, MATRICES, MATRICES_LABELS, QRELS,
                                    QUERIES, QUERY_EMBEDDINGS, QUERY_IDS, RUNS, RUNS_LABELS,
                                    RUNS_QRELS, RUNS_TAXONOMY, TAXONOMY, Role)


@dataclass(frozen=True)
class UploadRole:
    """One file (or several, when its role takes ``many``) of an upload, and what to ask for."""

    role: Role
    label: str
    help: str | None = None

    @property
    def name(self) -> str:
        return self.role.name

    @property
    def many(self) -> bool:
        return self.role.many


@dataclass(frozen=True)
class UploadKind:
    """A kind of inputs as the form offers it: its title, and its roles' questions in order."""

    title: str
    roles: tuple[UploadRole, ...]


RUN_FILES = UploadRole(RUNS, "Run files",
                       help="Each system is named by its run's tag (TREC's 6th field, or a `tag` "
                            "or `run_id` column) when the whole file has one, else by its file "
                            "name; the names can be edited below once the files are read.")
EMBEDDINGS_HELP = ("Several embedding models at once, on the one query and item id list: name "
                   "each model's files MODEL_queries.npy and MODEL_items.npy (one of each: any "
                   "names). The system is called MODEL.")
UPLOADS = {
    RUNS_QRELS: UploadKind("Runs and qrels (TREC, CSV/TSV or Parquet)",
                           (RUN_FILES, UploadRole(QRELS, "Qrels"))),
    RUNS_LABELS: UploadKind("Runs and clique labels (item_id,label)",
                            (RUN_FILES, UploadRole(LABELS, "Labels CSV (item_id,label)"))),
    RUNS_TAXONOMY: UploadKind("Runs, a class taxonomy and item annotations",
                              (RUN_FILES, UploadRole(TAXONOMY, "Taxonomy CSV (class,parent)"),
                               UploadRole(ANNOTATIONS, "Annotations CSV (item_id,class)"))),
    MATRICES_LABELS: UploadKind(
        "All-vs-all score matrices (.npy) and labels",
        (UploadRole(MATRICES, "Score matrices (.npy, N×N)"),
         UploadRole(LABELS, "Labels CSV in row order (item_id,label)"))),
    EMBEDDINGS_QRELS: UploadKind(
        "Query and item embeddings (.npy) with id lists and qrels",
        (UploadRole(QUERY_EMBEDDINGS, "Query embeddings (.npy)", help=EMBEDDINGS_HELP),
         UploadRole(QUERY_IDS, "Query ids (one per line)"),
         UploadRole(ITEM_EMBEDDINGS, "Item embeddings (.npy)", help=EMBEDDINGS_HELP),
         UploadRole(ITEM_IDS, "Item ids (one per line)"),
         UploadRole(QRELS, "Qrels (query_id,item_id,relevance)"))),
}

# Two optional tables that describe the items and the queries of any kind of upload
# (metrics.loaders.metadata); they rank nothing.
METADATA_UPLOADS = (
    UploadRole(ITEMS, "Item table (optional): item_id and any columns (title, artist, …)",
               help="CSV, TSV or Parquet with a header naming `item_id`; titles and artists are "
                    "shown beside the ids. For cover songs the query is an item: this table "
                    "describes the queries too, unless a query table is given."),
    UploadRole(QUERIES, "Query table (optional): query_id and any columns (text, genre, …)",
               help="CSV, TSV or Parquet with a header naming `query_id`; its columns can group "
                    "the queries (Groups page), and the Query box searches its text."),
)
