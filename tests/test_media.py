"""Where clips may come from (dashboard/media.py): every refusal, with real files and symlinks;
and how the media folders' clips are served (dashboard/media_route.py): by ranges, from the file,
with every path checked again on each request."""

import asyncio
import os
from pathlib import Path
from urllib.parse import unquote

import pandas as pd
import pytest

from dashboard.media import MEDIA_VARIABLE, configured_folder, folder_for, resolve
from dashboard.media_route import MEDIA_ROUTE, media_routes, media_url
from dashboard.players import excerpt
from metrics.errors import InputError
from metrics.explain.samples import SAMPLE_DIR


@pytest.fixture
def media(tmp_path):
    """A media folder with a clip, a subfolder, and a secret file beside the folder."""
    folder = tmp_path / "media"
    (folder / "sub").mkdir(parents=True)
    (folder / "a.wav").write_bytes(b"RIFF")
    (folder / "sub" / "b.mp3").write_bytes(b"ID3")
    (tmp_path / "secret.wav").write_bytes(b"secret")
    return folder


def refusal(value, folder, item="q1") -> str:
    with pytest.raises(InputError) as caught:
        resolve(value, folder, item)
    message = str(caught.value)
    assert repr(item) in message and repr(str(value).strip()) in message   # names both
    return message


def test_a_relative_path_inside_the_folder_is_played(media):
    clip = resolve("a.wav", media, "q1")
    assert (clip.location, clip.is_url, clip.mimetype) == (str((media / "a.wav").resolve()),
                                                           False, "audio/wav")
    clip = resolve("sub/b.mp3", media, "q1")
    assert clip.location == str((media / "sub" / "b.mp3").resolve())
    assert clip.mimetype == "audio/mpeg"


def test_an_empty_cell_plays_nothing(media):
    assert resolve(None, media, "q1") is None
    assert resolve("  ", media, "q1") is None
    assert resolve(float("nan"), media, "q1") is None


@pytest.mark.parametrize("value", ["http://127.0.0.1:8000/a.wav", "https://example.org/x.ogg"])
def test_http_urls_go_to_the_browser_unread(value, tmp_path):
    clip = resolve(value, None, "q1")   # no media folder needed
    assert (clip.location, clip.is_url) == (value, True)


@pytest.mark.parametrize("value", ["file:///etc/passwd", "javascript:alert(1)",
                                   "data:audio/wav;base64,UklGRg==", "ftp://host/a.wav"])
def test_other_schemes_are_refused(value, media):
    assert "only http and https" in refusal(value, media)


def test_a_url_without_a_host_is_refused(media):
    assert "no host" in refusal("http:/a.wav", media)


def test_a_url_that_is_also_a_file_on_the_server_is_refused(tmp_path, monkeypatch):
    monkeypatch.chdir(tmp_path)
    (tmp_path / "http:" / "host").mkdir(parents=True)
    (tmp_path / "http:" / "host" / "a.wav").write_bytes(b"RIFF")
    assert "file on the server" in refusal("http://host/a.wav", None)


@pytest.mark.parametrize("value", ["/etc/passwd", "\\\\server\\share\\a.wav", "C:\\a.wav",
                                   "C:a.wav"])
def test_absolute_paths_are_refused(value, media):
    assert "absolute path" in refusal(value, media)


@pytest.mark.parametrize("value", ["../secret.wav", "sub/../../secret.wav", "sub/..\\..\\x",
                                   ".."])
def test_dot_dot_is_refused(value, media):
    assert "'..'" in refusal(value, media)


def test_a_symlink_out_of_the_folder_is_refused(media):
    (media / "out.wav").symlink_to(media.parent / "secret.wav")
    (media / "outdir").symlink_to(media.parent, target_is_directory=True)
    assert "leaves the media folder" in refusal("out.wav", media)
    assert "leaves the media folder" in refusal("outdir/secret.wav", media)


def test_a_symlink_inside_the_folder_is_followed(media):
    (media / "alias.wav").symlink_to(media / "a.wav")
    assert resolve("alias.wav", media, "q1").location == str((media / "a.wav").resolve())


