"""GOAP through LangGraph: `GoapGraph.to_langgraph()` behaves like the engine, tracer hooks included."""

from __future__ import annotations

import asyncio
import operator
from collections.abc import Callable, Mapping
from typing import Annotated, Any

import pytest
from goap_tasks import RELEASE_START, offline, release_actions

pytest.importorskip("langgraph")

from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import START, StateGraph
from langgraph.graph.state import CompiledStateGraph
from typing_extensions import TypedDict

from goap import ActionSpec, GoalSpec, GoapGraph, GoapState
from goap.runtime import TRACER_HOOKS as HOOKS
from graphengine.adapters.langgraph_saver import GraphEngineSaver
from graphengine.adapters.langgraph_tables import MemoryCheckpointTable

GOAL = GoalSpec({"published": True})
MODES = ("invoke", "ainvoke", "astream")
CHECKPOINTERS: dict[str, Callable[[], Any]] = {
    "none": lambda: None,
    "inmemory": InMemorySaver,
    "graphengine": lambda: GraphEngineSaver(MemoryCheckpointTable()),
}


def flaky() -> Callable[[Mapping[str, Any]], None]:
    """An execute that fails on its first call only (a fresh one per graph)."""
    calls = [0]

    def execute(world: Mapping[str, Any]) -> None:
        calls[0] += 1
        if calls[0] == 1:
            raise TimeoutError("slow HSM")

    return execute


SCENARIOS: dict[str, Callable[[], list[ActionSpec]]] = {
    "plain": release_actions,
    "replan": lambda: release_actions(offline),
    "retry": lambda: release_actions(flaky(), retries=1),
}


class CountingTracer:
    """Records every hook call in order: `aon_*` as the hook name, `on_*` as "sync:<hook>"."""

    def __init__(self) -> None:
        self.calls: list[str] = []
        """Hook names in the order they fired."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("aon_"):

            async def hook(*args: Any, **kwargs: Any) -> None:
                self.calls.append(name[4:])

            return hook
        if name.startswith("on_"):
            return lambda *args, **kwargs: self.calls.append(f"sync:{name[3:]}")
        raise AttributeError(name)

    def count(self, hook: str) -> int:
        """How often `hook` fired."""
        return self.calls.count(hook)


def _graph(scenario: str, tracer: CountingTracer) -> GoapGraph:
    return GoapGraph(SCENARIOS[scenario](), tracer=tracer, blacklist_after=2, max_replans=3)


def _comparable(s: GoapState) -> dict[str, Any]:
    """The state without the wall clock (each run reads its own)."""
    return s.model_dump(exclude={"wall_clock_started_at"})


def on_engine(scenario: str) -> tuple[GoapState, CountingTracer, list[str]]:
    """The engine's own run: final state, tracer, and the node of every committed step."""
    tracer = CountingTracer()
    g = _graph(scenario, tracer)

    async def go() -> tuple[GoapState, list[str]]:
        final = await g.run("r", RELEASE_START, GOAL)
        return final, [h.node_id for h in await g.engine.history("r")]

    final, nodes = asyncio.run(go())
    return final, tracer, nodes


def on_langgraph(scenario: str, mode: str, checkpointer: str = "none") -> tuple[GoapState, CountingTracer]:
    """The same run through the compiled LangGraph graph, by `invoke`, `ainvoke` or `astream` (last value)."""
    tracer = CountingTracer()
    app = _graph(scenario, tracer).to_langgraph(checkpointer=CHECKPOINTERS[checkpointer]())
    start = GoapState(world_state=dict(RELEASE_START), goal=GOAL)
    # A checkpointer stores the input as given: the goal goes in as its JSON form, since a
    # GoalSpec (conditions in a mappingproxy) is nothing LangGraph's serializer can store.
    inp: Any = start if checkpointer == "none" else start.model_dump(mode="json")
    cfg: Any = {"configurable": {"thread_id": "t"}}
    if mode == "invoke":
        out = app.invoke(inp, cfg)
    elif mode == "ainvoke":
        out = asyncio.run(app.ainvoke(inp, cfg))
    else:

        async def last_value() -> Any:
            chunks = [c async for c in app.astream(inp, cfg, stream_mode="values")]
            return chunks[-1]

        out = asyncio.run(last_value())
    return GoapState(**out), tracer


