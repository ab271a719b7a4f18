"""Music Retrieval Evaluation — the dashboard frame: navigation and the shared sidebar."""

import streamlit as st

from dashboard.state import sidebar

st.set_page_config(page_title="Music Retrieval Evaluation", page_icon="🎼", layout="wide")

navigation = st.navigation([
    st.Page("pages/overview.py", title="Overview", icon="📊", default=True),
])
sidebar()
navigation.run()
