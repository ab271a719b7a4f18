"""Benchmark protocols: what a published benchmark's reference code computes, under its names.

Each protocol is data (:data:`PROTOCOLS`): an ordered list of columns, each our measure or a small
vectorised function per query, the reference code's own aggregation over queries (mean, sum, a
median of its kind, a denominator of its choosing) and a scale (×100 for percentages). Where the
reference code has a defect — a denominator counting queries it never evaluates, a 0-based median
rank, a rank of 1 for a query whose relevant item was never found — the protocol reproduces it and
its explanation says so; our standard measures are the place for the corrected numbers.

What no protocol can reproduce is the order of tied scores: the reference codes sort with
``np.argsort`` (quicksort), ``torch.topk``, ``torch.sort``, ``torch.argsort`` or pandas'
``sort_values``, none of which fixes the order of equal scores (NumPy's quicksort is unstable, and a
SIMD sort in recent NumPy on AVX-512 machines). Here ties follow the tie policy (``--ties``), as for
every measure. What equal means is reproduced: acoss and re-move cast the scores to float32 first
(:attr:`Protocol.float32_scores`), so scores equal as float32 tie there.

An input the reference code fails on (MusCALL's non-square matrix, TTMR's lists shorter than 10)
is refused with the reason (:attr:`Protocol.refuses`), never given a number the reference would
not print.
"""

from __future__ import annotations

import difflib
from dataclasses import dataclass, field

import numpy as np

from metrics import measures  # noqa: F401  (registers the measures the protocols reuse)
from metrics.errors import MeasureError
from metrics.evaluation.evaluate import NO_RELEVANT_NOTE, EvaluationResult, MeasureResult, evaluate
from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.evaluation.protocol_columns import (Protocol, ProtocolColumn,  # noqa: F401
                                                 first_rank_or_one, floored_zero_based_median,
                                                 jackknife_mean, jackknife_median, lower_median,
                                                 mean, median, not_square_pairs,
                                                 percent_in_float32,
                                                 reciprocal_first_rank_or_one, short_or_unfound,
                                                 single_query, sum_over_every_query, total,
                                                 unnormalised_ap_at_10, zero_based_first_rank)


# ---- the registry -----------------------------------------------------------------------------

PROTOCOLS: dict[str, Protocol] = {}


def register_protocol(protocol: Protocol) -> Protocol:
    names = [c.name for c in protocol.columns]
    if len(set(names)) != len(names):
        raise ValueError(f"protocol {protocol.name} prints a name twice")
    PROTOCOLS[protocol.name] = protocol
    return protocol


def protocol_named(name: str) -> Protocol:
    """The registered protocol, or a MeasureError listing the protocols."""
    if name not in PROTOCOLS:
        close = difflib.get_close_matches(name.lower(), list(PROTOCOLS), n=3, cutoff=0.5)
        hint = f" (did you mean {', '.join(close)}?)" if close else ""
        raise MeasureError(f"unknown protocol {name!r}{hint}; 'python -m metrics protocols' lists "
                           f"them: {', '.join(PROTOCOLS)}")
    return PROTOCOLS[name]


# ---- the protocols ----------------------------------------------------------------------------

MIREX = "MIREX Audio Cover Song Identification"

register_protocol(Protocol(
    "mirex-cover", MIREX,
    source="MIREX wiki, Audio Cover Song Identification task and results pages (e.g. "
           "https://www.music-ir.org/mirex/wiki/2011:Audio_Cover_Song_Identification_Results); "
           "we found no public copy of IMIRSEL's evaluation code, so the four numbers follow "
           "the wiki's definitions",
    conventions="each cover is a query against the whole collection, itself excluded (330 "
                "queries, 1000 items); queries without a cover are not queries; counts over the "
                "top 10; ranks 1-based; fractions, not percentages",
    columns=(
        ProtocolColumn("Total covers in top 10", "TP@10", total,
                       "MIREX 'Total number of covers identified in top 10': Σ over queries of "
                       "the covers in the top 10 (a count, not a mean)",
                       standard="TP@10", standard_aggregate="sum"),
        ProtocolColumn("Mean covers in top 10", "TP@10", mean,
                       "MIREX 'Mean number of covers identified in top 10': the same count per "
                       "query, averaged (our TP@10; P@10 × 10)", standard="P@10"),
        ProtocolColumn("MAP", "AP", mean,
                       "MIREX 'Mean (arithmetic) of Avg. Precisions': AP over the whole list ÷ "
                       "R_q (our AP)", standard="MAP"),
        ProtocolColumn("MR1", "FirstRank", mean,
                       "MIREX 'Mean rank of first correctly identified cover' (1-based; our "
                       "FirstRank)", higher_is_better=False, standard="MR1"),
    )))

