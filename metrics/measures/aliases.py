"""Aliases: trec_eval's names (``map``, ``P_10``, ``ndcg_cut_10``, ...), the names papers use
(``MAP@10``, ``MRR``, ``MedR``, ...) and ir_measures' set measures, each meaning exactly one of
our measures."""

from __future__ import annotations

import math
import re
from dataclasses import dataclass, replace
from typing import TYPE_CHECKING, Any, Callable

from metrics.measures.registry import NAME_SYNTAX, NUMBER, REGISTRY, format_value

if TYPE_CHECKING:
    from metrics.measures.names import Measure


@dataclass(frozen=True)
class Alias:
    """Another name for exactly one of our measures.

    Either a plain ``name`` that takes parameters and ``@k`` after it as ours do (``MRR@10`` is
    ``RR@10``; the target's own parameters come first: ``mAP@10`` is ``AP(norm=min)@10``), or a
    ``pattern`` matching the whole name with numbers inside it (``P_10``, ``ndcg_cut.10``) and
    ``build`` turning the match into our measure's text."""

    written: str                      # as listed by ``python -m metrics measures``: "map_cut_k"
    target: str                       # our measure, as listed: "AP@k"
    meaning: str                      # the convention, in words
    source: str                       # "trec_eval", "papers" or "ir_measures"
    name: str | None = None
    pattern: re.Pattern | None = None
    build: Callable[[re.Match], str] | None = None
    note: str = ""                    # said as a warning when the alias is used with @k
    listed: str = ""                  # the target as listed, when not ``target`` itself

    @property
    def means(self) -> str:
        """Our measure, as ``python -m metrics measures`` lists it."""
        return self.listed or self.target


ALIASES: list[Alias] = []
NAME_ALIASES: dict[str, Alias] = {}


def _name_alias(name: str, target: str, meaning: str, source: str = "trec_eval",
                note: str = "", written: str | None = None, listed: str = "") -> None:
    alias = Alias(written or name, target, meaning, source, name=name, note=note, listed=listed)
    ALIASES.append(alias)
    NAME_ALIASES[name] = alias


def _pattern_alias(written: str, regex: str, build: Callable[[re.Match], str], target: str,
                   meaning: str, source: str = "trec_eval") -> None:
    ALIASES.append(Alias(written, target, meaning, source, pattern=re.compile(regex),
                         build=build))


def _cut(stem: str, target: str, meaning: str, source: str = "trec_eval") -> None:
    """trec_eval's ``stem_k`` (its output name) and ``stem.k`` (its ``-m`` syntax)."""
    _pattern_alias(f"{stem}_k, {stem}.k", rf"{re.escape(stem)}[_.](\d+)",
                   lambda m: f"{target}@{m.group(1)}", f"{target}@k", meaning)


def _set_f(match: re.Match) -> str:
    x = float(match.group(1))
    return f"F(beta={format_value(math.sqrt(x))})" if x > 0 else f"F(beta={match.group(1)})"


# trec_eval (its output names, and its -m syntax where that differs)
_name_alias("map", "AP", "average precision, ÷ R_q (trec_eval map)")
_cut("map_cut", "AP", "AP of the top k, ÷ R_q (trec_eval map_cut_k)")
_cut("P", "P", "precision of the top k, short lists padded with non-relevant (trec_eval P_k)")
_cut("recall", "R", "recall of the top k (trec_eval recall_k)")
_cut("ndcg_cut", "nDCG", "nDCG of the top k, gain = grade (trec_eval ndcg_cut_k)")
_cut("success", "Success", "1 if a relevant item is in the top k (trec_eval success_k)")
_name_alias("ndcg", "nDCG", "nDCG of the whole list, gain = grade (trec_eval ndcg)")
_name_alias("recip_rank", "RR", "1 / rank of the first relevant item, 0 if none "
                                "(trec_eval recip_rank)")
