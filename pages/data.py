"""Data: pick a bundled sample or upload runs and ground truth; validation summary and means."""

import pandas as pd
import streamlit as st

from metrics import InputError

from dashboard.computed import aggregate_table, evaluations, intervals, tie_moves_now
from dashboard.datasets import NAME_BOX, rankings, rename_systems, use_upload
from dashboard.frame import page_setup
from dashboard.judging import judgeable, second_truth_slot
from dashboard.metadata import current_metadata, current_metadata_warnings, metadata_of
from dashboard.provenance_records import provenance_record
from dashboard.safe import md
from dashboard.settings import UPLOAD, measure_list, source, source_title, upload_store
from dashboard.tables import download_csv, printed_numbers
from dashboard.uploads import METADATA_UPLOADS, UPLOADS
from metrics.explain.summaries import dataset_summary
from metrics.ranking.inputs import EMBEDDINGS_QRELS, MATRICES_LABELS, RUNS_QRELS
from metrics.evaluation.stats import CI_METHOD, DEFAULT_RESAMPLES, DEFAULT_SEED

page_setup()

st.title("Data")
# The uploaders sit in a form: a file chosen there reaches the server at once but starts no
# rerun, and the form's button (which Streamlit keeps disabled while an upload is in progress)
# hands all of them over in one run. Without the form each upload reran the script, and a file
# chosen in the second uploader while the first one's rerun redrew the page was sometimes
# dropped from the page and from the uploader's value (about one pair in twenty; the file had
# arrived).
st.session_state.setdefault("show_upload", st.session_state["sample"] == UPLOAD)
if st.toggle("Upload your own runs and ground truth", key="show_upload"):
    kind = st.radio("What you have", list(UPLOADS), format_func=lambda k: UPLOADS[k].title,
                    key="upload_kind", horizontal=True)
    with st.form("upload_form"):
        for role in UPLOADS[kind].roles + METADATA_UPLOADS:
            st.file_uploader(role.label, key=f"upload_{kind}_{role.name}",
                             accept_multiple_files=role.many, help=role.help)
        left, right = st.columns(2)
        left.number_input("Collection size |D| (optional: needed for TN, specificity, ROC)",
                          min_value=0, step=1, key="upload_collection_size")
        if kind == RUNS_QRELS:   # in a form nothing reruns on a tick: say which one wins
            # a short label: a checkbox's label is one line, cut with "…" in a narrow column
            left.checkbox("Every item is judged", key="upload_all_judged",
                          help="The ground truth judges every item of each query: |D| of a "
                               "query is its judged items (instead of the number above).")
        if kind == MATRICES_LABELS:
            right.checkbox("Values are distances (smaller is more similar)", key="upload_distance")
        if kind == EMBEDDINGS_QRELS:
            right.selectbox("Similarity", ["cosine", "dot", "euclidean"], key="upload_similarity")
        st.form_submit_button("Evaluate these files", on_click=use_upload, type="primary")
    if "upload_error" in st.session_state:
        st.error(f"Cannot use these files: {md(st.session_state['upload_error'])}")



def show_metadata_tables() -> None:
    """What the item and query tables hold (docs/formats.md), and the ids that match nothing."""
    current_metadata()   # an st.error if a table cannot be read
    try:
        given = metadata_of(source(), upload_store())
    except InputError:
        return
    for what, table in zip(("Item table", "Query table"), given):
        if table is None:
            continue
        columns = ", ".join(map(str, table.columns)) or "none besides the id"
        with st.expander(f"{what}: {len(table):,} row{'s' if len(table) != 1 else ''}, "
                         f"columns {md(columns)}"):
            st.dataframe(table.head(1000).reset_index(), hide_index=True,   # all text
                         width="stretch", height=260, placeholder="")
            if len(table) > 1000:
                st.caption(f"The first 1,000 of {len(table):,} rows.")
    for warning in current_metadata_warnings():
        st.warning(md(warning))


