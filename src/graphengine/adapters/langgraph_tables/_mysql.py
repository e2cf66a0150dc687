"""`MySQLCheckpointTable`: LangGraph checkpoints in MySQL 8 / MariaDB 10.6+, for `GraphEngineSaver`.

It may share the database of a `MySQLStore` (`MySQLCheckpointTable.beside(store)`): its tables
are prefixed `lg_`, created with `IF NOT EXISTS` (re-runnable, as MySQL commits DDL
implicitly), and it never touches the store's tables or its `schema_version`.

- asyncmy, imported on first use (`pip install 'graphengine[mysql]'`; without it,
  `MissingDriverError`). One pool per event loop, opened lazily in it: the saver's sync bridge
  loop and the application's loop each get theirs. Sessions autocommit at READ COMMITTED.
- `put` (a checkpoint and its new blobs), the bulk deletes and `copy_thread` each run in one
  transaction; `put_writes` is one multi-row `INSERT`.
- Values are `LONGBLOB` (byte-for-byte round trip); ids are `VARBINARY` (tables from before
  are converted on open), so they compare byte for byte (no trailing-space padding) and "newest
  first" is byte order of checkpoint ids, as in every other table. Key lengths fit InnoDB's
  3072-byte index limit: thread ids up to 764 UTF-8 bytes, namespaces 1020, checkpoint and task
  ids 512, channel names 764, versions 128.
- Blobs no checkpoint references any more are found on the client (MySQL and MariaDB disagree
  on JSON table functions), inside the deleting transaction.
- Driver exceptions are translated by the MySQL store's one table (`graphengine.store._sql`) (`StoreError` subclasses).
- Every value is a bound parameter; statements are literals, but for the number of `(%s, %s)`
  groups of a multi-row lookup.
"""

from __future__ import annotations

import json
from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Final
from urllib.parse import quote

from graphengine.store._sql import LoopPoolsMixin
from graphengine.store._sql import Op as _Op
from graphengine.store._sql._mysql import NOTES_OFF, NOTES_ON, MySQLPools
from graphengine.store._sql._mysql import translate as _translate

from ._protocol import LGBlobRow, LGCheckpointRow, LGQuery, LGWriteRow

__all__ = ["MySQLCheckpointTable"]

