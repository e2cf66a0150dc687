"""Workers: runs dispatched through a procrastinate job queue, each owned by one worker through a lease.

    queue = RunQueue("postgresql://app@db/prod")          # the queue (PostgreSQL only)
    async with queue:
        await engine.submit("r1", {"topic": "x"}, queue=queue)   # store the run, enqueue a job
    # on any number of machines:
    #   graphengine worker myapp.graph:engine --store postgresql://app@db/prod --concurrency 8

Decisions a caller should know:

- The queue is procrastinate (https://procrastinate.readthedocs.io), asyncio-native and kept in
  PostgreSQL tables (`pip install 'graphengine[workers]'`; it talks to the server through
  psycopg 3). So workers need PostgreSQL for the queue; the *store* may be any `LeaseStore`
  (`PostgresStore`, or `MySQLStore` with the queue still on a PostgreSQL server). Its schema is
  created on first use (under an advisory lock), in the connection's default schema.
- `submit` creates the run record first (validating the initial state, refusing a taken id with
  `RunExistsError`), then enqueues a job naming only the run id. A job therefore always
  *resumes*: a job delivered twice, retried or re-queued drives the run from its last committed
  step, and a finished run is returned at once.
- Delivery is at least once; ownership is exactly one: the job claims the run's lease
  (`LeaseStore.claim`, worker name `host:pid/job<id>`), renews it every `ttl / 3` in the
  background and releases it when the run stops (done, failed, interrupted). Every step write
  is fenced by the lease's token, so a worker that lost its lease (paused, partitioned, too
  slow) cannot commit anything: its write raises `LeaseLostError` and the job then tries to
  claim again. If another worker holds the run the job ends quietly; that worker carries on.
- A claim that fails because another worker's lease is live re-queues the job `ttl` seconds
  later (when that lease has expired unless it is being renewed); the re-queued job finds the
  run finished, or claims it from a holder that died.
- Stalled jobs: procrastinate's workers heartbeat; every worker looks for jobs of this queue
  held by a worker silent for `stalled_after` seconds (`JobManager.get_stalled_jobs`) and
  replaces each with a fresh job for the same run (at most one per stalled job), marking the
  stalled one failed. The fresh job claims the run once the dead worker's lease expires.
- Jobs that continue a started run (a stalled job's replacement, a job re-queued because the
  run was leased) have priority `CONTINUE_PRIORITY`, above new submissions (priority 0):
  procrastinate serves higher priorities first, so a run a dead worker held is picked up by
  the next free slot instead of waiting behind the whole backlog of runs not yet started.
- A node that fails after its retries, or a run that hits `max_steps`, is a run outcome, already
  recorded in the store (status `failed`): the job succeeds. Anything else (the store or the
  graph cannot be used) fails the job, and procrastinate retries it with exponential backoff.
- A renewal refused by the store means the lease is gone: the run's task is given one more
  renewal interval to reach its next write (which is refused), then cancelled.
- Durable waits: a run that begins to wait (`ctx.sleep`, `ctx.wait_for`, `sleep_until`) gets a
  job deferred to its due time (procrastinate's `schedule_at`; the engine's `waker` is set to
  `RunQueue.waker()` while serving); a signal that makes a run due queues one at once when the
  sender's engine has that waker. Every worker also sweeps the store for waiting runs overdue by
  `ttl / 4` and queues one job each (a queueing lock per run), so a deferral lost with its
  process still wakes the run. The job claims the lease, and the run's resume claims it from
  `waiting` (once, however many jobs race).
- `current_lease()` tells a node which lease it runs under: pass `lease.token` to external
  systems that can fence on it. In a branch job it is the branch's claim.
- Distributed fan-out: a fan-out of at least `fan_out_jobs` branches (`serve`, default
  `FAN_OUT_JOBS`; None keeps every fan-out in process) on a `BranchLeaseStore` is not run by
  the worker that reaches it. The run is marked `waiting` and its job ends (no task, no lease);
  once its lease is released, `BRANCH_TASK` jobs for the branches without a stored result are
  queued (`CONTINUE_PRIORITY`), a few consecutive branches a job (`branches_per_job`). Any
  worker takes them: for each branch it claims the branch (`claim_branch`, token and expiry
  like a run's lease, renewed every `ttl / 3`), runs it (`graphengine.branches.run_branch`) and
  stores its result fenced by the claim; a late result (claim expired or taken over) or a
  second one is refused by the store and logged, and a branch stored already is skipped. A job
  that finds every result stored queues the run's job again under the queueing lock
  `graphengine.join.<run>.<step>`, so one continuation waits at a time; it resumes the run,
  whose fan-out step finds every result stored, merges them (commuting deltas in the order
  they landed, the others in declared order: the in-process state) and commits, once (the step
  record is fenced by the run's lease and written once). A stalled branch job is replaced like
  a run's, and its replacement runs only the branches not stored; a branch whose node failed
  is marked failed and the run's job is queued at once: the join re-runs the fan-out's
  unfinished branches in process, so the failure takes its in-process course (error route, or
  the run failed).
"""

