"""`PostgresCheckpointTable`: LangGraph checkpoints in PostgreSQL, for `GraphEngineSaver`.

It may share the database and schema of a `PostgresStore` (`PostgresCheckpointTable.beside(store)`):
its tables are prefixed `lg_`, created with `IF NOT EXISTS` under a transaction-scoped advisory
lock (processes opening a fresh schema together do not race), and it never touches the store's
tables or its `schema_version`.

- asyncpg, imported on first use (`pip install 'graphengine[postgres]'`; without it,
  `MissingDriverError`). One pool per event loop, opened lazily in it: the saver's sync bridge
  loop and the application's loop each get theirs.
- `put` (a checkpoint and its new blobs) is ONE statement (a data-modifying CTE), so it is
  atomic without a transaction block; `put_writes` is one `INSERT ... SELECT FROM unnest(...)`.
  The bulk deletes (`delete_for_runs`, `prune`) and `copy_thread` run in one transaction.
- Values are `bytea` (byte-for-byte round trip); ids are `text COLLATE "C"`, so "newest first"
  is byte order of checkpoint ids, as in every other table. `versions` stays the saver's bytes;
  garbage collection of blobs reads it as JSON on the server.
- Driver exceptions are translated by the PostgreSQL store's one table (`graphengine.store._sql`) (`StoreError` subclasses).
- Every value is a bound parameter; statements are literals.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Mapping, Sequence
from typing import Any, Final

from graphengine.store._sql import LoopPoolsMixin
from graphengine.store._sql import Op as _Op
from graphengine.store._sql._postgres import CREATE_SCHEMA as _CREATE_SCHEMA
from graphengine.store._sql._postgres import OTHER_ERRORS as _OTHER_ERRORS
from graphengine.store._sql._postgres import SCHEMA_NAME as _SCHEMA_NAME
from graphengine.store._sql._postgres import driver as _driver
from graphengine.store._sql._postgres import translate as _translate

from ._protocol import LGBlobRow, LGCheckpointRow, LGQuery, LGWriteRow, columns

__all__ = ["PostgresCheckpointTable"]

_LOCK: Final = "SELECT pg_advisory_xact_lock(hashtext('graphengine.lg:' || $1::text))"
_SCHEMA: Final = (
    """CREATE TABLE IF NOT EXISTS lg_checkpoints (
        thread_id     text COLLATE "C" NOT NULL,
        ns            text COLLATE "C" NOT NULL,
        checkpoint_id text COLLATE "C" NOT NULL,
        parent_id     text COLLATE "C",
        type          text NOT NULL,
        checkpoint    bytea NOT NULL,
        metadata_type text NOT NULL,
        metadata      bytea NOT NULL,
        run_id        text COLLATE "C",
        versions      bytea NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id)
    )""",
    "CREATE INDEX IF NOT EXISTS lg_checkpoints_run ON lg_checkpoints (run_id) WHERE run_id IS NOT NULL",
    "CREATE INDEX IF NOT EXISTS lg_checkpoints_id ON lg_checkpoints (checkpoint_id)",
    """CREATE TABLE IF NOT EXISTS lg_blobs (
        thread_id text COLLATE "C" NOT NULL,
        ns        text COLLATE "C" NOT NULL,
        channel   text COLLATE "C" NOT NULL,
        version   text COLLATE "C" NOT NULL,
        type      text NOT NULL,
        value     bytea NOT NULL,
        PRIMARY KEY (thread_id, ns, channel, version)
    )""",
    """CREATE TABLE IF NOT EXISTS lg_writes (
        thread_id     text COLLATE "C" NOT NULL,
        ns            text COLLATE "C" NOT NULL,
        checkpoint_id text COLLATE "C" NOT NULL,
        task_id       text COLLATE "C" NOT NULL,
        task_path     text COLLATE "C" NOT NULL,
        idx           integer NOT NULL,
        channel       text NOT NULL,
        type          text NOT NULL,
        value         bytea NOT NULL,
        PRIMARY KEY (thread_id, ns, checkpoint_id, task_id, idx)
    )""",
)

# A checkpoint and its blobs in ONE statement: both inserts commit together or not at all.
_PUT: Final = """WITH b AS (
    INSERT INTO lg_blobs (thread_id, ns, channel, version, type, value)
    SELECT $1::text, $2::text, u.c, u.v, u.t, u.val
    FROM unnest($11::text[], $12::text[], $13::text[], $14::bytea[]) AS u(c, v, t, val)
    ON CONFLICT (thread_id, ns, channel, version) DO UPDATE SET type = excluded.type, value = excluded.value
)
INSERT INTO lg_checkpoints (thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions)
VALUES ($1, $2, $3, $4, $5, $6, $7, $8, $9, $10)
ON CONFLICT (thread_id, ns, checkpoint_id) DO UPDATE SET parent_id = excluded.parent_id, type = excluded.type,
    checkpoint = excluded.checkpoint, metadata_type = excluded.metadata_type, metadata = excluded.metadata,
    run_id = excluded.run_id, versions = excluded.versions"""
_PUT_W_SELECT: Final = """INSERT INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
SELECT * FROM unnest($1::text[], $2::text[], $3::text[], $4::text[], $5::text[], $6::integer[], $7::text[], $8::text[], $9::bytea[])"""
_PUT_W_REPLACE: Final = (
    _PUT_W_SELECT
    + """
