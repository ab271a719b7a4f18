"""The Groups page's figure: each group's mean of one measure per system, with its bootstrap
interval. Group names and system names are user data: passed as text, escaped."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from metrics.evaluation.cells import counted, fixed

from .colours import PALETTE
from .figures import _LAYOUT, _figure, _safe

GROUP_ROW = 34                  # pixels a group takes (horizontal bars: long names stay legible)
MARKER = 11                     # a system's marker, in pixels
# pixels each system's marker takes within its group's row (scattermode "group" puts them side by
# side): the figure grows with the groups, never squeezing a row below this. A cap on its height
# (1,600 px) crushed the covers' 100 artists into 15 px rows, where each marker overlapped the
# next row's and a class could not tell which group a point belonged to
SYSTEM_SLOT = MARKER + 6
MIN_HEIGHT = 300


def group_means_figure(groups: Sequence[str], counts: Sequence[int], systems: Sequence[str],
                       means: np.ndarray, low: np.ndarray, high: np.ndarray, *, measure: str,
                       grouping: str, level: float) -> go.Figure:
    """A horizontal dot-and-whisker chart: a row per group (its name and number of queries), a
    marker per system at the group's mean with the interval as a whisker (``means``, ``low``,
    ``high``: groups × systems, NaN where undefined). Each marker's customdata is its group's
    index, so a click names the group."""
    means, low, high = (np.asarray(a, dtype=float) for a in (means, low, high))
    labels = [f"{_safe(g)} ({n})" for g, n in zip(groups, counts)]
    traces = []
    for j, system in enumerate(systems):
        hover = [f"{_safe(grouping)} = {_safe(g)}<br>{_safe(system)}: {_value(means[i, j])} "
                 f"[{_value(low[i, j])}, {_value(high[i, j])}]<br>"
                 f"{counted(counts[i], 'query', 'queries')}"
                 for i, g in enumerate(groups)]
        traces.append(go.Scatter(
            x=means[:, j], y=labels, mode="markers", name=_safe(system),
            marker=dict(size=MARKER, color=PALETTE[j % len(PALETTE)]),
            error_x=dict(type="data", symmetric=False, array=high[:, j] - means[:, j],
                         arrayminus=means[:, j] - low[:, j], thickness=1.5, width=4),
            customdata=np.arange(len(groups)), hovertext=hover,
            hovertemplate="%{hovertext}<extra></extra>"))
    row = max(GROUP_ROW, SYSTEM_SLOT * len(systems))
    height = max(MIN_HEIGHT, 120 + row * len(groups))
    return _figure(traces, dict(
        _LAYOUT, height=height, scattermode="group",
        title=f"{_safe(measure)} by {_safe(grouping)}: mean and {level:.0%} interval per group",
        xaxis=dict(title=f"mean {_safe(measure)}"),
        # the groups from the top, first to last; an explicit range, since Plotly's autorange
        # padded 137 groups with 7 empty rows above and below (200 px of nothing on each side)
        yaxis=dict(range=[len(groups) - 0.5, -0.5], title=None, automargin=True),
        margin=dict(l=20, r=20, t=50, b=80), showlegend=len(systems) > 1))


def _value(v: float) -> str:
    return "undefined" if not np.isfinite(v) else fixed(v)
