"""`SQLiteCheckpointTable`: LangGraph checkpoints in a SQLite file, through its own aiosqlite connection.

It may share the file of a `SQLiteStore` (`SQLiteCheckpointTable.beside(store)`): its tables
are prefixed `lg_` and created with `IF NOT EXISTS`, and it never touches the store's tables
or its `user_version`; SQLite's WAL lets both connections work on the file at once (writers
wait for each other up to `busy_timeout`).

- Autocommit connection; `put` (a checkpoint and its blobs) and the bulk deletes run in one
  `BEGIN IMMEDIATE ... COMMIT`, under a per-connection lock so tasks do not interleave them.
- The connection is opened lazily in the running event loop, one per loop (a sync caller's
  bridge loop and the application's loop each get theirs).
- Every value is a bound parameter; statements are literals.
"""

from __future__ import annotations

import asyncio
import sqlite3
import weakref
from collections.abc import AsyncGenerator, AsyncIterator, Mapping, Sequence
from dataclasses import asdict
from pathlib import Path
from typing import Any, Final

import aiosqlite

from graphengine.store import StoreUnavailableError
from graphengine.store._sql import OpenOnEnter

from ._protocol import LGBlobRow, LGCheckpointRow, LGQuery, LGWriteRow

__all__ = ["SQLiteCheckpointTable"]

