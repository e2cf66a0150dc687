"""`Engine.stream` / `stream_resume`: events as they happen, in order, bounded, scoped to one run."""

from __future__ import annotations

import asyncio
from pathlib import Path
from typing import Annotated, Any

import pytest
from pydantic import BaseModel

from graphengine import (
    FAN_OUT_NODE,
    Context,
    Engine,
    NodeError,
    NodeResult,
    Options,
    append,
    fan_out,
    goto,
    interrupt,
    stop,
)
from graphengine._stream import STEP
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.store import MemoryStore, RunStatus, SQLiteStore, Store


class Acc(BaseModel):
    """A counter and an append-only log."""

    n: int = 0
    log: Annotated[list[str], append] = []


def counter(store: Store | None = None, *, upto: int = 3, **kw: Any) -> Engine[Acc]:
    """inc -> check -> inc ... until n reaches `upto`."""
    g = Engine(Acc, store=store or MemoryStore(), options=Options(max_steps=1000), **kw)

    async def inc(ctx: Context, s: Acc) -> NodeResult[Acc]:
        return NodeResult(delta=Acc(n=s.n + 1, log=[f"inc{s.n + 1}"]))

    def check(ctx: Context, s: Acc) -> NodeResult[Acc]:
        return NodeResult(route=stop() if s.n >= upto else goto("inc"))

    g.add("inc", inc).add("check", check).start_at("inc").connect("inc", "check")
    return g


async def test_stream_yields_the_runs_events_in_order_with_deltas() -> None:
    """The stream yields exactly the engine's events, in emission order; node ends carry the delta."""
    em = MemoryEmitter()
    g = counter(emitter=em)
    s = g.stream("r", Acc())
    events = await s.collect()
    engine_events = [e for e in events if e.kind != STEP]
    assert [(e.kind, e.step, e.node_id) for e in engine_events] == [
        (e.kind, e.step, e.node_id) for e in em.events
    ]
    ends = [e for e in events if e.kind == EventKind.NODE_END]
    assert [e.meta["delta"] for e in ends if e.node_id == "inc"] == [
        Acc(n=1, log=["inc1"]),
        Acc(n=2, log=["inc2"]),
        Acc(n=3, log=["inc3"]),
    ]
    assert s.result == Acc(n=3, log=["inc1", "inc2", "inc3"])
    assert events[0].kind == EventKind.RUN_START and events[-1].kind == EventKind.RUN_END


async def test_step_events_follow_each_commit_with_the_state_when_asked() -> None:
    """With states=True each committed step yields a `step` event with the state after it."""
    g = counter()
    events = [e async for e in g.stream("r", Acc(), states=True)]
    steps = [e for e in events if e.kind == STEP]
    assert [e.step for e in steps] == [1, 2, 3, 4, 5, 6]
    assert [e.meta["state"].n for e in steps] == [1, 1, 2, 2, 3, 3]
    assert steps[-1].meta["state"] == await g.get_state("r")
    assert repr(steps[-1].meta["route"]) == "stop()"
    kinds = [str(e.kind) for e in events]
    assert kinds[1:4] == ["node_start", "step", "node_end"]


async def test_without_states_step_events_have_no_state() -> None:
    """States are decoded and folded only when asked for."""
    events = await counter().stream("r", Acc()).collect()
    assert all("state" not in e.meta for e in events if e.kind == STEP)


async def test_fan_out_branches_stream_and_the_merge_lists_branch_deltas() -> None:
    """Branch start/end events stream with their index; the fan-out commit lists the branch deltas in order."""

    async def leaf(ctx: Context, s: Acc) -> NodeResult[Acc]:
        await asyncio.sleep(0.002 * (3 - (ctx.branch or 0)))
        return NodeResult(delta=Acc(log=[f"leaf{ctx.branch}"]))

    g = Engine(Acc, options=Options(max_concurrency=3))
    g.add("split", lambda ctx, s: NodeResult(route=fan_out(["leaf"] * 3, join="join")))
    g.add("leaf", leaf).add("join", lambda ctx, s: NodeResult(route=stop())).start_at("split")
    events = await g.stream("r", Acc(), states=True).collect()
    branch_ends = [e for e in events if e.kind == EventKind.NODE_END and "branch" in e.meta]
    assert sorted(e.meta["branch"] for e in branch_ends) == [0, 1, 2]
    (merge,) = [e for e in events if e.kind == STEP and e.node_id == FAN_OUT_NODE]
    assert [d.log for d in merge.meta["branches"]] == [["leaf0"], ["leaf1"], ["leaf2"]]
    assert merge.meta["state"].log == ["leaf0", "leaf1", "leaf2"]


