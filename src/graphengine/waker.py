"""`TimerWaker`: wakes an engine's waiting runs when due, reading their timers from the store.

    async with TimerWaker(engine):         # also what `graphengine serve` and `worker` run
        ...                                # runs that sleep or wait for a signal wake up here

Decisions a caller should know:

- The store is the only memory. At start-up and then every `poll` seconds the waker asks the
  store for due timers (`WaitStore.due_timers`) and for the soonest one (`next_due`), and sleeps
  until that one or the next poll, whichever is first. It keeps no list of waiting runs, so
  10,000 sleeping runs cost a process nothing but index rows. A process that was down across a
  due time finds the timer on its first look.
- While it runs it is the engine's `waker` (unless one is set): a run that begins to wait, or a
  signal that makes one due, rouses it at once instead of at the next poll.
- Waking a run is `Engine.resume(run_id)`, which claims it (status `waiting` -> `running`,
  conditioned on its last step, in one store statement), so of any number of wakers (in
  any number of processes) that find a timer due, one drives the run; the others find it
  claimed or busy (`RunBusyError`) and go on. At most `concurrency` woken runs are driven at
  once by one waker; a run's own failure is its outcome (recorded), not the waker's.
- `fire=` replaces driving in-process: a queue's workers pass one that defers a job instead
  (`graphengine.workers`), so woken runs are driven by whichever worker takes the job.
- `clock=` (default: the engine's `Options.clock`) decides what is due; tests pass a
  controllable one and call `tick()` to wake what is due now without the loop.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
from collections.abc import Awaitable, Callable
from typing import TYPE_CHECKING, Any

from graphengine.store import StoreError, WaitStore

from .errors import GraphError, RunBusyError, WaitError

if TYPE_CHECKING:
    from .engine import Engine

__all__ = ["TimerWaker"]

_log = logging.getLogger("graphengine.waker")


class TimerWaker:
    """Wakes the waiting runs of `engine` whose timers are due (see the module docstring).

    Raises `WaitError` when the engine's store keeps no timers (`graphengine.store.WaitStore`),
    `ValueError` for a `poll` or `concurrency` that is not positive.
    """

    def __init__(
        self,
        engine: Engine[Any],
        *,
        poll: float = 1.0,
        concurrency: int = 32,
        batch: int = 100,
        clock: Callable[[], float] | None = None,
        fire: Callable[[str], Awaitable[Any]] | None = None,
    ) -> None:
        if not isinstance(engine.store, WaitStore):
            raise WaitError(
                f"a TimerWaker needs a store that keeps timers (WaitStore); {type(engine.store).__name__} does not"
            )
        if not poll > 0 or not concurrency > 0 or not batch > 0:
            raise ValueError(f"poll, concurrency and batch must be > 0, got {poll}, {concurrency}, {batch}")
        self.engine = engine
        """The engine whose runs are woken."""
        self.store: WaitStore = engine.store
        """Where the timers are."""
        self.poll = poll
        """Most seconds between two looks at the store."""
        self.batch = batch
        """Most due timers read per look."""
        self.clock: Callable[[], float] = clock if clock is not None else engine.options.clock
        """What is due is decided by this clock (seconds since the epoch)."""
        self._fire = fire if fire is not None else self._drive
        self._slots = asyncio.Semaphore(concurrency)
        self._inflight: set[str] = set()
        self._tasks: set[asyncio.Task[Any]] = set()
        self._nudge: asyncio.Event | None = None
        self._nearest: float | None = None
        self._loop_task: asyncio.Task[None] | None = None
        self._was_waker = False
        self.fired = 0
        """Runs handed to `fire` (woken, or found claimed by another waker) since the start."""

    # ------------------------------------------------------------------ Waker

    async def wake(self, run_id: str, at: float) -> None:
        """Note that `run_id` is due at `at` (the engine's waker): the loop looks again by then."""
        if self._nearest is None or at < self._nearest:
            self._nearest = at
        if self._nudge is not None:
            self._nudge.set()

    # ------------------------------------------------------------------ one look

    async def tick(self) -> list[str]:
        """Wake every run due now (by `clock`); returns the run ids handed to `fire`.

        With the default `fire`, each woken run is driven in a task of its own; `drain()` waits
        for them.
        """
        now = self.clock()
        if self._nearest is not None and self._nearest <= now:
            self._nearest = None
        fired: list[str] = []
        for timer in await self.store.due_timers(now, limit=self.batch):
            rid = timer.run_id
            if rid in self._inflight:
                continue
            self._inflight.add(rid)
            fired.append(rid)
            task = asyncio.create_task(self._fired(rid), name=f"graphengine wake {rid}")
            self._tasks.add(task)
            task.add_done_callback(self._tasks.discard)
        self.fired += len(fired)
        return fired

    async def _fired(self, run_id: str) -> None:
        try:
            async with self._slots:
                await self._fire(run_id)
        except Exception:
            _log.exception("waking run %r failed; its timer stays and is tried again", run_id)
        finally:
            self._inflight.discard(run_id)

    async def _drive(self, run_id: str) -> None:
        """The default `fire`: resume the run here (the resume claims it, or finds it claimed)."""
        try:
            await self.engine.resume(run_id)
        except RunBusyError:
            _log.debug("run %r is driven by another caller", run_id)
        except GraphError as exc:  # a run outcome (recorded on the run), not the waker's failure
            _log.info("woken run %r stopped with %s: %s", run_id, type(exc).__name__, exc)

    async def drain(self) -> None:
        """Wait until the runs woken so far stop (finish, fail or wait again)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)

    # ------------------------------------------------------------------ the loop

    async def _pause(self) -> float:
        """Seconds until the next look: the next poll, or sooner the soonest due timer."""
        wait = self.poll
        try:
            soonest = await self.store.next_due()
        except StoreError as exc:
            _log.warning("reading the next due timer failed (%s); polling", exc)
            soonest = None
        for at in (soonest, self._nearest):
            if at is not None:
                wait = min(wait, at - self.clock())
        return max(wait, 0.0)

    async def run(self) -> None:
        """Look at the store now and whenever a timer may be due, until cancelled."""
        self._nudge = asyncio.Event()
        while True:
            try:
                await self.tick()
            except StoreError as exc:  # the store may be back by the next look
                _log.warning("reading due timers failed: %s", exc)
            except Exception:  # a waker that stopped would leave every waiting run asleep
                _log.exception("looking for due timers failed; looking again")
            pause = await self._pause()
            self._nudge.clear()
            with contextlib.suppress(TimeoutError):
                async with asyncio.timeout(pause if pause > 0 else 0.001):
                    await self._nudge.wait()

    async def start(self) -> TimerWaker:
        """Run the loop in a background task, as the engine's waker (unless it has one)."""
        if self._loop_task is None:
            if self.engine.waker is None:
                self.engine.waker = self
                self._was_waker = True
            self._loop_task = asyncio.create_task(self.run(), name="graphengine timer waker")
        return self

    async def stop(self) -> None:
        """Stop the loop and cancel the runs it is driving (they stay resumable, as after a crash)."""
        task, self._loop_task = self._loop_task, None
        if task is not None:
            task.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await task
        for t in list(self._tasks):
            t.cancel()
        await asyncio.gather(*list(self._tasks), return_exceptions=True)
        if self._was_waker and self.engine.waker is self:
            self.engine.waker = None
        self._was_waker = False

    async def __aenter__(self) -> TimerWaker:
        return await self.start()

    async def __aexit__(self, *exc: object) -> None:
        await self.stop()
