"""Graphs copied from LangGraph's own tests and documentation, each with the calls that drive it.

LangGraph is MIT-licensed; each graph names the test (`libs/langgraph/tests/test_pregel.py` at
langchain-ai/langgraph f09cfe8) or how-to it comes from. Assertions of the originals are left
out on purpose: the fidelity tests run each graph natively with LangGraph and through
`from_langgraph`, and LangGraph's own results are the expected values.

A case is a builder factory, `compile()` keywords (breakpoints) and a script: ("run", input)
starts the run, ("resume", value) answers a pause (`RESUME` alone: continue past a breakpoint;
"MAP" answers every pending interrupt by id, "ONE" the first of them by value).
"""

from __future__ import annotations

import operator
from collections.abc import Callable, Sequence
from dataclasses import dataclass, field
from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, BaseMessage, HumanMessage
from langchain_core.runnables import RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.types import Command, RetryPolicy, Send, interrupt
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

RESUME: Any = object()
"""A script's resume without a value: `invoke(None)` natively, `resume(run_id)` on the engine."""


@dataclass(frozen=True)
class Case:
    """One graph and how it is driven."""

    make: Callable[[], StateGraph[Any]]
    """Builds a fresh builder (nodes may keep counters, so never shared between runs)."""
    script: Sequence[tuple[str, Any]]
    """("run", input) then ("resume", value or RESUME) calls."""
    compile_kw: dict[str, Any] = field(default_factory=dict)
    """Breakpoints given to `compile()` (and to `from_langgraph`)."""
    context: Any = None
    """The run context given with the input (LangGraph's `invoke(context=...)`), if any."""


class _Node:
    """A node named `name` appending its name (test_cond_edge_after_send and friends)."""

    def __init__(self, name: str) -> None:
        self.name = name
        self.__name__ = name

    def __call__(self, state: Any) -> Any:
        update = [self.name] if isinstance(state, list) else ["|".join((self.name, str(state)))]
        if isinstance(state, Command):
            return [state, Command(update=update)]
        return update


def cond_edge_after_send() -> StateGraph[Any]:
    """test_cond_edge_after_send: a root list channel, two Sends to one node, then a conditional edge."""

    def send_for_fun(state: Any) -> list[Send]:
        return [Send("2", state), Send("2", state)]

    def route_to_three(state: Any) -> Literal["3"]:
        return "3"

    b = StateGraph(Annotated[list, operator.add])  # type: ignore[arg-type]
    for n in ("1", "2", "3"):
        b.add_node(_Node(n))  # type: ignore[call-overload]
    b.add_edge(START, "1")
    b.add_conditional_edges("1", send_for_fun)
    b.add_conditional_edges("2", route_to_three)
    return b


def concurrent_emit_sends() -> StateGraph[Any]:
    """test_concurrent_emit_sends: two entry edges, Sends mixed with a node name."""

    def send_for_fun(state: Any) -> list[Any]:
        return [Send("2", 1), Send("2", 2), "3.1"]

    def send_for_profit(state: Any) -> list[Send]:
        return [Send("2", 3), Send("2", 4)]

    def route_to_three(state: Any) -> Literal["3"]:
        return "3"

    b = StateGraph(Annotated[list, operator.add])  # type: ignore[arg-type]
    for n in ("1", "1.1", "2", "3", "3.1"):
        b.add_node(_Node(n))  # type: ignore[call-overload]
    b.add_edge(START, "1")
    b.add_edge(START, "1.1")
    b.add_conditional_edges("1", send_for_fun)
    b.add_conditional_edges("1.1", send_for_profit)
    b.add_conditional_edges("2", route_to_three)
    return b


def send_sequences() -> StateGraph[Any]:
    """test_send_sequences: Sends carrying Commands that send again."""

    def send_for_fun(state: Any) -> list[Any]:
        return [Send("2", Command(goto=Send("2", 3))), Send("2", Command(goto=Send("2", 4))), "3.1"]

    def route_to_three(state: Any) -> Literal["3"]:
        return "3"

    b = StateGraph(Annotated[list, operator.add])  # type: ignore[arg-type]
    for n in ("1", "2", "3", "3.1"):
        b.add_node(_Node(n))  # type: ignore[call-overload]
    b.add_edge(START, "1")
    b.add_conditional_edges("1", send_for_fun)
    b.add_conditional_edges("2", route_to_three)
    return b


