"""Figures of the dashboard. Every function takes plain arrays and labels and returns a Figure;
labels that come from user data are passed to Plotly as text (never as HTML templates)."""

from __future__ import annotations

from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go

from metrics.evaluation.cells import fixed
from metrics.evaluation.curves import RECALL_LEVELS

from .base import LAYOUT, literal, new_figure
from .colours import (LOSS_COLOUR, MEAN_COLOUR, PALETTE, REFERENCE_COLOUR, TIE_COLOUR,
                      WIN_COLOUR)

MEAN_STYLE = dict(color=MEAN_COLOUR, width=4.5)
# One query's line: solid, and thick and opaque enough for a projector and the dark theme (thin,
# translucent dash-dotted lines vanished there); the means stay thicker
QUERY_LINE, QUERY_OPACITY = dict(width=2.5, dash="solid"), 0.85
LEGEND_LINES = 12   # more per-query lines than this: names on hover only, the legend keeps means


def _unit_layout(x_title: str, y_title: str) -> dict:
    """The layout of a figure whose axes both run over [0, 1] (recall, precision, rates)."""
    return dict(LAYOUT, xaxis=dict(title=x_title, range=[-0.02, 1.05]),
                yaxis=dict(title=y_title, range=[-0.02, 1.05]))


def _unit_axes(fig: go.Figure, x_title: str, y_title: str) -> go.Figure:
    return fig.update_layout(**_unit_layout(x_title, y_title))


def _add_means(fig: go.Figure, means: Mapping[str, tuple], prefix: str, mode: str,
               systems: Sequence[str] = ()) -> None:
    """Thick mean curves, one per system, in the system's colour (its place in ``systems``,
    else in ``means``); gray when there is only one system."""
    order = list(systems) or list(means)
    for system, (x, y) in means.items():
        i = order.index(system) if system in order else len(order)
        colour = PALETTE[i % len(PALETTE)] if len(order) > 1 else MEAN_COLOUR
        fig.add_trace(go.Scatter(x=x, y=y, mode=mode, name=f"{prefix}: {literal(system)}",
                                 legendgroup=literal(system), line=dict(MEAN_STYLE, color=colour)))


class _QueryLines:
    """Colours, legend groups and legend entries of per-query lines. With ``groups`` (label →
    system) naming more than one system, lines take their system's colour and the legend has one
    entry per system; otherwise each query has its own colour and, when there are few, its own
    legend entry."""

    def __init__(self, labels: Sequence[str], groups: Mapping[str, str] | None):
        self.groups = dict(groups or {})
        self.systems = list(dict.fromkeys(self.groups.get(label) for label in labels
                                          if label in self.groups))
        self.by_system = len(self.systems) > 1
        self.count = len(labels)
        self.firsts = {next(label for label in labels if self.groups.get(label) == s)
                       for s in self.systems}

    def line(self, x, y, i: int, label: str, mode: str, name: str | None = None) -> go.Scatter:
        shown = literal(name or label)
        if self.by_system:
            system = self.groups[label]
            first = label in self.firsts
            colour = PALETTE[self.systems.index(system) % len(PALETTE)]
            group, legend = literal(system), first
            entry = f"{literal(system)}: each query" if first else shown
        else:
            colour, group = PALETTE[i % len(PALETTE)], None
            legend, entry = self.count <= LEGEND_LINES, shown
        return go.Scatter(x=x, y=y, mode=mode, name=entry, legendgroup=group, showlegend=legend,
                          opacity=QUERY_OPACITY,
                          hovertemplate=shown + "<br>%{x:.3f}, %{y:.3f}<extra></extra>",
                          line=dict(QUERY_LINE, color=colour))


def _fit_precision(fig: go.Figure) -> go.Figure:
    """The precision axis from 0 to the highest precision drawn, not to 1: a failing query's
    curve (precision 0.03) is then more than a line along the axis."""
    return fig.update_yaxes(range=None, autorange=True, rangemode="tozero")


def pr_curves_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
                     mean: Mapping[str, Sequence[float]] | None = None,
                     groups: Mapping[str, str] | None = None, title: str = "",
                     fit: bool = False) -> go.Figure:
    """Raw PR curves of several queries (``{label: (recall, precision)}``; ``groups``: label →
    system) with optional mean 11-point interpolated curves (``{system: precision at
    RECALL_LEVELS}``) drawn thick; ``fit``: the precision axis fits the data (else 0–1)."""
    fig = new_figure()
    lines = _QueryLines(list(curves), groups)
    for i, (label, (recall, precision)) in enumerate(curves.items()):
        fig.add_trace(lines.line(recall, precision, i, label, "lines"))
    _add_means(fig, {s: (RECALL_LEVELS, v) for s, v in (mean or {}).items()},
               "mean interpolated", "lines+markers", lines.systems)
    fig.update_layout(title=literal(title))
    _unit_axes(fig, "recall", "precision")
    return _fit_precision(fig) if fit else fig


def interpolated_pr_figure(levels: Sequence[float], curves: Mapping[str, Sequence[float]], *,
                           mean: Mapping[str, Sequence[float]] | None = None,
                           groups: Mapping[str, str] | None = None,
                           title: str = "", fit: bool = False) -> go.Figure:
    """11-point interpolated PR curves (step-free lines at the recall levels), with means;
    ``fit``: the precision axis fits the data (else 0–1)."""
    fig = new_figure()
    lines = _QueryLines(list(curves), groups)
    for i, (label, values) in enumerate(curves.items()):
        fig.add_trace(lines.line(levels, values, i, label, "lines+markers"))
    _add_means(fig, {s: (levels, v) for s, v in (mean or {}).items()}, "mean", "lines+markers",
               lines.systems)
    fig.update_layout(title=literal(title))
    _unit_axes(fig, "recall level", "interpolated precision")
    return _fit_precision(fig) if fit else fig


