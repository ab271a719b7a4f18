"""Streamlit glue shared by the pages: session state and cached loading/evaluation.

Kept apart from ``metrics/`` (which never imports Streamlit) and from ``pages/`` (which Streamlit
runs as scripts, so they cannot import each other)."""
