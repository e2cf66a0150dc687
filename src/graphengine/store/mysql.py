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
  Steps of concurrent runs are group-committed: those ready at the same moment share one
  transaction (one redo log flush), and each `save_step` returns after that commit. The batch
  is one multi-row `INSERT ... SELECT` (one round trip); if any step of it is refused or bad,
  it is rolled back and the steps go a statement each in one transaction, to tell whose it was.
- New runs (`create_run`) and status changes (`set_status`) of concurrent runs are grouped the
  same way, each kind in one statement per batch (a multi-row `INSERT ... SELECT`; an `UPDATE`
  joined with the batch's rows) with each row's own conditions. MySQL has no `RETURNING`, so a
  batch commits only if every row was written; otherwise it is rolled back and each run is
  written alone, which gives every call the outcome (and the error) it gets when made alone.
- Step writes go over one connection held out of the pool (the writer; none with
  `max_size=1`), saving a pool acquire and release per step. A writer the server closed while
  idle (a `KILL`, a timeout) is seen before the next write and replaced.
- A write waits at most `lock_timeout` seconds (10 by default, rounded up to whole seconds:
  `innodb_lock_wait_timeout` of the store's sessions; None leaves the server's setting) for a
  row lock another session holds, such as an operator's open transaction over a run's row, then
  fails with `StoreUnavailableError` (nothing written, the run resumable). A group commit that
  times out so is written again a transaction per step: the other runs of the group commit, and
  only the run whose row is locked gets the error.
- Leases and fencing as in `PostgresStore`: while this store holds a lease on a run, its step,
  branch and status writes are conditioned on the token in the same statement, with a locking
  read of the run row (`LOCK IN SHARE MODE`) so a concurrent claim and a stale write serialize.
- Driver exceptions are translated in ONE table (`_TRANSLATE`, by exception class, each entry
  looking at the MySQL error number), checked complete by `tests/store/test_store_mysql.py`.
"""

from __future__ import annotations

import asyncio
import hashlib
from collections.abc import Awaitable, Callable, Iterable, Sequence
from typing import Any, Final

from ._branch_claims import BranchClaimMixin, BranchClaimStatements
from ._lease import Lease
from ._sql import (
    LOCK_TIMEOUT,
    PORTABLE,
    Grouped,
    GroupedRunsMixin,
    LeaseMixin,
    Op,
    Statements,
    WaitsMixin,
    WaitStatements,
    WriterMixin,
    group_rows,
    meta_text,
    run_record,
)
from ._sql._group import Pending
from ._sql._mysql import (
    DEADLOCK,
    NOTES_OFF,
    NOTES_ON,
    RETRYABLE,
    TRANSLATE,
    MySQLPools,
    acquire,
    breaks_connection,
    errno,
    text,
    translate,
)
from ._sql._schedules import ScheduleSQLMixin, ScheduleStatements
from .errors import (
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)
from .ids import check_id
from .records import BranchRecord, Checkpoint, RunRecord, StepRecord

__all__ = ["SCHEMA_VERSION", "MySQLStore"]

SCHEMA_VERSION: Final = 5
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
    # v3: branch claims.
    (
        # Claims of fan-out branches run as jobs of their own (`graphengine.store._branch_claims`).
        """CREATE TABLE IF NOT EXISTS branch_claims (
            run_id  VARBINARY(1020) NOT NULL,
            step    INT NOT NULL,
            branch  INT NOT NULL,
            owner   VARBINARY(1020) NOT NULL,
            token   BIGINT NOT NULL,
            expires DOUBLE NOT NULL,
            error   LONGTEXT,
            PRIMARY KEY (run_id, step, branch),
            CONSTRAINT branch_claims_run FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
        ) ENGINE = InnoDB DEFAULT CHARSET = utf8mb4 COLLATE = utf8mb4_bin""",
    ),
    # v4: schedules (graphengine.schedules): what a scheduler queries is a column, the rest opaque JSON.
    (
        """CREATE TABLE IF NOT EXISTS schedules (
            schedule_id VARBINARY(1020) NOT NULL PRIMARY KEY,
            spec        LONGBLOB NOT NULL,
            input       LONGBLOB NOT NULL,
            due_at      BIGINT NOT NULL,
            paused      BOOLEAN NOT NULL,
            state       LONGBLOB NOT NULL,
            version     BIGINT NOT NULL,
            created_at  DOUBLE NOT NULL,
            updated_at  DOUBLE NOT NULL,
            KEY schedules_due (paused, due_at)
        ) ENGINE = InnoDB""",
    ),
    # v5: durable timers and signals (`WaitStore`); keys VARBINARY like v2's, byte for byte.
    (
        """CREATE TABLE IF NOT EXISTS timers (
            run_id  VARBINARY(1020) NOT NULL PRIMARY KEY,
            step    INT NOT NULL,
            wake_at DOUBLE,
            `signal` VARBINARY(1020),
            KEY timers_due (wake_at),
            CONSTRAINT timers_run FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
        ) ENGINE = InnoDB""",
        """CREATE TABLE IF NOT EXISTS signals (
            run_id     VARBINARY(1020) NOT NULL,
            signal_id  VARBINARY(1020) NOT NULL,
            name       VARBINARY(1020) NOT NULL,
            payload    LONGBLOB NOT NULL,
            ts         DOUBLE NOT NULL,
            taken_step INT,
            PRIMARY KEY (run_id, signal_id),
            KEY signals_arrival (run_id, name, ts),
            CONSTRAINT signals_run FOREIGN KEY (run_id) REFERENCES runs (run_id) ON DELETE CASCADE
        ) ENGINE = InnoDB""",
    ),
)
assert len(_MIGRATIONS) == SCHEMA_VERSION

_SCHEDULE_STATEMENTS: Final = ScheduleStatements(
    insert="""INSERT INTO schedules (schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at) SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM schedules WHERE schedule_id = %s)""",
    get="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules WHERE schedule_id = %s",
    list_all="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules ORDER BY schedule_id LIMIT %s",
    list_due="SELECT schedule_id, spec, input, due_at, paused, state, version, created_at, updated_at FROM schedules WHERE paused = FALSE AND due_at <= %s ORDER BY due_at, schedule_id LIMIT %s",
    update="""UPDATE schedules SET spec = %s, input = %s, due_at = %s, paused = %s, state = %s, updated_at = %s,
  version = version + 1 WHERE schedule_id = %s AND version = %s""",
    delete="DELETE FROM schedules WHERE schedule_id = %s",
)

# Statements are literals (those shared with SQLite, `PORTABLE`, with `%s` for its `?`), every
# value a bound parameter (asyncmy escapes them; bytes are sent as _binary literals so no
# charset conversion can touch them).

_LOCK: Final = "SELECT GET_LOCK(%s, %s)"
_UNLOCK: Final = "SELECT RELEASE_LOCK(%s)"


def _lock_name(database: str) -> str:
    """The migration lock of one database (GET_LOCK names are server-wide, at most 64 characters).

    Per database: openers of other databases on the same server (other apps, parallel tests)
    must not wait for each other, nor fail with "another process holds the migration lock".
    """
    name = f"graphengine.migrate.{database}"
    if len(name) <= 64:
        return name
    return "graphengine.migrate." + hashlib.sha256(database.encode()).hexdigest()[:44]


_VERSION_TABLE: Final = "CREATE TABLE IF NOT EXISTS schema_version (version INT NOT NULL) ENGINE = InnoDB"
_GET_VERSION: Final = "SELECT coalesce(max(version), 0) FROM schema_version"
_SET_VERSION: Final = "INSERT INTO schema_version (version) VALUES (%s)"

# Statements are in the parameter order `graphengine.store._sql.Statements` documents. Inserts
# nothing while rows of an earlier run with this id outlive its run record (deleted under them):
# a new run must never fold another run's steps.
_STATEMENTS: Final = Statements(
    **{name: sql.replace("?", "%s") for name, sql in PORTABLE.items()},
    insert_run="""INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE NOT EXISTS (SELECT 1 FROM steps WHERE run_id = %s) AND NOT EXISTS (SELECT 1 FROM branches WHERE run_id = %s)
  AND NOT EXISTS (SELECT 1 FROM checkpoints WHERE run_id = %s)""",
    status_state="SELECT status, coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) FROM runs WHERE run_id = %s",
    # Without a lease: refused while another worker's lease on the run is live. CLIENT_FOUND_ROWS
    # is off, so an update to the same values counts 0 rows: updated_at always changes, so it
    # never is.
    set_status="""UPDATE runs SET status = %s, error = %s, error_node = %s, updated_at = %s
