"""The bundled datasets of ``sample_data/`` (see its README), each loaded as judged rankings, one
per system."""

from __future__ import annotations

from functools import lru_cache
from dataclasses import dataclass
from pathlib import Path
from typing import Callable

from metrics.data.ties import TiePolicy
from metrics.explain.answer_sets import judged_answer_sets
from metrics.loaders.metadata import read_item_table, read_query_table
from metrics.data.judged import JudgedRanking
from metrics.ranking.inputs import (ANNOTATIONS, EMBEDDINGS_QRELS, ITEM_EMBEDDINGS, ITEM_IDS,
                                    LABELS, MATRICES, MATRICES_LABELS, QRELS, QUERY_EMBEDDINGS,
                                    QUERY_IDS, RUNS, RUNS_QRELS, RUNS_TAXONOMY, TAXONOMY,
                                    EvaluationInputs, Role)
from metrics.ranking.pipelines import judge_inputs
from metrics.ranking.rank import JUDGED

SAMPLE_DIR = Path(__file__).resolve().parents[2] / "sample_data"


@dataclass(frozen=True)
class Sample:
    key: str
    title: str
    description: str
    load: Callable[[TiePolicy], dict[str, JudgedRanking]]   # {system: judged ranking}
    # the files it is judged from, where its ground truth is a qrels file that judging can grow
    inputs: Callable[[TiePolicy], EvaluationInputs] | None = None


def _inputs(kind: str, files: list[tuple[Role, Path]], ties: TiePolicy,
            **options) -> EvaluationInputs:
    """A sample's files as an evaluation's inputs, each file named by its path."""
    return EvaluationInputs(kind, tuple((role.name, str(path), path) for role, path in files),
                            ties, **options)


def _judged(kind: str, files: list[tuple[Role, Path]], ties: TiePolicy,
            **options) -> dict[str, JudgedRanking]:
    """A sample's files judged as the command line and the Data page judge theirs
    (:func:`~metrics.ranking.pipelines.judge_inputs`)."""
    return judge_inputs(_inputs(kind, files, ties, **options)).systems


def _fmp(ties):   # every document of each toy is judged: |D| is 10 and 8
    d = SAMPLE_DIR / "fmp"
    (toys,) = _judged(RUNS_QRELS, [(RUNS, d / "toys.run"), (QRELS, d / "toys.qrels")], ties,
                      collection_size=JUDGED).values()
    return {"fmp": toys}


def _serra(ties):
    return {"answer sets": judged_answer_sets()}


def _covers(ties):
    d = SAMPLE_DIR / "covers"
    matrices = [(MATRICES, d / f"{s}.npy") for s in ("system_a", "system_b")]
    return _judged(MATRICES_LABELS, [*matrices, (LABELS, d / "labels.csv")], ties)


def _taxonomy_runs(folder: str, ties):
    d = SAMPLE_DIR / folder
    return _judged(RUNS_TAXONOMY, [*((RUNS, d / f"{s}.run") for s in ("system_a", "system_b")),
                                   (TAXONOMY, d / "taxonomy.csv"),
                                   (ANNOTATIONS, d / "annotations.csv")], ties)


def _instruments(ties):
    return _taxonomy_runs("instruments", ties)


def _tinysol(ties):
    return _taxonomy_runs("tinysol", ties)


def _text2music_inputs(ties) -> EvaluationInputs:
    d = SAMPLE_DIR / "text2music"
    models = ("model_a", "model_b")
    return _inputs(EMBEDDINGS_QRELS, [*((QUERY_EMBEDDINGS, d / f"{m}_queries.npy") for m in models),
                                      (QUERY_IDS, d / "query_ids.txt"),
                                      *((ITEM_EMBEDDINGS, d / f"{m}_items.npy") for m in models),
                                      (ITEM_IDS, d / "item_ids.txt"), (QRELS, d / "qrels.csv")],
                   ties, similarity="cosine")


def _text2music(ties):
    return judge_inputs(_text2music_inputs(ties)).systems


VERSION_SYSTEMS = ("baseline", "chroma_dtw", "cqt_net", "cqt_net_aug", "transformer")


def _versions_inputs(ties) -> EvaluationInputs:
    d = SAMPLE_DIR / "versions"
    return _inputs(RUNS_QRELS, [*((RUNS, d / f"{s}.run") for s in VERSION_SYSTEMS),
                                (QRELS, d / "qrels.txt")], ties)


def _versions(ties):
    return judge_inputs(_versions_inputs(ties)).systems


SAMPLES = {s.key: s for s in [
    Sample("fmp", "FMP toy examples (Müller, C7S3)",
           "Two queries from FMP's notebook: relevant at ranks 1, 2, 4, 8 and 2, 3, 5, 6.", _fmp),
    Sample("serra", "Serrà's six answer sets (2007)",
           "|A| = 14, |D| = 2054: the answer sets behind Table 2 of the cover-song paper.", _serra),
    Sample("covers", "Cover songs: all-vs-all similarity",
           "A synthetic collection in cliques, two systems' similarity matrices.", _covers),
    Sample("instruments", "Instrument retrieval with a two-level taxonomy",
           "Relevance 2 for the query instrument, 1 for a sibling (the instrument-retrieval "
           "task); two systems.",
           _instruments),
    Sample("text2music", "Text-to-music retrieval from embeddings",
           "Text queries against music items, two embedding models, cosine similarity; one "
           "judged track per caption, the others to judge by listening.",
           _text2music, _text2music_inputs),
    Sample("versions", "Version identification: five systems",
           "60 query recordings, 2–7 versions each (grade 2 for the original); five systems' "
           "TREC runs on one ground truth, for the leaderboard.", _versions, _versions_inputs),
    Sample("tinysol", "TinySOL: a real instrument taxonomy",
           "TinySOL's 2,913 notes in 4 families and 14 instruments (CC BY 4.0, from mirdata's "
           "index); two synthetic systems rank the notes for each instrument.", _tinysol),
]}


def load_sample(key: str, ties: TiePolicy = TiePolicy.STABLE) -> dict[str, JudgedRanking]:
    return SAMPLES[key].load(ties)


# A sample's metadata tables (docs/formats.md), in its folder when it has them
ITEM_TABLE, QUERY_TABLE = "items.csv", "queries.csv"


@lru_cache(maxsize=None)
def sample_metadata(key: str):
    """A sample's item table and query table (pandas DataFrames, see
    :mod:`metrics.loaders.metadata`), each None where the sample has none. Kept once read: the
    callers never modify them."""
    folder = SAMPLE_DIR / key
    items, queries = folder / ITEM_TABLE, folder / QUERY_TABLE
    return (read_item_table(items, f"sample_data/{key}/{ITEM_TABLE}") if items.is_file() else None,
            read_query_table(queries, f"sample_data/{key}/{QUERY_TABLE}") if queries.is_file()
            else None)
