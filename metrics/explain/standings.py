"""Where every query stands across systems, for one measure: the hardest queries, those every
system fails and those where the systems disagree most (the Leaderboard's heatmap and the tables
below it)."""

from __future__ import annotations

import numpy as np
import pandas as pd

# A query every system fails: each system's value is this or worse (0 for a measure where higher
# is better: no relevant item where the measure looks), or undefined
FAILED_VALUE = 0.0


def standings(queries, values: dict[str, np.ndarray], higher_is_better: bool = True):
    """Where every query stands, for one measure: (the queries × systems table, hardest first —
    by the mean over the systems that have a value, ties in the queries' order; the queries every
    system fails (:data:`FAILED_VALUE` or undefined for all, for a measure where higher is
    better; none for a rank, whose failure is "undefined" for all); the queries where the systems
    disagree most, by the spread max − min, largest first, with the best and the worst system).
    """
    table = pd.DataFrame({s: np.asarray(v, dtype=float) for s, v in values.items()},
                         index=pd.Index([str(q) for q in queries], name="query_id"))
    mean = table.mean(axis=1, skipna=True)   # pandas: no warning for an all-undefined row
    order = np.argsort((-1 if not higher_is_better else 1) * mean.to_numpy(), kind="stable")
    hardest = table.iloc[order].assign(**{"mean over systems": mean.iloc[order]})
    defined = table.notna()
    if higher_is_better:
        failed = ((table <= FAILED_VALUE) | ~defined).all(axis=1)
    else:
        failed = (~defined).all(axis=1)
    compared = table[defined.sum(axis=1) >= 2]   # idxmax of an all-undefined row would fail
    best, worst = ((compared.idxmax, compared.idxmin) if higher_is_better else
                   (compared.idxmin, compared.idxmax))
    disagreement = pd.DataFrame({
        "spread": compared.max(axis=1) - compared.min(axis=1), "best system": best(axis=1),
        "worst system": worst(axis=1)})
    disagreement = disagreement.sort_values("spread", ascending=False, kind="stable")
    return hardest, table.index[failed.to_numpy()].tolist(), disagreement
