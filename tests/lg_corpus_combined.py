"""The held-out set: LangGraph graphs combining features the corpus (`lg_corpus_flow`, `lg_corpus_pause`) tests one by one.

Written for this project (see `lg_cases` for the case form): subgraphs invoked from inside
nodes (sync and async, with their own checkpointer, with Command(graph=PARENT)), Send and
Command inside subgraphs, interrupts several levels down or in parallel tasks, errors and
retries beside other tasks of a superstep, error handlers and node defaults, managed values and
context in subgraphs, large fan-outs, deferral after Sends, message removal in subgraphs.

Some values are deliberately left out of what a graph writes: where LangGraph's own behaviour
depends on thread timing (a sibling of a failing task may or may not run again on resume; of
several parallel Command(graph=PARENT) the first to finish wins), a call count or a choice
would not be an oracle, and the docstring says so.
"""

from __future__ import annotations

import operator
import time
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage
from langgraph.errors import NodeError
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import REMOVE_ALL_MESSAGES, add_messages
from langgraph.managed import RemainingSteps
from langgraph.runtime import Runtime
from langgraph.types import CachePolicy, Command, RetryPolicy, Send, interrupt
from lg_cases import RESUME, Case, chain
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

# ---------------------------------------------------------------------- subgraphs invoked inside nodes


class _Parcel(TypedDict):
    parcel: Any


def sync_node_calls_a_twice_pausing_subgraph() -> StateGraph[Any]:
    """A sync node calls `subgraph.invoke`; the subgraph's two nodes each `interrupt()` in turn."""

    def scan(state: _Parcel) -> dict[str, Any]:
        return {"parcel": f"{state['parcel']}|scanned:{interrupt('scan ok?')}"}

    def stamp(state: _Parcel) -> dict[str, Any]:
        return {"parcel": f"{state['parcel']}|stamped:{interrupt('stamp ok?')}"}

    customs = chain(StateGraph(_Parcel), ("scan", scan), ("stamp", stamp)).compile()

    def clear_customs(state: _Parcel) -> Any:
        return customs.invoke(state)

    return chain(StateGraph(_Parcel), ("clear_customs", clear_customs))


class _Odometer(TypedDict):
    km: Annotated[int, operator.add]
    last: str


class _Trip(TypedDict):
    km: int


def subgraph_with_its_own_checkpointer() -> StateGraph[Any]:
    """A subgraph compiled with `checkpointer=True` keeps its state between the parent's calls of it (a loop)."""
    inner = StateGraph(_Odometer)
    inner.add_node("drive", lambda s: {"km": 10, "last": f"from {s['km']}"})
    inner.add_node("rest", lambda s: {"km": 1})
    inner.add_edge(START, "drive")
    inner.add_edge("drive", "rest")
    b = StateGraph(_Trip)
    b.add_node("leg", inner.compile(checkpointer=True))
    b.add_edge(START, "leg")
    b.add_conditional_edges("leg", lambda s: "leg" if s["km"] < 30 else END)
    return b


class _Sign(TypedDict):
    text: str
    extra: str


class _Shop(TypedDict):
    name: str


def node_calls_a_checkpointed_subgraph_that_pauses() -> StateGraph[Any]:
    """A node invokes a `checkpointer=True` subgraph whose first node interrupts; the answer reaches its second node."""

    def ask_extra(state: _Sign) -> dict[str, Any]:
        return {"extra": interrupt("what goes under the name?")}

    def paint(state: _Sign) -> dict[str, Any]:
        return {"text": f"{state['text']} / {state['extra']}"}

    signwriter = chain(StateGraph(_Sign), ("ask_extra", ask_extra), ("paint", paint)).compile(
        checkpointer=True
    )

    def order_sign(state: _Shop) -> dict[str, Any]:
        return {"name": signwriter.invoke({"text": state["name"]})["text"]}

    return chain(
        StateGraph(_Shop), ("open", lambda s: {"name": s["name"].upper()}), ("order_sign", order_sign)
    )


class _Pair(TypedDict):
    x: int
    y: int


class _Out(TypedDict):
    out: int


class _Both(TypedDict):
    gcd: int
    lcm: int


