"""`GoalInterpreter`: plain English -> validated GoalSpec, retries with feedback, typed rejections, run_nl."""

from __future__ import annotations

import json
from typing import Any

import pytest
from pydantic import BaseModel

from goap import (
    ActionSpec,
    AmbiguousGoalError,
    GoalInterpretationError,
    GoalInterpreter,
    GoalSpec,
    GoapGraph,
    add,
    ge,
    gt,
    in_,
    run_nl,
)
from graphengine import Context, Engine, NodeResult
from graphengine.models import ChatOut, OpenAIChatModel, ToolCall
from graphengine.models.testing import LocalChatServer, ScriptedChatModel, openai_reply
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays

ACTIONS = [
    ActionSpec("get_axe", {"has_axe": False}, {"has_axe": True}),
    ActionSpec("chop", {"has_axe": True}, {"wood": add(2)}),
    ActionSpec("light_fire", {"wood": ge(2)}, {"fire": "lit", "wood": add(-2)}),
    ActionSpec("smother", {"fire": "lit"}, {"fire": "out"}),
]
WORLD = {"has_axe": False, "wood": 0, "fire": "out"}


def submit(**answer: Any) -> ChatOut:
    """An answer given through the submit_goal tool."""
    return ChatOut(tool_calls=(ToolCall(id="s1", name="submit_goal", arguments=answer),))


def goal(*conds: tuple[str, str, Any], name: str = "") -> ChatOut:
    """A status-goal answer with (key, op, value) conditions."""
    return submit(status="goal", name=name, conditions=[{"key": k, "op": o, "value": v} for k, o, v in conds])


async def test_tool_answer_becomes_a_goal_spec() -> None:
    """A valid submit_goal call becomes the GoalSpec it describes."""
    model = ScriptedChatModel(goal(("wood", ">=", 4), ("has_axe", "==", True), name="stock up"))
    g = await GoalInterpreter(model, ACTIONS).interpret("get me four pieces of wood and keep the axe")
    assert g == GoalSpec({"wood": ge(4), "has_axe": True}, name="stock up")
    ((messages, tools),) = model.calls
    assert [t.name for t in tools] == ["submit_goal"]
    prompt = messages[0].content
    assert "- wood: a number" in prompt
    assert '- fire: one of "lit", "out"' in prompt
    assert messages[1].content == "Request: get me four pieces of wood and keep the axe"


async def test_text_json_answer_is_accepted_without_tools() -> None:
    """With use_tools=False the answer is read from the text, code fences allowed."""
    answer = {"status": "goal", "conditions": [{"key": "fire", "op": "in", "value": ["lit"]}]}
    model = ScriptedChatModel("```json\n" + json.dumps(answer) + "\n```")
    g = await GoalInterpreter(model, ACTIONS, use_tools=False).interpret("light a fire", world_state=WORLD)
    assert g.conditions == {"fire": in_(["lit"])}
    assert model.calls[0][1] == ()
    assert "Current facts:" in model.calls[0][0][1].content


async def test_invalid_answer_is_retried_with_the_validation_error_fed_back() -> None:
    """An unknown key is explained to the model, which then answers correctly."""
    model = ScriptedChatModel(goal(("logs", ">=", 4)), goal(("wood", ">=", 4)))
    g = await GoalInterpreter(model, ACTIONS).interpret("four logs")
    assert g.conditions == {"wood": ge(4)}
    second = model.calls[1][0]
    assert [m.role for m in second] == ["system", "user", "assistant", "tool"]
    assert second[3].tool_call_id == "s1"
    assert "conditions[0].key: unknown fact 'logs'" in second[3].content


async def test_text_answers_get_feedback_as_a_user_message() -> None:
    """Without a tool call, the feedback follows the model's text as a user message."""
    model = ScriptedChatModel(
        "I think you want wood.",
        json.dumps({"status": "goal", "conditions": [{"key": "wood", "op": ">", "value": 0}]}),
    )
    g = await GoalInterpreter(model, ACTIONS).interpret("some wood")
    assert g.conditions == {"wood": gt(0)}
    feedback = model.calls[1][0][-1]
    assert feedback.role == "user"
    assert "holds no JSON object" in feedback.content