WHERE run_id = %s AND (lease_expires IS NULL OR lease_expires <= UNIX_TIMESTAMP(NOW(6)))
  AND (%s IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s)
  AND (%s IS NULL OR status = %s)""",
    set_status_fenced="""UPDATE runs SET status = %s, error = %s, error_node = %s, updated_at = %s
WHERE run_id = %s
  AND (%s IS NULL OR coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s)
  AND (%s IS NULL OR status = %s) AND lease_token = %s AND lease_expires > UNIX_TIMESTAMP(NOW(6))""",
    # The hot path (see store.postgres): inserts nothing unless the run exists and may be written
    # by this writer and the step is exactly the next one.
    insert_step="""INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND (lease_expires IS NULL OR lease_expires <= UNIX_TIMESTAMP(NOW(6))))""",
    insert_step_fenced="""INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT %s, %s, %s, %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE coalesce((SELECT max(step) FROM steps WHERE run_id = %s), 0) = %s - 1
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND lease_token = %s AND lease_expires > UNIX_TIMESTAMP(NOW(6)) LOCK IN SHARE MODE)""",
    write_state="""SELECT lease_owner, lease_token, lease_expires > UNIX_TIMESTAMP(NOW(6)), lease_expires,
    (SELECT max(step) FROM steps WHERE run_id = %s)
FROM runs WHERE run_id = %s""",
    # Upsert; the EXISTS refuses unknown runs (0 rows). A replace counts 2 rows, an insert 1.
    save_checkpoint="""INSERT INTO checkpoints (run_id, label, step, state, ts)