def _number_subgraphs() -> tuple[Any, Any]:
    """Two subgraphs with an output schema: the greatest common divisor and the least common multiple."""

    def gcd(state: _Pair) -> dict[str, Any]:
        a, b = state["x"], state["y"]
        while b:
            a, b = b, a % b
        return {"out": a}

    def lcm(state: _Pair) -> dict[str, Any]:
        return {"out": state["x"] * state["y"] // gcd(state)["out"]}

    g = StateGraph(_Pair, output_schema=_Out).add_node("gcd", gcd).add_edge(START, "gcd").compile()
    m = StateGraph(_Pair, output_schema=_Out).add_node("lcm", lcm).add_edge(START, "lcm").compile()
    return g, m


def one_subgraph_called_twice_in_a_node() -> StateGraph[Any]:
    """A node invokes the same output-schema subgraph twice, feeding the first result to the second call."""
    g, _ = _number_subgraphs()

    def reduce_twice(state: _Pair) -> Any:
        first = g.invoke(state)
        return g.invoke({"x": first["out"], "y": 6})

    return (
        StateGraph(_Pair, output_schema=_Out)
        .add_node("reduce_twice", reduce_twice)
        .add_edge(START, "reduce_twice")
    )


def two_subgraphs_called_in_a_node() -> StateGraph[Any]:
    """A node invokes two different subgraphs and writes both results."""
    g, m = _number_subgraphs()

    def both(state: _Pair) -> dict[str, Any]:
        return {"gcd": g.invoke(state)["out"], "lcm": m.invoke(state)["out"]}

    return StateGraph(_Pair, output_schema=_Both).add_node("both", both).add_edge(START, "both")


class _Gate(TypedDict):
    gate: int
    passed: Annotated[list[str], operator.add]


class _Check(TypedDict):
    leave: bool


def parent_command_from_a_node_invoked_subgraph() -> StateGraph[Any]:
    """A node calls two subgraphs in turn; either may return Command(graph=PARENT, goto=) and cut the node short."""

    def inspect(state: _Check) -> Any:
        if state["leave"]:
            return Command(graph=Command.PARENT, goto="exit_hall", update={"passed": ["left early"]})
        return {"leave": False}

    first = StateGraph(_Check).add_node("inspect", inspect).add_edge(START, "inspect").compile()
    second = StateGraph(_Check).add_node("inspect", inspect).add_edge(START, "inspect").compile()

    def security(state: _Gate) -> dict[str, Any]:
        first.invoke({"leave": state["gate"] == 1})
        second.invoke({"leave": state["gate"] == 2})
        return {"passed": ["both checks"]}

    b = StateGraph(_Gate)
    b.add_node("security", security)
    b.add_node("exit_hall", lambda s: {"passed": ["exit hall"]})
    b.add_edge(START, "security")
    b.add_edge("exit_hall", END)
    return b


class _Dice(TypedDict):
    roll: Annotated[str, operator.add]


def subgraph_node_with_destinations_map() -> StateGraph[Any]:
    """A compiled subgraph node declared with a destinations dict; its node routes the parent with Command(graph=PARENT)."""

    def throw(state: _Dice) -> Command[Any]:
        target = "even" if len(state["roll"]) % 2 == 0 else "odd"
        return Command(update={"roll": f"[{len(state['roll'])}]"}, goto=target, graph=Command.PARENT)

    cup = StateGraph(_Dice).add_node("throw", throw).add_edge(START, "throw").compile()
    b = StateGraph(_Dice)
    b.add_node("cup", cup, destinations={"even": "an even count", "odd": "an odd count"})
    b.add_node("even", lambda s: {"roll": "E"})
    b.add_node("odd", lambda s: {"roll": "O"})
    b.add_edge(START, "cup")
    return b


# ---------------------------------------------------------------------- Send and Command inside subgraphs


class _Press(TypedDict):
    headline: str
    pages: Annotated[list[str], operator.add]


class _EditionIn(TypedDict):
    headline: str


class _EditionOut(TypedDict):
    pages: list[str]


class _Edition(TypedDict):
    headline: str
    sections: list[str]
    pages: Annotated[list[str], operator.add]
    editor: str


def map_reduce_inside_a_schema_subgraph() -> StateGraph[Any]:
    """A Send map-reduce inside a subgraph with input and output schemas (its private key stays inside)."""

    def plan(state: _Edition) -> dict[str, Any]:
        return {"sections": ["news", "sport", "weather", "puzzles"], "editor": "Noor"}

    def write(arg: dict[str, Any]) -> dict[str, Any]:
        return {"pages": [f"{arg['section']}: {arg['headline']}"]}

    def sign(state: _Edition) -> dict[str, Any]:
        return {"pages": [f"{len(state['pages'])} pages, ed. {state['editor']}"]}

    sb = StateGraph(_Edition, input_schema=_EditionIn, output_schema=_EditionOut)
    sb.add_node("plan", plan)
    sb.add_node("write", write)
    sb.add_node("sign", sign)
    sb.add_edge(START, "plan")
    sb.add_conditional_edges(
        "plan",
        lambda s: [Send("write", {"section": x, "headline": s["headline"]}) for x in s["sections"]],
        ["write"],
    )
    sb.add_edge("write", "sign")
    return chain(StateGraph(_Press), ("cover", lambda s: {"pages": ["cover"]}), ("edition", sb.compile()))


class _Tasks(TypedDict):
    sizes: list[int]
    done: Annotated[list[str], operator.add]


def one_send_task_commands_the_parent() -> StateGraph[Any]:
    """Send tasks inside a subgraph; one of them (only one: of several, LangGraph keeps whichever finishes first)
    returns Command(graph=PARENT, update=, goto=)."""

    def cut(arg: dict[str, Any]) -> Any:
        if arg["size"] == arg["biggest"]:
            return Command(graph=Command.PARENT, update={"done": [f"big cut {arg['size']}"]}, goto="report")
        return {"done": [f"cut {arg['size']}"]}

    saw = StateGraph(_Tasks)
    saw.add_node("cut", cut)
    saw.add_conditional_edges(
        START, lambda s: [Send("cut", {"size": n, "biggest": max(s["sizes"])}) for n in s["sizes"]], ["cut"]
    )
    b = StateGraph(_Tasks)
    b.add_node("saw", saw.compile(), destinations=("report",))
    b.add_node("report", lambda s: {"done": [f"report of {len(s['done'])}"]})
    b.add_edge(START, "saw")
    return b


def parent_command_sends_from_a_subgraph() -> StateGraph[Any]:
    """A subgraph node returns Command(graph=PARENT, goto=[Send(...), ...]): tasks of a parent node."""

    def assign(state: _Tasks) -> Command[Any]:
        return Command(graph=Command.PARENT, goto=[Send("build", {"size": n}) for n in state["sizes"]])

    foreman = StateGraph(_Tasks).add_node("assign", assign).add_edge(START, "assign").compile()
    b = StateGraph(_Tasks)
    b.add_node("foreman", foreman, destinations=("build",))
    b.add_node("build", lambda arg: {"done": [f"built {arg['size']}"]})
    b.add_edge(START, "foreman")
    return b


class _Story(TypedDict):
    story: Annotated[list[str], operator.add]


def two_questions_two_levels_down() -> StateGraph[Any]:
    """A grandchild node asks two questions; nodes before and after at every level run once."""

    def quiz(state: _Story) -> dict[str, Any]:
        hero = interrupt("hero?")
        villain = interrupt("villain?")
        return {"story": [f"{hero} meets {villain}"]}

    scene = chain(StateGraph(_Story), ("quiz", quiz)).compile()
    act = chain(
        StateGraph(_Story), ("curtain", lambda s: {"story": ["curtain up"]}), ("scene", scene)
    ).compile()
    return chain(
        StateGraph(_Story),
        ("prologue", lambda s: {"story": ["prologue"]}),
        ("act", act),
        ("epilogue", lambda s: {"story": [f"epilogue after {len(s['story'])}"]}),
    )


class _Seat(BaseModel):
    seat: str = Field(..., description="the seat asked about")
    picks: Annotated[list[str], operator.add] = Field(default_factory=list)


class _Hall(BaseModel):
    seats: list[str]
    picks: Annotated[list[str], operator.add] = Field(default_factory=list)


def pydantic_subgraph_with_two_parallel_questions() -> StateGraph[Any]:
    """Pydantic states; one Send per seat to a subgraph whose two parallel nodes each interrupt."""

    def meal(state: _Seat) -> dict[str, Any]:
        return {"picks": [f"{state.seat} eats {interrupt(f'meal for {state.seat}?')}"]}

    def drink(state: _Seat) -> dict[str, Any]:
        return {"picks": [f"{state.seat} drinks {interrupt(f'drink for {state.seat}?')}"]}

    sb = StateGraph(_Seat)
    sb.add_node("meal", meal)
    sb.add_node("drink", drink)
    sb.add_edge(START, "meal")
    sb.add_edge(START, "drink")
    b = StateGraph(_Hall)
    b.add_node("seat", sb.compile())
    b.add_node("serve", lambda s: {"picks": [f"served {len(s.picks)}"]})
    b.add_conditional_edges(START, lambda s: [Send("seat", {"seat": x}) for x in s.seats], ["seat"])
    b.add_edge("seat", "serve")
    return b


class _Quiz(TypedDict):
    marks: Annotated[list[str], operator.add]


def nothing_written_until_both_answers() -> StateGraph[Any]:
    """Two interrupts in one node beside a parallel writer: the node's write lands only with the second answer."""

    def exam(state: _Quiz) -> dict[str, Any]:
        a = interrupt("part a?")
        b = interrupt("part b?")
        return {"marks": [f"a={a}", f"b={b}"]}

    b = StateGraph(_Quiz)
    b.add_node("exam", exam)
    b.add_node("register", lambda s: {"marks": ["registered"]})
    b.add_edge(START, "exam")
    b.add_edge(START, "register")
    return b


class _Batch(TypedDict):
    sizes: list[int]
    done: Annotated[list[str], operator.add]


def interrupting_sends_inside_a_subgraph() -> StateGraph[Any]:
    """Send tasks inside a subgraph node each interrupt; all answered at once by interrupt id."""

    def confirm(arg: dict[str, Any]) -> dict[str, Any]:
        size = arg["size"]
        return {"done": [f"{size} confirmed {interrupt(f'confirm {size}?')}"]}

    sb = StateGraph(_Batch)
    sb.add_node("confirm", confirm)
    sb.add_conditional_edges(START, lambda s: [Send("confirm", {"size": n}) for n in s["sizes"]], ["confirm"])
    b = StateGraph(_Tasks)
    b.add_node("confirmations", sb.compile())
    b.add_node("count", lambda s: {"done": [f"{len(s['done'])} confirmed"]})
    b.add_edge(START, "confirmations")
    b.add_edge("confirmations", "count")
    return b


# ---------------------------------------------------------------------- context, managed values, schemas


@dataclass
class _Tenant:
    tenant: str
    plan: str = "free"


class _Usage(TypedDict, total=False):
    outer: str
    inner: str


def context_reaches_a_subgraph() -> StateGraph[Any]:
    """A compiled subgraph node reads the parent run's `runtime.context` (a dataclass given as an instance)."""

    def quota(state: _Usage, runtime: Runtime[_Tenant]) -> dict[str, Any]:
        return {"inner": f"{runtime.context.tenant} on {runtime.context.plan}"}

    def bill(state: _Usage, runtime: Runtime[_Tenant]) -> dict[str, Any]:
        return {"outer": f"bill {runtime.context.tenant}"}

    sub = StateGraph(_Usage, context_schema=_Tenant).add_node("quota", quota).add_edge(START, "quota")
    return chain(StateGraph(_Usage, context_schema=_Tenant), ("bill", bill), ("usage", sub.compile()))


class _Fuel(TypedDict):
    burns: Annotated[list[str], operator.add]
    remaining_steps: RemainingSteps


def remaining_steps_inside_a_subgraph() -> StateGraph[Any]:
    """A looping subgraph reads RemainingSteps (counted within the subgraph's own run) and stops itself."""
    engine = StateGraph(_Fuel)
    engine.add_node("burn", lambda s: {"burns": [f"burn {s['remaining_steps']}"]})
    engine.add_edge(START, "burn")
    engine.add_conditional_edges(
        "burn", lambda s: "burn" if s["remaining_steps"] > 21 else END, ["burn", END]
    )
    return chain(
        StateGraph(_Fuel),
        ("ignite", lambda s: {"burns": [f"ignite {s['remaining_steps']}"]}),
        ("engine", engine.compile()),
    )


def endless_subgraph_hits_the_limit() -> StateGraph[Any]:
    """A subgraph looping for ever: the recursion limit of the run ends it with GraphRecursionError."""
    wheel = StateGraph(_Story)
    wheel.add_node("spin", lambda s: {"story": ["round"]})
    wheel.add_edge(START, "spin")
    wheel.add_edge("spin", "spin")
    return chain(StateGraph(_Story), ("before", lambda s: {"story": ["before"]}), ("wheel", wheel.compile()))


class _Meter(TypedDict):
    units: Annotated[int, operator.add]
    label: str


class _Hidden(TypedDict):
    secret: str


class _MeterAndHidden(TypedDict):
    units: Annotated[int, operator.add]
    secret: str


def private_key_read_by_a_node_schema() -> StateGraph[Any]:
    """A node writes a key outside the graph's state; a later node declaring it in its own input schema reads it;
    a conditional edge then counts the units."""

    def read_meter(state: _Meter) -> dict[str, Any]:
        return {"units": 3, "secret": "s3cr3t"}

    def decode(state: _MeterAndHidden) -> dict[str, Any]:
        return {"units": len(state["secret"]), "label": state["secret"][::-1], "unknown": 1}

    b = StateGraph(_Meter)
    b.add_node("read_meter", read_meter)
    b.add_node("decode", decode)
    b.add_node("bonus", lambda s: {"units": 100})
    b.add_edge(START, "read_meter")
    b.add_edge("read_meter", "decode")
    b.add_conditional_edges("decode", lambda s: "bonus" if s["units"] == 9 else END)
    return b


def router_reads_a_private_schema() -> StateGraph[Any]:
    """A router function annotated with a private input schema routes on a key outside the graph's state."""

    def read_meter(state: _Meter) -> dict[str, Any]:
        return {"units": 1, "secret": "go"}

    def route(state: _Hidden) -> str:
        return "decode" if state["secret"] == "go" else END

    b = StateGraph(_Meter)
    b.add_node("read_meter", read_meter)
    b.add_node("decode", lambda s: {"units": 10, "label": "decoded"})
    b.add_edge(START, "read_meter")
    b.add_conditional_edges("read_meter", route)
    return b


# ---------------------------------------------------------------------- errors, retries, handlers


class _Sum(TypedDict):
    total: Annotated[int, operator.add]


def failed_task_alone_runs_again() -> StateGraph[Any]:
    """A parallel task fails past its retry policy; resumed, only it runs again (its sibling's write was kept).

    `flaky` fails on its first three calls (the first run's two attempts and the first resume's
    first attempt); `solid` counts its calls into the value, so a re-run would show.
    """
    calls = {"solid": 0, "flaky": 0}

    def solid(state: _Sum) -> dict[str, Any]:
        calls["solid"] += 1
        return {"total": 100 * calls["solid"]}

    def flaky(state: _Sum) -> dict[str, Any]:
        calls["flaky"] += 1
        if calls["flaky"] <= 3:
            # Fails a little later, so that `solid` (in another thread natively) has landed its
            # write by then: a sibling still running at the failure may run again on resume.
            time.sleep(0.05)
            raise TimeoutError(f"timed out ({calls['flaky']})")
        return {"total": calls["flaky"]}

    b = StateGraph(_Sum)
    b.add_node("solid", solid)
    b.add_node(
        "flaky",
        flaky,
        retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False, retry_on=TimeoutError),
    )
    b.add_edge(START, "solid")
    b.add_edge(START, "flaky")
    return b


