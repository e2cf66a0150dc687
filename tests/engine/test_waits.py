"""Durable timers and signals: `ctx.sleep`, `sleep_until`, `ctx.wait_for`, `Engine.signal`, `TimerWaker`.

Most tests drive time with a controllable clock (`Options(clock=...)`) and run once per store
backend; a few use real time (sleeps of about 0.2 s) on SQLite. Crash tests with processes are
in `test_waits_processes.py`.
"""

from __future__ import annotations

import asyncio
import json
from datetime import UTC, datetime, timedelta
from pathlib import Path
from typing import Annotated, Any

import pytest
from opentelemetry.sdk.trace import TracerProvider
from opentelemetry.sdk.trace.export import SimpleSpanProcessor
from opentelemetry.sdk.trace.export.in_memory_span_exporter import InMemorySpanExporter
from pydantic import BaseModel

from graphengine import (
    Context,
    Engine,
    NodeResult,
    Options,
    SignalRefusedError,
    TimerWaker,
    WaitError,
    WaitTimeoutError,
    append,
    fan_out,
    goto,
    sleep_until,
    stop,
)
from graphengine.emit import EventKind, MemoryEmitter, OTelEmitter
from graphengine.store import MemoryStore, RunStatus, SQLiteStore, Store, TimerRecord, WaitStore


class Log(BaseModel):
    """What the test graphs did, in order."""

    log: Annotated[list[str], append] = []


class Clock:
    """A wall clock the test moves by hand."""

    def __init__(self, now: float = 1_000_000.0) -> None:
        self.now = now

    def __call__(self) -> float:
        return self.now

    def advance(self, seconds: float) -> None:
        self.now += seconds


def napper(store: Store, clock: Clock, executions: list[str], **kw: Any) -> Engine[Log]:
    """`nap` records a tool call, sleeps an hour, and logs what the tool gave it; then stops."""
    calls: list[int] = []

    async def nap(ctx: Context, s: Log) -> NodeResult[Log]:
        executions.append("prior" if ctx.woken else "fresh")
        got = await ctx.call(lambda _: calls.append(1) or len(calls), None, name="count")
        await ctx.sleep(timedelta(hours=1))
        return NodeResult(delta=Log(log=[f"woke after call {got}"]), route=stop())

    return Engine(Log, store=store, options=Options(clock=clock), **kw).add("nap", nap).start_at("nap")


async def status(engine: Engine[Any], run_id: str) -> RunStatus:
    return (await engine.get_run(run_id)).status


async def finished(engine: Engine[Any], run_id: str, *, within: float) -> None:
    """Wait (polling the store) until the run is done; fail after `within` seconds."""
    for _ in range(int(within / 0.01)):
        if await status(engine, run_id) is RunStatus.DONE:
            return
        await asyncio.sleep(0.01)
    raise AssertionError(f"run {run_id!r} is still {await status(engine, run_id)} after {within} s")


# ------------------------------------------------------------------------------------ ctx.sleep


async def test_sleep_commits_the_step_and_leaves_the_run_waiting_with_its_due_time(store: Store) -> None:
    """A node's `ctx.sleep` commits its step; the run is `waiting` with a timer due at now + delay."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    assert await eng.run("r1", Log()) == Log()
    assert await status(eng, "r1") is RunStatus.WAITING
    assert isinstance(store, WaitStore)
    assert await store.get_timer("r1") == TimerRecord("r1", 1, clock.now + 3600, None)
    assert [s.step for s in await store.load_steps("r1")] == [1]


async def test_a_waiting_run_is_not_continued_before_its_due_time(store: Store) -> None:
    """`resume` of a run whose timer is not due runs nothing and leaves it waiting."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    await eng.run("r1", Log())
    clock.advance(3599)
    assert await eng.resume("r1") == Log()
    assert runs == ["fresh"]
    assert await status(eng, "r1") is RunStatus.WAITING


