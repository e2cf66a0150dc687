"""Durability: recorded side effects, replay with divergence reports, fork, graph fingerprints, compact storage, export."""

from __future__ import annotations

import random
import time
from typing import Annotated, Any

import pytest
from engine_fixtures import Trail
from pydantic import BaseModel

from graphengine import (
    Branch,
    Context,
    Engine,
    GraphChangedError,
    NodeResult,
    Options,
    ToolCallError,
    append,
    fan_out,
    goto,
    interrupt,
    stop,
)
from graphengine.store import CorruptRecordError, MemoryStore, RunStatus, Store
from graphengine.testing import assert_replays


class Counter:
    """A tool that counts its calls (so tests can prove replay never calls it)."""

    name = "counter"

    def __init__(self) -> None:
        self.calls = 0

    async def call(self, ctx: Context, input: Any) -> dict[str, Any]:
        self.calls += 1
        return {"echo": input, "seq": self.calls}


def looping(store: Store, tool: Counter, *, clock: bool = False) -> Engine[Trail]:
    """A loop whose node calls a tool and (optionally) reads the clock."""

    async def work(ctx: Context, s: Trail) -> NodeResult[Trail]:
        out = await ctx.call(tool, {"n": s.n})
        note = str(time.perf_counter_ns()) if clock else f"seq{out['seq']}"
        return NodeResult(delta=Trail(log=[note], n=s.n + 1), route=stop() if s.n >= 3 else goto("work"))

    return Engine(Trail, store=store).add("work", work).start_at("work")


async def test_tool_results_are_recorded_and_replay_never_calls_the_tool(store: Store) -> None:
    """ctx.call results land in the step record; a deterministic graph replays clean without tool calls."""
    tool = Counter()
    g = looping(store, tool)
    final = await g.run("r", Trail())
    assert final.log == ["seq1", "seq2", "seq3", "seq4"]
    assert tool.calls == 4
    report = await assert_replays(g, "r")
    assert report.ok
    assert report.steps == 4
    assert tool.calls == 4


async def test_replay_catches_a_clock_reading_node_with_paths_and_values(store: Store) -> None:
    """A node that reads the clock diverges at step 1, naming the field path and both values."""
    g = looping(store, Counter(), clock=True)
    await g.run("r", Trail())
    report = await g.replay("r")
    assert not report.ok
    (d,) = report.divergences
    assert (d.step, d.node_id, d.field, d.path) == (1, "work", "delta", "log[0]")
    assert d.recorded != d.replayed
    with pytest.raises(AssertionError, match="diverges at step 1"):
        await assert_replays(g, "r")


async def test_replay_catches_random_routes(store: Store) -> None:
    """A node choosing its route at random is caught when the route differs."""
    rng = random.Random(1)

    def pick(ctx: Context, s: Trail) -> NodeResult[Trail]:
        return NodeResult(delta=Trail(n=s.n + 1), route=stop() if s.n >= 5 else goto(rng.choice(["a", "b"])))

    g = Engine(Trail, store=store).add("a", pick).add("b", pick).start_at("a")
    await g.run("r", Trail())
    report = await g.replay("r")
    assert not report.ok
    assert report.divergences[0].field == "route"
    assert report.divergences[0].path == "goto"


async def test_replay_serves_tool_calls_in_fan_out_branches(store: Store) -> None:
    """Branches' tool calls are recorded with their branch results and replayed from them."""
    tool = Counter()

    async def worker(ctx: Context, s: Trail) -> NodeResult[Trail]:
        out = await ctx.call(tool, s.n)
        return NodeResult(delta=Trail(log=[f"{s.n}:{out['echo']}"]))

    g = Engine(Trail, store=store)
    g.add(
        "split", lambda c, s: NodeResult(route=fan_out((Branch("w", Trail(n=i)) for i in range(4)), join="j"))
    )
    g.add("w", worker).add("j", lambda c, s: NodeResult(delta=Trail(note="joined"))).start_at("split")
    final = await g.run("r", Trail())
    assert final.log == ["0:0", "1:1", "2:2", "3:3"]
    await assert_replays(g, "r")
    assert tool.calls == 4


async def test_replay_covers_interrupts_and_error_routes(store: Store) -> None:
    """Resume inputs are served from the record; an error-routed step must fail again on replay."""

    async def ask(ctx: Context, s: Trail) -> NodeResult[Trail]:
        return NodeResult(delta=Trail(note=str(ctx.interrupt("name?"))))

    async def flaky(ctx: Context, s: Trail) -> NodeResult[Trail]:
        raise ConnectionError("down")

    g = (
        Engine(Trail, store=store)
        .add("ask", ask)
        .add("flaky", flaky)
        .add("handle", lambda c, s: NodeResult())
    )
    g.start_at("ask").connect("ask", "flaky").on_error("flaky", "handle")
    await g.run("r", Trail())
    final = await g.resume("r", input="ada")
    assert final.note == "ada"
    assert final.last_error == "ConnectionError: down"
    await assert_replays(g, "r")


