"""Music Retrieval Evaluation — the dashboard frame: navigation and the shared sidebar."""

import streamlit as st

from dashboard.frame import app_pages, mark_frame
from dashboard.state import sidebar

st.set_page_config(page_title="Music Retrieval Evaluation", page_icon=":material/library_music:",
                   layout="wide")

navigation = st.navigation(app_pages())
sidebar()
mark_frame()
navigation.run()