# Ids are VARBINARY, so they compare byte for byte: utf8mb4_bin is a PAD SPACE collation on
# MariaDB and MySQL 5.7 ("t" = "t  "), as the run store found before its schema v2. Byte lengths
# are those of the character columns they replace (4 bytes a character), within InnoDB's
# 3072-byte key limit. `task_path` only orders rows, so it stays text.
_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS lg_checkpoints (
        thread_id     VARBINARY(764) NOT NULL,
        ns            VARBINARY(1020) NOT NULL,
        checkpoint_id VARBINARY(512) NOT NULL,
        parent_id     VARBINARY(512),
        type          VARCHAR(64) NOT NULL,
        checkpoint    LONGBLOB NOT NULL,
        metadata_type VARCHAR(64) NOT NULL,
        metadata      LONGBLOB NOT NULL,
        run_id        VARBINARY(764),
        versions      LONGBLOB NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id),
        KEY lg_checkpoints_run (run_id),
        KEY lg_checkpoints_id (checkpoint_id)
    ) ENGINE = InnoDB""",
    """CREATE TABLE IF NOT EXISTS lg_blobs (
        thread_id VARBINARY(764) NOT NULL,
        ns        VARBINARY(1020) NOT NULL,
        channel   VARBINARY(764) NOT NULL,
        version   VARBINARY(128) NOT NULL,
        type      VARCHAR(64) NOT NULL,
        value     LONGBLOB NOT NULL,
        PRIMARY KEY (thread_id, ns, channel, version)
    ) ENGINE = InnoDB""",
    """CREATE TABLE IF NOT EXISTS lg_writes (
        thread_id     VARBINARY(764) NOT NULL,
        ns            VARBINARY(1020) NOT NULL,
        checkpoint_id VARBINARY(512) NOT NULL,
        task_id       VARBINARY(512) NOT NULL,
        task_path     TEXT CHARACTER SET utf8mb4 COLLATE utf8mb4_bin NOT NULL,
        idx           INT NOT NULL,
        channel       VARBINARY(764) NOT NULL,
        type          VARCHAR(64) NOT NULL,
        value         LONGBLOB NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx)
    ) ENGINE = InnoDB""",
)
# Tables created before ids were binary still have character id columns: converted on open. A
# character column becomes binary keeping its (utf8mb4) bytes; each statement is re-runnable, so
# an interrupted conversion completes on the next open.
_TEXT_IDS: Final = """SELECT count(*) FROM information_schema.COLUMNS WHERE TABLE_SCHEMA = DATABASE()
    AND TABLE_NAME IN ('lg_checkpoints', 'lg_blobs', 'lg_writes') AND DATA_TYPE = 'varchar'
    AND COLUMN_NAME IN ('thread_id', 'ns', 'checkpoint_id', 'parent_id', 'run_id', 'channel', 'version', 'task_id')"""
_BINARY_IDS: Final = (
    """ALTER TABLE lg_checkpoints MODIFY thread_id VARBINARY(764) NOT NULL, MODIFY ns VARBINARY(1020) NOT NULL,
    MODIFY checkpoint_id VARBINARY(512) NOT NULL, MODIFY parent_id VARBINARY(512), MODIFY run_id VARBINARY(764)""",
    """ALTER TABLE lg_blobs MODIFY thread_id VARBINARY(764) NOT NULL, MODIFY ns VARBINARY(1020) NOT NULL,
    MODIFY channel VARBINARY(764) NOT NULL, MODIFY version VARBINARY(128) NOT NULL""",
    """ALTER TABLE lg_writes MODIFY thread_id VARBINARY(764) NOT NULL, MODIFY ns VARBINARY(1020) NOT NULL,
    MODIFY checkpoint_id VARBINARY(512) NOT NULL, MODIFY task_id VARBINARY(512) NOT NULL,
    MODIFY channel VARBINARY(764) NOT NULL""",
)

_PUT_CP: Final = """INSERT INTO lg_checkpoints (thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s, %s)
ON DUPLICATE KEY UPDATE parent_id = VALUES(parent_id), type = VALUES(type), checkpoint = VALUES(checkpoint),
    metadata_type = VALUES(metadata_type), metadata = VALUES(metadata), run_id = VALUES(run_id), versions = VALUES(versions)"""
_PUT_BLOB: Final = """INSERT INTO lg_blobs (thread_id, ns, channel, version, type, value) VALUES (%s, %s, %s, %s, %s, %s)
ON DUPLICATE KEY UPDATE type = VALUES(type), value = VALUES(value)"""
_PUT_W_REPLACE: Final = """INSERT INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON DUPLICATE KEY UPDATE task_path = VALUES(task_path), channel = VALUES(channel), type = VALUES(type), value = VALUES(value)"""
# "First write wins" without INSERT IGNORE, which would also turn truncation errors into warnings.
_PUT_W_KEEP: Final = """INSERT INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
VALUES (%s, %s, %s, %s, %s, %s, %s, %s, %s)
ON DUPLICATE KEY UPDATE idx = idx"""
_GET_ONE: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions"
    " FROM lg_checkpoints WHERE thread_id = %s AND ns = %s AND checkpoint_id = %s"
)
_GET_LATEST: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions"
    " FROM lg_checkpoints WHERE thread_id = %s AND ns = %s ORDER BY checkpoint_id DESC LIMIT 1"
)
# One statement for every filter combination: a NULL parameter disables its condition
# (each parameter is passed twice: pyformat placeholders are positional).
_LIST: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions"
    " FROM lg_checkpoints WHERE (%s IS NULL OR thread_id = %s) AND (%s IS NULL OR ns = %s)"
    " AND (%s IS NULL OR checkpoint_id = %s) AND (%s IS NULL OR checkpoint_id < %s)"
    " ORDER BY checkpoint_id DESC, thread_id DESC, ns DESC"
)
_GET_BLOBS: Final = (
    "SELECT thread_id, ns, channel, version, type, value FROM lg_blobs WHERE thread_id = %s AND ns = %s"
    " AND (channel, version) IN ({pairs})"
)
_PAIR: Final = "(%s, %s)"
_GET_WRITES: Final = (
    "SELECT thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value FROM lg_writes"
    " WHERE thread_id = %s AND ns = %s AND checkpoint_id = %s ORDER BY task_path, task_id, idx"
)
_DEL_THREAD: Final = (
    "DELETE FROM lg_checkpoints WHERE thread_id = %s",
    "DELETE FROM lg_blobs WHERE thread_id = %s",
    "DELETE FROM lg_writes WHERE thread_id = %s",
)
_RUN_THREADS: Final = "SELECT DISTINCT thread_id FROM lg_checkpoints WHERE run_id = %s"
_DEL_RUN: Final = "DELETE FROM lg_checkpoints WHERE run_id = %s"
# MySQL cannot DELETE from a table its subquery reads; a derived table is materialised first.
_PRUNE_KEEP: Final = """DELETE c FROM lg_checkpoints c JOIN (
    SELECT thread_id, ns, MAX(checkpoint_id) AS newest FROM lg_checkpoints WHERE thread_id = %s GROUP BY thread_id, ns
) k ON c.thread_id = k.thread_id AND c.ns = k.ns WHERE c.checkpoint_id <> k.newest"""
_PRUNE_ALL: Final = "DELETE FROM lg_checkpoints WHERE thread_id = %s"
_GC_WRITES: Final = """DELETE w FROM lg_writes w LEFT JOIN lg_checkpoints c
    ON c.thread_id = w.thread_id AND c.ns = w.ns AND c.checkpoint_id = w.checkpoint_id
