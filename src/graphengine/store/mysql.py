"""`MySQLStore`: a `Store` (and `LeaseStore`) in MySQL 8 / MariaDB 10.6+ / Aurora MySQL.

Decisions a caller should know:

- asyncmy, imported on first use (`pip install 'graphengine[mysql]'`; without it,
  `MissingDriverError`). A connection pool is opened lazily inside the running event loop and
  reopened when the store is used from another loop. Sessions run in autocommit with READ
  COMMITTED isolation, so the `INSERT ... SELECT` of a step reads its checks as a consistent
  read instead of taking gap locks that would make concurrent writers deadlock.
- The tables live in the DSN's database (`mysql://user:password@host:3306/database`); the
  database must exist. The schema is versioned (`schema_version` table) and migrated on open
  under a named lock (`GET_LOCK`), so processes opening a fresh database together do not race.
  A database written by a newer graphengine is refused (`StoreUnavailableError`).
- Column types: encoded states, deltas, calls and events are `LONGBLOB` (byte-for-byte round
  trip); `route` and run `meta` are JSON text in `LONGTEXT` columns with a `JSON_VALID` check,
  not MySQL's `JSON` type, which stores a binary form and gives back re-serialized text (MariaDB's
  `JSON` is this very alias). Run ids compare byte-wise (`utf8mb4_bin`).
- Every write is ONE statement: `save_step` is an `INSERT ... SELECT` checking that the run
  exists, that the step is exactly the next one and that the writer may write it (leases).
- Leases and fencing as in `PostgresStore`: while this store holds a lease on a run, its step,
  branch and status writes are conditioned on the token in the same statement, with a locking
  read of the run row (`LOCK IN SHARE MODE`) so a concurrent claim and a stale write serialize.
- Driver exceptions are translated in ONE table (`_TRANSLATE`, by exception class, each entry
  looking at the MySQL error number), checked complete by `tests/test_store_mysql.py`.
"""

from __future__ import annotations

import asyncio
import contextlib
import time
from collections.abc import Awaitable, Callable, Sequence
from types import ModuleType, TracebackType
from typing import Any, Final, Literal
from urllib.parse import unquote, urlsplit

from ._integrity import checked_steps, latest_of, orphans_error, status_conflict
from ._lease import Lease
from .errors import (
    CorruptRecordError,
    LeaseLostError,
    MissingDriverError,
    RunExistsError,
    StepConflictError,
    StoreError,
    StoreUnavailableError,
)
from .ids import check_id
from .prune import PruneMixin
from .records import BranchRecord, Checkpoint, Latest, RunRecord, RunStatus, StepRecord
from .transfer import RunTransfer

__all__ = ["SCHEMA_VERSION", "MySQLStore"]

SCHEMA_VERSION: Final = 2
"""Schema version this module writes; older databases are migrated on open."""

# v2: key columns become VARBINARY, so ids compare byte for byte. utf8mb4_bin is a PAD SPACE
# collation on MariaDB and MySQL 5.7 ("job" = "job   "), and MySQL 8 and MariaDB name their
# NO PAD binary collations differently; VARBINARY means the same on every server. 1,020 bytes
# hold the longest id (`graphengine.store.ids.MAX_ID_CHARS` code points of up to 4 bytes each). A referenced
# column cannot change type under its foreign keys, so they are dropped (found by name in
# information_schema, whatever the server called them) and re-created; every statement is
# re-runnable, so an interrupted migration completes on the next open.
_FOREIGN_KEYS: Final = """SELECT TABLE_NAME, CONSTRAINT_NAME FROM information_schema.REFERENTIAL_CONSTRAINTS
WHERE CONSTRAINT_SCHEMA = DATABASE() AND REFERENCED_TABLE_NAME = 'runs'"""
_KEY_TABLES: Final = frozenset({"steps", "checkpoints", "branches"})
_V2_ALTER: Final = (
    "ALTER TABLE runs MODIFY run_id VARBINARY(1020) NOT NULL, MODIFY lease_owner VARBINARY(1020)",
    "ALTER TABLE steps MODIFY run_id VARBINARY(1020) NOT NULL",
    "ALTER TABLE checkpoints MODIFY run_id VARBINARY(1020) NOT NULL, MODIFY label VARBINARY(1020) NOT NULL",
    "ALTER TABLE branches MODIFY run_id VARBINARY(1020) NOT NULL",
    "ALTER TABLE steps ADD CONSTRAINT steps_run FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE",
    "ALTER TABLE checkpoints ADD CONSTRAINT checkpoints_run FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE",
    "ALTER TABLE branches ADD CONSTRAINT branches_run FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE",
)


async def _binary_keys(cur: Any) -> None:
    """Migration to v2 (see `_V2_ALTER`)."""
    await cur.execute(_FOREIGN_KEYS)
    for table, name in list(await cur.fetchall()):
        table = table.decode() if isinstance(table, bytes) else table
        name = name.decode() if isinstance(name, bytes) else name
        # Identifiers cannot be bound: the table is one of ours and the name, read from the
        # server's catalog, is checked to be a plain identifier before it is spliced in.
        if table in _KEY_TABLES and name.replace("_", "").isalnum() and name.isascii():
            await cur.execute(f"ALTER TABLE {table} DROP FOREIGN KEY `{name}`")
    for stmt in _V2_ALTER:
        await cur.execute(stmt)