async def test_failing_tool_calls_are_recorded_and_replayed(store: Store) -> None:
    """A tool that raises gives ToolCallError live and on replay, without being called again."""
    calls: list[int] = []

    def boom(x: int) -> int:
        calls.append(x)
        raise TimeoutError("slow upstream")

    async def node(ctx: Context, s: Trail) -> NodeResult[Trail]:
        try:
            await ctx.call(boom, 1, name="boom")
        except ToolCallError as exc:
            return NodeResult(delta=Trail(note=f"fallback after {exc.error_type}"))
        return NodeResult()

    g = Engine(Trail, store=store).add("n", node).start_at("n")
    assert (await g.run("r", Trail())).note == "fallback after TimeoutError"
    await assert_replays(g, "r")
    assert calls == [1]


async def test_fork_from_a_step_with_a_patch_leaves_the_source_untouched(store: Store) -> None:
    """fork(at_step=k, patch=...) continues from step k's next hop with the patched state."""
    tool = Counter()
    g = looping(store, tool)
    await g.run("src", Trail())
    before = [(v.step, v.delta, v.route) for v in await g.history("src")]
    final = await g.fork("src", "alt", at_step=2, patch=Trail(note="patched"))
    assert final.note == "patched"
    assert final.n == 4
    assert final.log[:2] == ["seq1", "seq2"]
    assert len(await g.history("alt")) == 2
    assert [(v.step, v.delta, v.route) for v in await g.history("src")] == before
    await assert_replays(g, "alt")


async def test_fork_from_a_checkpoint_label(store: Store) -> None:
    """fork(at_label=...) starts from the step the checkpoint names."""
    g = looping(store, Counter())
    await g.run("src", Trail())
    await g.save_checkpoint("src", "end")
    final = await g.fork("src", "copy", at_label="end")
    assert final == await g.get_state("src")
    assert (await g.get_run("copy")).status is RunStatus.DONE


async def test_changed_graph_is_refused_naming_the_change(store: Store) -> None:
    """Resume and replay with a changed graph name what changed, unless explicitly allowed."""
    g = looping(store, Counter())
    await g.run("r", Trail())
    changed = looping(store, Counter()).add("extra", lambda c, s: NodeResult())
    with pytest.raises(GraphChangedError, match="node 'extra' added"):
        await changed.replay("r")
    with pytest.raises(GraphChangedError, match="allow_graph_change"):
        await changed.resume("r")
    assert (await changed.replay("r", allow_graph_change=True)).ok


async def test_swapping_a_node_implementation_changes_the_fingerprint() -> None:
    """The fingerprint covers which function implements a node, not its body."""

    def a(ctx: Context, s: Trail) -> NodeResult[Trail]:
        return NodeResult()

    def b(ctx: Context, s: Trail) -> NodeResult[Trail]:
        return NodeResult()

    fa = Engine(Trail).add("x", a).start_at("x").fingerprint
    fb = Engine(Trail).add("x", b).start_at("x").fingerprint
    assert fa != fb
    assert Engine(Trail).add("x", a).start_at("x").fingerprint == fa


async def test_stored_bytes_per_step_stay_flat_with_a_large_unchanged_state(store: Store) -> None:
    """With a 10 kB unchanged field and one list item per step, stored bytes per step stay small and flat."""

    class Big(BaseModel):
        blob: str = "x" * 10_000
        items: Annotated[list[str], append] = []

    async def add(ctx: Context, s: Big) -> NodeResult[Big]:
        return NodeResult(
            delta=Big(items=[f"item-{ctx.step:05d}"]), route=stop() if ctx.step >= 1000 else goto("add")
        )

    g = Engine(Big, store=store, options=Options(max_steps=2000)).add("add", add).start_at("add")
    final = await g.run("r", Big())
    assert len(final.items) == 1000
    recs = await store.load_steps("r")

    def per_step(rs: Any) -> float:
        return sum(len(r.delta or b"") + len(r.state or b"") + len(r.route) for r in rs) / len(rs)

    assert per_step(recs) < 300
    assert per_step(recs[500:]) < 1.5 * per_step(recs[:500]) + 50
    latest = await store.load_latest("r")
    assert latest is not None
    assert len(latest.tail) <= 500
    assert await g.get_state("r") == final


async def test_export_and_import_round_trip_a_run(store: Store) -> None:
    """export_run gives JSON lines that import_run restores into another store, byte for byte."""
    g = Engine(Trail, store=store)
    g.add("split", lambda c, s: NodeResult(route=fan_out(["a", "b"], join="j")))
    g.add("a", lambda c, s: NodeResult(delta=Trail(log=["a"]))).add(
        "b", lambda c, s: NodeResult(delta=Trail(log=["b"]))
    )
    g.add("j", lambda c, s: NodeResult(route=interrupt({"q": 1}))).start_at("split")
    await g.run("r", Trail())
    lines = await store.export_run("r")  # type: ignore[attr-defined]
    other = MemoryStore()
    assert await other.import_run(lines, run_id="copy") == "copy"
    g2 = Engine(Trail, store=other)
    g2.add("split", lambda c, s: NodeResult()).add("a", lambda c, s: NodeResult()).add(
        "b", lambda c, s: NodeResult()
    )
    g2.add("j", lambda c, s: NodeResult()).start_at("split")
    a = [r._replace(run_id="x") for r in await store.load_steps("r")]
    b = [r._replace(run_id="x") for r in await other.load_steps("copy")]
    assert a == b
    assert [x._replace(run_id="x") for x in await other.load_branches("copy", 2)] == [
        x._replace(run_id="x") for x in await store.load_branches("r", 2)
    ]
    with pytest.raises(CorruptRecordError, match="line 1"):
        await MemoryStore().import_run(["not json"])