def test_a_symlinked_media_folder_is_its_target(media, tmp_path):
    link = tmp_path / "link"
    link.symlink_to(media, target_is_directory=True)
    assert resolve("a.wav", link, "q1").location == str((media / "a.wav").resolve())


def test_missing_files_loops_and_folders_are_refused(media):
    (media / "loop.wav").symlink_to(media / "loop.wav")
    assert "no such file" in refusal("missing.wav", media)
    assert "no such file" in refusal("loop.wav", media)
    assert "not a file" in refusal("sub", media)
    assert "no such file" in refusal("a.wav\x00.txt", media)


def test_a_media_folder_that_is_not_there_is_said(tmp_path):
    assert "not a folder on the server" in refusal("a.wav", tmp_path / "nowhere")


def test_only_audio_files_are_served(media):
    (media / "notes.txt").write_text("x")
    (media / "clip.WAV").write_bytes(b"RIFF")
    assert "not an audio file" in refusal("notes.txt", media)
    assert resolve("clip.WAV", media, "q1").mimetype == "audio/wav"


def test_without_a_media_folder_no_path_is_read(media):
    message = refusal("a.wav", None)
    assert "no media folder" in message and "--media" in message and MEDIA_VARIABLE in message


def test_the_folder_comes_from_the_option_or_the_environment(tmp_path):
    assert configured_folder([], {}) is None
    assert configured_folder([], {MEDIA_VARIABLE: " "}) is None
    assert configured_folder([], {MEDIA_VARIABLE: str(tmp_path)}) == tmp_path
    assert configured_folder(["--media", "/x"], {MEDIA_VARIABLE: str(tmp_path)}) == Path("/x")
    assert configured_folder(["--media=/y"], {}) == Path("/y")


def test_a_bundled_sample_plays_from_its_own_folder():
    assert folder_for("covers") == SAMPLE_DIR / "covers"
    items = pd.read_csv(SAMPLE_DIR / "covers" / "items.csv", dtype=str).set_index("item_id")
    clip = resolve(items.loc["c0001", "audio"], folder_for("covers"), "c0001")
    assert Path(clip.location) == (SAMPLE_DIR / "covers" / "audio" / "c0001.wav").resolve()
    assert os.path.getsize(clip.location) > 1000


def row(**cells):
    return pd.Series(cells, name="it1")


def test_excerpt_bounds():
    assert excerpt(row(audio="a.wav"), "it1") == (0.0, None)
    assert excerpt(row(start=1.5, end="4"), "it1") == (1.5, 4.0)
    assert excerpt(row(start=float("nan"), end=3), "it1") == (0.0, 3.0)
    assert excerpt(row(start=2), "it1") == (2.0, None)


@pytest.mark.parametrize("cells, said", [({"start": "soon"}, "not a number"),
                                         ({"start": -1}, "≥ 0"),
                                         ({"end": float("inf")}, "≥ 0"),
                                         ({"start": 5, "end": 5}, "not after")])
def test_bad_excerpt_bounds_are_named(cells, said):
    with pytest.raises(InputError, match=said) as caught:
        excerpt(row(**cells), "it1")
    assert "'it1'" in str(caught.value)


# ---- the clips served by ranges (dashboard/media_route.py), asked of its routes in-process ------

