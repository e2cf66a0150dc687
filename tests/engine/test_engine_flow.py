"""Flow control: fan-out and join, map branches, subgraphs, interrupts, error routes, retry_on, cancellation."""

from __future__ import annotations

import asyncio
import random
from pathlib import Path
from typing import Any

import pytest
from engine_fixtures import Trail, cancel_once_started
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st
from pydantic import BaseModel

from graphengine import (
    FAN_OUT_NODE,
    Branch,
    Context,
    Engine,
    GraphValidationError,
    NodeError,
    NodeResult,
    Options,
    UnknownNodeError,
    fan_out,
    goto,
    interrupt,
    stop,
)
from graphengine.store import MemoryStore, RunStatus, Store


def tag(name: str, delay: float = 0.0) -> Any:
    """A node that appends its name (after an optional sleep)."""

    async def fn(ctx: Context, s: Trail) -> NodeResult[Trail]:
        if delay:
            await asyncio.sleep(delay)
        return NodeResult(delta=Trail(log=[name]))

    return fn


def fan_graph(store: Store, delays: dict[str, float] | None = None, **opts: Any) -> Engine[Trail]:
    """start -> fan_out(a, b, c) -> merge."""
    d = delays or {}
    g = Engine(Trail, store=store, options=Options(**opts))
    g.add(
        "start",
        lambda ctx, s: NodeResult(delta=Trail(log=["start"]), route=fan_out(["a", "b", "c"], join="merge")),
    )
    for n in "abc":
        g.add(n, tag(n, d.get(n, 0.0)))
    g.add("merge", tag("merge"))
    g.start_at("start")
    return g


async def test_fan_out_merges_in_declared_order_whatever_finishes_first(store: Store) -> None:
    """Branch deltas merge in declared order even when c finishes before a."""
    g = fan_graph(store, {"a": 0.03, "b": 0.01, "c": 0.0})
    final = await g.run("r", Trail())
    assert final.log == ["start", "a", "b", "c", "merge"]
    steps = await g.history("r")
    assert [s.node_id for s in steps] == ["start", FAN_OUT_NODE, "merge"]
    assert steps[1].route == goto("merge")
    branches = await store.load_branches("r", 2)
    assert [(b.branch, b.node_id) for b in branches] == [(0, "a"), (1, "b"), (2, "c")]


async def test_static_fan_out_edge(store: Store) -> None:
    """connect(src, [a, b], join=...) fans out without the node routing."""
    g = Engine(Trail, store=store)
    g.add("start", tag("start")).add("a", tag("a")).add("b", tag("b")).add("j", tag("j"))
    g.start_at("start").connect("start", ["a", "b"], join="j")
    assert (await g.run("r", Trail())).log == ["start", "a", "b", "j"]


def test_fan_out_without_join_is_a_validation_error() -> None:
    """A static fan-out needs a join, and the join must be a node."""
    g = Engine(Trail).add("s", tag("s")).add("a", tag("a"))
    with pytest.raises(GraphValidationError, match="join"):
        g.connect("s", ["a"])  # type: ignore[call-overload]
    g.connect("s", ["a"], join="nowhere").start_at("s")
    with pytest.raises(UnknownNodeError, match="'nowhere'"):
        g.validate()
    with pytest.raises(ValueError, match="join"):
        fan_out(["a"], join="")


async def test_dynamic_fan_out_to_unknown_join_is_named(store: Store) -> None:
    """A node fanning out to a join that does not exist fails with UnknownNodeError before anything runs."""
    g = (
        Engine(Trail, store=store)
        .add("s", lambda c, s: NodeResult(route=fan_out(["s"], join="ghost")))
        .start_at("s")
    )
    with pytest.raises(UnknownNodeError, match="'ghost'"):
        await g.run("r", Trail())


async def test_map_branches_run_one_node_over_many_inputs(store: Store) -> None:
    """Branch(node, input=...) sends each branch its own state, like LangGraph's Send."""

    async def square(ctx: Context, s: Trail) -> NodeResult[Trail]:
        await asyncio.sleep(random.random() / 100)
        return NodeResult(delta=Trail(log=[f"{s.item}^2={s.item**2}"]))

    g = Engine(Trail, store=store)
    g.add(
        "split",
        lambda c, s: NodeResult(route=fan_out((Branch("sq", Trail(item=i)) for i in range(5)), join="done")),
    )
    g.add("sq", square).add("done", tag("done")).start_at("split")
    final = await g.run("r", Trail())
    assert final.log == [f"{i}^2={i * i}" for i in range(5)] + ["done"]


