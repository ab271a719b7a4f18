"""Twenty different 50 MB uploads in a row keep a real server within its documented memory
budget (docs/dashboard.md, "Server memory budget"): the cache of loaded datasets evicts by bytes."""

import time
from pathlib import Path

import numpy as np
import pytest

from dashboard.datasets import CACHE_BUDGET_VARIABLE, DEFAULT_CACHE_MB
from test_browser import (assert_healthy, browser, open_page, shoot, start_app,  # noqa: F401
                          stop_app, upload)

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
