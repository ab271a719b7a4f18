"""Evaluating a judged ranking with a list of measures, and aggregating over queries."""

from __future__ import annotations

from dataclasses import dataclass, field, replace
from typing import TYPE_CHECKING, Callable

import numpy as np

from metrics import measures  # noqa: F401  (registers the measures)
from metrics.errors import CollectionSizeNeeded, MeasureError
from metrics.data.judged import JudgedRanking, TieReport
from metrics.measures.names import Measure, parse_measure, parse_measures
from metrics.measures.aliases import alias_note
from metrics.data.ties import TiePolicy
from metrics.ranking.tie_aware import reordered

if TYPE_CHECKING:  # pandas is imported where it is used: the command line never needs it
    import pandas as pd

AGGREGATES = ("mean", "median", "std")
NO_RELEVANT_NOTE = "trec_eval would count them as 0"   # ends the warning about R_q = 0 queries


@dataclass(frozen=True)
class MeasureResult:
    """One measure's per-query values (NaN = undefined) and the convention it was computed with.

    ``summed``: the measure is one of trec_eval's counts (NumRel, NumRet, NumRelRet, NumQ), whose
    "mean" aggregate is the sum over queries, as trec_eval and ir_measures give it; None looks
    it up in the registry by the measure's name.

    ``reduce``: a benchmark protocol's own aggregation (``reduce(values, axis)``, NaN included),
    which replaces the mean; None for our measures."""

    measure: str
    values: np.ndarray
    convention: str
    higher_is_better: bool = True
    summed: bool | None = None
    reduce: Callable[..., np.ndarray] | None = None

    @property
    def undefined(self) -> int:
        return int(np.isnan(self.values).sum())

    @property
    def is_summed(self) -> bool:
        if self.summed is not None:
            return self.summed
        try:
            return parse_measure(self.measure).definition.summed
        except MeasureError:
            return False

    @property
    def is_geometric(self) -> bool:
        """Whether the "mean" is trec_eval's geometric mean (GMAP, GMBpref: the registry's
        ``aggregate``)."""
        try:
            return parse_measure(self.measure).definition.geometric
        except MeasureError:
            return False

    def aggregate(self, how: str = "mean") -> float | None:
        if self.reduce is None:
            if how == "mean" and self.is_geometric:
                from metrics.measures.trec_eval_extras import geometric_mean
                defined = self.values[~np.isnan(self.values)]
                return geometric_mean(defined) if len(defined) else None
            return aggregate(self.values, how, summed=self.is_summed)
        if how != "mean":
            raise MeasureError(f"{self.measure} is aggregated as its benchmark's reference code "
                               f"does; a protocol takes no other aggregate than its own")
        value = float(self.reduce(self.values, axis=-1))
        return value if np.isfinite(value) else None


def aggregate(values: np.ndarray, how: str = "mean", summed: bool = False) -> float | None:
    """Mean, median or sample standard deviation over the queries where the value is defined;
    None when no query has one. With ``summed`` (count measures), the "mean" is the sum."""
    defined = values[~np.isnan(values)]
    if how not in AGGREGATES:
        raise MeasureError(f"unknown aggregate {how!r}; use one of {', '.join(AGGREGATES)}")
    if len(defined) == 0 or (how == "std" and len(defined) < 2):
        return None
    if how == "mean":
        return float(defined.sum()) if summed else float(defined.mean())
    if how == "median":
        return float(np.median(defined))
    return float(defined.std(ddof=1))


@dataclass(frozen=True)
class EvaluationResult:
    query_ids: np.ndarray
    results: dict[str, MeasureResult]
    warnings: tuple[str, ...] = field(default=())
    ties: TieReport = field(default_factory=TieReport)
    cutoffs: tuple[int, ...] = ()

    @property
    def measures(self) -> list[str]:
        return list(self.results)

    def aggregate(self, how: str = "mean") -> dict[str, float | None]:
        """Each measure over the queries where it is defined: the mean (or ``how``), except that
        trec_eval's count measures (NumRel, NumRet, NumRelRet, NumQ) are summed in place of the
        mean, as trec_eval and ir_measures do."""
        return {name: r.aggregate(how) for name, r in self.results.items()}

    def summed(self) -> list[str]:
        """The measures whose "mean" aggregate is a sum (trec_eval's counts)."""
        return [name for name, r in self.results.items() if r.is_summed]

    def undefined(self) -> dict[str, int]:
        return {name: r.undefined for name, r in self.results.items()}

    def per_query(self) -> pd.DataFrame:
        """Queries × measures table, NaN where undefined."""
        import pandas as pd
        frame = pd.DataFrame({name: r.values for name, r in self.results.items()})
        frame.insert(0, "query_id", self.query_ids)
        return frame

    def to_dataframe(self, aggregate: str | None = None) -> pd.DataFrame:
        """A pandas DataFrame, one row per query: a ``query_id`` column, then one column per
        measure under the name it was asked by, NaN where undefined. With ``aggregate`` ("mean",
        "median" or "std"), one more row whose ``query_id`` is ``"all"`` holds the aggregate
        (count measures summed for "mean", as :meth:`aggregate`). ``polars.from_pandas`` turns it
        into a polars DataFrame."""
        import pandas as pd
        frame = self.per_query()
        frame["query_id"] = frame["query_id"].astype(object)
        if aggregate is not None:
            summary = self.aggregate(aggregate)
            row = {"query_id": "all", **{m: (np.nan if v is None else v)
                                         for m, v in summary.items()}}
            frame = pd.concat([frame, pd.DataFrame([row], columns=frame.columns)],
                              ignore_index=True)
        return frame