class _Hello(TypedDict):
    hello: str
    messages: Annotated[list[str], add_messages]


def reducer_before_first_node() -> StateGraph[Any]:
    """test_reducer_before_first_node: `add_messages` turns the input "hello" into a HumanMessage."""
    b = StateGraph(_Hello)
    b.add_node("a", lambda s: None)
    b.set_entry_point("a")
    b.set_finish_point("a")
    return b


class _Weather(TypedDict):
    locations: list[str]
    results: Annotated[list[str], operator.add]


def conditional_entrypoint_send() -> StateGraph[Any]:
    """test_conditional_entrypoint_to_multiple_state_graph: a conditional entry point of Sends."""

    def get_weather(state: Any) -> dict[str, Any]:
        location = state["location"]
        weather = "sunny" if len(location) > 2 else "cloudy"
        return {"results": [f"It's {weather} in {location}"]}

    def continue_to_weather(state: _Weather) -> list[Send]:
        return [Send("get_weather", {"location": loc}) for loc in state["locations"]]

    b = StateGraph(_Weather)
    b.add_node("get_weather", get_weather)
    b.add_edge("get_weather", END)
    b.set_conditional_entry_point(continue_to_weather, path_map=["get_weather"])
    return b


class _Foo(TypedDict):
    foo: Annotated[list[str], operator.add]


def list_edge_inputs() -> StateGraph[Any]:
    """test_conditional_state_graph_with_list_edge_inputs: two entry edges, a waiting edge to END."""
    b = StateGraph(_Foo)
    b.add_node("A", lambda x: {"foo": ["A"]})
    b.add_node("B", lambda x: {"foo": ["B"]})
    b.add_edge(START, "A")
    b.add_edge(START, "B")
    b.add_edge(["A", "B"], END)
    return b


def _sorted_add(x: list[str], y: list[str] | list[tuple[str, str]]) -> list[str]:
    if isinstance(y[0], tuple):
        for rem, _ in y:
            x.remove(rem)  # type: ignore[arg-type]
        y = [t[1] for t in y]  # type: ignore[index]
    return sorted(operator.add(x, y))  # type: ignore[operator]


class _Docs(TypedDict, total=False):
    query: str
    answer: str
    docs: Annotated[list[str], _sorted_add]


def _retrieval(b: StateGraph[Any]) -> StateGraph[Any]:
    """The nodes both waiting-edge tests share, the join into `decider` and the loop back or on to `qa`."""

    def decider_cond(data: _Docs) -> str:
        return "qa" if data["query"].count("analyzed") > 1 else "rewrite_query"

    b.add_node("rewrite_query", lambda d: {"query": f"query: {d['query']}"})
    b.add_node("analyzer_one", lambda d: {"query": f"analyzed: {d['query']}"})
    b.add_node("retriever_one", lambda d: {"docs": ["doc1", "doc2"]})
    b.add_node("retriever_two", lambda d: {"docs": ["doc3", "doc4"]})
    b.add_node("decider", lambda d: None)
    b.add_node("qa", lambda d: {"answer": ",".join(d["docs"])})
    b.set_entry_point("rewrite_query")
    b.add_edge("analyzer_one", "retriever_one")
    b.add_edge(["retriever_one", "retriever_two"], "decider")
    b.add_conditional_edges("decider", decider_cond)
    b.set_finish_point("qa")
    return b


def waiting_edge_multiple_cond_edge() -> StateGraph[Any]:
    """test_in_one_fan_out_state_graph_waiting_edge_multiple_cond_edge: branches of different lengths join."""
    b = _retrieval(StateGraph(_Docs))
    b.add_conditional_edges("rewrite_query", lambda d: ["analyzer_one", "retriever_two"])
    return b


