"""`SQLiteStore`: the embedded default store, one SQLite file through aiosqlite.

Decisions a caller should know:

- WAL journal, `synchronous=NORMAL` by default: a committed step survives a crash of the
  process (the WAL is replayed on open); only a power loss can drop the last few commits. Pass
  `synchronous="FULL"` to survive that too, at the cost of an fsync per step.
- Autocommit (`isolation_level=None`): each write is one SQL statement and therefore its own
  atomic transaction. `save_step` is a single `INSERT ... SELECT` that also checks, inside the
  same statement, that the run exists and that the step is exactly the next one, so nothing
  half-written is visible. Steps of concurrent runs are group-committed: those ready at the
  same moment go in one multi-row statement (one commit); a run writing alone writes on the
  event loop's thread, without a hop to the connection's thread (see
  `graphengine.store._sql._sqlite` for why, and when it does not). `save_step` returns only
  after the commit holding its step.
- The schema is versioned with `PRAGMA user_version`; migrations run on open, inside one
  `BEGIN IMMEDIATE` transaction so two processes opening a fresh file do not race. A file
  written by a newer graphengine is refused with `StoreUnavailableError`.
- The connection is opened lazily, on first use, inside the running event loop, and reopened
  when the store is used from another loop (each `asyncio.run` makes a new one).
- Rows are type-checked on the way out: a column holding the wrong type raises
  `CorruptRecordError` naming the run, the step and the field, never a half-built record.
- A run being driven is locked (`lock_run`): a byte lock on the sidecar file `<path>-runlock`
  that the operating system drops when the process dies, so the engine tells a live driver in
  another process from a crashed one at once (see `graphengine.store._runlock`).
- `":memory:"` works, but the database lives only as long as one connection: it is lost on
  `close()` or when the store moves to another event loop. Use `MemoryStore` for that instead.
"""

from __future__ import annotations

import asyncio
import functools
import logging
import sqlite3
import threading
import weakref
from collections.abc import Callable, Sequence
from pathlib import Path
from typing import Any, Final

import aiosqlite

from ._runlock import RunLocks
from ._sql import (
    PORTABLE,
    OneLoopMixin,
    Op,
    Statements,
    WaitsMixin,
    WaitStatements,
    driver_error,
    key_conflict,
    refused,
    run_record,
)
from ._sql import always as _always
from ._sql._group import Pending
from ._sql._schedules import ScheduleSQLMixin, ScheduleStatements
from ._sql._sqlite import BUSY_CODES, CHECKPOINT, CHECKPOINT_EVERY, MAX_BATCH, batch_insert, open_direct
from .errors import (
    CorruptRecordError,
    StoreError,
    StoreUnavailableError,
)
from .ids import check_id
from .records import BranchRecord, Checkpoint, RunRecord, StepRecord

__all__ = ["SCHEMA_VERSION", "SQLiteStore"]

log = logging.getLogger(__name__)

SCHEMA_VERSION: Final = 4
"""Schema version this module writes (`PRAGMA user_version`); older files are migrated on open."""