def lift_curves_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
                       mean: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
                       groups: Mapping[str, str] | None = None,
                       title: str = "") -> go.Figure:
    """Serrà's normalised lift curves: x = r/|A|, y = TP(r)/R_q, per query and their means
    (thick) (``mean`` maps a system to (grid, mean curve))."""
    fig = new_figure()
    lines = _QueryLines(list(curves), groups)
    for i, (label, (x, y)) in enumerate(curves.items()):
        fig.add_trace(lines.line(x, y, i, label, "lines"))
    _add_means(fig, mean or {}, "mean", "lines", lines.systems)
    fig.update_layout(title=literal(title))
    return _unit_axes(fig, "share of the answer list r/|A|", "share of relevant found TP(r)/R_q")


def roc_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float], float]], *,
               mean: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
               groups: Mapping[str, str] | None = None, title: str = "") -> go.Figure:
    """ROC curves ``{label: (fpr, tpr, auc)}`` with the chance diagonal (the AUC is in each
    line's hover and, for few lines, the legend) and optional mean curves per system
    (``{system: (fpr grid, mean tpr)}``) drawn thick."""
    fig = new_figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                             line=dict(color=REFERENCE_COLOUR, dash="dot"), hoverinfo="skip"))
    lines = _QueryLines(list(curves), groups)
    for i, (label, (fpr, tpr, auc)) in enumerate(curves.items()):
        fig.add_trace(lines.line(fpr, tpr, i, label, "lines", name=f"{label} (AUC {auc:.3f})"))
    _add_means(fig, mean or {}, "mean", "lines", lines.systems)
    fig.update_layout(title=literal(title))
    return _unit_axes(fig, "false positive rate", "true positive rate")


SAME = 1e-12   # differences this small are ties
OUTCOMES = (("B better", WIN_COLOUR), ("tie", TIE_COLOUR), ("A better", LOSS_COLOUR))


def outcome(diff: np.ndarray) -> np.ndarray:
    """0 where B − A > 0 (B better), 1 for a tie, 2 where A is better: the order of OUTCOMES."""
    return np.where(diff > SAME, 0, np.where(diff < -SAME, 2, 1))


def paired_scatter_figure(a: Sequence[float], b: Sequence[float], queries: Sequence[str], *,
                          name_a: str, name_b: str, measure: str) -> go.Figure:
    """Per-query values of system A (x) against B (y) with the diagonal: points above it are
    queries where B is better. One trace per outcome (B better, tie, A better), each in its own
    fixed colour; each point's customdata is its index in ``a``/``b``/``queries``, for
    selection (the query id is shown as text)."""
    a = np.asarray(a, dtype=float)
    b = np.asarray(b, dtype=float)
    kind = outcome(b - a)
    finite = np.concatenate([a[np.isfinite(a)], b[np.isfinite(b)]])
    low = min(0.0, float(finite.min())) if len(finite) else 0.0
    high = max(1.0, float(finite.max())) if len(finite) else 1.0
    fig = new_figure()
    fig.add_trace(go.Scatter(x=[low, high], y=[low, high], mode="lines", name="A = B",
                             line=dict(color=REFERENCE_COLOUR, dash="dot"), hoverinfo="skip"))
    for i, (label, colour) in enumerate(OUTCOMES):
        at = np.flatnonzero(kind == i)
        fig.add_trace(go.Scatter(
            x=a[at], y=b[at], mode="markers", name=f"{label} ({len(at)})", customdata=at,
            text=[literal(queries[j]) for j in at],
            marker=dict(color=colour, size=9, opacity=0.8, line=dict(width=0.5, color="white")),
            # the values as the tables print them (Plotly's "%{x:.4f}" rounds a tie up)
            hovertext=[f"query {literal(queries[j])}<br>{literal(name_a)} {fixed(a[j])}<br>"
                       f"{literal(name_b)} {fixed(b[j])}" for j in at],
            hovertemplate="%{hovertext}<extra></extra>"))
    fig.update_layout(title=f"{literal(measure)} per query", **LAYOUT)
    fig.update_xaxes(title=f"{literal(name_a)} (A)")
    fig.update_yaxes(title=f"{literal(name_b)} (B)", scaleanchor="x", scaleratio=1)
    return fig


def difference_figure(diff: Sequence[float], queries: Sequence[str], *, name_a: str,
                      name_b: str, measure: str) -> go.Figure:
    """Per-query differences B − A sorted from B's largest loss to its largest win, coloured by
    outcome as in the scatter, with the counts in the title. Each bar's customdata is its index
    in ``diff``/``queries``, for selection (the query id is shown as text)."""
    diff = np.asarray(diff, dtype=float)
    order = np.argsort(diff, kind="stable")
    d = diff[order]
    kind = outcome(d)
    counts = [int((kind == i).sum()) for i in range(3)]
    fig = new_figure([go.Bar(x=np.arange(1, len(d) + 1), y=d,
                         marker_color=[OUTCOMES[i][1] for i in kind], customdata=order,
                         text=[literal(queries[i]) for i in order], textposition="none",
                         name="B − A",
                         hovertext=[f"query {literal(queries[i])}<br>B − A = {fixed(v)}"
                                    for i, v in zip(order, d)],
                         hovertemplate="%{hovertext}<extra></extra>")])
    fig.update_layout(title=f"{literal(measure)}, B − A: {counts[0]} wins, {counts[1]} ties, "
                            f"{counts[2]} losses",
                      margin=dict(l=60, r=20, t=50, b=40), showlegend=False, bargap=0.1)
    fig.update_xaxes(title="queries, sorted by difference")
    fig.update_yaxes(title="B − A")
    return fig
