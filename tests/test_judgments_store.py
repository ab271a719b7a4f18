"""The judgments' database (metrics/judgments/store.py) against SQLite and a real PostgreSQL
server: several processes judging at once lose nothing and double nothing, a process killed
mid-judging leaves the database intact with every acknowledged judgment in it, a store that
cannot write says so (StoreError), and judging again keeps the history with the latest counting.

The judging processes are real processes (``python -c`` of :data:`WORKER`), started together,
each with its own store, as the dashboard's sessions are.
"""

from __future__ import annotations

import os
import signal
import sqlite3
import subprocess
import sys
from pathlib import Path

import pytest

from metrics.errors import InputError, StoreError
from metrics.judgments import Judgment, JudgmentStore

ROOT = Path(__file__).resolve().parents[1]
PROCESSES, EACH = 8, 200
DATASET = "a" * 64

# A judging process: waits for the go file, then adds its judgments one by one, printing each
# acknowledged one ("id judge item") once add() has returned. ``count`` 0: until killed.
WORKER = r"""
import os, sys, time
sys.path.insert(0, os.getcwd())
from metrics.errors import StoreError
from metrics.judgments import Judgment, JudgmentStore
target, worker, count, go = sys.argv[1], int(sys.argv[2]), int(sys.argv[3]), sys.argv[4]
while not os.path.exists(go):
    time.sleep(0.005)
store = JudgmentStore(target)
i = 0
while count == 0 or i < count:
    item = f"w{worker}-i{i}"
    try:
        stored = store.add(Judgment(dataset=sys.argv[5], query=f"q{i % 7}", item=item,
                                    grade=i % 3, judge=f"judge{worker}", pool="test"))
    except StoreError as exc:
        print("ERROR", exc, flush=True)
        sys.exit(3)
    print(stored.id, stored.judge, stored.item, flush=True)
    i += 1
store.close()
"""


def start_workers(target: str, count: int, processes: int, go: Path) -> list[subprocess.Popen]:
    return [subprocess.Popen([sys.executable, "-c", WORKER, target, str(w), str(count), str(go),
                              DATASET], cwd=ROOT, stdout=subprocess.PIPE,
                             stderr=subprocess.PIPE, text=True)
            for w in range(processes)]


def acknowledged(lines: str) -> list[tuple[int, str, str]]:
    """The (id, judge, item) of every judgment a worker printed as acknowledged."""
    rows = []
    for line in lines.splitlines():
        if line.startswith("ERROR"):
            continue
        i, judge, item = line.split()
        rows.append((int(i), judge, item))
    return rows


def judge_at_once(target: str, tmp_path: Path) -> None:
    """8 processes × 200 judgments into one store at once: every one stored once."""
    JudgmentStore(target).close()   # the table exists before the race starts
    go = tmp_path / "go"
    workers = start_workers(target, EACH, PROCESSES, go)
    go.touch()
    acked = []
    for worker in workers:
        out, err = worker.communicate(timeout=300)
        assert worker.returncode == 0, err
        acked += acknowledged(out)
    assert len(acked) == PROCESSES * EACH
    with JudgmentStore(target) as store:
        history = store.history(DATASET)
        latest = store.latest(DATASET)
    stored = [(j.id, j.judge, j.item) for j in history]
    assert len(stored) == PROCESSES * EACH                   # none lost, none doubled
    assert len({j.id for j in history}) == len(history)
    assert set(stored) == set(acked)                         # each as its process was told
    expected = {(f"judge{w}", f"w{w}-i{i}") for w in range(PROCESSES) for i in range(EACH)}
    assert {(j.judge, j.item) for j in history} == expected
    assert len(latest) == PROCESSES * EACH
    assert all(latest[(f"q{int(item.split('-i')[1]) % 7}", item)] ==
               int(item.split("-i")[1]) % 3 for _, item in expected)


def judging_without_end(target: str, tmp_path: Path):
    """Two processes judging without end, each once it has had 30 judgments acknowledged:
    (the processes, what they acknowledged so far)."""
    JudgmentStore(target).close()
    go = tmp_path / "go-endless"
    workers = start_workers(target, 0, 2, go)
    go.touch()
    acked = []
    for worker in workers:
        for _ in range(30):
            acked += acknowledged(worker.stdout.readline())
    return workers, acked


