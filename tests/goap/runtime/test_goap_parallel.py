"""GoapGraph(parallel=True): independent plan actions run concurrently, deterministically and replayably."""

from __future__ import annotations

import asyncio
import random
from collections.abc import Mapping
from typing import Any

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.runtime._parallel import independent_batch
from goap.runtime._state import GoapState
from graphengine.store import Store
from graphengine.testing import assert_replays

running = {"now": 0, "peak": 0}


def fetch(key: str, *, fail: bool = False) -> Any:
    """An async execute that sleeps a random while (so completion order varies)."""

    async def execute(world: Mapping[str, Any]) -> dict[str, Any]:
        running["now"] += 1
        running["peak"] = max(running["peak"], running["now"])
        await asyncio.sleep(random.random() / 200)
        running["now"] -= 1
        if fail:
            raise ConnectionError(f"{key} unreachable")
        return {key: True}

    return execute


def actions(fail_b: bool = False) -> list[ActionSpec]:
    """Three independent downloads, then a build that needs all of them."""
    return [
        ActionSpec("get_a", {}, {"a": True}, execute=fetch("a")),
        ActionSpec("get_b", {}, {"b": True}, execute=fetch("b", fail=fail_b)),
        ActionSpec("get_c", {}, {"c": True}, execute=fetch("c")),
        ActionSpec("mirror_b", {}, {"b": True}, cost=5),
        ActionSpec("build", {"a": True, "b": True, "c": True}, {"built": True}),
    ]


W = {"a": False, "b": False, "c": False, "built": False}


async def test_independent_actions_run_concurrently_and_match_the_sequential_run(store: Store) -> None:
    """The three downloads overlap; the final state equals the sequential run's; replay is clean."""
    running.update(now=0, peak=0)
    par = await GoapGraph(actions(), store=store, parallel=True).run("p", W, GoalSpec({"built": True}))
    assert running["peak"] == 3
    seq = await GoapGraph(actions(), store=store).run("s", W, GoalSpec({"built": True}))
    assert par.status == seq.status == "achieved"
    assert par.world_state == seq.world_state
    assert [o.action for o in par.execution_history] == [o.action for o in seq.execution_history]
    steps_par = len(await GoapGraph(actions(), store=store, parallel=True).engine.history("p"))
    assert steps_par < len(await GoapGraph(actions(), store=store).engine.history("s"))
    await assert_replays(GoapGraph(actions(), store=store, parallel=True).engine, "p")


async def test_a_failed_action_in_a_batch_keeps_the_others_and_replans(store: Store) -> None:
    """One download failing records its failure, keeps the others' effects and replans around it."""
    g = GoapGraph(actions(fail_b=True), store=store, parallel=True, blacklist_after=1)
    final = await g.run("r", W, GoalSpec({"built": True}))
    assert final.status == "achieved"
    assert final.replan_reason == "action_failed"
    assert final.blacklisted_actions == ["get_b"]
    first = {o.action: o.success for o in final.execution_history[:3]}
    assert first == {"get_a": True, "get_b": False, "get_c": True}
    assert len({o.step for o in final.execution_history[:3]}) == 1  # one step ran the batch
    assert [o.action for o in final.execution_history[3:]] == ["mirror_b", "build"]
    await assert_replays(g.engine, "r")


def test_dependent_actions_are_not_batched() -> None:
    """An action needing another's effect, or two writing one fact, end the batch."""
    acts = {a.name: a for a in actions()}
    s = GoapState(world_state=W, plan=["get_a", "get_b", "build"], current_step=0)
    assert [a.name for a in independent_batch(acts, s)] == ["get_a", "get_b"]
    s2 = GoapState(world_state=W, plan=["get_b", "mirror_b", "get_c"], current_step=0)
    assert independent_batch(acts, s2) == []


async def test_parallel_records_do_not_depend_on_completion_order(store: Store) -> None:
    """Two runs with random timings store identical step records."""

    async def records(run_id: str) -> list[tuple[str, bytes | None]]:
        g = GoapGraph(actions(), store=store, parallel=True)
        await g.run(run_id, W, GoalSpec({"built": True}))
        return [(r.node_id, r.delta) for r in await store.load_steps(run_id) if r.node_id != "planner"]

    assert await records("x") == await records("y")
