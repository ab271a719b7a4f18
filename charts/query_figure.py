"""The Query explorer's figure of one query: where its relevant items ended up in each system's
list (the rank strip, a row per system), its PR curve, and its confusion matrix at K (or at the
teaching mode's rank r), as three panels of one figure.

One figure, not three: the explorer redraws it on every query switch and change of K, and much
of what a Plotly draw costs the browser is per chart whatever its size (its layout pass, legends
and text measurement), so three panels in one chart cost less than three charts.

Its traces are plain dicts and the Figure is assembled without Plotly's validation
(:func:`charts.base.new_figure` with ``validate=False``): building the validated Figure and its
JSON took 22–32 ms of every click on the server, 14 ms without. The tests validate every
variant of it instead."""

from __future__ import annotations

from dataclasses import dataclass
from typing import Sequence

import numpy as np
import plotly.graph_objects as go

from metrics.evaluation.curves import RECALL_LEVELS

from .base import literal, new_figure
from .colours import HIGHLIGHT_TEXT, MEAN_COLOUR, MUTED_COLOUR, PALETTE, REFERENCE_COLOUR

PR_MARKERS = 400    # a PR curve of more points is drawn as a line without markers
# Longer lists draw their other ranks as one line, not a tick each. Beyond a few hundred ranks
# the ticks are under 3 px apart on a projector-sized strip (a band either way), and Plotly's
# processing of a 1,000-point trace was most of the time the browser took to redraw the Query
# explorer (about a quarter of a second a strip, on every query switch and change of K).
STRIP_TICKS = 200

# The panels' heights in pixels: the strip grows by a row per system, the PR curve and the
# confusion matrix beside it keep theirs. GAP holds the strip's rank axis, its legend and the
# titles of the panels below.
STRIP_ROW, STRIP_BASE, GAP, PR_HEIGHT, TOP = 60, 40, 140, 330, 40
# The teaching mode's figure is shorter: on a projector (1024 × 768) the rank r control, the row's
# numbers and the whole figure share one screen
COMPACT = dict(STRIP_ROW=30, STRIP_BASE=22, GAP=104, PR_HEIGHT=180, TOP=30)
# Below the PR curve: its tick labels and axis title, then its legend, whose rows are reserved
# (a legend that overflowed the margin would push the plot up under it)
AXIS_BELOW, LEGEND_ROW, LEGEND_ROWS = 58, 21, 3
# its legend has three columns, so its names are short; the caption says the rest. The exact
# interpolated curve (the highest precision at recall R(r) or beyond) and the 11 points at which
# the 11-point measure samples it are named as one curve and its samples, not as two curves
EXACT_NAME, ELEVEN_POINT_NAME = "interpolated P (exact)", "its 11-point samples"
PR_RIGHT, CONFUSION_LEFT = 0.58, 0.74   # x domains: the PR curve left, the matrix right
# Markers at the same point (K = R_q puts the K square on the break-even point) are drawn as
# nested outlines this many pixels apart, largest outermost, and labelled together
NESTED_STEP = 10
EXTENT = {"star-open": 1.4}   # how far a symbol reaches beyond its size (a star's points)
SAME_POINT = 0.01   # recall and precision this close: one point on the chart


@dataclass(frozen=True)
class StripRow:
    """One system's list for one query, a row of the rank strip: the ``ranks`` and ``grades``
    of the relevant items it retrieved (the engine decides which are relevant:
    :func:`metrics.explain.summaries.relevant_retrieved`), its ``length`` and the query's number
    of relevant items; ``labels``, when given, describe the item at each of ``ranks`` (its id,
    title and artist) in the hover, as user text, escaped."""
    name: str
    ranks: Sequence[int]
    grades: Sequence[int]
    length: int
    num_relevant: int
    labels: Sequence[str] | None = None


