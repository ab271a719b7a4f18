"""The floor of the dashboard-browser workload: the least a click can cost in Streamlit.

One fragment with the Query explorer's two fastest controls and nothing else: a Query box of
1,000 labelled options and a Cutoff K number box, and a line of text that shows both. The
benchmark times a query switch and a K change here exactly as it times them in the Query
explorer (benchmarks/bench_browser.py, run by run_benchmarks.py --only dashboard-browser): the
difference is what our page adds, the rest is Streamlit's own round trip on this machine and
browser."""

import streamlit as st

QUERIES = [f"q{i:04d}" for i in range(1000)]


@st.fragment
def controls() -> None:
    query = st.selectbox("Query", QUERIES, format_func=lambda q: f"{q}  (AP = 0.5000)")
    k = st.number_input("Cutoff K", min_value=1, max_value=1000, value=10)
    st.markdown(f"Shown: {query} at K = {k}.")


controls()
