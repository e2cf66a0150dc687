"""Per-event-loop connection pools and the shape of a translated driver error."""

from __future__ import annotations

import asyncio
import contextlib
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import Any, Literal, Self

from ..errors import CorruptRecordError, RunExistsError, StoreError, StoreUnavailableError

__all__ = ["LoopPoolsMixin", "PoolMixin", "check_pool_size", "driver_error", "terminate"]


def driver_error(
    kind: type[StoreError],
    exc: BaseException,
    op: str,
    where: str,
    *,
    run_id: str | None,
    step: int | None,
    open_unavailable: bool = True,
) -> StoreError:
    """The `StoreError` of class `kind` for a driver exception (the caller adds `from exc`).

    With `open_unavailable`, a plain `StoreError` while opening becomes `StoreUnavailableError`.
    """
    if open_unavailable and op == "open" and kind is StoreError:
        kind = StoreUnavailableError
    what = f"run {run_id!r} already exists" if kind is RunExistsError else f"{op} failed"
    msg = f"{where}: {what}: {type(exc).__name__}: {exc}"
    if kind is CorruptRecordError:
        return CorruptRecordError(msg, run_id=run_id, step=step, field="")
    return kind(msg, run_id=run_id, step=step)


def check_pool_size(min_size: int, max_size: int) -> None:
    """`ValueError` unless 0 <= min_size <= max_size and max_size >= 1."""
    if not 0 <= min_size <= max_size or max_size < 1:
        raise ValueError(
            f"min_size={min_size}, max_size={max_size}; expected 0 <= min_size <= max_size, max_size >= 1"
        )


def terminate(pool: Any) -> None:
    """Drop a pool's connections without a goodbye (best effort: every write is committed)."""
    # RuntimeError: its connections belong to an event loop that is closed; they cannot be told
    # anything, and their sockets go with the garbage collector.
    with contextlib.suppress(RuntimeError):
        pool.terminate()


class PoolSettings:
    """The sizes and timeout every pooled backend takes, checked once (`check_pool_size`)."""

    min_size: int
    """Connections a pool keeps open."""
    max_size: int
    """Most connections a pool opens (the most statements in flight at once)."""
    connect_timeout: float
    """Seconds to wait for a connection before `StoreUnavailableError`."""

    def _init_settings(
        self, min_size: int, max_size: int, connect_timeout: float, errors: tuple[type[BaseException], ...]
    ) -> None:
        check_pool_size(min_size, max_size)
        self.min_size = min_size
        self.max_size = max_size
        self.connect_timeout = connect_timeout
        # the driver's own error classes join these once it is imported (in `_connect`)
        self._errors: tuple[type[BaseException], ...] = errors


class PoolMixin(PoolSettings):
    """A connection pool opened lazily inside the running event loop, reopened in another loop.

    The backend supplies `_connect` (open and migrate) and `_close_pool` (a polite close).
    """

    connect_timeout: float
    _errors: tuple[type[BaseException], ...]

    def _init_pool(self) -> None:
        self._pool: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # asyncio.Lock binds to the loop it is first contended in, so keep one per loop.
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    async def _connect(self) -> Any:
        raise NotImplementedError

    async def _close_pool(self, pool: Any) -> None:
        raise NotImplementedError

    async def _migrate(self, conn: Any) -> None:
        """Bring the schema to this code's version on `conn` (the backend's migrations)."""
        raise NotImplementedError

    async def _migrated(
        self, pool: Any, translate: Callable[[BaseException, Literal["open"], str], StoreError]
    ) -> Any:
        """`pool` once `_migrate` ran on one of its connections; if that fails, the pool is dropped
        and the driver's error comes out as `translate` names it (an "open" error)."""
        try:
            async with pool.acquire() as conn:
                await self._migrate(conn)
        except BaseException as exc:
            terminate(pool)
            if isinstance(exc, self._errors):
                raise translate(exc, "open", repr(self)) from exc
            raise
        return pool

    async def _db(self) -> Any:
        """The pool for the running loop, opened (or reopened) on first use in it."""
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
                return self._pool  # another task opened it while we waited
            old, self._pool, self._loop = self._pool, None, None
            if old is not None:
                terminate(old)
            pool = await self._connect()
            self._pool, self._loop = pool, loop
            return pool

    async def close(self) -> None:
        """Close the pool; the store may not be used afterwards (`StoreUnavailableError`)."""
        self._closed = True
        pool, loop, self._pool, self._loop = self._pool, self._loop, None, None
        if pool is None:
            return
        if loop is asyncio.get_running_loop():
            try:
                await asyncio.wait_for(self._close_pool(pool), self.connect_timeout)
                return
            except self._errors:
                pass  # closing is best effort: every write was already committed
        terminate(pool)

    async def __aenter__(self) -> Self:
        """Connect now, so a bad DSN fails here rather than at the first write."""
        await self._db()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()


class LoopPoolsMixin(PoolSettings):
    """One pool per event loop, each opened lazily in its loop and kept while the loop lives.

    For users driven from several loops at once (the LangGraph saver's sync bridge loop and the
    application's loop). The class supplies `_connect` and `_close_pool`, as for `PoolMixin`.
    """

    connect_timeout: float
    _errors: tuple[type[BaseException], ...]

    def _init_pools(self) -> None:
        self._pools: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, Any] = weakref.WeakKeyDictionary()
        self._locks: weakref.WeakKeyDictionary[asyncio.AbstractEventLoop, asyncio.Lock] = (
            weakref.WeakKeyDictionary()
        )
        self._closed = False

    async def _connect(self) -> Any:
        raise NotImplementedError

    async def _close_pool(self, pool: Any) -> None:
        raise NotImplementedError

    async def _pool(self) -> Any:
        """The running loop's pool, opened on first use in it."""
        loop = asyncio.get_running_loop()
        pool = self._pools.get(loop)
        if pool is not None:
            return pool
        lock = self._locks.setdefault(loop, asyncio.Lock())
        async with lock:
            if self._closed:
                raise StoreUnavailableError(f"{self!r} is closed")
            pool = self._pools.get(loop)
            if pool is None:
                pool = self._pools[loop] = await self._connect()
            return pool

    async def close(self) -> None:
        """Close the running loop's pool and drop the others; no use afterwards (`StoreUnavailableError`)."""
        self._closed = True
        try:
            loop: asyncio.AbstractEventLoop | None = asyncio.get_running_loop()
        except RuntimeError:
            loop = None
        pools = list(self._pools.items())
        self._pools.clear()
        for owner, pool in pools:
            if owner is loop:
                await self._close_here(pool)
            else:
                terminate(pool)

    async def release(self) -> None:
        """Close the running loop's pool, if any; unlike `close`, the next use opens a new one."""
        pool = self._pools.pop(asyncio.get_running_loop(), None)
        if pool is not None:
            await self._close_here(pool)

    async def _close_here(self, pool: Any) -> None:
        try:
            await asyncio.wait_for(self._close_pool(pool), self.connect_timeout)
        except self._errors:
            terminate(pool)  # best effort: every write was already committed

    async def __aenter__(self) -> Self:
        """Connect now, so a bad DSN fails here rather than at the first use."""
        await self._pool()
        return self

    async def __aexit__(
        self, exc_type: type[BaseException] | None, exc: BaseException | None, tb: TracebackType | None
    ) -> None:
        await self.close()
