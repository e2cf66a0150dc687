"""GOAP for DeepAgents: a planning tool and a ``CompiledSubAgent``-shaped dict."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from types import SimpleNamespace
from typing import Annotated, Any, TypedDict

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from langchain_core.tools import StructuredTool
from langgraph.graph import StateGraph
from langgraph.graph.message import add_messages


def format_goap_result(result: Mapping[str, Any]) -> str:
    """A GOAP run's final state as text: the status, the executed actions, the final world."""
    out = [f"GOAP Result: {result.get('status', 'unknown')}"]
    if history := result.get("execution_history"):
        out += ["", "Executed actions:"]
        for rec in history:
            if isinstance(rec, Mapping):
                rec = SimpleNamespace(action_name=rec.get("action", "?"), success=rec.get("success", "?"))
            name = getattr(rec, "action_name", None)
            out.append(f"  - {name} (success={getattr(rec, 'success', '?')})" if name else f"  - {rec}")
    if world := result.get("world_state"):
        out += ["", "Final world state:"] + [f"  {k}: {world[k]}" for k in sorted(world)]
    return "\n".join(out)


class _Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]


def _runner(actions: Sequence[Any], llm: Any, world: Mapping[str, Any] | None, kwargs: Any) -> Any:
    """Sync and async functions running the GOAP graph on a request and formatting the outcome."""
    from goap.compat.graph.builder import GoapGraph

    graph, start = GoapGraph(actions=list(actions), **dict(kwargs or {})), dict(world or {})

    def run(request: str) -> str:
        """Reach the goal ``request`` describes in plain language."""
        return format_goap_result(dict(graph.invoke_nl(request, world_state=dict(start), llm=llm)))

    async def arun(request: str) -> str:
        return format_goap_result(dict(await graph.ainvoke_nl(request, world_state=dict(start), llm=llm)))

    return run, arun


def create_goap_tool(
    actions: Sequence[Any],
    *,
    llm: Any,
    name: str = "goap_planner",
    description: str = "Reach a goal stated in plain language by GOAP planning and acting.",
    world_state: Mapping[str, Any] | None = None,
    graph_kwargs: Mapping[str, Any] | None = None,
) -> StructuredTool:
    """A LangChain tool taking ``request``: ``llm`` interprets it, the GOAP graph runs, the result is text."""
    run, arun = _runner(actions, llm, world_state, graph_kwargs)
    return StructuredTool.from_function(run, coroutine=arun, name=name, description=description)


def create_goap_subagent(
    actions: Sequence[Any],
    *,
    llm: Any,
    name: str = "goap_planner",
    description: str = "A GOAP subagent: give it a goal in plain language and it plans and acts.",
    world_state: Mapping[str, Any] | None = None,
    graph_kwargs: Mapping[str, Any] | None = None,
) -> dict[str, Any]:
    """``{name, description, runnable}``: the runnable answers the last human message."""
    run, arun = _runner(actions, llm, world_state, graph_kwargs)

    def task(msgs: Sequence[Any]) -> str:
        return str(next((m.content for m in reversed(msgs) if isinstance(m, HumanMessage)), msgs[-1].content))

    def node(state: _Chat) -> dict[str, Any]:
        return {"messages": [AIMessage(content=run(task(state["messages"])))]}

    async def anode(state: _Chat) -> dict[str, Any]:
        return {"messages": [AIMessage(content=await arun(task(state["messages"])))]}

    builder = StateGraph(_Chat)
    builder.add_node("goap", RunnableLambda(node, afunc=anode))
    builder.set_entry_point("goap")
    builder.set_finish_point("goap")
    return {"name": name, "description": description, "runnable": builder.compile()}
