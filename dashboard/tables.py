"""How ranked lists are shown: unjudged grades spelled out, relevant rows highlighted."""

from __future__ import annotations

import pandas as pd

RELEVANT_ROW = "background-color: #d9f2d9"


def ranked_list_style(table: pd.DataFrame):
    """A Styler of a ranked list (from :func:`metrics.inspect.query_table`) with the grade of an
    unjudged item shown as 'unjudged' and the rows with χ = 1 in green."""
    shown = table.assign(grade=["unjudged" if pd.isna(g) else str(int(g))
                                for g in table["grade"]])
    numbers = {c: "{:.4g}" for c in ["score"] if c in shown}
    numbers |= {c: "{:.3f}" for c in ["P(r)", "R(r)", "F(r)"] if c in shown}
    return shown.style.apply(
        lambda row: [RELEVANT_ROW if row["χ"] == 1 else "" for _ in row], axis=1
    ).format(numbers, na_rep="")