@dataclass(frozen=True)
class PRCurve:
    """One query's PR curve as drawn: precision and recall at ``ranks`` (by default 1..|A|; a
    long list is drawn from fewer points, see :func:`metrics.evaluation.curves.drawn_ranks`);
    optionally the break-even point, F_max, the cutoff K and the teaching mode's rank r, each as
    (recall, precision, rank) except ``bep``; the 11-point interpolated precision and the
    exact interpolated curve (at the same points as ``recall``)."""
    recall: Sequence[float]
    precision: Sequence[float]
    ranks: Sequence[int] | None = None
    bep: float | None = None
    fmax: tuple[float, float, int] | None = None
    interpolated: Sequence[float] | None = None
    exact: Sequence[float] | None = None
    cutoff: tuple[float, float, int] | None = None
    current: tuple[float, float, int] | None = None


@dataclass(frozen=True)
class Confusion:
    """The 2 × 2 counts at cutoff ``k`` (called ``name``: K, or r in the teaching mode); ``tn``
    is None when the collection size |D| is unknown."""
    tp: float
    fp: float
    fn: float
    tn: float | None
    k: int
    name: str = "K"


def _strip_traces(rows: Sequence[StripRow],
                  current: int | None) -> tuple[list, list[int]]:
    """The strip's traces (on axes x, y; legend 1) and how many relevant items each row
    found. The relevant items are large and coloured by grade, every other rank 1..length a
    small tick (one line beyond STRIP_TICKS); ``current`` rings rank r in the first row."""
    traces, graded, found = [], set(), []
    for y, row in enumerate(rows):
        ranks = np.asarray(row.ranks, dtype=np.int64)
        grades = np.asarray(row.grades, dtype=np.int64)
        at_row = dict(legendgroup="other", showlegend=y == 0)
        if row.length - len(ranks) <= STRIP_TICKS:
            others = np.setdiff1d(np.arange(1, row.length + 1), ranks)
            traces.append(_scatter(x=others, y=np.full(len(others), y), mode="markers",
                                   name="not relevant / unjudged",
                                   marker=dict(color=MUTED_COLOUR, size=7, symbol="line-ns-open"),
                                   hovertemplate="rank %{x}<extra></extra>", **at_row))
        else:
            traces.append(_scatter(x=[1, row.length], y=[y, y], mode="lines",
                                   name="not relevant / unjudged (every other rank)",
                                   line=dict(color=MUTED_COLOUR, width=2), hoverinfo="skip",
                                   **at_row))
        labels = None if row.labels is None else np.asarray(
            [literal(label) for label in row.labels], dtype=object)
        for g in sorted(set(grades.tolist())):
            at = grades == g
            described = {} if labels is None else dict(customdata=labels[at])
            traces.append(_scatter(x=ranks[at], y=np.full(at.sum(), y), mode="markers",
                                   name=f"grade {g}", legendgroup=f"grade {g}",
                                   showlegend=g not in graded,
                                   marker=dict(size=14, color=PALETTE[(g + 1) % len(PALETTE)],
                                               symbol="diamond"),
                                   hovertemplate="rank %{x}"
                                                 + ("<br>%{customdata}" if described else "")
                                                 + "<extra>grade " + str(g) + "</extra>",
                                   **described))
            graded.add(g)
        found.append(len(ranks))
    if current is not None:
        traces.append(_scatter(x=[current], y=[0], mode="markers", name=f"rank r = {current}",
                               marker=dict(size=22, symbol="circle-open", color=PALETTE[6],
                                           line=dict(width=3)), hoverinfo="skip"))
    return traces, found


def _scatter(**trace) -> dict:
    return dict(type="scatter", **trace)


def _label_order(label: str) -> int:
    """The order of the names in a combined label: "break-even = F_max = K = 4 here"."""
    return ("break-even", "F_max").index(label) if label in ("break-even", "F_max") else 2


