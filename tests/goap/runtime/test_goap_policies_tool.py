"""goap_tool(graph): a GOAP agent as a graphengine Tool, recorded by the calling run, and as a LangChain tool."""

from __future__ import annotations

from typing import Any

import pytest
from pydantic import BaseModel

from goap import ActionSpec, GoapGraph, GoapState
from goap.runtime._tool import goap_tool
from graphengine import Context, Engine, NodeResult, stop
from graphengine.store import Store
from graphengine.testing import assert_replays

CHOPS: list[int] = []


def chop(world: Any) -> dict[str, Any]:
    """Chop wood (counted, so a test sees whether the agent ran again)."""
    CHOPS.append(1)
    return {"wood": True}


ACTIONS = [
    ActionSpec("chop", {}, {"wood": True}, execute=chop),
    ActionSpec("burn", {"wood": True}, {"warm": True}),
]


class Caller(BaseModel):
    """A state for a graph that calls the agent."""

    result: dict[str, Any] = {}


async def test_a_node_calls_the_agent_through_ctx_call_and_replay_serves_it(store: Store) -> None:
    """The tool runs the GOAP graph once; the caller's replay serves the recorded summary."""
    agent = GoapGraph(ACTIONS, store=store)
    tool = goap_tool(agent)
    CHOPS.clear()

    async def ask(ctx: Context, s: Caller) -> NodeResult[Caller]:
        out = await ctx.call(tool, {"world_state": {"wood": False}, "goal": {"warm": True}})
        return NodeResult(delta=Caller(result=out), route=stop())

    caller: Engine[Caller] = Engine(Caller, store=store)
    caller.add("ask", ask).start_at("ask")
    final = await caller.run("c", Caller())
    assert final.result["status"] == "achieved" and final.result["run_id"] == "c:1:goap_plan_and_act"
    assert [e["action"] for e in final.result["executed"]] == ["chop", "burn"]
    await assert_replays(caller, "c")
    assert len(CHOPS) == 1  # the replay served the summary: the agent did not run again
    state: GoapState = await agent.engine.get_state("c:1:goap_plan_and_act")
    assert state.status == "achieved"


async def test_direct_call_resumes_an_existing_run_and_spec_describes_the_tool() -> None:
    """Calling twice with the same run id resumes (nothing runs again); spec names the actions."""
    tool = goap_tool(GoapGraph(ACTIONS), name="warm_up")
    first = await tool({}, {"warm": True}, run_id="w")
    again = await tool({}, {"warm": True}, run_id="w")
    assert first == again and first["achieved"]
    assert tool.spec.name == "warm_up" and "burn, chop" in tool.spec.description
    with pytest.raises(ValueError, match="goal"):
        await tool({}, "warm")


async def test_as_langchain_structured_tool() -> None:
    """With langchain-core installed the tool is a StructuredTool that runs the agent."""
    pytest.importorskip("langchain_core")
    lc = goap_tool(GoapGraph(ACTIONS)).as_langchain()
    out = await lc.ainvoke({"world_state": {}, "goal": {"warm": True}, "run_id": "lc"})
    assert out["status"] == "achieved"
