"""Fan-out branches on each of their paths: finishing without awaiting, suspending, failing, retried, cancelled.

Branches that never await run in the fan-out's own task, one after another, and their results are
written in one batch after the last; a branch that awaits lets the others start (up to
`max_concurrency`) and the results that landed are written while it waits. Both paths must be
indistinguishable in what a run stores and returns.
"""

from __future__ import annotations

import asyncio
from typing import Annotated, Any

import pytest
from engine_fixtures import cancel_once_started
from pydantic import BaseModel

from graphengine import (
    Branch,
    Context,
    Engine,
    GraphError,
    NodeError,
    NodeResult,
    NodeReturnTypeError,
    Options,
    append,
    fan_out,
)
from graphengine.emit import EventKind, MemoryEmitter
from graphengine.store import MemoryStore, Store


class M(BaseModel):
    """State of the map fan-outs below: each branch gets its own `item`."""

    out: Annotated[list[int], append] = []
    item: int = 0


def map_graph(
    store: Store, work: Any, k: int, emitter: MemoryEmitter | None = None, **opts: Any
) -> Engine[M]:
    """split -> k map branches of `work` (inputs M(item=0..k-1)) -> join."""
    g = Engine(M, store=store, emitter=emitter, options=Options(**opts))
    g.add(
        "split", lambda c, s: NodeResult(route=fan_out((Branch("w", M(item=i)) for i in range(k)), join="j"))
    )
    g.add("w", work).add("j", lambda c, s: None).start_at("split")
    return g


async def test_suspending_and_non_suspending_branches_store_and_merge_alike(store: Store) -> None:
    """Branches that await and branches that do not land in declared order, each with a stored record."""

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        if s.item % 3 == 1:
            await asyncio.sleep(0.001 * (5 - s.item % 5))
        return NodeResult(delta=M(out=[s.item]))

    g = map_graph(store, work, 12)
    final = await g.run("r", M())
    assert final.out == list(range(12))
    recs = await store.load_branches("r", 2)
    assert [(b.branch, b.attempt) for b in recs] == [(i, 1) for i in range(12)]


async def test_branches_that_never_await_run_in_order_in_the_runs_task(store: Store) -> None:
    """With no await in any branch, every branch runs in the run's own task, in declared order."""
    seen: list[tuple[int, asyncio.Task[Any] | None]] = []

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        seen.append((s.item, asyncio.current_task()))
        return NodeResult(delta=M(out=[s.item]))

    g = map_graph(store, work, 8)
    task = asyncio.ensure_future(g.run("r", M()))
    assert (await task).out == list(range(8))
    assert [i for i, _ in seen] == list(range(8))
    assert {t for _, t in seen} == {task}
    assert [b.branch for b in await store.load_branches("r", 2)] == list(range(8))


@pytest.mark.parametrize("where", ["before", "after"])
async def test_a_branch_failing_before_or_after_its_first_await_is_named(store: Store, where: str) -> None:
    """The fan-out's NodeError names the failing branch and node, whether it raised before or after awaiting."""

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        if s.item == 2 and where == "before":
            raise ValueError("bad item 2")
        await asyncio.sleep(0)
        if s.item == 2:
            raise ValueError("bad item 2")
        return NodeResult(delta=M(out=[s.item]))

    g = map_graph(store, work, 4)
    with pytest.raises(NodeError, match=r"branch 2 \(node 'w'\) raised ValueError\('bad item 2'\)") as ei:
        await g.run("r", M())
    assert (ei.value.branch, ei.value.node_id, ei.value.attempts) == (2, "w", 1)
    assert isinstance(ei.value.__cause__, ValueError)


async def test_a_branch_failing_its_first_attempt_is_retried_on_the_same_input(store: Store) -> None:
    """A retried branch gets the same input again, reports a retry event and stores its attempt count."""
    attempts: list[tuple[int, int]] = []

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        attempts.append((s.item, ctx.attempt))
        if s.item == 1 and ctx.attempt == 1:
            raise ConnectionError("flaky")
        if s.item == 2 and ctx.attempt == 1:
            return NodeResult(err=ConnectionError("flaky too"))
        return NodeResult(delta=M(out=[s.item]))

    em = MemoryEmitter()
    g = map_graph(store, work, 3, em, retries=2)
    assert (await g.run("r", M())).out == [0, 1, 2]
    assert sorted(attempts) == [(0, 1), (1, 1), (1, 2), (2, 1), (2, 2)]
    assert [b.attempt for b in await store.load_branches("r", 2)] == [1, 2, 2]
    assert sorted(e.meta["branch"] for e in em.of_kind(EventKind.RETRY)) == [1, 2]