_name_alias("Rprec", "Rprec", "same name: precision at rank R_q (trec_eval Rprec)")
_name_alias("bpref", "Bpref", "binary preference (trec_eval bpref)")
_name_alias("infAP", "infAP", "same name: inferred AP (trec_eval infAP)")
_name_alias("num_q", "NumQ", "number of queries; summed over queries (trec_eval num_q)")
_name_alias("num_rel", "NumRel", "R_q; summed over queries (trec_eval num_rel)")
_name_alias("num_ret", "NumRet", "|A|; summed over queries (trec_eval num_ret)")
_name_alias("num_rel_ret", "NumRelRet", "relevant retrieved; summed over queries "
                                        "(trec_eval num_rel_ret)")
_name_alias("set_P", "P", "precision of the whole list, TP/|A| (trec_eval set_P)")
_name_alias("set_recall", "R", "recall of the whole list, TP/R_q (trec_eval set_recall)")
_name_alias("recall", "R", "recall of the whole list, as set_recall (trec_eval's -m recall "
                           "prints recall_k at k = 5 ... 1000: name those, e.g. recall_10)")
_name_alias("set_F", "F", "F1 of the whole list (trec_eval set_F, x = 1)")
_pattern_alias("set_F_x, set_F.x", rf"set_F[_.]{NUMBER}", _set_f, "F(beta=√x)",
               "trec_eval's set_F with x: (x+1)PR/(xP+R), which is F with β² = x")
_pattern_alias("iprec_at_recall_r, iprec_at_recall.r", rf"iprec_at_recall[_.]{NUMBER}",
               lambda m: f"IPrec(rounding=trec10)@{format_value(float(m.group(1)))}",
               "IPrec(rounding=trec10)@r",
               "interpolated precision at recall r as trec_eval 10 computes it (r·R_q rounded "
               "to the nearest); trec_eval 9's is IPrec@r")
_pattern_alias("11pt_avg", r"11pt_avg", lambda m: "IPrecAvg(rounding=trec10)",
               "IPrecAvg(rounding=trec10)", "IPrec averaged over the 11 recall levels, trec_eval "
               "10's rounding (trec_eval 9's is IPrecAvg)")
_pattern_alias("11pt_avg_r,r,..., 11pt_avg.r,r,...", rf"11pt_avg[_.]({NUMBER}(?:,{NUMBER})*)",
               lambda m: f"IPrecAvg(rounding=trec10,levels={m.group(1).replace(',', ';')})",
               "IPrecAvg(rounding=trec10,levels=r;r;...)", "IPrec averaged over the recall "
               "levels given, ascending, trec_eval 10's rounding (trec_eval 11pt_avg.0.2,0.5,0.8)")
_name_alias("gm_map", "GMAP", "AP, geometric mean over queries (trec_eval gm_map)")
_name_alias("gm_bpref", "GMBpref", "bpref, geometric mean over queries (trec_eval gm_bpref)")
_pattern_alias("Rprec_mult_x, Rprec_mult.x", rf"Rprec_mult[_.]{NUMBER}",
               lambda m: f"Rprec(mult={format_value(float(m.group(1)))})", "Rprec(mult=x)",
               "precision at rank ⌊x·R_q + 0.9⌋ (trec_eval Rprec_mult_0.20 ...)")
_name_alias("utility", "Utility", "tp·TP − FP by default (trec_eval utility)")
_SIGNED = rf"[-+]?{NUMBER}"
_pattern_alias("utility_tp,fp,fn,tn, utility.tp,fp,fn,tn",
               rf"utility[_.]({_SIGNED}),({_SIGNED}),({_SIGNED}),({_SIGNED})",
               lambda m: "Utility(tp={},fp={},fn={},tn={})".format(
                   *(format_value(float(m.group(i))) for i in (1, 3, 5, 7))),
               "Utility(tp=…,fp=…,fn=…,tn=…)", "utility with the four coefficients given "
               "(trec_eval utility.2,-1,0,0)")
_GAIN_PAIRS = rf"(\d+={_SIGNED}(?:,\d+={_SIGNED})*)"
_pattern_alias("ndcg_g=v,..., ndcg.g=v,...", rf"ndcg[_.]{_GAIN_PAIRS}",
               lambda m: f"nDCG(gains={m.group(1).replace('=', ':').replace(',', ';')})",
               "nDCG(gains=g:v;...)", "nDCG with the gain v given for grade g, the others' gain "
               "their grade (trec_eval ndcg.1=3,2=9)")
