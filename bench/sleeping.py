"""``python -m bench sleeping``: what sleeping runs cost a process, 100 of them against 10,000.

A run that sleeps (`ctx.sleep`) commits its step and holds no task, worker or memory: the store
keeps its timer, and a `TimerWaker` asks the store for the soonest due time instead of keeping a
list. For each count in ``--runs`` (default ``100,10000``) on a fresh `SQLiteStore` file, two
child processes are measured (a fresh process each, so one phase's freed pages do not hide the
other's):

create
    starts N runs whose node sleeps a day (state: a ``--payload``-byte string), each `run()`
    returning once the run is `waiting`; reports the growth of the resident set (``VmRSS``) and
    of the Python heap (``tracemalloc``, after ``gc.collect()``) over the whole batch, and the
    state objects still reachable;
hold
    a process like ``graphengine serve``/``worker`` on that file: opens the store, runs a
    `TimerWaker` for ``--hold`` seconds (it looks at the store every 0.5 s; nothing is due) and
    reports its resident set, heap and one look's time (``due_timers`` + ``next_due``).

Flat memory means the figures of N=10,000 are those of N=100, not a hundred times them.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import json
import subprocess
import sys
import tempfile
import time
import tracemalloc
from datetime import timedelta
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, TimerWaker, stop
from graphengine.store import RunStatus, SQLiteStore


class Nap(BaseModel):
    """A run's state: a payload that would show in the heap if states were held."""

    payload: str = ""
    woke: bool = False


async def nap(ctx: Context, s: Nap) -> NodeResult[Nap]:
    """Sleep a day, then finish."""
    await ctx.sleep(timedelta(days=1))
    return NodeResult(delta=Nap(woke=True), route=stop())


def build(store: Any) -> Engine[Nap]:
    """The one-node sleeping graph on `store`."""
    return Engine(Nap, store=store).add("nap", nap).start_at("nap")


def rss_bytes() -> int:
    """The process's resident set (VmRSS), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def states_alive() -> int:
    """How many `Nap` instances the process can still reach."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Nap)


async def create(db: Path, runs: int, payload: int) -> dict[str, Any]:
    """Child: start `runs` sleeping runs; the memory they left behind."""
    async with SQLiteStore(db) as store:
        eng = build(store)
        await eng.run("warm-up", Nap())  # connections, compiled graph, imports: not per run
        gc.collect()
        rss0, heap0 = rss_bytes(), tracemalloc.get_traced_memory()[0]
        t0 = time.perf_counter()
        text = "x" * payload
        for i in range(runs):
            await eng.run(f"nap{i}", Nap(payload=text))
        took = time.perf_counter() - t0
        alive = states_alive()
        heap = tracemalloc.get_traced_memory()[0] - heap0
        rss = rss_bytes() - rss0
        waiting = len(await store.list_runs(status=RunStatus.WAITING, limit=runs + 10))
    return {"rss": rss, "heap": heap, "states": alive, "seconds": took, "waiting": waiting}


async def hold(db: Path, seconds: float) -> dict[str, Any]:
    """Child: a timer waker over the file for `seconds`; its memory and one look's time."""
    async with SQLiteStore(db) as store:
        eng = build(store)
        looks = []
        async with TimerWaker(eng, poll=0.5) as sched:
            end = time.monotonic() + seconds
            while time.monotonic() < end:
                t0 = time.perf_counter()
                await sched.tick()
                await store.next_due()
                looks.append(time.perf_counter() - t0)
                await asyncio.sleep(0.5)
            gc.collect()
            rss = rss_bytes()
            heap = tracemalloc.get_traced_memory()[0]
            alive = states_alive()
    looks.sort()
    return {"rss": rss, "heap": heap, "states": alive, "look_ms": looks[len(looks) // 2] * 1e3}


def _child(argv: list[str]) -> int:
    tracemalloc.start()
    what, db = argv[0], Path(argv[1])
    if what == "create":
        out = asyncio.run(create(db, int(argv[2]), int(argv[3])))
    else:
        out = asyncio.run(hold(db, float(argv[2])))
    print(json.dumps(out))
    return 0


def _spawn(*args: str) -> dict[str, Any]:
    proc = subprocess.run(
        [sys.executable, "-m", "bench", "sleeping", "--child", *args],
        capture_output=True,
        text=True,
        check=True,
    )
    result: dict[str, Any] = json.loads(proc.stdout.strip().splitlines()[-1])
    return result


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench sleeping``."""
    if argv[:1] == ["--child"]:
        return _child(argv[1:])
    p = argparse.ArgumentParser(prog="python -m bench sleeping", description=__doc__.split("\n")[0])
    p.add_argument("--runs", default="100,10000", help="comma-separated run counts (default 100,10000)")
    p.add_argument(
        "--payload", type=int, default=10_000, help="bytes of each state's payload (default 10000)"
    )
    p.add_argument("--hold", type=float, default=3.0, help="seconds the holding process runs (default 3)")
    a = p.parse_args(argv)
    counts = [int(c) for c in a.runs.split(",") if c]
    rows = []
    with tempfile.TemporaryDirectory() as tmp:
        for n in counts:
            db = Path(tmp) / f"sleep{n}.db"
            made = _spawn("create", str(db), str(n), str(a.payload))
            held = _spawn("hold", str(db), str(a.hold))
            rows.append((n, made, held, db.stat().st_size))
    mib = 1 << 20
    print(f"sleeping runs on SQLiteStore, state payload {a.payload} bytes\n")
    print(
        f"{'runs':>7} {'waiting':>8} | {'create: RSS+':>12} {'heap+':>9} {'states':>7} {'s':>6} |"
        f" {'hold: RSS':>10} {'heap':>9} {'states':>7} {'look ms':>8} | {'file MiB':>8}"
    )
    for n, made, held, size in rows:
        print(
            f"{n:7d} {made['waiting']:8d} | {made['rss'] / mib:10.1f}Mi {made['heap'] / mib:7.2f}Mi"
            f" {made['states']:7d} {made['seconds']:6.1f} | {held['rss'] / mib:8.1f}Mi"
            f" {held['heap'] / mib:7.2f}Mi {held['states']:7d} {held['look_ms']:8.2f} | {size / mib:8.1f}"
        )
    print("\ncreate: growth over the batch in a fresh process (RSS is an upper bound: the allocator keeps")
    print("freed pages); hold: a timer waker process on the file (absolute figures); states: Nap objects")
    print("still reachable; look: one timer waker look at the store (due timers + the soonest due time).")
    return 0
