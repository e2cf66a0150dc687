"""``python -m bench memory``: what a paused run and a live run cost in RAM.

A server that has paused 10,000 runs (waiting for a human, an interrupt) must not hold 10,000
states: a paused run lives in the store, and the process keeps at most a few small records
about it. Each section starts ``--runs`` runs whose state carries a ``--payload``-byte string,
on `SQLiteStore` (a real file), and measures once they are all where the section wants them:

paused, engine
    `Engine.run` until each run stops at an interrupt (the caller drops the returned state);
paused, server
    the HTTP server's `RunManager` (what ``POST /api/runs`` drives), until each run is paused;
live, server
    the same, with each run waiting inside a node (an `asyncio.Event`): a live run holds its
    state by design, so this is the cost of one in flight.

Reported per run: the Python heap retained (``tracemalloc``, after ``gc.collect()``, against the
heap before the runs started), the growth of the process's resident set (``VmRSS``; the
allocator keeps freed pages, so this is an upper bound), and how many state objects are still
reachable (``gc.get_objects``), which is the figure that says whether states are held.
"""

from __future__ import annotations

import argparse
import asyncio
import gc
import tempfile
import time
import tracemalloc
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from pathlib import Path
from typing import Any

from pydantic import BaseModel

from graphengine import Context, Engine, NodeResult, stop
from graphengine.store import SQLiteStore


class Doc(BaseModel):
    """A run's state: a payload that makes a held state visible in the heap."""

    n: int = 0
    payload: str = ""
    answer: str = ""


GATES: dict[str, asyncio.Event] = {}
"""Run id -> the event its `wait` node waits on (live runs)."""


def ask(ctx: Context, s: Doc) -> NodeResult[Doc]:
    """Pause the run until it is resumed with an answer."""
    answer = ctx.interrupt({"question": "go on?", "n": s.n})
    return NodeResult(delta=Doc(answer=str(answer)), route=stop())


async def wait(ctx: Context, s: Doc) -> NodeResult[Doc]:
    """Stay live until the run's gate opens."""
    await GATES[ctx.run_id].wait()
    return NodeResult(delta=Doc(n=s.n + 1), route=stop())


def build(store: Any, first: str) -> Engine[Doc]:
    """``first`` (``ask`` or ``wait``) is the run's only node."""
    g = Engine(Doc, store=store)
    g.add("ask", ask).add("wait", wait).start_at(first)
    g.validate()
    return g


def rss_bytes() -> int:
    """The process's resident set (VmRSS), in bytes."""
    for line in Path("/proc/self/status").read_text().splitlines():
        if line.startswith("VmRSS:"):
            return int(line.split()[1]) * 1024
    return 0


def states_alive() -> int:
    """How many `Doc` instances the process can still reach."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Doc)


@dataclass(frozen=True)
class Result:
    """One section's figures."""

    name: str
    runs: int
    heap_per_run: float
    rss_per_run: float
    states: int
    seconds: float


async def measure(
    name: str, runs: int, setup: Callable[[], Awaitable[Callable[[], Awaitable[None]]]]
) -> Result:
    """Heap, RSS and states held once `setup`'s runs are in place; `setup` returns their teardown."""
    gc.collect()
    heap0 = tracemalloc.get_traced_memory()[0]
    rss0 = rss_bytes()
    t0 = time.perf_counter()
    teardown = await setup()
    took = time.perf_counter() - t0
    alive = states_alive()
    heap = tracemalloc.get_traced_memory()[0] - heap0
    rss = rss_bytes() - rss0
    await teardown()
    return Result(name, runs, heap / runs, rss / runs, alive, took)


async def paused_engine(path: Path, runs: int, payload: str) -> Result:
    """Runs that `Engine.run` drove to an interrupt."""
    store = SQLiteStore(path)
    await store.__aenter__()
    g = build(store, "ask")

    async def setup() -> Callable[[], Awaitable[None]]:
        for i in range(runs):
            await g.run(f"p{i}", Doc(n=i, payload=payload))
        return store.close

    return await measure("paused, engine", runs, setup)


async def on_server(path: Path, runs: int, payload: str, first: str) -> Result:
    """Runs the server's `RunManager` started, paused (``ask``) or live (``wait``)."""
    from graphengine.server import RunManager

    store = SQLiteStore(path)
    await store.__aenter__()
    manager = RunManager(build(store, first))

    async def setup() -> Callable[[], Awaitable[None]]:
        for i in range(runs):
            rid = f"s{i}"
            if first == "wait":
                GATES[rid] = asyncio.Event()
            await manager.start(rid, Doc(n=i, payload=payload), wait=first == "ask")

        async def teardown() -> None:
            for gate in GATES.values():
                gate.set()
            await manager.close()
            GATES.clear()
            await store.close()

        if first == "wait":  # every run inside its node
            while len(manager.live) < runs or any(not lv.began for lv in manager.live.values()):  # noqa: ASYNC110 (state owned by the manager, no event to wait on)
                await asyncio.sleep(0.01)
        return teardown

    return await measure("live, server" if first == "wait" else "paused, server", runs, setup)


async def run_all(runs: int, payload_bytes: int) -> list[Result]:
    """Every section, each on a fresh SQLite file."""
    payload = "x" * payload_bytes
    out = []
    with tempfile.TemporaryDirectory() as tmp:
        out.append(await paused_engine(Path(tmp) / "a.db", runs, payload))
        out.append(await on_server(Path(tmp) / "b.db", runs, payload, "ask"))
        out.append(await on_server(Path(tmp) / "c.db", runs, payload, "wait"))
    return out


def main(argv: list[str]) -> int:
    """Entry point of ``python -m bench memory``."""
    p = argparse.ArgumentParser(prog="python -m bench memory", description=__doc__.split("\n")[0])
    p.add_argument("--runs", type=int, default=2000, help="runs per section (default 2000)")
    p.add_argument("--payload", type=int, default=10_000, help="bytes of the state's payload (default 10000)")
    a = p.parse_args(argv)
    if a.runs < 1 or a.payload < 0:
        p.error("--runs must be >= 1 and --payload >= 0")
    tracing = tracemalloc.is_tracing()
    if not tracing:
        tracemalloc.start()
    try:
        results = asyncio.run(run_all(a.runs, a.payload))
    finally:
        if not tracing:
            tracemalloc.stop()
    print(f"{a.runs} runs per section, state payload {a.payload} bytes, SQLiteStore\n")
    print(f"{'section':18} {'heap/run':>10} {'RSS/run':>10} {'states held':>12} {'setup s':>8}")
    for r in results:
        print(f"{r.name:18} {r.heap_per_run:10.0f} {r.rss_per_run:10.0f} {r.states:12d} {r.seconds:8.1f}")
    print("\nheap/run: tracemalloc bytes retained per run; RSS/run: resident set growth per run (an upper")
    print("bound); states held: Doc instances still reachable once the runs are in place.")
    return 0
