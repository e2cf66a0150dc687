"""``python -m bench workers``: queued runs served by 1, 2 and 4 worker processes on PostgreSQL.

``--runs`` runs of a 2-node loop (``--steps`` steps each) are submitted with `Engine.submit` to a
procrastinate queue of their own, on the PostgreSQL server at ``$GRAPHENGINE_TEST_POSTGRES``
(store tables in a schema of their own), then served by N processes running
`graphengine.workers.serve` (``--concurrency`` jobs each), each under cProfile. Measured, for
each N, from the moment the processes are started to the moment the last run is done:

- steps/s (from the first committed step to the last, as ``bench scale`` reports it);
- CPU seconds per 1,000 steps spent by the worker processes and by the PostgreSQL server
  processes (``/proc/<pid>/stat`` before and after), and the share of the machine's cores
  neither used (waiting: queue polling intervals, locks, round trips);
- where the workers' CPU went, from their merged profiles: the standard library's event loop,
  the queue (procrastinate), the database drivers (psycopg for the queue, asyncpg for the
  store) and the engine, by the module that spent the time itself (``tottime``).

The answer to "where is the bottleneck" is read off these: a worker CPU share near the cores
available means the workers' Python is the limit; a large PostgreSQL share the database; much
idle time the queue's polling or locks. ``--profile DIR`` keeps each process's profile.
"""

from __future__ import annotations

import argparse
import asyncio
import contextlib
import cProfile
import os
import pstats
import signal
import subprocess
import sys
import tempfile
import time
import uuid
from collections import Counter as Tally
from collections import defaultdict
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, Options, goto, stop
from graphengine.store import PostgresStore

DSN = os.environ.get("GRAPHENGINE_TEST_POSTGRES", "postgresql://postgres@127.0.0.1:5432/test")
TICK = os.sysconf("SC_CLK_TCK")


class Counter(BaseModel):
    """The loop's state."""

    n: int = 0


async def inc(ctx: Context, s: Counter) -> NodeResult[Counter]:
    """Add one (async, like a node that awaits I/O)."""
    return NodeResult(delta=Counter(n=s.n + 1))


def engine(store: Any, steps: int) -> Engine[Counter]:
    """``inc`` -> ``check`` -> ``inc`` ... until ``steps`` steps are done."""
    half = steps // 2

    def check(ctx: Context, s: Counter) -> NodeResult[Counter]:
        return NodeResult(route=stop() if s.n >= half else goto("inc"))

    g = Engine(Counter, store=store, options=Options(max_steps=steps + 2))
    g.add("inc", inc).add("check", check).start_at("inc").connect("inc", "check")
    g.validate()
    return g


# ------------------------------------------------------------------------------ one worker process


def serve_main(schema: str, steps: int, concurrency: int, profile: str) -> None:
    """A worker process: serve the queue ``schema`` under cProfile until SIGTERM, then write the profile."""
    from graphengine.workers import serve

    async def go() -> None:
        task = asyncio.current_task()
        assert task is not None
        asyncio.get_running_loop().add_signal_handler(signal.SIGTERM, task.cancel)
        dsn = os.environ.get(DSN_ENV, DSN)
        # The store's sessions only (libpq, which the queue uses, knows no such parameter).
        store_dsn = dsn + os.environ.get(STORE_OPTIONS_ENV, "")
        async with PostgresStore(store_dsn, schema=schema, max_size=concurrency + 2) as store:
            with contextlib.suppress(asyncio.CancelledError):
                await serve(
                    engine(store, steps),
                    queue_dsn=dsn,
                    queue=schema,
                    concurrency=concurrency,
                    install_signal_handlers=False,
                )

    prof = cProfile.Profile()
    prof.enable()
    try:
        asyncio.run(go())
    finally:
        prof.disable()
        prof.dump_stats(profile)


# ------------------------------------------------------------------------------ the driver


DSN_ENV = "GRAPHENGINE_BENCH_WORKERS_DSN"
"""The DSN a worker process connects with (tagged with the benchmark's application_name)."""