def _marks(pr: PRCurve) -> tuple[list, list]:
    """The marked points of the PR panel (F_max, break-even point, cutoff K) and the labels of
    those that coincide. Coinciding points are nested outlines, each outside the one before by
    NESTED_STEP pixels — the star innermost (it has no room inside), then the circle, then the
    square around it — so that every one stays visible, and one label names them all."""
    points = []   # (x, y, name, label, symbol, colour, size)
    if pr.fmax is not None and np.isfinite(pr.fmax[0]):
        r, p, rank = pr.fmax
        f = 0.0 if r + p == 0 else 2 * p * r / (p + r)
        points.append((r, p, f"F_max {f:.3f} (r = {rank})", "F_max", "star-open", PALETTE[4],
                       16))
    if pr.bep is not None:
        points.append((pr.bep, pr.bep, f"break-even {pr.bep:.3f}", "break-even", "circle-open",
                       PALETTE[2], 18))
    if pr.cutoff is not None and np.isfinite(pr.cutoff[0]):
        points.append((*pr.cutoff[:2], f"cutoff K = {pr.cutoff[2]}", f"K = {pr.cutoff[2]}",
                       "square-open", PALETTE[1], 13))
    traces, labels, placed = [], [], []
    for x, y, name, label, symbol, colour, size in points:
        same = [other for other in placed
                if abs(other[0] - x) < SAME_POINT and abs(other[1] - y) < SAME_POINT]
        if same:   # outside the outline of every marker already there
            size = max(round(max(o[2] for o in same)) + NESTED_STEP, size)
        placed.append((x, y, size * EXTENT.get(symbol, 1), label))
        traces.append(_scatter(x=[x], y=[y], mode="markers", name=name, cliponaxis=False,
                               marker=dict(size=size, symbol=symbol, color=colour,
                                           line=dict(width=3))))
    groups = {}
    for x, y, _, label in placed:
        key = next((k for k in groups if abs(k[0] - x) < SAME_POINT and abs(k[1] - y) < SAME_POINT),
                   (x, y))
        groups.setdefault(key, []).append(label)
    for (x, y), names in groups.items():
        if len(names) > 1:
            # below the point and towards the middle of the panel, where it stays inside it
            left = x >= 0.5
            labels.append(dict(text=" = ".join(sorted(names, key=_label_order)) + " here",
                               x=x, y=y, xref="x2", yref="y2", showarrow=True, arrowhead=0, ax=-24 if left else 24,
                               ay=42 if y >= 0.3 else -42, xanchor="right" if left else "left",
                               font=dict(size=12), arrowcolor=MUTED_COLOUR))
    return traces, labels


def _pr_traces(pr: PRCurve) -> tuple[list, list]:
    """The PR panel's traces (on axes x2, y2; legend 2): P(r) against R(r), the interpolated
    curves, the P = R diagonal and the marked points; and the labels of marked points that
    coincide."""
    recall = np.asarray(pr.recall, dtype=float)
    precision = np.asarray(pr.precision, dtype=float)
    ranks = np.arange(1, len(recall) + 1) if pr.ranks is None else np.asarray(pr.ranks)
    traces = [_scatter(x=recall, y=precision,
                       mode="lines+markers" if len(recall) <= PR_MARKERS else "lines",
                       name="P(r) vs R(r)", line=dict(color=PALETTE[0], dash="dash"),
                       customdata=ranks,
                       hovertemplate="rank %{customdata}<br>R = %{x:.3f}<br>"
                                     "P = %{y:.3f}<extra></extra>")]
    if pr.exact is not None:
        traces.append(_scatter(x=recall, y=np.asarray(pr.exact, dtype=float), mode="lines",
                               line=dict(color=PALETTE[3], shape="vh", width=2),
                               name=EXACT_NAME,
                               hoverinfo="skip"))
    if pr.interpolated is not None:
        # the 11 samples of the interpolated curve, as points joined by straight lines (Manning
        # et al., Fig. 8.3): they lie on the exact curve above, which the steps are
        traces.append(_scatter(x=RECALL_LEVELS, y=pr.interpolated, mode="lines+markers",
                               line=dict(color=MEAN_COLOUR, width=1.5, dash="dot"),
                               marker=dict(size=8, symbol="circle", color=MEAN_COLOUR),
                               name=ELEVEN_POINT_NAME,
                               hovertemplate="recall %{x:.1f}<br>interpolated P = %{y:.3f}"
                                             "<extra></extra>"))
    traces.append(_scatter(x=[0, 1], y=[0, 1], mode="lines", name="P = R",
                           line=dict(color=REFERENCE_COLOUR, dash="dot"), hoverinfo="skip"))
    marks, labels = _marks(pr)
    traces += marks
    if pr.current is not None and np.isfinite(pr.current[0]):
        traces.append(_scatter(x=[pr.current[0]], y=[pr.current[1]], mode="markers",
                               name=f"rank r = {pr.current[2]}", cliponaxis=False,
                               marker=dict(size=10, symbol="circle", color=PALETTE[6])))
    return [dict(trace, xaxis="x2", yaxis="y2", legend="legend2") for trace in traces], labels