SELECT %s, %s, %s, %s, %s FROM DUAL WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = %s)
ON DUPLICATE KEY UPDATE step = VALUES(step), state = VALUES(state), ts = VALUES(ts)""",
)
# `signal` is a reserved word in MySQL and MariaDB: quoted wherever it is named. Due timers are
# read through the timers' due-time index first (STRAIGHT_JOIN), not from every waiting run.
_WAIT_STATEMENTS: Final = WaitStatements(
    put_timer="""INSERT INTO timers (run_id, step, wake_at, `signal`)
SELECT %s, %s, %s, %s FROM DUAL WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = %s)
ON DUPLICATE KEY UPDATE step = VALUES(step), wake_at = VALUES(wake_at), `signal` = VALUES(`signal`)""",
    get_timer="SELECT run_id, step, wake_at, `signal` FROM timers WHERE run_id = %s",
    clear_timer="UPDATE timers SET wake_at = NULL WHERE run_id = %s AND step = %s",
    due_timers="""SELECT t.run_id, t.step, t.wake_at, t.`signal` FROM timers t STRAIGHT_JOIN runs r ON r.run_id = t.run_id
WHERE t.wake_at IS NOT NULL AND t.wake_at <= %s AND r.status = 'waiting' ORDER BY t.wake_at, t.run_id LIMIT %s""",
    next_due="""SELECT t.wake_at FROM timers t STRAIGHT_JOIN runs r ON r.run_id = t.run_id
WHERE t.wake_at IS NOT NULL AND r.status = 'waiting' ORDER BY t.wake_at LIMIT 1""",
    # A taken id counts 0 rows: the update sets the row to what it holds (CLIENT_FOUND_ROWS is off).
    add_signal="""INSERT INTO signals (run_id, signal_id, name, payload, ts, taken_step)
SELECT %s, %s, %s, %s, %s, %s FROM DUAL WHERE EXISTS (SELECT 1 FROM runs WHERE run_id = %s)
ON DUPLICATE KEY UPDATE run_id = run_id""",
    list_signals="SELECT run_id, signal_id, name, payload, ts, taken_step FROM signals WHERE run_id = %s ORDER BY ts, signal_id",
    pick_signal="""SELECT run_id, signal_id, name, payload, ts, taken_step FROM signals WHERE run_id = %s AND name = %s
AND (taken_step IS NULL OR taken_step >= %s) ORDER BY ts, signal_id LIMIT 1""",
    take_signal="""UPDATE signals SET taken_step = %s WHERE run_id = %s AND signal_id = %s
