"""Corpus, part one: LangGraph graphs exercising routing, fan-out, reducers, state schemas and errors.

Written for this project (see `lg_cases` for the case form). Each graph is small and built
around one LangGraph feature; the themes (a parcel depot, a bakery, a reading list...) are only
there to make the values readable when a comparison fails.
"""

from __future__ import annotations

import operator
from collections.abc import Callable
from dataclasses import dataclass
from typing import Annotated, Any, Literal

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage, RemoveMessage, ToolMessage
from langchain_core.runnables import RunnableConfig, RunnableLambda
from langgraph.graph import END, START, MessagesState, StateGraph
from langgraph.graph.message import add_messages
from langgraph.managed import RemainingSteps
from langgraph.types import Command, Overwrite, RetryPolicy, Send
from lg_cases import Case, chain
from pydantic import BaseModel, Field
from typing_extensions import TypedDict

# ---------------------------------------------------------------------- a root (non-dict) state


def root_list_send_then_branch() -> StateGraph[Any]:
    """A root list channel (no dict state): Sends of plain ints to one node, then a conditional edge."""

    def weigh(state: list[int]) -> list[int]:
        return [sum(state)]

    def split(state: list[int]) -> list[Send]:
        return [Send("double", 10), Send("double", 20)]

    def double(n: int) -> list[int]:
        return [n * 2]

    def to_total(state: list[int]) -> Literal["total"]:
        return "total"

    b = StateGraph(Annotated[list[int], operator.add])  # type: ignore[arg-type]
    b.add_node("weigh", weigh)
    b.add_node("double", double)
    b.add_node("total", lambda s: [len(s)])
    b.add_edge(START, "weigh")
    b.add_conditional_edges("weigh", split)
    b.add_conditional_edges("double", to_total)
    return b


def _tagger(name: str) -> Callable[[Any], list[str]]:
    """A root-list node writing `name:<what it was given>` (a Send's argument or the state's length)."""

    def node(arg: Any) -> list[str]:
        return [f"{name}:{len(arg)}" if isinstance(arg, list) else f"{name}:{arg}"]

    return node


def two_entries_sends_and_a_name() -> StateGraph[Any]:
    """Two edges from START; one router returns Sends and a node name together, the other only Sends."""
    b = StateGraph(Annotated[list[str], operator.add])  # type: ignore[arg-type]
    for name in ("north", "south", "label", "audit", "close"):
        b.add_node(name, _tagger(name))
    b.add_edge(START, "north")
    b.add_edge(START, "south")
    b.add_conditional_edges("north", lambda s: [Send("label", "n1"), "audit", Send("label", "n2")])
    b.add_conditional_edges("south", lambda s: [Send("label", "s1")])
    b.add_conditional_edges("label", lambda s: "close")
    return b


def send_carrying_a_command() -> StateGraph[Any]:
    """A Send whose argument is a Command: the node returns it (its goto sends again) beside its own update."""

    def relay(arg: Any) -> Any:
        if isinstance(arg, Command):
            return [arg, Command(update=["relay forwarded"])]
        return [f"relay got {arg}"]

    def fork(state: list[str]) -> list[Any]:
        return [Send("relay", Command(goto=Send("relay", k))) for k in ("x", "y")] + ["tail"]

    b = StateGraph(Annotated[list[str], operator.add])  # type: ignore[arg-type]
    b.add_node("head", _tagger("head"))
    b.add_node("relay", relay)
    b.add_node("tail", _tagger("tail"))
    b.add_edge(START, "head")
    b.add_conditional_edges("head", fork)
    b.add_conditional_edges("relay", lambda s: "tail")
    return b


# ---------------------------------------------------------------------- edges, joins, entry points


class _Note(TypedDict):
    title: str
    thread: Annotated[list[AnyMessage], add_messages]
    size: int


