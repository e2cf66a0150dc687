"""The DeepAgents tool and subagent run the GOAP loop as ``GoapGraph`` itself does.

Oracle: the report of the same goal run directly through ``GoapGraph.invoke`` (no interpreter, no
wrapper), formatted by ``format_goap_result``.
"""

from __future__ import annotations

import asyncio

import pytest
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


def test_keyword_options_are_checked_as_a_signature_would() -> None:
    """``**options`` typed by a TypedDict still refuse a misspelt or missing keyword at run time."""
    from goap.compat.graph.builder import GoapGraph
    from goap.compat.planner.mcts import MCTSStrategy
    from goap.compat.state import PlanningState

    with pytest.raises(
        TypeError, match="create_goap_tool\\(\\) got unexpected keyword argument\\(s\\): 'wrold_state'"
    ):
        create_goap_tool(ACTIONS, llm=_llm(), wrold_state={})  # type: ignore[call-arg]
    with pytest.raises(
        TypeError, match="create_goap_subagent\\(\\) missing required keyword argument\\(s\\): 'llm'"
    ):
        create_goap_subagent(ACTIONS)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="invoke_nl\\(\\) got unexpected keyword argument\\(s\\): 'conifg'"):
        GoapGraph(ACTIONS).invoke_nl("x", llm=_llm(), conifg=None)  # type: ignore[call-arg]
    with pytest.raises(TypeError, match="aplan\\(\\) got unexpected keyword argument\\(s\\): 'prior'"):
        asyncio.run(
            MCTSStrategy().aplan(PlanningState({}), GoalSpec(conditions={"done": True}), ACTIONS, prior=None)
        )  # type: ignore[call-arg]
