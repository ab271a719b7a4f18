"""Figures of the dashboard. Every function takes plain arrays and labels and returns a Figure;
labels that come from user data are passed to Plotly as text (never as HTML templates)."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Mapping, Sequence

import numpy as np
import plotly.graph_objects as go
import plotly.io as pio

from metrics.curves import RECALL_LEVELS

from .colours import (HIGHLIGHT_TEXT, LOSS_COLOUR, MEAN_COLOUR, MUTED_COLOUR, PALETTE,
                      REFERENCE_COLOUR, TIE_COLOUR, WIN_COLOUR)

MEAN_STYLE = dict(color=MEAN_COLOUR, width=3)
PR_MARKERS = 400    # a PR curve of more points is drawn as a line without markers
LEGEND_LINES = 12   # more per-query lines than this: names on hover only, the legend keeps means
_LAYOUT = dict(margin=dict(l=60, r=20, t=50, b=40),
               legend=dict(orientation="h", yanchor="top", y=-0.18, x=0))
_TEMPLATE = pio.templates["plotly_white"]


def _figure(data=(), layout: dict | None = None) -> go.Figure:
    """A Figure of ``data`` (traces) and ``layout`` with Plotly's plotly_white template,
    attached the way Plotly attaches its default template (validation off for that one
    assignment). ``template="plotly_white"`` would validate and copy the whole template again:
    30–50 ms a figure. Figures drawn on every click of the Query explorer pass all their traces
    and layout here at once, which costs a third of adding them one call at a time. The JSON
    is the same either way."""
    fig = go.Figure(data=list(data) or None, layout=layout)
    fig.layout._validate = False
    try:
        fig.layout.template = _TEMPLATE
    finally:
        fig.layout._validate = True
    return fig


def _unit_layout(x_title: str, y_title: str) -> dict:
    """The layout of a figure whose axes both run over [0, 1] (recall, precision, rates)."""
    return dict(_LAYOUT, xaxis=dict(title=x_title, range=[-0.02, 1.05]),
                yaxis=dict(title=y_title, range=[-0.02, 1.05]))


def _unit_axes(fig: go.Figure, x_title: str, y_title: str) -> go.Figure:
    return fig.update_layout(**_unit_layout(x_title, y_title))


def _safe(text) -> str:
    """Plotly renders a few HTML tags in names and titles; show user text literally."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")


def _add_means(fig: go.Figure, means: Mapping[str, tuple], prefix: str, mode: str,
               systems: Sequence[str] = ()) -> None:
    """Thick mean curves, one per system, in the system's colour (its place in ``systems``,
    else in ``means``); gray when there is only one system."""
    order = list(systems) or list(means)
    for system, (x, y) in means.items():
        i = order.index(system) if system in order else len(order)
        colour = PALETTE[i % len(PALETTE)] if len(order) > 1 else MEAN_COLOUR
        fig.add_trace(go.Scatter(x=x, y=y, mode=mode, name=f"{prefix}: {_safe(system)}",
                                 legendgroup=_safe(system), line=dict(MEAN_STYLE, color=colour)))


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

    def line(self, x, y, i: int, label: str, mode: str, name: str | None = None,
             **style) -> go.Scatter:
        shown = _safe(name or label)
        if self.by_system:
            system = self.groups[label]
            first = label in self.firsts
            colour = PALETTE[self.systems.index(system) % len(PALETTE)]
            group, legend = _safe(system), first
            entry = f"{_safe(system)}: each query" if first else shown
        else:
            colour, group = PALETTE[i % len(PALETTE)], None
            legend, entry = self.count <= LEGEND_LINES, shown
        return go.Scatter(x=x, y=y, mode=mode, name=entry, legendgroup=group, showlegend=legend,
                          opacity=style.pop("opacity", 0.5),
                          hovertemplate=shown + "<br>%{x:.3f}, %{y:.3f}<extra></extra>",
                          line=dict(style, color=colour))