def messages_reducer_coerces_the_input() -> StateGraph[Any]:
    """`add_messages` turns an input string into a message before any node; a node returning None writes nothing."""
    b = StateGraph(_Note)
    b.add_node("idle", lambda s: None)
    b.add_node("measure", lambda s: {"size": len(s["thread"]) + len(s["title"])})
    b.set_entry_point("idle")
    b.add_edge("idle", "measure")
    b.set_finish_point("measure")
    return b


class _Depot(TypedDict):
    parcels: list[str]
    labels: Annotated[list[str], operator.add]


def conditional_entry_of_sends() -> StateGraph[Any]:
    """A conditional entry point returning one Send per parcel (path map given as a list)."""

    def weigh(arg: dict[str, Any]) -> dict[str, Any]:
        p = arg["parcel"]
        return {"labels": [f"{p}:{'heavy' if len(p) > 3 else 'light'}"]}

    b = StateGraph(_Depot)
    b.add_node("weigh", weigh)
    b.add_edge("weigh", END)
    b.set_conditional_entry_point(
        lambda s: [Send("weigh", {"parcel": p}) for p in s["parcels"]], path_map=["weigh"]
    )
    return b


class _Marks(TypedDict):
    marks: Annotated[list[str], operator.add]


def two_branches_join_at_end() -> StateGraph[Any]:
    """Two parallel first nodes and a waiting edge from both of them to END."""
    b = StateGraph(_Marks)
    b.add_node("east", lambda s: {"marks": ["east"]})
    b.add_node("west", lambda s: {"marks": [f"west after {len(s['marks'])}"]})
    b.add_edge(START, "east")
    b.add_edge(START, "west")
    b.add_edge(["east", "west"], END)
    return b


def _union_sorted(old: list[str], new: list[str]) -> list[str]:
    """A reducer of our own: the sorted union, with "-x" in `new` removing "x"."""
    drop = {n[1:] for n in new if n.startswith("-")}
    keep = {*old, *(n for n in new if not n.startswith("-"))} - drop
    return sorted(keep)


class _Shelf(TypedDict, total=False):
    wish: str
    books: Annotated[list[str], _union_sorted]
    verdict: str


def _shelf(b: StateGraph[Any]) -> StateGraph[Any]:
    """The reading-list graph both join variants share: two branches of different lengths meet in
    `compare`, which loops back to `refine` until the wish was refined twice, then `pick` ends."""
    b.add_node("refine", lambda s: {"wish": f"refined {s['wish']}"})
    b.add_node("catalogue", lambda s: {"wish": s["wish"].upper()})
    b.add_node("library", lambda s: {"books": ["atlas", "-zine", "bestiary"]})
    b.add_node("shop", lambda s: {"books": ["zine", "codex"]})
    b.add_node("compare", lambda s: None)
    b.add_node("pick", lambda s: {"verdict": f"{s['books'][0]} of {len(s['books'])}"})
    b.add_edge(START, "refine")
    b.add_edge("catalogue", "library")
    b.add_edge(["library", "shop"], "compare")
    b.add_conditional_edges("compare", lambda s: "pick" if s["wish"].count("REFINED") > 1 else "refine")
    b.add_edge("pick", END)
    return b


def join_of_uneven_branches_by_router() -> StateGraph[Any]:
    """A router returning two node names starts branches of different lengths that a waiting edge joins, in a loop."""
    b = _shelf(StateGraph(_Shelf))
    b.add_conditional_edges("refine", lambda s: ["catalogue", "shop"])
    return b


def join_of_uneven_branches_by_edges() -> StateGraph[Any]:
    """The same join reached through two static edges, twice around the loop (a custom reducer on the books)."""
    b = _shelf(StateGraph(_Shelf))
    b.add_edge("refine", "catalogue")
    b.add_edge("refine", "shop")
    return b


class _Trail(TypedDict):
    trail: Annotated[str, operator.add]


