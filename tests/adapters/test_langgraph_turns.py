"""Threads that continue, `config["configurable"]` and `update_state`, against LangGraph running the same graphs natively.

Each test drives one graph natively (LangGraph's `InMemorySaver`) and through `from_langgraph` (or
compiled with `GraphEngineSaver`), turn by turn, and compares the state after every turn.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from pathlib import Path
from typing import Annotated, Any, Literal

import pytest
from typing_extensions import TypedDict

pytest.importorskip("langgraph")

from langchain_core.runnables import RunnableConfig
from langgraph.checkpoint.memory import InMemorySaver
from langgraph.graph import END, START, StateGraph
from langgraph.types import Command, interrupt
from saver_helpers import TABLES

from graphengine.adapters.langgraph import UnsupportedFeature, from_langgraph
from graphengine.store import Store

TURNS = ["hi", "what is 2+2", "tool please", "thanks", "bye"]


class Chat(TypedDict):
    """A chat: messages accumulate, the reply count is replaced."""

    messages: Annotated[list[str], operator.add]
    replies: int


def chat_graph() -> StateGraph[Any]:
    """START -> bot -> (asks for a tool: tool -> bot) | END; the bot signs with the configured user."""

    def bot(s: Chat, config: RunnableConfig) -> dict[str, Any]:
        user = config.get("configurable", {}).get("user", "?")
        last = s["messages"][-1]
        return {
            "messages": [f"bot to {user}: {last} ({len(s['messages'])})"],
            "replies": s.get("replies", 0) + 1,
        }

    def tool(s: Chat) -> dict[str, Any]:
        return {"messages": ["tool: 42"]}

    def route(s: Chat) -> Literal["tool", "__end__"]:
        wants = "tool" in s["messages"][-2] and not s["messages"][-2].startswith("tool:")
        return "tool" if wants else END

    b = StateGraph(Chat)
    b.add_node("bot", bot)
    b.add_node("tool", tool)
    b.add_edge(START, "bot")
    b.add_conditional_edges("bot", route)
    b.add_edge("tool", "bot")
    return b


def asking_graph() -> StateGraph[Any]:
    """START -> bot -> confirm (interrupts on "confirm", then records the answer) -> END."""

    def bot(s: Chat) -> dict[str, Any]:
        return {"messages": [f"bot: {s['messages'][-1]}"], "replies": s.get("replies", 0) + 1}

    def confirm(s: Chat) -> dict[str, Any]:
        if "confirm" not in s["messages"][-2]:
            return {}
        return {"messages": [f"answer: {interrupt('sure?')}"]}

    b = StateGraph(Chat)
    b.add_node("bot", bot)
    b.add_node("confirm", confirm)
    b.add_edge(START, "bot")
    b.add_edge("bot", "confirm")
    b.add_edge("confirm", END)
    return b


def _config(thread: str, **configurable: Any) -> Any:
    return {"configurable": {"thread_id": thread, **configurable}}


async def test_five_turns_through_from_langgraph_match_langgraph(store: Store) -> None:
    """Each invoke of a thread adds its message through the reducer and reruns the graph; same state after every turn."""
    native = chat_graph().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(chat_graph(), store=store)
    for i, text in enumerate(TURNS):
        want = await native.ainvoke({"messages": [text]}, _config("t", user="ann"))
        got = await adapted.run("t", {"messages": [text]}, config=_config("t", user="ann"))
        assert got == want, f"turn {i}"
        assert await adapted.values("t") == (await native.aget_state(_config("t"))).values
    assert want["replies"] == 6  # the tool turn replied twice
    history = await adapted.engine.history("t")
    assert max(v.turn for v in history) == len(TURNS) - 1
    assert (await adapted.replay("t", config=_config("t", user="ann"))).ok
    assert not (await adapted.replay("t")).ok  # the configured user is not stored


async def test_new_input_on_a_paused_thread_drops_the_interrupt_as_langgraph_does(store: Store) -> None:
    """A turn that pauses on interrupt() and is left unanswered is dropped by the next input; an answered one goes on."""
    native = asking_graph().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(asking_graph(), store=store)
    script: list[tuple[str, Any]] = [
        ("run", "please confirm"),
        ("run", "never mind"),
        ("run", "confirm again"),
        ("resume", "yes"),
        ("run", "done"),
    ]
    for i, (kind, value) in enumerate(script):
        if kind == "run":
            want = await native.ainvoke({"messages": [value]}, _config("t"))
            got = await adapted.run("t", {"messages": [value]})
        else:
            want = await native.ainvoke(Command(resume=value), _config("t"))
            got = await adapted.run("t", Command(resume=value))
        assert {k: v for k, v in got.items() if k != "__interrupt__"} == {
            k: v for k, v in want.items() if k != "__interrupt__"
        }, f"step {i}"
        assert ("__interrupt__" in got) == ("__interrupt__" in want), f"step {i}"


async def test_configurable_values_reach_the_nodes_per_call(store: Store) -> None:
    """`config["configurable"]` of each call is what nodes read; nothing of it is kept for the next call."""
    adapted = from_langgraph(chat_graph(), store=store)
    first = await adapted.run("t", {"messages": ["a"]}, config=_config("t", user="ann"))
    second = await adapted.run("t", {"messages": ["b"]})
    assert first["messages"][-1].startswith("bot to ann")
    assert second["messages"][-1].startswith("bot to ?")


async def test_a_config_naming_another_thread_is_refused(store: Store) -> None:
    """The run id is the thread id: a config naming another thread is an error naming both."""
    adapted = from_langgraph(chat_graph(), store=store)
    with pytest.raises(UnsupportedFeature, match="'other'.*'t'"):
        await adapted.run("t", {"messages": ["a"]}, config=_config("other"))


@pytest.fixture(params=sorted(TABLES))
def saver_factory(request: pytest.FixtureRequest, tmp_path: Path) -> Callable[[], Any]:
    """A factory of `GraphEngineSaver`s on an empty table of each backend."""
    return TABLES[request.param](tmp_path)


async def test_five_turns_with_graphengine_saver_match_langgraph(saver_factory: Callable[[], Any]) -> None:
    """A LangGraph chat checkpointed by `GraphEngineSaver` has LangGraph's state after each of 5 turns."""
    native = chat_graph().compile(checkpointer=InMemorySaver())
    async for saver in saver_factory():
        app = chat_graph().compile(checkpointer=saver)
        for i, text in enumerate(TURNS):
            want = await native.ainvoke({"messages": [text]}, _config("t", user="bo"))
            got = await app.ainvoke({"messages": [text]}, _config("t", user="bo"))
            assert got == want, f"turn {i}"
        native_steps = [h.metadata["step"] async for h in native.aget_state_history(_config("t"))]
        saver_steps = [h.metadata["step"] async for h in app.aget_state_history(_config("t"))]
        assert saver_steps == native_steps