def served(path: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """The status, headers and body that the media routes answer a GET of ``path`` with (an ASGI
    call of a Starlette app holding only those routes; the real server's test is
    test_server_memory.py)."""
    from starlette.applications import Starlette

    # as a server hands it on: the path percent-decoded, the raw path as the browser wrote it
    scope = {"type": "http", "method": "GET", "path": unquote(path), "raw_path": path.encode(),
             "root_path": "", "query_string": b"", "http_version": "1.1", "scheme": "http",
             "server": ("127.0.0.1", 80), "client": ("127.0.0.1", 1),
             "headers": [(k.lower().encode(), v.encode()) for k, v in headers.items()]}
    sent, asked = [], []

    async def receive():   # the request once, then a client that waits for the answer
        if asked:
            await asyncio.Event().wait()
        asked.append(True)
        return {"type": "http.request", "body": b"", "more_body": False}

    async def send(message):
        sent.append(message)

    asyncio.run(Starlette(routes=media_routes())(scope, receive, send))
    head = {k.decode(): v.decode() for k, v in sent[0]["headers"]}
    return sent[0]["status"], head, b"".join(m.get("body", b"") for m in sent[1:])


@pytest.fixture
def started_with(media, monkeypatch):
    """The media folder named at start-up: ``media`` (a clip of 1,000 bytes a.wav, known)."""
    monkeypatch.setenv(MEDIA_VARIABLE, str(media))
    (media / "a.wav").write_bytes(bytes(range(256)) * 3 + b"RIFF" * 58)
    return media


def test_a_range_is_answered_with_exactly_those_bytes(started_with):
    whole = (started_with / "a.wav").read_bytes()
    status, head, body = served(f"{MEDIA_ROUTE}/folder/a.wav", Range="bytes=100-355")
    assert (status, body) == (206, whole[100:356])
    assert head["content-range"] == "bytes 100-355/1000" and head["content-type"] == "audio/wav"
    status, _, body = served(f"{MEDIA_ROUTE}/folder/a.wav", Range="bytes=990-")
    assert (status, body) == (206, whole[990:])
    status, head, _ = served(f"{MEDIA_ROUTE}/folder/a.wav", Range="bytes=1000-1001")
    assert (status, head["content-range"]) == (416, "bytes */1000")
    status, head, body = served(f"{MEDIA_ROUTE}/folder/a.wav")
    assert (status, body, head["accept-ranges"]) == (200, whole, "bytes")


def test_the_player_is_given_the_address_the_route_serves(started_with):
    # the player's address of a clip resolved in the folder, and of a sample's clip
    clip = resolve("sub/b.mp3", started_with, "q1")
    assert media_url(clip, None) == f"{MEDIA_ROUTE}/folder/sub/b.mp3"
    assert served(media_url(clip, None))[2] == b"ID3"
    (started_with / "a b#?.wav").write_bytes(b"RIFF odd name")
    clip = resolve("a b#?.wav", started_with, "q1")
    assert served(media_url(clip, None))[2] == b"RIFF odd name"
    clip = resolve("audio/c0001.wav", folder_for("covers"), "c0001")
    assert media_url(clip, "covers") == f"{MEDIA_ROUTE}/sample/covers/audio/c0001.wav"
    status, _, body = served(media_url(clip, "covers"))
    assert (status, body) == (200, Path(clip.location).read_bytes())


@pytest.mark.parametrize("path", ["folder/../secret.wav", "folder/sub/../../secret.wav",
                                  "folder//SECRET", "folder/out.wav", "folder/outdir/secret.wav",
                                  "folder/notes.txt", "folder/missing.wav", "folder/sub",
                                  "folder/", "folder/http://127.0.0.1/a.wav",
                                  "sample/../media/a.wav", "sample/nosuch/a.wav",
                                  "sample/covers/../../secret.wav"])
def test_a_path_out_of_the_folder_is_not_served(started_with, path):
    # through '..', absolute, a symlink out, a file that is no audio, a sample that is none: 404,
    # and nothing of the file in the answer
    secret = started_with.parent / "secret.wav"
    (started_with / "out.wav").symlink_to(secret)
    (started_with / "outdir").symlink_to(started_with.parent, target_is_directory=True)
    (started_with / "notes.txt").write_text("notes")
    path = path.replace("SECRET", str(secret).lstrip("/"))
    status, _, body = served(f"{MEDIA_ROUTE}/{path}")
    assert status == 404 and b"secret" not in body and b"notes" not in body


def test_without_a_media_folder_no_file_is_served(media, monkeypatch):
    monkeypatch.delenv(MEDIA_VARIABLE, raising=False)
    assert served(f"{MEDIA_ROUTE}/folder/a.wav")[0] == 404
