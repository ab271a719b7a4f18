"""What the benchmark protocols' columns compute that no measure of ours does: the reference
codes' aggregations over queries (their medians, sums and denominators) and a few per-query
values (a 0-based first rank, a rank of 1 for a query whose relevant item was never found)."""

from __future__ import annotations

import warnings

import numpy as np

from metrics.data.judged import JudgedRanking
from metrics.measures.common import first_relevant_rank, per_query_sum, relevant_hits


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