def waiting_edge_multiple() -> StateGraph[Any]:
    """test_in_one_fan_out_state_graph_waiting_edge_multiple: a join reached twice around a loop."""
    b = _retrieval(StateGraph(_Docs))
    b.add_edge("rewrite_query", "analyzer_one")
    b.add_edge("rewrite_query", "retriever_two")
    return b


class _MyKey(TypedDict):
    my_key: Annotated[str, operator.add]


def simple_multi_edge() -> StateGraph[Any]:
    """test_simple_multi_edge: a waiting edge from a node and its own successor."""
    b = StateGraph(_MyKey)
    b.add_node("up", lambda s: None)
    b.add_node("side", lambda s: None)
    b.add_node("other", lambda s: {"my_key": "_more"})
    b.add_node("down", lambda s: None)
    b.set_entry_point("up")
    b.add_edge("up", "side")
    b.add_edge("up", "other")
    b.add_edge(["up", "side"], "down")
    b.set_finish_point("down")
    return b


class _Inner(TypedDict):
    my_key: str
    my_other_key: str


class _Outer(TypedDict):
    my_key: str
    never_called: Any


def nested_graph() -> StateGraph[Any]:
    """test_nested_graph: a compiled subgraph as a node; its private key never reaches the parent."""
    inner = StateGraph(_Inner)
    inner.add_node("up", lambda s: {"my_key": s["my_key"] + " there", "my_other_key": s["my_key"]})
    inner.set_entry_point("up")
    inner.set_finish_point("up")
    b = StateGraph(_Outer)
    b.add_node("inner", inner.compile())
    b.add_node("side", lambda s: {"my_key": s["my_key"] + " and back again"})
    b.set_entry_point("inner")
    b.add_edge("inner", "side")
    b.set_finish_point("side")
    return b


class _Seq(TypedDict):
    foo: Annotated[list[str], operator.add]
    bar: str


def add_sequence() -> StateGraph[Any]:
    """test_add_sequence: `add_sequence` of named steps."""
    b = StateGraph(_Seq)
    b.add_sequence(
        [("meow1", lambda s: {"foo": ["step1"], "bar": "baz"}), ("meow2", lambda s: {"foo": ["step2"]})]
    )
    b.add_edge(START, "meow1")
    return b


def interrupt_multiple() -> StateGraph[Any]:
    """test_interrupt_multiple: two `interrupt()` calls in one node, answered with Command(update=, resume=)."""

    def node(s: _MyKey) -> dict[str, Any]:
        answer = interrupt({"value": 1})
        answer2 = interrupt({"value": 2})
        return {"my_key": answer + " " + answer2}

    b = StateGraph(_MyKey)
    b.add_node("node", node)
    b.add_edge(START, "node")
    return b


class _Age(TypedDict):
    age: int
    other: str


def interrupt_loop() -> StateGraph[Any]:
    """test_interrupt_loop: `interrupt()` in a loop until the answer is valid."""

    def ask_age(s: _Age) -> dict[str, Any]:
        question = "How old are you?"
        value: Any = None
        for _ in range(10):
            value = interrupt(question)
            if not value.isdigit() or int(value) < 18:
                question = "invalid response"
                value = None
            else:
                break
        return {"age": int(value)}

    b = StateGraph(_Age)
    b.add_node("node", ask_age)
    b.add_edge(START, "node")
    return b


class _PState(BaseModel):
    foo: str


@dataclass
class _DState:
    foo: str


def command_pydantic() -> StateGraph[Any]:
    """test_command_pydantic_dataclass (pydantic): a Command whose update is a state instance."""
    return _command_state(_PState)


def command_dataclass() -> StateGraph[Any]:
    """test_command_pydantic_dataclass (dataclass): a Command whose update is a state instance."""
    return _command_state(_DState)


def _command_state(state: Any) -> StateGraph[Any]:
    def node_a(s: Any) -> Command[Literal["node_b"]]:
        return Command(update=state(foo="foo"), goto="node_b")

    def node_b(s: Any) -> dict[str, Any]:
        return {"foo": s.foo + "bar"}

    b = StateGraph(state)
    b.add_edge(START, "node_a")
    b.add_node("node_a", node_a)
    b.add_node("node_b", node_b)
    return b


