"""What a benchmark protocol is (:class:`Protocol` and its :class:`ProtocolColumn` objects; the
protocols themselves are in :mod:`metrics.evaluation.protocols`) and what their columns compute
that no measure of ours does: the reference codes' aggregations over queries (their medians, sums,
denominators and jackknife estimates), a few per-query values (a 0-based first rank, a rank of 1
for a query whose relevant item was never found), and the inputs a reference code cannot
evaluate (it fails on them; so do we, saying why)."""

from __future__ import annotations

import warnings
from dataclasses import dataclass
from typing import Any, Callable

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.measures.common import first_relevant_rank, per_query_sum, relevant_hits


# ---- what a protocol is ------------------------------------------------------------------------

@dataclass(frozen=True)
class ProtocolColumn:
    """One number a benchmark's reference code prints.

    ``per_query`` is our measure (its text, e.g. ``"Success@10"``; queries without a relevant item
    are undefined, as everywhere) or a vectorised function of the judged ranking giving one value
    per query (NaN where the reference code skips the query). ``reduce(values, axis)`` turns the
    per-query values (NaN included, so that a reference dividing by every query can be reproduced)
    into the printed aggregate, vectorised along ``axis`` (the bootstrap calls it on many
    resamples at once); ``scale`` multiplies the result (100 for a percentage).

    ``standard`` is the measure of ours a reader takes the printed name to mean (``R@5`` for
    "R@5", ``mAP@10`` for "mAP@10"), with its aggregate over queries (``standard_aggregate``:
    mean, median or sum): the Conventions page shows the two side by side, and ``explanation``
    says in one line why they differ."""

    name: str
    per_query: str | Callable[[Any], np.ndarray]
    reduce: Callable[..., Any]
    explanation: str
    scale: float = 1.0
    higher_is_better: bool = True
    standard: str = ""
    standard_aggregate: str = "mean"


@dataclass(frozen=True)
class Protocol:
    """A benchmark's evaluation, as its reference code computes it: the numbers it prints, in its
    order and under its names. ``source`` cites the repository, file and commit read.

    ``float32_scores``: the reference casts the scores to float32 before ranking them, so the
    ranking must be made so (the command line does; in Python, the ``float32_scores`` option of
    :mod:`metrics.ranking.pipelines`' functions). ``refuses(judged)`` gives the reason the
    reference code fails on an input (None when it does not); ``caveat(judged)`` a warning for
    an input it evaluates in a way worth saying (None when there is nothing to say)."""

    name: str
    title: str
    source: str
    conventions: str
    columns: tuple[ProtocolColumn, ...]
    float32_scores: bool = False
    refuses: Callable[[JudgedRanking], str | None] | None = None
    caveat: Callable[[JudgedRanking], str | None] | None = None

    def column(self, name: str) -> ProtocolColumn:
        return next(c for c in self.columns if c.name == name)


# ---- the reference codes' aggregations, vectorised along an axis (NaN = query not evaluated) -----


def _quiet(fn):
    def wrapped(values, axis=-1):
        with warnings.catch_warnings():   # an all-NaN resample gives NaN, said as "undefined"
            warnings.simplefilter("ignore", RuntimeWarning)
            return fn(np.asarray(values, dtype=np.float64), axis)
    wrapped.__name__ = wrapped.__qualname__ = fn.__name__
    wrapped.__doc__ = fn.__doc__
    return wrapped


@_quiet
def mean(values, axis):
    """Mean over the evaluated queries."""
    return np.nanmean(values, axis=axis)


@_quiet
def total(values, axis):
    """Sum over the queries (a count, such as MIREX's total covers in the top 10)."""
    return np.nansum(values, axis=axis)


@_quiet
def sum_over_every_query(values, axis):
    """Sum over the evaluated queries divided by the number of *all* queries, those the reference
    never evaluates included (acoss' MRR: 1/N Σ 1/rank with N every song)."""
    return np.nansum(values, axis=axis) / values.shape[axis]