def _precision_range(pr: PRCurve, fit: bool) -> list[float]:
    """The PR panel's precision axis: 0 to 1, or (``fit``) 0 to the highest precision drawn, so
    that a failing query's curve (precision 0.03) is more than a line along the axis."""
    top = 1.0
    if fit:
        drawn = [np.asarray(v, dtype=float).ravel() for v in
                 (pr.precision, pr.interpolated, pr.exact, pr.bep,
                  *(point[1] for point in (pr.fmax, pr.cutoff, pr.current) if point))
                 if v is not None]
        finite = np.concatenate(drawn) if drawn else np.zeros(0)
        finite = finite[np.isfinite(finite)]
        top = float(finite.max()) if len(finite) and finite.max() > 0 else 1.0
    return [-0.02 * top, 1.05 * top]


def _confusion_trace(c: Confusion) -> dict:
    """The matrix (on axes x3, y3): rows actual relevant / not, columns retrieved in the top k
    / not; TN is '?' when |D| is unknown. Light cells with dark text in both themes (the dark
    theme's white text would vanish)."""
    values = [[c.tp, c.fn], [c.fp, c.tn if c.tn is not None else np.nan]]
    text = [[f"TP = {c.tp:g}", f"FN = {c.fn:g}"],
            [f"FP = {c.fp:g}", f"TN = {c.tn:g}" if c.tn is not None else "TN = ?<br>(|D| unknown)"]]
    return dict(type="heatmap", z=[[1.0, 0.35], [0.35, 0.8]],
                x=[f"retrieved<br>(top {c.name})", "not<br>retrieved"],
                y=["relevant", "not<br>relevant"], text=text, texttemplate="%{text}",
                textfont=dict(size=15, color=HIGHLIGHT_TEXT), showscale=False,
                colorscale=[[0, "#fde0dd"], [1, "#c7e9c0"]], customdata=values,
                hovertemplate="%{text}<extra></extra>", zmin=0, zmax=1, xaxis="x3",
                yaxis="y3")


def _panel_title(text: str, x: float, y: float, anchor: str = "left") -> dict:
    return dict(text=f"<b>{text}</b>", showarrow=False, xref="paper", yref="paper", x=x, y=y,
                xanchor=anchor, yanchor="bottom", yshift=6, font=dict(size=15))


