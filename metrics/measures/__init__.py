"""The measures, one module per family, each registered by name in
:data:`metrics.measures.registry.REGISTRY` with its formula, convention and reference.

Importing this package registers them all. Every measure takes a
:class:`~metrics.data.judged.JudgedRanking`, a cutoff (or None) and its parameters, and returns one
float per query, computed for all queries at once from the ragged hits (segment sums over each
query's judged items, never a queries × ranks matrix); NaN marks a value that is undefined for that
query.

Families: set_based (P, R, F, Success, Judged, the counts), rank_based (AP, RR, Rprec, BEP, Fmax,
the bpref family, infAP, first/median/mean rank), interpolated (IPrec), rank_biased (RBP and its residual), graded
(DCG, nDCG, ERR, EP, GAP), confusion (TP/FP/FN/TN and the rates built on them), trec_eval_extras
(the measures only trec_eval defines: GMAP, Utility, G, RnDCG, RelP, Unjudged, ...).
"""

# registration order is the order of `python -m metrics measures` and of docs/measures.md
from metrics.measures import (set_based, rank_based, interpolated, rank_biased,  # noqa: F401,I001
                              graded, confusion, trec_eval_extras)
