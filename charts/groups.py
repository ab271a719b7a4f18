"""The Groups page's figure: each group's mean of one measure per system, with its bootstrap
interval. Group names and system names are user data: passed as text, escaped."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from metrics.evaluation.cells import counted, fixed

from .base import LAYOUT, literal, new_figure
from .colours import PALETTE

GROUP_ROW = 34                  # pixels a group takes (horizontal bars: long names stay legible)
MARKER = 11                     # a system's marker, in pixels
# pixels each system's marker takes within its group's row (each system has its own line in the
# row): the figure grows with the groups, never squeezing a row below this. A cap on its height
# (1,600 px) crushed the covers' 100 artists into 15 px rows, where each marker overlapped the
# next row's and a class could not tell which group a point belonged to
SYSTEM_SLOT = MARKER + 6
# the part of a group's row (1 on the y axis) over which its systems are spread, the rest a gap
# between groups. Each system has its own y within the row: left to Plotly's scattermode "group"
# on these horizontal rows, three systems' intervals lay on one line, one over another
DODGE_SPAN = 0.8
MIN_HEIGHT = 300


def group_means_figure(groups: Sequence[str], counts: Sequence[int], systems: Sequence[str],
                       means: np.ndarray, low: np.ndarray, high: np.ndarray, *, measure: str,
                       grouping: str, level: float) -> go.Figure:
    """A horizontal dot-and-whisker chart: a row per group (its name and number of queries), a
    marker per system at the group's mean with the interval as a whisker (``means``, ``low``,
    ``high``: groups × systems, NaN where undefined), each system on its own line within the row
    (:func:`system_offset`) and named in the legend; hover gives the group, its n, the mean and
    the interval. Each marker's customdata is its group's index, so a click names the group."""
    means, low, high = (np.asarray(a, dtype=float) for a in (means, low, high))
    labels = [f"{literal(g)} ({n})" for g, n in zip(groups, counts)]
    rows = np.arange(len(groups))
    traces = []
    for j, system in enumerate(systems):
        hover = [f"{literal(grouping)} = {literal(g)} "
                 f"(n = {counted(counts[i], 'query', 'queries')})"
                 f"<br>{literal(system)}: mean {_value(means[i, j])}, {level:.0%} interval "
                 f"[{_value(low[i, j])}, {_value(high[i, j])}]"
                 for i, g in enumerate(groups)]
        traces.append(go.Scatter(
            x=means[:, j], y=rows + system_offset(j, len(systems)), mode="markers",
            name=literal(system), marker=dict(size=MARKER, color=PALETTE[j % len(PALETTE)]),
            error_x=dict(type="data", symmetric=False, array=high[:, j] - means[:, j],
                         arrayminus=means[:, j] - low[:, j], thickness=1.5, width=4),
            customdata=rows, hovertext=hover, hovertemplate="%{hovertext}<extra></extra>"))
    row = max(GROUP_ROW, SYSTEM_SLOT * len(systems))
    height = max(MIN_HEIGHT, 120 + row * len(groups))
    return new_figure(traces, dict(
        LAYOUT, height=height,
        title=f"{literal(measure)} by {literal(grouping)}: mean and {level:.0%} interval per group",
        xaxis=dict(title=f"mean {literal(measure)}"),
        # the groups from the top, first to last; an explicit range, since Plotly's autorange
        # padded 137 groups with 7 empty rows above and below (200 px of nothing on each side)
        yaxis=dict(range=[len(groups) - 0.5, -0.5], title=None, automargin=True,
                   tickmode="array", tickvals=rows, ticktext=labels, showgrid=False,
                   zeroline=False),
        margin=dict(l=20, r=20, t=50, b=80), showlegend=len(systems) > 1))


def system_offset(j: int, systems: int) -> float:
    """Where the ``j``-th of ``systems`` sits within its group's row (the row's centre 0, the
    first system on top): evenly over :data:`DODGE_SPAN`, each in the middle of its own slot."""
    return (j - (systems - 1) / 2) * DODGE_SPAN / systems


def _value(v: float) -> str:
    return "undefined" if not np.isfinite(v) else fixed(v)