from __future__ import annotations

import asyncio
import contextlib
import json
import logging
import os
import socket
import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from datetime import UTC, datetime
from typing import TYPE_CHECKING, Any, Final, TypedDict, Unpack

from graphengine.emit import Event, EventKind
from graphengine.store import (
    BranchLeaseStore,
    Lease,
    LeaseLostError,
    LeaseStore,
    MissingDriverError,
    PostgresStore,
    RunRecord,
    RunStatus,
    ScheduleStore,
    StepConflictError,
)
from graphengine.store import RunExistsError as StoreRunExistsError

from .branches import FanOutGone, dispatching, fan_out_width, run_branch
from .errors import MaxStepsExceeded, NodeError, RunExistsError
from .scheduler import Scheduler, Starter
from .waker import TimerWaker

if TYPE_CHECKING:
    from procrastinate import App, JobContext
    from procrastinate.jobs import Job

    from .engine import Engine

__all__ = [
    "BRANCH_TASK",
    "CONTINUE_PRIORITY",
    "FAN_OUT_JOBS",
    "QUEUE",
    "TASK_NAME",
    "QueueWaker",
    "RunQueue",
    "branches_per_job",
    "current_lease",
    "queue_starter",
    "serve",
    "submit",
    "worker_scheduler",
]

QUEUE: Final = "graphengine"
"""The procrastinate queue runs go to unless told otherwise."""
TASK_NAME: Final = "graphengine.drive_run"
"""The procrastinate task every run job is an instance of (its only argument: `run_id`)."""
BRANCH_TASK: Final = "graphengine.run_branch"
"""The procrastinate task of fan-out branches (arguments: `run_id`, `step`, `branches`, a list)."""
FAN_OUT_JOBS: Final = 8
"""Fan-outs of at least this many branches run as branch jobs by default (smaller ones in process)."""
CONTINUE_PRIORITY: Final = 10
"""Priority of jobs continuing a started run (new submissions have procrastinate's default, 0)."""

_RUNNER_KEY: Final = "graphengine.runner"
_SCHEMA_LOCK: Final = "SELECT pg_advisory_lock(hashtext('graphengine.workers.schema'))"
_SCHEMA_UNLOCK: Final = "SELECT pg_advisory_unlock(hashtext('graphengine.workers.schema'))"
_HAS_SCHEMA: Final = "SELECT to_regclass('procrastinate_jobs') IS NOT NULL"

log = logging.getLogger("graphengine.workers")

_lease: ContextVar[Lease | None] = ContextVar("graphengine_lease", default=None)


def current_lease() -> Lease | None:
    """The lease the running node's run is driven under by a worker; None outside workers."""
    return _lease.get()


def _procrastinate() -> Any:
    try:
        import procrastinate
    except ImportError as exc:
        raise MissingDriverError(
            f"graphengine workers need procrastinate ({exc}); install it with: pip install 'graphengine[workers]'"
        ) from exc
    return procrastinate


def worker_name() -> str:
    """`host:pid`, the default name of this process's worker (jobs add `/job<id>` to it)."""
    return f"{socket.gethostname()}:{os.getpid()}"