class _FooStr(TypedDict):
    foo: str


def _node1_node2(state: Any, write: Callable[[Any, str], dict[str, Any]]) -> StateGraph[Any]:
    """START -> node1 -> node2, each node writing `write(state, its name)`."""
    b = StateGraph(state)
    b.add_node("node1", lambda s: write(s, "node-1"))
    b.add_node("node2", lambda s: write(s, "node-2"))
    b.add_edge(START, "node1")
    b.add_edge("node1", "node2")
    return b


def command_with_static_breakpoints() -> StateGraph[Any]:
    """test_command_with_static_breakpoints: interrupt_before, resumed with a Command."""
    return _node1_node2(_FooStr, lambda s, me: {"foo": s["foo"] + "|" + me})


class _FooAdd(TypedDict):
    foo: Annotated[str, operator.add]


def command_goto_with_static_breakpoints() -> StateGraph[Any]:
    """test_command_goto_with_static_breakpoints: a breakpoint answered with Command(goto=[...])."""
    return _node1_node2(_FooAdd, lambda s, me: {"foo": "|" + me})


class _Plan(TypedDict, total=False):
    plan: list[str | list[str]]
    messages: Annotated[list[AnyMessage], add_messages]


def multistep_plan() -> StateGraph[Any]:
    """test_multistep_plan: Command(goto=...) to one node and to a list of nodes."""

    def planner(state: _Plan) -> Any:
        if state.get("plan") is None:
            first_step, *plan = ["step1", ["step2", "step3"], "step4"]
            return Command(goto=first_step, update={"plan": plan})
        if state["plan"]:
            next_step, *next_plan = state["plan"]
            return Command(goto=next_step, update={"plan": next_plan})
        return None

    def step(name: str) -> Callable[[_Plan], Command[Any]]:
        return lambda s: Command(goto="planner", update={"messages": [("human", name)]})

    b = StateGraph(_Plan)
    b.add_node("planner", planner)
    for n in ("step1", "step2", "step3", "step4"):
        b.add_node(n, step(n))
    b.add_edge(START, "planner")
    return b


class _Mut(BaseModel):
    class Inner(BaseModel):
        a: int = 0

    inner: Inner = Field(default_factory=Inner)
    outer: int = 0


def pydantic_state_mutation() -> StateGraph[Any]:
    """test_pydantic_state_mutation: a node that mutates and returns the model instance."""

    def my_node(state: _Mut) -> _Mut:
        state.inner.a = 5
        state.outer = 10
        return state

    return StateGraph(_Mut).add_node("my_node", my_node).add_edge(START, "my_node")


class _Node2State(TypedDict):
    hello: str
    bye: str
    messages: Annotated[list[str], add_messages]


class _Out(TypedDict):
    messages: list[str]


class _ForA(TypedDict):
    hello: str
    messages: Annotated[list[str], add_messages]


class _ForB(TypedDict):
    bye: str
    now: int


class _ForC(TypedDict):
    hello: str
    now: int


def node_schemas_custom_output() -> StateGraph[Any]:
    """test_node_schemas_custom_output: per-node input schemas, an output schema, a key outside the state."""

    def node_a(state: _ForA) -> None:
        assert set(state) <= {"hello", "messages"}

    def node_b(state: _ForB) -> dict[str, Any]:
        return {"now": 123, "hello": "again"}

    def node_c(state: _ForC) -> None:
        return None

    b = StateGraph(_Node2State, output_schema=_Out)
    b.add_node("a", node_a)
    b.add_node("b", node_b)
    b.add_node("c", node_c)
    b.add_edge(START, "a")
    b.add_edge("a", "b")
    b.add_edge("b", "c")
    return b


class _Child(TypedDict):
    prompt: str
    human_input: str
    human_inputs: list[str]


class _Parent(TypedDict):
    prompts: list[str]
    human_inputs: Annotated[list[str], operator.add]


