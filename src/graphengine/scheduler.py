"""`Scheduler`: the service that fires due schedules (see `graphengine.schedules`).

    async with Scheduler(engine):          # fires due schedules until the block ends
        ...
    # `graphengine serve` and `graphengine worker` run one; tests call `await scheduler.tick()`

Decisions a caller should know:

- Any number of schedulers may share a store (one per worker): the schedule's bookkeeping is
  written by compare-and-set before its runs are created, and each fire time's run has an id
  derived from the schedule and the fire time, so a run is created once (`RunExistsError` for
  the others). A scheduler that dies between the two leaves the fires marked `starting`; the
  next scheduler to look creates the runs that are missing.
- How a run starts is the `start` callable's business: by default the run is driven in this
  process, as an asyncio task of the scheduler (`engine.run`); `graphengine worker` passes
  one that queues it for a worker (`engine.submit`), `graphengine serve` one that drives it in
  the server (so the inspector and SSE see it live).
- The clock is injectable (`clock`, seconds since the epoch) for tests; `tick()` handles what
  is due once. `run()` ticks forever, sleeping until the next due time but at most `poll`
  seconds, so schedules created or changed by other processes are seen within `poll`.
- A store error during a tick is logged and the tick is retried after `poll`: nothing is lost,
  because nothing is marked done before the store took it.
"""

from __future__ import annotations

import asyncio
import contextlib
import logging
import time
from collections.abc import Awaitable, Callable
from dataclasses import replace
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphengine.store import MemoryStore, RunLockStore, RunRecord, RunStatus, ScheduleRecord

from .errors import GraphError, RunExistsError
from .schedules import Book, Spec, is_active, plan, run_id_for, schedule_store

if TYPE_CHECKING:
    from .engine import Engine

__all__ = ["Scheduler", "Starter"]

S = TypeVar("S")

Starter = Callable[[str, Any], Awaitable[None]]
"""`start(run_id, state)`: create run `run_id` from `state` and have it driven somewhere;
raises `graphengine.errors.RunExistsError` when the id is taken (another scheduler started it)."""

log = logging.getLogger("graphengine.scheduler")


