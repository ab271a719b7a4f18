"""Colours that stay legible on a light and on a dark background (no Streamlit here: tables and
figures both use these); the tests check them with WCAG's contrast ratio (tests/oracles.py).

Streamlit draws Plotly figures on the theme's background (white, or #171614 in Streamlit 1.67's
dark theme; older versions used #0e1117, which the colours below also pass)
and keeps the colours a figure sets, so every fixed colour of a line or marker has a contrast of
at least 3 (WCAG's ratio for graphics) against both. Highlighted table cells set their text colour
with their background: a light background under the dark theme's white text would be unreadable.
"""

from __future__ import annotations

LIGHT_BACKGROUND = "#ffffff"
DARK_BACKGROUND = "#171614"

# Plotly's default ten, with the orange, pink and cyan that vanish on white darkened
PALETTE = ["#2b83c6", "#e03b3c", "#2e8b2e", "#9467bd", "#d95f02", "#a0665a", "#cc4fa8",
           "#1397a6"]
MEAN_COLOUR = "#7f7f7f"        # the mean curve when there is one system
REFERENCE_COLOUR = "#8a8a8a"   # diagonals and other guides, drawn dotted
MUTED_COLOUR = "#8a8a8a"       # marks that matter less (non-relevant ranks)
WIN_COLOUR, LOSS_COLOUR, TIE_COLOUR = PALETTE[2], PALETTE[1], "#808080"

HIGHLIGHT_TEXT = "#1a1a1a"
RELEVANT_BACKGROUND = "#d9f2d9"   # a relevant row of a ranked list
DIFFERS_BACKGROUND = "#fde0dd"    # a cell that differs from the paper
CURRENT_BACKGROUND = "#ffe08a"    # the rank r the teaching mode is at

# Heatmaps. Diverging, from ColorBrewer's RdBu: its ends are dark enough for white text, its
# middle light enough for black (Plotly picks each cell's text colour), and every cell is drawn
# on its own colour, not on the theme's background
DIFFERENCE_SCALE = [[0.0, "#b2182b"], [0.25, "#ef8a62"], [0.5, "#f7f7f7"], [0.75, "#67a9cf"],
                    [1.0, "#2166ac"]]
VALUE_SCALE = "Viridis"   # sequential, and legible with red-green colour blindness


def highlight_css(background: str) -> str:
    """A pandas Styler cell style with the text colour set together with the background."""
    return f"background-color: {background}; color: {HIGHLIGHT_TEXT}"