def parallel_interrupts_in_sends() -> StateGraph[Any]:
    """test_multi_resume (without the child's checkpointer): Sends to a subgraph that interrupts, all answered."""

    def get_human_input(state: _Child) -> dict[str, Any]:
        human_input = interrupt(state["prompt"])
        return {"human_input": human_input, "human_inputs": [human_input]}

    child = (
        StateGraph(_Child)
        .add_node("get_human_input", get_human_input)
        .add_edge(START, "get_human_input")
        .add_edge("get_human_input", END)
        .compile()
    )
    return (
        StateGraph(_Parent)
        .add_node("child_graph", child)
        .add_node("cleanup", lambda s: None)
        .add_conditional_edges(
            START, lambda s: [Send("child_graph", {"prompt": p}) for p in s["prompts"]], ["child_graph"]
        )
        .add_edge("child_graph", "cleanup")
        .add_edge("cleanup", END)
    )


class _A(TypedDict):
    a: Annotated[list[str], operator.add]


def interrupt_beside_a_finished_task() -> StateGraph[Any]:
    """test_node_before_interrupt_resume_graph_api's shape: a parallel task finishes, the other interrupts."""

    def asker(s: _A) -> dict[str, Any]:
        return {"a": [interrupt("q?")]}

    b = StateGraph(_A)
    b.add_node("asker", asker)
    b.add_node("worker", lambda s: {"a": ["w"]})
    b.add_node("after", lambda s: {"a": ["after"]})
    b.add_edge(START, "asker")
    b.add_edge(START, "worker")
    b.add_edge(["asker", "worker"], "after")
    return b


def breakpoint_after() -> StateGraph[Any]:
    """The breakpoints how-to: interrupt_after a node, then continue."""
    b = StateGraph(_A)
    b.add_node("step_1", lambda s: {"a": ["1"]})
    b.add_node("step_2", lambda s: {"a": ["2"]})
    b.add_node("step_3", lambda s: {"a": ["3"]})
    b.add_edge(START, "step_1")
    b.add_edge("step_1", "step_2")
    b.add_edge("step_2", "step_3")
    return b


def chatbot_loop() -> StateGraph[Any]:
    """The quick-start agent loop on MessagesState: a model node and a tools node until no tool call."""

    def agent(s: MessagesState) -> dict[str, Any]:
        n = sum(isinstance(m, AIMessage) for m in s["messages"])
        if n < 2:
            call = {"name": "search", "args": {"q": str(n)}, "id": f"call{n}"}
            return {"messages": [AIMessage(content="", tool_calls=[call], id=f"ai{n}")]}
        return {"messages": [AIMessage(content="done", id="final")]}

    def tools(s: MessagesState) -> dict[str, Any]:
        last = s["messages"][-1]
        call = last.tool_calls[0]  # type: ignore[attr-defined]
        return {"messages": [HumanMessage(content=f"result {call['args']['q']}", id=f"tool{call['id']}")]}

    def route(s: MessagesState) -> str:
        return "tools" if getattr(s["messages"][-1], "tool_calls", None) else END

    b = StateGraph(MessagesState)
    b.add_node("agent", agent)
    b.add_node("tools", tools)
    b.add_edge(START, "agent")
    b.add_conditional_edges("agent", route, ["tools", END])
    b.add_edge("tools", "agent")
    return b


class _Joke(TypedDict):
    topic: str
    subjects: list[str]
    jokes: Annotated[list[str], operator.add]
    best_selected_joke: str


def map_reduce_how_to() -> StateGraph[Any]:
    """The map-reduce how-to: Send one `generate_joke` per subject, then pick the best."""

    def generate_topics(s: _Joke) -> dict[str, Any]:
        return {"subjects": [f"{s['topic']}-{i}" for i in range(3)]}

    def generate_joke(s: dict[str, Any]) -> dict[str, Any]:
        return {"jokes": [f"a joke about {s['subject']}"]}

    def best_joke(s: _Joke) -> dict[str, Any]:
        return {"best_selected_joke": max(s["jokes"])}

    b = StateGraph(_Joke)
    b.add_node("generate_topics", generate_topics)
    b.add_node("generate_joke", generate_joke)
    b.add_node("best_joke", best_joke)
    b.add_edge(START, "generate_topics")
    b.add_conditional_edges(
        "generate_topics",
        lambda s: [Send("generate_joke", {"subject": x}) for x in s["subjects"]],
        ["generate_joke"],
    )
    b.add_edge("generate_joke", "best_joke")
    b.add_edge("best_joke", END)
    return b


