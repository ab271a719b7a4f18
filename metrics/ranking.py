"""Ranking a run (score descending, ties broken by a policy) and judging it against ground truth.

Tie policies, for items of equal score within a query:

* ``stable`` — input order (the order of the run file's lines, or of a matrix's columns);
* ``id`` — item id ascending, as FMP's text puts it (numeric order when every id is an integer,
  otherwise string order);
* ``trec`` — what trec_eval does: scores are compared after rounding to float32 (trec_eval keeps
  them as C ``float``) and ties are broken by item id *descending* (``strcmp``).

A bare ranked list (no scores) is ordered by its rank column, else by input order.
"""

from __future__ import annotations

from dataclasses import dataclass, field

import numpy as np
import pandas as pd

from .errors import InputError
from .model import PAD, UNJUDGED, GroundTruth, JudgedRanking, Run, TieReport

TIE_POLICIES = ("stable", "id", "trec")


@dataclass(frozen=True, eq=False)
class RankedRun:
    """A run sorted into its ranking: ``query_ids`` in first-appearance order, rows of query i at
    ``offsets[i]:offsets[i+1]`` in rank order."""

    query_ids: np.ndarray
    offsets: np.ndarray
    item_codes: np.ndarray      # codes into item_vocab, in rank order
    item_vocab: np.ndarray
    scores: np.ndarray | None
    ties: str = "stable"        # the policy the ranking was made with
    name: str = "run"
    warnings: tuple[str, ...] = ()

    @property
    def lengths(self) -> np.ndarray:
        return np.diff(self.offsets)

    @property
    def item_ids(self) -> np.ndarray:
        return self.item_vocab[self.item_codes]


def _id_order_key(ids: np.ndarray) -> np.ndarray:
    """Integer keys that sort ids ascending: numerically if all are integers, else as strings."""
    numeric = pd.to_numeric(pd.Series(ids, dtype=object), errors="coerce")
    if len(ids) and numeric.notna().all() and (numeric == np.floor(numeric)).all():
        return pd.factorize(numeric.to_numpy(np.float64), sort=True)[0]
    return pd.factorize(ids, sort=True)[0]


def policy_scores(scores: np.ndarray, ties: str) -> np.ndarray:
    """The scores as the policy compares them (float32-rounded for ``trec``)."""
    return scores.astype(np.float32).astype(np.float64) if ties == "trec" else scores


def check_policy(ties: str) -> None:
    if ties not in TIE_POLICIES:
        raise InputError(f"unknown tie policy {ties!r}; use one of {', '.join(TIE_POLICIES)}")


def tie_report(query_codes: np.ndarray, positions: np.ndarray,
               compared: np.ndarray | None) -> TieReport:
    """Tie groups of rows already in rank order (``compared``: scores as the policy compares them;
    None for bare lists, which have no ties)."""
    if compared is None or len(compared) < 2:
        return TieReport()
    same = (query_codes[1:] == query_codes[:-1]) & (compared[1:] == compared[:-1])
    if not same.any():
        return TieReport()
    in_tie = np.zeros(len(compared), dtype=bool)
    in_tie[1:] |= same
    in_tie[:-1] |= same
    starts = np.ones(len(compared), dtype=bool)
    starts[1:] = ~same
    group = np.cumsum(starts) - 1
    tied_groups = np.unique(group[in_tie])
    first = positions[starts][tied_groups]
    last = first + np.bincount(group)[tied_groups] - 1
    return TieReport(int(in_tie.sum()), len(np.unique(query_codes[in_tie])), first, last)


def _tie_order(item_ids: np.ndarray, ties: str) -> np.ndarray:
    """Sort keys of some items under a tie policy (stable needs none: input order stands)."""
    if ties == "id":
        return _id_order_key(item_ids)
    return -pd.factorize(item_ids, sort=True)[0]  # trec: id descending