class Scheduler(Generic[S]):
    """Fires the due schedules of `engine.store` (see the module docstring).

    `start`: how a run starts (default: driven here, as a task). `clock`: seconds since the
    epoch (default `time.time`). `poll`: the longest sleep between two looks at the store.
    Raises `TypeError` if the engine's store keeps no schedules.
    """

    def __init__(
        self,
        engine: Engine[S],
        *,
        start: Starter | None = None,
        clock: Callable[[], float] = time.time,
        poll: float = 1.0,
        batch: int = 1000,
    ) -> None:
        self.engine = engine
        """The engine whose store holds the schedules and whose graph the runs use."""
        self.store = schedule_store(engine.store)
        self.clock = clock
        """Seconds since the epoch: what "now" is."""
        self.poll = poll
        """Longest sleep between two looks at the store, in seconds."""
        self.batch = batch
        """Most due schedules one tick handles."""
        self._start: Starter = start if start is not None else self._drive_here
        self._tasks: set[asyncio.Task[Any]] = set()
        self._loop_task: asyncio.Task[None] | None = None

    # ------------------------------------------------------------------ starting runs

    async def _drive_here(self, run_id: str, state: Any) -> None:
        """The default `start`: refuse a taken id now, then drive the run as a task of this scheduler."""
        if await self.engine.store.get_run(run_id) is not None:
            raise RunExistsError(f"run {run_id!r} exists", run_id=run_id)
        task = asyncio.get_running_loop().create_task(
            self._drive(run_id, state), name=f"graphengine-schedule:{run_id}"
        )
        self._tasks.add(task)
        task.add_done_callback(self._tasks.discard)

    async def _drive(self, run_id: str, state: Any) -> None:
        try:
            await self.engine.run(run_id, state)
        except RunExistsError:
            pass  # another scheduler created it between our check and our create: it drives it
        except GraphError as exc:  # the run's own failure: stored with the run
            log.info("scheduled run %r ended with %s: %s", run_id, type(exc).__name__, exc)
        except Exception:
            log.exception("scheduled run %r could not be driven", run_id)

    def _orphaned(self, run: RunRecord | None) -> bool:
        """Whether a `running` run has no live driver anywhere (its process died), so it overlaps nothing.

        Only a store that knows live drivers across processes can tell (`SQLiteStore`'s run
        locks); a `MemoryStore` answers for this process alone and lease stores by lease expiry,
        so there a run left `running` by a dead process counts as running until it is resumed.
        """
        store = self.engine.store
        if run is None or run.status is not RunStatus.RUNNING or isinstance(store, MemoryStore):
            return False
        if not isinstance(store, RunLockStore) or not store.lock_run(run.run_id):
            return False
        store.unlock_run(run.run_id)
        return True

    # ------------------------------------------------------------------ one look at the store

    def now_ms(self) -> int:
        """The clock, in milliseconds since the epoch."""
        return int(self.clock() * 1000)

    async def tick(self) -> list[str]:
        """Handle every schedule due now, once; returns the ids of the runs this call created."""
        now = self.now_ms()
        created: list[str] = []
        for rec in await self.store.list_schedules(due_by=now, limit=self.batch):
            try:
                created += await self._handle(rec, now)
            except Exception:
                # One schedule's failure (a damaged record, a start that failed) stops no other;
                # its claimed fires stay marked `starting`, so the next tick starts them.
                log.exception("schedule %r could not fire; retrying at the next tick", rec.schedule_id)
        return created

    async def _handle(self, rec: ScheduleRecord, now: int) -> list[str]:
        """Fire one schedule: plan, store the plan (compare-and-set), create its runs, clear the plan."""
        sid = rec.schedule_id
        spec, book = Spec.decode(rec.spec, sid), Book.decode(rec.state, sid)
        active = bool(book.starting)
        if not active and book.last_run is not None:
            last = await self.engine.store.get_run(book.last_run)
            active = is_active(last.status if last is not None else None) and not self._orphaned(last)
        new = plan(spec, book, now, active)
        if new.starting and not book.starting:
            new.last_run = run_id_for(sid, new.starting[-1])
        elif new.starting:
            new.last_run = book.last_run
        if new == book and not new.starting:
            return []  # a buffered fire still waiting for its previous run: nothing to write
        claimed = await self.store.update_schedule(
            replace(rec, due_at=new.due_at(), state=new.encode(), updated_at=0.0), expect_version=rec.version
        )
        if claimed is None:
            return []  # another scheduler handled this version
        if new.skipped > book.skipped or new.missed > book.missed:
            log.info(
                "schedule %r: %d fire(s) skipped (overlap), %d missed (older than the catch-up window)",
                sid,
                new.skipped - book.skipped,
                new.missed - book.missed,
            )
        created: list[str] = []
        if new.starting:
            state = self.engine.codec.decode(rec.input)
            for fire in new.starting:
                run_id = run_id_for(sid, fire)
                try:
                    await self._start(run_id, state)
                except RunExistsError:
                    continue  # created by another scheduler: once is the point
                log.info("schedule %r fired: run %r", sid, run_id)
                created.append(run_id)
            new.starting = []
            # Best effort: if another scheduler moved the schedule on meanwhile, it saw `starting`
            # and created (or found) the same runs.
            await self.store.update_schedule(
                replace(claimed, due_at=new.due_at(), state=new.encode(), updated_at=0.0),
                expect_version=claimed.version,
            )
        return created

    # ------------------------------------------------------------------ the service

    async def next_due_in(self) -> float:
        """Seconds until the soonest schedule is due (0 if one is), at most `poll`."""
        soon = await self.store.list_schedules(due_by=2**62, limit=1)
        if not soon:
            return self.poll
        return max(0.0, min(self.poll, (soon[0].due_at - self.now_ms()) / 1000))

    async def run(self) -> None:
        """Tick until cancelled, sleeping until the next due time (at most `poll` seconds)."""
        while True:
            try:
                await self.tick()
                delay = await self.next_due_in()
            except Exception:  # the store is down or damaged: say so and look again later
                log.exception("scheduler tick failed; retrying in %.1fs", self.poll)
                delay = self.poll
            await asyncio.sleep(delay)

    def start(self) -> None:
        """Run `run()` as a background task of the running loop (`close()` stops it)."""
        if self._loop_task is None:
            self._loop_task = asyncio.get_running_loop().create_task(self.run(), name="graphengine-scheduler")

    async def close(self) -> None:
        """Stop ticking and cancel the runs this scheduler drives (they stay resumable, `cancelled`)."""
        task, self._loop_task = self._loop_task, None
        tasks = [t for t in (task, *self._tasks) if t is not None]
        for t in tasks:
            t.cancel()
        for t in tasks:
            with contextlib.suppress(asyncio.CancelledError):
                await t

    async def __aenter__(self) -> Scheduler[S]:
        self.start()
        return self

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def wait_runs(self) -> None:
        """Wait until the runs this scheduler drives have stopped (for tests and orderly shutdown)."""
        while self._tasks:
            await asyncio.gather(*list(self._tasks), return_exceptions=True)