def join_on_a_node_and_its_successor() -> StateGraph[Any]:
    """A waiting edge from a node and from its own successor; a string channel concatenated by `operator.add`."""
    b = StateGraph(_Trail)
    b.add_node("gate", lambda s: {"trail": ">gate"})
    b.add_node("hall", lambda s: None)
    b.add_node("yard", lambda s: {"trail": ">yard"})
    b.add_node("exit", lambda s: {"trail": f">exit({len(s['trail'])})"})
    b.add_edge(START, "gate")
    b.add_edge("gate", "hall")
    b.add_edge("gate", "yard")
    b.add_edge(["gate", "hall"], "exit")
    b.add_edge("exit", END)
    return b


class _Room(TypedDict):
    room: str
    furniture: str


class _House(TypedDict):
    room: str
    paint: int


def subgraph_node_with_a_private_key() -> StateGraph[Any]:
    """A compiled subgraph as a node; the key only the subgraph declares never reaches the parent."""
    inner = StateGraph(_Room)
    inner.add_node("furnish", lambda s: {"furniture": "sofa", "room": f"{s['room']} with sofa"})
    inner.add_node("tidy", lambda s: {"room": f"{s['room']} ({s['furniture']} tidied)"})
    inner.add_edge(START, "furnish")
    inner.add_edge("furnish", "tidy")
    b = StateGraph(_House)
    b.add_node("decorate", inner.compile())
    b.add_node("paint", lambda s: {"paint": s["paint"] + len(s["room"])})
    b.add_edge(START, "decorate")
    b.add_edge("decorate", "paint")
    return b


class _Dough(TypedDict):
    steps: Annotated[list[str], operator.add]
    temperature: int


def knead(state: _Dough) -> dict[str, Any]:
    """A named function added to a sequence by itself (its name becomes the node's)."""
    return {"steps": [f"knead at {state['temperature']}"]}


def built_with_add_sequence() -> StateGraph[Any]:
    """`add_sequence` mixing (name, function) pairs and a bare function."""
    b = StateGraph(_Dough)
    b.add_sequence(
        [
            ("proof", lambda s: {"steps": ["proof"], "temperature": 26}),
            knead,
            ("bake", lambda s: {"steps": ["bake"]}),
        ]
    )
    b.add_edge(START, "proof")
    return b


# ---------------------------------------------------------------------- schemas


class _Ticket(TypedDict):
    ask: str
    draft: str
    reply: str


class _TicketIn(TypedDict):
    ask: str


class _TicketOut(TypedDict):
    reply: str


def input_and_output_schemas() -> StateGraph[Any]:
    """An input schema filters the input (a key outside it is dropped), an output schema the result."""
    b = StateGraph(_Ticket, input_schema=_TicketIn, output_schema=_TicketOut)
    chain(
        b,
        ("triage", lambda s: {"draft": f"re: {s['ask']} / {s.get('draft', 'none')}"}),
        ("answer", lambda s: {"reply": s["draft"].title()}),
    )
    return b


class _Order(TypedDict):
    item: str
    qty: int
    notes: Annotated[list[str], add_messages]


class _OrderOut(TypedDict):
    notes: list[str]


class _SeesItem(TypedDict):
    item: str


class _SeesQty(TypedDict):
    qty: int
    stamp: str


def per_node_input_schemas() -> StateGraph[Any]:
    """Nodes annotated with their own input schemas see only those keys; a node writes a key outside the
    state's; the output schema keeps one key."""

    def read_item(state: _SeesItem) -> dict[str, Any]:
        return {"notes": [f"keys {sorted(state)}"]}

    def read_qty(state: _SeesQty) -> dict[str, Any]:
        return {"qty": state["qty"] * 2, "stamp": "outside the state"}

    def summary(state: _Order) -> dict[str, Any]:
        return {"notes": [f"{state['qty']} x {state['item']}"]}

    b = StateGraph(_Order, output_schema=_OrderOut)
    return chain(b, ("read_item", read_item), ("read_qty", read_qty), ("summary", summary))


class _Grid(TypedDict):
    width: int
    height: int
    area: int


