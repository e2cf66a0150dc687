"""A paused run lives in the store, not in RAM; a live run holds its current state and no other.

The oracle is the garbage collector: the states a test hands in are tracked by weak reference,
and the instances of the test's own state type still reachable are counted, once the runs are
where the test wants them (paused at an interrupt, or waiting inside a node). Runs are real,
on a SQLite file, through `Engine.run`, `Engine.stream` and the HTTP server's `RunManager`.
"""

from __future__ import annotations

import asyncio
import gc
import weakref
from collections.abc import AsyncIterator
from pathlib import Path

import pytest
from pydantic import BaseModel

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")

from graphengine import Context, Engine, NodeResult, stop
from graphengine.server import RunManager
from graphengine.store import RunStatus, SQLiteStore

RUNS = 40


class Held(BaseModel):
    """State of these tests only, so that counting its instances counts what runs hold."""

    n: int = 0
    payload: str = ""
    answer: str = ""


def held() -> int:
    """How many `Held` instances are still reachable."""
    gc.collect()
    return sum(1 for o in gc.get_objects() if type(o) is Held)


GATES: dict[str, asyncio.Event] = {}


def ask(ctx: Context, s: Held) -> NodeResult[Held]:
    answer = ctx.interrupt("go on?")
    return NodeResult(delta=Held(answer=str(answer)), route=stop())


async def wait(ctx: Context, s: Held) -> NodeResult[Held]:
    await GATES[ctx.run_id].wait()
    return NodeResult(delta=Held(n=s.n + 1), route=stop())


@pytest.fixture
async def store(tmp_path: Path) -> AsyncIterator[SQLiteStore]:
    """A SQLite file of its own."""
    async with SQLiteStore(tmp_path / "memory.db") as s:
        yield s


def engine(store: SQLiteStore, first: str) -> Engine[Held]:
    return Engine(Held, store=store).add("ask", ask).add("wait", wait).start_at(first)


async def test_runs_paused_by_engine_run_hold_no_state(store: SQLiteStore) -> None:
    """After `run` returns at an interrupt and the caller drops the result, nothing holds a state."""
    g = engine(store, "ask")
    refs = []
    for i in range(RUNS):
        initial = Held(n=i, payload="x" * 1000)
        refs.append(weakref.ref(initial))
        await g.run(f"r{i}", initial)
        del initial
    assert held() == 0
    assert all(r() is None for r in refs)
    assert (await g.get_run("r0")).status is RunStatus.INTERRUPTED
    assert (await g.resume("r0", input="yes")).answer == "yes"


async def test_runs_paused_in_the_server_hold_no_state(store: SQLiteStore) -> None:
    """The server's run manager keeps nothing of a run that paused but a few numbers."""
    manager = RunManager(engine(store, "ask"))
    for i in range(RUNS):
        await manager.start(f"s{i}", Held(n=i, payload="x" * 1000), wait=True)
    assert not manager.live
    assert held() == 0
    assert (await store.get_run(f"s{RUNS - 1}")).status is RunStatus.INTERRUPTED  # type: ignore[union-attr]
    await manager.close()


async def test_a_live_run_holds_its_current_state_only(store: SQLiteStore) -> None:
    """A run waiting inside a node holds one state: not the caller's initial value, nor a second copy."""
    manager = RunManager(engine(store, "wait"))
    refs = []
    try:
        for i in range(RUNS):
            rid = f"l{i}"
            GATES[rid] = asyncio.Event()
            initial = Held(n=i, payload="x" * 1000)
            refs.append(weakref.ref(initial))
            await manager.start(rid, initial, wait=False)
            del initial
        async with asyncio.timeout(10):
            while any(not lv.began for lv in manager.live.values()):  # noqa: ASYNC110 (no event to wait on)
                await asyncio.sleep(0.01)
        assert len(manager.live) == RUNS
        assert held() == RUNS
        assert all(r() is None for r in refs)
    finally:
        for gate in GATES.values():
            gate.set()
        await manager.close()
        GATES.clear()
    assert held() == 0


async def test_a_streamed_run_does_not_keep_the_callers_initial_state(store: SQLiteStore) -> None:
    """`Engine.stream` holds the run's own state while it waits, not the value it was started from."""
    g = engine(store, "wait")
    GATES["st"] = asyncio.Event()
    initial = Held(n=1, payload="x" * 1000)
    ref = weakref.ref(initial)
    stream = g.stream("st", initial)
    del initial
    seen = []
    async with stream:
        async for ev in stream:
            seen.append(ev.kind)
            if ev.kind == "node_start":
                assert ref() is None and held() == 1
                GATES["st"].set()
    GATES.clear()
    assert stream.result is not None and stream.result.n == 2
