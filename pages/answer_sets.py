"""Answer sets: Serrà's Table 2 reproduced beside the paper, and which measure agrees with the
order we value."""

from functools import partial

import pandas as pd
import streamlit as st

from charts import lift_curves_figure, pr_curves_figure
from charts.colours import DIFFERS_BACKGROUND, highlight_css
from dashboard.chart_in_place import show_chart
from dashboard.frame import end_page, page_setup
from dashboard.provenance_records import answer_sets_provenance
from dashboard.safe import md
from dashboard.tables import download_csv
from dashboard.widgets import fit_precision_toggle
from metrics.evaluation.cells import LARGEST_EXACT_INTEGER, fixed
from metrics import InputError
from metrics.explain.answer_sets import (ANSWER_SET_LENGTH, COLLECTION_SIZE, ERRATA,
                                         LONGEST_LIST, TABLE2_MEASURES,
                                         judged_answer_sets, parse_positions, read_answer_sets,
                                         table2)
from metrics.evaluation.curves import (lift_curve, mean_interpolated_precision, mean_lift,
                                       rank_curves)
from metrics.measures.names import parse_measure
from metrics.explain.samples import SAMPLE_DIR
from metrics.evaluation.stats import order_agreement

COUNT_ROWS = ("TP", "FP", "FN", "TN")   # rows shown as whole numbers
MEAN_OF = "answer sets"   # the curves' legend: "mean: answer sets", not "mean: mean"

page_setup()

st.title("Answer sets")
st.markdown(
    "Serrà (2007) ranks six answer sets of a cover-song system from most to least valuable and "
    "asks which evaluation measure orders them the same way. Each answer set lists |A| items; "
    "*relevant positions* are the ranks of the covers it found, *R_q* the covers in the whole "
    "collection. Edit them or add your own rows.")


@st.cache_data
def paper_sets() -> pd.DataFrame:
    frame = pd.read_csv(SAMPLE_DIR / "serra" / "answer_sets.csv", dtype=str,
                        keep_default_na=False)
    frame["num_relevant"] = frame["num_relevant"].astype(int)
    return frame


@st.cache_data
def paper_table() -> pd.DataFrame:
    return pd.read_csv(SAMPLE_DIR / "serra" / "table2.csv", index_col="measure")


left, right = st.columns([3, 1])
with left:
    edited = st.data_editor(
        paper_sets(), num_rows="dynamic", key="answer_sets_editor", hide_index=True,
        column_config={
            "answer_set": st.column_config.TextColumn("answer set", required=True),
            "relevant_positions": st.column_config.TextColumn(
                "relevant positions", help="ranks of the relevant items, e.g. 1 2 3 5"),
            "num_relevant": st.column_config.NumberColumn(
                "R_q", min_value=0, max_value=LARGEST_EXACT_INTEGER, step=1, required=True,
                help="relevant items in the whole collection, retrieved or not")})
with right:
    length = st.number_input("|A| (answer list length)", 1, LONGEST_LIST, ANSWER_SET_LENGTH,
                             key="answer_length")
    size = st.number_input("|D| (collection size)", 1, LARGEST_EXACT_INTEGER, COLLECTION_SIZE,
                           key="answer_collection_size")

try:   # every row as typed: none dropped, no number rounded
    positions, relevant = read_answer_sets(edited["answer_set"].tolist(),
                                           edited["relevant_positions"].tolist(),
                                           edited["num_relevant"].tolist(), length, size)
    judged = judged_answer_sets(positions, relevant, int(length), int(size))
except InputError as exc:
    st.error(f"Answer sets: {md(exc)}. Nothing is computed until the table adds up.")
    end_page()
names = list(positions)

computed = table2(judged)
paper = paper_table()
as_printed = (int(length) == ANSWER_SET_LENGTH and int(size) == COLLECTION_SIZE)
original = paper_sets().set_index("answer_set")

st.subheader("Table 2: computed beside the paper")
printed = pd.DataFrame(index=computed.index)      # the paper's columns of unchanged answer sets
differs = pd.DataFrame(False, index=computed.index, columns=[])
digits = {row: 0 if row in COUNT_ROWS else 1 if row == "Break-even point" else 3
          for row in computed.index}
for name in computed.columns:
    unchanged = (as_printed and name in original.index and name in paper.columns
                 and positions[name] == parse_positions(original.loc[name, "relevant_positions"],
                                                        ANSWER_SET_LENGTH)
                 and relevant[name] == int(original.loc[name, "num_relevant"]))
    if unchanged:
        printed[name] = paper[name]
        differs[name] = [round(computed.loc[row, name], digits[row]) != paper.loc[row, name]
                         for row in computed.index]


