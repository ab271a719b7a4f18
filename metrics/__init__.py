"""Music Retrieval Evaluation: the pure evaluation engine (no Streamlit, no Plotly).

>>> from metrics import Run, GroundTruth, judge, evaluate
>>> run = Run.from_dict({"q": {"a": 3.0, "b": 2.0, "c": 1.0}})
>>> truth = GroundTruth.from_dict({"q": {"b": 1, "c": 0}})
>>> evaluate(judge(run, truth), "AP,RR").aggregate()
{'AP': 0.5, 'RR': 0.5}
"""

# The public names, by layer: errors; the data model; ranking and judging; measure names;
# evaluation. Everything else is imported from its module (metrics.loaders, metrics.evaluation.
# curves, metrics.evaluation.stats, ...).
from metrics.errors import InputError, MeasureError
from metrics.data.judged import JudgedRanking, TieReport
from metrics.data.relevance import Relevance
from metrics.data.run import Run
from metrics.data.ties import TiePolicy
from metrics.data.truth import GroundTruth
from metrics.ranking.rank import RankedRun, judge, rank_run
from metrics.measures.registry import REGISTRY
from metrics.measures.names import Measure, parse_measure, parse_measures, split_measure_list
from metrics.evaluation.evaluate import EvaluationResult, MeasureResult, aggregate, evaluate
from metrics.evaluation.protocols import evaluate_protocol   # also registers the protocols

__all__ = ["REGISTRY", "EvaluationResult", "GroundTruth", "InputError", "JudgedRanking",
           "Measure", "MeasureError", "MeasureResult", "RankedRun", "Relevance", "Run",
           "TiePolicy", "TieReport", "aggregate", "evaluate", "evaluate_protocol", "judge",
           "parse_measure", "parse_measures", "rank_run", "split_measure_list"]