async def test_max_concurrency_bounds_running_branches(store: Store) -> None:
    """No more than max_concurrency branches run at once."""
    running = 0
    peak = 0

    async def work(ctx: Context, s: Trail) -> NodeResult[Trail]:
        nonlocal running, peak
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.001)
        running -= 1
        return NodeResult(delta=Trail(log=[str(s.item)]))

    g = Engine(Trail, store=store, options=Options(max_concurrency=3))
    g.add(
        "split",
        lambda c, s: NodeResult(route=fan_out((Branch("w", Trail(item=i)) for i in range(20)), join="j")),
    )
    g.add("w", work).add("j", tag("j")).start_at("split")
    final = await g.run("r", Trail())
    assert peak == 3
    assert final.log == [str(i) for i in range(20)] + ["j"]


async def test_failed_branch_fails_the_fan_out_and_resume_reruns_only_missing(store: Store) -> None:
    """Finished branches are persisted; after a fix, resume re-runs only the failed and missing ones."""
    ran: list[str] = []
    broken = {"b": True}

    def node(name: str, delay: float) -> Any:
        async def fn(ctx: Context, s: Trail) -> NodeResult[Trail]:
            await asyncio.sleep(delay)
            if broken.get(name):
                raise RuntimeError(f"{name} is down")
            ran.append(name)
            return NodeResult(delta=Trail(log=[name]))

        return fn

    g = Engine(Trail, store=store, options=Options(retries=1))
    g.add("start", lambda c, s: NodeResult(route=fan_out(["a", "b", "c"], join="j")))
    g.add("a", node("a", 0.0)).add("b", node("b", 0.01)).add("c", node("c", 0.0)).add("j", tag("j"))
    g.start_at("start")
    with pytest.raises(NodeError, match="b is down") as ei:
        await g.run("r", Trail())
    assert ei.value.branch == 1
    assert ei.value.node_id == "b"
    assert ei.value.attempts == 2
    landed = {b.node_id for b in await store.load_branches("r", 2)}
    assert landed == {"a", "c"}
    broken["b"] = False
    ran.clear()
    final = await g.resume("r")
    assert ran == ["b"]
    assert final.log == ["a", "b", "c", "j"]


@settings(max_examples=15, deadline=None, suppress_health_check=[HealthCheck.function_scoped_fixture])
@given(
    delays=st.lists(st.floats(min_value=0, max_value=0.004), min_size=2, max_size=6), seed=st.integers(0, 99)
)
async def test_fan_out_is_deterministic_whatever_the_completion_order(delays: list[float], seed: int) -> None:
    """Same input, random branch timings: same final state and same step records every time."""

    async def work(ctx: Context, s: Trail) -> NodeResult[Trail]:
        await asyncio.sleep(delays[s.item])
        return NodeResult(delta=Trail(log=[f"b{s.item}"], item=s.item))

    async def once(delay_scale: float) -> tuple[Trail, list[tuple[int, str, bytes | None, str]]]:
        store = MemoryStore()
        g = Engine(Trail, store=store, options=Options(max_concurrency=1 + seed % 4))
        n = len(delays)
        g.add(
            "split",
            lambda c, s: NodeResult(route=fan_out((Branch("w", Trail(item=i)) for i in range(n)), join="j")),
        )
        g.add("w", work).add("j", tag("j")).start_at("split")
        final = await g.run("r", Trail())
        recs = [(r.step, r.node_id, r.delta, r.route) for r in await store.load_steps("r")]
        return final, recs

    a = await once(1.0)
    delays.reverse()
    b = await once(1.0)
    assert a[1] == b[1]
    assert a[0].log == b[0].log == [f"b{i}" for i in range(len(delays))] + ["j"]


