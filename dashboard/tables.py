"""How ranked lists are shown: unjudged grades spelled out, relevant rows highlighted."""

from __future__ import annotations

from functools import partial

import numpy as np
import pandas as pd
from pandas.api.types import is_numeric_dtype
import streamlit as st

from charts.colours import CURRENT_BACKGROUND, RELEVANT_BACKGROUND, highlight_css
from metrics.evaluation.cells import DECIMALS, as_printed, fixed, printed, spreadsheet_text
from metrics.evaluation.provenance import comment_lines

# A pandas Styler renders every cell in Python (about half a second for 1,000 rows), so lists
# longer than this are shown with a "relevant" tick column instead of coloured rows.
STYLED_ROWS = 200

# background and text colour together: legible under the light and the dark theme
RELEVANT_ROW = highlight_css(RELEVANT_BACKGROUND)
CURRENT_ROW = highlight_css(CURRENT_BACKGROUND)
IN_TOP_K = "in top K"   # the column marking the rows within the cutoff
OTHER, NOT_RETRIEVED = "rank in other", "not retrieved"   # Compare's column, and its empty cell


def with_cutoff(table: pd.DataFrame, cutoff: int) -> pd.DataFrame:
    """The table with a column marking the ranks within the cutoff K (✓)."""
    marks = ["✓" if r <= cutoff else "" for r in table["rank"]]
    return table.assign(**{IN_TOP_K: marks})


def ranked_list_style(table: pd.DataFrame, current: int | None = None):
    """A Styler of a ranked list (from :func:`metrics.explain.summaries.query_table`) with the
    grade of an unjudged item shown as 'unjudged', the other system's ranks spelled out, the rows
    with χ = 1 in green and the row at rank ``current`` (the teaching mode's r) in amber."""
    shown = _spelled_out(table)
    numbers = {c: "{:.4g}" for c in ["score"] if c in shown}
    numbers |= {c: partial(fixed, digits=3) for c in ["P(r)", "R(r)", "F(r)"] if c in shown}

    def colour(frame: pd.DataFrame) -> pd.DataFrame:   # every cell at once, not row by row
        css = np.where(frame["rank"].to_numpy() == current, CURRENT_ROW,
                       np.where(frame["χ"].to_numpy() == 1, RELEVANT_ROW, ""))
        return pd.DataFrame(np.repeat(css[:, None], frame.shape[1], axis=1),
                            index=frame.index, columns=frame.columns)

    return shown.style.apply(colour, axis=None).format(numbers, na_rep="")


# What an empty cell of a ranked list shows: R(r) and F(r) where R_q = 0 are undefined. The
# grid draws a missing value as this whatever a Styler's na_rep says, so every missing value
# that means something else is spelled out in the data (_spelled_out).
UNDEFINED_CELL = ""


# the grade column wide enough for "unjudged": the grid sizes a column to the rows it measures
# first, and cut a later "unjudged" to "unjudge…" when those were grades
GRADE_COLUMN = {"grade": st.column_config.TextColumn("grade", width=90)}


def show_ranked_list(table: pd.DataFrame, height: int, current: int | None = None,
                     column_config: dict | None = None) -> None:
    """A ranked list (styled up to :data:`STYLED_ROWS` rows, else plain); ``column_config``
    overrides the columns' own (widths, a column hidden by None)."""
    if len(table) <= STYLED_ROWS:
        st.dataframe(ranked_list_style(table, current), hide_index=True, width="stretch",
                     height=height, placeholder=UNDEFINED_CELL,
                     column_config=GRADE_COLUMN | (column_config or {}))
        return
    shown, numbers = printed_numbers(plain_ranked_list(table), ["P(r)", "R(r)", "F(r)"], 3)
    config = {"relevant": st.column_config.CheckboxColumn("relevant", width="small"),
              **GRADE_COLUMN, **numbers, **(column_config or {})}
    st.dataframe(shown, column_config=config, hide_index=True, width="stretch", height=height,
                 placeholder=UNDEFINED_CELL)


def plain_ranked_list(table: pd.DataFrame) -> pd.DataFrame:
    """A long ranked list as shown without a Styler: a 'relevant' tick column instead of coloured
    rows, grades and the other system's ranks spelled out."""
    return _spelled_out(table).assign(relevant=table["χ"].astype(bool))


def _spelled_out(table: pd.DataFrame) -> pd.DataFrame:
    """The grades (an unjudged item's as 'unjudged') and the other system's ranks ('not
    retrieved' where it has none) as text."""
    shown = table.assign(grade=_grades(table))
    if OTHER in shown:
        shown[OTHER] = spelled_ranks(shown[OTHER])
    return shown


def spelled_ranks(ranks, thousands: bool = False) -> list[str]:
    """Another system's ranks as text: 'not retrieved' where it has none, digits grouped by
    thousands if asked."""
    digits = "{:,}" if thousands else "{}"
    return [NOT_RETRIEVED if pd.isna(r) else digits.format(int(r)) for r in ranks]


def printed_numbers(frame: pd.DataFrame, names, digits: int = DECIMALS
                    ) -> tuple[pd.DataFrame, dict]:
    """``frame`` for ``st.dataframe`` with the columns ``names`` shown to ``digits`` decimals as
    the command line prints them, without the cost of a Styler: (the frame with those values
    replaced by the doubles their printed decimals denote, their column config). The grid
    formats numbers in the browser, whose rounding differs from printf's on ties (0.65625:
    0.6563 there, 0.6562 in trec_eval); given the printed value, it shows the same digits
    (:func:`metrics.evaluation.cells.as_printed`). Downloads take the frame as computed."""
    present = [name for name in names if name in frame.columns]
    shown = frame.assign(**{name: as_printed(frame[name], digits) for name in present})
    return shown, {name: st.column_config.NumberColumn(format=f"%.{digits}f")
                   for name in present}