def partial_input_of_a_total_schema() -> StateGraph[Any]:
    """A total TypedDict given only some of its keys; later nodes read what the earlier ones wrote."""
    return chain(
        StateGraph(_Grid),
        ("height", lambda s: {"height": s["width"] + 1}),
        ("area", lambda s: {"area": s["width"] * s["height"]}),
    )


def runnables_as_nodes() -> StateGraph[Any]:
    """A RunnableLambda node and a RunnableSequence node."""
    pipe = RunnableLambda(lambda s: s["width"] * 3) | RunnableLambda(lambda w: {"area": w + 1})
    return chain(
        StateGraph(_Grid),
        ("widen", RunnableLambda(lambda s: {"width": s["width"] + 4, "height": 2})),
        ("pipe", pipe),
    )


# ---------------------------------------------------------------------- Commands and state classes


class _Lamp(BaseModel):
    colour: str
    watts: int = 0


@dataclass
class _Kettle:
    colour: str
    watts: int = 0


def _state_instance_update(state: Any) -> StateGraph[Any]:
    def paint(s: Any) -> Command[Literal["plug"]]:
        return Command(update=state(colour=f"{s.colour}red", watts=5), goto="plug")

    def plug(s: Any) -> dict[str, Any]:
        return {"watts": s.watts * 12, "colour": f"{s.colour} lit"}

    b = StateGraph(state)
    b.add_node("paint", paint)
    b.add_node("plug", plug)
    b.add_edge(START, "paint")
    return b


def command_update_is_a_pydantic_instance() -> StateGraph[Any]:
    """A pydantic state; a node's Command carries a model instance as its update."""
    return _state_instance_update(_Lamp)


def command_update_is_a_dataclass_instance() -> StateGraph[Any]:
    """A dataclass state; a node's Command carries a dataclass instance as its update."""
    return _state_instance_update(_Kettle)


class _Garden(BaseModel):
    class Bed(BaseModel):
        seeds: int = 1
        crop: str = "none"

    bed: Bed = Field(default_factory=Bed)
    water: int = 0


def node_mutates_and_returns_the_model() -> StateGraph[Any]:
    """A node that changes a pydantic state in place (a nested model too) and returns it."""

    def sow(state: _Garden) -> _Garden:
        state.bed.seeds += 7
        state.bed.crop = "beans"
        state.water = state.water * 3
        return state

    return StateGraph(_Garden).add_node("sow", sow).add_edge(START, "sow")


class _Trip(TypedDict, total=False):
    legs: list[Any]
    journal: Annotated[list[AnyMessage], add_messages]


def command_goto_one_node_or_several() -> StateGraph[Any]:
    """A planner routing by Command(goto=) to one node or to a list of nodes, each step routing back."""

    def planner(state: _Trip) -> Any:
        legs = state.get("legs")
        if legs is None:
            return Command(goto="train", update={"legs": [["bus", "ferry"], "walk"]})
        if legs:
            head, *rest = legs
            return Command(goto=head, update={"legs": rest})
        return {"journal": [("ai", "arrived")]}

    def leg(name: str) -> Callable[[_Trip], Command[Any]]:
        return lambda s: Command(goto="planner", update={"journal": [("human", f"took the {name}")]})

    b = StateGraph(_Trip)
    b.add_node("planner", planner)
    for name in ("train", "bus", "ferry", "walk"):
        b.add_node(name, leg(name))
    b.add_edge(START, "planner")
    return b


class _Stock(TypedDict):
    stock: Annotated[list[str], operator.add]


def node_returns_a_list_of_commands() -> StateGraph[Any]:
    """A node returning several Commands; each one's update is applied."""
    return chain(
        StateGraph(_Stock),
        ("receive", lambda s: [Command(update={"stock": ["bolts"]}), Command(update={"stock": ["nuts"]})]),
        ("count", lambda s: {"stock": [f"{len(s['stock'])} kinds"]}),
    )


def root_channel_updated_by_commands() -> StateGraph[Any]:
    """A root string channel (no dict state) updated by a list of Commands, then by a plain value."""
    return chain(
        StateGraph(Annotated[str, operator.add]),  # type: ignore[arg-type]
        ("mix", lambda s: [Command(update="<red>"), Command(update="<blue>")]),
        ("seal", lambda s: f"<sealed {len(s)}>"),
    )


