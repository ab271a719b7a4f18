"""The sidebar's settings: their defaults, and the data source they name.

The settings live in ``st.session_state`` under their own names (``sample``, ``measures``,
``threshold``, ``ties``, ``cutoff``, ``judge``), so they survive page switches and pages that hide
their controls. The dataset setting ``sample`` holds a bundled sample's key, or :data:`UPLOAD` for the
files the Data page took in (a :class:`DataSource` kept under ``upload``).
"""

from __future__ import annotations

import os
import sys
from dataclasses import dataclass, replace

import streamlit as st

from dashboard.errors import show_error
from metrics import MeasureError, parse_measures
from metrics.data.ties import TiePolicy
from metrics.evaluation.corrections import Correction
from metrics.evaluation.stats import DEFAULT_ALPHA
from metrics.explain.samples import SAMPLES
from metrics.measures.names import Measure, with_relevance_threshold
from metrics.measures.registry import DEFAULT_MEASURES
from metrics.ranking.inputs import METADATA_ROLES

SAMPLE, UPLOAD = "sample", "upload"   # a DataSource's origin; UPLOAD is also the setting's value
METADATA_ROLE_NAMES = frozenset(role.name for role in METADATA_ROLES)
# the teaching mode's "what if" edits (dashboard/what_if_view.py) and the system and query they
# were made for (None: a link's, for the query the link names, WHATIF_LINK_QUERY)
WHATIF_EDITS, WHATIF_FOR = "whatif_edits", "whatif_for"
WHATIF_LINK_QUERY = "whatif_link_query"
TEACHING = "teaching"       # the Query explorer's teaching mode is on
TEACH_RANK = "teach_rank"   # the teaching mode's rank r (dashboard/query_view.py), a link's r=
# the Leaderboard's correction and α, the measure of its matrix and heatmap and the Groups
# page's, and the group chosen there
CORRECTION, ALPHA = "correction", "alpha"
# the name the judging panel stores with each judgment (typed in the sidebar); in the session
# only, never in a link: a shared link must not judge under its sender's name
JUDGE = "judge"
LEADERBOARD_MEASURE, GROUPS_MEASURE, OPEN_GROUP = "leaderboard_measure", "groups_measure", \
    "chosen_group"
# A page's own controls that are widgets (not settings bound by dashboard/widgets.py) keep their
# value for the whole session, across pages: Streamlit drops a widget's value on a page switch
# unless it is created with this
KEEP = dict(persist_state="session")
# the tie policy and the correction by name, as the sidebar's box and a link hold them (a
# Streamlit box of names refuses an Enum as its value): tie_policy() and chosen_correction() give
# the types
DEFAULTS = {CORRECTION: Correction.HOLM.value, ALPHA: DEFAULT_ALPHA, OPEN_GROUP: None,
            "sample": "fmp", "ties": TiePolicy.STABLE.value, "measures": DEFAULT_MEASURES,
            "cutoff": 4,
            "threshold": 1, TEACHING: False, JUDGE: ""}
UPLOAD_CUTOFF = 10   # the cutoff K uploaded files open at (or their longest list, if shorter)