ACOSS = ("furkanyesiler/acoss, acoss/algorithms/algorithm_template.py, getEvalStatistics, "
         "commit 591ce4267e81d37e8d3ab9673027201e83354c64")

register_protocol(Protocol(
    "acoss", "Da-TACOS / acoss cover song benchmark",
    source=ACOSS,
    conventions="scores compared as float32, as acoss casts the matrix (np.array(D, "
                "dtype=np.float32)): scores equal as float32 tie; similarity matrix sorted "
                "descending with the diagonal set to −inf (the song itself last, then dropped); "
                "only songs of cliques of two or more are queries; ranks 1-based; MR, MDR and "
                "Top-X use the rank of the first cover; MRR divides by every song; tied scores "
                "follow --ties, as acoss' np.argsort (quicksort, over columns it regroups by "
                "clique) has no fixed order for them",
    float32_scores=True,
    columns=(
        ProtocolColumn("MR", "FirstRank", mean,
                       "mean rank of the first cover (ranks[i] = iranks[0]); not the mean rank "
                       "of all covers, which our MeanRank is", higher_is_better=False,
                       standard="MR"),
        ProtocolColumn("MRR", "RR", sum_over_every_query,
                       "defect reproduced: 1/N Σ 1/rank with N = every song of the matrix, so the "
                       "songs without a cover (never queries) pull MRR down; our RR averages the "
                       "queries only", standard="MRR"),
        ProtocolColumn("MDR", "FirstRank", median,
                       "median of the first-cover ranks (np.median: the mean of the two middle "
                       "values for an even count)", higher_is_better=False,
                       standard="FirstRank", standard_aggregate="median"),
        ProtocolColumn("MAP", "AP", mean,
                       "mean of (1/(K−1)) Σ_j j/rank_j over the K−1 covers of the whole list: our "
                       "AP (÷ R_q)", standard="MAP"),
        ProtocolColumn("Top-1", "Success@1", total,
                       "number of queries whose first cover is at rank 1 (a count)",
                       standard="Success@1"),
        ProtocolColumn("Top-10", "Success@10", total,
                       "number of queries whose first cover is within the top 10 (a count of "
                       "queries, not of covers as MIREX's)", standard="Success@10"),
        ProtocolColumn("Top-100", "Success@100", total,
                       "number of queries whose first cover is within the top 100",
                       standard="Success@100"),
        ProtocolColumn("Top-1000", "Success@1000", total,
                       "number of queries whose first cover is within the top 1000",
                       standard="Success@1000"),
    )))

REMOVE = ("furkanyesiler/re-move, utils/metrics.py, average_precision (called by evaluate.py), "
          "commit 5ddd5dfa136252c443e00c4c45c08a93cc315583")

register_protocol(Protocol(
    "re-move", "re-move (MOVE) version identification on Da-TACOS",
    source=REMOVE,
    conventions="scores compared as float32, as evaluate.py casts the distances (.float()): "
                "scores equal as float32 tie; negated distance matrix with the diagonal set to "
                "−inf, ranked with torch.topk over the whole row (k = None), whose order among "
                "equal scores is unspecified (they follow --ties); mAP over the queries with a "
                "cover; MRR, MR, Top1 and Top10 over every row, a row without a cover found "
                "counting as rank 1; Top1 and Top10 are totals",
    float32_scores=True,
    columns=(
        ProtocolColumn("mAP", "AP", mean,
                       "Σ P(r)·χ(r) ÷ (R_q + 1e-10), over the rows with R_q > 0: our AP (in "
                       "float32 the 1e-10 vanishes; its float32 sums and our double ones differ "
                       "far below the 3 decimals it prints)", standard="MAP"),
        ProtocolColumn("MRR", reciprocal_first_rank_or_one, mean,
                       "defect reproduced: topk(found − ramp, 1) is position 0 for a row with no "
                       "cover found, so such a row scores 1 (our RR gives 0 or leaves it out); "
                       "averaged over every row", standard="MRR"),
        ProtocolColumn("MR", first_rank_or_one, mean,
                       "mean 1-based rank of the first cover, every row, the same defect: a row "
                       "with no cover found counts as rank 1", higher_is_better=False,
                       standard="MR"),
        ProtocolColumn("Top1", "TP@1", total,
                       "number of rows whose first item is a cover (Σ found[:, 0], a count)",
                       standard="P@1"),
        ProtocolColumn("Top10", "TP@10", total,
                       "number of covers in the top 10 of every row, summed (Σ found[:, :10])",
                       standard="P@10"),
    )))