@pytest.mark.parametrize(
    ("answer", "problem"),
    [
        (
            goal(("fire", "==", "burning")),
            "conditions[0].value: 'burning' is not a value actions give 'fire'",
        ),
        (goal(("fire", ">=", 2)), "conditions[0].op: '>=' compares numbers but 'fire' is not numeric"),
        (goal(("has_axe", "==", 1)), "conditions[0].value: 1 is not a value actions give 'has_axe'"),
        (goal(("wood", ">=", "lots")), "conditions[0].value: '>=' needs a number"),
        (goal(("fire", "in", "lit")), "'in' needs a non-empty list"),
        (goal(("wood", ">=", 1), ("wood", "<=", 9)), "conditions[1].key: 'wood' appears twice"),
        (goal(), "a goal needs at least one condition"),
        (submit(status="maybe"), "status: Input should be 'goal', 'ambiguous' or 'unsupported'"),
        (
            submit(status="goal", conditions=[{"key": "wood", "value": 1, "why": "x"}]),
            "conditions.0.why: Extra inputs",
        ),
        (ChatOut(text="{not json}"), "not valid JSON"),
    ],
    ids=["value", "op", "bool-vs-int", "number", "in-list", "twice", "empty", "status", "extra", "json"],
)
async def test_persistently_invalid_answers_fail_with_a_typed_error(answer: ChatOut, problem: str) -> None:
    """After max_attempts invalid answers, GoalInterpretationError names what was wrong."""
    model = ScriptedChatModel(answer)
    with pytest.raises(GoalInterpretationError) as ei:
        await GoalInterpreter(model, ACTIONS, max_attempts=2).interpret("do the thing")
    err = ei.value
    assert not isinstance(err, AmbiguousGoalError)
    assert err.attempts == 2
    assert len(model.calls) == 2
    assert any(problem in p for p in err.problems), err.problems
    assert problem in str(err)
    assert "'do the thing'" in str(err)


async def test_ambiguous_requests_are_rejected_not_guessed() -> None:
    """An ambiguous verdict raises AmbiguousGoalError at once, with the model's reason."""
    model = ScriptedChatModel(submit(status="ambiguous", reason="'the fire' could mean lit or out"))
    with pytest.raises(AmbiguousGoalError, match="could mean lit or out") as ei:
        await GoalInterpreter(model, ACTIONS).interpret("deal with the fire")
    assert ei.value.attempts == 1
    assert len(model.calls) == 1


async def test_unsupported_requests_are_rejected() -> None:
    """A request no fact can express raises GoalInterpretationError without retrying."""
    model = ScriptedChatModel(submit(status="unsupported", reason="no fact about cakes"))
    with pytest.raises(GoalInterpretationError, match="no fact about cakes"):
        await GoalInterpreter(model, ACTIONS).interpret("bake a cake")
    assert len(model.calls) == 1


async def test_empty_request_is_rejected_without_asking() -> None:
    """An empty request never reaches the model."""
    model = ScriptedChatModel("unused")
    with pytest.raises(GoalInterpretationError, match="empty"):
        await GoalInterpreter(model, ACTIONS).interpret("  ")
    assert model.calls == []


def test_interpreter_needs_actions_with_effects() -> None:
    """Without effects there is no vocabulary, which is a configuration error."""
    with pytest.raises(ValueError, match="no effects"):
        GoalInterpreter(ScriptedChatModel("x"), [ActionSpec("noop")])


async def test_run_nl_interprets_then_runs_and_replays_without_the_model() -> None:
    """run_nl plans toward the interpreted goal; the goal lives in the run, so replay needs no model."""
    model = ScriptedChatModel(goal(("wood", ">=", 4)))
    store = MemoryStore()
    graph = GoapGraph(ACTIONS, store=store)
    final = await run_nl(graph, "nl1", "four pieces of wood", model=model, world_state=WORLD)
    assert final.status == "achieved"
    assert final.world_state["wood"] >= 4
    assert final.plan == ["get_axe", "chop", "chop"]
    await assert_replays(graph.engine, "nl1")
    assert len(model.calls) == 1