def styled(frame: pd.DataFrame):
    """Counts as whole numbers, the rest to three decimals; cells that differ highlighted."""
    styles = pd.DataFrame("", index=frame.index, columns=frame.columns)
    for name in differs.columns:
        if name in styles.columns:
            styles.loc[differs[name], name] = highlight_css(DIFFERS_BACKGROUND)
    counts = [row for row in frame.index if row in COUNT_ROWS]
    return (frame.style.apply(lambda _: styles, axis=None)
            .format(partial(fixed, digits=3), na_rep="—")
            .format("{:.0f}", subset=pd.IndexSlice[counts, :], na_rep="—"))


# two narrow tables (the answer sets as columns, as in the paper) rather than one of twelve
# columns: side by side where both fit, one above the other on a projector
columns = {"_index": st.column_config.Column(width=118),
           **{name: st.column_config.NumberColumn(name, width=56) for name in computed.columns}}
tables = st.grid(2 if len(printed.columns) else 1, min_column_width=440)
with tables.cell():
    st.markdown("**Computed** with our measures")
    st.dataframe(styled(computed), column_config=columns, width="stretch", height=670,
                 placeholder="—")
if len(printed.columns):
    with tables.cell():
        st.markdown("**As printed** in Serrà (2007)")
        st.dataframe(styled(printed), column_config=columns, width="stretch", height=670,
                     placeholder="—")
both = computed.join(printed.add_suffix(" (paper)"))
both.insert(0, "our measure", [TABLE2_MEASURES[row] for row in both.index])
provenance = answer_sets_provenance(edited, int(length), int(size))
download_csv("Download CSV", both, provenance, "table2.csv", index=True)
st.caption("Red cells: the computed value, rounded to the paper's precision, differs from the "
           "printed one. Each row is computed with: " + "; ".join(
               f"{row} = {m}" for row, m in TABLE2_MEASURES.items()) + ".")
shown = [(row, a, why) for (row, a), why in ERRATA.items() if a in differs.columns]
if shown:
    with st.expander(f"Why {len(shown)} cells differ from the paper (errata)", expanded=True):
        for row, a, why in shown:
            st.markdown(f"- **{row}, {a}**: {why}")

st.subheader("Which measure agrees with what we value?")
# keyed on the answer sets: adding, removing or renaming one starts again from the table's order
order_text = st.text_input("Your preferred order, best first", ", ".join(names),
                           key="preferred_order:" + "\n".join(sorted(names)))
preferred = [x.strip() for x in order_text.replace(";", ",").split(",") if x.strip()]
if sorted(preferred) != sorted(names):
    st.error("List every answer set exactly once, e.g. " + md(", ".join(names)))
else:
    higher = {row: parse_measure(m).definition.higher_is_better
              for row, m in TABLE2_MEASURES.items()}
    agreement = order_agreement({row: computed.loc[row].to_numpy() for row in computed.index},
                                preferred, list(computed.columns), higher)
    frame = pd.DataFrame([{"measure": a.measure, "Kendall τ": a.tau, "p": a.p,
                           "pairs it cannot tell apart": a.tied_pairs} for a in agreement])
    st.dataframe(frame.style.format({"Kendall τ": partial(fixed, digits=3), "p": "{:.3g}"},
                                    na_rep="—"),
                 hide_index=True, width="stretch", placeholder="—")
    download_csv("Download CSV", frame, provenance | {"preferred_order": preferred},
                 "agreement.csv", key="download_agreement")
    st.caption("Kendall's τ-b (scipy.stats.kendalltau) between your order and each measure's "
               "order of the answer sets; 1 = the same order. Ties in a measure lower τ-b.")

st.subheader("Curves of the answer sets")
fit = fit_precision_toggle("answer_pr_fit")   # a poor answer set's precision lies flat
curve_grid = st.grid(2, min_column_width=300)
with curve_grid.cell():
    lines = {n: lift_curve(judged, i) for i, n in enumerate(judged.query_ids)}
    show_chart(lift_curves_figure(lines, mean={MEAN_OF: mean_lift(judged)},
                                  title="Normalised lift curves"), key="answer_sets_lift")
with curve_grid.cell():
    pr = {n: (rank_curves(judged, i).recall, rank_curves(judged, i).precision)
          for i, n in enumerate(judged.query_ids)}
    show_chart(pr_curves_figure(pr, mean={MEAN_OF: mean_interpolated_precision(judged)},
                                title="PR curves", fit=fit), key="answer_sets_pr")
