"""Overview: the aggregate measures of every system of the chosen dataset."""

import streamlit as st

from dashboard.state import cached_aggregate, cached_sample, measures_or_error
from metrics import InputError

st.title("Music Retrieval Evaluation")
key, ties = st.session_state["sample"], st.session_state["ties"]
measures = measures_or_error()
if measures:
    try:
        table = cached_aggregate(key, ties, measures)
    except InputError as exc:
        st.error(str(exc))
    else:
        st.subheader("Mean over queries")
        st.dataframe(table.reset_index(names="system").style.format(precision=4)
                     .format("{:d}", subset=["queries"]), hide_index=True)
        st.download_button("Download CSV", table.to_csv().encode(), f"{key}_aggregate.csv",
                           "text/csv")
        warnings = sorted({w for j in cached_sample(key, ties).values() for w in j.warnings})
        for warning in warnings:
            st.warning(warning)