# _MIGRATIONS[v] takes a file from version v to v + 1. Append; never edit a released entry.
_MIGRATIONS: Final[tuple[tuple[str, ...], ...]] = (
    (
        """CREATE TABLE runs (
            run_id        TEXT PRIMARY KEY,
            status        TEXT NOT NULL,
            initial       BLOB NOT NULL,
            fingerprint   TEXT NOT NULL,
            state_version INTEGER NOT NULL,
            created_at    REAL NOT NULL,
            updated_at    REAL NOT NULL,
            error         TEXT,
            error_node    TEXT,
            meta          BLOB NOT NULL
        )""",
        "CREATE INDEX runs_created ON runs (created_at DESC, run_id DESC)",
        "CREATE INDEX runs_status_created ON runs (status, created_at DESC, run_id DESC)",
        # A rowid table, not WITHOUT ROWID: snapshots can be large and WITHOUT ROWID tables
        # store whole rows in the primary-key B-tree, which suits small rows only.
        """CREATE TABLE steps (
            run_id   TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            step     INTEGER NOT NULL,
            node_id  TEXT NOT NULL,
            delta    BLOB,
            route    TEXT NOT NULL,
            state    BLOB,
            attempt  INTEGER NOT NULL,
            error    TEXT,
            calls    BLOB,
            events   BLOB,
            ts       REAL NOT NULL,
            PRIMARY KEY (run_id, step)
        )""",
        # Resume asks "newest step with a snapshot"; this index holds only those steps.
        "CREATE INDEX steps_snapshot ON steps (run_id, step) WHERE state IS NOT NULL",
        """CREATE TABLE checkpoints (
            run_id TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            label  TEXT NOT NULL,
            step   INTEGER NOT NULL,
            state  BLOB NOT NULL,
            ts     REAL NOT NULL,
            PRIMARY KEY (run_id, label)
        )""",
    ),
    # v2: results of fan-out branches, kept as each lands so a resumed fan-out reruns only
    # the branches without one.
    (
        """CREATE TABLE branches (
            run_id  TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            step    INTEGER NOT NULL,
            branch  INTEGER NOT NULL,
            node_id TEXT NOT NULL,
            delta   BLOB,
            attempt INTEGER NOT NULL,
            calls   BLOB,
            ts      REAL NOT NULL,
            PRIMARY KEY (run_id, step, branch)
        )""",
    ),
    # v3: schedules (graphengine.schedules): what a scheduler queries is a column, the rest opaque JSON.
    (
        """CREATE TABLE schedules (
            schedule_id TEXT PRIMARY KEY,
            spec        BLOB NOT NULL,
            input       BLOB NOT NULL,
            due_at      INTEGER NOT NULL,
            paused      INTEGER NOT NULL,
            state       BLOB NOT NULL,
            version     INTEGER NOT NULL,
            created_at  REAL NOT NULL,
            updated_at  REAL NOT NULL
        )""",
        "CREATE INDEX schedules_due ON schedules (due_at) WHERE paused = 0",
    ),
    # v4: durable timers and signals (`WaitStore`). One timer row per run that waited; the
    # partial index holds only timers with a due time, which `clear_timer` drops on wake-up.
    (
        """CREATE TABLE timers (
            run_id  TEXT PRIMARY KEY REFERENCES runs (run_id) ON DELETE CASCADE,
            step    INTEGER NOT NULL,
            wake_at REAL,
            signal  TEXT
        )""",
        "CREATE INDEX timers_due ON timers (wake_at) WHERE wake_at IS NOT NULL",
        """CREATE TABLE signals (
            run_id     TEXT NOT NULL REFERENCES runs (run_id) ON DELETE CASCADE,
            signal_id  TEXT NOT NULL,
            name       TEXT NOT NULL,
            payload    BLOB NOT NULL,
            ts         REAL NOT NULL,
            taken_step INTEGER,
            PRIMARY KEY (run_id, signal_id)
        )""",
        "CREATE INDEX signals_arrival ON signals (run_id, name, ts)",
    ),
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

_SYNCHRONOUS: Final = frozenset({"OFF", "NORMAL", "FULL", "EXTRA"})

# Statements are plain literals (those shared with MySQL in `PORTABLE`), every value a bound parameter,
# in the order `graphengine.store._sql.Statements` documents. Column lists follow the records'
# field order, so a checked row is the record's positional arguments. Plain `?` placeholders
# (Python 3.14's sqlite3 refuses numbered ones bound from a sequence).
_STATEMENTS: Final = Statements(
    **PORTABLE,
    # Inserts nothing (rowcount 0) while rows of an earlier run with this id outlive its run
    # record (deleted under them): a new run must never fold another run's steps.
    insert_run="""INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
WHERE NOT EXISTS (SELECT 1 FROM steps WHERE run_id = ?) AND NOT EXISTS (SELECT 1 FROM branches WHERE run_id = ?)
  AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE run_id = ?)""",
    status_state="SELECT status, (SELECT max(step) FROM steps WHERE run_id = ?) FROM runs WHERE run_id = ?",
    # Compare-and-set: a NULL expectation disables its condition.
    set_status="""UPDATE runs SET status = ?, error = ?, error_node = ?, updated_at = ? WHERE run_id = ?
  AND (? IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = ?), 0) = ?)
  AND (? IS NULL OR status = ?)""",
    set_status_fenced=None,
    # The hot path. One statement = one implicit transaction in autocommit mode. It inserts
    # nothing (rowcount 0) unless the step is exactly the one after the newest stored one and
    # the run exists; both checks are index lookups on the primary keys. Refusals are explained
    # on a cold path.
    insert_step="""INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?, ?, ?
WHERE coalesce((SELECT step FROM steps WHERE run_id = ? ORDER BY step DESC LIMIT 1), 0) = ? - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = ?)""",
    insert_step_fenced=None,
    # No leases in SQLite: a refused write is explained by the newest step alone.
    write_state="SELECT NULL, 0, 0, NULL, (SELECT max(step) FROM steps WHERE run_id = ?) FROM runs WHERE run_id = ?",
    # Upsert; `WHERE EXISTS` both refuses unknown runs and keeps the INSERT ... SELECT ... ON
    # CONFLICT parse unambiguous (SQLite requires a WHERE there).
    save_checkpoint="""INSERT INTO checkpoints (run_id, label, step, state, ts)
SELECT ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ?)
ON CONFLICT (run_id, label) DO UPDATE SET step = excluded.step, state = excluded.state, ts = excluded.ts""",
)
_SCHEDULE_STATEMENTS: Final = ScheduleStatements(
    insert="""INSERT INTO schedules (schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at) SELECT ?, ?, ?, ?, ?, ?, ?, ?, ?
WHERE NOT EXISTS (SELECT 1 FROM schedules WHERE schedule_id = ?)""",
    get="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules WHERE schedule_id = ?",
    list_all="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules ORDER BY schedule_id LIMIT ?",
    list_due="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules WHERE paused = 0 AND due_at <= ? ORDER BY due_at, schedule_id LIMIT ?",
    update="""UPDATE schedules SET spec = ?, input = ?, due_at = ?, paused = ?, state = ?, updated_at = ?,
  version = version + 1 WHERE schedule_id = ? AND version = ?""",
    delete="DELETE FROM schedules WHERE schedule_id = ?",
)
# Due timers are read through the timers' due-time index first (CROSS JOIN fixes that order in
# SQLite): otherwise, with no statistics, the planner starts from every waiting run.
_WAIT_STATEMENTS: Final = WaitStatements(
    put_timer="""INSERT INTO timers (run_id, step, wake_at, signal)
SELECT ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ?)
ON CONFLICT (run_id) DO UPDATE SET step = excluded.step, wake_at = excluded.wake_at, signal = excluded.signal""",
    get_timer="SELECT run_id, step, wake_at, signal FROM timers WHERE run_id = ?",
    clear_timer="UPDATE timers SET wake_at = NULL WHERE run_id = ? AND step = ?",
    due_timers="""SELECT t.run_id, t.step, t.wake_at, t.signal FROM timers t CROSS JOIN runs r ON r.run_id = t.run_id
WHERE t.wake_at IS NOT NULL AND t.wake_at <= ? AND r.status = 'waiting' ORDER BY t.wake_at, t.run_id LIMIT ?""",
    next_due="""SELECT t.wake_at FROM timers t CROSS JOIN runs r ON r.run_id = t.run_id
WHERE t.wake_at IS NOT NULL AND r.status = 'waiting' ORDER BY t.wake_at LIMIT 1""",
    add_signal="""INSERT INTO signals (run_id, signal_id, name, payload, ts, taken_step)
SELECT ?, ?, ?, ?, ?, ? WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = ?)
ON CONFLICT (run_id, signal_id) DO NOTHING""",
    list_signals="SELECT run_id, signal_id, name, payload, ts, taken_step FROM signals WHERE run_id = ? ORDER BY ts, signal_id",
    pick_signal="""SELECT run_id, signal_id, name, payload, ts, taken_step FROM signals WHERE run_id = ? AND name = ?
AND (taken_step IS NULL OR taken_step >= ?) ORDER BY ts, signal_id LIMIT 1""",
    take_signal="""UPDATE signals SET taken_step = ? WHERE run_id = ? AND signal_id = ?
AND (taken_step IS NULL OR taken_step >= ?)""",
    release_signals="UPDATE signals SET taken_step = NULL WHERE run_id = ? AND taken_step >= ?",
)
# Kept by name: tests read the snapshot statement's plan.
_LOAD_FROM_SNAPSHOT: Final = _STATEMENTS.load_from_snapshot
_GET_RUN: Final = _STATEMENTS.get_run
_HAS_SNAPSHOT: Final = "SELECT state IS NOT NULL FROM steps WHERE run_id = ? AND step = ?"
_DELETE_STEPS_BEFORE: Final = "DELETE FROM steps WHERE run_id = ? AND step < ?"
_DELETE_BRANCHES_BEFORE: Final = "DELETE FROM branches WHERE run_id = ? AND step < ?"
# save_branches writes all its records with ONE multi-row INSERT, so they commit together: a
# taken (run, step, branch) or an unknown run (foreign key) fails the statement and writes none.
_INSERT_BRANCHES: Final = (
    "INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts) VALUES "
)
_BRANCH_ROW: Final = "(?, ?, ?, ?, ?, ?, ?, ?)"
# SQLite's default SQLITE_MAX_VARIABLE_NUMBER (since 3.32) is 32766 bound values per statement.
_MAX_BRANCHES: Final = 32766 // 8

# How long to wait for a connection left behind by a closed event loop to shut down.
_DISPOSE_TIMEOUT: Final = 2.0


def _stop_thread(conn: aiosqlite.Connection) -> None:
    """Stop the worker thread of `conn`, whose store was garbage-collected without `close()`.

    Left to itself, aiosqlite's finalizer stops the thread with a future of whatever event loop
    runs at that moment (often a later `asyncio.run`'s); when that loop closes before the thread
    answers, the thread dies printing "RuntimeError: Event loop is closed". Asked from a thread
    with no event loop, `stop()` gives the worker no future: it closes the connection and ends.
    """
    stop = getattr(conn, "stop", None)  # an aiosqlite without `stop` stops the thread its own way
    if stop is None:
        return
    try:
        asker = threading.Thread(target=stop, name="graphengine-sqlite-stop", daemon=True)
        asker.start()
    except RuntimeError:  # "can't create new thread at interpreter shutdown": the thread dies with it
        return
    asker.join()


def _stop_when_collected(store: object, conn: aiosqlite.Connection) -> weakref.finalize[Any, Any]:
    """Stop `conn`'s thread when `store` is collected; not at exit (the daemon thread dies with it)."""
    finalizer = weakref.finalize(store, _stop_thread, conn)
    finalizer.atexit = False
    return finalizer


# --------------------------------------------------------------------------------------------
# Row checks: what each column must hold. SQLite columns are loosely typed, so a row written by
# another tool (or damaged) can hold anything; we refuse it here rather than build a bad record.

_NONE: Final = type(None)
_RUN_TYPES: Final[tuple[tuple[str, tuple[type, ...]], ...]] = (
    ("run_id", (str,)),
    ("status", (str,)),
    ("initial", (bytes,)),
    ("fingerprint", (str,)),
    ("state_version", (int,)),
    ("created_at", (float, int)),
    ("updated_at", (float, int)),
    ("error", (str, _NONE)),
    ("error_node", (str, _NONE)),
    ("meta", (bytes,)),
)
_STEP_TYPES: Final[tuple[tuple[str, tuple[type, ...]], ...]] = (
    ("run_id", (str,)),
    ("step", (int,)),
    ("node_id", (str,)),
    ("delta", (bytes, _NONE)),
    ("route", (str,)),
    ("state", (bytes, _NONE)),
    ("attempt", (int,)),
    ("error", (str, _NONE)),
    ("calls", (bytes, _NONE)),
    ("events", (bytes, _NONE)),
    ("ts", (float,)),  # REAL affinity stores integers as REAL, so only a float is sound
)
_BRANCH_TYPES: Final[tuple[tuple[str, tuple[type, ...]], ...]] = (
    ("run_id", (str,)),
    ("step", (int,)),
    ("branch", (int,)),
    ("node_id", (str,)),
    ("delta", (bytes, _NONE)),
    ("attempt", (int,)),
    ("calls", (bytes, _NONE)),
    ("ts", (float,)),
)
_CP_TYPES: Final[tuple[tuple[str, tuple[type, ...]], ...]] = (
    ("run_id", (str,)),
    ("label", (str,)),
    ("step", (int,)),
    ("state", (bytes,)),
    ("ts", (float, int)),
)

# Step and branch records are NamedTuples whose field order is the column order above, so a
# record is its own parameter tuple and a checked row is the record. Fail at import, not at the
# first write, if the records and the columns ever drift apart.
for _rec, _types in ((StepRecord, _STEP_TYPES), (BranchRecord, _BRANCH_TYPES)):
    if _rec._fields != tuple(name for name, _ in _types):
        raise ImportError(
            f"graphengine.store.sqlite: columns {[n for n, _ in _types]} do not match {_rec.__name__}._fields"
        )
del _rec, _types


def _check(
    row: Sequence[Any], types: tuple[tuple[str, tuple[type, ...]], ...], what: str, step_col: int | None
) -> None:
    """Raise `CorruptRecordError` naming the first column of `row` whose type is not allowed."""
    for (name, allowed), value in zip(types, row, strict=True):
        if type(value) not in allowed:
            run_id = row[0] if type(row[0]) is str else None
            step = row[step_col] if step_col is not None and type(row[step_col]) is int else None
            where = f"{what} of run {run_id!r}" if step is None else f"step {step} of run {run_id!r}"
            expected = " or ".join("NULL" if t is _NONE else t.__name__ for t in allowed)
            raise CorruptRecordError(
                f"{where} is corrupt: field {name!r} holds {type(value).__name__} {value!r:.40}, "
                f"expected {expected}",
                run_id=run_id,
                step=step,
                field=name,
            )


def _run_from_row(row: Sequence[Any]) -> RunRecord:
    _check(row, _RUN_TYPES, "run record", None)
    return run_record(row, row[0], row[9])


def _step_from_row(row: Sequence[Any]) -> StepRecord:
    _check(row, _STEP_TYPES, "step record", 1)
    return StepRecord._make(row)


def _branch_from_row(row: Sequence[Any]) -> BranchRecord:
    _check(row, _BRANCH_TYPES, "branch record", 1)
    return BranchRecord._make(row)


def _checkpoint_from_row(row: Sequence[Any]) -> Checkpoint:
    _check(row, _CP_TYPES, "checkpoint", None)
    return Checkpoint(row[0], row[1], row[2], row[3], float(row[4]))


# --------------------------------------------------------------------------------------------
# Driver exceptions -> StoreError. ONE table, keyed by every exception class sqlite3 defines
# (tests/store/test_store_sqlite.py fails if sqlite3 grows one that is missing). Each entry picks the
# StoreError subclass from the SQLite result code and the operation that failed.

_Op = Op

# Primary result codes (the low byte of an extended code); see https://sqlite.org/rescode.html.
_SQLITE_CORRUPT: Final = 11
_SQLITE_NOTADB: Final = 26
_UNAVAILABLE_CODES: Final = frozenset(
    {
        5,  # SQLITE_BUSY: another connection holds the lock past busy_timeout
        6,  # SQLITE_LOCKED
        8,  # SQLITE_READONLY
        10,  # SQLITE_IOERR
        13,  # SQLITE_FULL
        14,  # SQLITE_CANTOPEN
        15,  # SQLITE_PROTOCOL
        23,  # SQLITE_AUTH
        _SQLITE_NOTADB,  # the file is something else: this store cannot be opened on it
    }
)
_UNAVAILABLE_MESSAGES: Final = (
    "database is locked",
    "database table is locked",
    "unable to open",
    "disk i/o error",
    "readonly database",
    "file is not a database",
    "database or disk is full",
)
# Extended codes of constraint failures that mean "that key is taken" (or its parent is missing),
# as opposed to NOT NULL / CHECK failures, which mean a bad value was passed.
_KEY_CONSTRAINTS: Final = frozenset(
    {
        1555,  # SQLITE_CONSTRAINT_PRIMARYKEY
        2067,  # SQLITE_CONSTRAINT_UNIQUE
        787,  # SQLITE_CONSTRAINT_FOREIGNKEY
    }
)

_REFUSED_CODES: Final = frozenset(
    {
        18,  # SQLITE_TOOBIG: a string or blob over SQLITE_LIMIT_LENGTH
        20,  # SQLITE_MISMATCH: a value of the wrong type for its column
    }
)


def _code(exc: BaseException) -> int:
    return getattr(exc, "sqlite_errorcode", 0) or 0


def _integrity(exc: BaseException, op: _Op) -> type[StoreError]:
    code = _code(exc)
    # Without a code, only a key message means "taken"; NOT NULL / CHECK mean a bad value.
    if code in _KEY_CONSTRAINTS or (code == 0 and ("UNIQUE" in str(exc) or "FOREIGN KEY" in str(exc))):
        return key_conflict(op)
    # NOT NULL, CHECK, a trigger's RAISE: the database refuses this value, and always will.
    return refused(exc, op)


def _by_code(exc: BaseException, op: _Op) -> type[StoreError]:
    code = _code(exc) & 0xFF
    if code in _UNAVAILABLE_CODES:
        return StoreUnavailableError
    if code == _SQLITE_CORRUPT:
        return CorruptRecordError
    if code in _REFUSED_CODES:
        return refused(exc, op)
    msg = str(exc).lower()
    # Raised by Python's sqlite3 (no SQLite code) when a TEXT column holds invalid UTF-8.
    if msg.startswith("could not decode to utf-8") or "malformed" in msg:
        return CorruptRecordError
    # Exceptions without a result code (raised by hand or by older drivers): go by the message.
    if code == 0 and any(m in msg for m in _UNAVAILABLE_MESSAGES):
        return StoreUnavailableError
    if op == "open":
        return StoreUnavailableError
    return StoreError


def _programming(exc: BaseException, op: _Op) -> type[StoreError]:
    # "Cannot operate on a closed database": the connection went away under us.
    return StoreUnavailableError if "closed" in str(exc) else StoreError


_TRANSLATE: Final[dict[type[BaseException], Callable[[BaseException, _Op], type[StoreError]]]] = {
    sqlite3.IntegrityError: _integrity,
    sqlite3.OperationalError: _by_code,
    sqlite3.DatabaseError: _by_code,
    sqlite3.DataError: refused,  # a value out of range, a string or blob too big
    sqlite3.InternalError: _by_code,
    sqlite3.NotSupportedError: _always(StoreError),
    sqlite3.ProgrammingError: _programming,
    sqlite3.InterfaceError: refused,  # a parameter of an unsupported type
    sqlite3.Error: _by_code,
    sqlite3.Warning: _always(StoreError),
    # Raised by sqlite3 itself while binding: a str with a lone surrogate, an int over 64 bits.
    UnicodeEncodeError: refused,
    OverflowError: refused,
}


def _translate(
    exc: BaseException, op: _Op, where: str, *, run_id: str | None = None, step: int | None = None
) -> StoreError:
    """Turn a driver exception into the `StoreError` subclass the table picks (caller adds `from exc`)."""
    for cls in type(exc).__mro__:
        pick = _TRANSLATE.get(cls)
        if pick is not None:
            kind = pick(exc, op)
            break
    else:
        kind = StoreError
    return driver_error(kind, exc, op, where, run_id=run_id, step=step, open_unavailable=False)


_ROW_ROOM: Final = 64 << 10
"""Bytes of SQLITE_LIMIT_LENGTH left for a step row's key and small columns."""


@functools.cache
def _max_length() -> int:
    """SQLITE_LIMIT_LENGTH of this SQLite library: the most bytes of a string, a blob or a row."""
    conn = sqlite3.connect(":memory:")
    try:
        return conn.getlimit(sqlite3.SQLITE_LIMIT_LENGTH)
    finally:
        conn.close()


# sqlite3 raises the last two itself while binding a value it cannot store (a str with a lone
# surrogate, an int over 64 bits): a bad value, reported as `ValueRefusedError`.
_DRIVER_ERRORS: Final = (sqlite3.Error, sqlite3.Warning, UnicodeEncodeError, OverflowError)
# Writes that go on the loop connection when they can (see `graphengine.store._sql._sqlite`):
# one short statement each, none relying on a foreign key (that connection checks none).
_ON_LOOP: Final[frozenset[_Op]] = frozenset({"save_step", "create_run"})


class SQLiteStore(WaitsMixin, OneLoopMixin, ScheduleSQLMixin):
    """A `Store` in one SQLite file (WAL, versioned schema), for one or many processes on one machine.

    `SQLiteStore("runs.db")` needs no event loop: the file is opened on first use. Use
    `async with SQLiteStore(path) as store:` or `await store.close()` to release it; a closed
    store raises `StoreUnavailableError`. Errors: `RunExistsError`, `StepConflictError` (a step
    that is not the next one of an existing run), `CorruptRecordError` (a row holding the wrong
    types, or a damaged file), `StoreUnavailableError` (cannot open, locked past `busy_timeout`,
    not a database, a schema newer than this code).
    """

    def __init__(
        self,
        path: str | Path,
        *,
        synchronous: str = "NORMAL",
        busy_timeout: float = 5.0,
    ) -> None:
        sync = synchronous.upper()
        if sync not in _SYNCHRONOUS:
            raise ValueError(f"synchronous={synchronous!r}; expected one of {sorted(_SYNCHRONOUS)}")
        if busy_timeout < 0:
            raise ValueError(f"busy_timeout={busy_timeout!r}; expected seconds >= 0")
        self.path: str | Path = path
        """Where the database lives (a file path, or ":memory:")."""
        self.synchronous = sync
        """`PRAGMA synchronous` for the connection (NORMAL: crash-safe, not power-loss-safe)."""
        self.busy_timeout = busy_timeout
        """Seconds a statement waits for another connection's lock before `StoreUnavailableError`."""
        self._init_handle()  # the aiosqlite connection of the loop that opened it last
        # Writes single steps on the event loop's thread (see `graphengine.store._sql._sqlite`).
        self._direct: sqlite3.Connection | None = None
        # SQLITE_LIMIT_LENGTH bounds a whole row too: room is left for its small columns.
        self.max_value_bytes: int | None = max(_max_length() - _ROW_ROOM, 0)
        self._direct_commits = 0
        # Per open aiosqlite connection (by id): stops its thread if the store is collected unclosed.
        self._unclosed: dict[int, weakref.finalize[Any, Any]] = {}
        self._checkpointing: asyncio.Task[None] | None = None
        # Held while a transaction of several statements is open on the thread connection:
        # aiosqlite runs every task's statements on that one connection, so a statement sent
        # meanwhile would join the transaction (and be undone by its rollback).
        self._txn: asyncio.Lock | None = None
        self._txn_loop: asyncio.AbstractEventLoop | None = None
        self._init_sql()
        memory = str(path) in ("", ":memory:")  # one connection's database: no other process sees it
        self._locks: RunLocks | None = None if memory else RunLocks(f"{path}-runlock")

    _sql = _STATEMENTS
    _wait_sql = _WAIT_STATEMENTS
    _schedule_sql = _SCHEDULE_STATEMENTS
    _no_limit = -1
    _max_branches = _MAX_BRANCHES
    _max_batch = MAX_BATCH

    def __repr__(self) -> str:
        return f"SQLiteStore({str(self.path)!r})"

    # ---------------------------------------------------------------- connection management

    @property
    def _conn(self) -> aiosqlite.Connection | None:
        """The connection of the loop that opened it last (None before the first use)."""
        conn: aiosqlite.Connection | None = self._handle
        return conn

    async def _connect(self) -> aiosqlite.Connection:
        conn = await self._open_conn()
        try:
            self._direct = await asyncio.to_thread(open_direct, self.path, self.synchronous)
        except _DRIVER_ERRORS:
            # Only a shortcut: every write can still take the thread connection.
            log.warning("%r: no loop-thread connection; steps go through the thread", self, exc_info=True)
        return conn

    async def _discard(self, handle: aiosqlite.Connection) -> None:
        await self._dispose(handle)

    async def _open_conn(self) -> aiosqlite.Connection:
        where = repr(self)
        try:
            conn = aiosqlite.connect(self.path, isolation_level=None, timeout=self.busy_timeout)
            # aiosqlite >= 0.22 runs each connection on a non-daemon thread, so a store the user
            # never closed would keep the interpreter from exiting. Committed data is on disk
            # (WAL), so letting the thread die with the process loses nothing.
            thread = getattr(conn, "_thread", None)
            if isinstance(thread, threading.Thread):
                thread.daemon = True
        except _DRIVER_ERRORS as exc:
            raise _translate(exc, "open", where) from exc
        try:
            await conn
        except _DRIVER_ERRORS as exc:
            # aiosqlite stops its worker thread without waiting; that thread then answers on
            # this loop, so wait for it here or it may find the loop closed and die noisily.
            if isinstance(thread, threading.Thread) and thread.is_alive():
                await asyncio.to_thread(thread.join, _DISPOSE_TIMEOUT)
            raise _translate(exc, "open", where) from exc
        # Registered before `_prepare`, whose failure disposes of the connection (and detaches it).
        self._unclosed[id(conn)] = _stop_when_collected(self, conn)
        try:
            await self._prepare(conn)
        except BaseException as exc:
            await self._dispose(conn)
            if isinstance(exc, _DRIVER_ERRORS):
                raise _translate(exc, "open", where) from exc
            raise
        return conn

    async def _prepare(self, conn: aiosqlite.Connection) -> None:
        # PRAGMA arguments cannot be bound as parameters; both values below are validated
        # (a whitelisted word and an int), never user text.
        await conn.execute(f"PRAGMA busy_timeout = {int(self.busy_timeout * 1000)}")
        rows = list(await conn.execute_fetchall("PRAGMA journal_mode = WAL"))
        mode = str(rows[0][0]).lower() if rows else ""
        if mode not in ("wal", "memory"):
            raise StoreUnavailableError(f"{self!r}: cannot switch the journal to WAL (it is {mode!r})")
        await conn.execute(f"PRAGMA synchronous = {self.synchronous}")
        await conn.execute("PRAGMA foreign_keys = ON")
        await self._migrate(conn)

    async def _user_version(self, conn: aiosqlite.Connection) -> int:
        rows = list(await conn.execute_fetchall("PRAGMA user_version"))
        return int(rows[0][0])

    async def _migrate(self, conn: aiosqlite.Connection) -> None:
        version = await self._user_version(conn)
        if version == SCHEMA_VERSION:
            return
        if version > SCHEMA_VERSION:
            raise StoreUnavailableError(
                f"{self!r} has schema version {version}, newer than the {SCHEMA_VERSION} this "
                "graphengine understands; upgrade graphengine to open it"
            )
        # IMMEDIATE takes the write lock now, so a second process opening the same fresh file
        # waits and then sees the migrated version instead of creating the tables twice.
        await conn.execute("BEGIN IMMEDIATE")
        try:
            version = await self._user_version(conn)
            for v in range(version, SCHEMA_VERSION):
                for stmt in _MIGRATIONS[v]:
                    await conn.execute(stmt)
            if version < SCHEMA_VERSION:
                # user_version is transactional: it commits with the tables or not at all.
                await conn.execute(f"PRAGMA user_version = {SCHEMA_VERSION:d}")
            await conn.execute("COMMIT")
        except BaseException:
            await conn.execute("ROLLBACK")
            raise

    async def _dispose(self, conn: aiosqlite.Connection) -> None:
        finalizer = self._unclosed.pop(id(conn), None)
        if finalizer is not None:
            finalizer.detach()  # closed below: nothing is left to stop when the store is collected
        direct, self._direct = self._direct, None
        if direct is not None:
            direct.close()  # nothing is pending on it: each of its writes is one autocommit statement
        # A connection opened in a loop that has since closed can still be closed from this one
        # (aiosqlite answers on the loop of the awaiting future); the timeout guards against a
        # worker thread that died with that loop.
        try:
            await asyncio.wait_for(conn.close(), _DISPOSE_TIMEOUT)
        except Exception:  # closing is best effort; the file is consistent either way (WAL)
            log.warning("%r: could not close a stale connection", self, exc_info=True)

    def lock_run(self, run_id: str) -> bool:
        """Mark `run_id` as driven by this process; False if a live process (this one included) has.

        The lock is a byte lock on `<path>-runlock`, dropped by the operating system when the
        process dies, so False means a live driver, never a crashed one. Unlocked by `unlock_run`.
        """
        check_id(run_id)
        return True if self._locks is None else self._locks.lock(run_id)

    def unlock_run(self, run_id: str) -> None:
        """Give up the lock of `lock_run` (no effect if it is not held here)."""
        if self._locks is not None:
            self._locks.unlock(run_id)

    async def close(self) -> None:
        """Close the connection; the store may not be used afterwards (`StoreUnavailableError`)."""
        self._closed = True
        if self._locks is not None:
            self._locks.close()
        conn, self._handle, self._loop = self._handle, None, None
        if conn is not None:
            if self._checkpointing is not None:
                await asyncio.gather(self._checkpointing, return_exceptions=True)
            await self._dispose(conn)

    # ---------------------------------------------------------------- driver glue (SQLStore)

    def _txn_lock(self) -> asyncio.Lock:
        """The lock a transaction of several statements holds on the thread connection (per loop)."""
        loop = asyncio.get_running_loop()
        if self._txn is None or self._txn_loop is not loop:
            self._txn, self._txn_loop = asyncio.Lock(), loop
        return self._txn

    async def _outside_txn(self) -> None:
        """Wait until no transaction of this store is open on the thread connection.

        Call it right before sending a statement to that connection, with no await in between:
        aiosqlite queues a statement when it is called, so it then runs after the transaction.
        """
        txn = self._txn
        while txn is not None and txn.locked() and self._txn_loop is asyncio.get_running_loop():
            async with txn:
                pass

    async def _rows(self, sql: str, params: Sequence[Any], *, run_id: str | None = None) -> list[Any]:
        conn = await self._db()
        await self._outside_txn()
        try:
            return list(await conn.execute_fetchall(sql, params))
        except _DRIVER_ERRORS as exc:
            raise _translate(exc, "read", repr(self), run_id=run_id) from exc

    async def _count(
        self, op: _Op, sql: str, params: Sequence[Any], *, run_id: str | None = None, step: int | None = None
    ) -> int:
        if op in _ON_LOOP and self._direct is not None:
            n = self._direct_count(op, sql, params, run_id, step)
            if n is not None:
                return n
        # Inlined `_db`: this is the hot path of every step.
        conn = self._handle
        if conn is None or self._loop is not asyncio.get_running_loop():
            conn = await self._open_for_loop()
        await self._outside_txn()
        try:
            cur = await conn.execute(sql, params)
        except _DRIVER_ERRORS as exc:
            raise _translate(exc, op, repr(self), run_id=run_id, step=step) from exc
        return int(cur.rowcount)

    async def _write_steps(self, batch: list[Pending]) -> None:
        """One step alone on the loop connection; several in one statement on the thread's."""
        if len(batch) == 1:
            await super()._write_steps(batch)  # one statement: `_count`, on the loop if it can
            return
        conn = self._handle
        if conn is None or self._loop is not asyncio.get_running_loop():
            conn = await self._open_for_loop()
        await self._outside_txn()
        params = [value for p in batch for value in p.params[:11]]
        try:
            rows = await conn.execute_fetchall(batch_insert(len(batch)), params)
        except Exception as exc:  # a driver error, or a value sqlite3 cannot bind (OverflowError)
            # The statement wrote nothing. A file locked past busy_timeout, full or failing fails
            # every step alike, and one statement per step would wait busy_timeout once per step:
            # each step gets that error now. Otherwise one statement per step isolates the bad one.
            if isinstance(exc, _DRIVER_ERRORS) and isinstance(
                _translate(exc, "save_step", ""), StoreUnavailableError
            ):
                for p in batch:
                    err = _translate(exc, "save_step", repr(self), run_id=p.run_id, step=p.step)
                    err.__cause__ = exc
                    p.done(err)
                return
            await super()._write_steps(batch)
            return
        written = {row[0] for row in rows}
        for p in batch:
            p.done(1 if p.run_id in written else 0)

    def _direct_count(
        self, op: _Op, sql: str, params: Sequence[Any], run_id: str | None, step: int | None
    ) -> int | None:
        """Run one short write on the loop connection; None if another connection holds the lock."""
        assert self._direct is not None
        try:
            n = self._direct.execute(sql, params).rowcount
        except _DRIVER_ERRORS as exc:
            if _code(exc) & 0xFF in BUSY_CODES:
                return None
            raise _translate(exc, op, repr(self), run_id=run_id, step=step) from exc
        self._direct_commits += 1
        if self._direct_commits % CHECKPOINT_EVERY == 0 and self._checkpointing is None:
            self._checkpointing = asyncio.get_running_loop().create_task(self._checkpoint())
        return int(n)

    async def _checkpoint(self) -> None:
        """Copy the WAL into the database on the thread connection (the loop one never does).

        Skipped once the store is closing: the task may only start after `close` began, and
        closing the last connection checkpoints the WAL anyway (it is no failure to report).
        """
        try:
            if self._closed:
                return
            conn = await self._db()
            await self._outside_txn()
            await conn.execute(CHECKPOINT)
        except Exception:  # the next checkpoint catches up; the WAL stays valid meanwhile
            if not self._closed:
                log.warning("%r: passive checkpoint failed", self, exc_info=True)
        finally:
            self._checkpointing = None

    def _run_row(self, row: Sequence[Any]) -> RunRecord:
        return _run_from_row(row)

    def _step_row(self, row: Sequence[Any]) -> StepRecord:
        return _step_from_row(row)

    def _branch_row(self, row: Sequence[Any]) -> BranchRecord:
        return _branch_from_row(row)

    def _checkpoint_row(self, row: Sequence[Any]) -> Checkpoint:
        return _checkpoint_from_row(row)

    async def _branches_statement(
        self, rows: list[Sequence[Any]], runs: list[str], token: int | None
    ) -> tuple[str, Sequence[Any]]:
        # Only the constant placeholder group is repeated into the text; values are all bound.
        sql = _INSERT_BRANCHES + ", ".join([_BRANCH_ROW] * len(rows))
        return sql, [value for row in rows for value in row]

    # ---------------------------------------------------------------- retention

    async def delete_steps_before(self, run_id: str, step: int) -> int:
        """Delete steps and branch results below `step` (which must carry a snapshot), atomically."""
        check_id(run_id)
        conn = await self._db()
        async with self._txn_lock():
            return await self._delete_steps_before(conn, run_id, step)

    async def _delete_steps_before(self, conn: aiosqlite.Connection, run_id: str, step: int) -> int:
        try:
            await conn.execute("BEGIN IMMEDIATE")
            try:
                rows = list(await (await conn.execute(_HAS_SNAPSHOT, (run_id, step))).fetchall())
                if not rows or not rows[0][0]:
                    await conn.execute("ROLLBACK")
                    if not rows and not list(await conn.execute_fetchall(_GET_RUN, (run_id,))):
                        return 0
                    raise StoreError(
                        f"run {run_id!r}: step {step} has no state snapshot; deleting the steps before "
                        "it would leave the run unrebuildable",
                        run_id=run_id,
                        step=step,
                    )
                cur = await conn.execute(_DELETE_STEPS_BEFORE, (run_id, step))
                await conn.execute(_DELETE_BRANCHES_BEFORE, (run_id, step))
                await conn.execute("COMMIT")
            except BaseException:
                if conn.in_transaction:
                    await conn.execute("ROLLBACK")
                raise
        except _DRIVER_ERRORS as exc:
            raise _translate(exc, "write", repr(self), run_id=run_id, step=step) from exc
        return int(cur.rowcount)
