"""Tie-aware evaluation (McSherry & Najork, "Computing information retrieval performance measures
efficiently in the presence of tied scores", ECIR 2008).

Items of equal score form a *tie group*: consecutive ranks s .. s + n − 1 of one query's list.
The ordering policies (``stable``, ``id``, ``trec9``, ``trec10``) pick one order inside each
group; the tie-aware policies do not:

* ``optimistic`` — inside each group, judged items by grade, highest first, then the unjudged
  items: the best order for every measure that rewards relevant items ranked early;
* ``pessimistic`` — the reverse: unjudged items first, then judged items by grade, lowest first
  (trec_eval's "pooled but not judged" grades below 0 before the judged non-relevant grade 0, and
  those before the relevant grades). Judged non-relevant items thus sit right above the relevant
  ones, which is bpref's worst case, and unjudged items take the early ranks, Judged@k's worst;
* ``expected`` — each measure's exact mean over every ordering of the tied items (each of the
  n! orders of a group equally likely, groups independent), in closed form per group, never by
  enumeration. Where a measure is a sum over the hits of a function of the rank, the mean is the
  sum of each hit's mean over the ranks of its group (every rank equally likely):
  :meth:`~metrics.data.judged.JudgedRanking.rank_weights`. AP, RR, Success@k and FirstRank have
  closed forms here; a measure with neither is refused (see ``python -m metrics measures``).

The ranking under a tie-aware policy is first made with ``stable`` (scores compared as given,
double precision), and every path — runs, embeddings, matrices — records for each judged hit the
first rank and the size of its group (:class:`~metrics.data.judged.JudgedRanking`'s
``hit_tie_first``, ``hit_tie_size``); only groups that hold a judged item matter, and their sizes
are what the streamed paths already count. Everything below works on the groups that hold a hit,
so its size follows the input: at most the hits plus the ranks of those groups.
"""

from __future__ import annotations

from dataclasses import replace

import numpy as np

from metrics.errors import MeasureError

from metrics.data.judged import JudgedRanking, TieGroups, expand, tie_groups
from metrics.data.relevance import Relevance
from metrics.data.ties import TiePolicy



def reordered(j: JudgedRanking, policy: TiePolicy) -> JudgedRanking:
    """The judged ranking with every tie group put in its ``optimistic`` or ``pessimistic``
    order (see the module docstring). The kept lists, made in another order, are dropped."""
    if not policy.reorders:
        raise ValueError(f"not a reordering policy: {policy!r}")
    if j.hit_tie_size is None:
        return replace(j, tie_policy=policy)
    groups = tie_groups(j)
    grade_key = -j.hit_grades if policy is TiePolicy.OPTIMISTIC else j.hit_grades
    order = np.lexsort((grade_key, groups.hit_group))   # hits stay grouped, by grade inside
    group = groups.hit_group[order]
    hits_in_group = np.bincount(group, minlength=groups.count)
    place = np.arange(len(group)) - (np.cumsum(hits_in_group) - hits_in_group)[group]
    ranks = groups.first[group] + place
    if policy is TiePolicy.PESSIMISTIC:   # the unjudged items of the group come first
        ranks += (groups.size - hits_in_group)[group]
    return replace(j, hit_ranks=ranks, hit_grades=j.hit_grades[order],
                   hit_tie_first=j.hit_tie_first[order], hit_tie_size=j.hit_tie_size[order],
                   tie_policy=policy, lists=None)


def apply_policy(j: JudgedRanking, ties: TiePolicy) -> JudgedRanking:
    """A judged ranking made in ``stable`` order, under the tie-aware policy ``ties``."""
    if ties is TiePolicy.EXPECTED:
        return replace(j, tie_policy=ties)
    if ties.reorders:
        return reordered(j, ties)
    return j


# ---- closed forms ------------------------------------------------------------------------------

