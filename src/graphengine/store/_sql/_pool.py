"""Per-event-loop connection pools and the shape of a translated driver error."""

from __future__ import annotations

import asyncio
import contextlib
from types import TracebackType
from typing import Any, Self

from ..errors import CorruptRecordError, RunExistsError, StoreError, StoreUnavailableError

__all__ = ["PoolMixin", "driver_error", "terminate"]


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


def terminate(pool: Any) -> None:
    """Drop a pool's connections without a goodbye (best effort: every write is committed)."""
    # RuntimeError: its connections belong to an event loop that is closed; they cannot be told
    # anything, and their sockets go with the garbage collector.
    with contextlib.suppress(RuntimeError):
        pool.terminate()


class PoolMixin:
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