async def test_a_due_run_runs_its_node_again_and_sleep_returns_at_once(store: Store) -> None:
    """When due, the node that slept runs again; its sleep returns and the run finishes."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    await eng.run("r1", Log())
    clock.advance(3600)
    assert await eng.resume("r1") == Log(log=["woke after call 1"])
    assert runs == ["fresh", "prior"]
    assert await status(eng, "r1") is RunStatus.DONE


async def test_the_deadline_is_recorded_so_a_late_wake_does_not_sleep_again(store: Store) -> None:
    """Woken a day late, the node's sleep uses the recorded deadline (not now + delay) and returns."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    await eng.run("r1", Log())
    due = clock.now + 3600
    clock.advance(86_400)
    await eng.resume("r1")
    steps = await store.load_steps("r1")
    sleeps = [c for c in json.loads(steps[1].calls or b"{}")["calls"] if c["tool"] == "graphengine.sleep"]
    assert sleeps == [{"tool": "graphengine.sleep", "until": due, "done": True}]


async def test_a_tool_called_before_the_sleep_is_served_from_the_record_when_woken(store: Store) -> None:
    """The `ctx.call` made before a sleep is not made again when the node runs again."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    await eng.run("r1", Log())
    clock.advance(3600)
    state = await eng.resume("r1")
    assert state.log == ["woke after call 1"]  # the tool counted one call, not two


async def test_a_sleep_of_zero_does_not_wait(store: Store) -> None:
    """`ctx.sleep(0)` returns at once: the run does not wait."""

    async def node(ctx: Context, s: Log) -> NodeResult[Log]:
        await ctx.sleep(0)
        return NodeResult(delta=Log(log=["on"]), route=stop())

    eng = Engine(Log, store=store).add("n", node).start_at("n")
    assert await eng.run("r1", Log()) == Log(log=["on"])
    assert await status(eng, "r1") is RunStatus.DONE


async def test_sleep_inside_a_fan_out_branch_fails_the_run_naming_the_branch() -> None:
    """A branch cannot wait: `ctx.sleep` there is a `WaitError` naming the branch, and the run fails."""

    async def branch(ctx: Context, s: Log) -> NodeResult[Log]:
        await ctx.sleep(10)
        return NodeResult()

    eng = Engine(Log, store=MemoryStore())
    eng.add("split", lambda ctx, s: NodeResult(route=fan_out(["b"], join="j")))
    eng.add("b", branch).add("j", lambda ctx, s: NodeResult(route=stop())).start_at("split")
    with pytest.raises(WaitError, match=r"branch 0 \(node 'b'\) called ctx.sleep"):
        await eng.run("r1", Log())
    assert await status(eng, "r1") is RunStatus.FAILED


def test_a_delay_that_is_not_a_number_of_seconds_is_refused() -> None:
    """`ctx.sleep` refuses NaN, infinity and non-numbers with a `ValueError` naming the value."""

    async def node(ctx: Context, s: Log) -> NodeResult[Log]:
        await ctx.sleep(float("nan"))
        return NodeResult()

    eng = Engine(Log, store=MemoryStore()).add("n", node).start_at("n")
    with pytest.raises(Exception, match="ctx.sleep takes a timedelta or a finite number of seconds, got nan"):
        eng.run_sync("r1", Log())


# ------------------------------------------------------------------------------------ sleep_until


async def test_sleep_until_waits_then_goes_to_its_node(store: Store) -> None:
    """A `sleep_until(when, then=...)` route waits until `when`, then runs `then`."""
    clock = Clock()
    when = datetime.fromtimestamp(clock.now + 60, UTC)
    eng = Engine(Log, store=store, options=Options(clock=clock))
    eng.add("a", lambda ctx, s: NodeResult(delta=Log(log=["a"]), route=sleep_until(when, then="b")))
    eng.add("b", lambda ctx, s: NodeResult(delta=Log(log=["b"]), route=stop())).start_at("a")
    assert await eng.run("r1", Log()) == Log(log=["a"])
    assert await status(eng, "r1") is RunStatus.WAITING
    clock.advance(30)
    assert await eng.resume("r1") == Log(log=["a"])
    clock.advance(30)
    assert await eng.resume("r1") == Log(log=["a", "b"])
    assert await status(eng, "r1") is RunStatus.DONE


def test_sleep_until_refuses_a_naive_datetime() -> None:
    """A datetime without a timezone is ambiguous: `ValueError` saying to add one."""
    with pytest.raises(ValueError, match="timezone-aware"):
        sleep_until(datetime(2030, 1, 1), then="b")


async def test_sleep_until_to_an_unknown_node_fails_the_step() -> None:
    """A `sleep_until` whose `then` is not a node is refused at the step, naming it."""
    eng = Engine(Log, store=MemoryStore())
    eng.add("a", lambda ctx, s: NodeResult(route=sleep_until(0.0, then="nowhere"))).start_at("a")
    with pytest.raises(Exception, match="'nowhere'"):
        await eng.run("r1", Log())


# ------------------------------------------------------------------------------------ TimerWaker


async def test_timer_waker_tick_wakes_exactly_the_runs_due_by_its_clock(store: Store) -> None:
    """A timer waker look wakes the waiting runs whose time has come and leaves the others waiting."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    await eng.run("early", Log())
    clock.advance(600)
    await eng.run("late", Log())
    sched = TimerWaker(eng)
    assert await sched.tick() == []
    clock.advance(3000)
    assert await sched.tick() == ["early"]
    await sched.drain()
    assert await status(eng, "early") is RunStatus.DONE
    assert await status(eng, "late") is RunStatus.WAITING