def test_to_langgraph_compiles_planner_executor_and_observer() -> None:
    """The result is a LangGraph CompiledStateGraph whose nodes are the three GOAP nodes."""
    app = GoapGraph(release_actions()).to_langgraph()
    assert isinstance(app, CompiledStateGraph)
    assert {"planner", "executor", "observer"} <= set(app.get_graph().nodes)
    assert set(GoapState.model_fields) <= set(app.channels)
    assert set(app.get_input_jsonschema()["properties"]) == set(GoapState.model_fields)


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_tracer_hooks_fire_as_on_the_engine(scenario: str, mode: str) -> None:
    """Through invoke, ainvoke and astream the async hooks fire in the engine's order, and no sync hook fires too."""
    _, on_eng, _ = on_engine(scenario)
    _, on_lg = on_langgraph(scenario, mode)
    assert on_lg.calls == on_eng.calls
    assert not [c for c in on_lg.calls if c.startswith("sync:")]


@pytest.mark.parametrize("mode", MODES)
@pytest.mark.parametrize("scenario", list(SCENARIOS))
def test_tracer_hooks_fire_once_per_transition(scenario: str, mode: str) -> None:
    """Each planner step fires plan_start once, each executor step action_start and action_complete once."""
    _, _, nodes = on_engine(scenario)
    _, t = on_langgraph(scenario, mode)
    plans, actions = nodes.count("planner"), nodes.count("executor")
    assert t.count("plan_start") == plans
    assert t.count("plan_complete") + t.count("plan_failed") == plans
    assert t.count("replan") == plans - 1
    assert t.count("action_start") == t.count("action_complete") == actions
    assert t.count("goal_achieved") == 1
    assert set(t.calls) <= set(HOOKS)


def test_retries_fire_action_retry_once_per_failed_attempt() -> None:
    """A flaky action retried once reports one action_retry and no replan, through LangGraph as on the engine."""
    final, t = on_langgraph("retry", "ainvoke")
    assert t.count("action_retry") == 1
    assert t.count("replan") == 0
    assert final.status == "achieved"
    assert [o.action for o in final.execution_history] == ["fetch", "build", "sign_hsm", "publish"]


@pytest.mark.parametrize("checkpointer", list(CHECKPOINTERS))
@pytest.mark.parametrize("mode", MODES)
def test_a_replan_ends_in_the_engines_final_state(mode: str, checkpointer: str) -> None:
    """action_failed -> replan -> blacklist -> success: same final GoapState and execution_history."""
    eng, _, _ = on_engine("replan")
    lg, _ = on_langgraph("replan", mode, checkpointer)
    assert lg.status == "achieved"
    assert lg.replan_reason == "action_failed"
    assert lg.blacklisted_actions == ["sign_hsm"]
    assert lg.action_failure_counts == {"sign_hsm": 2}
    assert lg.execution_history == eng.execution_history
    assert _comparable(lg) == _comparable(eng)
    assert lg.wall_clock_started_at is not None


def test_the_checkpointer_holds_the_final_state() -> None:
    """With a checkpointer, the thread's state after the run is the final GoapState."""
    saver = InMemorySaver()
    app = GoapGraph(release_actions(offline), blacklist_after=2).to_langgraph(checkpointer=saver)
    cfg: Any = {"configurable": {"thread_id": "t"}}
    out = app.invoke(GoapState(world_state=dict(RELEASE_START), goal=GOAL).model_dump(mode="json"), cfg)
    snap = app.get_state(cfg)
    assert snap.values == out
    assert GoapState(**out).status == "achieved"
    assert snap.next == ()


class Parent(TypedDict):
    """A LangGraph app's state sharing some of GoapState's keys, plus one of its own."""

    world_state: dict[str, Any]
    goal: Any
    status: str
    execution_history: Annotated[list[Any], operator.add]
    request: str


def test_the_goap_graph_is_a_subgraph_node_of_a_langgraph_app_with_its_keys() -> None:
    """GoapState's keys are channels: a parent app with some of them gets the engine's values back
    through them, and its own keys are left alone."""
    final, _, _ = on_engine("replan")
    b = StateGraph(Parent)
    b.add_node("agent", GoapGraph(release_actions(offline), blacklist_after=2, max_replans=3).to_langgraph())
    b.add_node("reply", lambda s: {"request": f"{s['request']}: {s['status']}"})
    b.add_edge(START, "agent")
    b.add_edge("agent", "reply")
    out = b.compile().invoke(
        {
            "world_state": dict(RELEASE_START),
            "goal": GOAL,
            "status": "planning",
            "execution_history": [],
            "request": "ship",
        }
    )
    assert out["request"] == "ship: achieved"
    assert out["status"] == final.status and out["world_state"] == final.world_state
    assert out["execution_history"] == final.execution_history
    assert set(out) == set(Parent.__annotations__)