# ---------------------------------------------------------------------------------- update_state


def two_step_graph() -> StateGraph[Any]:
    """START -> a -> b -> END, each appending its name."""
    b = StateGraph(Chat)
    b.add_node("a", lambda s: {"messages": ["a"]})
    b.add_node("b", lambda s: {"messages": ["b"], "replies": s.get("replies", 0) + 1})
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", END)
    return b


async def test_update_state_as_a_node_of_a_finished_thread_matches_langgraph(store: Store) -> None:
    """An edit as node a of a finished thread: same values, then the same run of b on resume, as LangGraph's invoke(None)."""
    native = two_step_graph().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(two_step_graph(), store=store)
    config = _config("t")
    await native.ainvoke({"messages": ["u"]}, config)
    await adapted.run("t", {"messages": ["u"]})
    await native.aupdate_state(config, {"messages": ["edit"]}, as_node="a")
    await adapted.update_state(config, {"messages": ["edit"]}, as_node="a")
    assert await adapted.values("t") == (await native.aget_state(config)).values
    assert (await native.aget_state(config)).next == ("b",)
    assert await adapted.resume("t") == await native.ainvoke(None, config)
    steps = await adapted.engine.history("t")
    assert [v.as_node for v in steps].count("__superstep__") == 1
    assert (await adapted.replay("t")).ok
    # and the thread goes on with a new turn, as LangGraph's does
    assert await adapted.run("t", {"messages": ["again"]}) == await native.ainvoke(
        {"messages": ["again"]}, config
    )