def _log_choose(n, k) -> np.ndarray:
    from scipy.special import gammaln   # scipy takes a while to import; only needed here
    n, k = np.asarray(n, dtype=np.float64), np.asarray(k, dtype=np.float64)
    return gammaln(n + 1) - gammaln(k + 1) - gammaln(n - k + 1)


def _before_in_query(query: np.ndarray, values: np.ndarray) -> np.ndarray:
    """Sum of ``values`` over the earlier entries of the same query (``query`` ascending)."""
    if not len(query):
        return np.zeros(0)
    total = np.cumsum(values)
    first = np.r_[True, query[1:] != query[:-1]]
    start = np.maximum.accumulate(np.where(first, np.arange(len(query)), 0))
    return total - values - (total - values)[start]


def _relevant_in_group(j: JudgedRanking, groups: TieGroups, rel: int) -> np.ndarray:
    relevant = Relevance(rel).relevant(j.hit_grades).astype(np.float64)
    return np.bincount(groups.hit_group, weights=relevant, minlength=groups.count)


def _first_relevant_group(j: JudgedRanking, groups: TieGroups, relevant: np.ndarray):
    """Index of each query's first group holding a relevant item, and those queries."""
    holding = np.flatnonzero(relevant > 0)
    query = groups.query[holding]
    first = holding[np.r_[True, query[1:] != query[:-1]]] if len(holding) else holding
    return first, groups.query[first]


def expected_precision_sum(j: JudgedRanking, rel: int, cutoff) -> np.ndarray:
    """E[Σ over relevant items within the cutoff of P(rank)], AP's numerator, per query.

    A relevant item of a group (first rank s, n items, m of them relevant, T relevant items in
    earlier groups) lies at offset i = 0 .. n − 1 with probability 1/n; given that, each of the
    other m − 1 relevant items of the group is before it with probability i/(n − 1), so
    E[P] = (1/n) Σ_i (T + 1 + i(m − 1)/(n − 1)) / (s + i), summed over i with s + i <= k. The
    group's m items add m times that (McSherry & Najork 2008, §3)."""
    groups = tie_groups(j)
    m = _relevant_in_group(j, groups, rel)
    before = _before_in_query(groups.query, m)
    holding = np.flatnonzero(m > 0)
    group, rank, offset = expand(groups.first[holding], groups.size[holding],
                                 groups.limit(cutoff)[holding])
    g = holding[group]
    n, mg = groups.size[g].astype(np.float64), m[g]
    others = np.divide(offset * (mg - 1), n - 1, out=np.zeros(len(g)), where=n > 1)
    term = mg / n * (before[g] + 1 + others) / rank
    return np.bincount(groups.query[g], weights=term, minlength=j.num_queries)


def expected_reciprocal_rank(j: JudgedRanking, rel: int, cutoff) -> np.ndarray:
    """E[1/rank of the first relevant item], 0 past the cutoff or when none is retrieved.

    Only the first group holding a relevant item matters (s, n, m as above): its first relevant
    item is at offset i with probability C(n − 1 − i, m − 1)/C(n, m), i = 0 .. n − m, so
    E[RR] = Σ_i C(n − 1 − i, m − 1)/C(n, m) / (s + i) over s + i <= k (McSherry & Najork 2008)."""
    groups = tie_groups(j)
    m = _relevant_in_group(j, groups, rel)
    first, query = _first_relevant_group(j, groups, m)
    n, mf, s = groups.size[first], m[first], groups.first[first]
    group, rank, offset = expand(s, n - mf.astype(np.int64) + 1, groups.limit(cutoff)[first])
    ng, mg = n[group], mf[group]
    chance = np.exp(_log_choose(ng - 1 - offset, mg - 1) - _log_choose(ng, mg))
    out = np.zeros(j.num_queries)
    out[query] = np.bincount(group, weights=chance / rank, minlength=len(first))
    return out