async def test_timer_waker_wakes_a_short_sleep_in_real_time(tmp_path: Path) -> None:
    """With the real clock, a run sleeping 0.2 s is finished by a running timer waker soon after."""

    async def node(ctx: Context, s: Log) -> NodeResult[Log]:
        await ctx.sleep(0.2)
        return NodeResult(delta=Log(log=["woke"]), route=stop())

    async with SQLiteStore(tmp_path / "runs.db") as store:
        eng = Engine(Log, store=store).add("n", node).start_at("n")
        async with TimerWaker(eng, poll=5.0):  # woken by the deadline, not by the poll
            loop = asyncio.get_running_loop()
            t0 = loop.time()
            await eng.run("r1", Log())
            while await status(eng, "r1") is not RunStatus.DONE:
                assert loop.time() - t0 < 3.0, "the timer waker did not wake the run"
                await asyncio.sleep(0.02)
        assert loop.time() - t0 >= 0.2
        assert (await eng.get_state("r1")).log == ["woke"]


async def test_a_timer_waker_started_after_the_due_time_wakes_the_run(tmp_path: Path) -> None:
    """A process down across the due time: a new engine and timer waker on the same file wake the run at start."""
    clock, runs = Clock(), []
    async with SQLiteStore(tmp_path / "runs.db") as store:
        await napper(store, clock, runs).run("r1", Log())
    clock.advance(7200)
    async with SQLiteStore(tmp_path / "runs.db") as store:
        eng = napper(store, clock, runs)
        async with TimerWaker(eng):
            await finished(eng, "r1", within=5.0)
    assert runs == ["fresh", "prior"]


async def test_three_timer_wakers_on_one_file_fire_a_due_timer_once(tmp_path: Path) -> None:
    """Three timer wakers, each with its own store on one SQLite file, race on a due timer: the node runs again once."""
    clock, runs = Clock(), []
    path = tmp_path / "runs.db"
    async with SQLiteStore(path) as store:
        await napper(store, clock, runs).run("r1", Log())
    clock.advance(3600)
    stores = [SQLiteStore(path) for _ in range(3)]
    try:
        scheds = [TimerWaker(napper(s, clock, runs)) for s in stores]
        fired = await asyncio.gather(*(s.tick() for s in scheds))
        await asyncio.gather(*(s.drain() for s in scheds))
        assert sum(len(f) for f in fired) >= 1
        assert runs == ["fresh", "prior"]
        assert (await stores[0].get_run("r1")).status is RunStatus.DONE  # type: ignore[union-attr]
    finally:
        for s in stores:
            await s.close()


# ------------------------------------------------------------------------------------ signals


def approver(store: Store, clock: Clock, timeout: float | None = None) -> Engine[Log]:
    """`ask` waits for the signal `approved` and logs its payload (or `timeout`)."""

    async def ask(ctx: Context, s: Log) -> NodeResult[Log]:
        try:
            sig = await ctx.wait_for("approved", timeout=timeout)
        except WaitTimeoutError as exc:
            return NodeResult(delta=Log(log=[f"timeout {exc.name}"]), route=stop())
        return NodeResult(delta=Log(log=[f"approved by {sig.payload['by']} ({sig.id})"]), route=stop())

    return Engine(Log, store=store, options=Options(clock=clock)).add("ask", ask).start_at("ask")


