"""More graphs from LangGraph's tests and docs (test_pregel.py at langchain-ai/langgraph f09cfe8, MIT).

The second half of the corpus of `lg_graphs` (same `Case` form): subgraphs that interrupt or
command their parent, managed values, message removal, several updates from one node,
deferred nodes, runtime/config parameters, interrupts answered across several steps.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langchain_core.runnables import RunnableConfig
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.managed import RemainingSteps
from langgraph.runtime import Runtime
from langgraph.types import Command, Overwrite, Send, interrupt
from lg_graphs import RESUME, Case
from typing_extensions import TypedDict


def _chain(b: StateGraph[Any], *nodes: tuple[str, Any]) -> StateGraph[Any]:
    """`b` with `nodes` added in order and wired START -> first -> ... -> last."""
    prev = START
    for name, node in nodes:
        b.add_node(name, node)
        b.add_edge(prev, name)
        prev = name
    return b


class _Baz(TypedDict):
    baz: str


def interrupt_subgraph() -> StateGraph[Any]:
    """test_interrupt_subgraph: `interrupt()` inside a compiled subgraph, answered with Command(resume=)."""

    def bar(state: _Baz) -> dict[str, Any]:
        return {"baz": interrupt("Please provide baz value:")}

    child = StateGraph(_Baz)
    child.add_node("bar", bar)
    child.add_edge(START, "bar")
    return _chain(StateGraph(_Baz), ("foo", lambda s: {"baz": "foo"}), ("bar", child.compile()))


class _FooAdd(TypedDict):
    foo: Annotated[str, operator.add]


def multiple_updates() -> StateGraph[Any]:
    """test_multiple_updates: a node returning a list of Commands."""
    return (
        StateGraph(_FooAdd)
        .add_sequence(
            [
                ("node_a", lambda s: [Command(update={"foo": "a1"}), Command(update={"foo": "a2"})]),
                ("node_b", lambda s: {"foo": "b"}),
            ]
        )
        .add_edge(START, "node_a")
    )


def multiple_updates_root() -> StateGraph[Any]:
    """test_multiple_updates_root: a root channel (not a dict state) updated by a list of Commands."""
    return (
        StateGraph(Annotated[str, operator.add])  # type: ignore[arg-type]
        .add_sequence(
            [("node_a", lambda s: [Command(update="a1"), Command(update="a2")]), ("node_b", lambda s: "b")]
        )
        .add_edge(START, "node_a")
    )


def dict_mixed_return() -> StateGraph[Any]:
    """test_dict_mixed_return: a node returning a Command and a dict together."""
    b = StateGraph(_FooAdd)
    b.add_node("my_node", lambda s: [Command(update={"foo": "a"}), {"foo": "b"}])
    b.add_edge(START, "my_node")
    return b


def remove_message_from_node() -> StateGraph[Any]:
    """test_remove_message_from_node: RemoveMessage by the id add_messages gave."""
    b = StateGraph(Annotated[list[AnyMessage], add_messages])  # type: ignore[arg-type]
    b.add_node("chatbot", lambda s: [AIMessage(content="Hello!"), AIMessage(content="How can I help you?")])
    b.add_node("delete_messages", lambda s: [RemoveMessage(id=s[-2].id)])
    b.set_entry_point("chatbot")
    b.add_edge("chatbot", "delete_messages")
    b.add_edge("delete_messages", END)
    return b


class _Topics(TypedDict):
    topics: list[str]
    answers: Annotated[list[str], operator.add]


def node_before_interrupt_resume() -> StateGraph[Any]:
    """test_node_before_interrupt_resume_graph_api: a node asking one question per topic, answered one at a time."""

    def ask(state: _Topics) -> dict[str, Any]:
        return {"answers": [interrupt(f"Whats the answer for {t}?") for t in state["topics"]]}

    return (
        StateGraph(_Topics)
        .add_node("setup", lambda s: {"topics": [f"topic {i + 1}" for i in range(len(s["topics"]))]})
        .add_node("ask", ask)
        .add_edge(START, "setup")
        .add_edge("setup", "ask")
        .add_edge("ask", END)
    )


class _Steps(TypedDict):
    log: Annotated[list[int], operator.add]
    remaining_steps: RemainingSteps


def remaining_steps() -> StateGraph[Any]:
    """The recursion-limit how-to: a loop that stops itself when RemainingSteps runs low."""
    b = StateGraph(_Steps)
    b.add_node("loop", lambda s: {"log": [s["remaining_steps"]]})
    b.add_edge(START, "loop")
    b.add_conditional_edges("loop", lambda s: END if s["remaining_steps"] <= 20 else "loop")
    return b


class _Docs(TypedDict):
    docs: Annotated[list[str], operator.add]
    summary: str


def deferred_node() -> StateGraph[Any]:
    """test_in_one_fan_out_state_graph_defer_node's shape: a deferred node runs once every branch is done."""
    b = StateGraph(_Docs)
    b.add_node("a", lambda s: {"docs": ["a"]})
    b.add_node("b1", lambda s: {"docs": ["b1"]})
    b.add_node("b2", lambda s: {"docs": ["b2"]})
    b.add_node("sum", lambda s: {"summary": "+".join(s["docs"])}, defer=True)
    b.add_edge(START, "a")
    b.add_edge(START, "b1")
    b.add_edge("b1", "b2")
    b.add_edge("a", "sum")
    b.add_edge("b2", "sum")
    b.add_edge("sum", END)
    return b