def one_of_many_sends_fails_once() -> StateGraph[Any]:
    """One of six Send tasks fails on its first call; resumed, the run finishes with every result once.

    Only the failing task's result carries its call count: a sibling still running when it
    failed may keep its write or run again, depending on which thread LangGraph sees finish first.
    """
    calls: dict[int, int] = {}

    def pack(arg: dict[str, Any]) -> dict[str, Any]:
        n = arg["size"]
        calls[n] = calls.get(n, 0) + 1
        if n == 4 and calls[n] == 1:
            raise RuntimeError("box 4 tore")
        return {"done": [f"packed {n} (call {calls[n]})" if n == 4 else f"packed {n}"]}

    b = StateGraph(_Tasks)
    b.add_node("pack", pack)
    b.add_node("ship", lambda s: {"done": [f"shipped {len(s['done'])}"]})
    b.add_conditional_edges(START, lambda s: [Send("pack", {"size": n}) for n in s["sizes"]], ["pack"])
    b.add_edge("pack", "ship")
    return b


class _Incident(TypedDict):
    incident: str


def handler_catches_a_failing_subgraph() -> StateGraph[Any]:
    """A parent node's `error_handler` (taking the error) runs when the compiled subgraph it wraps fails inside."""

    def overheat(state: _Incident) -> dict[str, Any]:
        raise OverflowError("too hot")

    def cool_down(state: _Incident, error: NodeError) -> dict[str, Any]:
        return {"incident": f"{state['incident']} -> {error.node} failed with {type(error.error).__name__}"}

    reactor = chain(StateGraph(_Incident), ("overheat", overheat)).compile()
    b = StateGraph(_Incident)
    b.add_node("reactor", reactor, error_handler=cool_down)
    b.add_edge(START, "reactor")
    return b