# _MIGRATIONS[v] takes a database from version v to v + 1. Append; never edit a released
# entry. MySQL commits DDL implicitly, so each statement is written to be re-runnable
# (IF NOT EXISTS): a migration interrupted halfway completes on the next open. An entry is
# statements, or a coroutine function given a cursor for steps that depend on what it reads.
_MIGRATIONS: Final[tuple[tuple[str, ...] | Callable[[Any], Awaitable[None]], ...]] = (
    (
        """CREATE TABLE IF NOT EXISTS runs (
            run_id        VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL PRIMARY KEY,
            status        VARCHAR(32) NOT NULL,
            initial       LONGBLOB NOT NULL,
            fingerprint   VARCHAR(255) NOT NULL,
            state_version INT NOT NULL,
            created_at    DOUBLE NOT NULL,
            updated_at    DOUBLE NOT NULL,
            error         LONGTEXT,
            error_node    VARCHAR(255),
            meta          LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL CHECK (JSON_VALID(meta)),
            lease_owner   VARCHAR(255),
            lease_token   BIGINT NOT NULL DEFAULT 0,
            lease_expires DOUBLE,
            KEY runs_created (created_at, run_id),
            KEY runs_status_created (status, created_at, run_id)
        ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin""",
        """CREATE TABLE IF NOT EXISTS steps (
            run_id   VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
            step     INT NOT NULL,
            node_id  VARCHAR(255) NOT NULL,
            delta    LONGBLOB,
            route    LONGTEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL CHECK (JSON_VALID(route)),
            state    LONGBLOB,
            attempt  INT NOT NULL,
            error    LONGTEXT,
            calls    LONGBLOB,
            events   LONGBLOB,
            ts       DOUBLE NOT NULL,
            PRIMARY KEY (run_id, step),
            FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
        ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin""",
        """CREATE TABLE IF NOT EXISTS checkpoints (
            run_id VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
            label  VARCHAR(255) NOT NULL,
            step   INT NOT NULL,
            state  LONGBLOB NOT NULL,
            ts     DOUBLE NOT NULL,
            PRIMARY KEY (run_id, label),
            FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
        ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin""",
        """CREATE TABLE IF NOT EXISTS branches (
            run_id  VARCHAR(255) CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
            step    INT NOT NULL,
            branch  INT NOT NULL,
            node_id VARCHAR(255) NOT NULL,
            delta   LONGBLOB,
            attempt INT NOT NULL,
            calls   LONGBLOB,
            ts      DOUBLE NOT NULL,
            PRIMARY KEY (run_id, step, branch),
            FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
        ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin""",
    ),
    _binary_keys,
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

# Statements are plain literals, every value a bound parameter (asyncmy escapes them; bytes
# are sent as _binary literals so no charset conversion can touch them).

_LOCK: Final = "SELECT GET_LOCK('graphengine.store.migrate', %s)"
_UNLOCK: Final = "SELECT RELEASE_LOCK('graphengine.store.migrate')"
_VERSION_TABLE: Final = "CREATE TABLE IF NOT EXISTS schema_version (version INT NOT NULL) ENGINE = InnoDB"
_GET_VERSION: Final = "SELECT coalesce(max(version), 0) FROM schema_version"
_SET_VERSION: Final = "INSERT INTO schema_version (version) VALUES (%s)"

# Inserts nothing while rows of an earlier run with this id outlive its run record (deleted under
# them): a new run must never fold another run's steps. Parameters: the ten fields, then the
# run id three times.
_INSERT_RUN: Final = """INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM steps WHERE run_id = %s) AND NOT EXISTS (SELECT 1 FROM branches WHERE run_id = %s)
  AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE run_id = %s)"""
_ORPHANS: Final = """SELECT (SELECT min(step) FROM steps WHERE run_id = %s), EXISTS (SELECT 1 FROM branches WHERE run_id = %s),
    EXISTS (SELECT 1 FROM checkpoints WHERE run_id = %s)"""
_FIRST_STEP: Final = "SELECT step, state IS NOT NULL FROM steps WHERE run_id = %s ORDER BY step LIMIT 1"
_RUN_EXISTS: Final = "SELECT 1 FROM runs WHERE run_id = %s"
_STATUS_STATE: Final = (
    "SELECT status, coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) FROM runs WHERE run_id = %s"
)
_GET_RUN: Final = "SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta FROM runs WHERE run_id = %s"
_LIST_RUNS: Final = "SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta FROM runs ORDER BY created_at DESC, run_id DESC LIMIT %s"
_LIST_RUNS_BY_STATUS: Final = "SELECT run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta FROM runs WHERE status = %s ORDER BY created_at DESC, run_id DESC LIMIT %s"
# Without a lease: refused while another worker's lease on the run is live. CLIENT_FOUND_ROWS is
# off, so an update to the same values counts 0 rows: updated_at always changes, so it never is.
# Both are compare-and-set: a NULL expected step (0 = no step yet) or status disables its check.
# Parameters: status, error, error_node, updated_at, run_id, (token,) then the expected step
# twice, run_id, the expected status twice.
_SET_STATUS: Final = """UPDATE runs SET status = %s, error = %s, error_node = %s, updated_at = %s
WHERE run_id = %s AND (lease_expires IS NULL OR lease_expires <= UNIX_TIMESTAMP(NOW(6)))
  AND (%s IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s)
  AND (%s IS NULL OR status = %s)"""
_SET_STATUS_FENCED: Final = """UPDATE runs SET status = %s, error = %s, error_node = %s, updated_at = %s
WHERE run_id = %s AND lease_token = %s AND lease_expires > UNIX_TIMESTAMP(NOW(6))
  AND (%s IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s)
  AND (%s IS NULL OR status = %s)"""
# The hot path (see store.postgres): inserts nothing unless the run exists and may be written by
# this writer and the step is exactly the next one. Parameters: the 11 record fields, then
# run_id, step (and the token when fenced).
_INSERT_STEP: Final = """INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND (lease_expires IS NULL OR lease_expires <= UNIX_TIMESTAMP(NOW(6))))"""
_INSERT_STEP_FENCED: Final = """INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND lease_token = %s AND lease_expires > UNIX_TIMESTAMP(NOW(6)) LOCK IN SHARE MODE)"""
_WRITE_STATE: Final = """SELECT lease_owner, lease_token, lease_expires > UNIX_TIMESTAMP(NOW(6)), lease_expires,
    (SELECT max(step) FROM steps WHERE run_id = %s)
FROM runs WHERE run_id = %s"""
_LOAD_FROM_SNAPSHOT: Final = """SELECT run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts FROM steps
WHERE run_id = %s AND step >= coalesce(
    (SELECT step FROM steps WHERE run_id = %s AND state IS NOT NULL ORDER BY step DESC LIMIT 1), 0)
ORDER BY step"""
_LOAD_STEPS: Final = "SELECT run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts FROM steps WHERE run_id = %s AND step > %s ORDER BY step LIMIT %s"
# LIMIT needs a number in MySQL: the largest BIGINT UNSIGNED stands for "no limit".
_NO_LIMIT: Final = 18446744073709551615
# A batch is one multi-row INSERT: all or nothing (duplicate key, or an unknown run's foreign key).
_INSERT_BRANCHES: Final = (
    "INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts) VALUES "
)
_BRANCH_ROW: Final = "(%s, %s, %s, %s, %s, %s, %s, %s)"
# A fenced batch (one run): INSERT ... SELECT over a derived table of the rows, conditioned on the
# token like a fenced step. Built from _BRANCH_SELECT_ROW repeated; values are all bound.
_INSERT_BRANCHES_FENCED: Final = (
    "INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts) SELECT * FROM ("
)
_BRANCH_SELECT_ROW: Final = "SELECT %s AS run_id, %s AS step, %s AS branch, %s AS node_id, %s AS delta, %s AS attempt, %s AS calls, %s AS ts"
_BRANCHES_FENCE: Final = ") AS b WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND lease_token = %s AND lease_expires > UNIX_TIMESTAMP(NOW(6)) LOCK IN SHARE MODE)"
_BRANCHES_LEASED_ELSEWHERE: Final = (
    "SELECT run_id FROM runs WHERE run_id IN ({}) AND lease_expires > UNIX_TIMESTAMP(NOW(6))"
)
_MAX_BRANCHES: Final = 4096
_LOAD_BRANCHES: Final = "SELECT run_id, step, branch, node_id, delta, attempt, calls, ts FROM branches WHERE run_id = %s AND step = %s ORDER BY branch"
# Upsert; the EXISTS refuses unknown runs (0 rows). A replace counts 2 rows, an insert 1.
_SAVE_CP: Final = """INSERT INTO checkpoints (run_id, label, step, state, ts)
SELECT %s, %s, %s, %s, %s FROM DUAL WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = %s)
ON DUPLICATE KEY UPDATE step = VALUES(step), state = VALUES(state), ts = VALUES(ts)"""
_LOAD_CP: Final = "SELECT run_id, label, step, state, ts FROM checkpoints WHERE run_id = %s AND label = %s"
# Retention. MySQL has no data-modifying CTEs, so delete_steps_before is one transaction.
_SET_META: Final = "UPDATE runs SET meta = %s, updated_at = %s WHERE run_id = %s"
_DELETE_RUN: Final = "DELETE FROM runs WHERE run_id = %s"
_SNAPSHOT_AT: Final = "SELECT state IS NOT NULL FROM steps WHERE run_id = %s AND step = %s FOR UPDATE"
_HAS_STEPS: Final = "SELECT 1 FROM steps WHERE run_id = %s LIMIT 1"
_DELETE_BRANCHES_BEFORE: Final = "DELETE FROM branches WHERE run_id = %s AND step < %s"
_DELETE_STEPS_BEFORE: Final = "DELETE FROM steps WHERE run_id = %s AND step < %s"
# LAST_INSERT_ID(expr) hands the new token back to this connection without a second round trip.
_CLAIM: Final = """UPDATE runs SET lease_owner = %s, lease_token = LAST_INSERT_ID(lease_token + 1),
    lease_expires = UNIX_TIMESTAMP(NOW(6)) + %s
WHERE run_id = %s AND (lease_expires IS NULL OR lease_expires <= UNIX_TIMESTAMP(NOW(6)) OR lease_owner = %s)"""
_LEASE_OF: Final = "SELECT lease_token, lease_expires FROM runs WHERE run_id = %s"
_RENEW: Final = """UPDATE runs SET lease_expires = UNIX_TIMESTAMP(NOW(6)) + %s
WHERE run_id = %s AND lease_token = %s AND lease_expires > UNIX_TIMESTAMP(NOW(6))"""
_RELEASE: Final = (
    "UPDATE runs SET lease_owner = NULL, lease_expires = NULL WHERE run_id = %s AND lease_token = %s"
)

_STATUSES: Final = {s.value: s for s in RunStatus}


def _text(value: Any, run_id: Any = None, field: str = "run_id") -> str:
    """A key column (VARBINARY since v2) as the str it was written from."""
    if isinstance(value, str):
        return value
    try:
        return bytes(value).decode()
    except (UnicodeDecodeError, TypeError) as exc:
        raise CorruptRecordError(
            f"record of run {run_id if run_id is not None else value!r} is corrupt: field {field!r} "
            f"holds {value!r:.60}, not UTF-8 text",
            field=field,
        ) from exc


def _step_from_row(row: Sequence[Any]) -> StepRecord:
    return StepRecord(_text(row[0]), *row[1:])


def _branch_from_row(row: Sequence[Any]) -> BranchRecord:
    return BranchRecord(_text(row[0]), *row[1:])


def _run_from_row(row: Sequence[Any]) -> RunRecord:
    row = (_text(row[0]), *row[1:])
    status = _STATUSES.get(row[1])
    if status is None:
        raise CorruptRecordError(
            f"run record of run {row[0]!r} is corrupt: field 'status' holds unknown status {row[1]!r}",
            run_id=row[0],
            field="status",
        )
    return RunRecord(row[0], status, row[2], row[3], row[4], row[5], row[6], row[7], row[8], row[9].encode())


def _meta_text(run: RunRecord) -> str:
    try:
        return run.meta.decode()
    except UnicodeDecodeError as exc:
        raise StoreError(
            f"run {run.run_id!r}: meta is not UTF-8 JSON text ({exc}); MySQLStore keeps it in a JSON text column",
            run_id=run.run_id,
        ) from exc


# --------------------------------------------------------------------------------------------
# Driver exceptions -> StoreError. ONE table keyed by asyncmy exception class name (walked up the
# MRO); each entry looks at the MySQL error number (args[0]). Error numbers:
# https://mariadb.com/kb/en/mariadb-error-codes/ and the MySQL server error reference.

_Op = Literal["open", "create_run", "save_step", "save_branches", "save_checkpoint", "read", "write", "lease"]
_Pick = Callable[[BaseException, _Op], type[StoreError]]

_DUPLICATE_KEY: Final = 1062
_NO_PARENT: Final = frozenset({1452, 1216})  # foreign key: parent row missing
_RETRYABLE: Final = frozenset({1213, 1205})  # deadlock victim, lock wait timeout
_UNAVAILABLE_ERRNOS: Final = frozenset(
    {
        1040,  # too many connections
        1044,  # access denied to database
        1045,  # access denied for user
        1049,  # unknown database
        1053,  # server shutdown in progress
        1152,  # aborted connection
        1205,  # lock wait timeout
        1213,  # deadlock
        1290,  # read-only server (--read-only, a replica)
        1792,  # read-only transaction
        2002,  # cannot connect through socket
        2003,  # cannot connect to server
        2006,  # server has gone away
        2013,  # lost connection during query
    }
)


def _errno(exc: BaseException) -> int:
    args = getattr(exc, "args", ())
    return args[0] if args and isinstance(args[0], int) else 0


def _always(kind: type[StoreError]) -> _Pick:
    return lambda exc, op: kind


def _integrity(exc: BaseException, op: _Op) -> type[StoreError]:
    # A taken key or a missing parent row is a conflict; NOT NULL and CHECK (JSON_VALID)
    # failures mean a bad value was passed.
    code = _errno(exc)
    if code == _DUPLICATE_KEY or code in _NO_PARENT:
        if op == "create_run" and code == _DUPLICATE_KEY:
            return RunExistsError
        if op in ("save_step", "save_branches", "save_checkpoint"):
            return StepConflictError
    return StoreError


def _operational(exc: BaseException, op: _Op) -> type[StoreError]:
    code = _errno(exc)
    if code in _UNAVAILABLE_ERRNOS or op == "open":
        return StoreUnavailableError
    if code in (1030, 1034, 1035, 126, 127, 134, 145):  # storage engine / table marked crashed
        return CorruptRecordError
    return _integrity(exc, op)  # MariaDB reports some constraint failures as operational (4025)


_TRANSLATE: Final[dict[str, _Pick]] = {
    "IntegrityError": _integrity,
    "OperationalError": _operational,
    "InternalError": _operational,  # e.g. deadlock, lock timeouts on some servers
    "DataError": _always(StoreError),  # a value the column cannot hold
    "ProgrammingError": _operational,  # unknown table/database (1146/1049) comes as this
    "NotSupportedError": _always(StoreError),
    "DatabaseError": _operational,
    "InterfaceError": _always(StoreUnavailableError),  # the connection is closed or broken
    "Error": _operational,
    "MySQLError": _operational,
    "Warning": _always(StoreError),
    "OSError": _always(StoreUnavailableError),  # cannot connect, broken pipe
    "TimeoutError": _always(StoreUnavailableError),
}


def _translate(
    exc: BaseException, op: _Op, where: str, *, run_id: str | None = None, step: int | None = None
) -> StoreError:
    """Turn a driver exception into the `StoreError` subclass the table picks (caller adds `from exc`)."""
    kind: type[StoreError] = StoreError
    for cls in type(exc).__mro__:
        pick = _TRANSLATE.get(cls.__name__)
        if pick is not None:
            kind = pick(exc, op)
            break
    if op == "open" and kind is StoreError:
        kind = StoreUnavailableError
    what = f"run {run_id!r} already exists" if kind is RunExistsError else f"{op} failed"
    msg = f"{where}: {what}: {type(exc).__name__}: {exc}"
    if kind is CorruptRecordError:
        return CorruptRecordError(msg, run_id=run_id, step=step, field="")
    return kind(msg, run_id=run_id, step=step)


def _driver() -> ModuleType:
    """asyncmy, imported on first use so the extra is needed only by those who use this store."""
    try:
        import asyncmy
    except ImportError as exc:
        raise MissingDriverError(
            "MySQLStore needs the asyncmy driver: pip install 'graphengine[mysql]'"
        ) from exc
    mod: ModuleType = asyncmy
    return mod


def _parse_dsn(dsn: str) -> dict[str, Any]:
    url = urlsplit(dsn)
    if url.scheme not in ("mysql", "mariadb", "mysql+asyncmy"):
        raise ValueError(f"dsn scheme {url.scheme!r}; expected mysql://user:password@host:port/database")
    database = url.path.lstrip("/")
    if not database:
        raise ValueError("dsn names no database; expected mysql://user:password@host:port/database")
    return {
        "host": url.hostname or "127.0.0.1",
        "port": url.port or 3306,
        "user": unquote(url.username or "root"),
        "password": unquote(url.password or ""),
        "db": unquote(database),
    }


_OTHER_ERRORS: Final = (OSError, TimeoutError)


class MySQLStore(RunTransfer, PruneMixin):
    """A `Store` (and `LeaseStore`) in a MySQL or MariaDB database.

    `MySQLStore("mysql://root@127.0.0.1:3306/db")` needs no event loop and connects on first use.
    Use `async with` or `await store.close()`; a closed store raises `StoreUnavailableError`.
    Errors as for `PostgresStore`: `RunExistsError`, `StepConflictError`, `LeaseLostError`,
    `StoreUnavailableError`, `MissingDriverError`.
    """

    def __init__(
        self, dsn: str, *, min_size: int = 1, max_size: int = 10, connect_timeout: float = 10.0
    ) -> None:
        self._conn_args = _parse_dsn(dsn)
        if not 0 <= min_size <= max_size or max_size < 1:
            raise ValueError(
                f"min_size={min_size}, max_size={max_size}; expected 0 <= min_size <= max_size, max_size >= 1"
            )
        self.database: str = self._conn_args["db"]
        """The database holding this store's tables."""
        self.min_size = min_size
        """Connections the pool keeps open."""
        self.max_size = max_size
        """Most connections the pool opens."""
        self.connect_timeout = connect_timeout
        """Seconds to wait for a connection before `StoreUnavailableError`."""
        self._pool: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._closed = False
        self._errors: tuple[type[BaseException], ...] = _OTHER_ERRORS
        # Fencing tokens of the leases this store object holds, by run id (see LeaseStore).
        self._held: dict[str, int] = {}

    def __repr__(self) -> str:
        # Never show the DSN: it may hold a password.
        return f"MySQLStore(database={self.database!r})"

    # ---------------------------------------------------------------- connection management

    async def _db(self) -> Any:
        pool = self._pool
        if pool is not None and self._loop is asyncio.get_running_loop():
            return pool
        return await self._open_for_loop()

    async def _open_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        async with self._lock:
            if self._closed:
                raise StoreUnavailableError(f"{self!r} is closed")
            if self._pool is not None and self._loop is loop:
                return self._pool
            old, self._pool, self._loop = self._pool, None, None
            if old is not None:
                _terminate(old)
            pool = await self._connect()
            self._pool, self._loop = pool, loop
            return pool

    async def _connect(self) -> Any:
        asyncmy = _driver()
        self._errors = (asyncmy.errors.MySQLError, *_OTHER_ERRORS)
        where = repr(self)
        try:
            pool = await asyncmy.create_pool(
                minsize=self.min_size,
                maxsize=self.max_size,
                connect_timeout=self.connect_timeout,
                autocommit=True,
                charset="utf8mb4",
                binary_prefix=True,
                init_command="SET SESSION TRANSACTION ISOLATION LEVEL READ COMMITTED",
                **self._conn_args,
            )
        except self._errors as exc:
            raise _translate(exc, "open", where) from exc
        try:
            async with pool.acquire() as conn:
                await self._migrate(conn)
        except BaseException as exc:
            _terminate(pool)
            if isinstance(exc, self._errors):
                raise _translate(exc, "open", where) from exc
            raise
        return pool

    async def _migrate(self, conn: Any) -> None:
        async with conn.cursor() as cur:
            await cur.execute(_LOCK, (max(int(self.connect_timeout), 1) * 3,))
            got = await cur.fetchone()
            if not got or got[0] != 1:
                raise StoreUnavailableError(f"{self!r}: another process holds the migration lock")
            try:
                await cur.execute(_VERSION_TABLE)
                await cur.execute(_GET_VERSION)
                row = await cur.fetchone()
                version = int(row[0])
                if version > SCHEMA_VERSION:
                    raise StoreUnavailableError(
                        f"{self!r} has schema version {version}, newer than the {SCHEMA_VERSION} this "
                        "graphengine understands; upgrade graphengine to open it"
                    )
                for v in range(version, SCHEMA_VERSION):
                    migration = _MIGRATIONS[v]
                    if callable(migration):
                        await migration(cur)
                    else:
                        for stmt in migration:
                            await cur.execute(stmt)
                    await cur.execute(_SET_VERSION, (v + 1,))
            finally:
                await cur.execute(_UNLOCK)
                await cur.fetchone()

    async def close(self) -> None:
        """Close the pool; the store may not be used afterwards (`StoreUnavailableError`)."""
        self._closed = True
        pool, loop, self._pool, self._loop = self._pool, self._loop, None, None
        if pool is None:
            return
        if loop is asyncio.get_running_loop():
            pool.close()
            try:
                await asyncio.wait_for(pool.wait_closed(), self.connect_timeout)
                return
            except self._errors:
                pass  # closing is best effort: every write was already committed
        _terminate(pool)

    async def __aenter__(self) -> MySQLStore:
        """Connect now, so a bad DSN fails here rather than at the first write."""
        await self._db()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()

    async def _fetch(self, op: _Op, sql: str, args: Sequence[Any], *, run_id: str | None = None) -> list[Any]:
        pool = await self._db()
        try:
            async with pool.acquire() as conn, conn.cursor() as cur:
                await cur.execute(sql, args)
                return list(await cur.fetchall())
        except self._errors as exc:
            raise _translate(exc, op, repr(self), run_id=run_id) from exc

    async def _execute(
        self, op: _Op, sql: str, args: Sequence[Any], *, run_id: str | None = None, step: int | None = None
    ) -> int:
        """Run one write statement; returns the affected row count. A deadlock victim is retried:
        InnoDB rolled it back whole, so running it again is safe and then sees the winner's commit.
        """
        pool = self._pool
        if pool is None or self._loop is not asyncio.get_running_loop():
            pool = await self._open_for_loop()
        for attempt in range(3):
            try:
                async with pool.acquire() as conn, conn.cursor() as cur:
                    n: int = await cur.execute(sql, args)
                    return n
            except self._errors as exc:
                if _errno(exc) in _RETRYABLE and attempt < 2:
                    continue
                raise _translate(exc, op, repr(self), run_id=run_id, step=step) from exc
        raise AssertionError("unreachable")  # pragma: no cover

    # ---------------------------------------------------------------- runs

    async def create_run(self, run: RunRecord) -> None:
        """Store a new run; `RunExistsError` if the id is taken. Zero timestamps become now.

        `meta` must be UTF-8 JSON text; anything else is a `StoreError`.
        """
        check_id(run.run_id)
        now = time.time()
        rid = run.run_id
        args = (
            run.run_id,
            run.status.value,
            run.initial,
            run.fingerprint,
            run.state_version,
            run.created_at or now,
            run.updated_at or now,
            run.error,
            run.error_node,
            _meta_text(run),
            rid,
            rid,
            rid,
        )
        if await self._execute("create_run", _INSERT_RUN, args, run_id=run.run_id) != 1:
            raise await self._orphans(rid)

    async def _orphans(self, run_id: str) -> CorruptRecordError:
        """Describe the rows `run_id` left behind without a run record (cold path)."""
        [(step, branches, _)] = await self._fetch("read", _ORPHANS, (run_id, run_id, run_id), run_id=run_id)
        what = "steps" if step is not None else "branch results" if branches else "checkpoints"
        return orphans_error(run_id, step, what)

    async def get_run(self, run_id: str) -> RunRecord | None:
        """Return the run record, or None."""
        check_id(run_id)
        rows = await self._fetch("read", _GET_RUN, (run_id,), run_id=run_id)
        return _run_from_row(rows[0]) if rows else None

    async def set_status(
        self,
        run_id: str,
        status: RunStatus,
        *,
        error: str | None = None,
        error_node: str | None = None,
        expect_step: int | None = None,
        expect_status: RunStatus | None = None,
    ) -> None:
        """Change a run's status, error and `updated_at`; an unknown run is left alone.
        `LeaseLostError` as for `PostgresStore.set_status`; compare-and-set with `expect_step`
        and/or `expect_status` as there (`StatusConflictError`, nothing changed).
        """
        check_id(run_id)
        token = self._held.get(run_id)
        now = time.time()
        want = expect_status.value if expect_status is not None else None
        cas = (expect_step, run_id, expect_step, want, want)
        if token is None:
            n = await self._execute(
                "write", _SET_STATUS, (status.value, error, error_node, now, run_id, *cas), run_id=run_id
            )
        else:
            n = await self._execute(
                "write",
                _SET_STATUS_FENCED,
                (status.value, error, error_node, now, run_id, token, *cas),
                run_id=run_id,
            )
        if n == 0:
            await self._refuse(run_id, None, token, "status")
            if expect_step is not None or expect_status is not None:
                rows = await self._fetch("read", _STATUS_STATE, (run_id, run_id), run_id=run_id)
                if rows:
                    raise status_conflict(
                        self, run_id, rows[0][0], int(rows[0][1]), expect_step, expect_status
                    )

    async def list_runs(self, *, status: RunStatus | None = None, limit: int = 100) -> list[RunRecord]:
        """Return runs, newest first (ties: higher run id first), optionally only those with `status`."""
        if status is None:
            rows = await self._fetch("read", _LIST_RUNS, (max(limit, 0),))
        else:
            rows = await self._fetch("read", _LIST_RUNS_BY_STATUS, (status.value, max(limit, 0)))
        return [_run_from_row(r) for r in rows]

    # ---------------------------------------------------------------- steps

    async def save_step(self, rec: StepRecord) -> None:
        """Append a step record in one statement; `StepConflictError` unless it is the next step
        of an existing run, `LeaseLostError` if the writer may not write the run; either way
        nothing was written. A zero `ts` becomes now.
        """
        check_id(rec.run_id)
        params = rec if rec.ts else (*rec[:-1], time.time())
        token = self._held.get(rec.run_id)
        if token is None:
            args: tuple[Any, ...] = (*params, rec.run_id, rec.step, rec.run_id)
            sql = _INSERT_STEP
        else:
            args, sql = (*params, rec.run_id, rec.step, rec.run_id, token), _INSERT_STEP_FENCED
        n = await self._execute("save_step", sql, args, run_id=rec.run_id, step=rec.step)
        if n != 1:
            await self._refuse(rec.run_id, rec.step, token, "step")

    async def _refuse(
        self, run_id: str, step: int | None, token: int | None, what: Literal["step", "status", "other"]
    ) -> None:
        """Explain why a conditioned write changed nothing (see `PostgresStore._refuse`)."""
        rows = await self._fetch("read", _WRITE_STATE, (run_id, run_id), run_id=run_id)
        if not rows:
            if what != "step":
                return
            raise StepConflictError(f"run {run_id!r} does not exist", run_id=run_id, step=step)
        owner, current, live, expires, last = rows[0]
        owner = _text(owner, run_id, "lease_owner") if owner is not None else None
        if token is not None and (current != token or not live):
            why = "expired" if current == token else f"was taken over by {owner!r} (token {current})"
            raise LeaseLostError(
                f"{self!r}: the lease on run {run_id!r} with token {token} {why}; nothing was written "
                "and the run's new owner resumes it",
                run_id=run_id,
                step=step,
            )
        if token is None and live:
            raise LeaseLostError(
                f"{self!r}: run {run_id!r} is leased by {owner!r} until {expires:.3f} (database clock); "
                "only its owner may write it",
                run_id=run_id,
                step=step,
            )
        if what != "step":
            return
        raise StepConflictError(
            f"step {step} of run {run_id!r} conflicts: the next step to write is {(last or 0) + 1}",
            run_id=run_id,
            step=step,
        )

    async def load_latest(self, run_id: str) -> Latest | None:
        """Return the run, its newest snapshot and the steps after it (two reads, each consistent).

        `CorruptRecordError` if a step is missing, or if steps of this id outlived its run record.
        """
        run = await self.get_run(run_id)
        if run is None:
            if await self._fetch("read", _FIRST_STEP, (run_id,), run_id=run_id):
                raise await self._orphans(run_id)
            return None
        rows = await self._fetch("read", _LOAD_FROM_SNAPSHOT, (run_id, run_id), run_id=run_id)
        return latest_of(run, [_step_from_row(r) for r in rows])

    async def load_steps(
        self, run_id: str, *, after: int = 0, limit: int | None = None
    ) -> Sequence[StepRecord]:
        """Return step records with `step > after`, in order, at most `limit` of them.

        `CorruptRecordError` if a step in that range is missing or the steps have no run record.
        """
        check_id(run_id)
        lim = _NO_LIMIT if limit is None else max(limit, 0)
        rows = await self._fetch("read", _LOAD_STEPS, (run_id, after, lim), run_id=run_id)

        async def first_stored() -> tuple[int, bool] | None:
            got = await self._fetch("read", _FIRST_STEP, (run_id,), run_id=run_id)
            return (int(got[0][0]), bool(got[0][1])) if got else None

        async def run_exists() -> bool:
            return bool(await self._fetch("read", _RUN_EXISTS, (run_id,), run_id=run_id))

        return await checked_steps(run_id, after, [_step_from_row(r) for r in rows], first_stored, run_exists)

    # ---------------------------------------------------------------- fan-out branches

    async def save_branches(self, recs: Sequence[BranchRecord]) -> None:
        """Store landed branch results in one statement, all or nothing. `StepConflictError`
        (nothing written) if a (run, step, branch) is taken or a run does not exist;
        `LeaseLostError` as for `save_step`. At most 4,096 records per call.
        """
        if not recs:
            return
        for b in recs:
            check_id(b.run_id)
        first = recs[0]
        if len(recs) > _MAX_BRANCHES:
            raise StoreError(
                f"save_branches got {len(recs)} records; at most {_MAX_BRANCHES} fit in one atomic "
                "write: save them in several calls",
                run_id=first.run_id,
                step=first.step,
            )
        now = time.time()
        args: list[Any] = []
        for b in recs:
            args += b if b.ts else (*b[:-1], now)
        runs = sorted({b.run_id for b in recs})
        held = [r for r in runs if r in self._held]
        if held and len(runs) > 1:
            raise StoreError(
                f"{self!r}: save_branches got records of {len(runs)} runs, one of them leased here; "
                "save a leased run's branches in a call of their own",
                run_id=first.run_id,
                step=first.step,
            )
        token = self._held.get(first.run_id) if held else None
        if token is None:
            # Refuse runs another worker leases; a cold read, as unleased fan-outs are rare in
            # deployments that use leases at all. (Only placeholders are repeated into the text.)
            marks = ", ".join(["%s"] * len(runs))
            leased = await self._fetch("read", _BRANCHES_LEASED_ELSEWHERE.format(marks), runs)
            if leased:
                await self._refuse(_text(leased[0][0]), first.step, None, "other")
            sql = _INSERT_BRANCHES + ", ".join([_BRANCH_ROW] * len(recs))
        else:
            sql = (
                _INSERT_BRANCHES_FENCED
                + " UNION ALL ".join([_BRANCH_SELECT_ROW] * len(recs))
                + _BRANCHES_FENCE
            )
            args += (first.run_id, token)
        try:
            n = await self._execute("save_branches", sql, args, run_id=first.run_id, step=first.step)
        except StepConflictError as exc:
            raise StepConflictError(
                f"{self!r}: a branch of step {first.step} of run {first.run_id!r} is already "
                "stored, or the run does not exist; nothing was written",
                run_id=first.run_id,
                step=first.step,
            ) from exc.__cause__
        if n == 0 and token is not None:
            await self._refuse(first.run_id, first.step, token, "other")
            raise LeaseLostError(
                f"{self!r}: branches of run {first.run_id!r} were refused by a lease",
                run_id=first.run_id,
                step=first.step,
            )

    async def load_branches(self, run_id: str, step: int) -> Sequence[BranchRecord]:
        """Return the stored branch results of the fan-out at `step`, in branch order."""
        check_id(run_id)
        rows = await self._fetch("read", _LOAD_BRANCHES, (run_id, step), run_id=run_id)
        return [_branch_from_row(r) for r in rows]

    # ---------------------------------------------------------------- checkpoints

    async def save_checkpoint(self, cp: Checkpoint) -> None:
        """Save or replace the checkpoint `cp.label` of run `cp.run_id`; `StepConflictError` if
        the run does not exist. A zero `ts` becomes now.
        """
        check_id(cp.run_id)
        check_id(cp.label, "checkpoint label")
        args = (cp.run_id, cp.label, cp.step, cp.state, cp.ts or time.time(), cp.run_id)
        n = await self._execute("save_checkpoint", _SAVE_CP, args, run_id=cp.run_id, step=cp.step)
        if n == 0 and await self.get_run(cp.run_id) is None:
            # 0 rows also means "replaced with identical values", hence the check.
            raise StepConflictError(f"run {cp.run_id!r} does not exist", run_id=cp.run_id, step=cp.step)

    async def load_checkpoint(self, run_id: str, label: str) -> Checkpoint | None:
        """Return the checkpoint with this label, or None."""
        check_id(run_id)
        check_id(label, "checkpoint label")
        rows = await self._fetch("read", _LOAD_CP, (run_id, label), run_id=run_id)
        if not rows:
            return None
        rid, lab, *rest = rows[0]
        return Checkpoint(_text(rid), _text(lab, rid, "label"), *rest)

    # ---------------------------------------------------------------- retention

    async def update_meta(self, run_id: str, meta: bytes) -> None:
        """Replace the run's encoded JSON metadata (UTF-8 JSON text). Unknown run: no effect."""
        check_id(run_id)
        text = _meta_text(RunRecord(run_id, RunStatus.RUNNING, b"", meta=meta))
        await self._execute("write", _SET_META, (text, time.time(), run_id), run_id=run_id)

    async def delete_run(self, run_id: str) -> bool:
        """Delete a run with its steps, branch results and checkpoints; False if it did not exist."""
        check_id(run_id)
        return await self._execute("write", _DELETE_RUN, (run_id,), run_id=run_id) > 0

    async def delete_steps_before(self, run_id: str, step: int) -> int:
        """Delete the run's steps and branch results below `step` in one transaction; returns how
        many steps went. `StoreError` (nothing deleted) if `step` carries no state snapshot.
        """
        check_id(run_id)
        pool = await self._db()
        try:
            async with pool.acquire() as conn:
                await conn.begin()
                try:
                    async with conn.cursor() as cur:
                        await cur.execute(_SNAPSHOT_AT, (run_id, step))
                        row = await cur.fetchone()
                        if not row or not row[0]:
                            await cur.execute(_HAS_STEPS, (run_id,))
                            if await cur.fetchone() is None:
                                await conn.rollback()
                                return 0
                            raise StoreError(
                                f"run {run_id!r}: step {step} has no state snapshot; deleting the steps "
                                "before it would leave the run unrebuildable",
                                run_id=run_id,
                                step=step,
                            )
                        await cur.execute(_DELETE_BRANCHES_BEFORE, (run_id, step))
                        n: int = await cur.execute(_DELETE_STEPS_BEFORE, (run_id, step))
                    await conn.commit()
                    return n
                except BaseException:
                    await conn.rollback()
                    raise
        except self._errors as exc:
            raise _translate(exc, "write", repr(self), run_id=run_id, step=step) from exc

    # ---------------------------------------------------------------- leases (LeaseStore)

    async def claim(self, run_id: str, worker: str, ttl: float) -> Lease | None:
        """Own `run_id` for `ttl` seconds with a new fencing token; None while another worker's
        lease is live (see `LeaseStore`). Raises `StoreError` for an unknown run.
        """
        check_id(run_id)
        pool = await self._db()
        try:
            async with pool.acquire() as conn, conn.cursor() as cur:
                n = await cur.execute(_CLAIM, (worker, float(ttl), run_id, worker))
                if n == 1:
                    token = int(cur.lastrowid)
                    await cur.execute(_LEASE_OF, (run_id,))
                    row = await cur.fetchone()
        except self._errors as exc:
            raise _translate(exc, "lease", repr(self), run_id=run_id) from exc
        if n != 1:
            if await self.get_run(run_id) is None:
                raise StoreError(f"cannot claim run {run_id!r}: it does not exist", run_id=run_id)
            return None
        self._held[run_id] = token
        return Lease(run_id, worker, token, float(row[1]))

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        """Extend a live lease to `ttl` seconds from now; `LeaseLostError` if it expired or was taken."""
        n = await self._execute("lease", _RENEW, (float(ttl), lease.run_id, lease.token), run_id=lease.run_id)
        rows = await self._fetch("read", _LEASE_OF, (lease.run_id,), run_id=lease.run_id)
        if n != 1 or not rows or rows[0][0] != lease.token:
            await self._refuse(lease.run_id, None, lease.token, "other")
            raise LeaseLostError(f"{self!r}: the lease on run {lease.run_id!r} is gone", run_id=lease.run_id)
        return lease._replace(expires_at=float(rows[0][1]))

    async def release(self, lease: Lease) -> None:
        """Give the run up; its writes are no longer fenced here. No effect if the lease was lost."""
        if self._held.get(lease.run_id) == lease.token:
            del self._held[lease.run_id]
        await self._execute("lease", _RELEASE, (lease.run_id, lease.token), run_id=lease.run_id)


def _terminate(pool: Any) -> None:
    """Drop a pool's connections without a goodbye (best effort: every write is committed)."""
    # RuntimeError: the connections belong to an event loop that is closed.
    with contextlib.suppress(RuntimeError):
        pool.terminate()
