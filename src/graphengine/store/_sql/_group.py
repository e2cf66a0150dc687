"""Group commit: step writes of different runs that are ready at the same moment share one commit.

A step is acknowledged (its `save_step` returns) only after the transaction holding it
committed; nothing a caller was told is stored can be lost, and nothing is reported stored
before its commit. The rules a backend's batch writer relies on:

- A batch holds at most one step per run (a second step of the same run waits for the next
  batch), in arrival order, so per-run ordering is the order of the calls.
- One batch is in flight at a time per store and event loop: while it commits, new steps queue
  up and go together in the next one, so the batch grows with the load by itself. A step that
  finds no batch in flight, when steps of other runs came in since its run's last one, gives the
  loop one turn (the steps of other runs that are ready at that moment join it); then, or at
  once for a run writing alone, if no other step joined, its own task writes it without a
  task switch.
- A waiter cancelled while its step is in the batch in flight ends once the batch decided that
  step (its cancellation then goes on): after a cancelled `save_step`, the step is committed or
  never will be. A step cancelled before it was taken is dropped, never written.
- The batch writer decides each step's outcome on its own (`Pending.done`): written (1),
  refused by the statement's conditions (0, explained by the caller), or the store error of that
  step alone. A failure that leaves the batch uncommitted fails every step still undecided.
"""

from __future__ import annotations

import asyncio
import contextlib
from collections import deque
from collections.abc import Awaitable, Callable
from dataclasses import dataclass, field
from typing import Any

from ..errors import StoreUnavailableError

__all__ = ["GroupCommit", "Pending"]


@dataclass(slots=True, eq=False)
class Pending:
    """One step waiting for its commit."""

    params: tuple[Any, ...]
    """The bound parameters of the backend's `insert_step` (with the token last when fenced)."""
    run_id: str
    """The step's run."""
    step: int
    """The step's number."""
    token: int | None
    """The fencing token of this store's lease on the run, or None (unfenced)."""
    in_flight: bool = field(default=False, init=False)
    """Taken into the batch in flight and not decided yet (the batch writer decides it, even
    after its waiter was cancelled)."""
    landed: asyncio.Future[None] | None = field(default=None, init=False)
    """Set when a cancelled waiter waits for the batch to decide this step (see `submit`)."""
    unsure: bool = field(default=False, init=False)
    """A write of this step failed in a way that may have hidden its commit (the connection was
    lost after the statement or COMMIT reached the server): a later refusal may be this very
    write, stored, and is checked against what was sent before it counts as a conflict."""
    fut: asyncio.Future[int] = field(init=False)
    """Resolved with the rows written (1 or 0) or the step's own error, after the commit."""

    def done(self, result: int | BaseException) -> None:
        """Decide this step's outcome (once; later calls are ignored)."""
        self.in_flight = False
        if self.landed is not None and not self.landed.done():
            self.landed.set_result(None)
        if self.fut.done():
            return
        if isinstance(result, asyncio.CancelledError):
            self.fut.cancel()
        elif isinstance(result, BaseException):
            self.fut.set_exception(result)
        else:
            self.fut.set_result(result)


WriteBatch = Callable[[list[Pending]], Awaitable[None]]
"""Writes a batch (one step per run) in as few commits as it can and decides every step."""


class GroupCommit:
    """The queue of steps waiting to be written, and the one batch in flight, of one store."""

    def __init__(self, write: WriteBatch, max_batch: int) -> None:
        self._write = write
        self._max = max_batch
        self._queue: deque[Pending] = deque()
        self._busy = False
        self._loop: asyncio.AbstractEventLoop | None = None
        self._drainer: asyncio.Task[None] | None = None
        self._last_run: str | None = None

    async def submit(self, p: Pending) -> int:
        """Queue `p`, wait for its commit; the rows written (1, or 0 if refused) or its error."""
        loop = asyncio.get_running_loop()
        if self._loop is not loop:
            # A store used from a new event loop: what was queued in the old one died with it.
            self._queue.clear()
            self._busy, self._loop, self._drainer = False, loop, None
        p.fut = loop.create_future()
        self._queue.append(p)
        others, self._last_run = p.run_id != self._last_run, p.run_id
        if not self._busy:
            self._busy = True
            if others:
                try:
                    # Steps of other runs came in since this run's last one: one turn of the
                    # loop lets those that are ready now join this commit.
                    await asyncio.sleep(0)
                except asyncio.CancelledError:
                    self._forget(p)
                    self._next()
                    raise
            if len(self._queue) == 1:
                # Alone: write it in this task, without a switch. Only this step is at stake,
                # so a cancellation here touches no one else's step.
                self._queue.clear()
                try:
                    await self._write_decided([p])
                finally:
                    self._next()
                return p.fut.result()
            self._drainer = loop.create_task(self._drain())
        try:
            return await p.fut
        except asyncio.CancelledError:
            if p.in_flight:
                await self._landed(p)
            else:
                self._forget(p)
            raise

    @staticmethod
    async def _landed(p: Pending) -> None:
        """Wait until the batch in flight holding `p` decided it: a cancelled `save_step` ends
        only once its step is committed or never will be, so whoever goes on from the store
        (a resume right after the cancellation) reads the step's final fate, and never writes
        it a second time. A second cancellation stops the wait."""
        if p.landed is None:
            p.landed = asyncio.get_running_loop().create_future()
        await asyncio.shield(p.landed)

    def _forget(self, p: Pending) -> None:
        """Drop a cancelled step that is not in a batch yet: it will not be written."""
        if not p.fut.done():
            p.fut.cancel()
            with contextlib.suppress(ValueError):
                self._queue.remove(p)

    def _next(self) -> None:
        """After a batch: hand what queued meanwhile to the drainer task, or go idle."""
        if self._queue:
            self._drainer = asyncio.get_running_loop().create_task(self._drain())
        else:
            self._busy = False

    async def _drain(self) -> None:
        try:
            while self._queue:
                batch = self._take()
                if batch:
                    await self._write_decided(batch)
        finally:
            self._busy = False
            # Cancelled at shutdown: nothing more will be written, and the waiters hear so.
            while self._queue:
                self._queue.popleft().done(
                    StoreUnavailableError("the store's writer stopped; nothing was written")
                )

    def _take(self) -> list[Pending]:
        """The next batch: the oldest waiting step of each run, at most `max_batch` of them."""
        batch: list[Pending] = []
        later: list[Pending] = []
        seen: set[str] = set()
        q = self._queue
        while q and len(batch) < self._max:
            p = q.popleft()
            if p.fut.done():
                continue  # cancelled while queued
            if p.run_id in seen:
                later.append(p)
            else:
                seen.add(p.run_id)
                p.in_flight = True
                batch.append(p)
        q.extendleft(reversed(later))
        return batch

    async def _write_decided(self, batch: list[Pending]) -> None:
        """Write `batch`; a step the writer left undecided gets the batch's error."""
        try:
            await self._write(batch)
        except BaseException as exc:
            for p in batch:
                p.done(exc)
            if not isinstance(exc, Exception):
                raise
        for p in batch:
            p.done(AssertionError(f"the batch writer left step {p.step} of run {p.run_id!r} undecided"))
