"""The media folder's clips, served to the listener's browser from the file on disk, by ranges.

``st.audio`` given a file's path reads the whole file into the server's memory on every rerun
(a 2 GB clip took a server from 216 MB to 4.3 GB, 4–7 s a rerun). A player is instead handed an
address on the app's own server, ``/app/static/media/folder/<path>`` (the folder named at start-up)
or ``/app/static/media/sample/<sample>/<path>`` (a bundled sample's), and nothing of the clip is
read while a page runs. The browser asks for the clip by HTTP ranges (``Range: bytes=N-M``, as it
does to play and to seek); :func:`media_routes` answers from the file, 64 KiB at a time
(Starlette's ``FileResponse``), so the server's memory does not grow with the clip's size, and no
size bound is needed: a file of any size is played, with the server holding at most a block per
request in flight.

Every request is checked again, as the page's player was: the path goes through
:func:`dashboard.media.resolve` (no absolute path, no ``..``, no symlink out of the folder, an
audio file by its suffix), and a sample's name must be a bundled sample's. Anything refused is a
404 that says nothing of what is on the disk.

Why under ``/app/static/``: ``st.audio`` passes through, unread, only ``http(s)`` URLs and the
relative addresses of Streamlit's static serving (``/app/static/…``), which the browser's player
resolves against the app's own address (a ``server.baseUrlPath`` included). The routes are
installed by ``app.py``'s ``st.App`` (Streamlit's server with routes of the app's own); they come
before Streamlit's, so with ``server.enableStaticServing`` on, ``./static/media/`` is not served.
"""

from __future__ import annotations

from pathlib import Path
from urllib.parse import quote

from starlette.requests import Request
from starlette.responses import FileResponse, PlainTextResponse, Response
from starlette.routing import Route

from dashboard.media import Clip, folder_for, resolve
from metrics.errors import InputError
from metrics.explain.samples import SAMPLES

MEDIA_ROUTE = "/app/static/media"
_FOLDER, _SAMPLE = "folder", "sample"


def media_url(clip: Clip, sample: str | None) -> str:
    """The address, on the app's own server, of a file ``clip`` resolved in the media folder of
    ``sample`` (the folder named at start-up when None)."""
    root = folder_for(sample).resolve()
    inside = quote(Path(clip.location).relative_to(root).as_posix(), safe="/")
    where = f"{_SAMPLE}/{quote(sample, safe='')}" if sample else _FOLDER
    return f"{MEDIA_ROUTE}/{where}/{inside}"


def media_routes() -> list[Route]:
    """The routes that serve the media folders' clips (GET, and HEAD for players that probe)."""
    return [Route(f"{MEDIA_ROUTE}/{_FOLDER}/{{path:path}}", _serve, methods=["GET", "HEAD"]),
            Route(f"{MEDIA_ROUTE}/{_SAMPLE}/{{sample}}/{{path:path}}", _serve,
                  methods=["GET", "HEAD"])]


def _serve(request: Request) -> Response:
    # a plain function: Starlette runs it in a worker thread, as resolve() asks the disk
    sample = request.path_params.get("sample")
    if sample is not None and sample not in SAMPLES:
        return _not_found()
    try:
        clip = resolve(request.path_params["path"], folder_for(sample), "(a request)")
    except InputError:
        return _not_found()
    if clip is None or clip.is_url:
        return _not_found()
    # FileResponse answers a Range (206, or 416 beyond the end) from the file, in 64 KiB blocks
    return FileResponse(clip.location, media_type=clip.mimetype,
                        headers={"X-Content-Type-Options": "nosniff", "Cache-Control": "no-cache"})


def _not_found() -> Response:
    return PlainTextResponse("Not found", status_code=404)