async def test_a_signal_wakes_a_run_waiting_for_it(store: Store) -> None:
    """A run waiting in `ctx.wait_for` is made due by the signal and continues with its payload."""
    eng = approver(store, Clock())
    await eng.run("r1", Log())
    assert await status(eng, "r1") is RunStatus.WAITING
    sched = TimerWaker(eng)
    assert await sched.tick() == []
    await eng.signal("r1", "approved", {"by": "ana"}, id="hook-1")
    assert await sched.tick() == ["r1"]
    await sched.drain()
    assert (await eng.get_state("r1")).log == ["approved by ana (hook-1)"]


async def test_a_signal_sent_before_the_wait_is_buffered_and_received(store: Store) -> None:
    """A signal that arrives before `ctx.wait_for` is kept and returned by it without waiting."""
    eng = approver(store, Clock())
    # The run must exist to take signals: it first sleeps (until a past time) before `ask`.
    eng.add("first", lambda ctx, s: NodeResult(route=sleep_until(0.0, then="ask"))).start_at("first")
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "bo"}, id="early")
    assert await eng.resume("r1") == Log(log=["approved by bo (early)"])


async def test_a_signal_id_is_stored_once(store: Store) -> None:
    """The same signal id sent twice is stored once, and the run receives it once."""
    eng = approver(store, Clock())
    await eng.run("r1", Log())
    first = await eng.signal("r1", "approved", {"by": "ana"}, id="hook-1")
    again = await eng.signal("r1", "approved", {"by": "mallory"}, id="hook-1")
    assert again == first
    await eng.resume("r1")
    sigs = await eng.signals("r1")
    assert [(s.id, s.payload, s.taken_step) for s in sigs] == [("hook-1", {"by": "ana"}, 2)]


async def test_a_wait_whose_timeout_passes_raises_wait_timeout_in_the_node(store: Store) -> None:
    """With no signal before the timeout, the woken node's `wait_for` raises `WaitTimeoutError`."""
    clock = Clock()
    eng = approver(store, clock, timeout=60)
    await eng.run("r1", Log())
    clock.advance(59)
    await eng.resume("r1")
    assert await status(eng, "r1") is RunStatus.WAITING
    clock.advance(1)
    assert await eng.resume("r1") == Log(log=["timeout approved"])


async def test_a_signal_to_an_unknown_run_is_refused_naming_it(store: Store) -> None:
    """`signal` to a run that does not exist raises `SignalRefusedError` (status None) naming the run."""
    eng = approver(store, Clock())
    with pytest.raises(SignalRefusedError, match="run 'ghost' refused: there is no such run") as err:
        await eng.signal("ghost", "approved", {})
    assert err.value.status is None and err.value.run_id == "ghost"


async def test_a_signal_to_a_finished_run_is_refused_and_not_stored(store: Store) -> None:
    """`signal` to a done run raises `SignalRefusedError` (status done) and stores nothing."""
    eng = approver(store, Clock())
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"})
    await eng.resume("r1")
    with pytest.raises(SignalRefusedError, match="it is done") as err:
        await eng.signal("r1", "approved", {"by": "late"}, id="late")
    assert err.value.status == "done"
    assert [s.payload for s in await eng.signals("r1")] == [{"by": "ana"}]


async def test_a_signal_payload_json_cannot_hold_is_refused() -> None:
    """A NaN payload is refused before anything is stored."""
    eng = approver(MemoryStore(), Clock())
    await eng.run("r1", Log())
    with pytest.raises(ValueError, match="payload is not JSON"):
        await eng.signal("r1", "approved", float("nan"))
    assert await eng.signals("r1") == []


# ------------------------------------------------------------------------------------ replay, events