_pattern_alias("ndcg_rel_g=v,..., ndcg_rel.g=v,...", rf"ndcg_rel[_.]{_GAIN_PAIRS}",
               lambda m: f"nDCGRel(gains={m.group(1).replace('=', ':').replace(',', ';')})",
               "nDCGRel(gains=g:v;...)", "ndcg_rel with the gain v given for grade g "
               "(trec_eval ndcg_rel.1=3,2=9)")
_pattern_alias("Rndcg_g=v,..., Rndcg.g=v,...", rf"Rndcg[_.]{_GAIN_PAIRS}",
               lambda m: f"RnDCG(gains={m.group(1).replace('=', ':').replace(',', ';')})",
               "RnDCG(gains=g:v;...)", "Rndcg with the gain v given for grade g "
               "(trec_eval Rndcg.1=3,2=9)")
_pattern_alias("G_g=v,..., G.g=v,...", rf"G[_.]{_GAIN_PAIRS}",
               lambda m: f"G(gains={m.group(1).replace('=', ':').replace(',', ';')})",
               "G(gains=g:v;...)", "G with the gain v given for grade g, the others' gain their "
               "grade (trec_eval G.1=3,2=9)")
_name_alias("binG", "BinG", "same name: binary G (trec_eval binG)")
_name_alias("ndcg_rel", "nDCGRel", "nDCG averaged over the relevant items (trec_eval ndcg_rel)")
_name_alias("Rndcg", "RnDCG", "nDCG averaged at the R levels (trec_eval Rndcg)")
_cut("relative_P", "RelP", "TP(k)/min(k, R_q) (trec_eval relative_P_k)")
_name_alias("set_relative_P", "RelP", "TP/min(|A|, R_q) (trec_eval set_relative_P)")
_name_alias("set_map", "SetAP", "P·R of the whole list (trec_eval set_map)")
_name_alias("num_nonrel_judged_ret", "NumNonrelJudgedRet", "judged non-relevant retrieved; "
            "summed over queries (trec_eval num_nonrel_judged_ret)")
_name_alias("rbp", "RBP(p=0.9,gain=graded)", "RBP with trec_eval 10's graded gains and p = 0.9 "
            "(trec_eval rbp)")
_name_alias("rbp_resid", "RBPResidual(p=0.9,form=trec)", "RBP's residual, 0 when nothing "
            "retrieved is unjudged (trec_eval rbp_resid)")
_pattern_alias("rbp_p=x, rbp.p=x", rf"rbp[_.]p=({NUMBER})",
               lambda m: f"RBP(p={m.group(1)},gain=graded)", "RBP(p=x,gain=graded)",
               "trec_eval's rbp with persistence p = x")
_pattern_alias("rbp_resid_p=x, rbp_resid.p=x", rf"rbp_resid[_.]p=({NUMBER})",
               lambda m: f"RBPResidual(p={m.group(1)},form=trec)", "RBPResidual(p=x,form=trec)",
               "trec_eval's rbp_resid with persistence p = x")
_cut("unj", "Unjudged", "unjudged share of the top k, ÷ k (trec_eval unj_k)")
_name_alias("yaap", "YAAP", "log-odds form of AP (trec_eval yaap)")
# papers
_name_alias("MAP", "AP", "average precision ÷ R_q; MAP@k is AP@k (÷ R_q, trec_eval map_cut_k)",
            "papers", written="MAP, MAP@k", listed="AP, AP@k",
            note="{label} is read as {canonical} (÷ R_q, as trec_eval's map_cut); for ÷ min(k, "
                 "R_q), as text-to-music and recommender papers' MAP@k, write mAP@k or "
                 "AP(norm=min)@k")
_name_alias("mAP", "AP(norm=min)", "average precision ÷ min(k, R_q), the mAP@k of text-to-music "
            "and recommender papers (÷ R_q without @k)", "papers", written="mAP, mAP@k",
            listed="AP(norm=min), AP(norm=min)@k",
            note="{label} is read as {canonical} (÷ min(k, R_q)); for ÷ R_q, as trec_eval's "
                 "map_cut, write MAP@k or AP@k")
