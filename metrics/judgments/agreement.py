"""How far two judges agree (:func:`agreement`): on the pairs both judged, Cohen's κ on relevance
and linearly weighted κ on grades, overall and per query; and, given runs, whether their
judgments order the systems alike (each system's mean under each, Kendall's τ between the two
orders, and the pairs of systems that swap; Voorhees, 2000).

κ is undefined (None, with the reason) where its chance agreement is 1: every pair in one
category on both sides, or no pair at all. It is never made up.
"""

from __future__ import annotations

from dataclasses import dataclass, field
from typing import Mapping, NamedTuple

import numpy as np

from metrics.data.relevance import Relevance
from metrics.data.run import Run
from metrics.data.ties import TiePolicy
from metrics.data.truth import GroundTruth
from metrics.errors import InputError

NO_PAIRS = "no pair is judged by both"
ONE_CATEGORY = "every pair is in one category on both sides (chance agreement is 1: κ is 0/0)"


class Kappa(NamedTuple):
    """A κ and, when it is undefined (None), why."""

    value: float | None
    reason: str | None = None


class QueryAgreement(NamedTuple):
    """One query's pairs judged by both and its κ on relevance (None: see ``reason``)."""

    pairs: int
    kappa: float | None
    reason: str | None = None


@dataclass(frozen=True)
class SystemAgreement:
    """The systems' means of ``measure`` under each ground truth (None: no query defined),
    Kendall's τ-b between the two orders (None: see ``tau_reason``) and the pairs of systems
    whose order the two truths reverse, each as (better under A, better under B)."""

    measure: str
    names: list[str]
    mean_a: list[float | None]
    mean_b: list[float | None]
    kendall_tau: float | None
    tau_reason: str | None
    swaps: list[tuple[str, str]]


@dataclass(frozen=True)
class Agreement:
    """Two judges' agreement: ``pairs`` judged by both, Cohen's ``kappa`` on relevance (grade ≥
    ``rel``) and ``weighted_kappa`` (linear weights on grades), each None when undefined with
    its reason in ``reasons``; ``per_query`` {query: (pairs, kappa, reason)}; ``systems`` with
    runs, else None."""

    pairs: int
    kappa: float | None
    weighted_kappa: float | None
    per_query: dict[str, QueryAgreement]
    systems: SystemAgreement | None
    rel: int = 1
    reasons: dict[str, str] = field(default_factory=dict)

    def to_json(self) -> dict:
        """The command line's JSON: ``{"pairs", "kappa", "weighted_kappa", "per_query": {qid:
        {"pairs", "kappa"}}, "systems": {"names", "mean_a", "mean_b", "kendall_tau", "swaps"}}``
        (``systems`` null without runs); undefined values are null."""
        systems = None if self.systems is None else {
            "names": self.systems.names, "mean_a": self.systems.mean_a,
            "mean_b": self.systems.mean_b, "kendall_tau": self.systems.kendall_tau,
            "swaps": [list(pair) for pair in self.systems.swaps]}
        return {"pairs": self.pairs, "kappa": self.kappa, "weighted_kappa": self.weighted_kappa,
                "per_query": {q: {"pairs": a.pairs, "kappa": a.kappa}
                              for q, a in self.per_query.items()},
                "systems": systems}

    def notes(self) -> list[str]:
        """Why each undefined value is undefined, one line each (queries counted, not listed)."""
        lines = [f"{name} is undefined: {why}" for name, why in self.reasons.items()]
        undefined: dict[str, list[str]] = {}
        for name, query in self.per_query.items():
            if query.kappa is None:
                undefined.setdefault(query.reason, []).append(name)
        for why, names in undefined.items():
            n = len(names)
            listed = ", ".join(names[:3]) + (", ..." if n > 3 else "")
            lines.append(f"kappa of {n} quer{'y' if n == 1 else 'ies'} ({listed}) is "
                         f"undefined: {why}")
        if self.systems is not None and self.systems.tau_reason:
            lines.append(f"kendall_tau is undefined: {self.systems.tau_reason}")
        return lines


def cohen_kappa(a: np.ndarray, b: np.ndarray, weights: np.ndarray | None = None) -> Kappa:
    """Cohen's κ of two raters' categories (codes 0..k−1) on the same items: 1 − Σ w·O / Σ w·E
    with O the observed and E the chance (product of the marginals) proportions, and w the
    disagreement weights (1 off the diagonal unless given)."""
    if not len(a):
        return Kappa(None, NO_PAIRS)
    k = int(max(a.max(), b.max())) + 1
    observed = np.zeros((k, k))
    np.add.at(observed, (a, b), 1.0)
    observed /= len(a)
    expected = np.outer(observed.sum(axis=1), observed.sum(axis=0))
    w = 1.0 - np.eye(k) if weights is None else weights[:k, :k]
    chance = float((w * expected).sum())
    if chance == 0.0:
        return Kappa(None, ONE_CATEGORY)
    return Kappa(1.0 - float((w * observed).sum()) / chance)


def linear_weights(k: int) -> np.ndarray:
    """Linear disagreement weights of k ordered categories: |i − j| / (k − 1)."""
    codes = np.arange(k)
    return np.abs(codes[:, None] - codes[None, :]) / max(k - 1, 1)