class _Io(TypedDict):
    question: str
    answer: str
    notes: str


class _In(TypedDict):
    question: str


class _OutA(TypedDict):
    answer: str


def input_output_schemas() -> StateGraph[Any]:
    """The input/output schema how-to: the input schema filters what goes in, the output what comes out."""
    b = StateGraph(_Io, input_schema=_In, output_schema=_OutA)
    b.add_node("think", lambda s: {"notes": f"about {s['question']}"})
    b.add_node("answer", lambda s: {"answer": f"{s['notes']}!"})
    b.add_edge(START, "think")
    b.add_edge("think", "answer")
    b.add_edge("answer", END)
    return b


class _Total(TypedDict):
    x: int
    y: int
    log: Annotated[list[str], operator.add]


def partial_input_of_total_typeddict() -> StateGraph[Any]:
    """A total TypedDict given partially (LangGraph accepts it); a node reads only what is set."""
    b = StateGraph(_Total)
    b.add_node("first", lambda s: {"y": s["x"] * 2, "log": ["first"]})
    b.add_node("second", lambda s: {"log": [f"y={s['y']}"]})
    b.add_edge(START, "first")
    b.add_edge("first", "second")
    return b


def runnable_nodes() -> StateGraph[Any]:
    """Runnables as nodes: a RunnableLambda and a RunnableSequence."""
    seq = RunnableLambda(lambda s: s["x"] + 1) | RunnableLambda(lambda v: {"y": v, "log": ["seq"]})
    b = StateGraph(_Total)
    b.add_node("lam", RunnableLambda(lambda s: {"x": s["x"] * 10, "log": ["lam"]}))
    b.add_node("seq", seq)
    b.add_edge(START, "lam")
    b.add_edge("lam", "seq")
    return b


def retry_policy() -> StateGraph[Any]:
    """The retry how-to: a node failing twice with a RetryPolicy of three attempts succeeds."""
    calls = {"n": 0}

    def flaky(s: _A) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] < 3:
            raise ValueError("try again")
        return {"a": [f"ok after {calls['n']}"]}

    b = StateGraph(_A)
    b.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=ValueError),
    )
    b.add_edge(START, "flaky")
    return b


def recursion_limit_loop() -> StateGraph[Any]:
    """A loop that never stops: LangGraph's recursion limit ends it with GraphRecursionError."""
    b = StateGraph(_A)
    b.add_node("spin", lambda s: {"a": ["x"]})
    b.add_edge(START, "spin")
    b.add_edge("spin", "spin")
    return b


class _Msgs(TypedDict):
    messages: Annotated[list[BaseMessage], add_messages]
    count: int


def async_nodes_and_command_update_goto() -> StateGraph[Any]:
    """Async nodes; Command(update=, goto=) to a node a static edge also reaches."""

    async def first(s: _Msgs) -> Command[Literal["second"]]:
        return Command(update={"messages": [("ai", "first")], "count": 1}, goto="second")

    async def second(s: _Msgs) -> dict[str, Any]:
        return {"messages": [("ai", f"second {s['count']}")], "count": s["count"] + 1}

    b = StateGraph(_Msgs)
    b.add_node("first", first)
    b.add_node("second", second)
    b.add_edge(START, "first")
    return b