def rank_run(run: Run, ties: str = "stable") -> RankedRun:
    """Sort every query's items into its ranking under a tie policy.

    Rows are first put in (query, score descending) order — no sort at all when the run already
    comes that way, as TREC runs do — and then only the groups of tied scores are reordered by
    the policy, so item ids are compared only where ties exist."""
    check_policy(ties)
    q_codes = run.query_codes
    n = len(run)
    if run.scores is None:
        order = (np.lexsort((run.ranks, q_codes)) if run.ranks is not None
                 else np.argsort(q_codes, kind="stable"))
    else:
        compared = policy_scores(run.scores, ties)
        grouped = n < 2 or bool(np.all(q_codes[1:] >= q_codes[:-1]) and np.all(
            (q_codes[1:] != q_codes[:-1]) | (compared[1:] <= compared[:-1])))
        order = np.arange(n) if grouped else np.lexsort((-compared, q_codes))  # stable
        if ties != "stable" and n > 1:
            q_sorted, s_sorted = q_codes[order], compared[order]
            same = (q_sorted[1:] == q_sorted[:-1]) & (s_sorted[1:] == s_sorted[:-1])
            if same.any():
                tied = np.zeros(n, dtype=bool)
                tied[1:] |= same
                tied[:-1] |= same
                group = np.cumsum(np.r_[True, ~same])  # one id per run of equal scores
                rows = np.flatnonzero(tied)
                key = _tie_order(run.item_vocab[run.item_codes[order[rows]]], ties)
                order[rows] = order[rows[np.lexsort((key, group[rows]))]]
    counts = np.bincount(q_codes, minlength=len(run.query_vocab))
    offsets = np.concatenate([[0], np.cumsum(counts)])
    return RankedRun(run.query_vocab, offsets, run.item_codes[order], run.item_vocab,
                     None if run.scores is None else run.scores[order],
                     ties if run.scores is not None else "stable", run.name, run.warnings)


def _grades_of(truth: GroundTruth, query_index: np.ndarray, item_codes: np.ndarray,
               item_vocab: np.ndarray) -> np.ndarray:
    """Grade of each (truth query index, item code) row: judged grade, 0 for unlisted items when
    the truth judges everything, else UNJUDGED."""
    codes, _ = pd.factorize(np.concatenate([truth.pair_item, item_vocab]))
    width = int(codes.max()) + 1 if len(codes) else 1
    truth_keys = truth.pair_query * width + codes[: len(truth.pair_item)]
    order = np.argsort(truth_keys, kind="stable")
    sorted_keys = truth_keys[order]
    vocab_codes = codes[len(truth.pair_item):]
    keys = query_index.astype(np.int64) * width + vocab_codes[item_codes]
    at = np.searchsorted(sorted_keys, keys)
    at_clipped = np.minimum(at, max(len(sorted_keys) - 1, 0))
    found = (at < len(sorted_keys)) & (sorted_keys[at_clipped] == keys) if len(sorted_keys) else \
        np.zeros(len(keys), dtype=bool)
    default = 0 if truth.unlisted_judged else UNJUDGED
    grades = np.full(len(keys), default, dtype=np.int64)
    grades[found] = truth.pair_grade[order[at_clipped[found]]]
    return grades


def judge(run: Run | RankedRun, truth: GroundTruth, ties: str = "stable",
          collection_size: int | None = None, warn_self: bool = True) -> JudgedRanking:
    """Rank a run and look every ranked item up in the ground truth.

    Evaluated queries are the ground truth's; a truth query the run lacks gets an empty list, a run
    query the truth lacks is left out — both with a warning and a count.
    """
    ranked = run if isinstance(run, RankedRun) else rank_run(run, ties)
    warnings = list(ranked.warnings) + list(truth.warnings)
    truth_index = pd.Index(truth.query_ids)
    run_to_truth = truth_index.get_indexer(ranked.query_ids)
    run_only = run_to_truth < 0
    if run_only.any():
        example = ranked.query_ids[np.flatnonzero(run_only)[0]]
        warnings.append(f"{ranked.name}: {int(run_only.sum())} run quer(ies) not in the ground "
                        f"truth were left out (first: {example!r})")
    row_query = np.repeat(run_to_truth, ranked.lengths)
    keep = row_query >= 0
    if truth.self_items is not None:
        is_self = np.zeros(len(row_query), dtype=bool)
        self_code = pd.Index(ranked.item_vocab).get_indexer(truth.self_items)  # -1: not in run
        is_self[keep] = ranked.item_codes[keep] == self_code[row_query[keep]]
        if is_self.any() and warn_self:
            warnings.append(f"{ranked.name}: {int(is_self.sum())} quer(ies) retrieved themselves; "
                            f"the query item was removed from its own ranking")
        keep &= ~is_self
    whole = bool(keep.all())  # skip copying ten million rows when nothing is dropped
    q = row_query if whole else row_query[keep]
    items = ranked.item_codes if whole else ranked.item_codes[keep]
    scores = ranked.scores if ranked.scores is None or whole else ranked.scores[keep]
    missing = np.flatnonzero(np.bincount(q, minlength=len(truth.query_ids)) == 0)
    if len(missing):
        warnings.append(f"{ranked.name}: {len(missing)} ground-truth quer(ies) are not in the run "
                        f"and score 0 where a measure has a value for an empty list (first: "
                        f"{truth.query_ids[missing[0]]!r})")
    return _assemble(truth, q, items, ranked.item_vocab, scores, collection_size, ranked.name,
                     warnings, ranked.ties, int(run_only.sum()))