async def test_replay_of_a_run_that_slept_and_waited_has_no_divergence(store: Store) -> None:
    """A run that called a tool, slept, waited for a signal and finished replays cleanly."""
    clock = Clock()
    n = [0]

    async def node(ctx: Context, s: Log) -> NodeResult[Log]:
        got = await ctx.call(lambda _: n.__setitem__(0, n[0] + 1) or n[0], None, name="count")
        await ctx.sleep(timedelta(minutes=5))
        sig = await ctx.wait_for("go")
        return NodeResult(delta=Log(log=[f"{got}:{sig.payload}"]), route=stop())

    eng = Engine(Log, store=store, options=Options(clock=clock)).add("n", node).start_at("n")
    await eng.run("r1", Log())
    clock.advance(300)
    await eng.resume("r1")  # woken: now waiting for the signal
    await eng.signal("r1", "go", "yes", id="s1")
    assert await eng.resume("r1") == Log(log=["1:yes"])
    report = await eng.replay("r1")
    assert report.ok, str(report)
    assert report.steps == 3


async def test_replay_reports_a_node_that_now_waits_differently(store: Store) -> None:
    """Replaying with a node that now waits for another signal is a divergence, not a silent pass."""
    clock = Clock()
    eng = approver(store, clock)
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"})
    await eng.resume("r1")

    async def changed(ctx: Context, s: Log) -> NodeResult[Log]:
        await ctx.sleep(1)
        return NodeResult(route=stop())

    other = Engine(Log, store=store, options=Options(clock=clock)).add("ask", changed).start_at("ask")
    assert not (await other.replay("r1", allow_graph_change=True)).ok


async def test_wait_signal_and_wake_are_events(store: Store) -> None:
    """The emitter sees `wait` when a run begins to wait, `signal` when one is stored, `wake` when woken."""
    em = MemoryEmitter()
    eng = approver(store, Clock())
    eng.emitter = em
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="s1")
    await eng.resume("r1")
    kinds = [e.kind for e in em.events if e.kind in (EventKind.WAIT, EventKind.SIGNAL, EventKind.WAKE)]
    assert kinds == [EventKind.WAIT, EventKind.SIGNAL, EventKind.WAKE]
    wait = next(e for e in em.events if e.kind == EventKind.WAIT)
    assert wait.meta["signal"] == "approved" and wait.step == 1


async def test_otel_records_the_wait_and_the_signal() -> None:
    """Through the real OpenTelemetry SDK: the segment ends `waiting` with a wait event, a signal is a
    span, and the woken segment's span has the wake event."""
    exporter = InMemorySpanExporter()
    provider = TracerProvider()
    provider.add_span_processor(SimpleSpanProcessor(exporter))
    eng = approver(MemoryStore(), Clock())
    eng.emitter = OTelEmitter(provider)
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="s1")
    await eng.resume("r1")
    spans = list(exporter.get_finished_spans())
    runs = [s for s in spans if s.name == "graphengine.run"]
    assert [s.attributes["graphengine.run.status"] for s in runs] == ["waiting", "done"]  # type: ignore[index]
    assert [e.name for e in runs[0].events] == ["graphengine.wait"]
    assert "woken" in [e.name for e in runs[1].events]  # the wake, on the resumed segment's span
    signal = next(s for s in spans if s.name == "graphengine.signal")
    assert signal.attributes is not None
    assert signal.attributes["graphengine.run_id"] == "r1"
    assert signal.attributes["graphengine.signal.id"] == "s1"
    provider.shutdown()


# ------------------------------------------------------------------------------------ edits, forks, views


async def test_an_edit_of_a_waiting_run_keeps_it_waiting_on_the_same_deadline(store: Store) -> None:
    """`update_state` of a sleeping run leaves it waiting; when due its node resumes its own sleep."""
    clock, runs = Clock(), []
    eng = napper(store, clock, runs)
    await eng.run("r1", Log())
    await eng.update_state("r1", Log(log=["edited"]))
    assert await status(eng, "r1") is RunStatus.WAITING
    assert await TimerWaker(eng).tick() == []
    clock.advance(3600)
    assert await eng.resume("r1") == Log(log=["edited", "woke after call 1"])
    assert runs == ["fresh", "prior"]
    assert (await eng.replay("r1")).ok