AND (taken_step IS NULL OR taken_step >= %s)""",
    release_signals="UPDATE signals SET taken_step = NULL WHERE run_id = %s AND taken_step >= %s",
)
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
# Group commit in one statement: the batch's steps as a derived table (_STEP_SELECT_ROW repeated;
# values all bound), each row with the conditions of `insert_step` (token NULL) or
# `insert_step_fenced` (its token current). MySQL has no RETURNING: the statement's row count says
# whether every step went in; if not, the transaction is rolled back and the steps are written a
# statement each, which tells each step's own outcome.
_INSERT_STEPS: Final = """INSERT INTO steps (run_id, step, node_id, delta, route, state, attempt, error, calls, events, ts)
SELECT t.run_id, t.step, t.node_id, t.delta, t.route, t.state, t.attempt, t.error, t.calls, t.events, t.ts FROM ("""
_STEP_SELECT_ROW: Final = "SELECT %s AS run_id, %s AS step, %s AS node_id, %s AS delta, %s AS route, %s AS state, %s AS attempt, %s AS error, %s AS calls, %s AS events, %s AS ts, %s AS token"
_STEPS_CHECKED: Final = """) AS t
WHERE coalesce((SELECT max(s.step) FROM steps s WHERE s.run_id = t.run_id), 0) = t.step - 1
  AND EXISTS (SELECT 1 FROM runs r WHERE r.run_id = t.run_id AND CASE WHEN t.token IS NULL
      THEN r.lease_expires IS NULL OR r.lease_expires <= UNIX_TIMESTAMP(NOW(6))
      ELSE r.lease_token = t.token AND r.lease_expires > UNIX_TIMESTAMP(NOW(6)) END LOCK IN SHARE MODE)"""
# Group commit of new runs and of status changes (`graphengine.store._sql._grouped`): many runs'
# in ONE statement over a derived table of their rows (columns `RUN_COLUMNS` / `STATUS_COLUMNS`
# of that module; values all bound), each row with the conditions of its single statement. With
# no RETURNING, the row count says whether every run was written; if not, the transaction is
# rolled back and each run is written alone, which tells each its own outcome.
_INSERT_RUNS: Final = """INSERT INTO runs (run_id, status, initial, fingerprint, state_version, created_at, updated_at, error, error_node, meta)
SELECT t.run_id, t.status, t.initial, t.fingerprint, t.state_version, t.created_at, t.updated_at, t.error, t.error_node, t.meta FROM ("""
_RUN_SELECT_ROW: Final = "SELECT %s AS run_id, %s AS status, %s AS initial, %s AS fingerprint, %s AS state_version, %s AS created_at, %s AS updated_at, %s AS error, %s AS error_node, %s AS meta"
_RUNS_CHECKED: Final = """) AS t
WHERE NOT EXISTS (SELECT 1 FROM steps s WHERE s.run_id = t.run_id)
  AND NOT EXISTS (SELECT 1 FROM branches b WHERE b.run_id = t.run_id)
  AND NOT EXISTS (SELECT 1 FROM checkpoints c WHERE c.run_id = t.run_id)"""
_SET_STATUSES: Final = "UPDATE runs r JOIN ("
_STATUS_SELECT_ROW: Final = "SELECT %s AS status, %s AS error, %s AS error_node, %s AS updated_at, %s AS run_id, %s AS expect_step, %s AS expect_status, %s AS token"
_STATUSES_CHECKED: Final = """) AS t ON r.run_id = t.run_id
SET r.status = t.status, r.error = t.error, r.error_node = t.error_node, r.updated_at = t.updated_at
WHERE (t.expect_step IS NULL OR coalesce((SELECT max(s.step) FROM steps s WHERE s.run_id = t.run_id), 0) = t.expect_step)
  AND (t.expect_status IS NULL OR r.status = t.expect_status)
  AND CASE WHEN t.token IS NULL THEN r.lease_expires IS NULL OR r.lease_expires <= UNIX_TIMESTAMP(NOW(6))
      ELSE r.lease_token = t.token AND r.lease_expires > UNIX_TIMESTAMP(NOW(6)) END"""
# (head, row, tail) of each grouped statement.
_GROUPED: Final[dict[Grouped, tuple[str, str, str]]] = {
    "runs": (_INSERT_RUNS, _RUN_SELECT_ROW, _RUNS_CHECKED),
    "statuses": (_SET_STATUSES, _STATUS_SELECT_ROW, _STATUSES_CHECKED),
}
# A batch whose values exceed this many bytes is written a statement per step (or run) instead:
# one statement must fit the server's max_allowed_packet (16 MiB by default on MariaDB).
_ONE_STATEMENT_BYTES: Final = 4 << 20
# Retention. MySQL has no data-modifying CTEs, so delete_steps_before is one transaction.
_PACKET: Final = "SELECT @@max_allowed_packet"
_STATEMENT_ROOM: Final = 64 << 10
"""Bytes of max_allowed_packet left for a step statement's text and its small columns."""
# asyncmy sends values as escaped literals in the statement's text: each of these bytes as two.
_ESCAPED: Final = tuple(bytes([c]) for c in b"\\'\"\x00\n\r\x1a")


def _wire_bytes(values: Iterable[Any]) -> int:
    """Bytes the str and bytes among `values` take in a statement's text, escapes included."""
    n = 0
    for v in values:
        if isinstance(v, str):
            v = v.encode("utf-8", "surrogatepass")
        if isinstance(v, bytes):
            n += len(v) + sum(v.count(c) for c in _ESCAPED)
    return n


_SNAPSHOT_AT: Final = "SELECT state IS NOT NULL FROM steps WHERE run_id = %s AND step = %s FOR UPDATE"
_HAS_STEPS: Final = "SELECT 1 FROM steps WHERE run_id = %s LIMIT 1"
_DELETE_BRANCHES_BEFORE: Final = "DELETE FROM branches WHERE run_id = %s AND step < %s"
_DELETE_CLAIMS_BEFORE: Final = "DELETE FROM branch_claims WHERE run_id = %s AND step < %s"
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
# Branch claims (`BranchClaimMixin`): a row is made once (INSERT IGNORE: an unknown run's
# foreign key, or a row already there, inserts nothing), then taken with a new token when it is
# free or expired and its branch neither stored nor failed; LAST_INSERT_ID(expr) hands the token
# back to this connection, as for a run's claim.
_NEW_BRANCH_CLAIM: Final = """INSERT IGNORE INTO branch_claims (run_id, step, branch, owner, token, expires)
VALUES (%s, %s, %s, %s, 0, 0)"""
_CLAIM_BRANCH: Final = """UPDATE branch_claims c SET c.owner = %s, c.token = LAST_INSERT_ID(c.token + 1),
    c.expires = UNIX_TIMESTAMP(NOW(6)) + %s
WHERE c.run_id = %s AND c.step = %s AND c.branch = %s AND c.expires <= UNIX_TIMESTAMP(NOW(6)) AND c.error IS NULL
  AND NOT EXISTS (SELECT 1 FROM branches b WHERE b.run_id = %s AND b.step = %s AND b.branch = %s)"""
