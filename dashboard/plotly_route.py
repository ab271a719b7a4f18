"""The charts' plotly.js (dashboard/plotly_js: the cartesian bundle), served by a route of the app's
own: from memory, compressed once per server, at an address that names its content.

A separate module from :mod:`dashboard.chart_in_place`, which declares a component: ``app.py``
imports this one for its server's routes before Streamlit's runtime exists, and a component
declared then would be lost."""

from __future__ import annotations

import functools
import gzip
import hashlib
from pathlib import Path

import streamlit as st
from starlette.requests import Request
from starlette.responses import Response
from starlette.routing import Route

PLOTLY_FOLDER = Path(__file__).with_name("plotly_js")
PLOTLY_BUNDLE = "plotly-cartesian.min.js"
_BUNDLE_BYTES = (PLOTLY_FOLDER / PLOTLY_BUNDLE).read_bytes()
# the bundle's address names its content: a browser keeps it for good (immutable), and a new
# bundle is a new address
PLOTLY_ROUTE = (f"/app/static/plotly/{hashlib.sha256(_BUNDLE_BYTES).hexdigest()[:16]}/"
                f"{PLOTLY_BUNDLE}")


def plotly_route() -> Route:
    """The route that serves the bundle (app.py's ``st.App`` installs it with the media routes):
    from memory, compressed once (Streamlit's own compression would compress its 1.5 MB again for
    every first page, some 60 ms of the server's time while it computes that page)."""
    return Route(PLOTLY_ROUTE, _serve_bundle, methods=["GET", "HEAD"])


@functools.cache
def compressed_bundle() -> bytes:
    """The bundle, gzip-compressed (once per server; the warm-up asks for it)."""
    return gzip.compress(_BUNDLE_BYTES, compresslevel=9, mtime=0)


def _serve_bundle(request: Request) -> Response:
    headers = {"Cache-Control": "public, max-age=31536000, immutable", "Vary": "Accept-Encoding",
               "X-Content-Type-Options": "nosniff"}
    if "gzip" in request.headers.get("accept-encoding", ""):
        body, headers["Content-Encoding"] = compressed_bundle(), "gzip"
    else:
        body = _BUNDLE_BYTES
    return Response(body, media_type="text/javascript", headers=headers)


def plotly_url() -> str:
    """The bundle's address on the app's server (its ``server.baseUrlPath`` included)."""
    base = st.get_option("server.baseUrlPath").strip("/")
    return (f"/{base}" if base else "") + PLOTLY_ROUTE