async def test_a_branch_returning_a_wrong_type_fails_at_once(store: Store) -> None:
    """A bad return value is an engine error: not retried, raised as it is."""
    calls: list[int] = []

    async def work(ctx: Context, s: M) -> Any:
        calls.append(ctx.attempt)
        return "not a result"

    g = map_graph(store, work, 1, retries=3)
    with pytest.raises(NodeReturnTypeError, match="returned str"):
        await g.run("r", M())
    assert calls == [1]


async def test_an_interrupt_inside_a_branch_is_refused(store: Store) -> None:
    """ctx.interrupt in a branch fails the fan-out with an error saying where to interrupt instead."""

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        ctx.interrupt("approve?")
        return NodeResult()

    g = map_graph(store, work, 2)
    with pytest.raises(GraphError, match="interrupts are not supported inside fan-out branches"):
        await g.run("r", M())


async def test_sync_branches_and_branches_with_a_timeout_take_their_own_paths(store: Store) -> None:
    """A sync branch node and an async one with a timeout merge like any other; the timeout is enforced."""

    def sync_work(ctx: Context, s: M) -> NodeResult[M]:
        return NodeResult(delta=M(out=[s.item]))

    assert (await map_graph(store, sync_work, 5).run("r", M())).out == list(range(5))

    async def slow(ctx: Context, s: M) -> NodeResult[M]:
        await asyncio.sleep(0.5 if s.item == 1 else 0)
        return NodeResult(delta=M(out=[s.item]))

    g = map_graph(store, slow, 3, timeout=0.05)
    with pytest.raises(NodeError, match=r"branch 1 \(node 'w'\) timed out"):
        await g.run("t", M())
    assert [b.branch for b in await store.load_branches("t", 2)] == [0, 2]


async def test_max_concurrency_holds_when_branches_suspend_after_inline_ones(store: Store) -> None:
    """Branches that finished without awaiting do not count; those that await never exceed the bound."""
    running = 0
    peak = 0

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        nonlocal running, peak
        if s.item % 2 == 0:
            return NodeResult(delta=M(out=[s.item]))
        running += 1
        peak = max(peak, running)
        await asyncio.sleep(0.002)
        running -= 1
        return NodeResult(delta=M(out=[s.item]))

    for bound in (1, 2, 4):
        g = map_graph(store, work, 24, max_concurrency=bound)
        assert (await g.run(f"r{bound}", M())).out == list(range(24))
        assert peak == bound
        peak = 0


async def test_cancelling_a_fan_out_keeps_the_branches_that_landed(store: Store) -> None:
    """Cancelled while a branch waits, the run stores the branches that finished; resume runs only the rest."""
    ran: list[int] = []
    started = asyncio.Event()
    gate = {"block": True}

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        if s.item == 2 and gate["block"]:
            started.set()
            await asyncio.sleep(30)
        ran.append(s.item)
        return NodeResult(delta=M(out=[s.item]))

    g = map_graph(store, work, 4, max_concurrency=1)
    await cancel_once_started(g, M(), started)
    assert [b.branch for b in await store.load_branches("r", 2)] == [0, 1]
    gate["block"] = False
    ran.clear()
    assert (await g.resume("r")).out == [0, 1, 2, 3]
    assert ran == [2, 3]


async def test_cancelling_a_fan_out_cancels_its_waiting_helpers() -> None:
    """No branch of a cancelled fan-out keeps running in a helper task."""
    started = 0
    all_started = asyncio.Event()
    finished: list[int] = []

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        nonlocal started
        started += 1
        if started == 3:
            all_started.set()
        await asyncio.sleep(30)
        finished.append(s.item)
        return NodeResult()

    g = map_graph(MemoryStore(), work, 3)
    task = asyncio.create_task(g.run("r", M()))
    await all_started.wait()
    before = asyncio.all_tasks()
    task.cancel()
    with pytest.raises(asyncio.CancelledError):
        await task
    await asyncio.sleep(0)
    assert all(t.done() for t in before if t is not asyncio.current_task())
    assert finished == []


class FailingStore(MemoryStore):
    """A `MemoryStore` whose first `save_branches` fails."""

    def __init__(self) -> None:
        super().__init__()
        self.failed = False

    async def save_branches(self, recs: Any) -> None:
        """Fail once, then store as usual."""
        if not self.failed:
            self.failed = True
            raise OSError("disk full")
        await super().save_branches(recs)


@pytest.mark.parametrize("awaits", [False, True])
async def test_a_failed_branch_write_fails_the_fan_out(awaits: bool) -> None:
    """A store error writing landed branches is raised, even when later writes succeed."""

    async def work(ctx: Context, s: M) -> NodeResult[M]:
        if awaits:
            await asyncio.sleep(0.001 * s.item)
        return NodeResult(delta=M(out=[s.item]))

    store = FailingStore()
    with pytest.raises(OSError, match="disk full"):
        await map_graph(store, work, 6).run("r", M())