def pr_curve_figure(recall: Sequence[float], precision: Sequence[float], *,
                    bep: float | None = None, fmax: tuple[float, float, int] | None = None,
                    interpolated: Sequence[float] | None = None,
                    exact: Sequence[float] | None = None, ranks: Sequence[int] | None = None,
                    cutoff: tuple[float, float, int] | None = None,
                    current: tuple[float, float, int] | None = None,
                    title: str = "") -> go.Figure:
    """One query's PR curve (points at ``ranks``, by default r = 1..|A|; a long list is drawn
    from fewer points, see :func:`metrics.curves.drawn_ranks`), with the break-even point
    (P = R) and F_max (given as (recall, precision, rank)) marked; optionally the 11-point
    interpolation, the exact interpolated curve (``exact``: at the same points), the cutoff K and
    the rank r of the teaching mode, each as (recall, precision, rank)."""
    recall = np.asarray(recall, dtype=float)
    precision = np.asarray(precision, dtype=float)
    ranks = np.arange(1, len(recall) + 1) if ranks is None else np.asarray(ranks)
    traces = []
    traces.append(go.Scatter(x=recall, y=precision,
                             mode="lines+markers" if len(recall) <= PR_MARKERS else "lines",
                             name="P(r), R(r)",
                             line=dict(color=PALETTE[0], dash="dash"), customdata=ranks,
                             hovertemplate="rank %{customdata}<br>R = %{x:.3f}<br>"
                                           "P = %{y:.3f}<extra></extra>"))
    if interpolated is not None:
        traces.append(go.Scatter(x=RECALL_LEVELS, y=interpolated, mode="lines+markers",
                                 line=dict(color=MEAN_COLOUR, shape="hv"),
                                 name="11-point interpolated"))
    if exact is not None:
        traces.append(go.Scatter(x=recall, y=np.asarray(exact, dtype=float), mode="lines",
                                 line=dict(color=PALETTE[3], shape="vh", width=2),
                                 name="exact interpolated: max P at recall ≥ R(r)",
                                 hoverinfo="skip"))
    traces.append(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="P = R",
                             line=dict(color=REFERENCE_COLOUR, dash="dot"), hoverinfo="skip"))
    if bep is not None and np.isfinite(bep):
        traces.append(go.Scatter(x=[bep], y=[bep], mode="markers", name=f"break-even {bep:.3f}",
                                 marker=dict(size=18, symbol="circle-open", color=PALETTE[2],
                                             line=dict(width=3))))
    if fmax is not None and np.isfinite(fmax[0]):
        r, p, rank = fmax
        f = 0.0 if r + p == 0 else 2 * p * r / (p + r)
        traces.append(go.Scatter(x=[r], y=[p], mode="markers",
                                 name=f"F_max {f:.3f} (rank {rank})",
                                 marker=dict(size=16, symbol="star-open", color=PALETTE[4],
                                             line=dict(width=3))))
    if cutoff is not None and np.isfinite(cutoff[0]):
        traces.append(go.Scatter(x=[cutoff[0]], y=[cutoff[1]], mode="markers",
                                 name=f"cutoff K = {cutoff[2]}",
                                 marker=dict(size=15, symbol="square-open", color=PALETTE[1],
                                             line=dict(width=3))))
    if current is not None and np.isfinite(current[0]):
        traces.append(go.Scatter(x=[current[0]], y=[current[1]], mode="markers",
                                 name=f"rank r = {current[2]}",
                                 marker=dict(size=13, symbol="circle", color=PALETTE[6])))
    return _figure(traces, dict(_unit_layout("recall R(r)", "precision P(r)"), title=_safe(title)))