def relevance_threshold(measure: Measure) -> int:
    """The lowest grade a measure counts as relevant: its ``rel`` parameter, else 1."""
    return measure.param("rel") if "rel" in measure.definition.params else 1


def evaluate(judged: JudgedRanking, measure_spec,
             score_no_relevant: bool = False) -> EvaluationResult:
    """Compute every measure for every ground-truth query of ``judged``.

    A query without any relevant item in the ground truth at the measure's relevance threshold
    (R_q = 0 at ``rel``) gets no value on that measure, whatever the measure: it is reported
    undefined and left out of the aggregates, with a warning that counts those queries (trec_eval
    would count them as 0).

    Parameters
    ----------
    judged : JudgedRanking
        A run ranked and looked up in its ground truth (:func:`metrics.judge`, or the
        ``judge_*`` functions of :mod:`metrics.ranking.pipelines` for matrices and embeddings).
    measure_spec : str or sequence of str or Measure
        The measures: a comma-separated list such as ``"AP,P@10,nDCG(form=burges)@10"``, or a
        sequence of names or parsed :class:`~metrics.Measure`; aliases (``MAP``,
        ``map_cut_10``, ``mAP@10``) are accepted (docs/measures.md lists every name).
    score_no_relevant : bool
        Keep the values the measures compute for queries without a relevant item, with no
        warning (trec_eval's convention, which scores every query of its qrels: the
        ``trec-eval`` command).

    Returns
    -------
    EvaluationResult
        The values per query and measure (``per_query()``, a DataFrame; NaN where undefined),
        their aggregates (``aggregate()``: means, the count measures summed), the number of
        undefined values and the warnings, keyed by the measures' names as given.

    Raises
    ------
    MeasureError
        A name that is not a measure or a malformed one, or, under ``ties="expected"``, a
        measure with no exact mean over the orders of tied items.
    CollectionSizeNeeded
        A measure needs the collection size |D| (TN, Accuracy, ...) and ``judged`` lacks it.

    Examples
    --------
    FMP's first toy example: ten items, four of them relevant, ranked 1, 2, 4 and 8, so
    AP = (1/1 + 2/2 + 3/4 + 4/8) / 4.

    >>> from metrics import evaluate, judge
    >>> from metrics.loaders import load_qrels, load_run
    >>> judged = judge(load_run("sample_data/fmp/toy1.run"),
    ...                load_qrels("sample_data/fmp/toy1.qrels"))
    >>> result = evaluate(judged, "AP,P@5,R@5")
    >>> result.aggregate()
    {'AP': 0.8125, 'P@5': 0.6, 'R@5': 0.75}
    >>> result.per_query()
      query_id      AP  P@5   R@5
    0        Q  0.8125  0.6  0.75
    """
    parsed: list[Measure] = parse_measures(measure_spec)
    warnings = list(judged.warnings)
    no_relevant: dict[int, np.ndarray] = {}
    for threshold in sorted({relevance_threshold(m) for m in parsed}):
        none = judged.num_relevant(threshold) == 0
        if score_no_relevant:
            none[:] = False
        no_relevant[threshold] = none
        if none.any():
            example = judged.query_ids[np.flatnonzero(none)[0]]
            at = "" if threshold == 1 else f" of grade >= {threshold}"
            warnings.append(
                f"{int(none.sum())} quer(ies) have no relevant item{at} in the ground truth and "
                f"are left out of every mean{'' if threshold == 1 else f' of the measures with rel={threshold}'}"
                f" (first: {example!r}); {NO_RELEVANT_NOTE}")
    results = {}
    for measure in parsed:
        definition = measure.definition
        if definition.needs_collection_size and judged.collection_sizes is None:
            raise CollectionSizeNeeded(f"{measure} needs the collection size |D|, which this "
                                       f"data does not give")
        if judged.tie_policy is TiePolicy.EXPECTED and not definition.expected:
            raise MeasureError(f"{measure}: --ties expected has no exact mean over the orderings "
                               f"of tied items for {definition.name} (no closed form and no "
                               f"exact linear-time method is implemented; 'python -m metrics "
                               f"measures' says which measures have one); use --ties "
                               f"optimistic / pessimistic for its range")
        values = np.asarray(definition.compute(judged, measure.cutoff, **dict(measure.params)),
                            dtype=np.float64)
        values = np.where(no_relevant[relevance_threshold(measure)], np.nan, values)
        results[str(measure)] = MeasureResult(str(measure), values, definition.convention,
                                              definition.higher_is_better, definition.summed)
        note = alias_note(measure)
        if note:
            warnings.append(note)
    cutoffs = tuple(sorted({m.rank_cutoff for m in parsed if m.rank_cutoff is not None}))
    straddled = [k for k in cutoffs if judged.ties.straddling(k)
                 and not judged.tie_policy.tie_aware]
    if straddled:
        warnings.append(f"score ties in {judged.name}: {judged.ties.describe(straddled)}; the "
                        f"tie policy decides what counts at these cutoffs")
    return EvaluationResult(judged.query_ids, results, tuple(warnings), judged.ties, cutoffs)


