"""Streamlit glue shared by the pages: the settings and the data source (settings), loading the
data (datasets), the cached work on it (computed), the downloads' provenance records
(provenance_records), widgets bound to settings (widgets) and the sidebar (sidebar).

Kept apart from ``metrics/`` (which never imports Streamlit) and from ``pages/`` (which Streamlit
runs as scripts, so they cannot import each other)."""