class RunQueue:
    """The procrastinate queue runs are dispatched through: one PostgreSQL database (`dsn`).

    `RunQueue(dsn)` needs no event loop; `async with queue:` (or `await queue.open()`) connects and
    creates procrastinate's schema when it is missing. Raises `MissingDriverError` without the
    `workers` extra; procrastinate's own errors (`procrastinate.exceptions.ConnectorException`)
    when the server cannot be reached.
    """

    def __init__(self, dsn: str, *, queue: str = QUEUE, retries: int = 5, max_connections: int = 4) -> None:
        self.dsn = dsn
        """Where the queue's tables are (a libpq URL: `postgresql://user@host:5432/db`)."""
        self.queue = queue
        """The procrastinate queue name jobs go to and workers serve."""
        self.retries = retries
        """Attempts of a job that fails (not counting lease conflicts), with exponential backoff."""
        self.max_connections = max_connections
        """Size of the psycopg pool the queue uses."""
        pc = _procrastinate()
        self.app: App = pc.App(
            # Autocommit: every procrastinate query is one statement, and a worker paused between
            # a statement and its COMMIT would otherwise keep the job rows it touched locked (a
            # fetched job nobody else can take, a row the stalled-job reaper waits on) until it wakes.
            connector=pc.PsycopgConnector(
                conninfo=dsn, min_size=1, max_size=max_connections, configure=_autocommit
            )
        )
        """The procrastinate `App` (for procrastinate's own API: `app.job_manager`, ...)."""
        self.app.task(
            name=TASK_NAME,
            queue=queue,
            pass_context=True,
            retry=pc.RetryStrategy(max_attempts=retries, exponential_wait=2),
        )(_drive_job)
        self.app.task(
            name=BRANCH_TASK,
            queue=queue,
            pass_context=True,
            retry=pc.RetryStrategy(max_attempts=retries, exponential_wait=2),
        )(_branch_job)
        self._open = False

    def __repr__(self) -> str:
        # Never show the DSN: it may hold a password.
        return f"RunQueue(queue={self.queue!r})"

    async def open(self) -> RunQueue:
        """Connect, and create procrastinate's tables if this database has none."""
        if not self._open:
            await self.app.open_async()
            self._open = True
            try:
                await self._ensure_schema()
            except BaseException:
                await self.close()
                raise
        return self

    async def close(self) -> None:
        """Close the connections (no effect if not open)."""
        if self._open:
            self._open = False
            await self.app.close_async()

    async def __aenter__(self) -> RunQueue:
        return await self.open()

    async def __aexit__(self, *exc: object) -> None:
        await self.close()

    async def _ensure_schema(self) -> None:
        import psycopg

        # One session holds the advisory lock, so workers starting together create it once.
        async with await psycopg.AsyncConnection.connect(self.dsn, autocommit=True) as conn:
            await conn.execute(_SCHEMA_LOCK)
            try:
                row = await (await conn.execute(_HAS_SCHEMA)).fetchone()
                if not (row and row[0]):
                    await conn.execute(_procrastinate().schema.SchemaManager.get_schema())
            finally:
                await conn.execute(_SCHEMA_UNLOCK)

    async def enqueue(
        self,
        run_id: str,
        *,
        delay: float = 0.0,
        lock: str | None = None,
        priority: int = 0,
        at: float | None = None,
    ) -> int | None:
        """Queue a job driving stored run `run_id`, `delay` seconds from now (or at `at`, seconds
        since the epoch: a procrastinate scheduled job); returns its job id.

        With `lock` (a procrastinate queueing lock) no job is queued while another job with the
        same lock is waiting; None is returned then. Jobs of higher `priority` are served first
        (workers give jobs continuing a started run `CONTINUE_PRIORITY`).
        """
        pc = _procrastinate()
        options: dict[str, Any] = {"queue": self.queue, "priority": priority}
        if at is not None:
            options["schedule_at"] = datetime.fromtimestamp(at, UTC)
        elif delay > 0:
            options["schedule_in"] = {"seconds": delay}
        if lock is not None:
            options["queueing_lock"] = lock
        try:
            job_id: int = await self.app.configure_task(TASK_NAME, **options).defer_async(run_id=run_id)
        except pc.exceptions.AlreadyEnqueued:
            return None
        return job_id

    async def enqueue_branches(
        self,
        run_id: str,
        step: int,
        branches: Sequence[int],
        *,
        per_job: int = 1,
        priority: int = CONTINUE_PRIORITY,
    ) -> None:
        """Queue `BRANCH_TASK` jobs for `branches` of the fan-out at `step` of `run_id`, `per_job`
        consecutive branches each, in one statement."""
        if not branches:
            return
        deferrer = self.app.configure_task(BRANCH_TASK, queue=self.queue, priority=priority)
        n = max(1, per_job)
        jobs: list[dict[str, Any]] = [
            {"run_id": run_id, "step": step, "branches": list(branches[i : i + n])}
            for i in range(0, len(branches), n)
        ]
        await deferrer.batch_defer_async(*jobs)

    async def enqueue_branch(
        self, run_id: str, step: int, branches: Sequence[int], *, delay: float, lock: str
    ) -> None:
        """Queue one branch job `delay` seconds from now, unless a job with `lock` waits already."""
        pc = _procrastinate()
        options: dict[str, Any] = {"queue": self.queue, "priority": CONTINUE_PRIORITY, "queueing_lock": lock}
        if delay > 0:
            options["schedule_in"] = {"seconds": delay}
        with contextlib.suppress(pc.exceptions.AlreadyEnqueued):
            await self.app.configure_task(BRANCH_TASK, **options).defer_async(
                run_id=run_id, step=step, branches=list(branches)
            )

    def waker(self) -> QueueWaker:
        """A waker (`Engine.waker`) that defers a job continuing a waiting run to its due time.

        Workers set it on their engine; set it on an engine that sends signals from another
        process (a web app's), so a signal's wake-up is queued at once rather than found by a
        worker's next look at the store.
        """
        return QueueWaker(self)

    async def requeue_stalled(self, stalled_after: float) -> list[str]:
        """Replace each job of this queue held by a worker silent for `stalled_after` seconds.

        Every stalled job gets one fresh job for its run, with `CONTINUE_PRIORITY` (racing
        callers queue one replacement per stalled job), and is marked failed. Returns the run
        ids re-queued. Workers call this every `ttl / 2` seconds; it is public for operators who
        want to sweep a queue no worker serves right now.
        """
        jm = self.app.job_manager
        failed = _procrastinate().jobs.Status.FAILED
        stalled: list[Job] = list(
            await jm.get_stalled_jobs(queue=self.queue, seconds_since_heartbeat=stalled_after)
        )
        requeued: list[str] = []
        for job in stalled:
            kw = job.task_kwargs
            run_id = kw.get("run_id")
            # The lock makes racing reapers queue one replacement per stalled job.
            lock = f"graphengine.stalled.{job.id}"
            if not isinstance(run_id, str):
                continue
            if job.task_name == BRANCH_TASK:
                step, branches = kw.get("step"), kw.get("branches")
                if isinstance(step, int) and isinstance(branches, list):
                    todo = [b for b in branches if isinstance(b, int)]
                    await self.enqueue_branch(run_id, step, todo, delay=0.0, lock=lock)
                    log.warning("job %s (branches of run %r) stalled; re-queued", job.id, run_id)
                    requeued.append(run_id)
            elif job.task_name == TASK_NAME:
                if await self.enqueue(run_id, lock=lock, priority=CONTINUE_PRIORITY) is not None:
                    log.warning("job %s of run %r stalled (its worker is silent); re-queued", job.id, run_id)
                    requeued.append(run_id)
            else:
                continue
            with contextlib.suppress(Exception):  # another reaper, or the worker woke up
                await jm.finish_job(job, status=failed, delete_job=False)
        return requeued

    async def submit(self, engine: Engine[Any], run_id: str, initial: Any) -> int:
        """Store run `run_id` of `engine` from `initial` and queue a job for it; returns the job id.

        Raises `RunExistsError` for a taken id, `StateValidationError` for an `initial` that does
        not validate, `GraphValidationError` for a malformed graph, all before anything is
        queued. Should queueing fail after the run was stored, the error says so and
        `enqueue(run_id)` queues it.
        """
        rt = engine.runtime()
        g = rt.graph
        _, encoded = rt.validated(initial, run_id)
        now = time.time()
        meta = json.dumps({"graph": g.description}, separators=(",", ":"), sort_keys=True).encode()
        rec = RunRecord(
            run_id, RunStatus.RUNNING, encoded, g.fingerprint, engine.state_version, now, now, meta=meta
        )
        try:
            await engine.store.create_run(rec)
        except StoreRunExistsError as exc:
            raise RunExistsError(
                f"run {run_id!r} exists; queue it again with enqueue({run_id!r}) or use resume({run_id!r})",
                run_id=run_id,
            ) from exc
        try:
            job_id = await self.enqueue(run_id)
        except Exception as exc:
            exc.add_note(f"run {run_id!r} is stored but not queued; queue it with enqueue({run_id!r})")
            raise
        assert job_id is not None
        return job_id

    async def serve(
        self,
        engine: Engine[Any],
        *,
        concurrency: int = 8,
        ttl: float = 30.0,
        stalled_after: float | None = None,
        name: str | None = None,
        install_signal_handlers: bool = True,
        fan_out_jobs: int | None = FAN_OUT_JOBS,
        branches_per_job: int | None = None,
    ) -> None:
        """Serve this queue's jobs with `engine` until stopped (SIGINT/SIGTERM, or cancellation).

        Fan-outs of at least `fan_out_jobs` branches run as branch jobs (see the module; None:
        every fan-out runs in process in the worker that reaches it), `branches_per_job`
        branches a job (None: `branches_per_job(width)`).

        `concurrency` runs are driven at once. Leases last `ttl` seconds and are renewed every
        `ttl / 3`; procrastinate heartbeats every `ttl / 4`, and jobs of a worker silent for
        `stalled_after` seconds (default `2 * ttl`) are re-queued. On a stop signal running runs
        get `ttl` seconds to finish, then are cancelled and their jobs retried. Raises
        `TypeError` when `engine.store` has no leases (a `LeaseStore` is needed).
        """
        store = engine.store
        if not isinstance(store, LeaseStore):
            raise TypeError(
                f"workers need a store with leases (PostgresStore or MySQLStore), not {type(store).__name__}"
            )
        engine.validate()  # a malformed graph fails here, not in every job
        runner = _Runner(engine, store, self, ttl, name or worker_name())
        if fan_out_jobs is not None and fan_out_jobs < 1:
            raise ValueError(f"fan_out_jobs={fan_out_jobs}; a number of branches (>= 1), or None")
        runner.fan_out_jobs = fan_out_jobs
        runner.per_job = branches_per_job
        stalled = stalled_after if stalled_after is not None else 2 * ttl
        await self.open()
        if engine.waker is None:
            engine.waker = self.waker()
        reaper = asyncio.create_task(runner.reap(stalled), name="graphengine stalled-job reaper")
        sweep = self._timer_sweep(engine, ttl)
        await sweep.start()
        try:
            await self.app.run_worker_async(
                queues=[self.queue],
                name=runner.name,
                concurrency=concurrency,
                additional_context={_RUNNER_KEY: runner},
                update_heartbeat_interval=ttl / 4,
                stalled_worker_timeout=stalled,
                shutdown_graceful_timeout=ttl,
                install_signal_handlers=install_signal_handlers,
            )
        finally:
            await sweep.stop()
            reaper.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await reaper

    def _timer_sweep(self, engine: Engine[Any], ttl: float) -> TimerWaker:
        """A timer waker that queues a job for each waiting run overdue by `ttl / 4` (a job deferred
        to its due time was lost, or never queued: its process died between the step and the
        deferral). One job at a time per run (a queueing lock); the job claims the run."""
        grace = ttl / 4
        clock = engine.options.clock

        async def queue_wake(run_id: str) -> None:
            await self.enqueue(run_id, lock=f"graphengine.wake.{run_id}", priority=CONTINUE_PRIORITY)

        return TimerWaker(engine, poll=max(grace, 0.05), clock=lambda: clock() - grace, fire=queue_wake)