_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS lg_checkpoints (
        thread_id     TEXT NOT NULL,
        ns            TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        parent_id     TEXT,
        type          TEXT NOT NULL,
        checkpoint    BLOB NOT NULL,
        metadata_type TEXT NOT NULL,
        metadata      BLOB NOT NULL,
        run_id        TEXT,
        versions      BLOB NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id)
    )""",
    "CREATE INDEX IF NOT EXISTS lg_checkpoints_run ON lg_checkpoints (run_id) WHERE run_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS lg_checkpoints_id ON lg_checkpoints (checkpoint_id)",
    """CREATE TABLE IF NOT EXISTS lg_blobs (
        thread_id TEXT NOT NULL,
        ns        TEXT NOT NULL,
        channel   TEXT NOT NULL,
        version   TEXT NOT NULL,
        type      TEXT NOT NULL,
        value     BLOB NOT NULL,
        PRIMARY KEY (thread_id, ns, channel, version)
    )""",
    """CREATE TABLE IF NOT EXISTS lg_writes (
        thread_id     TEXT NOT NULL,
        ns            TEXT NOT NULL,
        checkpoint_id TEXT NOT NULL,
        task_id       TEXT NOT NULL,
        task_path     TEXT NOT NULL,
        idx           INTEGER NOT NULL,
        channel       TEXT NOT NULL,
        type          TEXT NOT NULL,
        value         BLOB NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx)
    )""",
)

# Statements are plain literals (no string building), every value a bound parameter.
_PUT_CP: Final = "INSERT OR REPLACE INTO lg_checkpoints (thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?, ?)"
_PUT_BLOB: Final = (
    "INSERT OR REPLACE INTO lg_blobs (thread_id, ns, channel, version, type, value) VALUES (?, ?, ?, ?, ?, ?)"
)
_PUT_W_REPLACE: Final = "INSERT OR REPLACE INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
_PUT_W_KEEP: Final = "INSERT OR IGNORE INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value) VALUES (?, ?, ?, ?, ?, ?, ?, ?, ?)"
_GET_ONE: Final = "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions FROM lg_checkpoints WHERE thread_id = ? AND ns = ? AND checkpoint_id = ?"
_GET_LATEST: Final = "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions FROM lg_checkpoints WHERE thread_id = ? AND ns = ? ORDER BY checkpoint_id DESC LIMIT 1"
# One statement for every filter combination: a NULL parameter disables its condition.
_LIST: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions FROM lg_checkpoints"
    " WHERE (:thread_id IS NULL OR thread_id = :thread_id) AND (:ns IS NULL OR ns = :ns)"
    " AND (:checkpoint_id IS NULL OR checkpoint_id = :checkpoint_id) AND (:before IS NULL OR checkpoint_id < :before)"
    " ORDER BY checkpoint_id DESC, thread_id DESC, ns DESC"
)
_GET_BLOB: Final = "SELECT thread_id, ns, channel, version, type, value FROM lg_blobs WHERE thread_id = ? AND ns = ? AND channel = ? AND version = ?"
_GET_WRITES: Final = "SELECT thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value FROM lg_writes WHERE thread_id = ? AND ns = ? AND checkpoint_id = ? ORDER BY task_path, task_id, idx"
_DEL_THREAD: Final = (
    "DELETE FROM lg_checkpoints WHERE thread_id = ?",
    "DELETE FROM lg_blobs WHERE thread_id = ?",
    "DELETE FROM lg_writes WHERE thread_id = ?",
)
# Writes whose checkpoint is gone, and blobs no remaining checkpoint of their thread/ns names.
_GC_WRITES: Final = (
    "DELETE FROM lg_writes WHERE thread_id = ? AND NOT EXISTS (SELECT 1 FROM lg_checkpoints c"
    " WHERE c.thread_id = lg_writes.thread_id AND c.ns = lg_writes.ns AND c.checkpoint_id = lg_writes.checkpoint_id)"
)
_GC_BLOBS: Final = (
    "DELETE FROM lg_blobs WHERE thread_id = ? AND NOT EXISTS (SELECT 1 FROM lg_checkpoints c, json_each(c.versions) j"
    " WHERE c.thread_id = lg_blobs.thread_id AND c.ns = lg_blobs.ns AND j.key = lg_blobs.channel"
    " AND j.value = lg_blobs.version)"
)
_RUN_THREADS: Final = "SELECT DISTINCT thread_id FROM lg_checkpoints WHERE run_id = ?"
_DEL_RUN: Final = "DELETE FROM lg_checkpoints WHERE run_id = ?"
_PRUNE_KEEP: Final = (
    "DELETE FROM lg_checkpoints WHERE thread_id = ? AND checkpoint_id <> (SELECT MAX(c.checkpoint_id)"
    " FROM lg_checkpoints c WHERE c.thread_id = lg_checkpoints.thread_id AND c.ns = lg_checkpoints.ns)"
)
_PRUNE_ALL: Final = "DELETE FROM lg_checkpoints WHERE thread_id = ?"
_COPY: Final = (
    "INSERT OR REPLACE INTO lg_checkpoints (thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions) SELECT :target, ns, checkpoint_id, parent_id, type,"
    " checkpoint, metadata_type, metadata, run_id, versions FROM lg_checkpoints WHERE thread_id = :source",
    "INSERT OR REPLACE INTO lg_blobs (thread_id, ns, channel, version, type, value)"
    " SELECT :target, ns, channel, version, type, value FROM lg_blobs WHERE thread_id = :source",
    "INSERT OR REPLACE INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value) SELECT :target, ns, checkpoint_id, task_id, task_path, idx,"
    " channel, type, value FROM lg_writes WHERE thread_id = :source",
)


class _Conn:
    __slots__ = ("closer", "conn", "lock")

    def __init__(self, conn: aiosqlite.Connection) -> None:
        self.conn = conn
        self.lock = asyncio.Lock()
        self.closer: AsyncGenerator[None, None] | None = None


async def _closed_with_the_loop(conn: aiosqlite.Connection) -> AsyncGenerator[None, None]:
    """Suspended until its loop shuts down (`asyncio.run` closes every open async generator):
    then closes `conn`, whose aiosqlite thread (not a daemon) would keep the process alive.
    A connection nobody closes (an engine's replay or run called directly, with no adapter call
    around it to release it) so ends with the loop that opened it."""
    try:
        yield
    finally:
        await conn.close()


class SQLiteCheckpointTable(OpenOnEnter):
    """LangGraph checkpoints, blobs and writes in `lg_*` tables of a SQLite file."""

    inline = False
    """Methods do I/O on aiosqlite's thread."""

    def __init__(self, path: str | Path, *, busy_timeout: float = 5.0) -> None:
        self.path = path
        """The database file."""
        self._busy_ms = int(busy_timeout * 1000)
        self._conns: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, _Conn] = weakref.WeakKeyDictionary()

    @classmethod
    def beside(cls, store: Any, **kw: Any) -> SQLiteCheckpointTable:
        """A table in the same file as a `SQLiteStore` (its `path`), on a connection of its own."""
        return cls(store.path, **kw)

    async def _open_now(self) -> object:
        return await self._conn()

    async def _conn(self) -> _Conn:
        loop = asyncio.get_running_loop()
        c = self._conns.get(loop)
        if c is not None:
            return c
        try:
            conn = await aiosqlite.connect(str(self.path), isolation_level=None)
            await conn.execute(f"PRAGMA busy_timeout = {self._busy_ms}")
            await conn.execute("PRAGMA journal_mode = WAL")
            await conn.execute("PRAGMA synchronous = NORMAL")
            for stmt in _SCHEMA:
                await conn.execute(stmt)
        except sqlite3.Error as exc:
            raise StoreUnavailableError(
                f"cannot open LangGraph checkpoint tables in {self.path}: {exc}"
            ) from exc
        c = self._conns.setdefault(loop, _Conn(conn))
        if c.conn is not conn:
            await conn.close()
        elif c.closer is None:
            c.closer = _closed_with_the_loop(conn)
            await anext(c.closer)
        return c

    async def put(self, row: LGCheckpointRow, blobs: Sequence[LGBlobRow]) -> None:
        """Store a checkpoint and its new blobs in one transaction."""
        c = await self._conn()
        async with c.lock:
            conn = c.conn
            await conn.execute("BEGIN IMMEDIATE")
            try:
                if blobs:
                    await conn.executemany(_PUT_BLOB, [b.params() for b in blobs])
                await conn.execute(
                    _PUT_CP,
                    row.params(),
                )
                await conn.execute("COMMIT")
            except BaseException:
                await conn.execute("ROLLBACK")
                raise

    async def put_writes(self, rows: Sequence[LGWriteRow], *, replace: bool) -> None:
        """Store pending writes in one statement batch."""
        if not rows:
            return
        c = await self._conn()
        async with c.lock:
            await c.conn.execute("BEGIN IMMEDIATE")
            try:
                await c.conn.executemany(
                    _PUT_W_REPLACE if replace else _PUT_W_KEEP,
                    [w.params() for w in rows],
                )
                await c.conn.execute("COMMIT")
            except BaseException:
                await c.conn.execute("ROLLBACK")
                raise

    async def get(self, thread_id: str, ns: str, checkpoint_id: str | None) -> LGCheckpointRow | None:
        """The checkpoint with this id, or the newest one."""
        c = await self._conn()
        async with c.lock:
            if checkpoint_id is None:
                cur = await c.conn.execute(_GET_LATEST, (thread_id, ns))
            else:
                cur = await c.conn.execute(_GET_ONE, (thread_id, ns, checkpoint_id))
            row = await cur.fetchone()
            await cur.close()
        return LGCheckpointRow(*row) if row is not None else None

    async def search(self, query: LGQuery) -> AsyncIterator[LGCheckpointRow]:
        """Checkpoints newest first (fetched in one query, then yielded)."""
        c = await self._conn()
        async with c.lock:
            cur = await c.conn.execute(_LIST, asdict(query))
            rows = await cur.fetchall()
            await cur.close()
        for r in rows:
            yield LGCheckpointRow(*r)

    async def blobs(self, thread_id: str, ns: str, versions: Mapping[str, str]) -> list[LGBlobRow]:
        """The stored blobs of these versions."""
        if not versions:
            return []
        c = await self._conn()
        out: list[LGBlobRow] = []
        async with c.lock:
            for ch, v in versions.items():
                cur = await c.conn.execute(_GET_BLOB, (thread_id, ns, ch, v))
                row = await cur.fetchone()
                await cur.close()
                if row is not None:
                    out.append(LGBlobRow(*row))
        return out

    async def writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[LGWriteRow]:
        """Pending writes in replay order."""
        c = await self._conn()
        async with c.lock:
            cur = await c.conn.execute(_GET_WRITES, (thread_id, ns, checkpoint_id))
            rows = await cur.fetchall()
            await cur.close()
        return [LGWriteRow(*r) for r in rows]

    async def _tx(self, stmts: Sequence[tuple[str, Sequence[Any] | Mapping[str, Any]]]) -> None:
        c = await self._conn()
        async with c.lock:
            await c.conn.execute("BEGIN IMMEDIATE")
            try:
                for sql, params in stmts:
                    await c.conn.execute(sql, params)
                await c.conn.execute("COMMIT")
            except BaseException:
                await c.conn.execute("ROLLBACK")
                raise

    async def delete_thread(self, thread_id: str) -> None:
        """Delete everything of a thread."""
        await self._tx([(s, (thread_id,)) for s in _DEL_THREAD])

    async def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints of these runs, then their writes and orphaned blobs."""
        if not run_ids:
            return
        c = await self._conn()
        threads: set[str] = set()
        async with c.lock:
            for rid in run_ids:
                cur = await c.conn.execute(_RUN_THREADS, (rid,))
                threads.update(r[0] for r in await cur.fetchall())
                await cur.close()
        stmts: list[tuple[str, Sequence[Any] | Mapping[str, Any]]] = [(_DEL_RUN, (rid,)) for rid in run_ids]
        for t in sorted(threads):
            stmts += [(_GC_WRITES, (t,)), (_GC_BLOBS, (t,))]
        await self._tx(stmts)

    async def copy_thread(self, source: str, target: str) -> None:
        """Copy a thread's rows under another thread id."""
        await self._tx([(s, {"source": source, "target": target}) for s in _COPY])

    async def prune(self, thread_ids: Sequence[str], *, keep_latest: bool) -> None:
        """Keep only the newest checkpoint per namespace (or none), with its writes and blobs."""
        stmts: list[tuple[str, Sequence[Any] | Mapping[str, Any]]] = []
        for t in thread_ids:
            stmts += [
                (_PRUNE_KEEP if keep_latest else _PRUNE_ALL, (t,)),
                (_GC_WRITES, (t,)),
                (_GC_BLOBS, (t,)),
            ]
        if stmts:
            await self._tx(stmts)

    async def release(self) -> None:
        """Close the running loop's connection, if any; the next use in this loop opens a new one."""
        await self.close()

    async def close(self) -> None:
        """Close the connection of the running loop (others close with their loop); it reopens on use."""
        try:
            loop = asyncio.get_running_loop()
        except RuntimeError:
            return
        c = self._conns.pop(loop, None)
        if c is not None:
            await (c.conn.close() if c.closer is None else c.closer.aclose())
