"""Per-event-loop connection pools and the shape of a translated driver error."""

from __future__ import annotations

import asyncio
import contextlib
import math
import weakref
from collections.abc import Callable
from types import TracebackType
from typing import Any, Final, Literal, Protocol, Self

from ..errors import (
    CorruptRecordError,
    RunExistsError,
    StepConflictError,
    StoreError,
    StoreUnavailableError,
    ValueRefusedError,
)

__all__ = [
    "LoopPoolsMixin",
    "OneLoopMixin",
    "OpenOnEnter",
    "Pick",
    "PoolMixin",
    "always",
    "LOCK_TIMEOUT",
    "check_lock_timeout",
    "check_pool_size",
    "driver_error",
    "key_conflict",
    "refused",
    "terminate",
]


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


Pick = Callable[[BaseException, str], type[StoreError]]
"""A translation table's entry: the `StoreError` class for a driver exception raised by an operation."""


def always(kind: type[StoreError]) -> Pick:
    """The entry picking `kind` whatever the exception and operation."""
    return lambda exc, op: kind


def refused(exc: BaseException, op: str) -> type[StoreError]:
    """The entry for "the database refuses this value": `ValueRefusedError` for a write; while
    opening or reading, where no value of the caller's was sent, a plain `StoreError`."""
    return StoreError if op in ("open", "read") else ValueRefusedError


def key_conflict(op: str, *, run_taken: bool = True) -> type[StoreError]:
    """What a taken key or a missing parent row means for `op`: `RunExistsError` creating a run
    (unless `run_taken` is false: the key that failed was not the run's), `StepConflictError`
    writing steps, branches or a checkpoint, else a plain `StoreError`."""
    if op == "create_run" and run_taken:
        return RunExistsError
    if op in ("save_step", "save_branches", "save_checkpoint"):
        return StepConflictError
    return StoreError


LOCK_TIMEOUT: Final = 10.0
"""Default seconds a server store's statement waits for a row lock another session holds.

The stores' own writes hold a row's lock for one statement, so a longer wait means another
session holds it (an operator's open transaction, a client paused mid-transaction): the write
then fails with `StoreUnavailableError` instead of stalling every run of the store behind it."""


def check_lock_timeout(lock_timeout: float | None) -> float | None:
    """`ValueError` unless `lock_timeout` is None (no bound of the store's own) or a finite
    number of seconds above 0; returns it as a float (or None)."""
    if lock_timeout is None:
        return None
    if isinstance(lock_timeout, bool) or not isinstance(lock_timeout, int | float):
        raise ValueError(f"lock_timeout={lock_timeout!r}; expected seconds (a number above 0) or None")
    if not 0 < lock_timeout < math.inf:
        raise ValueError(f"lock_timeout={lock_timeout!r}; expected seconds (a number above 0) or None")
    return float(lock_timeout)


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
    """The sizes and timeouts every pooled backend takes, checked once (`check_pool_size`,
    `check_lock_timeout`)."""

    min_size: int
    """Connections a pool keeps open."""
    max_size: int
    """Most connections a pool opens (the most statements in flight at once)."""
    connect_timeout: float
    """Seconds to wait for a connection before `StoreUnavailableError`."""
    lock_timeout: float | None
    """Seconds a statement waits for a lock another session holds before it fails with
    `StoreUnavailableError`; None leaves the server's own setting."""

    def _init_settings(
        self,
        min_size: int,
        max_size: int,
        connect_timeout: float,
        errors: tuple[type[BaseException], ...],
        lock_timeout: float | None = None,
    ) -> None:
        check_pool_size(min_size, max_size)
        self.min_size = min_size
        self.max_size = max_size
        self.connect_timeout = connect_timeout
        self.lock_timeout = check_lock_timeout(lock_timeout)
        # the driver's own error classes join these once it is imported (in `_connect`)
        self._errors: tuple[type[BaseException], ...] = errors

    async def _connect(self) -> Any:
        """Open a pool (and migrate its schema): the backend's driver glue."""
        raise NotImplementedError

    async def _close_pool(self, pool: Any) -> None:
        """Close a pool politely (the backend's driver call)."""
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


class _Closable(Protocol):
    async def close(self) -> None: ...


class OpenOnEnter:
    """`async with` for a holder of connections: entering opens them now, so a bad address fails
    there rather than at the first use; leaving calls `close()`.

    The class supplies `_open_now` (and an async `close`).
    """

    async def _open_now(self) -> object:
        raise NotImplementedError

    async def __aenter__(self) -> Self:
        """Connect now, so a bad address fails here rather than at the first use."""
        await self._open_now()
        return self

    async def __aexit__(
        self: _Closable,
        exc_type: type[BaseException] | None,
        exc: BaseException | None,
        tb: TracebackType | None,
    ) -> None:
        await self.close()


class OneLoopMixin(OpenOnEnter):
    """One handle (a pool, a connection) opened lazily inside the running event loop and reopened
    when the object is used from another loop; the handle of the old loop is discarded.

    The class supplies `_connect` (open and migrate) and `_discard` (drop a handle of a loop that
    is no longer the running one).
    """

    def _init_handle(self) -> None:
        self._handle: Any = None
        self._loop: asyncio.AbstractEventLoop | None = None
        # asyncio.Lock binds to the loop it is first contended in, so keep one per loop.
        self._lock: asyncio.Lock | None = None
        self._lock_loop: asyncio.AbstractEventLoop | None = None
        self._closed = False

    async def _connect(self) -> Any:
        raise NotImplementedError

    async def _discard(self, handle: Any) -> None:
        raise NotImplementedError

    async def _db(self) -> Any:
        """The handle for the running loop, opened (or reopened) on first use in it."""
        handle = self._handle
        if handle is not None and self._loop is asyncio.get_running_loop():
            return handle
        return await self._open_for_loop()

    async def _open_now(self) -> object:
        return await self._db()

    async def _open_for_loop(self) -> Any:
        loop = asyncio.get_running_loop()
        if self._lock is None or self._lock_loop is not loop:
            self._lock, self._lock_loop = asyncio.Lock(), loop
        async with self._lock:
            if self._closed:
                raise StoreUnavailableError(f"{self!r} is closed")
            if self._handle is not None and self._loop is loop:
                return self._handle  # another task opened it while we waited
            old, self._handle, self._loop = self._handle, None, None
            if old is not None:
                await self._discard(old)
            handle = await self._connect()
            self._handle, self._loop = handle, loop
            return handle


class PoolMixin(PoolSettings, OneLoopMixin):
    """A connection pool opened lazily inside the running event loop, reopened in another loop.

    The backend supplies `_connect` (open and migrate) and `_close_pool` (a polite close).
    """

    connect_timeout: float
    _errors: tuple[type[BaseException], ...]

    def _init_pool(self) -> None:
        self._init_handle()

    @property
    def _pool(self) -> Any:
        """The pool of the loop that opened it last (None before the first use)."""
        return self._handle

    async def _discard(self, handle: Any) -> None:
        terminate(handle)

    async def close(self) -> None:
        """Close the pool; the store may not be used afterwards (`StoreUnavailableError`)."""
        self._closed = True
        pool, loop, self._handle, self._loop = self._handle, self._loop, None, None
        if pool is None:
            return
        if loop is asyncio.get_running_loop():
            try:
                await asyncio.wait_for(self._close_pool(pool), self.connect_timeout)
                return
            except self._errors:
                pass  # closing is best effort: every write was already committed
        terminate(pool)


class LoopPoolsMixin(PoolSettings, OpenOnEnter):
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

    async def _open_now(self) -> object:
        return await self._pool()
