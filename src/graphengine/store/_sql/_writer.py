"""The step writer: one pooled connection held out of its pool for a store's step writes.

Group commit has at most one batch of steps in flight per store and event loop, so one
connection serves every step write; going through the pool instead costs an acquire and a
release per step (a queue, a shielded task, a timer in asyncpg: about 70 µs of CPU per step,
measured by `bench/scale.py`'s one-run row). A pool of one connection keeps it for everyone (the
writer is given back after each write), so `max_size` stays the most connections open.

A writer the server closed while it sat idle is seen before the next write (nothing was sent:
a fresh connection takes that write); one that fails mid-statement, or is cancelled there, goes
back to its pool, whose release copes with a broken or busy connection.
"""

from __future__ import annotations

import asyncio
from collections.abc import Awaitable, Callable
from typing import Any, TypeVar

from ..errors import StoreError
from ._pool import PoolMixin

__all__ = ["WriterMixin"]

T = TypeVar("T")


class WriterMixin(PoolMixin):
    """`PoolMixin` with one connection held for the step writes (`_on_writer`).

    The backend supplies the driver calls: `_take_conn`, `_give_conn`, `_conn_usable`,
    `_keeps_conn` and `_writer_error`.
    """

    max_size: int

    def _init_writer(self) -> None:
        self._init_pool()
        self._writer: Any = None
        self._writer_pool: Any = None
        self._writer_loop: asyncio.AbstractEventLoop | None = None
        self._writing = False

    # ---------------------------------------------------------------- driver hooks

    async def _take_conn(self, pool: Any) -> Any:
        """A connection out of `pool` (the pool's acquire)."""
        raise NotImplementedError

    async def _give_conn(self, pool: Any, conn: Any, healthy: bool) -> None:
        """Return `conn` to `pool`; not `healthy`: a failure may have left it unusable."""
        raise NotImplementedError

    def _conn_usable(self, conn: Any) -> bool:
        """Whether a held connection can take a statement (open, idle, not closed by the server)."""
        raise NotImplementedError

    def _keeps_conn(self, exc: BaseException, conn: Any) -> bool:
        """Whether `conn` is still usable after `exc` (a server error about the statement itself)."""
        raise NotImplementedError

    def _writer_error(self, exc: BaseException, run_id: str, step: int | None) -> StoreError:
        """The `StoreError` for a driver error of a step write (the caller adds `from exc`)."""
        raise NotImplementedError

    # ---------------------------------------------------------------- the writer

    async def _on_writer(self, work: Callable[[Any], Awaitable[T]], *, run_id: str, step: int | None) -> T:
        """`await work(conn)` on the writer connection; a driver error becomes a `StoreError`."""
        pool = await self._db()
        conn = self._writer
        if conn is not None and (self._writer_pool is not pool or not self._conn_usable(conn)):
            # Another loop's pool, or the server hung up while it was idle.
            await self._drop_writer(healthy=False)
            conn = None
        if conn is None:
            try:
                conn = await self._take_conn(pool)
            except self._errors as exc:
                raise self._writer_error(exc, run_id, step) from exc
            self._writer, self._writer_pool, self._writer_loop = conn, pool, asyncio.get_running_loop()
        healthy = False
        self._writing = True
        try:
            result = await work(conn)
            healthy = True
            return result
        except self._errors as exc:
            healthy = self._keeps_conn(exc, conn)
            raise self._writer_error(exc, run_id, step) from exc
        finally:
            self._writing = False
            if not healthy or self.max_size < 2 or self._closed or self._pool is not pool:
                await self._drop_writer(healthy=healthy)

    async def _drop_writer(self, *, healthy: bool = True) -> None:
        """Give the writer connection back to its pool (a pool of another loop went with it)."""
        conn, pool, self._writer, self._writer_pool = self._writer, self._writer_pool, None, None
        if conn is None or self._writer_loop is not asyncio.get_running_loop():
            return
        await self._give_conn(pool, conn, healthy)

    async def close(self) -> None:
        """Close the pool; the store may not be used afterwards (`StoreUnavailableError`)."""
        self._closed = True
        if not self._writing:
            # In flight, the write gives the writer back itself when its statement is done.
            await self._drop_writer()
        await super().close()