def common_pairs(truth_a: GroundTruth, truth_b: GroundTruth):
    """The pairs both truths judge (grade 0 or more on both sides), as a DataFrame (query_id,
    item_id, grade_a, grade_b), in A's order."""
    import pandas as pd

    frames = []
    for truth, grade in ((truth_a, "grade_a"), (truth_b, "grade_b")):
        if truth.unlisted_judged:
            raise InputError(f"{truth.name} judges every item (labels or a taxonomy); agreement "
                             "compares two judges' qrels")
        keep = Relevance.judged(truth.pair_grade)
        frames.append(pd.DataFrame({
            "query_id": np.asarray(truth.query_ids, dtype=object)[truth.pair_query[keep]],
            "item_id": np.asarray(truth.pair_items.tolist(), dtype=object)[keep],
            grade: np.asarray(truth.pair_grade, dtype=np.int64)[keep]}))
    return frames[0].merge(frames[1], on=["query_id", "item_id"], how="inner", sort=False)


def agreement(truth_a: GroundTruth, truth_b: GroundTruth, rel: int = 1,
              runs: Mapping[str, Run] | None = None, measure: str = "AP",
              ties: TiePolicy = TiePolicy.STABLE) -> Agreement:
    """Two judges' agreement on the pairs both judged (a grade of 0 or more on both sides).

    κ on relevance: each grade as relevant (≥ ``rel``) or not, Cohen's κ. Weighted κ: the grades
    as ordered categories, every whole grade from the smallest to the largest either judge gave,
    with linear weights |g_a − g_b| / (max − min) (scikit-learn's ``cohen_kappa_score(weights=
    "linear", labels=range(min, max + 1))``; without ``labels`` it would space only the grades
    seen, one apart). Per query: the queries of A, then those only B has, each with its pairs
    and κ on relevance.

    With ``runs`` (``{system name: run}``): each system's mean of ``measure`` judged by A and
    by B (queries without a relevant item not averaged), Kendall's τ-b (scipy) between the two
    lists of means, and the swaps: the pairs of systems that one truth orders strictly one way
    and the other strictly the other (a tie on either side is no swap)."""
    relevance = Relevance(rel)
    pairs = common_pairs(truth_a, truth_b)
    grade_a = pairs["grade_a"].to_numpy(dtype=np.int64)
    grade_b = pairs["grade_b"].to_numpy(dtype=np.int64)
    rel_a = relevance.relevant(grade_a).astype(np.int64)
    rel_b = relevance.relevant(grade_b).astype(np.int64)
    kappa = cohen_kappa(rel_a, rel_b)
    if len(pairs):
        low = int(min(grade_a.min(), grade_b.min()))
        high = int(max(grade_a.max(), grade_b.max()))
        weighted = cohen_kappa(grade_a - low, grade_b - low, linear_weights(high - low + 1))
    else:
        weighted = Kappa(None, NO_PAIRS)
    per_query: dict[str, QueryAgreement] = {}
    queries = list(dict.fromkeys([str(q) for q in truth_a.query_ids]
                                 + [str(q) for q in truth_b.query_ids]))
    codes = {q: i for i, q in enumerate(queries)}
    row_query = np.asarray([codes[str(q)] for q in pairs["query_id"]], dtype=np.int64)
    order = np.argsort(row_query, kind="stable")
    bounds = np.searchsorted(row_query[order], np.arange(len(queries) + 1))
    for i, query in enumerate(queries):
        rows = order[bounds[i]:bounds[i + 1]]
        k = cohen_kappa(rel_a[rows], rel_b[rows])
        per_query[query] = QueryAgreement(len(rows), k.value, k.reason)
    reasons = {name: k.reason for name, k in (("kappa", kappa), ("weighted_kappa", weighted))
               if k.value is None}
    systems = None if runs is None else system_agreement(truth_a, truth_b, runs, measure, ties)
    return Agreement(len(pairs), kappa.value, weighted.value, per_query, systems,
                     relevance.threshold, reasons)


def system_agreement(truth_a: GroundTruth, truth_b: GroundTruth, runs: Mapping[str, Run],
                     measure: str = "AP", ties: TiePolicy = TiePolicy.STABLE
                     ) -> SystemAgreement:
    """Each system's mean of ``measure`` under A and under B, Kendall's τ-b of the two orders and
    the swapped pairs (see :func:`agreement`)."""
    from scipy import stats

    from metrics.evaluation.evaluate import evaluate
    from metrics.measures.names import parse_measure
    from metrics.ranking.rank import judge

    if not runs:
        raise InputError("give at least one run to compare the systems' orders")
    label = str(parse_measure(measure))
    names = list(runs)
    means = {"a": [], "b": []}
    for run in runs.values():
        for side, truth in (("a", truth_a), ("b", truth_b)):
            value = evaluate(judge(run, truth, ties), label).aggregate()[label]
            means[side].append(None if value is None or not np.isfinite(value) else float(value))
    defined = [i for i in range(len(names))
               if means["a"][i] is not None and means["b"][i] is not None]
    tau, reason = None, None
    if len(defined) < 2:
        reason = "fewer than two systems have a mean under both ground truths"
    else:
        a = np.array([means["a"][i] for i in defined])
        b = np.array([means["b"][i] for i in defined])
        if np.all(a == a[0]) or np.all(b == b[0]):
            reason = "every system has the same mean under one of the ground truths"
        else:
            tau = float(stats.kendalltau(a, b).statistic)
    swaps = []
    for x, i in enumerate(defined):
        for j in defined[x + 1:]:
            da = means["a"][i] - means["a"][j]
            db = means["b"][i] - means["b"][j]
            if da * db < 0:
                swaps.append((names[i], names[j]) if da > 0 else (names[j], names[i]))
    return SystemAgreement(label, names, means["a"], means["b"], tau, reason, swaps)
