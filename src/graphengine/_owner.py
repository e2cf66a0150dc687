"""`owning`: a run is driven by one caller at a time, so an interrupt's answer is taken once.

Three layers, each as wide as what it can see:

- In this process, a set of (store, run id) being driven: a second `run`/`resume` of the same
  run on the same store raises `RunBusyError` before reading anything. Every store has it; it
  costs a set insertion and removal per call, not per step.
- Across processes, the store's own ownership: a `RunLockStore` lock (`SQLiteStore`: dropped by
  the operating system when the process dies, so a crash is seen at once); a `LeaseStore`
  (PostgreSQL, MySQL) lease when the caller asks for one (`resume` answering a pause), unless
  the store holds it already (a worker, or a caller that claimed it), renewed every `ttl / 3`
  while the run is driven and released at the end, so a live driver elsewhere is seen and a
  crashed one is taken over once its lease expires.
- A store with neither is not excluded across processes: only the status compare-and-set of
  `resume` stands between two callers there (see `Engine.resume`).

`owning` yields whether the caller is known to be the run's only driver anywhere: then a run
found `running` was left so by a driver that is gone, and may be taken over.
"""

from __future__ import annotations

import asyncio
import contextlib
import itertools
import logging
import os
import socket
import threading
from collections.abc import AsyncIterator
from typing import cast

from ._runtime import settled
from ._wrapped import unwrapped
from .errors import RunBusyError
from .store import Lease, LeaseLostError, LeaseStore, RunLockStore, Store, StoreError

__all__ = ["is_lease_store", "owning"]

_log = logging.getLogger("graphengine")
_driving: set[tuple[int, str]] = set()
_mutex = threading.Lock()  # engines of several threads (each asyncio.run its own) share _driving
_claims = itertools.count(1)


def _kind(store: Store) -> type | None:
    """`LeaseStore`, `RunLockStore` or None (neither).

    A runtime-checkable isinstance tests every method of the protocol (tens of µs), so a class
    that has the methods itself is decided once; a delegating wrapper (methods found through
    `__getattr__`, per instance) is asked each time.
    """
    cls = type(store)
    kind = _kinds.get(cls, _UNKNOWN)
    if kind is not _UNKNOWN:
        return kind
    kind = (
        LeaseStore
        if isinstance(store, LeaseStore)
        else RunLockStore
        if isinstance(store, RunLockStore)
        else None
    )
    if kind is not None and all(hasattr(cls, m) for m in _OWN_METHODS[kind]):
        _kinds[cls] = kind
    elif kind is None and not hasattr(cls, "__getattr__"):
        _kinds[cls] = None
    return kind


_UNKNOWN: type = object
_OWN_METHODS: dict[type, tuple[str, ...]] = {
    LeaseStore: ("claim", "renew", "release", "holds"),
    RunLockStore: ("lock_run", "unlock_run"),
}
_kinds: dict[type, type | None] = {}


def is_lease_store(store: Store) -> bool:
    """Whether `store` (or the store it wraps) is a `LeaseStore`."""
    return _kind(unwrapped(store)) is LeaseStore


def _busy(run_id: str, who: str) -> RunBusyError:
    return RunBusyError(
        f"run {run_id!r} is being driven by {who}; nothing was run (read the run to see where it went)",
        run_id=run_id,
    )


@contextlib.asynccontextmanager
async def owning(store: Store, run_id: str, *, lease_ttl: float | None) -> AsyncIterator[bool]:
    """Drive `run_id` on `store` as its only driver, or raise `RunBusyError` (nothing done).

    `lease_ttl` None takes no lease (a new run: its creator owns it by construction, and a claim
    would cost two round trips per run); yields True when no other driver can exist anywhere.
    """
    base = unwrapped(store)
    key = (id(base), run_id)
    with _mutex:
        if key in _driving:
            raise _busy(run_id, "another caller in this process")
        _driving.add(key)
    try:
        kind = _kind(base)
        if kind is LeaseStore:
            base = cast(LeaseStore, base)
            held = base.holds(run_id)  # a worker's, or the caller's own claim: already the owner
            if lease_ttl is None or held:
                yield held
            else:
                async with _leased(base, run_id, lease_ttl) as sole:
                    yield sole
        elif kind is RunLockStore:
            base = cast(RunLockStore, base)
            if not base.lock_run(run_id):
                raise _busy(run_id, "another process")
            try:
                yield True
            finally:
                base.unlock_run(run_id)
        else:
            yield False
    finally:
        with _mutex:
            _driving.discard(key)


@contextlib.asynccontextmanager
async def _leased(store: LeaseStore, run_id: str, ttl: float) -> AsyncIterator[bool]:
    """Hold the run's lease while the body drives it: claimed, renewed every `ttl / 3`, released."""
    who = f"{socket.gethostname()}:{os.getpid()}/resume{next(_claims)}"
    claim = asyncio.ensure_future(store.claim(run_id, who, ttl))
    try:
        lease = await settled(claim)
    except asyncio.CancelledError:
        # The server may have granted the lease the cancelled caller gave up on: given back, or
        # the run could not be answered by anyone until it ran out.
        if claim.done() and not claim.cancelled() and claim.exception() is None:
            got = claim.result()
            if got is not None:
                with contextlib.suppress(StoreError):
                    await settled(store.release(got))
        raise
    except StoreError:
        if await store.get_run(run_id) is not None:
            raise
        lease = None  # unknown run: resume's read reports it
        unknown = True
    else:
        unknown = False
    if unknown:
        yield False
        return
    if lease is None:
        raise _busy(run_id, "another process (it holds the run's lease)")
    beat = asyncio.create_task(_renew(store, lease, ttl), name=f"lease {run_id}")
    try:
        yield True
    finally:
        beat.cancel()
        await asyncio.gather(beat, return_exceptions=True)
        try:
            await settled(store.release(lease))
        except StoreError as exc:  # the lease runs out by itself ttl seconds after the last renewal
            _log.warning("run %r: releasing lease token %d failed: %s", run_id, lease.token, exc)


async def _renew(store: LeaseStore, lease: Lease, ttl: float) -> None:
    """Keep the lease live; once it is lost the run's next write is refused (`LeaseLostError`)."""
    while True:
        await asyncio.sleep(ttl / 3)
        try:
            lease = await store.renew(lease, ttl)
        except LeaseLostError as exc:
            _log.warning("run %r: lease token %d lost: %s", lease.run_id, lease.token, exc)
            return
        except StoreError as exc:  # the database may be back before the lease runs out
            _log.warning("run %r: renewing lease token %d failed: %s", lease.run_id, lease.token, exc)