def has_judged_ties(judged: JudgedRanking) -> bool:
    """Whether some judged item ties with another item, so the tie order can change a measure."""
    return judged.hit_tie_size is not None and bool((judged.hit_tie_size > 1).any())


def tie_range(judged: JudgedRanking, measure_spec, how: str = "mean",
              base: EvaluationResult | None = None
              ) -> dict[str, tuple[float | None, float | None]]:
    """Each measure's aggregate under the ``pessimistic`` and the ``optimistic`` tie order, as
    (pessimistic, optimistic): how far the order of tied items can move it. For most measures
    these are its lowest and highest values (the reverse for those where lower is better);
    MeanRank@k, MedianRank@k, FirstRank@k and AP(norm=retrieved)@k, which average over the
    relevant items within k, can lie outside them. Empty when no judged item ties. ``base``: the
    evaluation of ``judged`` with these measures, when already made."""
    extremes = _tie_extremes(judged, measure_spec, base)
    if extremes is None:
        return {}
    low, high = (result.aggregate(how) for result in extremes)
    return {name: (low[name], high[name]) for name in low}


def _tie_extremes(judged: JudgedRanking, measure_spec, base: EvaluationResult | None = None):
    """The evaluations under the pessimistic and the optimistic tie order, or None without ties.
    Only the queries where a judged item ties can change: they alone are evaluated again, and
    the others keep their values (of ``base``, made here when not given)."""
    if not has_judged_ties(judged):
        return None
    moving = np.unique(judged.hit_query[judged.hit_tie_size > 1])
    if len(moving) == judged.num_queries:
        return (evaluate(reordered(judged, TiePolicy.PESSIMISTIC), measure_spec),
                evaluate(reordered(judged, TiePolicy.OPTIMISTIC), measure_spec))
    base = evaluate(judged, measure_spec) if base is None else base
    some = judged.subset(moving)
    out = []
    for policy in (TiePolicy.PESSIMISTIC, TiePolicy.OPTIMISTIC):
        moved = evaluate(reordered(some, policy), measure_spec)
        results = {}
        for name, result in base.results.items():
            values = result.values.copy()
            values[moving] = moved.results[name].values
            results[name] = replace(result, values=values)
        out.append(replace(base, results=results))
    return tuple(out)


def tie_moves(judged: JudgedRanking, measure_spec) -> pd.DataFrame:
    """Per query and measure, how far the order of tied items can move the value: columns
    ``query_id``, ``measure``, ``pessimistic``, ``optimistic``, one row where the two differ
    (queries whose ties change nothing are left out), largest move first."""
    import pandas as pd
    columns = ["query_id", "measure", "pessimistic", "optimistic"]
    extremes = _tie_extremes(judged, measure_spec)
    if extremes is None:
        return pd.DataFrame(columns=columns)
    low, high = extremes
    frames = []
    for name in low.results:
        lo, hi = low.results[name].values, high.results[name].values
        moves = np.flatnonzero(~np.isclose(lo, hi, rtol=0, atol=1e-12, equal_nan=True))
        frames.append(pd.DataFrame({"query_id": judged.query_ids[moves], "measure": name,
                                    "pessimistic": lo[moves], "optimistic": hi[moves]}))
    table = pd.concat(frames, ignore_index=True) if frames else pd.DataFrame(columns=columns)
    size = (table["optimistic"] - table["pessimistic"]).abs()
    return table.iloc[np.argsort(-size.to_numpy(float), kind="stable")].reset_index(drop=True)