async def test_update_state_at_a_breakpoint_matches_langgraph(store: Store) -> None:
    """An edit of a thread paused before b (as LangGraph picks the node): same values, and the same run on resume."""
    native = two_step_graph().compile(checkpointer=InMemorySaver(), interrupt_before=["b"])
    adapted = from_langgraph(two_step_graph(), store=store, interrupt_before=["b"])
    config = _config("t")
    await native.ainvoke({"messages": ["u"]}, config)
    await adapted.run("t", {"messages": ["u"]})
    await native.aupdate_state(config, {"messages": ["edit"], "replies": 10})
    await adapted.update_state(config, {"messages": ["edit"], "replies": 10})
    assert await adapted.values("t") == (await native.aget_state(config)).values
    assert await adapted.resume("t") == await native.ainvoke(None, config)
    assert (await adapted.replay("t")).ok


async def test_a_per_call_recursion_limit_is_refused_not_ignored(store: Store) -> None:
    """A config recursion_limit the adapted graph cannot honour per call is an error naming the way out."""
    adapted = from_langgraph(chat_graph(), store=store)
    with pytest.raises(UnsupportedFeature, match=r"max_steps") as err:
        await adapted.run("t", {"messages": ["a"]}, config={"recursion_limit": 3})
    assert err.value.feature == "recursion_limit"
    limit = adapted.recursion_limit
    assert (await adapted.run("t", {"messages": ["a"]}, config={"recursion_limit": limit}))["replies"] == 1


async def test_context_schema_values_reach_nodes_and_replay_takes_them_again(store: Store) -> None:
    """LangGraph's run context (`context=`, a context_schema) reaches nodes each call as natively; replay is given it again."""
    from dataclasses import dataclass

    from langgraph.runtime import Runtime

    @dataclass
    class Who:
        user: str

    def greet(s: Chat, runtime: Runtime[Who]) -> dict[str, Any]:
        return {"messages": [f"hi {runtime.context.user}"]}

    def build() -> StateGraph[Any]:
        b = StateGraph(Chat, context_schema=Who)
        b.add_node("greet", greet)
        b.add_edge(START, "greet")
        return b

    native = build().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(build(), store=store)
    for user in ["ann", "bob"]:
        want = await native.ainvoke({"messages": ["x"]}, _config("t"), context=Who(user))
        got = await adapted.run("t", {"messages": ["x"]}, context=Who(user))
        assert got == want
    assert not (await adapted.replay("t", context=Who("ann"))).ok  # turn 2 ran for bob
    assert (await adapted.replay("t", context={"user": "ann"})).divergences[0].step > 2


async def test_a_config_checkpoint_id_is_refused_naming_fork(store: Store) -> None:
    """LangGraph's time travel by checkpoint_id is not silently ignored: the error names engine.fork."""
    adapted = from_langgraph(chat_graph(), store=store)
    await adapted.run("t", {"messages": ["a"]})
    with pytest.raises(UnsupportedFeature, match=r"fork") as err:
        await adapted.run("t", None, config=_config("t", checkpoint_id="1f0"))
    assert err.value.feature == "checkpoint_id"


def test_the_adapted_sync_forms_continue_and_edit_a_thread() -> None:
    """run_sync twice on a thread is LangGraph's invoke twice; update_state_sync then resume_sync is invoke(None)."""
    from graphengine.store import MemoryStore

    native = two_step_graph().compile(checkpointer=InMemorySaver())
    adapted = from_langgraph(two_step_graph(), store=MemoryStore())
    config = _config("t")
    for text in ["one", "two"]:
        assert adapted.run_sync("t", {"messages": [text]}) == native.invoke({"messages": [text]}, config)
    native.update_state(config, {"messages": ["edit"]}, as_node="a")
    adapted.update_state_sync(config, {"messages": ["edit"]}, as_node="a")
    assert adapted.resume_sync("t") == native.invoke(None, config)