CLAP = ("LAION-AI/CLAP, src/laion_clap/training/train.py, get_metrics (text_to_audio, one "
        "caption per audio) and evaluate_clotho_audiocaps (five captions per audio), commit "
        "1fd4c37df5ffbfcfbad5415c170bc66cf94c9994")

register_protocol(Protocol(
    "clap", "CLAP (LAION) text-to-audio retrieval",
    source=CLAP,
    conventions="each caption a query with its one audio (get_metrics; with five captions per "
                "audio, evaluate_clotho_audiocaps' text_to_audio ranks the audio for each of the "
                "5N captions and averages over them all); preds = 0-based rank of the paired "
                "item; R@k and mAP@10 are fractions; median rank = floor(median of 0-based "
                "ranks) + 1; ranked with torch.argsort, whose order among equal scores is "
                "unspecified (they follow --ties). Several relevant items per query (an audio "
                "against its five captions): R@k takes the best rank, as "
                "evaluate_clotho_audiocaps' audio_to_text does; mAP@10, mean_rank and "
                "median_rank have no reference there (it prints no audio-to-text ranks, and its "
                "audio-to-text mAP@10, Σ j/(rank_j + 1) over the captions in the top 10 taken in "
                "caption order, not rank order, ÷ 5, exceeds 1 on some rankings): the first "
                "relevant item's rank and RR@10 are printed",
    columns=(
        ProtocolColumn("R@1", "Success@1", mean, "mean(preds < 1): the paired item first",
                       standard="R@1"),
        ProtocolColumn("R@5", "Success@5", mean, "mean(preds < 5): the paired item in the top 5 "
                       "(our Success@5; our R@5 = Success@5 only with one relevant item)",
                       standard="R@5"),
        ProtocolColumn("R@10", "Success@10", mean, "mean(preds < 10)", standard="R@10"),
        ProtocolColumn("mAP@10", "RR@10", mean,
                       "mean(where(preds < 10, 1/(preds + 1), 0)): the reciprocal rank within 10, "
                       "which is AP@10 for one relevant item (÷ 1); with several, no reference "
                       "(RR@10 of the first)", standard="mAP@10"),
        ProtocolColumn("mean_rank", "FirstRank", mean, "preds.mean() + 1 (1-based)",
                       higher_is_better=False, standard="FirstRank"),
        ProtocolColumn("median_rank", "FirstRank", floored_zero_based_median,
                       "floor(median(preds)) + 1: for an even number of queries the half is "
                       "floored away (ranks 1, 2 → 1; our median gives 1.5)",
                       higher_is_better=False, standard="FirstRank", standard_aggregate="median"),
    )))

TTMR = ("seungheondoh/music-text-representation, mtr/utils/eval_utils.py, "
        "multi_query_evaluation and rank_eval, commit 5e54e0dfdf2bcbce7be693b363aa7e4b4802b740")


register_protocol(Protocol(
    "ttmr", "TTMR (music-text representation) text-to-music retrieval",
    source=TTMR,
    conventions="one ground-truth track per caption; each caption's tracks ranked with pandas "
                "Series.sort_values(ascending=False), a quicksort with no fixed order for equal "
                "scores (they follow --ties); R@k = relevant items in the top k (not ÷ R_q); "
                "mAP@10 not divided by anything; medRank 0-based; every number is astropy's "
                "jackknife bias-corrected estimate: for a mean the mean itself, for the median "
                "not, and with one query none (NaN, printed as undefined); rank_eval fails on a "
                "list shorter than 10 items and on a caption whose track is not in its list: "
                "both refused; fractions",
    refuses=short_or_unfound, caveat=single_query,
    columns=(
        ProtocolColumn("R@1", "TP@1", jackknife_mean, "Σ preds[:1]: relevant items at rank 1 "
                       "(with one relevant item per caption, Success@1)", standard="R@1"),
        ProtocolColumn("R@5", "TP@5", jackknife_mean, "Σ preds[:5], not divided by R_q: above 1 "
                       "when a query has several relevant items (no reference: TTMR has one "
                       "track per caption)", standard="R@5"),
        ProtocolColumn("R@10", "TP@10", jackknife_mean, "Σ preds[:10], not divided by R_q",
                       standard="R@10"),
        ProtocolColumn("mAP@10", unnormalised_ap_at_10, jackknife_mean,
                       "Σ_j j/position_j over the relevant items in the top 10, divided by "
                       "nothing: RR@10 for one relevant item, AP@10 × R_q for several",
                       standard="mAP@10"),
        ProtocolColumn("medRank", zero_based_first_rank, jackknife_median,
                       "defects reproduced: 0-based (rank 1 is 0), and the jackknife "
                       "bias-corrected median n·med − (n−1)·mean(leave-one-out medians), which for "
                       "an odd number of queries is not the median (it can be negative)",
                       higher_is_better=False, standard="FirstRank", standard_aggregate="median"),
    )))