class _Cfg(TypedDict):
    seen: Annotated[list[str], operator.add]


def config_and_runtime_parameters() -> StateGraph[Any]:
    """Nodes taking `config` (the thread id) and `runtime` (LangGraph's Runtime, no context given)."""

    def with_config(s: _Cfg, config: RunnableConfig) -> dict[str, Any]:
        return {"seen": [str(config["configurable"]["thread_id"])]}

    def with_runtime(s: _Cfg, runtime: Any) -> dict[str, Any]:
        return {"seen": [repr(runtime.context)]}

    return _chain(StateGraph(_Cfg), ("with_config", with_config), ("with_runtime", with_runtime))


class _Parent(TypedDict):
    log: Annotated[list[str], operator.add]


def parent_command_goto() -> StateGraph[Any]:
    """test_parent_command_goto's shape: a subgraph node sends Command(graph=PARENT, goto=...) to the parent."""

    def decide(s: _Parent) -> Command[Any]:
        return Command(graph=Command.PARENT, goto="after", update={"log": ["from child"]})

    child = StateGraph(_Parent).add_node("decide", decide).add_edge(START, "decide").compile()
    b = StateGraph(_Parent)
    b.add_node("child", child, destinations=("after",))
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "child")
    return b


def command_goto_send() -> StateGraph[Any]:
    """Command(goto=[Send(...)]) from a node: dynamic tasks with their own input."""

    def fan(s: _Parent) -> Command[Any]:
        return Command(goto=[Send("leaf", {"log": [f"leaf {i}"]}) for i in range(3)], update={"log": ["fan"]})

    b = StateGraph(_Parent)
    b.add_node("fan", fan)
    b.add_node("leaf", lambda s: {"log": [f"got {s['log'][-1]}"]})
    b.add_edge(START, "fan")
    return b


class _Over(TypedDict):
    items: Annotated[list[str], operator.add]


def overwrite_reducer() -> StateGraph[Any]:
    """The Overwrite how-to: a node replacing a reducer channel's value instead of adding to it."""
    return _chain(
        StateGraph(_Over),
        ("add", lambda s: {"items": ["x", "y"]}),
        ("reset", lambda s: {"items": Overwrite(["only"])}),
    )


def human_in_the_loop_review() -> StateGraph[Any]:
    """The human-in-the-loop how-to: approve or edit a draft, routing with Command(goto=) from the reviewer."""

    class Draft(TypedDict):
        messages: Annotated[list[AnyMessage], add_messages]
        draft: str

    def write(s: Draft) -> dict[str, Any]:
        return {"draft": f"draft {len(s['messages'])}"}

    def review(s: Draft) -> Command[Any]:
        answer = interrupt({"draft": s["draft"]})
        if answer == "ok":
            return Command(goto="publish")
        return Command(goto="write", update={"messages": [HumanMessage(content=answer, id=f"h{answer}")]})

    b = StateGraph(Draft)
    b.add_node("write", write)
    b.add_node("review", review, destinations=("publish", "write"))
    b.add_node("publish", lambda s: {"messages": [AIMessage(content=s["draft"], id="pub")]})
    b.add_edge(START, "write")
    b.add_edge("write", "review")
    b.add_edge("publish", END)
    return b


