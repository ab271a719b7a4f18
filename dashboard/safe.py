"""User text (ids, file names, messages quoting them) shown through Streamlit's Markdown.

Streamlit never renders raw HTML without ``unsafe_allow_html`` (which this app never uses), but
Markdown itself would still turn ``[x](url)`` into a link, ``![x](url)`` into an image request
and ``**x**`` into bold. Escaping every Markdown character shows such text literally."""

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:])")


def md(text: object) -> str:
    """``text`` with every Markdown (and HTML-significant) character backslash-escaped."""
    return _SPECIAL.sub(r"\\\1", str(text))
