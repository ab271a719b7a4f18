"""Plotly figure factories: data in, ``plotly.graph_objects.Figure`` out. No Streamlit here."""

from .figures import (StripRow, confusion_matrix_figure, difference_figure,
                      interpolated_pr_figure, lift_curves_figure, paired_scatter_figure,
                      pr_curve_figure, pr_curves_figure, rank_strip_figure, roc_figure)

__all__ = ["StripRow", "confusion_matrix_figure", "difference_figure", "interpolated_pr_figure",
           "lift_curves_figure", "paired_scatter_figure", "pr_curve_figure", "pr_curves_figure",
           "rank_strip_figure", "roc_figure"]