@_quiet
def jackknife_mean(values, axis):
    """astropy.stats.jackknife_stats(x, np.mean)'s bias-corrected estimate, which TTMR reports for
    R@k and mAP@10: n·mean(x) − (n − 1)·(mean of the n leave-one-out means). The leave-one-out
    means average to the mean, so for n ≥ 2 it is the mean (astropy's own arithmetic can move the
    last binary digit). For n = 1 there is no leave-one-out sample: astropy's mean of an empty one
    is NaN, and (n − 1)·(NaN − mean) keeps it, so the estimate is undefined."""
    n = (~np.isnan(values)).sum(axis=axis)
    return np.where(n >= 2, np.nanmean(values, axis=axis), np.nan)


@_quiet
def percent_in_float32(values, axis):
    """MusCALL's R@k: 100 · Σ (over every query) ÷ the number of queries, as torch computes it:
    the integer count times 100 divided in float32 (an integer tensor divided by an int gives a
    float32 tensor), so 100 · 5 / 12 is 41.66666793823242, not 41.666666666666664."""
    count = np.float32(np.nansum(values, axis=axis) * 100)
    return (count / np.float32(values.shape[axis])).astype(np.float64)


@_quiet
def median(values, axis):
    """numpy's median: the mean of the two middle values for an even count."""
    return np.nanmedian(values, axis=axis)


@_quiet
def floored_zero_based_median(values, axis):
    """CLAP: floor(median(rank − 1)) + 1 — the median of 0-based ranks, floored, made 1-based;
    for an even count the half is dropped (ranks 1 and 2 give 1, not 1.5)."""
    return np.floor(np.nanmedian(values - 1, axis=axis)) + 1


def _sorted_defined(values, axis):
    v = np.moveaxis(values, axis, -1)
    return np.sort(v, axis=-1), (~np.isnan(v)).sum(axis=-1)   # NaN sorts last


def _take(sorted_values, index):
    index = np.clip(index, 0, sorted_values.shape[-1] - 1)
    return np.take_along_axis(sorted_values, np.asarray(index)[..., None], axis=-1)[..., 0]


