"""Music Retrieval Evaluation — the dashboard frame: navigation and the shared sidebar."""

import streamlit as st

from dashboard.state import sidebar

st.set_page_config(page_title="Music Retrieval Evaluation", page_icon=":material/library_music:", layout="wide")

sidebar()
navigation = st.navigation([
    st.Page("pages/data.py", title="Data", icon=":material/folder_open:", default=True),
    st.Page("pages/explorer.py", title="Query explorer", icon=":material/manage_search:",
            url_path="explorer"),
    st.Page("pages/curves.py", title="Curves", icon=":material/show_chart:", url_path="curves"),
    st.Page("pages/answer_sets.py", title="Answer sets", icon=":material/table_chart:",
            url_path="answer-sets"),
    st.Page("pages/compare.py", title="Compare systems", icon=":material/compare_arrows:",
            url_path="compare"),
])
navigation.run()