def node_returns_a_command_and_a_dict() -> StateGraph[Any]:
    """A node returning a Command and a plain dict in one list."""
    return chain(
        StateGraph(_Stock),
        ("both", lambda s: [{"stock": ["washers"]}, Command(update={"stock": ["screws"]})]),
    )


class _Pot(TypedDict):
    coins: Annotated[list[int], operator.add]
    note: str


async def _deposit(state: _Pot) -> Command[Literal["tally"]]:
    return Command(update={"coins": [5, 10], "note": "deposited"}, goto="tally")


async def _tally(state: _Pot) -> dict[str, Any]:
    return {"note": f"{state['note']}, {sum(state['coins'])} in the pot"}


def async_nodes_route_by_command() -> StateGraph[Any]:
    """Async nodes; a Command(update=, goto=) typed with its destination."""
    b = StateGraph(_Pot)
    b.add_node("deposit", _deposit)
    b.add_node("tally", _tally)
    b.add_edge(START, "deposit")
    return b


class _Queue(TypedDict):
    jobs: Annotated[list[str], operator.add]


def command_goto_sends() -> StateGraph[Any]:
    """Command(goto=[Send(...), ...]) from a node: dynamic tasks with their own argument, beside an update."""

    def dispatch(state: _Queue) -> Command[Any]:
        return Command(update={"jobs": ["dispatched"]}, goto=[Send("run_job", {"job": j}) for j in "abc"])

    b = StateGraph(_Queue)
    b.add_node("dispatch", dispatch)
    b.add_node("run_job", lambda arg: {"jobs": [f"ran {arg['job']}"]})
    b.add_edge(START, "dispatch")
    return b


def overwrite_a_reducer_channel() -> StateGraph[Any]:
    """`Overwrite` replaces a reducer channel's value instead of reducing into it."""
    return chain(
        StateGraph(_Queue),
        ("more", lambda s: {"jobs": ["j1", "j2"]}),
        ("clear", lambda s: {"jobs": Overwrite([f"kept {len(s['jobs'])}"])}),
        ("after", lambda s: {"jobs": ["j3"]}),
    )


# ---------------------------------------------------------------------- fan-out and messages


class _Bakery(TypedDict):
    flour: str
    loaves: list[str]
    baked: Annotated[list[str], operator.add]
    best: str


def send_map_reduce() -> StateGraph[Any]:
    """One Send per loaf to a mapping node, then a reduce node reading all their writes."""

    def plan(state: _Bakery) -> dict[str, Any]:
        return {"loaves": [f"{state['flour']} loaf {i}" for i in range(4)]}

    def bake(arg: dict[str, Any]) -> dict[str, Any]:
        return {"baked": [arg["loaf"].replace("loaf", "bread")]}

    def judge(state: _Bakery) -> dict[str, Any]:
        return {"best": min(state["baked"], key=lambda x: (-len(x), x))}

    b = StateGraph(_Bakery)
    b.add_node("plan", plan)
    b.add_node("bake", bake)
    b.add_node("judge", judge)
    b.add_edge(START, "plan")
    b.add_conditional_edges("plan", lambda s: [Send("bake", {"loaf": x}) for x in s["loaves"]], ["bake"])
    b.add_edge("bake", "judge")
    b.add_edge("judge", END)
    return b