@dataclass(frozen=True)
class DataSource:
    """The data the pages show, hashable: the key of every cache of loaded data and results.

    An upload's files are (role, name, sha256 of the content), so cached results are keyed by
    file content and never shared between different uploads. Besides the files that are ranked,
    an upload may hold an item table and a query table (roles ``items`` and ``queries``,
    :data:`~metrics.ranking.inputs.METADATA_ROLES`), which rank nothing. The bytes themselves stay in the
    session (``upload_bytes``, by digest: :func:`upload_store`) and reach the cached loader as an
    unhashed argument: hashing a 35 MB upload on every click would cost a third of a second. A
    file may also hold its content itself (bytes) instead of its digest."""

    origin: str                                          # SAMPLE or UPLOAD
    sample: str = ""                                     # a sample's key (SAMPLES)
    kind: str = ""                                       # an upload's kind (KINDS)
    files: tuple[tuple[str, str, str | bytes], ...] = ()   # an upload's (role, name, content)
    collection_size: int | str | None = None             # |D|, "judged" or unknown
    distance: bool = False                               # matrices+labels: values are distances
    similarity: str = "cosine"                           # embeddings+qrels: their similarity
    names: tuple[tuple[str, str], ...] = ()              # systems renamed: (given, chosen)
    # the stored judgments that grow its qrels, (query, item, grade) (dashboard/judging.py)
    judgments: tuple[tuple[str, str, int], ...] = ()

    @classmethod
    def of_sample(cls, key: str) -> DataSource:
        return cls(SAMPLE, sample=key)

    @classmethod
    def of_upload(cls, kind: str, files: tuple, collection_size: int | str | None = None,
                  distance: bool = False, similarity: str = "cosine") -> DataSource:
        return cls(UPLOAD, kind=kind, files=tuple(files), collection_size=collection_size,
                   distance=distance, similarity=similarity)

    def unnamed(self) -> DataSource:
        """The same data under the names the files give, without its metadata tables (what
        ranking depends on: adding an item table ranks nothing again)."""
        return replace(self, names=(), files=tuple(f for f in self.files
                                                   if f[0] not in METADATA_ROLE_NAMES))

    def metadata_files(self) -> tuple[tuple[str, str, str | bytes], ...]:
        """An upload's item and query tables (role, name, content)."""
        return tuple(f for f in self.files if f[0] in METADATA_ROLE_NAMES)

    @property
    def is_sample(self) -> bool:
        return self.origin == SAMPLE

    def upload_options(self) -> dict:
        """An upload's options as a provenance record names them (none for a sample)."""
        return {} if self.is_sample else {"collection_size": self.collection_size,
                                          "distance": self.distance,
                                          "similarity": self.similarity}


def init_state() -> None:
    for key, value in DEFAULTS.items():
        st.session_state.setdefault(key, value)
    if st.session_state["sample"] == UPLOAD and "upload" not in st.session_state:
        st.session_state["sample"] = DEFAULTS["sample"]


def source(judged: bool = True) -> DataSource:
    """The data the sidebar's dataset setting names; ``judged``: with its qrels grown by the
    judgments stored for it (:func:`dashboard.judging.with_judgments`), as every page shows it."""
    key = st.session_state["sample"]
    src = st.session_state["upload"] if key == UPLOAD else DataSource.of_sample(key)
    if not judged:
        return src
    from dashboard.judging import with_judgments   # it reads this module's settings

    return with_judgments(src)


def started_with(option: str, variable: str, argv: list[str] | None = None,
                 environ: dict[str, str] | None = None) -> str | None:
    """What whoever started the server named with ``option VALUE`` (or ``option=VALUE``) among
    the script's arguments (``streamlit run app.py -- option VALUE``), else the environment
    variable ``variable``; None when neither names anything."""
    argv = sys.argv[1:] if argv is None else argv
    environ = os.environ if environ is None else environ
    named = None
    for i, arg in enumerate(argv):
        if arg == option and i + 1 < len(argv):
            named = argv[i + 1]
        elif arg.startswith(option + "="):
            named = arg.split("=", 1)[1]
    named = named if named is not None else environ.get(variable, "")
    return named if named.strip() else None


def tie_policy() -> TiePolicy:
    """The sidebar's tie policy: the dashboard's edge for it, where the setting (the box's or a
    link's name) becomes the TiePolicy that every cache, page and the engine get."""
    return TiePolicy.parse(st.session_state["ties"])


def chosen_correction() -> Correction:
    """The Leaderboard's correction: the dashboard's edge for it, as :func:`tie_policy` is for
    the tie policy (the setting holds the radio's choice or a link's name)."""
    return Correction.parse(st.session_state[CORRECTION])


def correction_title(option: str) -> str:
    """A correction's title, for the Leaderboard's radio (an AppTest may set it by name)."""
    return Correction.parse(option).title


def source_title(key: str) -> str:
    return "Uploaded files" if key == UPLOAD else SAMPLES[key].title


def upload_store() -> dict | None:
    """The uploaded files' bytes by digest (see :class:`DataSource`)."""
    return st.session_state.get("upload_bytes")


def measure_list() -> list[Measure] | None:
    """The sidebar's measures with the relevance threshold applied, or None after an error."""
    try:
        parsed = parse_measures(st.session_state.get("measures", DEFAULT_MEASURES))
    except MeasureError as exc:
        show_error(exc, "Measures: ")
        return None
    return with_relevance_threshold(parsed, int(st.session_state["threshold"]))