async def test_run_nl_rejects_before_creating_a_run() -> None:
    """An ambiguous request creates no run."""
    store = MemoryStore()
    graph = GoapGraph(ACTIONS, store=store)
    with pytest.raises(AmbiguousGoalError):
        await run_nl(
            graph, "nl2", "fire", model=ScriptedChatModel(submit(status="ambiguous")), world_state=WORLD
        )
    assert [r async for r in _runs(store)] == []


async def _runs(store: MemoryStore) -> Any:
    for r in await store.list_runs():
        yield r


async def test_interpreting_inside_a_node_records_the_model_calls() -> None:
    """With ctx=, every model answer (retries included) is recorded and replay asks nothing."""
    model = ScriptedChatModel(goal(("logs", "==", 1)), goal(("fire", "==", "lit")))
    interp = GoalInterpreter(model, ACTIONS)

    class S(BaseModel):
        goal: dict[str, Any] = {}

    async def node(ctx: Context, s: S) -> NodeResult[S]:
        g = await interp.interpret("make fire", ctx=ctx)
        return NodeResult(delta=S(goal=dict(g.conditions)))

    eng = Engine(S, store=MemoryStore())
    eng.add("interpret", node)
    eng.start_at("interpret")
    assert (await eng.run("i1", S())).goal == {"fire": "lit"}
    await assert_replays(eng, "i1")
    assert len(model.calls) == 2


async def test_interpreter_over_a_local_openai_server() -> None:
    """End to end over the wire: the submit_goal tool is offered and its call is decoded."""
    with LocalChatServer() as srv:
        srv.reply(
            openai_reply(
                None,
                [
                    (
                        "submit_goal",
                        {"status": "goal", "conditions": [{"key": "wood", "op": ">=", "value": 6}]},
                    )
                ],
            )
        )
        model = OpenAIChatModel("m", base_url=srv.url + "/v1")
        g = await GoalInterpreter(model, ACTIONS).interpret("six wood")
        assert g.conditions == {"wood": ge(6)}
        assert srv.requests[0].json["tools"][0]["function"]["name"] == "submit_goal"


async def test_interpreter_accepts_langchain_models() -> None:
    """A LangChain chat model, wrapped, drives the interpreter."""
    pytest.importorskip("langchain_core", reason="langchain-core is not installed")
    from langchain_core.language_models.fake_chat_models import GenericFakeChatModel
    from langchain_core.messages import AIMessage

    from graphengine.models import LangChainChatModel

    ai = AIMessage(
        content="",
        tool_calls=[
            {
                "name": "submit_goal",
                "args": {"status": "goal", "conditions": [{"key": "fire", "value": "out"}]},
                "id": "x",
            }
        ],
    )
    model = LangChainChatModel(GenericFakeChatModel(messages=iter([ai])))
    g = await GoalInterpreter(model, ACTIONS).interpret("put the fire out")
    assert g.conditions == {"fire": "out"}


async def test_every_tool_call_of_an_invalid_answer_is_answered() -> None:
    """In the retry conversation each assistant tool call gets a tool message (as tool protocols require)."""
    bad = ChatOut(
        tool_calls=(
            ToolCall(id="a", name="submit_goal", arguments={"status": "goal", "conditions": []}),
            ToolCall(id="b", name="other", arguments={}),
        )
    )
    model = ScriptedChatModel(bad, goal(("fire", "==", "out")))
    await GoalInterpreter(model, ACTIONS).interpret("fire out")
    retry = model.calls[1][0]
    assert [(m.role, m.tool_call_id) for m in retry[2:]] == [
        ("assistant", None),
        ("tool", "a"),
        ("tool", "b"),
    ]
    assert "at least one condition" in retry[3].content
    assert retry[4].content.startswith("ignored")


async def test_goap_graph_run_nl_method() -> None:
    """GoapGraph.run_nl is the method form of run_nl."""
    model = ScriptedChatModel(goal(("wood", ">=", 4)))
    graph = GoapGraph(ACTIONS, store=MemoryStore())
    final = await graph.run_nl("nl3", "four pieces of wood", model=model, world_state=WORLD)
    assert final.status == "achieved"
    assert final.world_state["wood"] >= 4