st.subheader(source_title(st.session_state["sample"]))
data = rankings()
measures = measure_list()
if data is not None and st.session_state["sample"] == UPLOAD:
    # the names the files give (the run's tag, else the file name; see docs/dashboard.md),
    # changed here for every page; boxes in a form, so typing reruns nothing
    given_as = {new: old for old, new in st.session_state["upload"].names}
    with st.expander("System names", expanded="names_error" in st.session_state):
        with st.form("names_form"):
            for i, name in enumerate(data):
                st.text_input(f"Name of {md(given_as.get(name, name))}", value=name,
                              key=f"{NAME_BOX}{i}")
            st.form_submit_button("Use these names", on_click=rename_systems)
    if "names_error" in st.session_state:
        st.error(f"Cannot use these names: {md(st.session_state['names_error'])}")
if data is not None:
    summary = pd.DataFrame({system: dataset_summary(j, int(st.session_state["threshold"]))
                            for system, j in data.items()}).astype(str)
    st.markdown("**Validation summary**")
    # a plain table: every row shown and long cells ("no score ties among the judged items")
    # wrapped, where a grid cut them off at 1024 × 768. st.table reads every cell and header
    # as Markdown: the systems' names (the files' names) are shown as written
    st.table(summary.map(md).rename(index=md, columns=md))
    for warning in sorted({w for j in data.values() for w in j.warnings}):
        st.warning(md(warning))
    show_metadata_tables()
    if judgeable():   # a qrels ground truth: another judge's may be compared with it
        second_truth_slot()
if data is not None and measures:
    results = evaluations(measures)
    if results is not None:
        st.markdown("**Mean over queries** (queries without a relevant item are left out)")
        table, fewer = aggregate_table(results)
        shown, numbers = printed_numbers(table, table.columns[2:])   # system, queries, …
        # the systems' names pinned and whole: at 1024 × 768 the measures scroll sideways
        # beside them
        st.dataframe(shown, hide_index=True, width="stretch",
                     placeholder="undefined",   # a measure no query defines
                     column_config=numbers | {"system": st.column_config.TextColumn(
                         width="medium", pinned=True)})
        if fewer:
            st.caption("Measures undefined for some queries average fewer of them: "
                       + md("; ".join(fewer)) + ".")
        warnings_shown = [w for r in results.values() for w in r.warnings]
        download_csv("Download CSV", table, provenance_record(measures, warnings=warnings_shown),
                     "aggregate.csv")
        # built only while open: the bootstrap (and scipy.stats) were most of a fresh
        # server's first page, for a table below the fold (BENCHMARKS.md, first page)
        with st.expander("Each mean with its confidence interval", key="intervals_open",
                         on_change="rerun") as intervals_box:
            if intervals_box.open:
                level = st.select_slider("Confidence level", [0.8, 0.9, 0.95, 0.99],
                                         value=0.95, key="ci_level",
                                         format_func=lambda x: f"{x:.0%}")
                bounds = intervals(measures, level, DEFAULT_SEED)
                if bounds is not None:
                    st.markdown(f"{level:.0%} confidence intervals — {CI_METHOD} bootstrap over "
                                f"queries, {DEFAULT_RESAMPLES:,} resamples, seed {DEFAULT_SEED} "
                                f"(scipy.stats.bootstrap)")
                    shown, numbers = printed_numbers(bounds, ["mean", "CI low", "CI high"])
                    st.dataframe(shown, hide_index=True, width="stretch", column_config=numbers)
                    record = provenance_record(measures, seed=DEFAULT_SEED,
                                               warnings=warnings_shown,
                                               ci={"level": level, "method": CI_METHOD,
                                                   "resamples": DEFAULT_RESAMPLES})
                    download_csv("Download CSV", bounds, record, "intervals.csv",
                                 key="download_intervals")
        for system, r in results.items():
            for warning in r.warnings:
                if warning.startswith("score ties"):
                    st.info(f"**{md(system)}** — {md(warning)}")
        for system, moves in tie_moves_now(measures).items():
            if len(moves):
                with st.expander(f"{md(system)}: how far tied scores can move each query's "
                                 f"measures ({moves['query_id'].nunique()} queries)"):
                    st.caption("Each measure with the tied items in their worst (pessimistic) "
                               "and best (optimistic) order; only values that can move.")
                    shown, numbers = printed_numbers(moves, ["pessimistic", "optimistic"])
                    st.dataframe(shown, column_config=numbers, hide_index=True,
                                 width="stretch", height=260)