async def test_interrupt_ends_the_stream_and_stream_resume_continues() -> None:
    """An interrupt is yielded and ends the stream; `stream_resume(input=...)` streams the rest."""

    def ask(ctx: Context, s: Acc) -> NodeResult[Acc]:
        if not ctx.resumed:
            return NodeResult(route=interrupt({"q": "name?"}))
        return NodeResult(delta=Acc(log=[str(ctx.resume_input)]), route=goto("bye"))

    g = Engine(Acc).add("ask", ask).add("bye", lambda ctx, s: NodeResult(delta=Acc(log=["bye"])))
    g.start_at("ask")
    first = await g.stream("r", Acc()).collect()
    assert first[-1].kind == EventKind.INTERRUPT and first[-1].meta["payload"] == {"q": "name?"}
    s = g.stream_resume("r", input="ada", states=True)
    second = await s.collect()
    assert second[0].kind == EventKind.RUN_RESUME
    assert [e.meta["state"].log for e in second if e.kind == STEP] == [["ada"], ["ada", "bye"]]
    assert s.result == Acc(log=["ada", "bye"])


async def test_a_failure_is_yielded_then_raised() -> None:
    """A failing run yields its error event, then the iteration raises the run's exception."""

    async def bad(ctx: Context, s: Acc) -> NodeResult[Acc]:
        raise ValueError("bad input")

    g = Engine(Acc).add("bad", bad).start_at("bad")
    seen: list[str] = []

    async def read() -> None:
        async for e in g.stream("r", Acc()):
            seen.append(str(e.kind))

    with pytest.raises(NodeError, match="bad input"):
        await read()
    assert seen[-1] == "error"


async def test_concurrent_streams_see_only_their_own_run() -> None:
    """Two runs streamed at once on one engine never see each other's events."""
    g = counter(upto=20)
    a, b = await asyncio.gather(g.stream("a", Acc()).collect(), g.stream("b", Acc()).collect())
    assert {e.run_id for e in a} == {"a"} and {e.run_id for e in b} == {"b"}
    assert len(a) == len(b)


async def test_unstreamed_runs_of_the_engine_are_not_affected() -> None:
    """The engine's emitter gets streamed and plain runs alike; a plain run leaks into no stream."""
    em = MemoryEmitter()
    g = counter(upto=5, emitter=em)
    streamed, _ = await asyncio.gather(g.stream("s", Acc()).collect(), g.run("plain", Acc()))
    assert {e.run_id for e in streamed} == {"s"}
    assert {e.run_id for e in em.events} == {"s", "plain"}


async def test_a_slow_consumer_pauses_the_run_without_losing_events() -> None:
    """With a small buffer, the run waits for a slow reader at commits; every event still arrives in order."""
    store = MemoryStore()
    g = counter(store, upto=60)
    s = g.stream("r", Acc(), max_buffer=4)
    got: list[Any] = []
    lag: list[int] = []
    async for e in s:
        got.append(e)
        if len(got) % 10 == 0:
            await asyncio.sleep(0.005)  # let the run go as far as the bound allows
            committed = len(await store.load_steps("r"))
            lag.append(committed - e.step)
    assert max(lag) <= 4  # never more than the bound (plus the step in flight) ahead of the reader
    steps = [e.step for e in got if e.kind == STEP]
    assert steps == list(range(1, 121))
    assert s.result is not None and s.result.n == 60


async def test_leaving_the_stream_early_cancels_the_run() -> None:
    """Breaking out of the stream cancels the run; it stays resumable."""
    g = counter(upto=100)
    async with g.stream("r", Acc(), max_buffer=2) as s:
        async for e in s:
            if e.kind == STEP and e.step >= 5:
                break
    run = await g.get_run("r")
    assert run.status is RunStatus.CANCELLED
    done = await g.resume("r")
    assert done.n == 100


async def test_stream_on_sqlite_matches_history(tmp_path: Path) -> None:
    """On a real SQLite store, the streamed states are the states `history` returns."""
    async with SQLiteStore(tmp_path / "s.db") as store:
        g = counter(store, upto=4)
        streamed = [
            e.meta["state"] for e in await g.stream("r", Acc(), states=True).collect() if e.kind == STEP
        ]
        assert streamed == [v.state for v in await g.history("r")]


async def test_events_from_a_threaded_node_arrive() -> None:
    """Custom events emitted from a node running in a thread are delivered in order."""

    def work(ctx: Context, s: Acc) -> NodeResult[Acc]:
        for i in range(3):
            ctx.emit(f"tick{i}")
        return NodeResult()

    g = Engine(Acc).add("work", work, thread=True).start_at("work")
    events = await g.stream("r", Acc()).collect()
    assert [e.msg for e in events if e.kind == EventKind.CUSTOM] == ["tick0", "tick1", "tick2"]