MUSCALL = "ilaria-manco/muscall, muscall/tasks/retrieval.py"
MUSCALL_COMMIT = "commit dfe0782f307df9183180e462b641b728740f08d6"
MUSCALL_SQUARE = ("a square score matrix whose diagonal pairs each query with its item: exactly "
                  "one relevant item per query and every list holding every item, as many as "
                  "there are queries (anything else is refused: get_ranking fails on it); R@k in "
                  "percent, 100 · (relevant items in the top k, summed over queries) ÷ num_items "
                  "(the matrix's columns, equal to its rows), a float32 division; median rank "
                  "1-based, torch.median "
                  "(the lower middle value); ranked with torch.sort, whose order among equal "
                  "scores is unspecified (they follow --ties)")
MUSCALL_COLUMNS = (
    ProtocolColumn("R@1", "TP@1", percent_in_float32,
                   "100 · Σ bool[:, 0] ÷ num_items, every query in the denominator, divided in "
                   "float32 as torch divides an integer tensor", standard="R@1"),
    ProtocolColumn("R@5", "TP@5", percent_in_float32,
                   "100 · Σ bool[:, :5] ÷ num_items", standard="R@5"),
    ProtocolColumn("R@10", "TP@10", percent_in_float32,
                   "100 · Σ bool[:, :10] ÷ num_items", standard="R@10"),
    ProtocolColumn("Median Rank", "FirstRank", lower_median,
                   "torch.median of the 1-based ranks: the lower middle value for an even count "
                   "(ranks 1, 2 → 1; numpy says 1.5)",
                   higher_is_better=False, standard="FirstRank", standard_aggregate="median"),
)

register_protocol(Protocol(
    "muscall", "MusCALL music-to-text retrieval (its evaluation script)",
    source=f"{MUSCALL}, Retrieval.evaluate (run by scripts/evaluate.py: "
           f"compute_sim_score(text_features, audio_features), a row per audio), get_ranking, "
           f"compute_metrics, {MUSCALL_COMMIT}",
    conventions="music-to-text, the direction scripts/evaluate.py reports: each audio track a "
                "query ranking the captions (give the audio as queries, the captions as items); "
                "the paper (Manco et al., ISMIR 2022) reports text-to-audio and audio-to-text "
                "retrieval, and muscall-text-to-music is the other direction; " + MUSCALL_SQUARE,
    columns=MUSCALL_COLUMNS, refuses=not_square_pairs))

register_protocol(Protocol(
    "muscall-text-to-music", "MusCALL text-to-music retrieval (its training-time validation)",
    source=f"{MUSCALL}, run_retrieval (called by MusCALLTrainer.get_retrieval_metrics: "
           f"compute_sim_score(audio_features, text_features), a row per caption), get_ranking, "
           f"compute_metrics, {MUSCALL_COMMIT}",
    conventions="text-to-music, the direction of MusCALL's validation during training (its R@10 "
                "picks the checkpoint kept); its evaluation script does not print it: each "
                "caption a query ranking the audio tracks (give the captions as queries, the "
                "audio as items); " + MUSCALL_SQUARE,
    columns=MUSCALL_COLUMNS, refuses=not_square_pairs))


# ---- evaluation -------------------------------------------------------------------------------


@dataclass(frozen=True)
class ProtocolReduce:
    """A protocol column's aggregation as a :class:`MeasureResult` carries it: the reference's
    reduction times the scale, vectorised along ``axis``."""

    column: ProtocolColumn = field(repr=False)

    def __call__(self, values, axis=-1):
        return self.column.reduce(values, axis=axis) * self.column.scale


LINEAR_REDUCTIONS = (mean, total, sum_over_every_query, jackknife_mean)