def tool_calling_loop() -> StateGraph[Any]:
    """A MessagesState loop: the model node asks for a tool until it has two results, the tool node answers."""

    def model(state: MessagesState) -> dict[str, Any]:
        results = [m for m in state["messages"] if isinstance(m, ToolMessage)]
        if len(results) < 2:
            call = {"name": "lookup", "args": {"page": len(results) + 1}, "id": f"c{len(results)}"}
            return {"messages": [AIMessage(content="", tool_calls=[call], id=f"m{len(results)}")]}
        return {"messages": [AIMessage(content=" + ".join(str(r.content) for r in results), id="end")]}

    def lookup(state: MessagesState) -> dict[str, Any]:
        call = state["messages"][-1].tool_calls[0]  # type: ignore[attr-defined]
        text = f"page {call['args']['page']}"
        return {"messages": [ToolMessage(content=text, tool_call_id=call["id"], id=f"t{call['id']}")]}

    def wants_tool(state: MessagesState) -> str:
        return "lookup" if getattr(state["messages"][-1], "tool_calls", None) else END

    b = StateGraph(MessagesState)
    b.add_node("model", model)
    b.add_node("lookup", lookup)
    b.add_edge(START, "model")
    b.add_conditional_edges("model", wants_tool, ["lookup", END])
    b.add_edge("lookup", "model")
    return b


def remove_a_message_by_id() -> StateGraph[Any]:
    """A root messages channel; a node removes the message before the last by the id `add_messages` gave it."""
    b = StateGraph(Annotated[list[AnyMessage], add_messages])  # type: ignore[arg-type]
    b.add_node("say", lambda s: [AIMessage(content="first thought"), AIMessage(content="second thought")])
    b.add_node("forget", lambda s: [RemoveMessage(id=s[-2].id)])
    b.add_edge(START, "say")
    b.add_edge("say", "forget")
    return b


# ---------------------------------------------------------------------- managed values, deferral, parameters


class _Budget(TypedDict):
    seen: Annotated[list[int], operator.add]
    remaining_steps: RemainingSteps


def stop_on_remaining_steps() -> StateGraph[Any]:
    """A loop that reads the RemainingSteps managed value and stops itself before the limit."""
    b = StateGraph(_Budget)
    b.add_node("lap", lambda s: {"seen": [s["remaining_steps"]]})
    b.add_edge(START, "lap")
    b.add_conditional_edges("lap", lambda s: "lap" if s["remaining_steps"] > 18 else END)
    return b


class _Report(TypedDict):
    parts: Annotated[list[str], operator.add]
    report: str


def deferred_node_waits_for_all_branches() -> StateGraph[Any]:
    """A `defer=True` node reached from a short and a long branch runs once, after both are done."""
    b = StateGraph(_Report)
    b.add_node("intro", lambda s: {"parts": ["intro"]})
    b.add_node("body_1", lambda s: {"parts": ["body 1"]})
    b.add_node("body_2", lambda s: {"parts": ["body 2"]})
    b.add_node("body_3", lambda s: {"parts": ["body 3"]})
    b.add_node("assemble", lambda s: {"report": " / ".join(s["parts"])}, defer=True)
    b.add_edge(START, "intro")
    b.add_edge(START, "body_1")
    b.add_edge("body_1", "body_2")
    b.add_edge("body_2", "body_3")
    b.add_edge("intro", "assemble")
    b.add_edge("body_3", "assemble")
    return b


def config_and_runtime_parameters() -> StateGraph[Any]:
    """Nodes declaring a `config` parameter (the thread id) and a `runtime` one (no context given)."""

    def thread_of(state: _Report, config: RunnableConfig) -> dict[str, Any]:
        return {"parts": [f"thread {config['configurable']['thread_id']}"]}

    def context_of(state: _Report, runtime: Any) -> dict[str, Any]:
        return {"parts": [f"context {runtime.context!r}"]}

    return chain(StateGraph(_Report), ("thread_of", thread_of), ("context_of", context_of))


# ---------------------------------------------------------------------- retries, handlers, errors


class _Ping(TypedDict):
    pings: Annotated[list[str], operator.add]


def retry_until_it_passes() -> StateGraph[Any]:
    """A node failing twice with KeyError under a RetryPolicy of three attempts retrying on KeyError."""
    attempts = {"n": 0}

    def ping(state: _Ping) -> dict[str, Any]:
        attempts["n"] += 1
        if attempts["n"] <= 2:
            raise KeyError(f"no route yet ({attempts['n']})")
        return {"pings": [f"pong on attempt {attempts['n']}"]}

    b = StateGraph(_Ping)
    b.add_node(
        "ping",
        ping,
        retry_policy=RetryPolicy(max_attempts=3, initial_interval=0.0, jitter=False, retry_on=KeyError),
    )
    b.add_edge(START, "ping")
    return b