def kill_mid_judging(target: str, tmp_path: Path) -> list[tuple[int, str, str]]:
    """Two processes judging without end, SIGKILLed wherever they are once both have had
    judgments acknowledged. Returns what was acknowledged."""
    workers, acked = judging_without_end(target, tmp_path)
    for worker in workers:
        worker.send_signal(signal.SIGKILL)
    for worker in workers:
        out, _ = worker.communicate(timeout=60)
        acked += acknowledged(out)   # acknowledged before the kill, still in the pipe
        assert worker.returncode == -signal.SIGKILL
    return acked


def assert_all_there(target: str, acked) -> None:
    with JudgmentStore(target) as store:
        stored = {(j.id, j.judge, j.item) for j in store.history(DATASET)}
    assert len(acked) >= 60
    assert set(acked) <= stored


# ---- SQLite ------------------------------------------------------------------------------------

def test_sqlite_eight_processes_at_once_lose_and_double_nothing(tmp_path):
    judge_at_once(str(tmp_path / "judgments.db"), tmp_path)


def test_sqlite_killed_mid_judging_keeps_every_acknowledged_judgment(tmp_path):
    target = tmp_path / "judgments.db"
    acked = kill_mid_judging(str(target), tmp_path)
    with sqlite3.connect(target) as connection:   # opens, and is whole
        assert connection.execute("PRAGMA integrity_check").fetchone()[0] == "ok"
        assert connection.execute("PRAGMA journal_mode").fetchone()[0] == "wal"
    assert_all_there(str(target), acked)
    with JudgmentStore(str(target)) as store:   # and takes new judgments
        store.add(Judgment(DATASET, "q", "after", 1, "me", "test"))
        assert store.latest(DATASET)[("q", "after")] == 1


def test_sqlite_read_only_file_raises_store_error(tmp_path):
    target = tmp_path / "judgments.db"
    with JudgmentStore(str(target)) as store:
        store.add(Judgment(DATASET, "q1", "d1", 1, "ann", "test"))
    os.chmod(target, 0o444)
    for leftover in tmp_path.glob("judgments.db-*"):   # WAL and index files, if any
        os.chmod(leftover, 0o444)
    # root writes any file whatever its mode: the judging process runs without that power
    drop = (["setpriv", "--bounding-set=-dac_override,-dac_read_search"]
            if os.geteuid() == 0 else [])
    script = ("import sys; sys.path.insert(0, '.')\n"
              "from metrics.errors import StoreError\n"
              "from metrics.judgments import Judgment, JudgmentStore\n"
              f"store = JudgmentStore({str(target)!r})\n"
              "try:\n"
              f"    store.add(Judgment({DATASET!r}, 'q1', 'd2', 0, 'ann', 'test'))\n"
              "except StoreError as exc:\n"
              "    print('StoreError:', exc)\n"
              "else:\n"
              "    print('stored')\n")
    done = subprocess.run([*drop, sys.executable, "-c", script], cwd=ROOT, capture_output=True,
                          text=True, timeout=120)
    assert done.returncode == 0, done.stderr
    message = done.stdout.strip()
    assert message.startswith("StoreError: the judgment of 'd2' for query 'q1' was not stored "
                              f"in {target}: "), message
    assert "readonly" in message or "read-only" in message, message
    assert len(message.splitlines()) == 1
    os.chmod(target, 0o644)
    with JudgmentStore(str(target)) as store:
        assert store.latest(DATASET) == {("q1", "d1"): 1}   # nothing half-stored


def test_sqlite_folder_missing_raises_store_error(tmp_path):
    with pytest.raises(StoreError, match="its folder .* does not exist"):
        JudgmentStore(str(tmp_path / "no" / "such" / "judgments.db"))


def test_rejudging_keeps_history_and_the_latest_counts(tmp_path):
    with JudgmentStore(str(tmp_path / "j.db")) as store:
        first = store.add(Judgment(DATASET, "q1", "d1", 0, "ann", "explorer top 10"))
        store.add(Judgment(DATASET, "q1", "d2", 1, "ann", "explorer top 10"))
        second = store.add(Judgment(DATASET, "q1", "d1", 2, "bob", "depth-10 of a,b"))
        store.add(Judgment("b" * 64, "q1", "d1", 1, "ann", "other dataset"))
        assert store.latest(DATASET) == {("q1", "d2"): 1, ("q1", "d1"): 2}
        assert store.latest(DATASET, judge="ann") == {("q1", "d1"): 0, ("q1", "d2"): 1}
        history = store.history(DATASET, "q1")
        assert [(j.item, j.grade, j.judge, j.pool) for j in history] == [
            ("d1", 0, "ann", "explorer top 10"), ("d2", 1, "ann", "explorer top 10"),
            ("d1", 2, "bob", "depth-10 of a,b")]
        assert history[0] == first and history[2] == second
        assert first.time.tzinfo is not None and first.time <= second.time
        assert store.judges(DATASET) == ["ann", "bob"]
        assert store.datasets() == [DATASET, "b" * 64]


