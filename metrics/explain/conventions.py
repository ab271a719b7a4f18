"""One dataset under every benchmark protocol and every tie policy, beside our standard measures:
why paper A's MAP@10 is not paper B's (the dashboard's Conventions page shows these tables).

acoss and re-move compare the scores as float32. The rankings given here are made under each tie
policy, and only ``trec9``'s compares float32; the others can stand in for a float32 ranking
exactly when rounding to float32 moves no judged item, which the ``trec9`` and ``trec10``
rankings show (the same tie order, float32 and double): they then agree on every judged item's
rank and group of equal scores. Where they do not, those protocols' numbers are left empty under
the other policies, with the reason.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from metrics.errors import MeasureError
from metrics.evaluation.evaluate import aggregate, evaluate
from metrics.data.judged import JudgedRanking
from metrics.data.ties import TiePolicy
from metrics.evaluation.protocols import evaluate_protocol
from metrics.evaluation.protocols import PROTOCOLS
from metrics.measures.names import Measure

if TYPE_CHECKING:
    import pandas as pd

def _standard_values(judged: JudgedRanking) -> dict[tuple[str, str], float | None]:
    """Our value of each protocol column's ``standard`` measure, aggregated as it says."""
    wanted = {(c.standard, c.standard_aggregate) for p in PROTOCOLS.values() for c in p.columns
              if c.standard}
    result = evaluate(judged, sorted({m for m, _ in wanted}))
    out = {}
    for measure, how in wanted:
        values = result.results[measure].values
        out[measure, how] = (aggregate(values, "mean", summed=True) if how == "sum"
                             else aggregate(values, how))
    return out


FLOAT32_DIFFERS = ("some scores of this data are equal as float32 but not as double, and {name} "
                   "compares them as float32, as only the trec9 ranking here does (or run "
                   "--protocol {name} on the command line)")


def float32_moves_nothing(by_policy: dict[TiePolicy, JudgedRanking]) -> bool:
    """Whether the rankings compared as double are also the float32 ones: the ``trec9`` ranking
    (float32) and the ``trec10`` one (double, the same tie order) give every judged item the same
    rank and the same group of equal scores. Rounding to float32 only merges scores, so a judged
    item whose group is the same has the same items above it under every tie policy."""
    single, double = by_policy.get(TiePolicy.TREC9), by_policy.get(TiePolicy.TREC10)
    if single is None or double is None:
        return False
    fields = ("offsets", "hit_ranks", "hit_grades", "hit_tie_first", "hit_tie_size")
    return all((a is None and b is None) or (a is not None and b is not None
                                             and np.array_equal(a, b))
               for a, b in ((getattr(single, f), getattr(double, f)) for f in fields))


def _protocol_values(judged: JudgedRanking, name: str, float32_ok: bool
                     ) -> tuple[dict[str, float | None], str | None]:
    """A protocol's numbers, and None; or None for each with the reason, when the reference code
    fails on this data, the tie policy refuses one of its measures (``expected`` has no exact
    mean for a median, say) or the ranking is not the float32 one the protocol needs."""
    empty = {column.name: None for column in PROTOCOLS[name].columns}
    if PROTOCOLS[name].float32_scores and not float32_ok:
        return empty, FLOAT32_DIFFERS.format(name=name)
    try:
        return evaluate_protocol(judged, name).aggregate(), None
    except MeasureError as exc:   # its message is the command line's: "--protocol NAME: why"
        return empty, exc.message.removeprefix(f"--protocol {name}: ")


def _aggregates(judged: JudgedRanking, measures: list[Measure]) -> dict[str, float | None]:
    """Each measure's aggregate; None for a measure the tie policy refuses."""
    try:
        return evaluate(judged, measures).aggregate()
    except MeasureError:
        out = {}
        for m in measures:
            try:
                out[str(m)] = evaluate(judged, [m]).aggregate()[str(m)]
            except MeasureError:
                out[str(m)] = None
        return out


def protocol_grid(by_policy: dict[TiePolicy, JudgedRanking], current: TiePolicy
                  ) -> pd.DataFrame:
    """One row per (protocol, printed number): its value under each tie policy, then the measure
    of ours its name suggests, our value (under the ``current`` policy) and why they differ."""
    import pandas as pd

    unchanged = float32_moves_nothing(by_policy)
    values = {policy: {name: _protocol_values(judged, name, unchanged or policy.float32)
                       for name in PROTOCOLS}
              for policy, judged in by_policy.items()}
    ours = _standard_values(by_policy[current])
    rows = []
    for protocol in PROTOCOLS.values():
        # why the protocol printed nothing under the current policy, said once, on its first row
        reason = values[current][protocol.name][1]
        for i, column in enumerate(protocol.columns):
            how = column.standard_aggregate
            why = column.explanation
            if reason and i == 0:
                why = f"Not computed for this data under {current}: {reason}. {why}"
            rows.append({"protocol": protocol.name, "printed as": column.name,
                         **{policy: values[policy][protocol.name][0][column.name]
                            for policy in by_policy},
                         "our measure": column.standard + ("" if how == "mean" else f" ({how})"),
                         "ours": ours[column.standard, how],
                         "why they differ": why})
    return pd.DataFrame(rows)


def measure_grid(by_policy: dict[TiePolicy, JudgedRanking], measures: list[Measure]
                 ) -> pd.DataFrame:
    """Our measures' means under each tie policy, and whether the policy changes them."""
    import pandas as pd

    means = {policy: _aggregates(judged, measures) for policy, judged in by_policy.items()}
    rows = []
    for m in measures:
        row = {"measure": str(m), **{policy: means[policy][str(m)] for policy in by_policy}}
        found = [v for v in row.values() if isinstance(v, float)]
        row["changes with ties"] = bool(found) and not np.allclose(found, found[0], rtol=0,
                                                                   atol=1e-12)
        rows.append(row)
    return pd.DataFrame(rows)
