"""A throw-away PostgreSQL server for the judgments store's tests: a cluster made by ``initdb`` in a
temporary folder, started by ``pg_ctl`` on a free port of 127.0.0.1 (trust authentication, no
other address), and removed at the end of the session.

Debian's ``postgresql`` package (which .ci/run installs) puts the server's programs in
/usr/lib/postgresql/VERSION/bin; ``initdb`` refuses to run as root, so as root the cluster is made
and run as the ``postgres`` user (else ``nobody``). Without PostgreSQL the tests that need it fail
under CI (``CI`` set, as .ci/run sets it) and are skipped elsewhere.
"""

from __future__ import annotations

import glob
import os
import pwd
import shutil
import socket
import subprocess
import tempfile
import time
import uuid
from pathlib import Path

import pytest


def server_program(name: str) -> str | None:
    """A PostgreSQL server program: Debian's newest version first, then PATH."""
    found = sorted(glob.glob(f"/usr/lib/postgresql/*/bin/{name}"),
                   key=lambda p: int(Path(p).parts[-3]) if Path(p).parts[-3].isdigit() else 0)
    return found[-1] if found else shutil.which(name)


def free_port() -> int:
    with socket.socket(socket.AF_INET, socket.SOCK_STREAM) as probe:
        probe.bind(("127.0.0.1", 0))
        return probe.getsockname()[1]


def _server_user() -> str | None:
    """Whom to run the server as: None (ourselves) unless we are root."""
    if os.geteuid() != 0:
        return None
    for name in ("postgres", "nobody"):
        try:
            pwd.getpwnam(name)
            return name
        except KeyError:
            continue
    raise RuntimeError("running as root, with neither a postgres nor a nobody user to run "
                       "PostgreSQL as (initdb refuses root)")


class PostgresServer:
    """One cluster: :meth:`start`, :meth:`stop`, :meth:`kill` (SIGKILL of the postmaster, as a
    crash), :meth:`url` of a database and :meth:`new_database`."""

    def __init__(self):
        self.initdb, self.pg_ctl = server_program("initdb"), server_program("pg_ctl")
        if not (self.initdb and self.pg_ctl):
            raise RuntimeError("PostgreSQL's server is not installed (Debian: apt-get install "
                               "postgresql)")
        self.user = _server_user()
        self.folder = Path(tempfile.mkdtemp(prefix="mre-postgres-"))
        self.data = self.folder / "data"
        self.port = free_port()
        if self.user is not None:
            entry = pwd.getpwnam(self.user)
            os.chown(self.folder, entry.pw_uid, entry.pw_gid)
        self._run([self.initdb, "-D", str(self.data), "-U", "postgres", "--auth=trust",
                   "--encoding=UTF8", "--no-instructions"])

    def _run(self, command: list[str], check: bool = True) -> subprocess.CompletedProcess:
        if self.user is not None:
            command = ["runuser", "-u", self.user, "--", *command]
        done = subprocess.run(command, capture_output=True, text=True, timeout=120,
                              cwd=self.folder)
        if check and done.returncode != 0:
            said = (done.stderr or done.stdout)[-2000:]
            raise RuntimeError(f"{' '.join(command)} failed: {said}")
        return done

    def start(self) -> None:
        options = (f"-p {self.port} -c listen_addresses=127.0.0.1 "
                   f"-c unix_socket_directories={self.folder} -c fsync=on "
                   f"-c max_connections=60")
        self._run([self.pg_ctl, "-D", str(self.data), "-l", str(self.folder / "server.log"),
                   "-o", options, "-w", "-t", "60", "start"])

    def stop(self) -> None:
        self._run([self.pg_ctl, "-D", str(self.data), "-m", "fast", "-w", "stop"], check=False)

    def kill(self) -> None:
        """SIGKILL the postmaster (a crash: no shutdown checkpoint), and wait until its
        children are gone so that the cluster can start again."""
        pid = int((self.data / "postmaster.pid").read_text().split()[0])
        os.kill(pid, 9)
        for _ in range(600):
            if self._run([self.pg_ctl, "-D", str(self.data), "status"],
                         check=False).returncode == 3:   # 3: no server running
                break
            time.sleep(0.05)
        else:
            raise RuntimeError("the killed PostgreSQL server did not go away")

    def url(self, database: str = "postgres") -> str:
        return f"postgresql://postgres@127.0.0.1:{self.port}/{database}"

    def new_database(self) -> str:
        """The URL of a new, empty database."""
        import psycopg

        name = "judgments_" + uuid.uuid4().hex[:12]
        with psycopg.connect(f"host=127.0.0.1 port={self.port} user=postgres dbname=postgres",
                             autocommit=True) as connection:
            connection.execute(f"CREATE DATABASE {name}")
        return self.url(name)

    def remove(self) -> None:
        self.stop()
        shutil.rmtree(self.folder, ignore_errors=True)


@pytest.fixture(scope="session")
def postgres_server():
    """A running PostgreSQL server for the session (see the module)."""
    try:
        server = PostgresServer()
        server.start()
    except (RuntimeError, OSError, subprocess.SubprocessError) as exc:
        if os.environ.get("CI"):
            pytest.fail(f"PostgreSQL is needed under CI and cannot be started: {exc}")
        pytest.skip(f"PostgreSQL cannot be started here: {exc}")
    try:
        yield server
    finally:
        server.remove()


@pytest.fixture
def postgres_url(postgres_server) -> str:
    """The URL of a new, empty database on the session's server."""
    return postgres_server.new_database()