def pr_curves_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
                     mean: Mapping[str, Sequence[float]] | None = None,
                     groups: Mapping[str, str] | None = None, title: str = "") -> go.Figure:
    """Raw PR curves of several queries (``{label: (recall, precision)}``; ``groups``: label →
    system) with optional mean 11-point interpolated curves (``{system: precision at
    RECALL_LEVELS}``) drawn thick."""
    fig = _figure()
    lines = _QueryLines(list(curves), groups)
    for i, (label, (recall, precision)) in enumerate(curves.items()):
        fig.add_trace(lines.line(recall, precision, i, label, "lines", width=1, dash="dashdot",
                                 opacity=0.45))
    _add_means(fig, {s: (RECALL_LEVELS, v) for s, v in (mean or {}).items()},
               "mean interpolated", "lines+markers", lines.systems)
    fig.update_layout(title=_safe(title))
    return _unit_axes(fig, "recall", "precision")


def interpolated_pr_figure(levels: Sequence[float], curves: Mapping[str, Sequence[float]], *,
                           mean: Mapping[str, Sequence[float]] | None = None,
                           groups: Mapping[str, str] | None = None,
                           title: str = "") -> go.Figure:
    """11-point interpolated PR curves (step-free lines at the recall levels), with means."""
    fig = _figure()
    lines = _QueryLines(list(curves), groups)
    for i, (label, values) in enumerate(curves.items()):
        fig.add_trace(lines.line(levels, values, i, label, "lines+markers", width=1))
    _add_means(fig, {s: (levels, v) for s, v in (mean or {}).items()}, "mean", "lines+markers",
               lines.systems)
    fig.update_layout(title=_safe(title))
    return _unit_axes(fig, "recall level", "interpolated precision")


def lift_curves_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float]]], *,
                       mean: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
                       groups: Mapping[str, str] | None = None,
                       title: str = "") -> go.Figure:
    """Serrà's normalised lift curves: x = r/|A|, y = TP(r)/R_q, per query dash-dotted, means
    solid (``mean`` maps a system to (grid, mean curve))."""
    fig = _figure()
    lines = _QueryLines(list(curves), groups)
    for i, (label, (x, y)) in enumerate(curves.items()):
        fig.add_trace(lines.line(x, y, i, label, "lines", width=1.5, dash="dashdot",
                                 opacity=0.6))
    _add_means(fig, mean or {}, "mean", "lines", lines.systems)
    fig.update_layout(title=_safe(title))
    return _unit_axes(fig, "share of the answer list r/|A|", "share of relevant found TP(r)/R_q")


def roc_figure(curves: Mapping[str, tuple[Sequence[float], Sequence[float], float]], *,
               mean: Mapping[str, tuple[Sequence[float], Sequence[float]]] | None = None,
               groups: Mapping[str, str] | None = None, title: str = "") -> go.Figure:
    """ROC curves ``{label: (fpr, tpr, auc)}`` with the chance diagonal (the AUC is in each
    line's hover and, for few lines, the legend) and optional mean curves per system
    (``{system: (fpr grid, mean tpr)}``) drawn thick."""
    fig = _figure()
    fig.add_trace(go.Scatter(x=[0, 1], y=[0, 1], mode="lines", name="chance",
                             line=dict(color=REFERENCE_COLOUR, dash="dot"), hoverinfo="skip"))
    lines = _QueryLines(list(curves), groups)
    for i, (label, (fpr, tpr, auc)) in enumerate(curves.items()):
        fig.add_trace(lines.line(fpr, tpr, i, label, "lines", name=f"{label} (AUC {auc:.3f})",
                                 width=1.5, opacity=0.7))
    _add_means(fig, mean or {}, "mean", "lines", lines.systems)
    fig.update_layout(title=_safe(title))
    return _unit_axes(fig, "false positive rate", "true positive rate")