async def test_a_fork_at_a_waiting_step_runs_its_node_anew() -> None:
    """A fork from the step where a run began to wait does not inherit the wait: its node runs and waits again."""
    clock, runs = Clock(), []
    eng = napper(MemoryStore(), clock, runs)
    await eng.run("r1", Log())
    await eng.fork("r1", "f1", at_step=1)
    assert await status(eng, "f1") is RunStatus.WAITING
    assert runs == ["fresh", "fresh"]


async def test_the_run_path_of_a_waiting_run_points_at_the_node_that_waits() -> None:
    """The drawing's current node of a waiting run is the node it will run when woken."""
    from graphengine.viz import run_path

    eng = napper(MemoryStore(), Clock(), [])
    await eng.run("r1", Log())
    path = await run_path(eng, "r1")
    assert path.status == "waiting" and path.current == "nap"


class _LateSignalStore(MemoryStore):
    """A store where the signal `go` arrives just after the node looked for it (before the run waits)."""

    async def take_signal(self, run_id: str, name: str, step: int) -> Any:
        got = await super().take_signal(run_id, name, step)
        if got is None and not await self.list_signals(run_id):
            from graphengine.store import SignalRecord

            await self.add_signal(SignalRecord(run_id, "late", name, b'{"by": "late"}'))
        return got


async def test_a_signal_landing_while_the_node_decides_to_wait_makes_the_run_due_at_once() -> None:
    """A signal stored between the node's look and the run's `waiting` status is not lost: the run is due now."""
    clock = Clock()
    eng = approver(_LateSignalStore(), clock, timeout=3600)
    await eng.run("r1", Log())
    assert await status(eng, "r1") is RunStatus.WAITING
    timer = await eng.store.get_timer("r1")  # type: ignore[attr-defined]
    assert timer.wake_at == clock.now  # due now, not in an hour
    sched = TimerWaker(eng)
    assert await sched.tick() == ["r1"]
    await sched.drain()
    assert (await eng.get_state("r1")).log == ["approved by late (late)"]


# ------------------------------------------------------- a signal taken by a step that did not succeed


def taker(store: Store, failures: int, **options: Any) -> tuple[Engine[Log], list[str]]:
    """`first` sleeps until a past time (so the run exists for signals); `ask` takes `approved` and
    raises on its first `failures` executions; the list records the signal ids each execution got."""
    got: list[str] = []

    async def ask(ctx: Context, s: Log) -> NodeResult[Log]:
        sig = await ctx.wait_for("approved")
        got.append(sig.id)
        if len(got) <= failures:
            raise ConnectionError(f"failed after taking {sig.id}")
        return NodeResult(delta=Log(log=[f"used {sig.id}"]), route=stop())

    eng = Engine(Log, store=store, options=Options(clock=Clock(), backoff=0.0, **options))
    eng.add("first", lambda ctx, s: NodeResult(route=sleep_until(0.0, then="ask"))).add("ask", ask)
    return eng.start_at("first"), got


async def test_a_signal_taken_by_an_error_routed_step_is_received_again(store: Store) -> None:
    """A node that took a signal and then failed into its error route gives the signal back: the
    node, run again from the handler, receives the same signal, and it ends taken by that step."""
    eng, got = taker(store, failures=1)
    eng.add("fix", lambda ctx, s: NodeResult(delta=Log(log=["fixed"]), route=goto("ask")))
    eng.on_error("ask", "fix")
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="s1")
    final = await eng.resume("r1")
    assert final.log == ["fixed", "used s1"]
    assert got == ["s1", "s1"]
    steps = await eng.history("r1")
    used = next(st.step for st in steps if st.node_id == "ask" and st.error is None)
    assert [(s.id, s.taken_step) for s in await eng.signals("r1")] == [("s1", used)]


async def test_a_signal_taken_by_an_error_routed_step_stays_buffered_for_later(store: Store) -> None:
    """When the error route goes elsewhere, the signal the failed step took is buffered again, not lost."""
    eng, got = taker(store, failures=1)
    eng.add("fix", lambda ctx, s: NodeResult(delta=Log(log=["gave up"]), route=stop()))
    eng.on_error("ask", "fix")
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="s1")
    assert (await eng.resume("r1")).log == ["gave up"]
    assert got == ["s1"]
    assert [(s.id, s.taken_step) for s in await eng.signals("r1")] == [("s1", None)]