@_quiet
def lower_median(values, axis):
    """torch.median: the lower of the two middle values for an even count (sorted[(n − 1) // 2])."""
    s, n = _sorted_defined(values, axis)
    return np.where(n > 0, _take(s, (n - 1) // 2), np.nan)


@_quiet
def jackknife_median(values, axis):
    """astropy.stats.jackknife_stats(x, np.median)'s bias-corrected estimate, which TTMR reports as
    its median rank: n·median(x) − (n − 1)·mean of the n leave-one-out medians.

    In closed form on the sorted values x₀ ≤ … ≤ x_{n−1}: for even n = 2m half the leave-one-out
    medians are x_m and half x_{m−1}, so the estimate is the median itself. For odd n = 2m + 1,
    leaving out one of the m values below the middle gives (x_m + x_{m+1})/2, the middle one
    (x_{m−1} + x_{m+1})/2 and one of the m above (x_{m−1} + x_m)/2, so the estimate differs from
    the median (and can be negative: [0, 0, 3] gives −2). Undefined for n < 2."""
    s, n = _sorted_defined(values, axis)
    m = n // 2
    odd = n % 2 == 1
    mid = _take(s, m)
    even_median = (_take(s, m - 1) + mid) / 2
    loo_mean = (m * (mid + _take(s, m + 1)) + _take(s, m - 1) + _take(s, m + 1)
                + m * (_take(s, m - 1) + mid)) / (2 * np.maximum(n, 1))
    estimate = np.where(odd, n * mid - (n - 1) * loo_mean, even_median)
    return np.where(n >= 2, estimate, np.nan)


# ---- per-query values no measure of ours gives -----------------------------------------------


def _with_relevant(j: JudgedRanking, values: np.ndarray) -> np.ndarray:
    """NaN for the queries without a relevant item in the ground truth (never queries there)."""
    return np.where(j.num_relevant(1) == 0, np.nan, values)


def first_rank_or_one(j: JudgedRanking) -> np.ndarray:
    """re-move's rank of the first relevant item, every query included: ``torch.topk(found −
    ramp, 1)`` picks position 0 when a row holds no relevant item, so such a query (none
    retrieved, or none in the ground truth) counts as found at rank 1."""
    return np.nan_to_num(first_relevant_rank(j, 1, None), nan=1.0)


def reciprocal_first_rank_or_one(j: JudgedRanking) -> np.ndarray:
    """1 / :func:`first_rank_or_one`: re-move's MRR terms (1 for a query with nothing found)."""
    return 1.0 / first_rank_or_one(j)


def zero_based_first_rank(j: JudgedRanking) -> np.ndarray:
    """TTMR's rank value: the 0-based position of the first relevant item."""
    return first_relevant_rank(j, 1, None) - 1


def unnormalised_ap_at_10(j: JudgedRanking) -> np.ndarray:
    """TTMR's "mAP@10" term: Σ over the relevant items in the top 10 of (their place among them) /
    rank, divided by nothing — AP@10 × R_q; with its one relevant item per caption, RR@10."""
    hits = relevant_hits(j, 1, 10)
    return _with_relevant(j, per_query_sum(j, hits.query, hits.tp / hits.rank))


# ---- inputs a reference code fails on: the reason, or None -----------------------------------


def _first_problem(j: JudgedRanking, checks) -> str | None:
    """The message of the first check that some query fails, about the first such query: each
    check is (a mask of the failing queries, a message from the query id quoted and its index)."""
    for failing, message in checks:
        where = np.flatnonzero(failing)
        if len(where):
            return message(repr(str(j.query_ids[where[0]])), int(where[0]))
    return None


def not_square_pairs(j: JudgedRanking) -> str | None:
    """MusCALL's get_ranking takes the diagonal of a square score matrix as the ground truth (and
    fails on a non-square one): each query has exactly one relevant item, in a list of every item,
    as many items as there are queries."""
    relevant, n, length = j.num_relevant(1), j.num_queries, j.lengths
    return _first_problem(j, (
        (relevant != 1, lambda q, i: f"query {q} has {relevant[i]} relevant items; MusCALL pairs "
                                     f"each query with exactly one item (the diagonal of its "
                                     f"square score matrix)"),
        (length != n, lambda q, i: f"there are {n} queries but query {q} ranks {length[i]} "
                                   f"items; MusCALL's get_ranking fails on a score matrix that "
                                   f"is not square: every query must rank all {n} items, one "
                                   f"paired with each query"),
        (np.isnan(first_relevant_rank(j, 1, None)),
         lambda q, i: f"query {q}'s paired item is not in its list; MusCALL ranks every item for "
                      f"every query")))


TTMR_LIST = 10   # rank_eval's np.arange(1, 11)[preds[:10] > 0] needs ten items


def short_or_unfound(j: JudgedRanking) -> str | None:
    """TTMR's rank_eval fails on a list shorter than 10 items (IndexError: it masks
    ``np.arange(1, 11)`` with ``preds[:10]``) and on a caption whose track is not in its list
    (``min()`` of an empty sequence)."""
    return _first_problem(j, (
        (j.lengths < TTMR_LIST,
         lambda q, i: f"query {q} ranks {j.lengths[i]} items; TTMR's rank_eval fails on a list "
                      f"shorter than {TTMR_LIST} (np.arange(1, 11)[preds[:10] > 0] needs ten)"),
        (np.isnan(first_relevant_rank(j, 1, None)),
         lambda q, i: f"query {q} has no relevant item in its list; TTMR's rank_eval fails there "
                      f"(min() of an empty sequence): each caption's track must be ranked")))


def single_query(j: JudgedRanking) -> str | None:
    """TTMR's caveat: with one query astropy's jackknife estimates are all NaN."""
    if j.num_queries == 1:
        return ("ttmr: with one query every number is undefined, as astropy's jackknife estimate "
                "is NaN there (no leave-one-out sample)")
    return None