STORE_OPTIONS_ENV = "GRAPHENGINE_BENCH_WORKERS_STORE_OPTIONS"
"""Extra DSN parameters of the workers' store sessions (``--async-commit``)."""


def tagged(schema: str) -> str:
    """`DSN` with ``application_name`` set, so the sampler finds the workers' sessions."""
    return f"{DSN}{'&' if '?' in DSN else '?'}application_name={schema}"


@dataclass
class Window:
    """CPU and wall time from the first committed step to the last run done."""

    wall: float = 0.0
    worker_cpu: float = 0.0
    worker_wait: float = 0.0
    db_cpu: float = 0.0


def usage(workers: list[subprocess.Popen[bytes]]) -> tuple[float, float, float, float]:
    """(now, workers' CPU s, workers' run-queue wait s, PostgreSQL's CPU s)."""
    pids = [w.pid for w in workers]
    return (
        time.perf_counter(),
        sum(cpu_seconds(p) for p in pids),
        sum(queue_wait_seconds(p) for p in pids),
        postgres_cpu(),
    )


async def watch(
    schema: str, runs: int, workers: list[subprocess.Popen[bytes]]
) -> tuple[Tally[str], Window, tuple[int, float, float]]:
    """Sample the workers' sessions in `pg_stat_activity` until every run is done.

    Returns the samples, the usage window (from the first committed step: worker start-up,
    imports and connections, is left out) and (steps committed, first and last step's ts).
    """
    import asyncpg

    waits: Tally[str] = Tally()
    conn = await asyncpg.connect(DSN)
    sample = await conn.prepare(
        "SELECT state, wait_event_type, wait_event FROM pg_stat_activity WHERE application_name = $1"
    )
    start: tuple[float, float, float, float] | None = None
    try:
        deadline = time.monotonic() + 900
        ticks = 0
        while True:
            if start is not None:
                for state, kind, event in await sample.fetch(schema):
                    if state == "active":
                        waits[f"active, waiting on {kind}:{event}" if kind else "active, on CPU"] += 1
                    else:
                        waits[f"{state} (waiting for the worker)" if state == "idle" else str(state)] += 1
            ticks += 1
            if ticks % 10 == 0:
                done, n, lo, hi = await progress(conn, schema)
                if start is None and n > 0:
                    start = usage(workers)
                if done == runs:
                    assert start is not None
                    end = usage(workers)
                    window = Window(*(b - a for a, b in zip(start, end, strict=True)))
                    return waits, window, (n, lo, hi)
                if time.monotonic() > deadline or any(w.poll() is not None for w in workers):
                    raise RuntimeError(f"workers stopped or timed out with {done}/{runs} runs done")
            await asyncio.sleep(0.01)
    finally:
        await conn.close()


def cpu_seconds(pid: int) -> float:
    """User + system CPU seconds of process ``pid`` (0 if it is gone)."""
    try:
        fields = Path(f"/proc/{pid}/stat").read_text().rsplit(")", 1)[1].split()
    except OSError:
        return 0.0
    return (int(fields[11]) + int(fields[12])) / TICK


def queue_wait_seconds(pid: int) -> float:
    """Seconds process ``pid``'s main thread spent runnable but waiting for a core (``schedstat``)."""
    try:
        return int(Path(f"/proc/{pid}/schedstat").read_text().split()[1]) / 1e9
    except (OSError, IndexError, ValueError):
        return 0.0


def postgres_pids() -> list[int]:
    """The PostgreSQL server's processes on this machine."""
    out = []
    for d in Path("/proc").iterdir():
        if d.name.isdigit():
            with contextlib.suppress(OSError):
                if (d / "comm").read_text().strip() in ("postgres", "postmaster"):
                    out.append(int(d.name))
    return out


def postgres_cpu() -> float:
    """CPU seconds of every PostgreSQL process now alive (backends come and go: see `Result`)."""
    return sum(cpu_seconds(p) for p in postgres_pids())


async def submit_all(schema: str, runs: int, steps: int) -> None:
    """Store ``runs`` runs and queue a job for each."""
    from graphengine.workers import RunQueue

    async with PostgresStore(DSN, schema=schema, max_size=2) as store, RunQueue(DSN, queue=schema) as q:
        g = engine(store, steps)
        for i in range(runs):
            await g.submit(f"r{i}", Counter(), queue=q)