@dataclass
class _UserContext:
    user: str
    tone: str = "plain"


def runtime_context() -> StateGraph[Any]:
    """The runtime-context how-to: nodes read `runtime.context` (a dataclass context_schema), also after a pause."""

    def greet(s: _Cfg, runtime: Runtime[_UserContext]) -> dict[str, Any]:
        return {"seen": [f"hello {runtime.context.user} ({runtime.context.tone})"]}

    def confirm(s: _Cfg, runtime: Runtime[_UserContext]) -> dict[str, Any]:
        return {"seen": [f"{interrupt('ok?')} from {runtime.context.user}"]}

    return _chain(StateGraph(_Cfg, context_schema=_UserContext), ("greet", greet), ("confirm", confirm))


class _InnerKey(TypedDict):
    my_key: Annotated[str, operator.add]
    my_other_key: str


def nested_graph_interrupts_parallel() -> StateGraph[Any]:
    """test_nested_graph_interrupts_parallel: a subgraph's own breakpoint pauses the parent beside a finished task."""
    inner = StateGraph(_InnerKey)
    inner.add_node("inner_1", lambda s: {"my_key": "got here", "my_other_key": s["my_key"]})
    inner.add_node("inner_2", lambda s: {"my_key": " and there", "my_other_key": s["my_key"]})
    inner.add_edge("inner_1", "inner_2")
    inner.set_entry_point("inner_1")
    inner.set_finish_point("inner_2")
    b = StateGraph(_FooKey)
    b.add_node("inner", inner.compile(interrupt_before=["inner_2"]))
    b.add_node("outer_1", lambda s: {"my_key": " and parallel"})
    b.add_node("outer_2", lambda s: {"my_key": " and back again"})
    b.add_edge(START, "inner")
    b.add_edge(START, "outer_1")
    b.add_edge(["inner", "outer_1"], "outer_2")
    b.set_finish_point("outer_2")
    return b


class _FooKey(TypedDict):
    my_key: Annotated[str, operator.add]


class _Plain(TypedDict):
    my_key: str


def doubly_nested_graph_interrupts() -> StateGraph[Any]:
    """test_doubly_nested_graph_interrupts: a grandchild's breakpoint pauses the whole graph."""
    grandchild = StateGraph(_Plain)
    grandchild.add_node("grandchild_1", lambda s: {"my_key": s["my_key"] + " here"})
    grandchild.add_node("grandchild_2", lambda s: {"my_key": s["my_key"] + " and there"})
    grandchild.add_edge("grandchild_1", "grandchild_2")
    grandchild.set_entry_point("grandchild_1")
    grandchild.set_finish_point("grandchild_2")
    child = StateGraph(_Plain)
    child.add_node("child_1", grandchild.compile(interrupt_before=["grandchild_2"]))
    child.set_entry_point("child_1")
    child.set_finish_point("child_1")
    b = StateGraph(_Plain)
    b.add_node("parent_1", lambda s: {"my_key": "hi " + s["my_key"]})
    b.add_node("child", child.compile())
    b.add_node("parent_2", lambda s: {"my_key": s["my_key"] + " and back again"})
    b.set_entry_point("parent_1")
    b.add_edge("parent_1", "child")
    b.add_edge("child", "parent_2")
    b.set_finish_point("parent_2")
    return b


def node_error_handler() -> StateGraph[Any]:
    """The error-handler how-to: a failing node's handler runs in its place and routes on."""

    def boom(s: _Parent) -> dict[str, Any]:
        raise ValueError("boom")

    def handler(s: _Parent) -> Command[Any]:
        return Command(update={"log": ["handled"]}, goto="after")

    b = StateGraph(_Parent)
    b.add_node("boom", boom, error_handler=handler)
    b.add_node("side", lambda s: {"log": ["side"]})
    b.add_node("after", lambda s: {"log": ["after"]})
    b.add_edge(START, "boom")
    b.add_edge(START, "side")
    return b


class _Last(TypedDict):
    value: str
    log: Annotated[list[str], operator.add]