async def test_a_retried_node_receives_the_signal_its_failed_attempt_took(store: Store) -> None:
    """With `Options(retries=...)`, the retry of a node that took a signal receives the same one."""
    eng, got = taker(store, failures=2, retries=2)
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="s1")
    await eng.signal("r1", "approved", {"by": "bo"}, id="s2")
    final = await eng.resume("r1")
    assert final.log == ["used s1"]
    assert got == ["s1", "s1", "s1"]
    sigs = [(s.id, s.taken_step) for s in await eng.signals("r1")]
    assert sigs == [("s1", 2), ("s2", None)]


async def test_a_failed_run_resumed_receives_the_signal_its_failed_step_took(store: Store) -> None:
    """A run that failed in a node after it took a signal receives that signal again when resumed."""
    eng, got = taker(store, failures=1)
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="s1")
    with pytest.raises(Exception, match="failed after taking s1"):
        await eng.resume("r1")
    assert await status(eng, "r1") is RunStatus.FAILED
    final = await eng.resume("r1")
    assert final.log == ["used s1"]
    assert got == ["s1", "s1"]
    assert [(s.id, s.taken_step) for s in await eng.signals("r1")] == [("s1", 2)]


# ---------------------------------------------------------------- export and import of a waiting run


def _target(kind: str, tmp_path: Path) -> WaitStore:
    return MemoryStore() if kind == "memory" else SQLiteStore(str(tmp_path / "copy.db"))


def _sigs(sigs: list[Any]) -> list[tuple[Any, ...]]:
    return [(s.signal_id, s.name, json.loads(s.payload), s.ts, s.taken_step) for s in sigs]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_an_imported_sleeping_run_keeps_its_timer_and_signals_and_wakes(
    store: Store, kind: str, tmp_path: Path
) -> None:
    """A sleeping run exported and imported elsewhere keeps its timer and buffered signals, and
    the importing store's timer waker wakes it when due."""
    clock = Clock()
    eng = napper(store, clock, [])
    await eng.run("r1", Log())
    await eng.signal("r1", "note", {"text": "née ✓", "n": [1, 2]}, id="n1")
    lines = await store.export_run("r1")  # type: ignore[attr-defined]
    other = _target(kind, tmp_path)
    assert await other.import_run(lines, run_id="copy") == "copy"  # type: ignore[attr-defined]
    timer = await store.get_timer("r1")  # type: ignore[attr-defined]
    assert await other.get_timer("copy") == TimerRecord("copy", timer.step, timer.wake_at, None)
    assert _sigs(await other.list_signals("copy")) == _sigs(await store.list_signals("r1"))  # type: ignore[attr-defined]
    runs: list[str] = []
    eng2 = napper(other, clock, runs)
    waker = TimerWaker(eng2)
    assert await waker.tick() == []
    clock.advance(3600)
    assert await waker.tick() == ["copy"]
    await waker.drain()
    assert runs == ["prior"]
    assert (await eng2.get_state("copy")).log == ["woke after call 1"]


@pytest.mark.parametrize("kind", ["memory", "sqlite"])
async def test_an_imported_run_due_by_a_signal_wakes_with_it_and_keeps_what_was_taken(
    store: Store, kind: str, tmp_path: Path
) -> None:
    """A run made due by a signal is due in the store it is imported into and receives that signal;
    exported again once done, its signals come back marked taken by the same step."""
    clock = Clock()
    eng = approver(store, clock)
    await eng.run("r1", Log())
    await eng.signal("r1", "approved", {"by": "ana"}, id="hook-1")
    other = _target(kind, tmp_path)
    await other.import_run(await store.export_run("r1"), run_id="copy")  # type: ignore[attr-defined]
    eng2 = approver(other, clock)
    waker = TimerWaker(eng2)
    assert await waker.tick() == ["copy"]
    await waker.drain()
    assert (await eng2.get_state("copy")).log == ["approved by ana (hook-1)"]
    taken = await other.list_signals("copy")
    assert [(s.signal_id, s.taken_step) for s in taken] == [("hook-1", 2)]
    third = MemoryStore()
    await third.import_run(await other.export_run("copy"))  # type: ignore[attr-defined]
    assert _sigs(await third.list_signals("copy")) == _sigs(taken)