async def progress(conn: Any, schema: str) -> tuple[int, int, float, float]:
    """(runs done, steps committed, first step's ts, last step's ts), in one statement on ``conn``."""
    # The schema is our own generated name, not user text: identifiers cannot be bound.
    row = await conn.fetchrow(
        f"SELECT (SELECT count(*) FROM {schema}.runs WHERE status = 'done'), count(*), min(ts), max(ts) "
        f"FROM {schema}.steps"
    )
    return int(row[0]), int(row[1]), float(row[2] or 0.0), float(row[3] or 0.0)


async def cleanup(schema: str) -> None:
    """Drop the benchmark's store schema and its queue's jobs."""
    import asyncpg  # type: ignore[import-untyped]

    conn = await asyncpg.connect(DSN)
    try:
        await conn.execute("DELETE FROM procrastinate_jobs WHERE queue_name = $1", schema)
        await conn.execute(f"DROP SCHEMA IF EXISTS {schema} CASCADE")
    finally:
        await conn.close()


@dataclass
class Result:
    """One process count's figures."""

    procs: int
    steps: int
    steps_per_s: float
    window: Window
    profiles: list[Path]
    waits: Tally[str]
    """What the workers' PostgreSQL sessions were doing, sampled every 10 ms."""

    @property
    def cores(self) -> tuple[float, float, float]:
        """Cores used by the workers, by PostgreSQL, and waited for by the workers (on average)."""
        w = self.window
        return w.worker_cpu / w.wall, w.db_cpu / w.wall, w.worker_wait / w.wall


def measure(
    procs: int, runs: int, steps: int, concurrency: int, out: Path, async_commit: bool = False
) -> Result:
    """Serve ``runs`` fresh runs with ``procs`` worker processes."""
    schema = f"bench_w{uuid.uuid4().hex[:10]}"
    asyncio.run(submit_all(schema, runs, steps))
    profiles = [out / f"{schema}-{i}.prof" for i in range(procs)]
    env = dict(os.environ, PYTHONPATH=os.pathsep.join(sys.path), **{DSN_ENV: tagged(schema)})
    if async_commit:
        env[STORE_OPTIONS_ENV] = "&synchronous_commit=off"
    workers = [
        subprocess.Popen(
            [sys.executable, "-m", "bench.workers", "--serve", schema, str(steps), str(concurrency), str(p)],
            env=env,
        )
        for p in profiles
    ]
    try:
        waits, window, (n, lo, hi) = asyncio.run(watch(schema, runs, workers))
    finally:
        for w in workers:
            w.send_signal(signal.SIGTERM)
        for w in workers:
            try:
                w.wait(60)
            except subprocess.TimeoutExpired:
                w.kill()
                w.wait()
        asyncio.run(cleanup(schema))
    if n != runs * steps:
        raise AssertionError(f"{n} steps committed, expected {runs * steps}")
    found = [p for p in profiles if p.exists()]
    return Result(procs, n, n / (hi - lo), window, found, waits)


LAYERS = (
    ("graphengine", ("graphengine/",)),
    ("procrastinate (queue)", ("procrastinate/",)),
    ("psycopg (queue driver)", ("psycopg/", "psycopg_pool/", "psycopg_binary")),
    ("asyncpg (store driver)", ("asyncpg/",)),
    ("pydantic", ("pydantic/", "pydantic_core")),
    ("asyncio event loop", ("asyncio/", "selectors.py")),
)


def layer_of(filename: str) -> str:
    """The part of the stack a profiled function belongs to."""
    for name, marks in LAYERS:
        if any(m in filename for m in marks):
            return name
    if filename.startswith("~") or filename == "":
        return "built-ins (C: socket I/O, json, ...)"
    return "other Python"