async def test_node_interrupt_pauses_and_resume_hands_over_the_input(store: Store, tmp_path: Path) -> None:
    """route=interrupt(payload) stops the run (no exception); resume(input=...) reruns the node with it."""

    async def ask(ctx: Context, s: Trail) -> NodeResult[Trail]:
        if not ctx.resumed:
            return NodeResult(delta=Trail(log=["asked"]), route=interrupt({"question": "approve?"}))
        return NodeResult(delta=Trail(log=[f"answer={ctx.resume_input}"]), route=goto("after"))

    def build(st: Store) -> Engine[Trail]:
        return Engine(Trail, store=st).add("ask", ask).add("after", tag("after")).start_at("ask")

    g = build(store)
    state = await g.run("r", Trail())
    assert state.log == ["asked"]
    assert (await g.get_run("r")).status is RunStatus.INTERRUPTED
    pending = await g.get_interrupt("r")
    assert pending is not None
    assert (pending.node_id, pending.payload, pending.before) == ("ask", {"question": "approve?"}, False)
    assert (await g.history("r"))[-1].route.payload == {"question": "approve?"}
    final = await build(store).resume("r", input="yes")
    assert final.log == ["asked", "answer=yes", "after"]
    assert (await g.get_run("r")).status is RunStatus.DONE
    assert await g.get_interrupt("r") is None


async def test_ctx_interrupt_returns_the_input_on_resume(store: Store) -> None:
    """ctx.interrupt(payload) pauses; on resume the same call returns the input."""

    async def approve(ctx: Context, s: Trail) -> NodeResult[Trail]:
        answer = ctx.interrupt({"amount": 100})
        return NodeResult(delta=Trail(log=[f"approved={answer}"]))

    g = Engine(Trail, store=store).add("approve", approve).start_at("approve")
    assert (await g.run("r", Trail())).log == []
    pending = await g.get_interrupt("r")
    assert pending is not None
    assert pending.payload == {"amount": 100}
    assert (await g.resume("r", input=True)).log == ["approved=True"]


async def test_interrupt_before_pauses_until_resumed(store: Store) -> None:
    """interrupt_before=True stops before the node runs; resume runs it once."""
    ran: list[str] = []

    async def pay(ctx: Context, s: Trail) -> NodeResult[Trail]:
        ran.append(f"pay:{ctx.resume_input}")
        return NodeResult(delta=Trail(log=["paid"]))

    g = Engine(Trail, store=store).add("prep", tag("prep")).add("pay", pay, interrupt_before=True)
    g.start_at("prep").connect("prep", "pay")
    assert (await g.run("r", Trail())).log == ["prep"]
    assert ran == []
    pending = await g.get_interrupt("r")
    assert pending is not None
    assert (pending.node_id, pending.before) == ("pay", True)
    assert (await g.resume("r", input="ok")).log == ["prep", "paid"]
    assert ran == ["pay:ok"]


async def test_error_route_records_the_error_and_sets_last_error(store: Store) -> None:
    """After its retries a failing node goes to its handler; last_error is set and recorded on the run."""

    async def bad(ctx: Context, s: Trail) -> NodeResult[Trail]:
        raise ConnectionError("api down")

    async def handler(ctx: Context, s: Trail) -> NodeResult[Trail]:
        return NodeResult(delta=Trail(log=[f"handled:{s.last_error}"]))

    g = Engine(Trail, store=store, options=Options(retries=1))
    g.add("bad", bad).add("fix", handler).start_at("bad").on_error("bad", "fix")
    final = await g.run("r", Trail())
    assert final.last_error == "ConnectionError: api down"
    assert final.log == ["handled:ConnectionError: api down"]
    steps = await g.history("r")
    assert steps[0].error == "ConnectionError: api down"
    assert steps[0].attempt == 2
    rec = await g.get_run("r")
    assert rec.status is RunStatus.DONE
    assert rec.error == "ConnectionError: api down"


async def test_graph_wide_error_route_catches_any_node(store: Store) -> None:
    """on_error(None, handler) covers every node without its own route."""
    g = Engine(Trail, store=store)
    g.add("x", lambda c, s: NodeResult(err=ValueError("bad x"))).add("h", tag("h")).start_at("x").on_error(
        None, "h"
    )
    assert (await g.run("r", Trail())).log == ["h"]