_CLAIMS: Final = BranchClaimStatements(
    renew="""UPDATE branch_claims SET expires = UNIX_TIMESTAMP(NOW(6)) + %s
WHERE run_id = %s AND step = %s AND branch = %s AND token = %s AND expires > UNIX_TIMESTAMP(NOW(6))""",
    fail="""UPDATE branch_claims SET error = %s
WHERE run_id = %s AND step = %s AND branch = %s AND token = %s AND expires > UNIX_TIMESTAMP(NOW(6))""",
    save="""INSERT INTO branches (run_id, step, branch, node_id, delta, attempt, calls, ts)
SELECT %s, %s, %s, %s, %s, %s, %s, %s FROM DUAL
WHERE EXISTS (SELECT 1 FROM branch_claims WHERE run_id = %s AND step = %s AND branch = %s AND token = %s
    AND expires > UNIX_TIMESTAMP(NOW(6)) LOCK IN SHARE MODE)
  AND EXISTS (SELECT 1 FROM runs WHERE run_id = %s AND (lease_expires IS NULL OR lease_expires <= UNIX_TIMESTAMP(NOW(6))) LOCK IN SHARE MODE)""",
    stored="SELECT 1 FROM branches WHERE run_id = %s AND step = %s AND branch = %s",
    counted="SELECT count(*) FROM branches WHERE run_id = %s AND step = %s",
    failed="SELECT branch, error FROM branch_claims WHERE run_id = %s AND step = %s AND error IS NOT NULL ORDER BY branch",
    expiry="SELECT token, expires FROM branch_claims WHERE run_id = %s AND step = %s AND branch = %s",
)


_Op = Op
_TRANSLATE: Final = TRANSLATE
"""Kept by name for tests: the one table translating driver exceptions."""
_translate: Final = translate


def _meta_text(run: RunRecord) -> str:
    return meta_text(run, "MySQLStore keeps it in a JSON text column")


def _fits_one_statement(values: Sequence[Any]) -> bool:
    """Whether the values of a batch may go in one multi-row statement: small enough for one packet,
    and no str the driver cannot encode.

    A lone surrogate, which asyncmy sends as its raw byte: in a statement's derived table MariaDB
    turns that invalid UTF-8 into "?" with a mere warning, and the row would commit altered.
    Alone, its column refuses it (a typed error for that row).
    """
    if sum(len(v) for v in values if isinstance(v, (bytes, str))) > _ONE_STATEMENT_BYTES:
        return False
    try:
        for v in values:
            if isinstance(v, str) and not v.isascii():
                v.encode()
    except UnicodeEncodeError:
        return False
    return True