def confusion_matrix_figure(tp: float, fp: float, fn: float, tn: float | None, *,
                            k: int | None = None, name: str = "K") -> go.Figure:
    """The 2×2 confusion matrix at cutoff k (called ``name``: K, or r in the teaching mode): rows
    actual relevant / not, columns retrieved in the top k / not. TN is shown as '?' when |D| is
    unknown."""
    values = [[tp, fn], [fp, tn if tn is not None else np.nan]]
    text = [[f"TP = {tp:g}", f"FN = {fn:g}"],
            [f"FP = {fp:g}", f"TN = {tn:g}" if tn is not None else "TN = ?<br>(|D| unknown)"]]
    shade = [[1.0, 0.35], [0.35, 0.8]]
    # light cells with dark text in both themes (the dark theme's white text would vanish)
    return _figure([go.Heatmap(
        z=shade, x=[f"retrieved (top {name})", "not retrieved"], y=["relevant", "not relevant"],
        text=text, texttemplate="%{text}", textfont=dict(size=18, color=HIGHLIGHT_TEXT),
        showscale=False,
        colorscale=[[0, "#fde0dd"], [1, "#c7e9c0"]], customdata=values,
        hovertemplate="%{text}<extra></extra>", zmin=0, zmax=1)], dict(
        yaxis=dict(autorange="reversed"),
        title=f"Confusion matrix at {name} = {k}" if k else "Confusion matrix",
        margin=dict(l=100, r=20, t=50, b=40), height=320))


# Longer lists draw their other ranks as one line, not a tick each. Beyond a few hundred ranks
# the ticks are under 3 px apart on a projector-sized strip (a band either way), and Plotly's
# processing of a 1,000-point trace was most of the time the browser took to redraw the Query
# explorer (about a quarter of a second a strip, on every query switch and change of K).
STRIP_TICKS = 200


@dataclass(frozen=True)
class StripRow:
    """One system's list for one query, a row of :func:`rank_strip_figure`: the ``ranks`` and
    ``grades`` of its judged items (or of the whole list), its ``length`` and the query's
    number of relevant items."""
    name: str
    ranks: Sequence[int]
    grades: Sequence[int]
    length: int
    num_relevant: int


