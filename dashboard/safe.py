"""User text (ids, file names, titles, query texts, messages quoting them) shown through
Streamlit's Markdown.

Streamlit never renders raw HTML without ``unsafe_allow_html`` (which this app never uses), but
Markdown itself would still turn ``[x](url)`` into a link, ``![x](url)`` into an image request
and ``**x**`` into bold. Escaping every Markdown character shows such text literally.

Escaping is not enough for GitHub's *autolinks*: Streamlit's renderer (react-markdown with
remark-gfm) links ``http://…``, ``https://…``, ``www.…`` and ``name@host.tld`` (so
``mailto:…``) by searching the text *after* the escapes are read, so ``https\\:\\/\\/x\\.org`` is
still a link. A WORD JOINER (U+2060, invisible, no line break) is put where each of those
patterns must be unbroken: between ``:`` and ``//``, between ``www`` and ``.``, and after an
``@`` that a domain follows (``a@b.c``; not ``P@10``). The text reads the same to a person, and
no link is made from it."""

import re

_SPECIAL = re.compile(r"([\\`*_{}\[\]()#+\-.!|<>~$&:])")
WORD_JOINER = "\u2060"
# mdast-util-gfm-autolink-literal's patterns, /(https?:\/\/|www(?=\.))…/ and /…@([-\w]+…)/, each
# need one of these places unbroken
_AUTOLINK_JOINTS = re.compile(r"(?<=:)(?=//)|(?<=[wW]{3})(?=\.)|(?<=@)(?=[-\w]+\.[-\w])")


def md(text: object) -> str:
    """``text`` with every Markdown (and HTML-significant) character backslash-escaped, and no
    URL or e-mail address that the renderer would make a link."""
    return _SPECIAL.sub(r"\\\1", _AUTOLINK_JOINTS.sub(WORD_JOINER, str(text)))
