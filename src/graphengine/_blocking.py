"""`run_blocking`: drive one of the engine's coroutines to its end from synchronous code.

The `*_sync` methods (`Engine.run_sync`, `Engine.resume_sync`) are this function around their
async twins, never a second implementation. Where they are called decides the loop:

- No event loop runs in the calling thread (a script, a REPL, a thread of a web server):
  `asyncio.run`, a new loop for the call, as before.
- A loop runs in the calling thread (a Jupyter cell: ipykernel runs cells inside its loop; an
  `async def` calling a sync library): that loop cannot be re-entered, so the coroutine runs
  on the *sync loop*, one private event loop per process on a daemon thread
  (`graphengine-sync`), and the calling thread waits for it, as LangGraph's `invoke` blocks
  its caller. The caller's loop is blocked meanwhile, so no task of it runs alongside.

Why one long-lived loop rather than a new loop per call: store connections belong to the loop
that opened them (aiosqlite's answer futures, asyncpg's and asyncmy's transports). Each store
keeps one handle for the loop that used it last and opens a new one when it is used from
another loop (`graphengine.store._sql.OneLoopMixin`). On the sync loop, a notebook's sync
calls all use one loop: the store opens its connection or pool once and keeps it for the next
cell, and that loop outlives the handle, so nothing is left bound to a closed loop. Mixing
`await engine.run(...)` and `engine.run_sync(...)` on one store moves its handle between the
two loops, one call after the other, which every store supports; what cannot work is a sync
call while the caller's loop has a call of the same store in flight (a background task),
since that task is frozen until the sync call returns: await the async method there instead.

Interrupting the wait (KeyboardInterrupt, a notebook's "interrupt kernel") cancels the
coroutine and waits for it to unwind, so the run stops as a cancelled `run` stops (its
committed steps kept, `resume` continues it) instead of going on unseen in the background.

A sync call made from code the sync loop itself runs (a node calling another engine's
`run_sync`) cannot wait on its own loop; it runs on a new loop in a new thread instead.
The caller's context variables (an OpenTelemetry span, say) are carried to the coroutine.
"""

from __future__ import annotations

import asyncio
import atexit
import concurrent.futures
import contextlib
import contextvars
import os
import threading
from collections.abc import Coroutine
from typing import Any, TypeVar

__all__ = ["run_blocking"]

T = TypeVar("T")

_STOP_WAIT = 5.0
"""Seconds the exit hook waits for the sync loop to finish its current callback."""
_lock = threading.Lock()
_sync_loop: asyncio.AbstractEventLoop | None = None


def run_blocking(coro: Coroutine[Any, Any, T]) -> T:
    """Run `coro` to its end and return its result (or raise its exception), from sync code.

    What every `*_sync` method does, for any of graphengine's coroutines:
    `run_blocking(engine.replay("r1"))` in a script or a notebook cell alike. Without a running
    loop in this thread it is `asyncio.run(coro)`; inside one (a Jupyter cell) `coro` runs on
    graphengine's private sync loop, on its own thread, while this thread waits, and store
    connections opened there are kept for the next call. Interrupting the wait cancels `coro`.
    Do not use it while this loop has a call of the same store in flight (a background task):
    await there instead. The module `graphengine._blocking` explains why this is right for every store.
    """
    try:
        running = asyncio.get_running_loop()
    except RuntimeError:
        return asyncio.run(coro)
    if running is _sync_loop:
        return _on_new_thread(coro)
    return _on_sync_loop(coro)


def _loop() -> asyncio.AbstractEventLoop:
    """The sync loop, started on first use."""
    global _sync_loop
    with _lock:
        if _sync_loop is None:
            loop = asyncio.new_event_loop()
            thread = threading.Thread(target=loop.run_forever, name="graphengine-sync", daemon=True)
            thread.start()
            atexit.register(_stop, loop, thread)
            _sync_loop = loop
        return _sync_loop


def _on_sync_loop(coro: Coroutine[Any, Any, T]) -> T:
    # The future and the event exist before anything is scheduled, so an interrupt arriving at
    # any point of this function (even before the task starts) finds what it must cancel.
    fut: concurrent.futures.Future[T] = concurrent.futures.Future()
    ended = threading.Event()
    loop = _loop()
    try:
        # Scheduled from this thread, so the task copies this thread's context variables.
        loop.call_soon_threadsafe(_start, loop, coro, fut, ended)
        return fut.result()
    except BaseException:
        if fut.cancel():  # the wait was interrupted, not the coroutine: stop it, then say so
            ended.wait()
        raise


def _start(
    loop: asyncio.AbstractEventLoop,
    coro: Coroutine[Any, Any, T],
    fut: concurrent.futures.Future[T],
    ended: threading.Event,
) -> None:
    """On the sync loop: run `coro` as a task whose outcome lands in `fut`; cancelling `fut` cancels it.

    `fut` stays pending while the task runs (a running concurrent future cannot be cancelled).
    """
    if fut.cancelled():  # interrupted before it started: nothing ran
        coro.close()
        ended.set()
        return
    task = loop.create_task(_signalling(coro, ended))

    def land(t: asyncio.Task[T]) -> None:
        with contextlib.suppress(concurrent.futures.InvalidStateError):  # cancelled by the waiter
            if t.cancelled():
                fut.set_exception(concurrent.futures.CancelledError())
            elif (exc := t.exception()) is not None:
                fut.set_exception(exc)
            else:
                fut.set_result(t.result())

    task.add_done_callback(land)
    # Runs at once (on this thread) if the waiter cancelled `fut` since the check above.
    fut.add_done_callback(lambda f: f.cancelled() and loop.call_soon_threadsafe(task.cancel))


async def _signalling(coro: Coroutine[Any, Any, T], ended: threading.Event) -> T:
    try:
        return await coro
    finally:
        ended.set()


def _on_new_thread(coro: Coroutine[Any, Any, T]) -> T:
    out: list[T] = []
    err: list[BaseException] = []
    ctx = contextvars.copy_context()

    def main() -> None:
        try:
            out.append(ctx.run(asyncio.run, coro))
        except BaseException as exc:  # handed to the waiting caller below
            err.append(exc)

    t = threading.Thread(target=main, name="graphengine-sync-nested", daemon=True)
    t.start()
    t.join()
    if err:
        raise err[0]
    return out[0]


def _forget_after_fork() -> None:
    """In a forked child the sync loop's thread does not exist: the next call starts a new one."""
    global _lock, _sync_loop
    _lock = threading.Lock()  # the parent may have held it while forking
    _sync_loop = None


if hasattr(os, "register_at_fork"):
    os.register_at_fork(after_in_child=_forget_after_fork)


def _stop(loop: asyncio.AbstractEventLoop, thread: threading.Thread) -> None:
    """Stop the sync loop at exit, so it is not collected running (which warns noisily).

    Its store handles are not closed politely: every committed step is already on disk.
    """
    global _sync_loop
    with _lock:
        _sync_loop = None
    loop.call_soon_threadsafe(loop.stop)
    thread.join(_STOP_WAIT)
    # From Python 3.12 no thread may start at shutdown, and closing a loop whose default
    # executor ran may try to; a loop still busy cannot close: the process is ending either way.
    with contextlib.suppress(RuntimeError):
        loop.close()