class _Shelf(TypedDict):
    shelf: Annotated[list[str], operator.add]


def node_defaults_retry_then_handle() -> StateGraph[Any]:
    """`set_node_defaults` gives every node a retry policy and an error handler: one node recovers by retrying,
    another, always failing, by the handler."""
    calls = {"wobbly": 0}

    def wobbly(state: _Shelf) -> dict[str, Any]:
        calls["wobbly"] += 1
        if calls["wobbly"] < 2:
            raise OSError("wobble")
        return {"shelf": [f"wobbly steady after {calls['wobbly']}"]}

    def broken(state: _Shelf) -> dict[str, Any]:
        raise OSError("snapped")

    def patch(state: _Shelf, error: NodeError) -> dict[str, Any]:
        return {"shelf": [f"patched {error.node}"]}

    b = StateGraph(_Shelf).set_node_defaults(
        error_handler=patch,
        retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False, retry_on=OSError),
    )
    b.add_node("mount", lambda s: {"shelf": ["mounted"]})
    b.add_node("wobbly", wobbly)
    b.add_node("broken", broken)
    b.add_edge(START, "mount")
    b.add_edge("mount", "wobbly")
    b.add_edge("mount", "broken")
    return b


def subgraph_fails_beside_a_parent_task() -> StateGraph[Any]:
    """A subgraph's second node fails once beside a parallel parent task; resumed, the subgraph goes on from its
    checkpoint after the first node (which does not run again). The sibling writes no call count (see the module)."""
    calls = {"cast": 0, "cure": 0}

    def cast(state: _Story) -> dict[str, Any]:
        calls["cast"] += 1
        return {"story": [f"cast {calls['cast']}"]}

    def cure(state: _Story) -> dict[str, Any]:
        calls["cure"] += 1
        if calls["cure"] == 1:
            raise ArithmeticError("cracked")
        return {"story": [f"cure {calls['cure']}"]}

    mould = chain(StateGraph(_Story), ("cast", cast), ("cure", cure)).compile()
    b = StateGraph(_Story)
    b.add_node("mould", mould)
    b.add_node("polish", lambda s: {"story": ["polished"]})
    b.add_edge(START, "mould")
    b.add_edge(START, "polish")
    return b


