"""Where the clips named in an ``audio`` column may come from, and the check that keeps every read
inside that place.

An ``audio`` cell is either an ``http(s)`` URL, handed to the listener's browser as it is (the
server never fetches it), or a path relative to a **media folder**:

* for a bundled sample, the sample's own folder under ``sample_data/`` (part of the app);
* for uploaded data, the folder that whoever starts the server names, with
  ``streamlit run app.py -- --media DIR`` or the environment variable ``MRE_MEDIA_DIR`` (the
  option wins). Without one, paths are refused: an upload never reads the server's disk.

A path is refused, before anything is opened, when it is absolute, has a ``..`` part, names a
missing file, or resolves (through a symlink) to a place outside the folder, or is not an
audio file by its suffix (``.wav``, ``.mp3``, ``.ogg``…); any URL scheme but
``http``/``https`` (``file:``, ``data:``, ``javascript:``…) is refused too. Refusals are
:class:`~metrics.errors.InputError` naming the item and the cell's text.
"""

from __future__ import annotations

import math
import os
import re
from dataclasses import dataclass
from pathlib import Path, PurePosixPath, PureWindowsPath
from urllib.parse import urlparse

from dashboard.settings import started_with
from metrics.errors import InputError
from metrics.explain.samples import SAMPLE_DIR

MEDIA_VARIABLE = "MRE_MEDIA_DIR"
MEDIA_OPTION = "--media"
URL_SCHEMES = ("http", "https")
HOW_TO_NAME_A_FOLDER = (f"start the app with `streamlit run app.py -- {MEDIA_OPTION} DIR` (or set "
                        f"{MEDIA_VARIABLE}=DIR) to play files under DIR")
# What st.audio announces for each kind of file browsers play (not the platform's mimetypes table,
# which differs between systems); any other suffix is refused, so no other file is ever served.
AUDIO_TYPES = {".wav": "audio/wav", ".mp3": "audio/mpeg", ".ogg": "audio/ogg",
               ".oga": "audio/ogg", ".opus": "audio/ogg", ".flac": "audio/flac",
               ".m4a": "audio/mp4", ".aac": "audio/aac", ".webm": "audio/webm"}
_SCHEME = re.compile(r"^([A-Za-z][A-Za-z0-9+.-]*):")


@dataclass(frozen=True)
class Clip:
    """A playable clip: a URL for the browser, or a file checked to lie inside the media folder."""

    location: str          # the URL, or the resolved file's path
    is_url: bool
    mimetype: str          # what st.audio announces for a file ("audio/wav", "audio/mpeg", …)


def configured_folder(argv: list[str] | None = None,
                      environ: dict[str, str] | None = None) -> Path | None:
    """The media folder named at start-up: ``--media DIR`` (or ``--media=DIR``) among the script's
    arguments, else ``MRE_MEDIA_DIR``; None when neither names one."""
    named = started_with(MEDIA_OPTION, MEDIA_VARIABLE, argv, environ)
    return Path(named).expanduser() if named is not None else None


def folder_for(sample: str | None) -> Path | None:
    """The media folder of the current data: a bundled sample's folder, else the configured one."""
    return SAMPLE_DIR / sample if sample else configured_folder()


def resolve(value: object, folder: Path | None, item: str) -> Clip | None:
    """The clip an ``audio`` cell names for ``item``; None for an empty cell; InputError (naming
    the item and the cell) for anything that may not be played."""
    if value is None or (isinstance(value, float) and math.isnan(value)):
        return None
    text = str(value).strip()
    if not text:
        return None
    where = f"item {item!r}, audio {text!r}"
    scheme = _SCHEME.match(text)
    if scheme and len(scheme.group(1)) > 1:            # one letter: a Windows drive, a path
        if scheme.group(1).lower() not in URL_SCHEMES:
            raise InputError(f"{where}: only http and https URLs are played, not "
                             f"{scheme.group(1)!r} ones")
        if not urlparse(text).netloc:
            raise InputError(f"{where}: the URL names no host")
        if os.path.lexists(text):   # st.audio would read a file of that name instead
            raise InputError(f"{where}: a file on the server has this name; refused")
        return Clip(text, True, "")
    if folder is None:
        raise InputError(f"{where}: no media folder is set, so no file is read; "
                         f"{HOW_TO_NAME_A_FOLDER}, or give http(s) URLs")
    if (PurePosixPath(text).is_absolute() or PureWindowsPath(text).is_absolute()
            or PureWindowsPath(text).drive or text.startswith(("/", "\\"))):
        raise InputError(f"{where}: an absolute path is refused; give a path relative to the "
                         f"media folder")
    parts = re.split(r"[\\/]+", text)
    if ".." in parts:
        raise InputError(f"{where}: a path with '..' is refused; give a path inside the media "
                         f"folder")
    if not folder.is_dir():
        raise InputError(f"{where}: the media folder named at start-up ({MEDIA_OPTION} or "
                         f"{MEDIA_VARIABLE}) is not a folder on the server")
    root = folder.resolve()
    try:
        target = (root / Path(*parts)).resolve(strict=True)
    except (OSError, RuntimeError, ValueError):   # missing, a symlink loop, a NUL in the name
        raise InputError(f"{where}: no such file in the media folder") from None
    if not target.is_relative_to(root):
        raise InputError(f"{where}: the path leaves the media folder (through a symlink); "
                         f"refused")
    if not target.is_file():
        raise InputError(f"{where}: not a file")
    mimetype = AUDIO_TYPES.get(target.suffix.lower())
    if mimetype is None:
        raise InputError(f"{where}: not an audio file a browser plays (the name must end in "
                         f"{', '.join(AUDIO_TYPES)})")
    return Clip(str(target), False, mimetype)
