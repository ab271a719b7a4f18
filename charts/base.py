"""What every figure of the dashboard starts from: a Figure on Plotly's plotly_white template, the
margins and legend they share, and user text made literal for Plotly."""

from __future__ import annotations

import plotly.graph_objects as go
import plotly.io as pio

# The legend sits at the bottom of the whole figure (yref "container"), where Plotly makes room
# for it below the x axis's title; placed below the plot area instead (y < 0 of "paper"), it
# covered that title in a short or narrow chart (the answer sets' PR curves at 1024 × 768)
LAYOUT = dict(margin=dict(l=60, r=20, t=50, b=40),
              legend=dict(orientation="h", yref="container", yanchor="bottom", y=0, x=0))

# Plotly's plotly_white, with every axis's tick labels drawn as they are ("allow"), not each
# measured to hide one that would pass the chart's edge (Plotly's default off category axes):
# that measuring forced a layout of the page per label, 0.4 s of the browser's time for the
# 137 rows of the cover songs' groups chart on a two-core machine, where no label can pass the
# edge (the margins are made to fit them)
def _template() -> go.layout.Template:
    template = go.layout.Template(pio.templates["plotly_white"])
    for axis in (template.layout.xaxis, template.layout.yaxis):
        axis.ticklabeloverflow = "allow"
    return template


_TEMPLATE = _template()


def new_figure(data=(), layout: dict | None = None, validate: bool = True) -> go.Figure:
    """A Figure of ``data`` (traces) and ``layout`` with Plotly's plotly_white template,
    attached the way Plotly attaches its default template (validation off for that one
    assignment). ``template="plotly_white"`` would validate and copy the whole template again:
    30–50 ms a figure. Figures drawn on every click of the Query explorer pass all their traces
    and layout here at once, which costs a third of adding them one call at a time. The JSON
    is the same either way. ``validate=False`` skips Plotly's checks of ``data`` and ``layout``
    (a figure whose every variant a test validates)."""
    fig = go.Figure(data=list(data) or None, layout=layout, _validate=validate)
    fig.layout._validate = False
    try:
        fig.layout.template = _TEMPLATE
    finally:
        fig.layout._validate = True
    return fig


def literal(text) -> str:
    """Plotly renders a few HTML tags in names and titles; show user text literally."""
    return str(text).replace("&", "&amp;").replace("<", "&lt;").replace(">", "&gt;")
