"""The DeepAgents tool and subagent run the GOAP loop as ``GoapGraph`` itself does.

Oracle: the report of the same goal run directly through ``GoapGraph.invoke`` (no interpreter, no
wrapper), formatted by ``format_goap_result``.
"""

from __future__ import annotations

import asyncio

from langchain_core.messages import HumanMessage

from goap.compat import ActionSpec, GoalSpec
from goap.compat.graph.builder import GoapGraph
from goap.compat.integrations.deepagents import create_goap_subagent, create_goap_tool, format_goap_result
from goap.compat.interpreter import InterpretedGoal
from goap.compat.testing import FakeStructuredModel

ACTIONS = [
    ActionSpec(name="prepare", effects={"ready": True}),
    ActionSpec(name="finish", preconditions={"ready": True}, effects={"done": True}),
]


def _llm() -> FakeStructuredModel:
    return FakeStructuredModel(response=InterpretedGoal(conditions={"done": True}, reasoning=""))


def _direct_report(world_state: dict[str, object]) -> str:
    result = GoapGraph(ACTIONS).invoke(GoalSpec(conditions={"done": True}), world_state=dict(world_state))
    return format_goap_result(dict(result))


def test_tool_reports_what_the_graph_reports_sync_and_async() -> None:
    tool = create_goap_tool(ACTIONS, llm=_llm(), world_state={"ready": False})
    expected = _direct_report({"ready": False})
    assert "prepare" in expected and "finish" in expected
    assert tool.invoke({"request": "get it done"}) == expected
    assert asyncio.run(tool.ainvoke({"request": "get it done"})) == expected
    assert tool.name == "goap_planner"
    assert tool.description.startswith("Run a GOAP")


def test_tool_takes_name_description_and_graph_kwargs() -> None:
    tool = create_goap_tool(
        ACTIONS, llm=_llm(), name="planner", description="plans", graph_kwargs={"record_expansions": True}
    )
    assert (tool.name, tool.description) == ("planner", "plans")
    assert tool.invoke({"request": "get it done"}) == _direct_report({})


def test_subagent_answers_the_last_human_message_sync_and_async() -> None:
    agent = create_goap_subagent(ACTIONS, llm=_llm(), world_state={"ready": True})
    expected = _direct_report({"ready": True})
    assert "prepare" not in expected
    state = {"messages": [HumanMessage(content="get it done")]}
    assert agent["runnable"].invoke(state)["messages"][-1].content == expected
    assert asyncio.run(agent["runnable"].ainvoke(state))["messages"][-1].content == expected
    assert agent["name"] == "goap_planner"
    assert agent["description"].startswith("A GOAP")
