"""Figures of the Leaderboard page: the pairwise matrix of one measure, and where every query
stands (queries × systems). Names and ids from user data are passed as text, never as HTML."""

from __future__ import annotations

from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from metrics.evaluation.cells import fixed, p_stated

from .base import LAYOUT, literal, new_figure
from .colours import DIFFERENCE_SCALE, VALUE_SCALE

# More cells than this and the cells carry no text (hover still names them): at 1024 × 768 a
# matrix of 20 systems has cells of some 25 px, too small for two numbers
MATRIX_TEXT_CELLS = 100
ROW_PIXELS = 14           # a query row of the heatmap; its height stops growing at MAX_HEIGHT
MIN_HEIGHT, MAX_HEIGHT = 320, 1400
LABELLED_ROWS = 60        # more queries than this: row labels on hover only


def pairwise_figure(systems: Sequence[str], mean_diff: np.ndarray, p_adjusted: np.ndarray, *,
                    measure: str, correction: str, alpha: float) -> go.Figure:
    """Every pair of systems: the cell [row i, column j] coloured by mean(j) − mean(i) (blue: the
    column's system is better on a higher-is-better measure), with the difference and the
    corrected p-value written in it (few cells) or on hover (many), and a ``*`` where the p-value
    is below ``alpha``."""
    names = [literal(s) for s in systems]
    k = len(names)
    diff = np.asarray(mean_diff, dtype=float)
    p = np.asarray(p_adjusted, dtype=float)
    cells = [[("" if i == j else
               f"{'+' if diff[i, j] >= 0 else ''}{fixed(diff[i, j])}"
               + ("" if np.isnan(p[i, j]) else
                  f"<br>{p_stated(p[i, j], 2)}{' *' if p[i, j] < alpha else ''}"))
              for j in range(k)] for i in range(k)]
    finite = np.abs(diff[np.isfinite(diff)])
    reach = float(finite.max()) if finite.size and finite.max() > 0 else 1.0
    heatmap = go.Heatmap(
        z=diff, x=names, y=names, zmin=-reach, zmax=reach, colorscale=DIFFERENCE_SCALE,
        text=cells, texttemplate="%{text}" if k * k <= MATRIX_TEXT_CELLS else None,
        hovertemplate="row %{y}, column %{x}<br>column − row: %{text}<extra></extra>",
        textfont=dict(size=12), colorbar=dict(title=dict(text="column − row", side="right")),
        xgap=1, ygap=1)
    side = max(MIN_HEIGHT, min(140 + 56 * k, 900))
    return new_figure([heatmap], dict(
        LAYOUT, title=f"{literal(measure)}: mean difference and p ({literal(correction)})",
        height=side, xaxis=dict(title="column system", side="bottom", tickangle=-30),
        yaxis=dict(title="row system", autorange="reversed")))


def query_heatmap_figure(queries: Sequence[str], systems: Sequence[str], values: np.ndarray, *,
                         measure: str) -> go.Figure:
    """Queries (rows, in the order given: hardest first) × systems (columns), coloured by the
    measure. A transparent marker on each cell makes it clickable (Plotly selects points of a
    scatter, not cells of a heatmap); its customdata is ``row * len(systems) + column``."""
    values = np.asarray(values, dtype=float)
    rows, columns = values.shape
    query_labels = [literal(q) for q in queries]
    system_labels = [literal(s) for s in systems]
    # rows by position: two queries whose ids print the same stay two rows
    positions = np.arange(rows)
    heatmap = go.Heatmap(z=values, x=system_labels, y=positions, colorscale=VALUE_SCALE,
                         hoverinfo="skip", xgap=1, ygap=0,
                         colorbar=dict(title=dict(text=literal(measure), side="right")))
    row, column = np.divmod(np.arange(rows * columns), columns)
    shown = [("undefined" if np.isnan(v) else fixed(v)) for v in values.ravel()]
    clicks = go.Scatter(
        x=[system_labels[c] for c in column], y=row, mode="markers",
        marker=dict(symbol="square", size=max(6, min(ROW_PIXELS, 24)), color="rgba(0,0,0,0)"),
        customdata=np.arange(rows * columns),
        text=[f"{query_labels[r]} · {system_labels[c]}: {s}"
              for r, c, s in zip(row, column, shown)],
        hovertemplate="%{text}<extra>click: open in the Query explorer</extra>",
        showlegend=False)
    labelled = rows <= LABELLED_ROWS
    height = max(MIN_HEIGHT, min(120 + ROW_PIXELS * rows, MAX_HEIGHT))
    return new_figure([heatmap, clicks], dict(
        LAYOUT, title=f"{literal(measure)} of every query (hardest first)", height=height,
        xaxis=dict(tickangle=-30, side="top"),   # no title: it would meet the figure's
        yaxis=dict(title="query" if labelled else f"query ({rows:,}: ids on hover)",
                   autorange="reversed", tickmode="array" if labelled else "auto",
                   tickvals=list(positions) if labelled else None,
                   ticktext=query_labels if labelled else None, showticklabels=labelled),
        clickmode="event+select", dragmode=False, margin=dict(l=90, r=20, t=90, b=30)))