def sync_and_async_callers_pause_together() -> StateGraph[Any]:
    """One subgraph invoked from a sync node and, in the same superstep, from an async node; both interrupt."""

    def ask(state: _Parcel) -> dict[str, Any]:
        return {"parcel": f"{state['parcel']} -> {interrupt(state['parcel'])}"}

    courier = StateGraph(_Parcel).add_node("ask", ask).add_edge(START, "ask").compile()

    def by_bike(state: _Story) -> dict[str, Any]:
        return {"story": [courier.invoke({"parcel": "bike"})["parcel"]]}

    async def by_van(state: _Story) -> dict[str, Any]:
        return {"story": [(await courier.ainvoke({"parcel": "van"}))["parcel"]]}

    b = StateGraph(_Story)
    b.add_node("by_bike", by_bike)
    b.add_node("by_van", by_van)
    b.add_edge(START, "by_bike")
    b.add_edge(START, "by_van")
    return b


def async_nodes_with_timeout_and_retry() -> StateGraph[Any]:
    """Async nodes declared with a `timeout=` (never reached) and a retry policy re-running one that fails once."""
    calls = {"upload": 0}

    async def compress(state: _Story) -> dict[str, Any]:
        return {"story": ["compressed"]}

    async def upload(state: _Story) -> dict[str, Any]:
        calls["upload"] += 1
        if calls["upload"] == 1:
            raise ConnectionResetError("reset")
        return {"story": [f"uploaded on call {calls['upload']}"]}

    b = StateGraph(_Story)
    b.add_node("compress", compress, timeout=30.0)
    b.add_node(
        "upload",
        upload,
        timeout=30.0,
        retry_policy=RetryPolicy(max_attempts=3, initial_interval=0, jitter=False),
    )
    b.add_edge(START, "compress")
    b.add_edge("compress", "upload")
    return b


def retry_policy_on_a_subgraph_node() -> StateGraph[Any]:
    """A retry policy on a compiled subgraph node: its inner node fails once and the retry re-enters the subgraph."""
    calls = {"mix": 0, "set": 0}

    def mix(state: _Story) -> dict[str, Any]:
        calls["mix"] += 1
        return {"story": [f"mix {calls['mix']}"]}

    def set_(state: _Story) -> dict[str, Any]:
        calls["set"] += 1
        if calls["set"] == 1:
            raise BrokenPipeError("leaked")
        return {"story": [f"set {calls['set']}"]}

    concrete = chain(StateGraph(_Story), ("mix", mix), ("set", set_)).compile()
    b = StateGraph(_Story)
    b.add_node(
        "concrete", concrete, retry_policy=RetryPolicy(max_attempts=2, initial_interval=0, jitter=False)
    )
    b.add_edge(START, "concrete")
    return b


def pause_error_and_success_in_one_step() -> StateGraph[Any]:
    """In one superstep a task interrupts, one fails once and one finishes; the failure is raised first, then the
    resumes finish the step (the finishing sibling writes no call count, see the module)."""
    calls = {"fickle": 0}

    def approve(state: _Story) -> dict[str, Any]:
        return {"story": [f"approved {interrupt('approve?')}"]}

    def fickle(state: _Story) -> dict[str, Any]:
        calls["fickle"] += 1
        if calls["fickle"] == 1:
            raise UnicodeError("garbled")
        return {"story": [f"fickle {calls['fickle']}"]}

    b = StateGraph(_Story)
    for name, fn in (("approve", approve), ("fickle", fickle), ("calm", lambda s: {"story": ["calm"]})):
        b.add_node(name, fn)
        b.add_edge(START, name)
    return b


# ---------------------------------------------------------------------- routing, fan-out, deferral, messages


def router_returns_sends_a_name_and_end() -> StateGraph[Any]:
    """An entry router returning Sends, a node name and END at once; the named node loops until enough results."""
    b = StateGraph(_Tasks)
    b.add_node("measure", lambda arg: {"done": [f"measured {arg['size']}"]})
    b.add_node("sweep", lambda s: {"done": ["swept"]})
    b.add_conditional_edges(
        START,
        lambda s: [*(Send("measure", {"size": n}) for n in s["sizes"]), "sweep", END],
        ["measure", "sweep", END],
    )
    b.add_conditional_edges("sweep", lambda s: [END] if len(s["done"]) >= 5 else ["sweep"], ["sweep", END])
    return b


class _Cubes(TypedDict):
    count: int
    cubes: Annotated[list[int], operator.add]
    total: int


