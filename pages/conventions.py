"""Conventions: the current dataset under every benchmark protocol and every tie policy, beside
our standard measures, each difference explained in one line."""

import streamlit as st

from dashboard.computed import conventions_tables
from dashboard.datasets import rankings
from dashboard.frame import page_setup
from dashboard.provenance_records import provenance_record
from dashboard.safe import md
from dashboard.settings import KEEP, measure_list, tie_policy
from dashboard.tables import download_csv, printed_text
from metrics.data.ties import TiePolicy
from metrics.evaluation.protocols import PROTOCOLS

# the column naming each row, kept in view: at 1024 × 768 a table of seven tie policies scrolls
# sideways (as the Data page's means do), and a number without its row's name teaches nothing
PINNED = st.column_config.TextColumn(pinned=True)

page_setup()

st.title("Conventions")
st.caption("Why paper A's MAP@10 is not paper B's: the same rankings through each benchmark's "
           "reference code (`python -m metrics protocols`) and under each tie policy. Protocols "
           "count grade ≥ 1 as relevant, as their code does; our measures follow the sidebar.")
data, measures = rankings(), measure_list()
tables = conventions_tables(measures) if data is not None and measures else None
if tables is not None:
    protocols, ours, unavailable = tables
    systems = list(protocols)
    system = (st.selectbox("System", systems, key="conventions_system", **KEEP) if len(systems) > 1
              else systems[0])
    policies = [c for c in ours[system].columns if c not in ("measure", "changes with ties")]
    current = tie_policy()

    st.subheader("Benchmark protocols beside our measures")
    st.markdown(f"Each number as its benchmark's code prints it, under every tie policy; then "
                f"the measure of ours its name suggests (tie policy **{md(current)}**), and below "
                f"the table why the two differ.")
    grid = protocols[system]
    for tab, (name, rows) in zip(st.tabs(list(PROTOCOLS)), grid.groupby("protocol", sort=False)):
        with tab:
            st.caption(f"{md(PROTOCOLS[name].title)} — {md(PROTOCOLS[name].conventions)}. "
                       f"Source: {md(PROTOCOLS[name].source)}")
            shown, numbers = printed_text(rows.drop(columns=["protocol", "why they differ"]),
                                          [*policies, "ours"])
            st.dataframe(shown, hide_index=True, column_config=numbers | {"printed as": PINNED},
                         width="stretch", placeholder="")
            st.markdown("\n".join(f"- **{md(r['printed as'])}** — {md(r['why they differ'])}"
                                   for _, r in rows.iterrows()))
    download_csv("Download CSV", grid, provenance_record(measures), f"{system}_protocols.csv",
                 key="download_protocols")

    st.subheader("Tie policies")
    # a missing value is drawn as an empty cell, as the caption below says
    shown, numbers = printed_text(ours[system], policies)
    st.dataframe(shown, column_config=numbers | {"measure": PINNED}, hide_index=True,
                 width="stretch", placeholder="")
    download_csv("Download CSV", ours[system], provenance_record(measures),
                 f"{system}_tie_policies.csv", key="download_tie_policies")
    st.markdown("\n".join(f"- **{md(p)}** — {md(TiePolicy(p).description)}" for p in policies))
    if "expected" in policies and ours[system]["expected"].isna().any():
        st.caption("An empty cell under *expected*: that measure has no exact mean over the "
                   "orderings of tied items (`python -m metrics measures` says which do); the "
                   "optimistic and pessimistic columns give the range ties can move it. The "
                   "same holds for a protocol's numbers that are medians.")
    for policy, reason in unavailable.items():
        st.warning(f"Tie policy **{md(policy)}** cannot rank this data: {md(reason)}")
