"""What an evaluation is given: the kind of inputs, its files by role and the options that change
the judged rankings. The command line (:mod:`metrics.cli.commands`) and the Data page
(:mod:`dashboard.datasets`) each build an :class:`EvaluationInputs`, and one function turns it
into judged rankings: :func:`metrics.ranking.pipelines.judge_inputs`.

A kind names what is ranked and what judges it; its roles are the files it takes, in the order
they are checked and read. How the Data page asks for them (titles, labels, help) is the
dashboard's (:mod:`dashboard.uploads`).
"""

from __future__ import annotations

from dataclasses import dataclass

from metrics.data.ties import TiePolicy
from metrics.errors import InputError
from metrics.loaders.text import Source


@dataclass(frozen=True)
class Role:
    """What one file (or several, ``many``: one system each) of an evaluation's inputs is."""

    name: str
    many: bool = False


RUNS = Role("runs", many=True)
QRELS = Role("qrels")   # qrels, or a labels file (item_id,label) whose cliques make the relevance
LABELS = Role("labels")
TAXONOMY, ANNOTATIONS = Role("taxonomy"), Role("annotations")
MATRICES = Role("matrices", many=True)
QUERY_EMBEDDINGS, ITEM_EMBEDDINGS = Role("query_embeddings", many=True), \
    Role("item_embeddings", many=True)
QUERY_IDS, ITEM_IDS = Role("query_ids"), Role("item_ids")

RUNS_QRELS, RUNS_LABELS, RUNS_TAXONOMY = "runs+qrels", "runs+labels", "runs+taxonomy"
MATRICES_LABELS, EMBEDDINGS_QRELS = "matrices+labels", "embeddings+qrels"
KINDS: dict[str, tuple[Role, ...]] = {
    RUNS_QRELS: (RUNS, QRELS),
    RUNS_LABELS: (RUNS, LABELS),
    RUNS_TAXONOMY: (RUNS, TAXONOMY, ANNOTATIONS),
    MATRICES_LABELS: (MATRICES, LABELS),
    EMBEDDINGS_QRELS: (QUERY_EMBEDDINGS, QUERY_IDS, ITEM_EMBEDDINGS, ITEM_IDS, QRELS),
}
# Two optional tables that describe the items and the queries of any kind of inputs
# (metrics.loaders.metadata); they rank nothing, so they are no part of EvaluationInputs.
ITEMS, QUERIES = Role("items"), Role("queries")
METADATA_ROLES = (ITEMS, QUERIES)


@dataclass(frozen=True)
class EvaluationInputs:
    """The files of one evaluation, each as (role, name, path or content), with the options that
    change its judged rankings. ``named_by_file``: each system is called by its file's name
    without extensions (the command line's evaluate commands), not by its run's tag or its
    embedding model."""

    kind: str
    files: tuple[tuple[str, str, Source], ...]
    ties: TiePolicy = TiePolicy.STABLE
    collection_size: int | str | None = None
    distance: bool = False            # matrices: the values are distances
    similarity: str = "cosine"        # embeddings: cosine, dot or euclidean
    float32_scores: bool = False      # scores compared as float32 (a protocol's cast)
    named_by_file: bool = False

    def __post_init__(self):
        if self.kind not in KINDS:
            raise InputError(f"unknown kind of upload {self.kind!r}; use one of "
                             f"{', '.join(KINDS)}")

    def given(self, role: Role) -> list[tuple[str, Source]]:
        """The (name, path or content) of the files of a role, in order."""
        return [(name, source) for r, name, source in self.files if r == role.name]

    def one(self, role: Role) -> tuple[Source, str]:
        """(path or content, name) of the one file of a role."""
        given = self.given(role)
        if len(given) != 1:
            raise InputError(f"upload one {role.name.replace('_', ' ')} file")
        name, source = given[0]
        return source, name

    def several(self, role: Role) -> list[tuple[str, Source]]:
        """The files of a role that takes several (one system each), at least one."""
        given = self.given(role)
        if not given:
            raise InputError(f"upload at least one file of {role.name}")
        return given