ON CONFLICT (thread_id, ns, checkpoint_id, task_id, idx) DO UPDATE SET task_path = excluded.task_path,
    channel = excluded.channel, type = excluded.type, value = excluded.value"""
)
_PUT_W_KEEP: Final = _PUT_W_SELECT + "\nON CONFLICT (thread_id, ns, checkpoint_id, task_id, idx) DO NOTHING"
_GET_ONE: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions"
    " FROM lg_checkpoints WHERE thread_id = $1 AND ns = $2 AND checkpoint_id = $3"
)
_GET_LATEST: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions"
    " FROM lg_checkpoints WHERE thread_id = $1 AND ns = $2 ORDER BY checkpoint_id DESC LIMIT 1"
)
# One statement for every filter combination: a NULL parameter disables its condition.
_LIST: Final = (
    "SELECT thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions"
    " FROM lg_checkpoints WHERE ($1::text IS NULL OR thread_id = $1) AND ($2::text IS NULL OR ns = $2)"
    " AND ($3::text IS NULL OR checkpoint_id = $3) AND ($4::text IS NULL OR checkpoint_id < $4)"
    " ORDER BY checkpoint_id DESC, thread_id DESC, ns DESC"
)
_GET_BLOBS: Final = (
    "SELECT thread_id, ns, channel, version, type, value FROM lg_blobs WHERE thread_id = $1 AND ns = $2"
    " AND (channel, version) IN (SELECT * FROM unnest($3::text[], $4::text[]))"
)
_GET_WRITES: Final = (
    "SELECT thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value FROM lg_writes"
    " WHERE thread_id = $1 AND ns = $2 AND checkpoint_id = $3 ORDER BY task_path, task_id, idx"
)
_DEL_THREAD: Final = """WITH c AS (DELETE FROM lg_checkpoints WHERE thread_id = $1),
b AS (DELETE FROM lg_blobs WHERE thread_id = $1)
DELETE FROM lg_writes WHERE thread_id = $1"""
# Writes whose checkpoint is gone, and blobs no remaining checkpoint of their thread/ns names.
_GC_WRITES: Final = """DELETE FROM lg_writes w WHERE w.thread_id = ANY($1::text[]) AND NOT EXISTS (
    SELECT 1 FROM lg_checkpoints c
    WHERE c.thread_id = w.thread_id AND c.ns = w.ns AND c.checkpoint_id = w.checkpoint_id)"""
_GC_BLOBS: Final = """DELETE FROM lg_blobs b WHERE b.thread_id = ANY($1::text[]) AND NOT EXISTS (
    SELECT 1 FROM lg_checkpoints c, jsonb_each_text(convert_from(c.versions, 'UTF8')::jsonb) j
    WHERE c.thread_id = b.thread_id AND c.ns = b.ns AND j.key = b.channel AND j.value = b.version)"""
_DEL_RUNS: Final = "DELETE FROM lg_checkpoints WHERE run_id = ANY($1::text[]) RETURNING thread_id"
_PRUNE_KEEP: Final = """DELETE FROM lg_checkpoints c WHERE c.thread_id = ANY($1::text[]) AND c.checkpoint_id <> (
    SELECT max(n.checkpoint_id) FROM lg_checkpoints n WHERE n.thread_id = c.thread_id AND n.ns = c.ns)"""
_PRUNE_ALL: Final = "DELETE FROM lg_checkpoints WHERE thread_id = ANY($1::text[])"
_COPY: Final = (
    """INSERT INTO lg_checkpoints (thread_id, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions)