def query_figure(strip: Sequence[StripRow], pr: PRCurve, confusion: Confusion, *,
                 query: str, cutoff: int | None = None,
                 current: int | None = None, compact: bool = False,
                 fit_precision: bool = False) -> go.Figure:
    """One query in one figure: on top the rank strip (a row per system, the first on top;
    ``cutoff`` K a dashed line across the rows, ``current`` a ring around rank r of the first
    row), below it the PR curve of ``query`` and, beside that, the confusion matrix. Each
    panel's title is an annotation; the strip and the PR curve have a legend each.
    ``compact``: the shorter panels of the teaching mode (:data:`COMPACT`); ``fit_precision``:
    the PR curve's precision axis up to the highest precision drawn, not to 1."""
    sizes = COMPACT if compact else dict(STRIP_ROW=STRIP_ROW, STRIP_BASE=STRIP_BASE, GAP=GAP,
                                         PR_HEIGHT=PR_HEIGHT, TOP=TOP)
    strip_traces, found = _strip_traces(strip, current)
    pr_traces, pr_labels = _pr_traces(pr)
    rows, first, longest = len(strip), strip[0], max(row.length for row in strip)
    strip_height = sizes["STRIP_BASE"] + sizes["STRIP_ROW"] * rows
    plot = strip_height + sizes["GAP"] + sizes["PR_HEIGHT"]
    bottom = AXIS_BELOW + LEGEND_ROW * LEGEND_ROWS + 6
    below = sizes["PR_HEIGHT"] / plot   # the top of the PR curve and the matrix, in paper units
    strip_bottom = 1 - strip_height / plot
    labels = [f"{literal(row.name)}<br>{n} of {row.num_relevant} found"
              for row, n in zip(strip, found)]
    strip_title = (f"{found[0]} of {first.num_relevant} relevant items retrieved in a list of "
                   f"{first.length}" if rows == 1 else
                   "Relevant items by rank: " + " and ".join(literal(row.name) for row in strip))
    name = confusion.name
    annotations = [
        _panel_title(strip_title, 0, 1),
        _panel_title(f"PR curve of {literal(query)}", 0, below),
        # ending at the right edge: on a projector the matrix is narrower than its title
        _panel_title(f"Confusion matrix at {name} = {confusion.k}", 1, below, "right")]
    shapes = []
    if cutoff is not None:   # what add_vline(…, annotation_position="top right") draws
        at = cutoff + 0.5
        shapes.append(dict(type="line", x0=at, x1=at, xref="x", y0=0, y1=1, yref="y domain",
                           line=dict(color=PALETTE[1], dash="dash", width=2)))
        # its label on the line's left in the axis's last fifth: at the right edge a label on
        # the right ran off the figure ("K = 1000" cut to "K = 1")
        right = at > 0.8 * (max(longest, 1) + 1)
        annotations.append(dict(text=f"K = {cutoff}", showarrow=False, x=at, xref="x",
                                xanchor="right" if right else "left", y=1, yref="y domain", yanchor="top"))
    layout = dict(
        height=sizes["TOP"] + plot + bottom, margin=dict(l=60, r=20, t=sizes["TOP"], b=bottom),
        annotations=annotations + pr_labels, shapes=shapes,
        xaxis=dict(title=dict(text="rank", standoff=4), range=[0, max(longest, 1) + 1],
                   anchor="y"),
        yaxis=dict(domain=[strip_bottom, 1], visible=rows > 1, range=[rows - 0.4, -0.6],
                   tickvals=list(range(rows)), ticktext=labels, automargin=True,
                   showgrid=False, zeroline=False, anchor="x"),
        xaxis2=dict(domain=[0, PR_RIGHT], title="recall R(r)", range=[-0.02, 1.05],
                    anchor="y2"),
        yaxis2=dict(domain=[0, below], title="precision P(r)",
                    range=_precision_range(pr, fit_precision), anchor="x2"),
        xaxis3=dict(domain=[CONFUSION_LEFT, 1], anchor="y3"),
        yaxis3=dict(domain=[0, below], autorange="reversed", anchor="x3"),
        # the strip's legend under its rank axis, the PR curve's under the figure
        legend=dict(orientation="h", x=0, y=strip_bottom - 48 / plot, yanchor="top"),
        legend2=dict(orientation="h", x=0, y=-AXIS_BELOW / plot, yanchor="top",
                     font=dict(size=12), itemsizing="constant", entrywidthmode="fraction",
                     entrywidth=1 / LEGEND_ROWS))
    return new_figure([*strip_traces, *pr_traces, _confusion_trace(confusion)], layout,
                   validate=False)