CASES: dict[str, Case] = {
    "cond_edge_after_send": Case(cond_edge_after_send, [("run", ["0"])]),
    "concurrent_emit_sends": Case(concurrent_emit_sends, [("run", ["0"])]),
    "send_sequences": Case(send_sequences, [("run", ["0"])]),
    "reducer_before_first_node": Case(
        reducer_before_first_node, [("run", {"hello": "there", "messages": "hello"})]
    ),
    "conditional_entrypoint_send": Case(conditional_entrypoint_send, [("run", {"locations": ["sf", "nyc"]})]),
    "list_edge_inputs": Case(list_edge_inputs, [("run", {"foo": []})]),
    "waiting_edge_multiple_cond_edge": Case(
        waiting_edge_multiple_cond_edge, [("run", {"query": "what is weather in sf"})]
    ),
    "waiting_edge_multiple": Case(waiting_edge_multiple, [("run", {"query": "what is weather in sf"})]),
    "simple_multi_edge": Case(simple_multi_edge, [("run", {"my_key": "my_value"})]),
    "nested_graph": Case(nested_graph, [("run", {"my_key": "my value", "never_called": 1})]),
    "add_sequence": Case(add_sequence, [("run", {"foo": []})]),
    "interrupt_multiple": Case(
        interrupt_multiple,
        [
            ("run", {"my_key": "DE"}),
            ("resume", Command(resume="answer 1", update={"my_key": " foofoo "})),
            ("resume", Command(resume="answer 2")),
        ],
    ),
    "interrupt_loop": Case(
        interrupt_loop,
        [("run", {"other": ""}), ("resume", "13"), ("resume", "15"), ("resume", "19")],
    ),
    "command_pydantic": Case(command_pydantic, [("run", {"foo": ""})]),
    "command_dataclass": Case(command_dataclass, [("run", {"foo": ""})]),
    "command_pydantic_instance_input": Case(command_pydantic, [("run", _PState(foo=""))]),
    "command_dataclass_instance_input": Case(command_dataclass, [("run", _DState(foo=""))]),
    "command_with_static_breakpoints": Case(
        command_with_static_breakpoints,
        [("run", {"foo": "abc"}), ("resume", Command(resume="node1"))],
        {"interrupt_before": ["node1"]},
    ),
    "command_goto_with_static_breakpoints": Case(
        command_goto_with_static_breakpoints,
        [("run", {"foo": "abc"}), ("resume", Command(goto=["node2"]))],
        {"interrupt_before": ["node1"]},
    ),
    "multistep_plan": Case(multistep_plan, [("run", {"messages": [("human", "start")]})]),
    "pydantic_state_mutation": Case(pydantic_state_mutation, [("run", {"outer": 1})]),
    "node_schemas_custom_output": Case(
        node_schemas_custom_output,
        [("run", {"hello": "there", "bye": "world", "messages": "hello", "now": 345})],
    ),
    "parallel_interrupts_in_sends": Case(
        parallel_interrupts_in_sends, [("run", {"prompts": ["a", "b", "c"]}), ("resume", "MAP")]
    ),
    "parallel_interrupts_answered_one_at_a_time": Case(
        parallel_interrupts_in_sends,
        [("run", {"prompts": ["a", "b", "c"]}), ("resume", "ONE"), ("resume", "ONE"), ("resume", "ONE")],
    ),
    "interrupt_beside_a_finished_task": Case(
        interrupt_beside_a_finished_task, [("run", {"a": ["i"]}), ("resume", "ans")]
    ),
    "breakpoint_after": Case(
        breakpoint_after,
        [("run", {"a": []}), ("resume", RESUME), ("resume", RESUME)],
        {"interrupt_after": ["step_1", "step_2"]},
    ),
    "breakpoint_before_all": Case(
        breakpoint_after, [("run", {"a": []})] + [("resume", RESUME)] * 3, {"interrupt_before": "*"}
    ),
    "chatbot_loop": Case(chatbot_loop, [("run", {"messages": [("user", "hi")]})]),
    "map_reduce_how_to": Case(map_reduce_how_to, [("run", {"topic": "cats"})]),
    "input_output_schemas": Case(input_output_schemas, [("run", {"question": "why", "notes": "ignored"})]),
    "partial_input_of_total_typeddict": Case(partial_input_of_total_typeddict, [("run", {"x": 2})]),
    "runnable_nodes": Case(runnable_nodes, [("run", {"x": 1, "y": 0, "log": []})]),
    "retry_policy": Case(retry_policy, [("run", {"a": []})]),
    "recursion_limit_loop": Case(recursion_limit_loop, [("run", {"a": []})]),
    "async_nodes_and_command_update_goto": Case(
        async_nodes_and_command_update_goto, [("run", {"messages": "hello", "count": 0})]
    ),
}