_name_alias("MRR", "RR", "mean over queries of 1 / rank of the first relevant item; MRR@k is "
            "RR@k", "papers", written="MRR, MRR@k", listed="RR, RR@k")
_name_alias("HR", "Success", "hit rate: 1 if a relevant item is in the top k", "papers",
            written="HR@k", listed="Success@k")
_name_alias("R", "R", "same name: recall of the top k. With one relevant item per query "
            "(single-caption text-to-music) it equals Success@k (HR@k)", "papers",
            written="R@k", listed="R@k")
_name_alias("MedR", "MedianRank", "per query, the median rank of the retrieved relevant items "
            "(averaged over queries like every measure). The median over queries of the rank "
            "of the one relevant item that text-to-music papers print as MedR is FirstRank with "
            "--aggregate median; the CLAP, TTMR and MusCALL protocols reproduce their own "
            "medians", "papers")
_name_alias("MR1", "FirstRank", "rank of the first relevant item, averaged over queries (MIREX "
            "cover song 'MR1')", "papers")
_name_alias("MR", "MeanRank", "mean rank of the retrieved relevant items (acoss and re-move "
            "print 'MR' as the mean rank of the first cover, FirstRank: --protocol acoss)",
            "papers")
# ir_measures' set measures
_name_alias("SetP", "P", "precision of the whole list (ir_measures SetP)", "ir_measures")
_name_alias("SetR", "R", "recall of the whole list (ir_measures SetR)", "ir_measures")

# Names whose text is trec_eval's output, not a measure of the judged ranking: printed by the
# trec-eval command (runid: the run's tag; relstring: metrics.measures.trec_eval_extras.relstring).
TREC_EVAL_TEXT_NAMES = ("runid", "relstring")


# Where trec_eval 9 and 10 compute a measure differently, the parameter that says which: under
# trec_eval's names the measures are trec_eval 10's, and as_trec9 gives trec_eval 9's.
TREC9_PARAMS = {"IPrec": {"rounding": "trec9"}, "IPrecAvg": {"rounding": "trec9"}}


def trec_eval_nan(measure: "Measure") -> bool:
    """Whether a NaN the measure gives is trec_eval 10's own value — its 0.0 / 0, which it
    prints as -nan (iprec_at_recall and 11pt_avg of an empty list at a level that rounds to no
    relevant item) — rather than a value left undefined, which trec_eval scores 0."""
    return measure.name in ("IPrec", "IPrecAvg") and measure.param("rounding") == "trec10"


def as_trec9(measure: "Measure") -> "Measure":
    """The measure as trec_eval 9 computes it (``iprec_at_recall_0.60`` → ``IPrec@0.6``,
    ``11pt_avg`` → ``IPrecAvg``), under the same label; the measure itself where the two
    versions agree. (Ties are the ranking's: the trec9 tie policy compares scores as float32.)"""
    changed = TREC9_PARAMS.get(measure.name)
    if not changed:
        return measure
    params = dict(measure.params) | changed
    order = list(measure.definition.params)
    # a copy with other parameters: names.py imports this module, so not its Measure()
    return replace(measure, params=tuple(sorted(params.items(),
                                                key=lambda kv: order.index(kv[0]))))


def alias_of(text: str) -> Alias | None:
    """The alias a measure name is written with, or None (a name of ours, or unknown)."""
    compact = "".join(text.split())
    for alias in ALIASES:
        if alias.pattern is not None and alias.pattern.fullmatch(compact):
            return alias
    match = NAME_SYNTAX.match(compact)
    if match and match.group(1) not in REGISTRY:
        return NAME_ALIASES.get(match.group(1))
    return None


def alias_note(measure: "Measure") -> str | None:
    """The warning an ambiguous alias (``MAP@10``, ``mAP@10``) comes with, or None."""
    if measure.label is None:
        return None
    alias = alias_of(measure.label)
    if alias is None or not alias.note or measure.cutoff is None:
        return None
    return alias.note.format(label=measure.label, canonical=measure.canonical)


def alias_rows() -> list[dict[str, Any]]:
    """The aliases as rows: the name written, our measure it means, its meaning and its source."""
    return [{"alias": a.written, "means": a.means, "meaning": a.meaning, "source": a.source}
            for a in ALIASES]
