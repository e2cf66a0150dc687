"""Status `waiting` has two meanings: a run waiting for a timer or signal (`graphengine.waker`)
and a run waiting for its distributed branches (`graphengine.branches`). These tests make a run
wait for a signal, wake, then hand its fan-out out, on PostgreSQL and MySQL/MariaDB (the stores
with both timers and branch claims), and check that neither side mistakes the other's wait: the
timer waker and a repeated signal leave the branch-waiting run alone (its old timer row stays
behind), and the join still merges the branches to the state an in-process run reaches.
"""

from __future__ import annotations

from collections.abc import AsyncIterator, Sequence
from typing import Annotated

import pytest
from db_servers import server_store
from pydantic import BaseModel

from graphengine import Branch, Context, Engine, NodeResult, Options, TimerWaker, append, fan_out, stop
from graphengine.branches import dispatching
from graphengine.store import MemoryStore, MySQLStore, PostgresStore, RunStatus, TimerRecord

WIDTH = 4
FAN_OUT_STEP = 3
"""`ask` waits at step 1, runs again woken at step 2 (routing the fan-out), the fan-out is step 3."""


class WState(BaseModel):
    """What the branches did, and what the signal carried."""

    got: int = 0
    seen: Annotated[list[int], append] = []


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self) -> None:
        self.now = 1_000_000.0

    def __call__(self) -> float:
        return self.now


def _graph(store: PostgresStore | MySQLStore | MemoryStore, clock: Clock) -> Engine[WState]:
    """`ask` waits for "go" (an hour at most), then fans out to `WIDTH` `work` branches joined at `done`."""

    async def ask(ctx: Context, s: WState) -> NodeResult[WState]:
        sig = await ctx.wait_for("go", timeout=3600.0)
        branches = [Branch("work", WState(got=i)) for i in range(WIDTH)]
        return NodeResult(delta=WState(got=int(sig.payload)), route=fan_out(branches, join="done"))

    async def work(ctx: Context, s: WState) -> NodeResult[WState]:
        return NodeResult(delta=WState(seen=[s.got]))

    async def done(ctx: Context, s: WState) -> NodeResult[WState]:
        return NodeResult(route=stop())

    g = Engine(WState, store=store, options=Options(clock=clock))
    return g.add("ask", ask).add("work", work).add("done", done).start_at("ask")


class _Recorder:
    """A `BranchDispatcher` that keeps what it is handed (no queue: the test runs nothing)."""

    def __init__(self) -> None:
        self.min_branches = 2
        self.out: list[tuple[str, int, list[int]]] = []

    def dispatch(self, run_id: str, step: int, branches: Sequence[int]) -> None:
        self.out.append((run_id, step, list(branches)))


@pytest.fixture(params=["postgres", "mysql"])
async def server(request: pytest.FixtureRequest) -> AsyncIterator[PostgresStore | MySQLStore]:
    """A fresh server store (required under CI)."""
    async with server_store(request.param) as s:
        yield s


async def _waiting_for_branches(eng: Engine[WState], handed: _Recorder) -> None:
    """Run "r" to its signal wait, signal it (due at once), and resume it under `handed`: its fan-out goes out."""
    await eng.run("r", WState())
    assert (await eng.store.get_run("r")).status is RunStatus.WAITING  # type: ignore[union-attr]
    await eng.signal("r", "go", 7, id="first")
    timer = await eng.store.get_timer("r")  # type: ignore[attr-defined]
    assert timer is not None and timer.wake_at is not None  # the signal made the wait due
    with dispatching(handed):
        await eng.resume("r")
    assert handed.out == [("r", FAN_OUT_STEP, list(range(WIDTH)))]
    assert (await eng.store.get_run("r")).status is RunStatus.WAITING  # type: ignore[union-attr]


async def _reference() -> WState:
    """The same run on a `MemoryStore`, every fan-out in process: the state the join must reach."""
    eng = _graph(MemoryStore(), Clock())
    await eng.run("r", WState())
    await eng.signal("r", "go", 7, id="first")
    return await eng.resume("r")


async def test_a_run_waiting_for_branches_is_not_woken_by_a_signal_or_the_timer_waker(
    server: PostgresStore | MySQLStore,
) -> None:
    """A run that woke from a signal wait and then handed its fan-out out keeps waiting for its branches
    when the same signal comes again and a timer waker looks far in the future; the join then runs once."""
    clock = Clock()
    eng = _graph(server, clock)
    handed = _Recorder()
    await _waiting_for_branches(eng, handed)
    timer = await server.get_timer("r")
    assert timer is not None and timer.signal == "go" and timer.wake_at is None  # the old wait's row
    await eng.signal("r", "go", 8, id="again")  # stored (buffered), but it wakes nothing
    timer = await server.get_timer("r")
    assert timer is not None and timer.wake_at is None
    clock.now += 10 * 3600.0  # past the old wait's timeout too
    assert await TimerWaker(eng).tick() == []
    assert await server.due_timers(clock.now) == []
    assert (await server.get_run("r")).status is RunStatus.WAITING  # type: ignore[union-attr]
    assert await server.count_branches("r", FAN_OUT_STEP) == 0  # no branch ran behind the dispatcher's back
    got = await eng.resume("r")  # the join (no dispatcher: the missing branches run here)
    assert got == await _reference() and got.got == 7 and sorted(got.seen) == list(range(WIDTH))
    assert (await server.get_run("r")).status is RunStatus.DONE  # type: ignore[union-attr]
    taken = {sig.id: sig.taken_step for sig in await eng.signals("r")}
    assert taken == {"first": 2, "again": None}  # the woken step took the first; "again" stays buffered


async def test_a_hand_out_clears_a_stale_due_time_so_the_timer_waker_leaves_the_run_alone(
    server: PostgresStore | MySQLStore,
) -> None:
    """A due time left on the run's old timer (its process died between waking it and clearing it) is
    cleared when the fan-out is handed out again: the timer waker then finds nothing to wake."""
    clock = Clock()
    eng = _graph(server, clock)
    handed = _Recorder()
    await _waiting_for_branches(eng, handed)
    await server.put_timer(TimerRecord("r", 1, clock.now, "go"))  # the stale due time
    assert [t.run_id for t in await server.due_timers(clock.now)] == ["r"]
    with dispatching(handed):  # a second job for the run (a retried one): it hands out again
        await eng.resume("r")
    assert len(handed.out) == 2 and handed.out[1] == ("r", FAN_OUT_STEP, list(range(WIDTH)))
    assert await server.due_timers(clock.now) == []
    assert await TimerWaker(eng).tick() == []
    assert (await server.get_run("r")).status is RunStatus.WAITING  # type: ignore[union-attr]
