"""The judgments' database: one append-only table, in SQLite (one file) or PostgreSQL (a
server that a team shares), through SQLAlchemy Core.

Judging again adds a row: the history is kept and, for each (dataset, query, item), the row with
the largest id is the judgment that counts. :meth:`JudgmentStore.add` commits one transaction
before it returns, so a judgment it returned (acknowledged) survives the judging process being
killed at any moment after. Several processes may judge into one store at once:

* SQLite runs in WAL mode (readers do not block the writer) with ``synchronous=FULL`` (a commit
  is on disk when it returns) and a busy timeout, and every writing transaction begins
  ``IMMEDIATE``, so a writer waits for the file's one write lock instead of failing;
* PostgreSQL's ``BIGSERIAL`` ids and row-level inserts need nothing of the kind; connections are
  checked before use, so a store outlives a restart of the server.

Anything the database refuses (a read-only file, a server that is down, a disk that is full)
ends in :class:`~metrics.errors.StoreError`, one line naming the database and the reason.
"""

from __future__ import annotations

from datetime import datetime, timezone
from pathlib import Path

from metrics.errors import StoreError
from metrics.judgments.model import Judgment

# how long a SQLite writer waits for another's transaction before it gives up (milliseconds);
# a judgment's transaction takes about a millisecond, so only a stuck process makes it wait long
BUSY_TIMEOUT_MS = 30_000
TABLE_NAME = "judgments"


def _metadata():
    import sqlalchemy as sa

    metadata = sa.MetaData()
    table = sa.Table(
        TABLE_NAME, metadata,
        sa.Column("id", sa.BigInteger().with_variant(sa.Integer(), "sqlite"), primary_key=True,
                  autoincrement=True),
        sa.Column("dataset", sa.String(128), nullable=False),
        sa.Column("query", sa.Text, nullable=False),
        sa.Column("item", sa.Text, nullable=False),
        sa.Column("grade", sa.BigInteger, nullable=False),
        sa.Column("judge", sa.Text, nullable=False),
        sa.Column("pool", sa.Text, nullable=False),
        sa.Column("time", sa.DateTime(timezone=True), nullable=False),
        sa.Index("judgments_pair", "dataset", "query", "item", "id"),
    )
    return metadata, table


def _is_url(target: str) -> bool:
    return "://" in target


def database_url(target: str) -> str:
    """The SQLAlchemy URL of a store's target: a ``postgresql://`` URL (psycopg 3 as its
    driver unless one is named), or a file path (SQLite)."""
    if _is_url(target):
        scheme, rest = target.split("://", 1)
        if scheme in ("postgresql", "postgres"):
            return f"postgresql+psycopg://{rest}"
        if scheme.startswith("postgresql+") or scheme.startswith("sqlite"):
            return target
        raise StoreError(f"{target}: a judgments database is a file (SQLite) or a "
                         "postgresql:// URL")
    return f"sqlite:///{Path(target).expanduser().absolute()}"


def shown(target: str) -> str:
    """The target as messages name it: a URL without its password."""
    if not _is_url(target):
        return target
    from sqlalchemy.engine import make_url
    try:
        return make_url(target).render_as_string(hide_password=True)
    except Exception:   # an unparsable URL: its scheme is all that is safe to show
        return target.split("://", 1)[0] + "://…"


def _reason(exc: Exception) -> str:
    """The database's own words, on one line, without SQLAlchemy's links and SQL echo."""
    original = getattr(exc, "orig", None) or exc
    text = " ".join(str(original).split())
    return text or type(original).__name__