def rank_strip_figure(rows: Sequence[StripRow], *, threshold: int = 1, cutoff: int | None = None,
                      current: int | None = None) -> go.Figure:
    """Where a query's relevant items ended up, one row per system (the first on top, in one
    figure: one chart for the browser to draw on a query switch, not one per system). Items of
    grade >= ``threshold`` are drawn large and coloured by grade, every other rank of the list
    1..length as a small tick (as a line when there are more than STRIP_TICKS), so a glance
    shows whether the relevant items lead the list. ``cutoff`` K is a dashed line after rank K
    across the rows; ``current`` a ring around rank r in the first row (the teaching mode)."""
    traces, graded, found = [], set(), []
    for y, row in enumerate(rows):
        ranks = np.asarray(row.ranks, dtype=np.int64)
        grades = np.asarray(row.grades, dtype=np.int64)
        relevant = grades >= max(threshold, 1)
        at_row = dict(legendgroup="other", showlegend=y == 0)
        if row.length - relevant.sum() <= STRIP_TICKS:
            others = np.setdiff1d(np.arange(1, row.length + 1), ranks[relevant])
            traces.append(go.Scatter(x=others, y=np.full(len(others), y), mode="markers",
                                     name="not relevant / unjudged",
                                     marker=dict(color=MUTED_COLOUR, size=7, symbol="line-ns-open"),
                                     hovertemplate="rank %{x}<extra></extra>", **at_row))
        else:
            traces.append(go.Scatter(x=[1, row.length], y=[y, y], mode="lines",
                                     name="not relevant / unjudged (every other rank)",
                                     line=dict(color=MUTED_COLOUR, width=2), hoverinfo="skip",
                                     **at_row))
        for g in sorted(set(grades[relevant].tolist())):
            at = relevant & (grades == g)
            traces.append(go.Scatter(x=ranks[at], y=np.full(at.sum(), y), mode="markers",
                                     name=f"grade {g}", legendgroup=f"grade {g}",
                                     showlegend=g not in graded,
                                     marker=dict(size=14, color=PALETTE[(g + 1) % len(PALETTE)],
                                                 symbol="diamond"),
                                     hovertemplate="rank %{x}<extra>grade " + str(g)
                                                   + "</extra>"))
            graded.add(g)
        found.append(int(relevant.sum()))
    if current is not None:
        traces.append(go.Scatter(x=[current], y=[0], mode="markers", name=f"rank r = {current}",
                                 marker=dict(size=22, symbol="circle-open", color=PALETTE[6],
                                             line=dict(width=3)), hoverinfo="skip"))
    first, longest = rows[0], max(row.length for row in rows)
    labels = [f"{_safe(row.name)}<br>{n} of {row.num_relevant} found"
              for row, n in zip(rows, found)]
    title = (f"{found[0]} of {first.num_relevant} relevant items retrieved in a list of "
             f"{first.length}" if len(rows) == 1 else
             "Relevant items by rank: " + " and ".join(_safe(row.name) for row in rows))
    height = 190 + 70 * (len(rows) - 1)
    layout = dict(title=title, height=height,
                  margin=dict(l=20, r=20, t=40, b=30),
                  # the legend 90 px below the plot area, whatever the number of rows
                  legend=dict(orientation="h", y=-90 / (height - 70)),
                  yaxis=dict(visible=len(rows) > 1, range=[len(rows) - 0.4, -0.6],
                             tickvals=list(range(len(rows))), ticktext=labels, automargin=True,
                             showgrid=False, zeroline=False),
                  xaxis=dict(title="rank", range=[0, max(longest, 1) + 1]))
    if cutoff is not None:   # what add_vline(…, annotation_position="top right") adds, without
        # its look-ups through the figure's subplot grid (most of the time of building a strip)
        at = cutoff + 0.5
        layout.update(
            shapes=[dict(type="line", x0=at, x1=at, xref="x", y0=0, y1=1, yref="y domain",
                         line=dict(color=PALETTE[1], dash="dash", width=2))],
            annotations=[dict(text=f"K = {cutoff}", showarrow=False, x=at, xref="x",
                              xanchor="left", y=1, yref="y domain", yanchor="top")])
    return _figure(traces, layout)


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
    fig = _figure()
    fig.add_trace(go.Scatter(x=[low, high], y=[low, high], mode="lines", name="A = B",
                             line=dict(color=REFERENCE_COLOUR, dash="dot"), hoverinfo="skip"))
    for i, (label, colour) in enumerate(OUTCOMES):
        at = np.flatnonzero(kind == i)
        fig.add_trace(go.Scatter(
            x=a[at], y=b[at], mode="markers", name=f"{label} ({len(at)})", customdata=at,
            text=[_safe(queries[j]) for j in at],
            marker=dict(color=colour, size=9, opacity=0.8, line=dict(width=0.5, color="white")),
            hovertemplate="query %{text}<br>" + _safe(name_a) + " %{x:.4f}<br>"
                          + _safe(name_b) + " %{y:.4f}<extra></extra>"))
    fig.update_layout(title=f"{_safe(measure)} per query", **_LAYOUT)
    fig.update_xaxes(title=f"{_safe(name_a)} (A)")
    fig.update_yaxes(title=f"{_safe(name_b)} (B)", scaleanchor="x", scaleratio=1)
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
    fig = _figure([go.Bar(x=np.arange(1, len(d) + 1), y=d,
                         marker_color=[OUTCOMES[i][1] for i in kind], customdata=order,
                         text=[_safe(queries[i]) for i in order], textposition="none",
                         name="B − A",
                         hovertemplate="query %{text}<br>B − A = %{y:.4f}<extra></extra>")])
    fig.update_layout(title=f"{_safe(measure)}, B − A: {counts[0]} wins, {counts[1]} ties, "
                            f"{counts[2]} losses",
                      margin=dict(l=60, r=20, t=50, b=40), showlegend=False, bargap=0.1)
    fig.update_xaxes(title="queries, sorted by difference")
    fig.update_yaxes(title="B − A")
    return fig