def parallel_writes_to_one_value() -> StateGraph[Any]:
    """test_invoke_two_processes_two_in_two_out_invalid's rule: two tasks writing one LastValue key in one step fail."""
    b = StateGraph(_Last)
    b.add_node("left", lambda s: {"value": "l", "log": ["left"]})
    b.add_node("right", lambda s: {"value": "r", "log": ["right"]})
    b.add_edge(START, "left")
    b.add_edge(START, "right")
    return b


def node_returns_a_string() -> StateGraph[Any]:
    """A node returning neither a dict nor a Command: LangGraph's InvalidUpdateError."""
    b = StateGraph(_Last)
    b.add_node("bad", lambda s: "not an update")
    b.add_edge(START, "bad")
    return b


def route_to_a_missing_node() -> StateGraph[Any]:
    """A conditional edge without a path map naming a node that does not exist."""
    b = StateGraph(_Last)
    b.add_node("a", lambda s: {"log": ["a"]})
    b.add_edge(START, "a")
    b.add_conditional_edges("a", lambda s: "nowhere")
    return b


def node_raises_after_a_pause() -> StateGraph[Any]:
    """A node whose answer makes it raise: the error surfaces from the resume, as from LangGraph's invoke."""

    def ask(s: _Last) -> dict[str, Any]:
        answer = interrupt("number?")
        return {"value": str(int(answer))}

    b = StateGraph(_Last)
    b.add_node("ask", ask)
    b.add_edge(START, "ask")
    return b


CASES: dict[str, Case] = {
    "node_error_handler": Case(node_error_handler, [("run", {"log": []})]),
    "nested_graph_interrupts_parallel": Case(
        nested_graph_interrupts_parallel, [("run", {"my_key": ""}), ("resume", RESUME)]
    ),
    "doubly_nested_graph_interrupts": Case(
        doubly_nested_graph_interrupts, [("run", {"my_key": "my value"}), ("resume", RESUME)]
    ),
    "runtime_context": Case(
        runtime_context, [("run", {"seen": []}), ("resume", "yes")], context={"user": "ada"}
    ),
    "parallel_writes_to_one_value": Case(parallel_writes_to_one_value, [("run", {"value": "", "log": []})]),
    "node_returns_a_string": Case(node_returns_a_string, [("run", {"value": "", "log": []})]),
    "route_to_a_missing_node": Case(route_to_a_missing_node, [("run", {"value": "", "log": []})]),
    "node_raises_after_a_pause": Case(
        node_raises_after_a_pause, [("run", {"value": "", "log": []}), ("resume", "seven")]
    ),
    "input_of_the_wrong_type": Case(multiple_updates, [("run", "not a dict")]),
    "interrupt_subgraph": Case(interrupt_subgraph, [("run", {"baz": ""}), ("resume", "bar")]),
    "multiple_updates": Case(multiple_updates, [("run", {"foo": ""})]),
    "multiple_updates_root": Case(multiple_updates_root, [("run", "")]),
    "dict_mixed_return": Case(dict_mixed_return, [("run", {"foo": ""})]),
    "remove_message_from_node": Case(
        remove_message_from_node, [("run", [HumanMessage(content="Hi", id="h1")])]
    ),
    "node_before_interrupt_resume": Case(
        node_before_interrupt_resume,
        [("run", {"topics": ["a", "b"], "answers": []}), ("resume", "answer1"), ("resume", "answer2")],
    ),
    "remaining_steps": Case(remaining_steps, [("run", {"log": []})]),
    "deferred_node": Case(deferred_node, [("run", {"docs": []})]),
    "config_and_runtime_parameters": Case(config_and_runtime_parameters, [("run", {"seen": []})]),
    "parent_command_goto": Case(parent_command_goto, [("run", {"log": []})]),
    "command_goto_send": Case(command_goto_send, [("run", {"log": []})]),
    "overwrite_reducer": Case(overwrite_reducer, [("run", {"items": ["start"]})]),
    "human_in_the_loop_review": Case(
        human_in_the_loop_review,
        [
            ("run", {"messages": [HumanMessage(content="go", id="m0")]}),
            ("resume", "shorter"),
            ("resume", "ok"),
        ],
    ),
    "interrupt_subgraph_after_breakpoint": Case(
        interrupt_subgraph,
        [("run", {"baz": ""}), ("resume", RESUME), ("resume", "bar")],
        {"interrupt_before": ["bar"]},
    ),
}