SELECT $2, ns, checkpoint_id, parent_id, type, checkpoint, metadata_type, metadata, run_id, versions
FROM lg_checkpoints WHERE thread_id = $1
ON CONFLICT (thread_id, ns, checkpoint_id) DO UPDATE SET parent_id = excluded.parent_id, type = excluded.type,
    checkpoint = excluded.checkpoint, metadata_type = excluded.metadata_type, metadata = excluded.metadata,
    run_id = excluded.run_id, versions = excluded.versions""",
    """INSERT INTO lg_blobs (thread_id, ns, channel, version, type, value)
SELECT $2, ns, channel, version, type, value FROM lg_blobs WHERE thread_id = $1
ON CONFLICT (thread_id, ns, channel, version) DO UPDATE SET type = excluded.type, value = excluded.value""",
    """INSERT INTO lg_writes (thread_id, ns, checkpoint_id, task_id, task_path, idx, channel, type, value)
SELECT $2, ns, checkpoint_id, task_id, task_path, idx, channel, type, value FROM lg_writes WHERE thread_id = $1
ON CONFLICT (thread_id, ns, checkpoint_id, task_id, idx) DO UPDATE SET task_path = excluded.task_path,
    channel = excluded.channel, type = excluded.type, value = excluded.value""",
)


def _cp(r: Any) -> LGCheckpointRow:
    return LGCheckpointRow(r[0], r[1], r[2], r[3], r[4], bytes(r[5]), r[6], bytes(r[7]), r[8], bytes(r[9]))


class PostgresCheckpointTable(LoopPoolsMixin):
    """LangGraph checkpoints, blobs and writes in `lg_*` tables of a PostgreSQL schema.

    `PostgresCheckpointTable(dsn)` needs no event loop and connects on first use; release it
    with `async with` or `await table.close()`. Errors are `StoreError` subclasses
    (`StoreUnavailableError` when the server cannot be reached, `MissingDriverError` without
    asyncpg).
    """

    inline = False
    """Methods do network I/O."""

    def __init__(
        self,
        dsn: str,
        *,
        schema: str = "graphengine",
        min_size: int = 1,
        max_size: int = 10,
        connect_timeout: float = 10.0,
    ) -> None:
        if not _SCHEMA_NAME.fullmatch(schema):
            raise ValueError(f"schema={schema!r}; expected a lower-case SQL identifier ([a-z_][a-z0-9_]*)")
        self._init_settings(min_size, max_size, connect_timeout, _OTHER_ERRORS)
        self.dsn = dsn
        """Where the database is (a libpq-style URL)."""
        self.schema = schema
        """The PostgreSQL schema holding the `lg_*` tables."""
        self._init_pools()

    @classmethod
    def beside(cls, store: Any, **kw: Any) -> PostgresCheckpointTable:
        """A table in the database and schema of a `PostgresStore` (its `dsn`, `schema`), with its own pools."""
        return cls(store.dsn, schema=store.schema, **kw)

    def __repr__(self) -> str:
        # Never show the DSN: it may hold a password.
        return f"PostgresCheckpointTable(schema={self.schema!r})"

    # ---------------------------------------------------------------- connections

    async def _connect(self) -> Any:
        asyncpg = _driver()
        self._errors = (asyncpg.PostgresError, asyncpg.InterfaceError, *_OTHER_ERRORS)
        where = repr(self)
        try:
            conn = await asyncpg.connect(self.dsn, timeout=self.connect_timeout)
            try:
                ddl = await conn.fetchval(_CREATE_SCHEMA, self.schema)
                async with conn.transaction():
                    # Everyone opening takes the lock: concurrent IF NOT EXISTS can still race
                    # on the catalog's unique indexes.
                    await conn.execute(_LOCK, self.schema)
                    await conn.execute(ddl)
                    await conn.execute(f"SET LOCAL search_path TO {self.schema}")  # a checked identifier
                    for stmt in _SCHEMA:
                        await conn.execute(stmt)
            finally:
                await conn.close()
            return await asyncpg.create_pool(
                self.dsn,
                min_size=self.min_size,
                max_size=self.max_size,
                timeout=self.connect_timeout,
                server_settings={"search_path": self.schema},
            )
        except self._errors as exc:
            raise _translate(exc, "open", where) from exc

    async def _fetch(self, sql: str, *args: Any) -> list[Any]:
        pool = await self._pool()
        try:
            return list(await pool.fetch(sql, *args))
        except self._errors as exc:
            raise _translate(exc, "read", repr(self)) from exc

    async def _execute(self, sql: str, *args: Any) -> None:
        pool = await self._pool()
        try:
            await pool.execute(sql, *args)
        except self._errors as exc:
            raise _translate(exc, "write", repr(self)) from exc

    async def _tx(self, stmts: Sequence[tuple[str, Sequence[Any]]], op: _Op = "write") -> None:
        pool = await self._pool()
        try:
            async with pool.acquire() as conn, conn.transaction():
                for sql, args in stmts:
                    await conn.execute(sql, *args)
        except self._errors as exc:
            raise _translate(exc, op, repr(self)) from exc

    # ---------------------------------------------------------------- CheckpointTable

    async def put(self, row: LGCheckpointRow, blobs: Sequence[LGBlobRow]) -> None:
        """Store a checkpoint and its new blobs in one statement."""
        await self._execute(
            _PUT,
            *row.params(),
            [b.channel for b in blobs],
            [b.version for b in blobs],
            [b.type for b in blobs],
            [b.value for b in blobs],
        )

    async def put_writes(self, rows: Sequence[LGWriteRow], *, replace: bool) -> None:
        """Store pending writes in one statement (first write wins unless `replace`)."""
        if not rows:
            return
        await self._execute(
            _PUT_W_REPLACE if replace else _PUT_W_KEEP,
            *columns(rows),
        )

    async def get(self, thread_id: str, ns: str, checkpoint_id: str | None) -> LGCheckpointRow | None:
        """The checkpoint with this id, or the newest one."""
        if checkpoint_id is None:
            rows = await self._fetch(_GET_LATEST, thread_id, ns)
        else:
            rows = await self._fetch(_GET_ONE, thread_id, ns, checkpoint_id)
        return _cp(rows[0]) if rows else None

    async def search(self, query: LGQuery) -> AsyncIterator[LGCheckpointRow]:
        """Checkpoints newest first (fetched in one query, then yielded)."""
        for r in await self._fetch(_LIST, *query.params()):
            yield _cp(r)

    async def blobs(self, thread_id: str, ns: str, versions: Mapping[str, str]) -> list[LGBlobRow]:
        """The stored blobs of these versions (one query)."""
        if not versions:
            return []
        rows = await self._fetch(_GET_BLOBS, thread_id, ns, list(versions), list(versions.values()))
        return [LGBlobRow(r[0], r[1], r[2], r[3], r[4], bytes(r[5])) for r in rows]

    async def writes(self, thread_id: str, ns: str, checkpoint_id: str) -> list[LGWriteRow]:
        """Pending writes in replay order."""
        rows = await self._fetch(_GET_WRITES, thread_id, ns, checkpoint_id)
        return [LGWriteRow(r[0], r[1], r[2], r[3], r[4], r[5], r[6], r[7], bytes(r[8])) for r in rows]

    async def delete_thread(self, thread_id: str) -> None:
        """Delete everything of a thread (one statement)."""
        await self._execute(_DEL_THREAD, thread_id)

    async def delete_for_runs(self, run_ids: Sequence[str]) -> None:
        """Delete the checkpoints of these runs, then their writes and orphaned blobs, in one transaction."""
        if not run_ids:
            return
        pool = await self._pool()
        try:
            async with pool.acquire() as conn, conn.transaction():
                threads = sorted({r[0] for r in await conn.fetch(_DEL_RUNS, list(run_ids))})
                if threads:
                    await conn.execute(_GC_WRITES, threads)
                    await conn.execute(_GC_BLOBS, threads)
        except self._errors as exc:
            raise _translate(exc, "write", repr(self)) from exc

    async def copy_thread(self, source: str, target: str) -> None:
        """Copy a thread's rows under another thread id, in one transaction."""
        await self._tx([(s, (source, target)) for s in _COPY])

    async def prune(self, thread_ids: Sequence[str], *, keep_latest: bool) -> None:
        """Keep only the newest checkpoint per namespace (or none), with its writes and blobs."""
        if not thread_ids:
            return
        ids = list(thread_ids)
        await self._tx(
            [(_PRUNE_KEEP if keep_latest else _PRUNE_ALL, (ids,)), (_GC_WRITES, (ids,)), (_GC_BLOBS, (ids,))]
        )

    async def _close_pool(self, pool: Any) -> None:
        await pool.close()