def expected_first_rank(j: JudgedRanking, rel: int, cutoff) -> np.ndarray:
    """E[rank of the first relevant item] = s + (n − m)/(m + 1) for the first group holding one
    (the first of m items placed at random among n is preceded by (n − m)/(m + 1) of the others
    on average); NaN when none is retrieved. With a cutoff the rank is undefined in some orders,
    so there is no mean over all of them: refused."""
    if cutoff is not None:
        raise MeasureError("FirstRank@k has no mean over the orderings of tied items (it is "
                           "undefined in the orders that push every relevant item past k); use "
                           "FirstRank without @k, or --ties optimistic / pessimistic")
    groups = tie_groups(j)
    m = _relevant_in_group(j, groups, rel)
    first, query = _first_relevant_group(j, groups, m)
    out = np.full(j.num_queries, np.nan)
    out[query] = groups.first[first] + (groups.size[first] - m[first]) / (m[first] + 1)
    return out


def expected_success(j: JudgedRanking, rel: int, cutoff: int) -> np.ndarray:
    """P(at least one relevant item in the top k). Certain when a group holding a relevant item
    lies wholly within k; else only the group straddling k (first rank s <= k < s + n − 1, m
    relevant) can put one there: its top c = k − s + 1 places miss all m with the hypergeometric
    probability C(n − m, c)/C(n, c)."""
    groups = tie_groups(j)
    m = _relevant_in_group(j, groups, rel)
    last = groups.first + groups.size - 1
    sure = np.bincount(groups.query[(m > 0) & (last <= cutoff)], minlength=j.num_queries) > 0
    straddles = np.flatnonzero((m > 0) & (groups.first <= cutoff) & (last > cutoff))
    n, ms = groups.size[straddles], m[straddles]
    c = cutoff - groups.first[straddles] + 1
    miss = np.where(n - ms >= c,
                    np.exp(_log_choose(n - ms, np.minimum(c, n - ms)) - _log_choose(n, c)), 0.0)
    out = sure.astype(np.float64)
    out[groups.query[straddles]] = np.maximum(out[groups.query[straddles]], 1.0 - miss)
    return out


def expected_nonrelevant_above(j: JudgedRanking, rel: int, cutoff) -> tuple[np.ndarray, ...]:
    """Per query, E[Σ over relevant items within the cutoff of 1] and E[Σ of n_r], n_r being the
    judged non-relevant items above the relevant item (grades 0 <= g < rel; with a truth that
    judges the whole collection, every item that is not a hit too), as the bpref family counts.

    A relevant item of a group (first rank s, n items, m relevant, n0 judged non-relevant, B
    judged non-relevant items in earlier groups) at offset i has B + i·n0/(n − 1) of them above
    it on average; over the c = min(n, k − s + 1) offsets within k that sums to
    c·B + n0·c(c − 1)/(2(n − 1)), each offset having probability 1/n."""
    groups = tie_groups(j)
    m = _relevant_in_group(j, groups, rel)
    nonrelevant = Relevance(rel).judged_nonrelevant(j.hit_grades).astype(np.float64)
    n0 = np.bincount(groups.hit_group, weights=nonrelevant, minlength=groups.count)
    before = _before_in_query(groups.query, n0)
    if j.unlisted_judged:   # items that are not hits are judged not relevant
        hits = np.bincount(groups.hit_group, minlength=groups.count).astype(np.float64)
        before = before + (groups.first - 1) - _before_in_query(groups.query, hits)
        n0 = n0 + groups.size - hits
    n = groups.size.astype(np.float64)
    c = np.clip(groups.limit(cutoff) - groups.first + 1, 0, groups.size).astype(np.float64)
    pairs = np.divide(n0 * c * (c - 1) / 2, n - 1, out=np.zeros(groups.count), where=n > 1)
    retrieved = np.bincount(groups.query, weights=m * c / n, minlength=j.num_queries)
    above = np.bincount(groups.query, weights=m * (c * before + pairs) / n,
                        minlength=j.num_queries)
    return retrieved, above