async def test_non_retryable_exceptions_fail_at_once(store: Store) -> None:
    """retry_on limits which exceptions are retried; others fail on the first attempt."""
    attempts: list[int] = []

    async def bad(ctx: Context, s: Trail) -> NodeResult[Trail]:
        attempts.append(ctx.attempt)
        raise KeyError("config")

    g = Engine(Trail, store=store, options=Options(retries=3, retry_on=(ConnectionError,)))
    g.add("bad", bad).start_at("bad")
    with pytest.raises(NodeError, match="not retryable"):
        await g.run("r", Trail())
    assert attempts == [1]


async def test_cancelling_the_task_marks_the_run_cancelled_and_resume_continues(store: Store) -> None:
    """Cancelling run()'s task stops it at the current node; status is cancelled; resume finishes it."""
    started = asyncio.Event()
    gate = {"block": True}

    async def slow(ctx: Context, s: Trail) -> NodeResult[Trail]:
        if gate["block"]:
            started.set()
            await asyncio.sleep(30)
        return NodeResult(delta=Trail(log=["slow"]))

    g = Engine(Trail, store=store).add("a", tag("a")).add("slow", slow).start_at("a").connect("a", "slow")
    await cancel_once_started(g, Trail(), started)
    gate["block"] = False
    assert (await g.resume("r")).log == ["a", "slow"]


class Sub(BaseModel):
    """A subgraph's own state."""

    q: str = ""
    hits: int = 0


async def test_subgraph_with_its_own_state_type(store: Store) -> None:
    """An engine added as a node runs as a child run, mapped in and out."""
    child = Engine(Sub, store=store)
    child.add("search", lambda c, s: NodeResult(delta=Sub(hits=len(s.q))), thread=False).start_at("search")
    g = Engine(Trail, store=store)
    g.add(
        "research",
        child,
        state_in=lambda s: Sub(q="x" * s.item),
        state_out=lambda s, c: Trail(log=[f"hits={c.hits}"]),
    )
    g.add("end", tag("end")).start_at("research").connect("research", "end")
    final = await g.run("r", Trail(item=4))
    assert final.log == ["hits=4", "end"]
    assert (await child.get_run("r/research/1")).status is RunStatus.DONE


async def test_subgraph_of_the_same_type_replaces_the_state(store: Store) -> None:
    """A same-type subgraph without mapping hands its final state back, without duplicating appends."""
    child = (
        Engine(Trail, store=store)
        .add("c1", tag("c1"))
        .add("c2", tag("c2"))
        .start_at("c1")
        .connect("c1", "c2")
    )
    g = Engine(Trail, store=store).add("p", tag("p")).add("sub", child).add("q", tag("q"))
    g.start_at("p").connect("p", "sub").connect("sub", "q")
    final = await g.run("r", Trail())
    assert final.log == ["p", "c1", "c2", "q"]
    assert await g.get_state("r") == final


async def test_interrupt_inside_a_subgraph_pauses_the_parent(store: Store) -> None:
    """The child's interrupt surfaces on the parent; resuming the parent resumes the child with the input."""

    async def ask(ctx: Context, s: Trail) -> NodeResult[Trail]:
        return NodeResult(delta=Trail(log=[f"got={ctx.interrupt('name?')}"]))

    child = Engine(Trail, store=store).add("ask", ask).start_at("ask")
    g = (
        Engine(Trail, store=store)
        .add("sub", child)
        .add("end", tag("end"))
        .start_at("sub")
        .connect("sub", "end")
    )
    await g.run("r", Trail())
    pending = await g.get_interrupt("r")
    assert pending is not None
    assert pending.payload == {"subgraph": "r/sub/1", "payload": "name?"}
    assert (await g.resume("r", input="ada")).log == ["got=ada", "end"]


def test_subgraph_with_another_state_type_needs_mapping() -> None:
    """Adding an engine of another state type without state_in is refused with a hint."""
    child = Engine(Sub).add("x", lambda c, s: NodeResult()).start_at("x")
    with pytest.raises(GraphValidationError, match="state_in"):
        Engine(Trail).add("sub", child)


async def test_stop_route_ends_a_fan_out_join_chain(store: Store) -> None:
    """A join node can stop the run; the final state is stored as a snapshot."""
    g = fan_graph(store)
    await g.run("r", Trail())
    latest = await store.load_latest("r")
    assert latest is not None
    assert latest.last is not None
    assert latest.last.route == '{"stop":true}'
    _ = stop