def fan_out_of_250_sends() -> StateGraph[Any]:
    """250 Sends in one superstep, then a reduce node."""
    b = StateGraph(_Cubes)
    b.add_node("cube", lambda arg: {"cubes": [arg["k"] ** 3 % 97]})
    b.add_node("reduce", lambda s: {"total": sum(s["cubes"]) + len(s["cubes"])})
    b.add_conditional_edges(START, lambda s: [Send("cube", {"k": k}) for k in range(s["count"])], ["cube"])
    b.add_edge("cube", "reduce")
    return b


def deferred_join_after_sends() -> StateGraph[Any]:
    """A deferred node waits for Send tasks and for a longer chain started by the same router."""
    b = StateGraph(_Story)
    b.add_node("open", lambda s: {"story": ["open"]})
    b.add_node("sketch", lambda arg: {"story": [f"sketch {arg['panel']}"]})
    b.add_node("ink", lambda s: {"story": ["ink"]})
    b.add_node("colour", lambda s: {"story": ["colour"]})
    b.add_node("bind", lambda s: {"story": [f"bound {len(s['story'])}"]}, defer=True)
    b.add_edge(START, "open")
    b.add_conditional_edges(
        "open", lambda s: [Send("sketch", {"panel": p}) for p in range(3)] + ["ink"], ["sketch", "ink"]
    )
    b.add_edge("ink", "colour")
    b.add_edge("sketch", "bind")
    b.add_edge("colour", "bind")
    return b


def deferred_node_that_interrupts() -> StateGraph[Any]:
    """A deferred node, reached by Send tasks, calls `interrupt()` once every task is done."""

    def bind(state: _Story) -> dict[str, Any]:
        return {"story": [f"bound {len(state['story'])} with {interrupt('cover colour?')}"]}

    b = StateGraph(_Story)
    b.add_node("sketch", lambda arg: {"story": [f"sketch {arg['panel']}"]})
    b.add_node("bind", bind, defer=True)
    b.add_conditional_edges(START, lambda s: [Send("sketch", {"panel": p}) for p in range(4)], ["sketch"])
    b.add_edge("sketch", "bind")
    return b


def _merge_unique(old: list[str], new: list[str]) -> list[str]:
    """Our reducer: keeps the first occurrence of each item, in order."""
    return list(dict.fromkeys([*old, *new]))


class _Route(TypedDict, total=False):
    town: str
    stops: Annotated[list[str], _merge_unique]
    plan: str


def join_after_a_router_branch() -> StateGraph[Any]:
    """A node fans out by a static edge and by a router; the two branches of different lengths join in a waiting edge."""
    b = StateGraph(_Route)
    b.add_node("locate", lambda s: {"town": f"{s['town']} centre"})
    b.add_node("bus_map", lambda s: {"town": s["town"].title()})
    b.add_node("bus_stops", lambda s: {"stops": ["market", "station"]})
    b.add_node("tram_stops", lambda s: {"stops": ["station", "harbour"]})
    b.add_node("plan", lambda s: {"plan": f"{s['town']}: " + ", ".join(s["stops"])})
    b.add_edge(START, "locate")
    b.add_edge("locate", "bus_map")
    b.add_edge("bus_map", "bus_stops")
    b.add_conditional_edges("locate", lambda s: "tram_stops")
    b.add_edge(["bus_stops", "tram_stops"], "plan")
    b.add_edge("plan", END)
    return b


def subgraph_clears_the_conversation() -> StateGraph[Any]:
    """A MessagesState subgraph removes every message (REMOVE_ALL_MESSAGES) and writes a summary; the parent then
    removes a message by id."""

    def compact(state: MessagesState) -> dict[str, Any]:
        words = sum(len(str(m.content).split()) for m in state["messages"])
        return {
            "messages": [RemoveMessage(id=REMOVE_ALL_MESSAGES), AIMessage(content=f"{words} words", id="sum")]
        }

    def drop_summary(state: MessagesState) -> dict[str, Any]:
        return {"messages": [RemoveMessage(id="sum"), HumanMessage(content="fresh start", id="new")]}

    memory = StateGraph(MessagesState).add_node("compact", compact).add_edge(START, "compact").compile()
    return chain(
        StateGraph(MessagesState),
        ("chat", lambda s: {"messages": [AIMessage(content="three more words", id="r")]}),
        ("memory", memory),
        ("drop_summary", drop_summary),
    )


def parallel_message_edit_by_id() -> StateGraph[Any]:
    """Parallel nodes write messages; one replaces an input message by its id; a join reads them all."""
    b = StateGraph(MessagesState)
    b.add_node("correct", lambda s: {"messages": [HumanMessage(content="corrected", id="q1")]})
    b.add_node(
        "answer", lambda s: {"messages": [AIMessage(content=f"to {s['messages'][0].content}", id="a")]}
    )
    b.add_node(
        "digest",
        lambda s: {"messages": [AIMessage(content=";".join(str(m.content) for m in s["messages"]), id="d")]},
    )
    b.add_edge(START, "correct")
    b.add_edge(START, "answer")
    b.add_edge(["correct", "answer"], "digest")
    return b


# ---------------------------------------------------------------------- budgets, first inputs, validation


class _Lap(TypedDict):
    lap: int
    splits: Annotated[list[str], operator.add]


def each_call_gets_the_whole_limit() -> StateGraph[Any]:
    """A loop longer than the recursion limit that pauses every eight laps: each call (run, resume) gets the
    whole limit, so the loop finishes."""

    def run_lap(state: _Lap) -> dict[str, Any]:
        lap = state["lap"] + 1
        return {"lap": lap, "splits": [f"{lap}:{interrupt(lap)}"]} if lap % 8 == 0 else {"lap": lap}

    b = StateGraph(_Lap)
    b.add_node("run_lap", run_lap)
    b.add_edge(START, "run_lap")
    b.add_conditional_edges("run_lap", lambda s: "run_lap" if s["lap"] < 30 else END, ["run_lap", END])
    return b