def loop_past_the_recursion_limit() -> StateGraph[Any]:
    """Two nodes looping for ever: the recursion limit ends the run with GraphRecursionError."""
    b = StateGraph(_Ping)
    b.add_node("tick", lambda s: {"pings": ["tick"]})
    b.add_node("tock", lambda s: {"pings": ["tock"]})
    b.add_edge(START, "tick")
    b.add_edge("tick", "tock")
    b.add_edge("tock", "tick")
    return b


def error_handler_routes_on() -> StateGraph[Any]:
    """A failing node's `error_handler` runs instead and routes with a Command; a parallel node is unaffected."""

    def fragile(state: _Ping) -> dict[str, Any]:
        raise LookupError("no such shelf")

    def rescue(state: _Ping) -> Command[Any]:
        return Command(update={"pings": ["rescued"]}, goto="wrap_up")

    b = StateGraph(_Ping)
    b.add_node("fragile", fragile, error_handler=rescue)
    b.add_node("steady", lambda s: {"pings": ["steady"]})
    b.add_node("wrap_up", lambda s: {"pings": [f"wrap up {len(s['pings'])}"]})
    b.add_edge(START, "fragile")
    b.add_edge(START, "steady")
    return b


class _Slot(TypedDict):
    slot: str
    pings: Annotated[list[str], operator.add]


def two_writers_of_one_plain_key() -> StateGraph[Any]:
    """Two parallel nodes writing one plain (LastValue) key in the same step: LangGraph's InvalidUpdateError."""
    b = StateGraph(_Slot)
    b.add_node("morning", lambda s: {"slot": "am", "pings": ["morning"]})
    b.add_node("evening", lambda s: {"slot": "pm", "pings": ["evening"]})
    b.add_edge(START, "morning")
    b.add_edge(START, "evening")
    return b


def node_returns_an_int() -> StateGraph[Any]:
    """A node of a dict state returning an int: LangGraph's InvalidUpdateError."""
    b = StateGraph(_Slot)
    b.add_node("odd", lambda s: 42)
    b.add_edge(START, "odd")
    return b


def router_names_an_unknown_node() -> StateGraph[Any]:
    """A conditional edge without a path map returning a name no node has."""
    b = StateGraph(_Slot)
    b.add_node("start_here", lambda s: {"pings": ["here"]})
    b.add_edge(START, "start_here")
    b.add_conditional_edges("start_here", lambda s: "no_such_node")
    return b