class QueueWaker:
    """`Engine.waker` of a queue: a run due at `at` gets a job deferred to `at` (`RunQueue.waker()`)."""

    def __init__(self, queue: RunQueue) -> None:
        self.queue = queue
        """Where the jobs go."""

    async def wake(self, run_id: str, at: float) -> None:
        """Defer a job continuing `run_id` to `at` (now, if it is past)."""
        await self.queue.enqueue(run_id, at=at, priority=CONTINUE_PRIORITY)


async def _autocommit(conn: Any) -> None:
    """Pool hook: put a new psycopg connection of the queue in autocommit mode."""
    await conn.set_autocommit(True)


async def _drive_job(context: JobContext, run_id: str) -> str:
    """The procrastinate task: drive one run under a lease (see the module docstring)."""
    runner = context.additional_context.get(_RUNNER_KEY)
    if not isinstance(runner, _Runner):
        raise RuntimeError(f"job {TASK_NAME} must run in a worker started by graphengine.workers.serve")
    assert context.job.id is not None
    return await runner.drive(run_id, context.job.id)


async def _branch_job(context: JobContext, run_id: str, step: int, branches: list[int]) -> str:
    """The procrastinate task of fan-out branches (see the module docstring)."""
    runner = context.additional_context.get(_RUNNER_KEY)
    if not isinstance(runner, _Runner):
        raise RuntimeError(f"job {BRANCH_TASK} must run in a worker started by graphengine.workers.serve")
    assert context.job.id is not None
    return await runner.branches(run_id, step, branches, context.job.id)