def started_by_a_command() -> StateGraph[Any]:
    """A run whose first input is Command(update=, goto=) instead of a state."""
    b = StateGraph(_Story)
    b.add_node("usual", lambda s: {"story": ["usual start"]})
    b.add_node("shortcut", lambda s: {"story": [f"shortcut after {len(s['story'])}"]})
    b.add_edge(START, "usual")
    return b


def resume_with_update_and_goto_into_a_subgraph() -> StateGraph[Any]:
    """An interrupt inside a subgraph answered by Command(resume=, update=, goto=)."""

    def where(state: _Story) -> dict[str, Any]:
        return {"story": [f"heading {interrupt('which way?')}"]}

    compass = StateGraph(_Story).add_node("where", where).add_edge(START, "where").compile()
    b = StateGraph(_Story)
    b.add_node("compass", compass)
    b.add_node("detour", lambda s: {"story": [f"detour after {len(s['story'])}"]})
    b.add_edge(START, "compass")
    return b


class _Strict(BaseModel):
    level: int
    notes: Annotated[list[str], operator.add] = Field(default_factory=list)


def pydantic_state_refuses_bad_input() -> StateGraph[Any]:
    """A pydantic state given an input it cannot validate: LangGraph's validation error, before any node runs."""
    b = StateGraph(_Strict)
    b.add_node("level_up", lambda s: {"notes": [f"level {s.level + 1}"]})
    b.add_edge(START, "level_up")
    return b


COMBINED: dict[str, Case] = {
    "sync_node_calls_a_twice_pausing_subgraph": Case(
        sync_node_calls_a_twice_pausing_subgraph,
        [("run", {"parcel": "p1"}), ("resume", "yes"), ("resume", "ok")],
    ),
    "subgraph_with_its_own_checkpointer": Case(subgraph_with_its_own_checkpointer, [("run", {"km": 0})]),
    "node_calls_a_checkpointed_subgraph_that_pauses": Case(
        node_calls_a_checkpointed_subgraph_that_pauses, [("run", {"name": "deli"}), ("resume", "since 1990")]
    ),
    "one_subgraph_called_twice_in_a_node": Case(
        one_subgraph_called_twice_in_a_node, [("run", {"x": 84, "y": 36})]
    ),
    "two_subgraphs_called_in_a_node": Case(two_subgraphs_called_in_a_node, [("run", {"x": 4, "y": 6})]),
    "parent_command_from_the_first_called_subgraph": Case(
        parent_command_from_a_node_invoked_subgraph, [("run", {"gate": 1, "passed": []})]
    ),
    "parent_command_from_the_second_called_subgraph": Case(
        parent_command_from_a_node_invoked_subgraph, [("run", {"gate": 2, "passed": []})]
    ),
    "no_parent_command_from_called_subgraphs": Case(
        parent_command_from_a_node_invoked_subgraph, [("run", {"gate": 3, "passed": []})]
    ),
    "subgraph_node_with_destinations_map": Case(
        subgraph_node_with_destinations_map, [("run", {"roll": "ab"})]
    ),
    "map_reduce_inside_a_schema_subgraph": Case(
        map_reduce_inside_a_schema_subgraph, [("run", {"headline": "tide turns", "pages": []})]
    ),
    "one_send_task_commands_the_parent": Case(
        one_send_task_commands_the_parent, [("run", {"sizes": [3, 9, 5], "done": []})]
    ),
    "parent_command_sends_from_a_subgraph": Case(
        parent_command_sends_from_a_subgraph, [("run", {"sizes": [2, 7], "done": []})]
    ),
    "two_questions_two_levels_down": Case(
        two_questions_two_levels_down, [("run", {"story": []}), ("resume", "Ada"), ("resume", "Moriarty")]
    ),
    "two_questions_two_levels_down_after_a_breakpoint": Case(
        two_questions_two_levels_down,
        [("run", {"story": []}), ("resume", RESUME), ("resume", "Ada"), ("resume", "Moriarty")],
        {"interrupt_before": ["act"]},
    ),
    "pydantic_parallel_questions_one_by_one": Case(
        pydantic_subgraph_with_two_parallel_questions,
        [("run", {"seats": ["1A", "2B"]})] + [("resume", "ONE")] * 4,
    ),
    "pydantic_parallel_questions_all_at_once": Case(
        pydantic_subgraph_with_two_parallel_questions, [("run", {"seats": ["1A", "2B"]}), ("resume", "MAP")]
    ),
    "nothing_written_until_both_answers": Case(
        nothing_written_until_both_answers, [("run", {"marks": []}), ("resume", "7"), ("resume", "9")]
    ),
    "interrupting_sends_inside_a_subgraph": Case(
        interrupting_sends_inside_a_subgraph, [("run", {"sizes": [4, 8, 15], "done": []}), ("resume", "MAP")]
    ),
    "context_reaches_a_subgraph": Case(
        context_reaches_a_subgraph, [("run", {})], context=_Tenant("acme", "pro")
    ),
    "remaining_steps_inside_a_subgraph": Case(remaining_steps_inside_a_subgraph, [("run", {"burns": []})]),
    "endless_subgraph_hits_the_limit": Case(endless_subgraph_hits_the_limit, [("run", {"story": []})]),
    "private_key_read_by_a_node_schema": Case(private_key_read_by_a_node_schema, [("run", {"units": 0})]),
    "router_reads_a_private_schema": Case(router_reads_a_private_schema, [("run", {"units": 0})]),
    "failed_task_alone_runs_again": Case(
        failed_task_alone_runs_again, [("run", {"total": 0}), ("resume", RESUME), ("resume", RESUME)]
    ),
    "one_of_many_sends_fails_once": Case(
        one_of_many_sends_fails_once, [("run", {"sizes": [1, 2, 3, 4, 5, 6], "done": []}), ("resume", RESUME)]
    ),
    "handler_catches_a_failing_subgraph": Case(
        handler_catches_a_failing_subgraph, [("run", {"incident": "log"})]
    ),
    "node_defaults_retry_then_handle": Case(node_defaults_retry_then_handle, [("run", {"shelf": []})]),
    "subgraph_fails_beside_a_parent_task": Case(
        subgraph_fails_beside_a_parent_task, [("run", {"story": []}), ("resume", RESUME)]
    ),
    "sync_and_async_callers_pause_together": Case(
        sync_and_async_callers_pause_together, [("run", {"story": []}), ("resume", "MAP")]
    ),
    "async_nodes_with_timeout_and_retry": Case(async_nodes_with_timeout_and_retry, [("run", {"story": []})]),
    "retry_policy_on_a_subgraph_node": Case(retry_policy_on_a_subgraph_node, [("run", {"story": []})]),
    "pause_error_and_success_in_one_step": Case(
        pause_error_and_success_in_one_step,
        [("run", {"story": []}), ("resume", RESUME), ("resume", "signed")],
    ),
    "router_returns_sends_a_name_and_end": Case(
        router_returns_sends_a_name_and_end, [("run", {"sizes": [5, 6], "done": []})]
    ),
    "fan_out_of_250_sends": Case(fan_out_of_250_sends, [("run", {"count": 250, "cubes": []})]),
    "deferred_join_after_sends": Case(deferred_join_after_sends, [("run", {"story": []})]),
    "deferred_node_that_interrupts": Case(
        deferred_node_that_interrupts, [("run", {"story": []}), ("resume", "teal")]
    ),
    "join_after_a_router_branch": Case(join_after_a_router_branch, [("run", {"town": "aveiro"})]),
    "join_after_a_router_branch_with_a_breakpoint": Case(
        join_after_a_router_branch,
        [("run", {"town": "aveiro"}), ("resume", RESUME)],
        {"interrupt_after": ["bus_stops"]},
    ),
    "join_edited_as_a_branch_at_a_breakpoint": Case(
        join_after_a_router_branch,
        [("run", {"town": "aveiro"}), ("update", ({"stops": ["ferry"]}, "tram_stops")), ("resume", RESUME)],
        {"interrupt_after": ["bus_stops"]},
    ),
    "map_reduce_edited_after_the_end": Case(
        map_reduce_inside_a_schema_subgraph,
        [
            ("run", {"headline": "gale", "pages": []}),
            ("update", ({"headline": "calm", "pages": ["erratum"]}, "cover")),
            ("resume", RESUME),
        ],
    ),
    "subgraph_clears_the_conversation": Case(
        subgraph_clears_the_conversation, [("run", {"messages": [HumanMessage(content="hello you", id="h")]})]
    ),
    "parallel_message_edit_by_id": Case(
        parallel_message_edit_by_id, [("run", {"messages": [HumanMessage(content="typo", id="q1")]})]
    ),
    "each_call_gets_the_whole_limit": Case(
        each_call_gets_the_whole_limit,
        [("run", {"lap": 0, "splits": []}), ("resume", "a"), ("resume", "b"), ("resume", "c")],
    ),
    "started_by_a_command": Case(
        started_by_a_command, [("run", Command(update={"story": ["given"]}, goto="shortcut"))]
    ),
    "resume_with_update_and_goto_into_a_subgraph": Case(
        resume_with_update_and_goto_into_a_subgraph,
        [
            ("run", {"story": []}),
            ("resume", Command(resume="north", update={"story": ["noted"]}, goto="detour")),
        ],
    ),
    "pydantic_state_refuses_bad_input": Case(pydantic_state_refuses_bad_input, [("run", {"level": "high"})]),
}
"""The held-out graphs, by name (the corpus's cases are separate)."""


