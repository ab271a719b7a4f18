"""One dataset under every benchmark protocol and every tie policy, beside our standard measures:
why paper A's MAP@10 is not paper B's (the dashboard's Conventions page shows these tables)."""

from __future__ import annotations

from typing import TYPE_CHECKING

import numpy as np

from metrics.errors import MeasureError
from metrics.evaluation.evaluate import aggregate, evaluate
from metrics.data.judged import JudgedRanking
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


def _protocol_values(judged: JudgedRanking, name: str) -> dict[str, float | None]:
    """A protocol's numbers; None for each when the tie policy refuses one of its measures
    (``expected`` has no exact mean for a median, say)."""
    try:
        return evaluate_protocol(judged, name).aggregate()
    except MeasureError:
        return {column.name: None for column in PROTOCOLS[name].columns}


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


def protocol_grid(by_policy: dict[str, JudgedRanking], current: str) -> pd.DataFrame:
    """One row per (protocol, printed number): its value under each tie policy, then the measure
    of ours its name suggests, our value (under the ``current`` policy) and why they differ."""
    import pandas as pd

    values = {policy: {name: _protocol_values(judged, name) for name in PROTOCOLS}
              for policy, judged in by_policy.items()}
    ours = _standard_values(by_policy[current])
    rows = []
    for protocol in PROTOCOLS.values():
        for column in protocol.columns:
            how = column.standard_aggregate
            rows.append({"protocol": protocol.name, "printed as": column.name,
                         **{policy: values[policy][protocol.name][column.name]
                            for policy in by_policy},
                         "our measure": column.standard + ("" if how == "mean" else f" ({how})"),
                         "ours": ours[column.standard, how],
                         "why they differ": column.explanation})
    return pd.DataFrame(rows)


def measure_grid(by_policy: dict[str, JudgedRanking], measures: list[Measure]) -> pd.DataFrame:
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
