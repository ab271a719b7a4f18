"""A provenance record, in the spirit of ir_metadata: enough to rerun an evaluation and get the
same numbers — the project's version, each measure with its parameters and convention (or the
protocol), the tie policy, the relevance threshold, the input files' names and SHA-256, the query
counts, the warnings and the seed.

Nothing in it changes between two runs on the same inputs (no clock, no host name, no absolute
path), so the output that carries it is byte-identical from run to run. In JSON it is the
``"provenance"`` object; in CSV, leading ``# key: value`` comment lines (value as compact JSON),
which every loader of ours skips.
"""

from __future__ import annotations

import functools
import os
import platform
import tomllib
from pathlib import Path
from typing import Iterable

from metrics.data.ties import TiePolicy
from metrics.evaluation.cells import spreadsheet_json
from metrics.evaluation.evaluate import EvaluationResult, relevance_threshold
from metrics.evaluation.protocols import describe
from metrics.evaluation.protocols import PROTOCOLS
from metrics.measures.names import Measure

PROJECT = "music-retrieval-evaluation"
_PYPROJECT = Path(__file__).resolve().parents[2] / "pyproject.toml"


@functools.cache   # read once a process: the dashboard asks on every rerun of a page
def project_version() -> str:
    """The version in the project's pyproject.toml (the package is run from its source tree),
    else the installed distribution's."""
    try:
        with open(_PYPROJECT, "rb") as handle:
            return tomllib.load(handle)["project"]["version"]
    except (OSError, KeyError, tomllib.TOMLDecodeError):
        from importlib import metadata   # here: its import costs the command line 16 ms
        try:
            return metadata.version(PROJECT)
        except metadata.PackageNotFoundError:
            return "unknown"


def file_sha256(path: str | os.PathLike) -> str:
    """SHA-256 of a file's bytes, read in chunks (hashlib.file_digest), never whole in memory."""
    import hashlib   # here: OpenSSL's import costs the command line 17 ms

    with open(path, "rb") as handle:
        return hashlib.file_digest(handle, "sha256").hexdigest()


def input_files(files: Iterable[tuple[str, str | os.PathLike | None]]) -> list[dict]:
    """(role, path) pairs as records: role, the file's name (no directory: a record must not
    depend on where the files lie), its size and SHA-256. Absent roles (None) are left out."""
    out = []
    for role, path in files:
        if path is None:
            continue
        out.append({"role": role, "name": os.path.basename(os.fspath(path)),
                    "bytes": os.path.getsize(path), "sha256": file_sha256(path)})
    return out


def _versions() -> dict[str, str]:
    import numpy
    import scipy
    return {PROJECT: project_version(), "python": platform.python_version(),
            "numpy": numpy.__version__, "scipy": scipy.__version__}


def measure_records(measures: list[Measure]) -> list[dict]:
    return [{"name": str(m), "measure": m.canonical, "parameters": m.all_params(),
             "cutoff": m.cutoff, "convention": m.definition.convention,
             "reference": m.definition.reference} for m in measures]


def record(*, command: str, inputs: list[dict], result: EvaluationResult | None = None,
           measures: list[Measure] | None = None, protocol: str | None = None,
           ties: TiePolicy | None, aggregate: str = "mean", options: dict | None = None,
           seed: int | None = None, ci: dict | None = None, queries: dict | None = None,
           warnings: Iterable[str] = ()) -> dict:
    """The provenance record of one evaluation (see the module docstring). ``ties``: the tie
    policy, or None for data that gives ranks, not scores (nothing to tie)."""
    measures = measures or []
    thresholds = sorted({relevance_threshold(m) for m in measures}) or [1]
    out = {"software": _versions(), "command": command, "inputs": inputs,
           "measures": measure_records(measures),
           "protocol": describe(PROTOCOLS[protocol]) if protocol else None,
           "ties": "none (ranks given)" if ties is None else ties,
           "relevance_threshold": thresholds[0] if len(thresholds) == 1 else thresholds,
           "aggregate": aggregate, "options": options or {}, "seed": seed, "ci": ci}
    if result is not None:
        out["queries"] = {"evaluated": len(result.query_ids),
                          "undefined": result.undefined(), **(queries or {})}
    out["warnings"] = list(dict.fromkeys(warnings))
    return out


def comment_lines(provenance: dict) -> str:
    """The record as ``# key: value`` lines (value as compact JSON), one per key, for CSV; a file
    name in it never opens as a formula in a spreadsheet (:func:`~metrics.evaluation.cells.
    spreadsheet_json`)."""
    return "\n".join(f"# {key}: {spreadsheet_json(value)}" for key, value in provenance.items())
