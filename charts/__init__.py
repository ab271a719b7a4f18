"""Plotly figure factories: data in, ``plotly.graph_objects.Figure`` out. No Streamlit here."""

from .figures import (difference_figure, interpolated_pr_figure, lift_curves_figure,
                      paired_scatter_figure, pr_curves_figure, roc_figure)
from .query_figure import Confusion, PRCurve, StripRow, query_figure

__all__ = ["Confusion", "PRCurve", "StripRow", "difference_figure", "interpolated_pr_figure",
           "lift_curves_figure", "paired_scatter_figure", "pr_curves_figure", "query_figure",
           "roc_figure"]
