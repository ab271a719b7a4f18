"""Music Retrieval Evaluation: the pure evaluation engine (no Streamlit, no Plotly).

>>> from metrics import Run, GroundTruth, judge, evaluate
>>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
>>> truth = GroundTruth.from_dict({"q": {"b": 1, "c": 0}})
>>> evaluate(judge(run, truth), "AP,RR").aggregate()
{'AP': 0.5, 'RR': 0.5}
"""

from .errors import InputError, MeasureError
from .evaluate import EvaluationResult, MeasureResult, aggregate, evaluate
from .judged import JudgedRanking, TieReport
from .model import GroundTruth, Run
from .protocols import evaluate_protocol   # also registers the protocols
from .ranking import RankedRun, judge, rank_run
from .registry import REGISTRY, Measure, parse_measure, parse_measures, split_measure_list

__all__ = ["REGISTRY", "EvaluationResult", "GroundTruth", "InputError", "JudgedRanking",
           "Measure", "MeasureError", "MeasureResult", "RankedRun", "Run", "TieReport",
           "aggregate", "evaluate", "evaluate_protocol", "judge", "parse_measure",
           "parse_measures", "rank_run", "split_measure_list"]
