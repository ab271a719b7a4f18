"""Music Retrieval Evaluation — the dashboard frame: navigation and the shared sidebar."""

import streamlit as st

from dashboard.frame import PAGES, app_pages, mark_frame
from dashboard.state import sidebar

st.set_page_config(page_title="Music Retrieval Evaluation", page_icon=":material/library_music:",
                   layout="wide")

navigation = st.navigation(app_pages())
sidebar(navigation.url_path or PAGES[0][3])
mark_frame()
navigation.run()
