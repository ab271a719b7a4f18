"""Twenty different 50 MB uploads in a row keep a real server within its documented memory
budget (docs/dashboard.md, "Server memory budget"): the cache of loaded datasets evicts by bytes.
A 2 GB clip in the media folder, shown and rerun on the Query explorer, leaves the server's memory
where it was: the browser asks for it by ranges, served from the file (dashboard/media_route.py).
"""

import struct
import time
from pathlib import Path
from urllib.error import HTTPError
from urllib.request import Request, urlopen

import numpy as np
import pytest

from dashboard.datasets import CACHE_BUDGET_VARIABLE, DEFAULT_CACHE_MB
from dashboard.media_route import MEDIA_ROUTE
from test_browser import (assert_healthy, browser, open_page, shoot, start_app,  # noqa: F401
                          stop_app, upload, wait_for_app)
from test_browser_metadata import upload_all

pytestmark = pytest.mark.browser

UPLOADS = 20
QUERIES, DEPTH = 1000, 1390            # 1.39 million lines of 36 bytes: 50 MB
LINE = b"q0000 Q0 d0000000 0000 0.000000 s00\n"
# Besides the server as it is once the Data page has run (the baseline, measured) and the cache
# of datasets (its budget): the upload being evaluated, kept by its session and by Streamlit's
# uploader (2 × 50 MB), and 150 MB for the allocator's slack (see docs/dashboard.md).
IN_FLIGHT_MB = 250