def branches_per_job(width: int) -> int:
    """Branches one job runs by default for a fan-out of `width`: one job per 64th, 1 to 16.

    Each job costs the queue a few statements (fetch, finish) whatever it runs; grouping
    consecutive branches spreads that cost while keeping dozens of jobs for the workers to share.
    Every branch in a job is still claimed, fenced and stored on its own.
    """
    return max(1, min(16, width // 64))


class _Handed:
    """The fan-out a run handed out while a job drove it (`graphengine.branches.BranchDispatcher`)."""

    def __init__(self, min_branches: int) -> None:
        self.min_branches = min_branches
        self.out: list[tuple[str, int, list[int]]] = []

    def dispatch(self, run_id: str, step: int, branches: Sequence[int]) -> None:
        self.out.append((run_id, step, list(branches)))


class _Runner:
    """What a worker process drives jobs with: the engine, its lease store, the queue, the ttl."""

    def __init__(
        self, engine: Engine[Any], store: LeaseStore, queue: RunQueue, ttl: float, name: str
    ) -> None:
        if ttl <= 0:
            raise ValueError(f"ttl={ttl}; a lease must last some seconds")
        self.engine = engine
        self.store = store
        self.queue = queue
        self.ttl = ttl
        self.name = name
        self.fan_out_jobs: int | None = FAN_OUT_JOBS
        self.per_job: int | None = None
        self._in_flight: dict[str, int] = {}
        """Branch jobs running here, by run (their emitter segment ends with the last)."""

    async def drive(self, run_id: str, job_id: int) -> str:
        """Claim `run_id`, drive it to where it stops, release it; returns what happened.

        "stopped" (done or interrupted), "failed" (a run outcome), "busy" (re-queued: another
        worker holds it) or "lost" (another worker took it over).
        """
        who = f"{self.name}/job{job_id}"
        lease = await self.store.claim(run_id, who, self.ttl)
        if lease is None:
            await self.queue.enqueue(run_id, delay=self.ttl, priority=CONTINUE_PRIORITY)
            log.info("run %r is leased by another worker; job re-queued in %.1f s", run_id, self.ttl)
            return "busy"
        while True:
            try:
                return await self._drive_leased(lease)
            except LeaseLostError as exc:
                log.warning(
                    "run %r: lease token %d lost, nothing more is written by it: %s", run_id, lease.token, exc
                )
            # Nobody else may have claimed it (our lease just ran out): then it is still ours to drive.
            again = await self.store.claim(run_id, who, self.ttl)
            if again is None:
                log.info("run %r is driven by another worker now; job done", run_id)
                return "lost"
            lease = again

    async def _drive_leased(self, lease: Lease) -> str:
        run_id = lease.run_id
        driver = asyncio.current_task()
        assert driver is not None
        lost: list[LeaseLostError] = []
        beat = asyncio.create_task(self._heartbeat(lease, driver, lost), name=f"lease {run_id}")
        token = _lease.set(lease)
        handed = _Handed(self.fan_out_jobs) if self.fan_out_jobs is not None else None
        try:
            if handed is None:
                await self.engine.resume(run_id)
            else:
                with dispatching(handed):
                    await self.engine.resume(run_id)
        except (NodeError, MaxStepsExceeded) as exc:
            # A run outcome, recorded by the engine (status failed): not a failure of the job.
            log.info("run %r failed: %s", run_id, exc)
            return "failed"
        except asyncio.CancelledError:
            if lost and driver.uncancel() == 0:
                raise lost[0] from None
            raise
        finally:
            _lease.reset(token)
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
            with contextlib.suppress(Exception):  # a lost lease's release changes nothing
                await self.store.release(lease)
        if lost:
            raise lost[0]
        if handed is not None and handed.out:
            # Queued only now that the run's lease is released: a branch result is refused while
            # another worker leases the run. A crash before this line leaves this job stalled,
            # and its replacement hands the branches out again.
            for rid, step, branches in handed.out:
                n = self.per_job or branches_per_job(len(branches))
                await self.queue.enqueue_branches(rid, step, branches, per_job=n)
                log.info("run %r waits for %d branches of its fan-out at step %d", rid, len(branches), step)
            return "waiting"
        # Done or interrupted: the store says which. Reading the status back would cost every
        # run one more round trip (bench/workers.py counts 26 statements for a 20-step run) for
        # what is only the job's result, a log line.
        return "stopped"

    async def _heartbeat(self, lease: Lease, driver: asyncio.Task[Any], lost: list[LeaseLostError]) -> None:
        interval = self.ttl / 3
        while True:
            await asyncio.sleep(interval)
            try:
                lease = await self.store.renew(lease, self.ttl)
            except LeaseLostError as exc:
                log.warning("run %r: renewal of lease token %d refused: %s", lease.run_id, lease.token, exc)
                lost.append(exc)
                # One more interval to reach its next write (refused, and logged), then stop it.
                await asyncio.sleep(interval)
                driver.cancel()
                return
            except Exception as exc:
                # The store may be back before the lease runs out; the writes stay fenced anyway.
                log.warning("run %r: renewing lease token %d failed: %s", lease.run_id, lease.token, exc)

    async def branches(self, run_id: str, step: int, branches: Sequence[int], job_id: int) -> str:
        """Run `branches` of the fan-out at `step` one after the other (`branch`); then, if every
        result is stored, queue the join. Returns how many ended how ("stored 7, done 1")."""
        store = self.store
        if not isinstance(store, BranchLeaseStore):
            raise TypeError(f"branch jobs need a BranchLeaseStore, not {type(store).__name__}")
        ended: dict[str, int] = {}
        total: int | None = None
        self._in_flight[run_id] = self._in_flight.get(run_id, 0) + 1
        try:
            for b in branches:
                what, width = await self.branch(store, run_id, step, b, job_id)
                ended[what] = ended.get(what, 0) + 1
                total = width or total
                if what == "gone":
                    break
        finally:
            self._segment_done(run_id, step, ended)
        if "stored" in ended or "done" in ended:
            await self._join_if_complete(store, run_id, step, total)
        return ", ".join(f"{k} {n}" for k, n in sorted(ended.items()))

    def _segment_done(self, run_id: str, step: int, ended: dict[str, int]) -> None:
        """Once no branch job of `run_id` runs here any more, end its segment for the emitters
        (an OpenTelemetry run span opened by its branches' node spans is closed, not leaked)."""
        left = self._in_flight.pop(run_id) - 1
        if left:
            self._in_flight[run_id] = left
            return
        meta = {"status": "branches", **ended}
        self.engine.runtime().emit(
            Event(run_id, step, "", "branch jobs done here", meta, kind=EventKind.RUN_END)
        )

    async def branch(
        self, store: BranchLeaseStore, run_id: str, step: int, branch: int, job_id: int
    ) -> tuple[str, int | None]:
        """Claim branch `branch` of the fan-out at `step`, run it and store its result; what
        happened, and the fan-out's width when known.

        "stored", "failed" (marked failed; the join queued), "busy" (re-queued: another worker
        holds its claim), "done" (stored already), "lost" or "duplicate" (the store refused a
        late or second result), "gone" (the run is past the fan-out).
        """
        lease = await store.claim_branch(run_id, step, branch, f"{self.name}/job{job_id}", self.ttl)
        if lease is None:
            if await store.branch_stored(run_id, step, branch):
                return "done", None
            if branch in await store.failed_branches(run_id, step):
                return "failed", None
            lock = f"graphengine.branch.{run_id}.{step}.{branch}"
            await self.queue.enqueue_branch(run_id, step, [branch], delay=self.ttl, lock=lock)
            return "busy", None
        beat = asyncio.create_task(self._renew_branch(step, branch, lease, store))
        token = _lease.set(lease)
        try:
            outcome = await run_branch(self.engine, run_id, step, branch)
        except FanOutGone as exc:
            log.info("branch %d of run %r: %s", branch, run_id, exc)
            return "gone", None
        finally:
            _lease.reset(token)
            beat.cancel()
            with contextlib.suppress(asyncio.CancelledError):
                await beat
        where = f"branch {branch} of step {step} of run {run_id!r}"
        try:
            if outcome.record is None:
                err = outcome.error
                await store.fail_branch(step, branch, lease, f"{type(err).__name__}: {err}")
                log.info("%s failed (%s); the join runs the fan-out's rest in process", where, err)
                await self._join(run_id, step)
                return "failed", outcome.total
            await store.save_branch(outcome.record, lease)
        except LeaseLostError as exc:
            log.warning("%s: late result refused by the fence (claim token %d): %s", where, lease.token, exc)
            return "lost", outcome.total
        except StepConflictError as exc:
            log.warning("%s: result stored already; this one refused: %s", where, exc)
            return "duplicate", outcome.total
        return "stored", outcome.total

    async def _join_if_complete(
        self, store: BranchLeaseStore, run_id: str, step: int, total: int | None
    ) -> None:
        """Queue the run's continuation when every branch result of the fan-out is stored."""
        if total is None:
            try:
                total = await fan_out_width(self.engine, run_id, step)
            except FanOutGone:
                return
        if await store.count_branches(run_id, step) >= total:
            await self._join(run_id, step)

    async def _join(self, run_id: str, step: int) -> None:
        # The lock: of the workers that see the last results land, one queues the continuation
        # (while it waits); a later one finds the run past the fan-out, or drives nothing new.
        await self.queue.enqueue(run_id, lock=f"graphengine.join.{run_id}.{step}", priority=CONTINUE_PRIORITY)

    async def _renew_branch(self, step: int, branch: int, lease: Lease, store: BranchLeaseStore) -> None:
        interval = self.ttl / 3
        while True:
            await asyncio.sleep(interval)
            try:
                lease = await store.renew_branch(step, branch, lease, self.ttl)
            except LeaseLostError as exc:
                # Its result will be refused; the worker that claimed it now runs the branch.
                log.warning("branch %d of run %r: claim renewal refused: %s", branch, lease.run_id, exc)
                return
            except Exception as exc:
                log.warning("branch %d of run %r: renewing its claim failed: %s", branch, lease.run_id, exc)

    async def reap(self, stalled_after: float) -> None:
        """Forever: replace the jobs of workers silent for `stalled_after` s by fresh jobs."""
        while True:
            await asyncio.sleep(self.ttl / 2)
            try:
                async with asyncio.timeout(self.ttl * 2):  # a wedged query must not end the reaping
                    await self.queue.requeue_stalled(stalled_after)
            except Exception:
                log.exception("looking for stalled jobs failed; trying again")


def _queue_dsn(engine: Engine[Any], dsn: str | None) -> str:
    """The queue's DSN: given, `$GRAPHENGINE_QUEUE_DSN`, or the engine's PostgreSQL store's."""
    found = dsn or os.environ.get("GRAPHENGINE_QUEUE_DSN")
    if found:
        return found
    if isinstance(engine.store, PostgresStore):
        return engine.store.dsn
    raise ValueError(
        f"no queue: the store is a {type(engine.store).__name__}, and the queue needs PostgreSQL; "
        "pass a queue DSN (queue=..., --queue-dsn) or set GRAPHENGINE_QUEUE_DSN"
    )


async def submit(
    engine: Engine[Any], run_id: str, initial: Any | Mapping[str, Any], *, queue: RunQueue | str | None = None
) -> int:
    """`RunQueue.submit` on `queue`: an open `RunQueue`, a DSN, or None (see `Engine.submit`).

    Given a DSN or None, a queue is opened for this one call; pass an open `RunQueue` to submit
    many runs over one pool.
    """
    if isinstance(queue, RunQueue):
        return await queue.submit(engine, run_id, initial)
    async with RunQueue(_queue_dsn(engine, queue), max_connections=1) as q:
        return await q.submit(engine, run_id, initial)


class _Serving(TypedDict, total=False):
    # `RunQueue.serve`'s settings (documented, with their defaults, there), passed on by `serve`.
    concurrency: int
    ttl: float
    stalled_after: float | None
    name: str | None
    install_signal_handlers: bool
    fan_out_jobs: int | None
    branches_per_job: int | None


def queue_starter(engine: Engine[Any], rq: RunQueue) -> Starter:
    """How a worker's scheduler starts a fire's run: stored and queued for any worker (`submit`).

    A run already stored (another worker's scheduler made it, or made it and died before
    queueing it) gets a job too, under a queueing lock named by the run, so it is never left
    stored and unqueued; extra jobs of one run are harmless (a job resumes; one lease drives).
    """

    async def start(run_id: str, state: Any) -> None:
        try:
            await rq.submit(engine, run_id, state)
        except RunExistsError:
            await rq.enqueue(run_id, lock=f"graphengine-schedule:{run_id}")
            raise

    return start


def worker_scheduler(engine: Engine[Any], rq: RunQueue) -> Scheduler[Any] | None:
    """The scheduler a worker runs beside its jobs (None when the store keeps no schedules)."""
    if not isinstance(engine.store, ScheduleStore):
        return None
    return Scheduler(engine, start=queue_starter(engine, rq))


async def serve(
    engine: Engine[Any],
    *,
    queue_dsn: str | None = None,
    queue: str = QUEUE,
    schedules: bool = True,
    **serving: Unpack[_Serving],
) -> None:
    """Serve runs of `engine` from the queue until stopped (`RunQueue.serve`, which takes the other
    keywords: `concurrency`, `ttl`, `stalled_after`, `name`, `install_signal_handlers`,
    `fan_out_jobs`, `branches_per_job`); what `graphengine worker` runs. With `schedules`, it also
    fires the store's due schedules, each fire's run queued for any worker (`worker_scheduler`);
    every worker may: a fire's run is created once whatever the number of workers (see
    `graphengine.scheduler`).

    The queue is on `queue_dsn`, `$GRAPHENGINE_QUEUE_DSN`, or the engine's `PostgresStore`'s
    database; `ValueError` if there is none, `TypeError` if `engine.store` has no leases.
    """
    if not isinstance(engine.store, LeaseStore):
        raise TypeError(
            f"workers need a store with leases (PostgresStore or MySQLStore), not {type(engine.store).__name__}"
        )
    rq = RunQueue(_queue_dsn(engine, queue_dsn), queue=queue, max_connections=4)
    scheduler = worker_scheduler(engine, rq) if schedules else None
    try:
        if scheduler is not None:
            await rq.open()  # the scheduler may queue before the worker loop opens the queue
            scheduler.start()
        await rq.serve(engine, **serving)
    finally:
        if scheduler is not None:
            await scheduler.close()
        await rq.close()