def profile_table(paths: list[Path], top: int) -> list[str]:
    """Self time by layer, and the functions with the most self time, of the merged profiles."""
    stats = pstats.Stats(*(str(p) for p in paths))
    raw: Any = stats.stats  # type: ignore[attr-defined]
    by_layer: dict[str, float] = defaultdict(float)
    rows = []
    total = 0.0
    for (filename, line, func), (_cc, _nc, tt, _ct, _callers) in raw.items():
        by_layer[layer_of(filename)] += tt
        total += tt
        rows.append((tt, f"{Path(filename).name}:{line}({func})" if filename != "~" else func))
    lines = [f"    {name:40} {t / total:6.1%}" for name, t in sorted(by_layer.items(), key=lambda kv: -kv[1])]
    lines.append("    top functions by self time:")
    lines += [f"      {t / total:6.1%}  {name}" for t, name in sorted(rows, reverse=True)[:top]]
    return lines


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench workers``."""
    p = argparse.ArgumentParser(prog="python -m bench workers", description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=200, help="runs submitted per process count (default 200)")
    p.add_argument("--steps", type=int, default=20, help="steps of each run (even; default 20)")
    p.add_argument("--concurrency", type=int, default=8, help="jobs driven at once per process (default 8)")
    p.add_argument("--workers", default="1,2,4", help="process counts to measure (default 1,2,4)")
    p.add_argument("--top", type=int, default=12, help="functions listed per profile (default 12)")
    p.add_argument(
        "--async-commit",
        action="store_true",
        help="an experiment, not a setting to run with: the store's sessions commit without waiting for "
        "the WAL flush (synchronous_commit=off; a crash may lose the last commits), to show how much of "
        "a step is that wait",
    )
    p.add_argument("--profile", type=Path, default=None, metavar="DIR", help="keep the profiles in DIR")
    a = p.parse_args(argv)
    if a.runs < 1 or a.steps < 2 or a.steps % 2:
        p.error("--runs must be >= 1 and --steps an even number >= 2")
    counts = [int(x) for x in a.workers.split(",")]
    print(f"PostgreSQL at {DSN.split('@')[-1]}, {os.cpu_count()} CPUs; {a.runs} runs x {a.steps} steps,")
    print(f"{a.concurrency} jobs at once per process; every worker process under cProfile")
    if a.async_commit:
        print("EXPERIMENT: the store's sessions run with synchronous_commit=off (not durable)")
    print()
    results = []
    with tempfile.TemporaryDirectory() as tmp:
        out = a.profile or Path(tmp)
        out.mkdir(parents=True, exist_ok=True)
        for n in counts:
            results.append(measure(n, a.runs, a.steps, a.concurrency, out, a.async_commit))
        head = f"{'processes':>9} {'steps/s':>8} {'CPU ms/step: workers':>21} {'PostgreSQL':>11}"
        print(head + f" {'cores busy: workers':>20} {'PostgreSQL':>11} {'waiting for a core':>19}")
        for r in results:
            w = r.window
            ours, db, wait = r.cores
            print(
                f"{r.procs:9d} {r.steps_per_s:8.0f} {w.worker_cpu / r.steps * 1e3:21.2f} "
                f"{w.db_cpu / r.steps * 1e3:11.2f} {ours:20.2f} {db:11.2f} {wait:19.2f}"
            )
        print(
            f"\n(from the first committed step to the last run done; {os.cpu_count()} cores shared with"
            "\nwhatever else runs on the machine; profiled workers run slower than unprofiled)"
        )
        for r in results:
            total = sum(r.waits.values()) or 1
            print(f"\nthe workers' PostgreSQL sessions, {r.procs} process(es), share of samples:")
            for what, k in r.waits.most_common(8):
                print(f"    {what:50} {k / total:6.1%}")
        for r in results:
            print(f"\nworkers' self time, {r.procs} process(es), merged:")
            print("\n".join(profile_table(r.profiles, a.top)))
    return 0


if __name__ == "__main__":
    # The module by its own name, not as __main__: a run's graph fingerprint names the node
    # functions' module, and the runs were submitted by `bench.workers`.
    import bench.workers as this

    if len(sys.argv) == 6 and sys.argv[1] == "--serve":
        this.serve_main(sys.argv[2], int(sys.argv[3]), int(sys.argv[4]), sys.argv[5])
    else:
        raise SystemExit(this.main(sys.argv[1:]))