def _refuse_under_expected(protocol: Protocol) -> None:
    """``--ties expected`` is exact for a column only when its per-query value is one of our
    measures that supports it and the reference reduces the queries linearly (a mean of expected
    values is the expected mean; a median of them is not the expected median)."""
    for column in protocol.columns:
        linear = isinstance(column.per_query, str) and column.reduce in LINEAR_REDUCTIONS
        if not linear:
            raise MeasureError(f"--protocol {protocol.name}: its column {column.name!r} has no "
                               f"exact mean over the orderings of tied items under --ties "
                               f"expected (a median, or a per-query value of the reference "
                               f"code's own); use --ties optimistic / pessimistic for its range")


def evaluate_protocol(judged: JudgedRanking, name: str) -> EvaluationResult:
    """Every column of protocol ``name`` for every query of ``judged``: per-query values (NaN
    where the reference skips the query) and, as each result's aggregate, the reference code's
    own aggregation. Our measures are computed once each, with
    :func:`metrics.evaluation.evaluate.evaluate`. A MeasureError says why, for an input the
    reference code fails on. ``judged`` is taken as ranked: for a protocol whose reference casts
    the scores to float32 (:attr:`Protocol.float32_scores`), rank them so first."""
    protocol = protocol_named(name)
    reason = protocol.refuses(judged) if protocol.refuses else None
    if reason:
        raise MeasureError(f"--protocol {protocol.name}: {reason}", source=judged.name)
    if judged.tie_policy is TiePolicy.EXPECTED:
        _refuse_under_expected(protocol)
    ours = [c.per_query for c in protocol.columns if isinstance(c.per_query, str)]
    standard = evaluate(judged, list(dict.fromkeys(ours))) if ours else None
    results = {}
    for column in protocol.columns:
        if isinstance(column.per_query, str):
            values = standard.results[column.per_query].values
        else:
            values = np.asarray(column.per_query(judged), dtype=np.float64)
        results[column.name] = MeasureResult(column.name, values, column.explanation,
                                             column.higher_is_better, summed=False,
                                             reduce=ProtocolReduce(column))
    # our rule for queries without a relevant item ("left out of every mean") is not the
    # protocols' rule: that warning is replaced by the protocol's own
    warnings_list = [w for w in (standard.warnings if standard else judged.warnings)
                     if NO_RELEVANT_NOTE not in w]
    missing = int((judged.num_relevant(1) == 0).sum())
    if missing:
        warnings_list.append(f"{missing} quer(ies) have no relevant item; {protocol.name} treats "
                             f"them as its reference code does (see each column)")
    caveat = protocol.caveat(judged) if protocol.caveat else None
    if caveat:
        warnings_list.append(caveat)
    return EvaluationResult(judged.query_ids, results, tuple(warnings_list), judged.ties, ())


def describe(protocol: Protocol) -> dict:
    """A protocol as plain data: source, conventions and each column's per-query value (our
    measure, or the name of its function), aggregation, scale and explanation."""
    return {"protocol": protocol.name, "title": protocol.title, "source": protocol.source,
            "conventions": protocol.conventions,
            "scores_compared_as": "float32" if protocol.float32_scores else "given",
            "columns": [{"name": c.name, "our_measure": c.per_query
                         if isinstance(c.per_query, str) else None,
                         "function": None if isinstance(c.per_query, str)
                         else c.per_query.__name__,
                         "aggregate": c.reduce.__name__, "scale": c.scale,
                         "explanation": c.explanation} for c in protocol.columns]}


def protocol_table(fmt: str = "table") -> str | list[dict]:
    """The protocols with their source and conventions (``python -m metrics protocols``)."""
    rows = [describe(p) for p in PROTOCOLS.values()]
    if fmt == "rows":
        return rows
    if fmt == "markdown":
        lines = ["| protocol | prints | conventions | source |", "| --- | --- | --- | --- |"]
        for r in rows:
            names = ", ".join(c["name"] for c in r["columns"])
            lines.append(f"| `{r['protocol']}` | {names} | {r['conventions']} | {r['source']} |")
        return "\n".join(lines)
    if fmt != "table":
        raise MeasureError(f"unknown format {fmt!r}")
    blocks = []
    for r in rows:
        lines = [f"{r['protocol']}: {r['title']}", f"  source: {r['source']}",
                 f"  conventions: {r['conventions']}"]
        for c in r["columns"]:
            how = c["our_measure"] or f"{c['function']}()"
            scale = f" ×{c['scale']:g}" if c["scale"] != 1 else ""
            lines.append(f"  {c['name']:<24} {how} → {c['aggregate']}{scale}: {c['explanation']}")
        blocks.append("\n".join(lines))
    return "\n\n".join(blocks)


__all__ = ["PROTOCOLS", "describe", "evaluate_protocol", "protocol_table"]