class MySQLStore(
    MySQLPools, WriterMixin, GroupedRunsMixin, LeaseMixin, BranchClaimMixin, ScheduleSQLMixin, WaitsMixin
):
    """A `Store` (and `LeaseStore`) in a MySQL or MariaDB database.

    `MySQLStore("mysql://root@127.0.0.1:3306/db")` needs no event loop and connects on first use.
    Use `async with` or `await store.close()`; a closed store raises `StoreUnavailableError`.
    Errors as for `PostgresStore`: `RunExistsError`, `StepConflictError`, `LeaseLostError`,
    `StoreUnavailableError` (including a lock held elsewhere past `lock_timeout` seconds),
    `MissingDriverError`.
    """

    _sql = _STATEMENTS
    _claims = _CLAIMS
    _schedule_sql = _SCHEDULE_STATEMENTS
    _wait_sql = _WAIT_STATEMENTS
    _no_limit = _NO_LIMIT
    _max_branches = _MAX_BRANCHES
    _lost_replies = True

    def __init__(
        self,
        dsn: str,
        *,
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
        lock_timeout: float | None = LOCK_TIMEOUT,
    ) -> None:
        super().__init__(
            dsn,
            min_size=min_size,
            max_size=max_size,
            connect_timeout=connect_timeout,
            lock_timeout=lock_timeout,
        )

    def _init_state(self) -> None:
        # Step writes go over one connection held out of the pool (`WriterMixin`); new runs and
        # status changes of many runs commit together (`GroupedRunsMixin`).
        self._init_writer()
        self._init_sql()
        self._init_grouped(self._max_batch)

    def __repr__(self) -> str:
        # Never show the DSN: it may hold a password.
        return f"MySQLStore(database={self.database!r})"

    # ---------------------------------------------------------------- connection management

    async def _migrate(self, conn: Any) -> None:
        async with conn.cursor() as cur:
            # A statement over max_allowed_packet makes the server drop the connection, which
            # looks like an outage; knowing the limit lets the engine refuse such a step first.
            await cur.execute(_PACKET)
            packet = await cur.fetchone()
            self.max_value_bytes = max(int(packet[0]) - _STATEMENT_ROOM, 0)
            lock = _lock_name(self.database)
            await cur.execute(_LOCK, (lock, max(int(self.connect_timeout), 1) * 3))
            got = await cur.fetchone()
            if not got or got[0] != 1:
                raise StoreUnavailableError(
                    f"{self!r}: another process holds the migration lock of this database; "
                    "retry once it has opened the store"
                )
            # "Table ... already exists" of CREATE TABLE IF NOT EXISTS is a note, which the
            # driver logs to stderr on every reopen: not recorded on this connection meanwhile.
            await cur.execute(NOTES_OFF)
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
                await cur.execute(NOTES_ON)
                await cur.execute(_UNLOCK, (lock,))
                await cur.fetchone()

    # ---------------------------------------------------------------- driver glue (SQLStore)

    async def _rows(self, sql: str, params: Sequence[Any], *, run_id: str | None = None) -> list[Any]:
        return await self._fetch_on(await self._db(), sql, params, run_id)

    async def _count(
        self, op: _Op, sql: str, params: Sequence[Any], *, run_id: str | None = None, step: int | None = None
    ) -> int:
        """Run one write statement; returns the affected row count. A deadlock victim is retried:
        InnoDB rolled it back whole, so running it again is safe and then sees the winner's commit.
        A lock wait timeout is not: the lock's holder is another session's open transaction, and
        waiting again would multiply the bound `lock_timeout` puts on the write.
        """
        pool = self._pool
        if pool is None or self._loop is not asyncio.get_running_loop():
            pool = await self._open_for_loop()
        try:
            async with acquire(pool) as conn:
                return await self._execute(conn, sql, params)
        except self._errors as exc:
            raise _translate(exc, op, repr(self), run_id=run_id, step=step) from exc

    async def _execute(self, conn: Any, sql: str, params: Sequence[Any]) -> int:
        """Run one autocommitted write statement on `conn`; the affected row count. A deadlock
        victim is retried: InnoDB rolled it back whole, so running it again is safe and then sees
        the winner's commit. Driver errors come out untranslated."""
        for attempt in range(3):
            try:
                async with conn.cursor() as cur:
                    n: int = await cur.execute(sql, params)
                    return n
            except self._errors as exc:
                if errno(exc) == DEADLOCK and attempt < 2:
                    continue
                raise
        raise AssertionError("unreachable")  # pragma: no cover

    # ---------------------------------------------------------------- the step writer (WriterMixin)

    async def _take_conn(self, pool: Any) -> Any:
        return await pool.acquire()

    async def _give_conn(self, pool: Any, conn: Any, healthy: bool) -> None:
        if not healthy or not self._conn_usable(conn):
            conn.close()  # the pool drops a closed connection and opens a new one when needed
        try:
            await pool.release(conn)
        except Exception:  # a pool closed or terminated meanwhile: the connection goes with it
            conn.close()

    def _conn_usable(self, conn: Any) -> bool:
        # The server closing a connection while it is idle ends its stream (`_stream_broken`, what
        # asyncmy's own pool checks before handing a connection out); nothing else notices until
        # the next statement, which would then fail.
        broken = getattr(conn, "_stream_broken", False)
        return bool(conn.connected and not broken and not conn.get_transaction_status())

    def _keeps_conn(self, exc: BaseException, conn: Any) -> bool:
        return not breaks_connection(exc) and self._conn_usable(conn)

    def _writer_error(self, exc: BaseException, run_id: str, step: int | None) -> StoreError:
        return _translate(exc, "save_step", repr(self), run_id=run_id, step=step)

    async def _write_one(self, p: Pending) -> int:
        sql = self._sql.insert_step if p.token is None else self._sql.insert_step_fenced
        assert sql is not None
        params = p.params
        return await self._on_writer(
            lambda conn: self._execute(conn, sql, params), run_id=p.run_id, step=p.step
        )

    async def _write_steps(self, batch: list[Pending]) -> None:
        """Several runs' steps in ONE transaction (one redo log flush) on the writer connection:
        one statement for all (`_all_in_one_statement`), else a statement each.

        A statement that fails rolls back alone in InnoDB, so its error is that step's outcome
        and the others still commit. A deadlock or lock wait rolls the whole transaction back:
        then, as when the commit fails, the steps are written one transaction each.
        """
        if len(batch) == 1:
            await super()._write_steps(batch)
            return
        try:
            outcomes = await self._on_writer(
                lambda conn: self._steps_on(conn, batch), run_id=batch[0].run_id, step=None
            )
        except Exception:
            # Nothing of the batch committed, or (the connection lost after a COMMIT reached the
            # server) all of it did: written again a statement each, a step refused there is
            # compared with the stored one before it counts as a conflict. A lock wait timeout
            # or a deadlock comes here at once: one transaction of the same steps would wait for
            # the same lock.
            for p in batch:
                p.unsure = True
            await super()._write_steps(batch)
            return
        for p, outcome in zip(batch, outcomes, strict=True):
            p.done(outcome)

    async def _steps_on(self, conn: Any, batch: list[Pending]) -> list[int | BaseException]:
        """Write `batch` in one transaction on `conn`; each step's outcome (driver errors that undo
        the transaction come out untranslated)."""
        if await self._all_in_one_statement(conn, batch):
            return [1] * len(batch)
        outcomes: list[int | BaseException] = []
        async with self._transaction_on(conn) as cur:
            for p in batch:
                sql = self._sql.insert_step if p.token is None else self._sql.insert_step_fenced
                try:
                    outcomes.append(await cur.execute(sql, p.params))
                except self._errors as exc:
                    if errno(exc) in RETRYABLE:
                        raise
                    where = repr(self)
                    outcomes.append(_translate(exc, "save_step", where, run_id=p.run_id, step=p.step))
        return outcomes

    async def _all_in_one_statement(self, conn: Any, batch: list[Pending]) -> bool:
        """Write the whole batch in one statement and commit; False (nothing written) if any step
        was refused, the statement failed or the batch is too large for one statement."""
        params = [v for p in batch for v in (*p.params[:11], p.token)]
        if not _fits_one_statement(params):
            return False
        sql = _INSERT_STEPS + " UNION ALL ".join([_STEP_SELECT_ROW] * len(batch)) + _STEPS_CHECKED
        return await self._all_or_nothing(conn, sql, params, len(batch))

    async def _all_or_nothing(self, conn: Any, sql: str, params: Sequence[Any], rows: int) -> bool:
        """Run `sql` in a transaction of its own on `conn` and commit only if it wrote `rows` rows;
        False (rolled back) if it wrote fewer or failed with a driver error. A lock wait timeout or
        a deadlock is raised, after the rollback."""
        await conn.begin()
        try:
            async with conn.cursor() as cur:
                n = await cur.execute(sql, params)
            if n == rows:
                await conn.commit()
                return True
        except self._errors as exc:
            if errno(exc) in RETRYABLE:
                # A lock wait timed out (or a deadlock): the rows go a statement each at once, as
                # the same rows in one transaction would wait for the same lock.
                await conn.rollback()
                raise
            # a row's bad value or a refusal: the rows go a statement each, which tells whose
        except BaseException:
            await conn.rollback()
            raise
        await conn.rollback()
        return False

    async def _grouped(self, what: Grouped, batch: list[Pending]) -> set[str]:
        """All the runs of `batch` in one statement, or none (MySQL cannot say which rows one wrote)."""
        params = [v for row in group_rows(what, batch) for v in row]
        if not _fits_one_statement(params):
            return set()
        head, row, tail = _GROUPED[what]
        sql = head + " UNION ALL ".join([row] * len(batch)) + tail
        async with acquire(await self._db()) as conn:
            if await self._all_or_nothing(conn, sql, params, len(batch)):
                return {p.run_id for p in batch}
        return set()

    def _check_packet(self, values: Sequence[Any], run_id: str, step: int | None) -> None:
        """`ValueRefusedError` if one statement carrying `values` would be over max_allowed_packet.

        The server drops the connection of such a statement, which would read as an outage (and
        leave a run resumable for ever); the engine checks raw sizes (`max_value_bytes`), and this
        catches what escaping adds to them.
        """
        limit = self.max_value_bytes
        if limit is None:
            return
        raw = sum(len(v) * 4 if isinstance(v, str) else len(v) for v in values if isinstance(v, (str, bytes)))
        if raw * 2 <= limit:  # even escaped, every byte as two, it fits
            return
        size = _wire_bytes(values)
        if size > limit:
            raise ValueRefusedError(
                f"{self!r}: a write of run {run_id!r} would send {size:,} bytes of values (escaped), over "
                f"max_allowed_packet less {_STATEMENT_ROOM:,} bytes of room ({limit:,})",
                run_id=run_id,
                step=step,
            )

    async def create_run(self, run: RunRecord) -> None:
        """As `SQLStore.create_run`; an initial state over max_allowed_packet is `ValueRefusedError`."""
        self._check_packet((run.initial, run.meta), run.run_id, None)
        await super().create_run(run)

    async def save_step(self, rec: StepRecord) -> None:
        """As `SQLStore.save_step`; a step over max_allowed_packet is `ValueRefusedError`, never sent."""
        self._check_packet(rec, rec.run_id, rec.step)
        await super().save_step(rec)

    async def save_branch(self, rec: BranchRecord, lease: Lease) -> None:
        """As `BranchClaimMixin.save_branch`; a result over max_allowed_packet is `ValueRefusedError`."""
        self._check_packet(rec, rec.run_id, rec.step)
        await super().save_branch(rec, lease)

    async def save_checkpoint(self, cp: Checkpoint) -> None:
        """As `SQLStore.save_checkpoint`; one over max_allowed_packet is `ValueRefusedError`, never sent."""
        self._check_packet((cp.state,), cp.run_id, cp.step)
        await super().save_checkpoint(cp)

    def _run_row(self, row: Sequence[Any]) -> RunRecord:
        return run_record(row, text(row[0]), row[9].encode())

    def _key(self, value: Any, run_id: Any = None, field: str = "run_id") -> str:
        return text(value, run_id, field)

    def _step_row(self, row: Sequence[Any]) -> StepRecord:
        return StepRecord(text(row[0]), *row[1:])

    def _branch_row(self, row: Sequence[Any]) -> BranchRecord:
        return BranchRecord(text(row[0]), *row[1:])

    def _checkpoint_row(self, row: Sequence[Any]) -> Checkpoint:
        rid, label, *rest = row
        return Checkpoint(text(rid), text(label, rid, "label"), *rest)

    def _schedule_key(self, value: Any) -> Any:
        return text(value, None, "schedule_id")

    def _owner(self, value: Any, run_id: str) -> Any:
        return text(value, run_id, "lease_owner") if value is not None else None

    def _meta(self, run: RunRecord) -> str:
        """`meta` must be UTF-8 JSON text; anything else is a `StoreError`."""
        return _meta_text(run)

    async def _branches_statement(
        self, rows: list[Sequence[Any]], runs: list[str], token: int | None
    ) -> tuple[str, Sequence[Any]]:
        params: list[Any] = [value for row in rows for value in row]
        self._check_packet(params, runs[0], rows[0][1])
        if token is not None:
            sql = (
                _INSERT_BRANCHES_FENCED
                + " UNION ALL ".join([_BRANCH_SELECT_ROW] * len(rows))
                + _BRANCHES_FENCE
            )
            return sql, (*params, runs[0], token)
        # Refuse runs another worker leases; a cold read, as unleased fan-outs are rare in
        # deployments that use leases at all. (Only placeholders are repeated into the text.)
        marks = ", ".join(["%s"] * len(runs))
        leased = await self._rows(_BRANCHES_LEASED_ELSEWHERE.format(marks), runs)
        if leased:
            await self._refuse(text(leased[0][0]), rows[0][1], None, "other")
        return _INSERT_BRANCHES + ", ".join([_BRANCH_ROW] * len(rows)), params

    # ---------------------------------------------------------------- retention

    async def delete_steps_before(self, run_id: str, step: int) -> int:
        """Delete the run's steps and branch results below `step` in one transaction; returns how
        many steps went. `StoreError` (nothing deleted) if `step` carries no state snapshot.
        """
        check_id(run_id)
        pool = await self._db()
        try:
            async with self._transaction(pool) as cur:
                await cur.execute(_SNAPSHOT_AT, (run_id, step))
                row = await cur.fetchone()
                if not row or not row[0]:
                    await cur.execute(_HAS_STEPS, (run_id,))
                    if await cur.fetchone() is None:
                        return 0  # an unknown run: nothing was written, the commit ends the read
                    raise StoreError(
                        f"run {run_id!r}: step {step} has no state snapshot; deleting the steps "
                        "before it would leave the run unrebuildable",
                        run_id=run_id,
                        step=step,
                    )
                await cur.execute(_DELETE_BRANCHES_BEFORE, (run_id, step))
                await cur.execute(_DELETE_CLAIMS_BEFORE, (run_id, step))
                n: int = await cur.execute(_DELETE_STEPS_BEFORE, (run_id, step))
                return n
        except self._errors as exc:
            raise _translate(exc, "write", repr(self), run_id=run_id, step=step) from exc

    # ---------------------------------------------------------------- leases (LeaseStore)

    async def claim(self, run_id: str, worker: str, ttl: float) -> Lease | None:
        """Own `run_id` for `ttl` seconds with a new fencing token; None while another worker's
        lease is live (see `LeaseStore`). Raises `StoreError` for an unknown run.
        """
        check_id(run_id)
        pool = await self._db()
        got: tuple[int, float] | None = None
        try:
            async with acquire(pool) as conn, conn.cursor() as cur:
                if await cur.execute(_CLAIM, (worker, float(ttl), run_id, worker)) == 1:
                    token = int(cur.lastrowid)
                    await cur.execute(_LEASE_OF, (run_id,))
                    got = (token, float((await cur.fetchone())[1]))
        except self._errors as exc:
            raise _translate(exc, "lease", repr(self), run_id=run_id) from exc
        return await self._claimed(run_id, worker, got)

    async def renew(self, lease: Lease, ttl: float) -> Lease:
        """Extend a live lease to `ttl` seconds from now; `LeaseLostError` if it expired or was taken."""
        n = await self._count("lease", _RENEW, (float(ttl), lease.run_id, lease.token), run_id=lease.run_id)
        rows = await self._rows(_LEASE_OF, (lease.run_id,), run_id=lease.run_id)
        if n != 1 or not rows or rows[0][0] != lease.token:
            raise await self._lease_gone(lease)
        return lease._replace(expires_at=float(rows[0][1]))

    async def release(self, lease: Lease) -> None:
        """Give the run up; its writes are no longer fenced here. No effect if the lease was lost."""
        self._let_go(lease)
        await self._count("lease", _RELEASE, (lease.run_id, lease.token), run_id=lease.run_id)

    async def _claim_branch_row(
        self, run_id: str, step: int, branch: int, worker: str, ttl: float
    ) -> tuple[int, float] | None:
        pool = await self._db()
        try:
            async with acquire(pool) as conn, conn.cursor() as cur:
                await cur.execute(_NEW_BRANCH_CLAIM, (run_id, step, branch, worker))
                claim = (worker, ttl, run_id, step, branch, run_id, step, branch)
                if await cur.execute(_CLAIM_BRANCH, claim) != 1:
                    return None
                token = int(cur.lastrowid)
                await cur.execute(self._claims.expiry, (run_id, step, branch))
                row = await cur.fetchone()
        except self._errors as exc:
            raise _translate(exc, "lease", repr(self), run_id=run_id) from exc
        return token, float(row[1])