# ---------------------------------------------------------------------- graphs of the held-out tests outside scripts


class _Chat(TypedDict):
    messages: Annotated[list[AnyMessage], add_messages]
    turns: Annotated[int, operator.add]


def conversation_thread() -> StateGraph[Any]:
    """One reply per invoke; a second invoke on the thread continues its messages and turn count."""

    def respond(state: _Chat) -> dict[str, Any]:
        said = state["messages"][-1].content
        return {
            "messages": [AIMessage(content=f"you said {said!r}, message {len(state['messages'])}")],
            "turns": 1,
        }

    return chain(StateGraph(_Chat), ("respond", respond))


class _Quote(TypedDict):
    weight: int
    price: int
    trace: Annotated[list[str], operator.add]


def cached_pricing_loop() -> tuple[StateGraph[Any], dict[str, int]]:
    """A loop through a node with a `cache_policy` (keyed on the weight) and one without; returns the builder
    and its call counts, so a test sees the cached node run once per distinct weight."""
    calls = {"price": 0, "log": 0}

    def price(state: _Quote) -> dict[str, Any]:
        calls["price"] += 1
        return {"price": state["weight"] * 3 + 1, "trace": [f"priced (call {calls['price']})"]}

    def log(state: _Quote) -> dict[str, Any]:
        calls["log"] += 1
        return {"trace": [f"logged (call {calls['log']})"]}

    b = StateGraph(_Quote)
    b.add_node("price", price, cache_policy=CachePolicy(key_func=lambda s: str(s["weight"])))
    b.add_node("log", log)
    b.add_edge(START, "price")
    b.add_edge("price", "log")
    b.add_conditional_edges("log", lambda s: "price" if len(s["trace"]) < 6 else END, ["price", END])
    return b, calls