def test_a_judgment_that_is_not_one_is_refused():
    for bad in (dict(grade=-1), dict(grade=1.5), dict(grade=True), dict(judge=" "),
                dict(item="")):
        fields = dict(dataset=DATASET, query="q", item="d", grade=1, judge="ann", pool="p")
        with pytest.raises(InputError):
            Judgment(**{**fields, **bad})


# ---- PostgreSQL --------------------------------------------------------------------------------

def test_postgres_eight_processes_at_once_lose_and_double_nothing(postgres_url, tmp_path):
    judge_at_once(postgres_url, tmp_path)


def test_postgres_judging_process_killed_keeps_every_acknowledged_judgment(postgres_url,
                                                                          tmp_path):
    acked = kill_mid_judging(postgres_url, tmp_path)
    assert_all_there(postgres_url, acked)


def test_postgres_server_killed_mid_judging_restarts_intact(postgres_server, tmp_path):
    """The server itself SIGKILLed while two processes judge: they are told their judgment was
    not stored (StoreError), and after a restart every acknowledged judgment is there."""
    url = postgres_server.new_database()
    workers, acked = judging_without_end(url, tmp_path)
    postgres_server.kill()
    try:
        outputs = [worker.communicate(timeout=120) for worker in workers]
    finally:
        postgres_server.start()
    for worker, (out, err) in zip(workers, outputs):
        assert worker.returncode == 3, err   # each stopped at a StoreError, not a traceback
        acked += acknowledged(out)
        error = [line for line in out.splitlines() if line.startswith("ERROR")]
        assert len(error) == 1 and "was not stored in postgresql://postgres@127.0.0.1:" in \
            error[0], out[-500:]
    assert_all_there(url, acked)


def test_postgres_server_down_raises_store_error(postgres_server):
    url = postgres_server.new_database()
    store = JudgmentStore(url)
    store.add(Judgment(DATASET, "q1", "d1", 1, "ann", "test"))
    postgres_server.stop()
    try:
        with pytest.raises(StoreError, match=r"^the judgment of 'd2' for query 'q1' was not "
                                             r"stored in postgresql://postgres@127\.0\.0\.1:\d+/"
                                             r"\w+: .*(refused|closed|terminat)"):
            store.add(Judgment(DATASET, "q1", "d2", 0, "ann", "test"))
        with pytest.raises(StoreError, match="cannot open the judgments database"):
            JudgmentStore(url)
    finally:
        postgres_server.start()
    # the same store goes on once the server is back (its connections are checked before use)
    store.add(Judgment(DATASET, "q1", "d2", 0, "ann", "test"))
    assert store.latest(DATASET) == {("q1", "d1"): 1, ("q1", "d2"): 0}
    store.close()


def test_postgres_rejudging_keeps_history(postgres_url):
    with JudgmentStore(postgres_url) as store:
        store.add(Judgment(DATASET, "q1", "d1", 0, "ann", "p"))
        store.add(Judgment(DATASET, "q1", "d1", 2, "bob", "p"))
        assert store.latest(DATASET) == {("q1", "d1"): 2}
        assert [(j.grade, j.judge) for j in store.history(DATASET)] == [(0, "ann"), (2, "bob")]
        assert all(j.time.tzinfo is not None for j in store.history(DATASET))


def test_a_url_of_another_database_is_refused():
    with pytest.raises(StoreError, match="a file \\(SQLite\\) or a postgresql:// URL"):
        JudgmentStore("mysql://someone@127.0.0.1/db")


def test_password_is_not_shown_in_messages():
    with pytest.raises(StoreError) as caught:
        JudgmentStore("postgresql://ann:secret@127.0.0.1:1/nothing")
    assert "secret" not in str(caught.value) and "***" in str(caught.value)