def _assemble(truth: GroundTruth, query_index: np.ndarray, items: np.ndarray,
              item_vocab: np.ndarray, scores: np.ndarray | None, collection_size: int | None,
              name: str, warnings: list[str], ties: str, run_only: int = 0) -> JudgedRanking:
    """Build the queries × ranks matrices from rows already grouped by query in rank order."""
    n_queries = len(truth.query_ids)
    lengths = np.bincount(query_index, minlength=n_queries).astype(np.int64)
    # at least one (padding) column, so that every measure sees a well-formed matrix
    depth = max(int(lengths.max()) if n_queries and len(query_index) else 0, 1)
    # rows of one query are contiguous, but queries may come in any order
    block_start = np.flatnonzero(np.r_[True, query_index[1:] != query_index[:-1]]) \
        if len(query_index) else np.zeros(0, dtype=np.int64)
    block_len = np.diff(np.r_[block_start, len(query_index)])
    positions = np.arange(len(query_index)) - np.repeat(block_start, block_len)
    grades = np.full((n_queries, depth), PAD, dtype=np.int16)
    grades[query_index, positions] = _grades_of(truth, query_index, items, item_vocab)
    item_matrix = np.full((n_queries, depth), -1,
                          dtype=np.int32 if len(item_vocab) < 2**31 else np.int64)
    item_matrix[query_index, positions] = items
    score_matrix = np.full((n_queries, depth), np.nan)
    if scores is not None:
        score_matrix[query_index, positions] = scores
    counts = truth.grade_counts()
    if collection_size is None and truth.unlisted_judged and truth.candidates is not None \
            and len(truth.candidates):
        collection_size = int(truth.candidates.max())
    if collection_size is not None:
        too_small = (lengths > collection_size) | (counts[:, 1:].sum(axis=1) > collection_size)
        if too_small.any():
            raise InputError(f"collection size {collection_size} is smaller than query "
                             f"{truth.query_ids[np.flatnonzero(too_small)[0]]!r}'s list or its "
                             f"relevant items; give the real number of items in the collection")
    report = tie_report(query_index, positions,
                        None if scores is None else policy_scores(scores, ties))
    return JudgedRanking(truth.query_ids, grades, lengths, counts, collection_size, item_matrix,
                         score_matrix, tuple(warnings), name, report, run_only, item_vocab)


def judge_scores(score_matrix: np.ndarray, query_ids, item_ids, truth: GroundTruth,
                 ties: str = "stable", collection_size: int | None = None,
                 name: str = "run", larger_is_better: bool = True) -> JudgedRanking:
    """Rank every item for every query from a dense queries × items score matrix (all-vs-all
    similarity, or embedding similarities) and judge the rankings against the truth."""
    check_policy(ties)
    scores = np.asarray(score_matrix, dtype=np.float64)
    if not larger_is_better:
        scores = -scores
    query_ids = np.asarray([str(x) for x in query_ids], dtype=object)
    item_ids = np.asarray([str(x) for x in item_ids], dtype=object)
    n_q, n_items = scores.shape
    compared = policy_scores(scores, ties)
    if ties == "stable":
        column_order = np.arange(n_items)
    elif ties == "id":
        column_order = np.argsort(_id_order_key(item_ids), kind="stable")
    else:
        column_order = np.argsort(-pd.factorize(item_ids, sort=True)[0], kind="stable")
    # the query item, where it is among the columns, is removed by judge()
    order = column_order[np.argsort(-compared[:, column_order], axis=1, kind="stable")]
    ranked = RankedRun(
        query_ids, np.arange(n_q + 1) * n_items, order.ravel(), item_ids,
        np.take_along_axis(scores, order, axis=1).ravel() * (1 if larger_is_better else -1),
        ties, name)
    return judge(ranked, truth, collection_size=collection_size, warn_self=False)