FLOW: dict[str, Case] = {
    "root_list_send_then_branch": Case(root_list_send_then_branch, [("run", [1, 2])]),
    "two_entries_sends_and_a_name": Case(two_entries_sends_and_a_name, [("run", ["go"])]),
    "send_carrying_a_command": Case(send_carrying_a_command, [("run", ["go"])]),
    "messages_reducer_coerces_the_input": Case(
        messages_reducer_coerces_the_input, [("run", {"title": "memo", "thread": "hello there"})]
    ),
    "conditional_entry_of_sends": Case(
        conditional_entry_of_sends, [("run", {"parcels": ["box", "crate", "tube"]})]
    ),
    "two_branches_join_at_end": Case(two_branches_join_at_end, [("run", {"marks": ["start"]})]),
    "join_of_uneven_branches_by_router": Case(join_of_uneven_branches_by_router, [("run", {"wish": "maps"})]),
    "join_of_uneven_branches_by_edges": Case(
        join_of_uneven_branches_by_edges, [("run", {"wish": "maps", "books": ["zine"]})]
    ),
    "join_on_a_node_and_its_successor": Case(join_on_a_node_and_its_successor, [("run", {"trail": "in"})]),
    "subgraph_node_with_a_private_key": Case(
        subgraph_node_with_a_private_key, [("run", {"room": "den", "paint": 1})]
    ),
    "built_with_add_sequence": Case(built_with_add_sequence, [("run", {"steps": [], "temperature": 20})]),
    "input_and_output_schemas": Case(
        input_and_output_schemas, [("run", {"ask": "refund", "draft": "dropped"})]
    ),
    "per_node_input_schemas": Case(
        per_node_input_schemas, [("run", {"item": "pen", "qty": 3, "notes": "order", "stamp": "ignored"})]
    ),
    "partial_input_of_a_total_schema": Case(partial_input_of_a_total_schema, [("run", {"width": 3})]),
    "runnables_as_nodes": Case(runnables_as_nodes, [("run", {"width": 1, "height": 1, "area": 0})]),
    "command_update_is_a_pydantic_instance": Case(
        command_update_is_a_pydantic_instance, [("run", {"colour": "dim"})]
    ),
    "command_update_is_a_dataclass_instance": Case(
        command_update_is_a_dataclass_instance, [("run", {"colour": "dim"})]
    ),
    "pydantic_instance_as_input": Case(command_update_is_a_pydantic_instance, [("run", _Lamp(colour="dim"))]),
    "dataclass_instance_as_input": Case(
        command_update_is_a_dataclass_instance, [("run", _Kettle(colour="dim"))]
    ),
    "node_mutates_and_returns_the_model": Case(node_mutates_and_returns_the_model, [("run", {"water": 2})]),
    "command_goto_one_node_or_several": Case(
        command_goto_one_node_or_several, [("run", {"journal": [("human", "leaving")]})]
    ),
    "node_returns_a_list_of_commands": Case(node_returns_a_list_of_commands, [("run", {"stock": []})]),
    "root_channel_updated_by_commands": Case(root_channel_updated_by_commands, [("run", "start")]),
    "node_returns_a_command_and_a_dict": Case(node_returns_a_command_and_a_dict, [("run", {"stock": ["x"]})]),
    "async_nodes_route_by_command": Case(async_nodes_route_by_command, [("run", {"coins": [1], "note": ""})]),
    "command_goto_sends": Case(command_goto_sends, [("run", {"jobs": []})]),
    "overwrite_a_reducer_channel": Case(overwrite_a_reducer_channel, [("run", {"jobs": ["j0"]})]),
    "send_map_reduce": Case(send_map_reduce, [("run", {"flour": "rye"})]),
    "tool_calling_loop": Case(
        tool_calling_loop, [("run", {"messages": [HumanMessage(content="find it", id="q")]})]
    ),
    "remove_a_message_by_id": Case(remove_a_message_by_id, [("run", [HumanMessage(content="hm", id="h")])]),
    "stop_on_remaining_steps": Case(stop_on_remaining_steps, [("run", {"seen": []})]),
    "deferred_node_waits_for_all_branches": Case(
        deferred_node_waits_for_all_branches, [("run", {"parts": []})]
    ),
    "config_and_runtime_parameters": Case(config_and_runtime_parameters, [("run", {"parts": []})]),
    "retry_until_it_passes": Case(retry_until_it_passes, [("run", {"pings": []})]),
    "loop_past_the_recursion_limit": Case(loop_past_the_recursion_limit, [("run", {"pings": []})]),
    "error_handler_routes_on": Case(error_handler_routes_on, [("run", {"pings": []})]),
    "two_writers_of_one_plain_key": Case(two_writers_of_one_plain_key, [("run", {"slot": "", "pings": []})]),
    "node_returns_an_int": Case(node_returns_an_int, [("run", {"slot": "", "pings": []})]),
    "router_names_an_unknown_node": Case(router_names_an_unknown_node, [("run", {"slot": "", "pings": []})]),
    "input_that_is_not_a_mapping": Case(node_returns_a_list_of_commands, [("run", 17)]),
}
"""The routing, fan-out, reducer, schema and error cases, by name."""