def write_run(path: Path, seed: int) -> None:
    """A TREC run of QUERIES × DEPTH distinct documents with random scores: fixed-width lines
    whose digits are written column by column (one write; about a second)."""
    rng = np.random.default_rng(seed)
    n = QUERIES * DEPTH
    lines = np.tile(np.frombuffer(LINE, dtype=np.uint8), (n, 1))

    def digits(column: int, values: np.ndarray, width: int) -> None:
        for k in range(width):
            lines[:, column + width - 1 - k] = 48 + (values // 10**k) % 10

    digits(1, np.repeat(np.arange(QUERIES), DEPTH), 4)
    digits(10, rng.permuted(np.tile(np.arange(10_000), (QUERIES, 1)), axis=1)[:, :DEPTH]
           .ravel(), 7)
    digits(18, np.tile(np.arange(1, DEPTH + 1), QUERIES), 4)
    digits(25, rng.integers(0, 10**6, n), 6)
    digits(33, np.full(n, seed % 100), 2)
    lines.tofile(path)


def write_qrels(path: Path) -> None:
    """200 judged documents of 10,000 per query, grades 0–2."""
    rng = np.random.default_rng(0)
    docs = np.stack([rng.choice(10_000, 200, replace=False) for _ in range(QUERIES)])
    grades = rng.integers(0, 3, docs.shape)
    path.write_text("".join(f"q{q:04d} 0 d{d:07d} {g}\n" for q in range(QUERIES)
                            for d, g in zip(docs[q], grades[q])))


def memory_mb(pid: int, field: str = "VmRSS") -> float:
    """The process's resident memory (VmRSS) or its peak (VmHWM), in MiB."""
    for line in Path(f"/proc/{pid}/status").read_text().splitlines():
        if line.startswith(field + ":"):
            return int(line.split()[1]) / 1024
    raise AssertionError(f"/proc/{pid}/status has no {field}")


def test_twenty_different_50_mb_uploads_keep_the_server_within_its_budget(
        browser, tmp_path, monkeypatch):  # noqa: F811 (the fixture)
    monkeypatch.delenv(CACHE_BUDGET_VARIABLE, raising=False)   # the documented default
    budget_mb = DEFAULT_CACHE_MB
    qrels = tmp_path / "judged.qrels"
    write_qrels(qrels)
    server, url = start_app()   # a server of its own: no other test's data in its memory
    try:
        page, errors = open_page(browser, url)
        assert_healthy(page, errors, "Validation summary")
        baseline = memory_mb(server.pid)
        resident, began = [], time.perf_counter()
        for i in range(UPLOADS):
            run = tmp_path / f"upload{i:02d}.run"
            write_run(run, seed=i)
            upload(page, run, qrels if i == 0 else None)   # then each run replaces the last
            assert_healthy(page, errors, "Uploaded files")
            page.wait_for_function("(t) => document.body.innerText.includes(t)",
                                   arg=f"upload{i:02d}", timeout=120_000)
            resident.append(memory_mb(server.pid))
            run.unlink()
        elapsed = time.perf_counter() - began
        shoot(page, "twenty_uploads")
        peak = memory_mb(server.pid, "VmHWM")
        report = (f"{UPLOADS} uploads in {elapsed:.0f} s; baseline {baseline:.0f} MiB; resident "
                  f"after each: {', '.join(f'{r:.0f}' for r in resident)} MiB; peak {peak:.0f}")
        print(report)
        limit = baseline + budget_mb + IN_FLIGHT_MB
        assert max(resident) < limit, f"over {limit:.0f} MiB: {report}"
        page.close()
    finally:
        stop_app(server)


# ---- a 2 GB clip in the media folder (issue 42, item 9) ----------------------------------------

CLIP_BYTES = 2 * 2**30
RATE = 8000                        # 16-bit mono: 16,000 bytes a second, 37 hours in all
MARK_AT, MARK = 1_500_000_000, b"bytes written at 1.5 GB"
RERUNS = 4
# Besides the server as it is with the data loaded (the baseline, measured): what the explorer's
# runs and the browser's range requests cost, whatever the clip's size (before: the whole clip
# on every run, 2 GB resident and a peak of 8 GB)
CLIP_SLACK_MB = 200


def write_long_wav(path: Path, size: int = CLIP_BYTES) -> None:
    """A WAV of ``size`` bytes (at most 4 GiB, a WAV's 32-bit sizes): a real header, then silence
    that takes no disk (a sparse file), with MARK written at MARK_AT when it fits
    (benchmarks/bench_media.py writes its clips with this too)."""
    data = size - 44
    header = (b"RIFF" + struct.pack("<I", 36 + data) + b"WAVEfmt "
              + struct.pack("<IHHIIHH", 16, 1, 1, RATE, 2 * RATE, 2, 16)
              + b"data" + struct.pack("<I", data))
    with path.open("wb") as out:
        out.write(header)
        if MARK_AT + len(MARK) <= size:
            out.seek(MARK_AT)
            out.write(MARK)
        out.truncate(size)


def fetch(url: str, **headers: str) -> tuple[int, dict[str, str], bytes]:
    """A GET of ``url`` as it is written (no '..' taken out): status, headers, body."""
    try:
        with urlopen(Request(url, headers=headers), timeout=30) as answer:
            return answer.status, dict(answer.headers), answer.read()
    except HTTPError as refused:
        return refused.code, dict(refused.headers), refused.read()


def test_a_2_gb_clip_is_played_and_rerun_without_the_server_reading_it(
        browser, tmp_path):  # noqa: F811 (the fixture)
    media = tmp_path / "media"
    media.mkdir()
    write_long_wav(media / "long.wav")
    (tmp_path / "secret.wav").write_bytes(b"RIFF secret beside the folder")
    (media / "out.wav").symlink_to(tmp_path / "secret.wav")
    run, qrels, items = tmp_path / "a.run", tmp_path / "a.qrels", tmp_path / "items.csv"
    queries = tmp_path / "queries.csv"
    run.write_text("q1 Q0 d1 1 3.0 sys\nq1 Q0 d2 2 2.0 sys\nq1 Q0 d3 3 1.0 sys\n")
    qrels.write_text("q1 0 d1 1\nq1 0 d3 1\n")
    items.write_text("item_id,title,audio\nd1,Long,long.wav\nd2,Short,\nd3,Out,out.wav\n")
    queries.write_text("query_id,text,audio\nq1,a long silence,long.wav\n")
    server, url = start_app("--", "--media", str(media))
    try:
        page, errors = open_page(browser, url)
        upload_all(page, (run, qrels, items, queries))
        assert_healthy(page, errors, "Uploaded files")
        baseline = memory_mb(server.pid)   # the data loaded, no clip shown yet
        ranges = []
        page.on("request", lambda r: ranges.append(r.headers.get("range"))
                if "long.wav" in r.url else None)
        page.get_by_role("link", name="Query explorer").click()
        wait_for_app(page)
        assert_healthy(page, errors, "Listen to the query")
        # the frame under app.py's st.App still draws the explorer's figure (a component that
        # registers inside a script run: dashboard/chart_in_place.py)
        page.wait_for_selector(".main-svg", timeout=30_000)
        player = ".st-key-audio_query audio"
        page.wait_for_function("(s) => document.querySelector(s)?.readyState >= 1", arg=player,
                               timeout=60_000)
        resident, began = [memory_mb(server.pid)], time.perf_counter()
        for _ in range(RERUNS):   # each click reruns the whole page, both players of the clip
            page.get_by_text("Precision axis: fit to the data").click()
            wait_for_app(page)
            resident.append(memory_mb(server.pid))
        each = (time.perf_counter() - began) / RERUNS
        # the player plays and seeks: the browser asks for the bytes at 30 hours in
        at = page.eval_on_selector(player, """a => new Promise(done => {
            a.addEventListener('seeked', () => done(a.currentTime), {once: true});
            a.muted = true; a.currentTime = 108000; a.play().catch(() => {}); })""")
        duration = page.eval_on_selector(player, "a => a.duration")
        peak = memory_mb(server.pid, "VmHWM")
        report = (f"baseline {baseline:.0f} MiB; shown, then after each rerun "
                  f"{', '.join(f'{r:.0f}' for r in resident)} MiB ({each:.1f} s a rerun); "
                  f"peak {peak:.0f} MiB; the clip {CLIP_BYTES / 2**20:.0f} MiB")
        print(report)
        assert max(max(resident), peak) < baseline + CLIP_SLACK_MB, report
        assert duration == pytest.approx((CLIP_BYTES - 44) / (2 * RATE), abs=1)
        assert at == pytest.approx(108000, abs=1)
        starts = [int(r.split("=")[1].split("-")[0]) for r in ranges if r]
        assert max(starts) > 44 + 100_000 * 2 * RATE, ranges     # fetched there, by a range
        assert "'d3'" in page.inner_text('[data-testid="stMain"]')   # the symlink out: refused
        assert not errors, errors
        shoot(page, "audio_2_gb_clip")
        page.close()

        # the same server, asked directly: a range is exactly the file's bytes; out is refused
        clip = f"{url}{MEDIA_ROUTE}/folder/long.wav"
        status, head, body = fetch(clip, Range=f"bytes={MARK_AT}-{MARK_AT + len(MARK) - 1}")
        assert (status, body, head["content-range"]) == (
            206, MARK, f"bytes {MARK_AT}-{MARK_AT + len(MARK) - 1}/{CLIP_BYTES}")
        with (media / "long.wav").open("rb") as file:
            status, _, body = fetch(clip, Range="bytes=0-99")
            assert (status, body) == (206, file.read(100))
        for out in ("folder/out.wav", "folder/../secret.wav", "folder/%2e%2e/secret.wav",
                    f"folder/{tmp_path}/secret.wav", "sample/../media/long.wav"):
            status, _, body = fetch(f"{url}{MEDIA_ROUTE}/{out}")
            assert status in (400, 403, 404) and b"secret" not in body, (out, status)
    finally:
        stop_app(server)