def printed_text(frame: pd.DataFrame, names) -> tuple[pd.DataFrame, dict]:
    """``frame`` for ``st.dataframe`` with the columns ``names`` written as the command line
    writes them (:func:`metrics.evaluation.cells.printed`: a count as an integer, a fraction to
    four decimals), for a table whose columns mix counts and fractions (a grid column has one
    format): (the frame with those cells as text, undefined ones empty, their column config,
    right-aligned as numbers are)."""
    present = [name for name in names if name in frame.columns]
    shown = frame.assign(**{name: [None if pd.isna(v) else printed(v) for v in frame[name]]
                            for name in present})
    return shown, {name: st.column_config.TextColumn(alignment="right") for name in present}


def _grades(table: pd.DataFrame) -> list[str]:
    return ["unjudged" if pd.isna(g) else str(int(g)) for g in table["grade"]]


def csv_bytes(frame: pd.DataFrame, provenance: dict | None = None, index: bool = False) -> bytes:
    """A table as a CSV download, led by the provenance record as '# key: value' lines (our
    loaders, and pandas with ``comment="#"``, skip them). Every download is written here: its
    text cells (ids, names, the header) are made safe to open in a spreadsheet
    (:func:`~metrics.evaluation.cells.spreadsheet_text`), its numbers written as they are."""
    text = _spreadsheet_safe(frame).to_csv(index=index)
    if provenance is not None:
        text = comment_lines(provenance) + "\n" + text
    return text.encode()


def _spreadsheet_safe(frame: pd.DataFrame) -> pd.DataFrame:
    """``frame`` with :func:`spreadsheet_text` applied to its header, its index and every cell
    of its text columns (numbers left alone: they are never formulas)."""
    def safe(values):
        return values.map(spreadsheet_text)

    text_columns = [c for c in frame.columns if not is_numeric_dtype(frame[c].dtype)]
    out = frame.copy()   # shallow enough: only the text columns are replaced
    for column in text_columns:
        out[column] = safe(frame[column])
    out.index = safe(frame.index) if not is_numeric_dtype(frame.index.dtype) else frame.index
    out.columns = safe(frame.columns)
    return out


def download_csv(label: str, frame: pd.DataFrame, provenance: dict, file_name: str,
                 key: str | None = None, index: bool = False) -> None:
    """A download button for a table as CSV (:func:`csv_bytes`), made when it is clicked: on a
    page that reruns on every click, writing a 1,000-row CSV nobody asked for cost a tenth of
    a second each time.

    A click does not rerun the app (``on_click="ignore"``): the file made for a click is held by
    no session until the browser has fetched it, and the end of any script run deletes such
    files. With a rerun per click, a second download clicked before the first arrived lost its
    file to the first click's rerun (one came back "canceled", one never arrived); and the
    rerun redrew a page whose settings had not changed."""
    download_file(label, lambda: csv_bytes(frame, provenance, index), file_name, "text/csv",
                  key=key)


def download_file(label: str, make, file_name: str, mime: str, key: str | None = None,
                  **kwargs) -> None:
    """A download button whose file ``make()`` writes when it is clicked, without a rerun (see
    :func:`download_csv`, the one CSV writer; the judging panel's qrels are TREC text)."""
    st.download_button(label, make, file_name, mime, key=key, on_click="ignore", **kwargs)


PAGE_SIZES = [50, 100, 200]   # at most STYLED_ROWS: every page has its relevant rows coloured
# The first page shown is the smallest: the grid shows about a dozen rows at a time whatever the
# page, while the Styler's cost on the server (it renders every cell: 24 ms for 50 rows, 37 ms
# for 100 on the benchmark's machine) and the data the browser decodes grow with the page's rows,
# on every query switch and change of K (BENCHMARKS.md)
DEFAULT_PAGE_SIZE = PAGE_SIZES[0]
PAGE_CONTROL_WIDTH = 160      # pixels, the rows per page box and the page number's


def page_of_ranks(length: int, key: str) -> tuple[int, int]:
    """Rows per page and page number for a ranked list longer than a page; returns the page's
    0-based (first, stop) positions. Only that page is built as a table, so a list of a million
    items costs what a list of a hundred does."""
    size_key, number_key = f"{key}_page_size", f"{key}_page"
    st.session_state.setdefault(size_key, DEFAULT_PAGE_SIZE)
    if length <= min(PAGE_SIZES):
        return 0, length
    # one row: a rerun sends it as one block, where columns are four the browser lays out again
    row = st.container(horizontal=True, vertical_alignment="bottom")
    size = row.selectbox("Rows per page", PAGE_SIZES, key=size_key, width=PAGE_CONTROL_WIDTH)
    pages = -(-length // size)
    st.session_state[number_key] = min(max(int(st.session_state.get(number_key, 1)), 1), pages)
    number = row.number_input("Page", min_value=1, max_value=pages, step=1, key=number_key,
                              width=PAGE_CONTROL_WIDTH)
    first = (int(number) - 1) * size
    stop = min(first + size, length)
    row.caption(f"page {int(number):,} of {pages:,}: ranks {first + 1:,}–{stop:,} of {length:,}")
    return first, stop