WHERE w.thread_id = %s AND c.checkpoint_id IS NULL"""
_USED_VERSIONS: Final = "SELECT ns, versions FROM lg_checkpoints WHERE thread_id = %s"
_BLOB_KEYS: Final = "SELECT ns, channel, version FROM lg_blobs WHERE thread_id = %s"
_DEL_BLOB: Final = "DELETE FROM lg_blobs WHERE thread_id = %s AND ns = %s AND channel = %s AND version = %s"
_COPY: Final = (
    """INSERT INTO lg_checkpoints (thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions)
SELECT %s, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions
FROM lg_checkpoints WHERE thread_id = %s
ON DUPLICATE KEY UPDATE parent_id = VALUES(parent_id), type = VALUES(type), checkpoint = VALUES(checkpoint),
    metadata_type = VALUES(metadata_type), metadata = VALUES(metadata), run_id = VALUES(run_id), versions = VALUES(versions)""",
    """INSERT INTO lg_blobs (thread_id, ns, channel, version, type, value)
SELECT %s, ns, channel, version, type, value FROM lg_blobs WHERE thread_id = %s
ON DUPLICATE KEY UPDATE type = VALUES(type), value = VALUES(value)""",
    """INSERT INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
SELECT %s, ns, checkpoint_id, task_id, task_path, idx, channel, type, value FROM lg_writes WHERE thread_id = %s
ON DUPLICATE KEY UPDATE task_path = VALUES(task_path), channel = VALUES(channel), type = VALUES(type), value = VALUES(value)""",
)


def _s(value: Any) -> Any:
    """An id column (VARBINARY) as the str it was written from; NULL stays None."""
    return value.decode() if isinstance(value, (bytes, bytearray)) else value


def _cp(r: Sequence[Any]) -> LGCheckpointRow:
    return LGCheckpointRow(
        _s(r[0]), _s(r[1]), _s(r[2]), _s(r[3]), r[4], bytes(r[5]), r[6], bytes(r[7]), _s(r[8]), bytes(r[9])
    )


class MySQLCheckpointTable(MySQLPools, LoopPoolsMixin):
    """LangGraph checkpoints, blobs and writes in `lg_*` tables of a MySQL or MariaDB database.

    `MySQLCheckpointTable("mysql://root@127.0.0.1:3306/db")` needs no event loop and connects on
    first use; the database must exist. Release it with `async with` or `await table.close()`.
    Errors are `StoreError` subclasses (`StoreUnavailableError` when the server cannot be
    reached, `MissingDriverError` without asyncmy).
    """

    inline = False
    """Methods do network I/O."""

    def _init_state(self) -> None:
        self._init_pools()

    @classmethod
    def beside(cls, store: Any, **kw: Any) -> MySQLCheckpointTable:
        """A table in the database of a `MySQLStore`, with pools of its own."""
        args = store._conn_args
        table = cls("mysql://localhost/" + quote(args["db"], safe=""), **kw)
        table._conn_args = dict(args)  # the store's exact arguments, user and password included
        return table

    def __repr__(self) -> str:
        # Never show the DSN: it may hold a password.
        return f"MySQLCheckpointTable(database={self.database!r})"

    # ---------------------------------------------------------------- connections

    async def _migrate(self, conn: Any) -> None:
        async with conn.cursor() as cur:
            # Reopening would log each "Table ... already exists" note to stderr (see NOTES_OFF).
            await cur.execute(NOTES_OFF)
            try:
                for stmt in _SCHEMA:
                    await cur.execute(stmt)
                await cur.execute(_TEXT_IDS)
                if (await cur.fetchone())[0]:
                    for stmt in _BINARY_IDS:
                        await cur.execute(stmt)
            finally:
                await cur.execute(NOTES_ON)

    async def _fetch(self, sql: str, args: Sequence[Any]) -> list[Any]:
        return await self._fetch_on(await self._pool(), sql, args)

    async def _tx(self, body: Any, op: _Op = "write") -> Any:
        """Run `await body(cur)` in one transaction (committed, or rolled back on any error)."""
        pool = await self._pool()
        try:
            async with self._transaction(pool) as cur:
                return await body(cur)
        except self._errors as exc:
            raise _translate(exc, op, repr(self)) from exc

    # ---------------------------------------------------------------- CheckpointTable

    async def put(self, row: LGCheckpointRow, blobs: Sequence[LGBlobRow]) -> None:
        """Store a checkpoint and its new blobs in one transaction."""

        async def body(cur: Any) -> None:
            if blobs:
                await cur.executemany(_PUT_BLOB, [b.params() for b in blobs])
            await cur.execute(
                _PUT_CP,
                row.params(),
            )

        await self._tx(body)

    async def put_writes(self, rows: Sequence[LGWriteRow], *, replace: bool) -> None:
        """Store pending writes in one multi-row statement (first write wins unless `replace`)."""
        if not rows:
            return

        async def body(cur: Any) -> None:
            await cur.executemany(
                _PUT_W_REPLACE if replace else _PUT_W_KEEP,
                [w.params() for w in rows],
            )

        await self._tx(body)

    async def get(self, thread_id: str, ns: str, checkpoint_id: str | None) -> LGCheckpointRow | None:
        """The checkpoint with this id, or the newest one."""
        if checkpoint_id is None:
            rows = await self._fetch(_GET_LATEST, (thread_id, ns))
        else:
            rows = await self._fetch(_GET_ONE, (thread_id, ns, checkpoint_id))
        return _cp(rows[0]) if rows else None

    async def search(self, query: LGQuery) -> AsyncIterator[LGCheckpointRow]:
        """Checkpoints newest first (fetched in one query, then yielded)."""
        args = [v for v in query.params() for _ in range(2)]  # each filter is bound twice (see _LIST)
        for r in await self._fetch(_LIST, args):
            yield _cp(r)

    async def blobs(self, thread_id: str, ns: str, versions: Mapping[str, str]) -> list[LGBlobRow]:
        """The stored blobs of these versions (one query)."""
        if not versions:
            return []
        sql = _GET_BLOBS.format(pairs=", ".join([_PAIR] * len(versions)))
        args: list[Any] = [thread_id, ns]
        for ch, v in versions.items():
            args += (ch, v)
        rows = await self._fetch(sql, args)
        return [LGBlobRow(_s(r[0]), _s(r[1]), _s(r[2]), _s(r[3]), r[4], bytes(r[5])) for r in rows]

    async def writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[LGWriteRow]:
        """Pending writes in replay order."""
        rows = await self._fetch(_GET_WRITES, (thread_id, ns, checkpoint_id))
        return [
            LGWriteRow(_s(r[0]), _s(r[1]), _s(r[2]), _s(r[3]), r[4], int(r[5]), _s(r[6]), r[7], bytes(r[8]))
            for r in rows
        ]

    async def delete_thread(self, thread_id: str) -> None:
        """Delete everything of a thread, in one transaction."""

        async def body(cur: Any) -> None:
            for sql in _DEL_THREAD:
                await cur.execute(sql, (thread_id,))

        await self._tx(body)

    @staticmethod
    async def _gc(cur: Any, threads: Sequence[str]) -> None:
        """Delete writes whose checkpoint is gone and blobs no checkpoint of their thread names."""
        for t in threads:
            await cur.execute(_GC_WRITES, (t,))
            await cur.execute(_USED_VERSIONS, (t,))
            used = {
                (_s(ns), ch, v) for ns, vs in await cur.fetchall() for ch, v in json.loads(bytes(vs)).items()
            }
            await cur.execute(_BLOB_KEYS, (t,))
            keys = [(_s(ns), _s(ch), _s(v)) for ns, ch, v in await cur.fetchall()]
            gone = [(t, *key) for key in keys if key not in used]
            if gone:
                await cur.executemany(_DEL_BLOB, gone)

    async def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints of these runs, then their writes and orphaned blobs, in one transaction."""
        if not run_ids:
            return

        async def body(cur: Any) -> None:
            threads: set[str] = set()
            for rid in run_ids:
                await cur.execute(_RUN_THREADS, (rid,))
                threads.update(_s(r[0]) for r in await cur.fetchall())
                await cur.execute(_DEL_RUN, (rid,))
            await self._gc(cur, sorted(threads))

        await self._tx(body)

    async def copy_thread(self, source: str, target: str) -> None:
        """Copy a thread's rows under another thread id, in one transaction."""

        async def body(cur: Any) -> None:
            for sql in _COPY:
                await cur.execute(sql, (target, source))

        await self._tx(body)

    async def prune(self, thread_ids: Sequence[str], *, keep_latest: bool) -> None:
        """Keep only the newest checkpoint per namespace (or none), with its writes and blobs."""
        if not thread_ids:
            return

        async def body(cur: Any) -> None:
            for t in thread_ids:
                await cur.execute(_PRUNE_KEEP if keep_latest else _PRUNE_ALL, (t,))
            await self._gc(cur, list(thread_ids))

        await self._tx(body)
