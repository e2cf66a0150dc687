"""Capability plans on the engine: one node per action, dependencies respected, independent actions fanned out."""

from __future__ import annotations

from typing import Any

import pytest

from goap.capabilities import (
    DEFAULT_CAPABILITIES,
    CapabilityPlan,
    Goal,
    GoalPlanner,
    InvalidCapability,
    PlannedAction,
    PlanRunState,
    ToolCapability,
    WorldState,
    plan_to_engine,
)
from graphengine import FAN_OUT_NODE, Context, Engine, Tool
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays


class Recorder:
    """A graphengine Tool that records the order of its calls."""

    def __init__(self, name: str, log: list[str]) -> None:
        self.name = name
        self.log = log

    async def call(self, ctx: Context, input: Any) -> Any:
        self.log.append(self.name)
        return {"tool": self.name, "args": input}


def test_recorder_is_a_tool() -> None:
    """The test double satisfies graphengine's Tool protocol."""
    assert isinstance(Recorder("x", []), Tool)


async def test_litmus_plan_runs_as_one_tool_call() -> None:
    """The youtube search plan runs one node that calls browser.open_url with the search URL."""
    plan = (
        GoalPlanner()
        .plan(Goal("browser_search", platform="youtube", query="nvidia"), WorldState(), DEFAULT_CAPABILITIES)
        .unwrap()
    )
    log: list[str] = []
    engine = plan_to_engine(plan, {"browser.open_url": Recorder("browser.open_url", log)})
    final = await engine.run("r", PlanRunState())
    assert log == ["browser.open_url"]
    assert final.results == {
        "a1": {"tool": "browser.open_url", "args": {"url": "https://youtube.com/results?search_query=nvidia"}}
    }


async def test_dependencies_are_respected() -> None:
    """A prerequisite's tool runs before the action that depends on it."""
    caps = [
        ToolCapability("browser.search", {"browser_search"}, requires={"browser_running"}),
        ToolCapability("browser.launch", {"app_launch"}, effects={"browser_running"}),
    ]
    plan = GoalPlanner().plan(Goal("browser_search", query="x"), WorldState(), caps).unwrap()
    log: list[str] = []
    tools = {c.name: Recorder(c.name, log) for c in caps}
    final = await plan_to_engine(plan, tools).run("r", PlanRunState())
    assert log == ["browser.launch", "browser.search"]
    assert list(final.results) == ["a1", "a2"]


async def test_independent_actions_are_fanned_out_and_joined_in_plan_order() -> None:
    """Actions with no dependency between them run as one fan-out; results merge in plan order."""
    plan = CapabilityPlan.of(
        [
            PlannedAction("a1", "t.a", {"n": 1}),
            PlannedAction("a2", "t.b", {"n": 2}),
            PlannedAction("a3", "t.c", {"n": 3}, depends_on=("a1", "a2")),
        ],
        "a3",
    )
    log: list[str] = []
    store = MemoryStore()
    engine = plan_to_engine(
        plan, {t: Recorder(t, log) for t in ("t.a", "t.b", "t.c")}, engine=Engine(PlanRunState, store=store)
    )
    final = await engine.run("r", PlanRunState())
    assert sorted(log[:2]) == ["t.a", "t.b"] and log[2] == "t.c"
    assert list(final.results) == ["a1", "a2", "a3"]
    steps = await store.load_steps("r")
    assert [r.node_id for r in steps] == ["start", FAN_OUT_NODE, "join0", "a3"]
    assert steps[0].route == '{"fan_out":[{"node":"a1"},{"node":"a2"}],"join":"join0"}'
    await assert_replays(engine, "r")


def test_unbound_tool_is_a_typed_error() -> None:
    """A plan tool without a bound Tool raises InvalidCapability naming it."""
    plan = CapabilityPlan.of([PlannedAction("a1", "t.a")], "a1")
    with pytest.raises(InvalidCapability, match=r"\['t.a'\]"):
        plan_to_engine(plan, {})
