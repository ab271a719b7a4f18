"""Uploaded files judged as the Data page has them judged: described as an evaluation's inputs
(:class:`~metrics.ranking.inputs.EvaluationInputs`) and given to the one function from files to
judged rankings."""

from __future__ import annotations

from metrics.data.judged import JudgedRanking
from metrics.ranking.inputs import EvaluationInputs
from metrics.ranking.pipelines import judge_inputs


def judge_upload(kind: str, files: dict[str, list[tuple[str, bytes]]],
                 **options) -> dict[str, JudgedRanking]:
    """The judged rankings of uploaded files (role -> [(file name, content)]), one per system."""
    return judge_inputs(EvaluationInputs(kind, tuple(
        (role, name, content) for role, given in files.items() for name, content in given),
        **options)).systems
