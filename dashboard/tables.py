"""How ranked lists are shown: unjudged grades spelled out, relevant rows highlighted."""

from __future__ import annotations

import pandas as pd
import streamlit as st

from charts.colours import RELEVANT_BACKGROUND, highlight_css
from metrics.provenance import comment_lines

# A pandas Styler renders every cell in Python (about half a second for 1,000 rows), so lists
# longer than this are shown with a "relevant" tick column instead of coloured rows.
STYLED_ROWS = 200

# background and text colour together: legible under the light and the dark theme
RELEVANT_ROW = highlight_css(RELEVANT_BACKGROUND)
OTHER, NOT_RETRIEVED = "rank in other", "not retrieved"   # Compare's column, and its empty cell


def ranked_list_style(table: pd.DataFrame):
    """A Styler of a ranked list (from :func:`metrics.inspect.query_table`) with the grade of an
    unjudged item shown as 'unjudged' and the rows with χ = 1 in green."""
    shown = table.assign(grade=_grades(table))
    numbers = {c: "{:.4g}" for c in ["score"] if c in shown}
    numbers |= {c: "{:.3f}" for c in ["P(r)", "R(r)", "F(r)"] if c in shown}
    styler = shown.style.apply(
        lambda row: [RELEVANT_ROW if row["χ"] == 1 else "" for _ in row], axis=1
    ).format(numbers, na_rep="")
    if OTHER in shown:
        styler = styler.format(na_rep=NOT_RETRIEVED, subset=[OTHER])
    return styler


def show_ranked_list(table: pd.DataFrame, height: int) -> None:
    if len(table) <= STYLED_ROWS:
        st.dataframe(ranked_list_style(table), hide_index=True, width="stretch", height=height)
        return
    shown = plain_ranked_list(table)
    config = {"relevant": st.column_config.CheckboxColumn("relevant", width="small"),
              **{c: st.column_config.NumberColumn(format="%.3f")
                 for c in ["P(r)", "R(r)", "F(r)"] if c in shown}}
    st.dataframe(shown, column_config=config, hide_index=True, width="stretch", height=height)


def plain_ranked_list(table: pd.DataFrame) -> pd.DataFrame:
    """A long ranked list as shown without a Styler: a 'relevant' tick column instead of coloured
    rows, grades and the other system's ranks spelled out."""
    shown = table.assign(grade=_grades(table), relevant=table["χ"].astype(bool))
    if OTHER in shown:
        shown[OTHER] = [NOT_RETRIEVED if pd.isna(r) else str(int(r)) for r in shown[OTHER]]
    return shown


def number_columns(names) -> dict:
    """Four decimals for measure columns, without the cost of a Styler."""
    return {name: st.column_config.NumberColumn(format="%.4f") for name in names}


def _grades(table: pd.DataFrame) -> list[str]:
    return ["unjudged" if pd.isna(g) else str(int(g)) for g in table["grade"]]


def csv_bytes(frame: pd.DataFrame, provenance: dict | None = None, index: bool = False) -> bytes:
    """A table as a CSV download, led by the provenance record as '# key: value' lines (our
    loaders, and pandas with ``comment="#"``, skip them)."""
    text = frame.to_csv(index=index)
    if provenance is not None:
        text = comment_lines(provenance) + "\n" + text
    return text.encode()