class JudgmentStore:
    """Judgments kept in a database: ``target`` is a file path (SQLite, created with its table
    if missing) or a ``postgresql://user:password@host:port/database`` URL (the table created if
    missing). Raises :class:`~metrics.errors.StoreError` when the database cannot be opened."""

    def __init__(self, target: str):
        import sqlalchemy as sa

        self.target = str(target)
        self.name = shown(self.target)
        self._sqlite = not _is_url(self.target) or self.target.startswith("sqlite")
        url = database_url(self.target)
        if self._sqlite and not _is_url(self.target):
            folder = Path(self.target).expanduser().absolute().parent
            if not folder.is_dir():
                raise StoreError(f"cannot open the judgments database {self.name}: its folder "
                                 f"{folder} does not exist; create it or name another file")
        self._metadata, self.table = _metadata()
        try:
            if self._sqlite:
                self._engine = sa.create_engine(
                    url, connect_args={"timeout": BUSY_TIMEOUT_MS / 1000},
                    poolclass=sa.pool.NullPool)
                sa.event.listen(self._engine, "connect", _sqlite_connect)
                sa.event.listen(self._engine, "begin", _sqlite_begin)
            else:
                self._engine = sa.create_engine(url, pool_pre_ping=True, pool_size=2,
                                                max_overflow=2)
        except Exception as exc:   # a URL SQLAlchemy cannot use (unknown driver, bad port)
            raise StoreError(f"cannot open the judgments database {self.name}: "
                             f"{_reason(exc)}") from None
        try:
            with self._engine.connect().execution_options(write=True) as connection:
                self._metadata.create_all(connection, checkfirst=True)
                connection.commit()
        except Exception as exc:
            self._engine.dispose()
            if self._tables_exist():
                return   # read-only, yet readable: add() will say why it cannot store
            raise StoreError(f"cannot open the judgments database {self.name}: "
                             f"{_reason(exc)}") from None

    def _tables_exist(self) -> bool:
        import sqlalchemy as sa
        try:
            with self._engine.connect() as connection:
                return sa.inspect(connection).has_table(TABLE_NAME)
        except Exception:
            return False

    # ---- writing --------------------------------------------------------------------------

    def add(self, judgment: Judgment) -> Judgment:
        """Store one judgment in its own transaction, committed before this returns: the
        returned judgment (with its ``id`` and UTC ``time``) is acknowledged. Raises
        :class:`~metrics.errors.StoreError` when it could not be stored; then nothing was."""
        now = datetime.now(timezone.utc)
        row = {"dataset": judgment.dataset, "query": judgment.query, "item": judgment.item,
               "grade": judgment.grade, "judge": judgment.judge, "pool": judgment.pool,
               "time": now}
        try:
            with self._engine.connect().execution_options(write=True) as connection:
                new_id = connection.execute(self.table.insert().values(**row)
                                            ).inserted_primary_key[0]
                connection.commit()
        except Exception as exc:
            raise StoreError(f"the judgment of {judgment.item!r} for query {judgment.query!r} "
                             f"was not stored in {self.name}: {_reason(exc)}") from None
        return Judgment(**{**row, "id": int(new_id)})

    # ---- reading --------------------------------------------------------------------------

    def _rows(self, statement) -> list:
        try:
            with self._engine.connect() as connection:
                return list(connection.execute(statement))
        except Exception as exc:
            raise StoreError(f"cannot read the judgments database {self.name}: "
                             f"{_reason(exc)}") from None

    def latest(self, dataset: str, judge: str | None = None) -> dict[tuple[str, str], int]:
        """``{(query, item): grade}``: the judgment that counts for each judged pair of a
        dataset (the latest, by id), in the order those judgments were made; with ``judge``,
        that judge's latest of each pair."""
        import sqlalchemy as sa

        t = self.table
        where = [t.c.dataset == dataset] + ([t.c.judge == judge] if judge is not None else [])
        last = (sa.select(sa.func.max(t.c.id).label("id")).where(*where)
                .group_by(t.c.query, t.c.item).subquery())
        statement = (sa.select(t.c.query, t.c.item, t.c.grade)
                     .join(last, t.c.id == last.c.id).order_by(t.c.id))
        return {(q, i): int(g) for q, i, g in self._rows(statement)}

    def history(self, dataset: str, query: str | None = None) -> list[Judgment]:
        """Every judgment of a dataset (of one query, if given), oldest first."""
        import sqlalchemy as sa

        t = self.table
        where = [t.c.dataset == dataset] + ([t.c.query == query] if query is not None else [])
        rows = self._rows(sa.select(t).where(*where).order_by(t.c.id))
        return [Judgment(dataset=r.dataset, query=r.query, item=r.item, grade=int(r.grade),
                         judge=r.judge, pool=r.pool, time=_utc(r.time), id=int(r.id))
                for r in rows]

    def judges(self, dataset: str) -> list[str]:
        """The judges of a dataset, in the order of their first judgment."""
        import sqlalchemy as sa

        t = self.table
        statement = (sa.select(t.c.judge).where(t.c.dataset == dataset).group_by(t.c.judge)
                     .order_by(sa.func.min(t.c.id)))
        return [judge for judge, in self._rows(statement)]

    def datasets(self) -> list[str]:
        """The datasets that have judgments, in the order of their first one."""
        import sqlalchemy as sa

        t = self.table
        statement = (sa.select(t.c.dataset).group_by(t.c.dataset)
                     .order_by(sa.func.min(t.c.id)))
        return [dataset for dataset, in self._rows(statement)]

    def close(self) -> None:
        """Close the store's connections (a closed store opens new ones if used again)."""
        self._engine.dispose()

    def __enter__(self) -> "JudgmentStore":
        return self

    def __exit__(self, *exc) -> None:
        self.close()

    def __repr__(self) -> str:
        return f"JudgmentStore({self.name!r})"


def _utc(moment: datetime) -> datetime:
    """A stored time as an aware UTC datetime (SQLite gives it back without its zone)."""
    return moment.replace(tzinfo=timezone.utc) if moment.tzinfo is None else \
        moment.astimezone(timezone.utc)


def _sqlite_connect(dbapi_connection, _record) -> None:
    """Each SQLite connection: transactions begun by :func:`_sqlite_begin` (not by the
    driver), the busy timeout, WAL and commits that are on disk when they return."""
    dbapi_connection.isolation_level = None
    cursor = dbapi_connection.cursor()
    try:
        cursor.execute(f"PRAGMA busy_timeout = {BUSY_TIMEOUT_MS}")
        mode = cursor.execute("PRAGMA journal_mode").fetchone()[0]
        if str(mode).lower() != "wal":
            try:
                cursor.execute("PRAGMA journal_mode = WAL")
            except Exception:   # a read-only file keeps its mode; reading still works
                pass
        cursor.execute("PRAGMA synchronous = FULL")
    finally:
        cursor.close()


def _sqlite_begin(connection) -> None:
    """A writing transaction takes SQLite's write lock at once (``BEGIN IMMEDIATE``), waiting
    for it up to the busy timeout; one that read first and then asked for it could be refused
    at once to avoid a deadlock."""
    immediate = connection.get_execution_options().get("write", False)
    connection.exec_driver_sql("BEGIN IMMEDIATE" if immediate else "BEGIN")

