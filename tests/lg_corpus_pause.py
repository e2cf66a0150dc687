"""Corpus, part two: LangGraph graphs that pause, resume and nest (interrupts, breakpoints, subgraphs, context).

Written for this project (see `lg_cases` for the case form), one LangGraph feature per graph:
`interrupt()` answered by value, by Command(resume=, update=, goto=) or by interrupt id;
static breakpoints before and after nodes; `update_state` at a breakpoint and after the end;
interrupts and breakpoints inside subgraphs;
Command(graph=PARENT); the run context across a pause; an error raised after a pause.
"""

from __future__ import annotations

import operator
from dataclasses import dataclass
from typing import Annotated, Any

from langchain_core.messages import AIMessage, AnyMessage, HumanMessage
from langgraph.graph import END, START, StateGraph
from langgraph.graph.message import add_messages
from langgraph.runtime import Runtime
from langgraph.types import Command, Send, interrupt
from lg_cases import RESUME, Case, chain
from typing_extensions import TypedDict


class _Form(TypedDict):
    form: Annotated[str, operator.add]


def two_questions_in_one_node() -> StateGraph[Any]:
    """A node asking two questions in turn; the first answer comes with a state update (Command(resume=, update=))."""

    def fill(state: _Form) -> dict[str, Any]:
        name = interrupt({"field": "name"})
        city = interrupt({"field": "city", "so_far": state["form"]})
        return {"form": f"[{name} from {city}]"}

    return chain(StateGraph(_Form), ("fill", fill))


class _Pin(TypedDict):
    pin: int
    tries: int


def ask_until_the_answer_is_valid() -> StateGraph[Any]:
    """`interrupt()` in a loop: the node asks again until the answer is a four-digit number."""

    def ask_pin(state: _Pin) -> dict[str, Any]:
        prompt = "pin?"
        for attempt in range(1, 6):
            got = interrupt({"prompt": prompt, "attempt": attempt})
            if got.isdigit() and len(got) == 4:
                return {"pin": int(got), "tries": attempt}
            prompt = f"{got!r} is not four digits"
        return {"tries": 5}

    return chain(StateGraph(_Pin), ("ask_pin", ask_pin))


class _Relay(TypedDict):
    baton: str


class _RelayAdd(TypedDict):
    baton: Annotated[str, operator.add]


def breakpoint_answered_with_resume() -> StateGraph[Any]:
    """`interrupt_before` the first runner; the run goes on with a Command(resume=) that nothing reads."""
    return chain(
        StateGraph(_Relay),
        ("first_leg", lambda s: {"baton": s["baton"] + ">first"}),
        ("second_leg", lambda s: {"baton": s["baton"] + ">second"}),
        ("third_leg", lambda s: {"baton": s["baton"] + ">third"}),
    )


def breakpoint_answered_with_goto() -> StateGraph[Any]:
    """`interrupt_before` the first runner, answered with Command(goto=[...]) to a later node."""
    return chain(
        StateGraph(_RelayAdd),
        ("first_leg", lambda s: {"baton": ">first"}),
        ("second_leg", lambda s: {"baton": ">second"}),
        ("third_leg", lambda s: {"baton": ">third"}),
    )


class _Guest(TypedDict):
    guest: str
    reply: str
    replies: list[str]


class _Party(TypedDict):
    guests: list[str]
    replies: Annotated[list[str], operator.add]
    seated: int


def sends_to_an_interrupting_subgraph() -> StateGraph[Any]:
    """One Send per guest to a compiled subgraph that asks a question; answered all at once or one by one."""

    def rsvp(state: _Guest) -> dict[str, Any]:
        said = interrupt(f"is {state['guest']} coming?")
        return {"reply": said, "replies": [f"{state['guest']}: {said}"]}

    invite = StateGraph(_Guest).add_node("rsvp", rsvp).add_edge(START, "rsvp").compile()
    b = StateGraph(_Party)
    b.add_node("invite", invite)
    b.add_node("seat", lambda s: {"seated": len(s["replies"])})
    b.add_conditional_edges(START, lambda s: [Send("invite", {"guest": g}) for g in s["guests"]], ["invite"])
    b.add_edge("invite", "seat")
    return b


class _Shift(TypedDict):
    shift: Annotated[list[str], operator.add]


def interrupt_beside_a_finished_task() -> StateGraph[Any]:
    """Two parallel nodes: one finishes, the other interrupts; a waiting edge joins them after the answer."""

    def supervisor(state: _Shift) -> dict[str, Any]:
        return {"shift": [f"supervisor says {interrupt('sign off?')}"]}

    b = StateGraph(_Shift)
    b.add_node("supervisor", supervisor)
    b.add_node("crew", lambda s: {"shift": ["crew done"]})
    b.add_node("close_shift", lambda s: {"shift": [f"closed with {len(s['shift'])}"]})
    b.add_edge(START, "supervisor")
    b.add_edge(START, "crew")
    b.add_edge(["supervisor", "crew"], "close_shift")
    return b


def three_stations() -> StateGraph[Any]:
    """A chain of three nodes, run under `interrupt_after` some of them or `interrupt_before="*"`."""
    return chain(
        StateGraph(_Shift),
        ("wash", lambda s: {"shift": ["washed"]}),
        ("dry", lambda s: {"shift": ["dried"]}),
        ("fold", lambda s: {"shift": [f"folded after {len(s['shift'])}"]}),
    )


class _Vault(TypedDict):
    code: str


def interrupt_inside_a_subgraph() -> StateGraph[Any]:
    """`interrupt()` in a compiled subgraph node, answered from the parent's thread."""

    def unlock(state: _Vault) -> dict[str, Any]:
        return {"code": f"{state['code']}+{interrupt('second half of the code?')}"}

    inner = StateGraph(_Vault).add_node("unlock", unlock).add_edge(START, "unlock").compile()
    return chain(StateGraph(_Vault), ("first_half", lambda s: {"code": "12"}), ("vault", inner))


class _Survey(TypedDict):
    questions: list[str]
    answers: Annotated[list[str], operator.add]


def questions_answered_one_per_resume() -> StateGraph[Any]:
    """A node asking one question per item in a loop; each resume answers the next one."""

    def ask_all(state: _Survey) -> dict[str, Any]:
        return {"answers": [f"{q}={interrupt(q)}" for q in state["questions"]]}

    return chain(
        StateGraph(_Survey),
        ("prepare", lambda s: {"questions": [f"q{i}:{q}" for i, q in enumerate(s["questions"])]}),
        ("ask_all", ask_all),
    )


class _Mail(TypedDict):
    mail: Annotated[list[str], operator.add]


def subgraph_routes_its_parent() -> StateGraph[Any]:
    """A subgraph node returns Command(graph=PARENT, goto=, update=); the parent declares the destinations."""

    def sort(state: _Mail) -> Command[Any]:
        target = "urgent" if len(state["mail"]) > 1 else "later"
        return Command(graph=Command.PARENT, goto=target, update={"mail": [f"sorted to {target}"]})

    sorter = StateGraph(_Mail).add_node("sort", sort).add_edge(START, "sort").compile()
    b = StateGraph(_Mail)
    b.add_node("sorter", sorter, destinations=("urgent", "later"))
    b.add_node("urgent", lambda s: {"mail": ["read now"]})
    b.add_node("later", lambda s: {"mail": ["read later"]})
    b.add_edge(START, "sorter")
    return b


class _Essay(TypedDict):
    feedback: Annotated[list[AnyMessage], add_messages]
    text: str
    version: int


def review_loop_routed_by_command() -> StateGraph[Any]:
    """A reviewer interrupts with the draft; its answer routes (Command(goto=)) to publish or back to a rewrite."""

    def draft(state: _Essay) -> dict[str, Any]:
        v = state.get("version", 0) + 1
        return {"text": f"essay v{v} ({len(state['feedback'])} notes)", "version": v}

    def review(state: _Essay) -> Command[Any]:
        verdict = interrupt({"review": state["text"]})
        if verdict == "approve":
            return Command(goto="publish")
        note = HumanMessage(content=verdict, id=f"note{state['version']}")
        return Command(goto="draft", update={"feedback": [note]})

    b = StateGraph(_Essay)
    b.add_node("draft", draft)
    b.add_node("review", review, destinations=("publish", "draft"))
    b.add_node("publish", lambda s: {"feedback": [AIMessage(content=f"published {s['text']}", id="done")]})
    b.add_edge(START, "draft")
    b.add_edge("draft", "review")
    b.add_edge("publish", END)
    return b


@dataclass
class _Account:
    owner: str
    currency: str = "EUR"


class _Ledger(TypedDict):
    lines: Annotated[list[str], operator.add]


def runtime_context_across_a_pause() -> StateGraph[Any]:
    """Nodes read `runtime.context` (a dataclass `context_schema` given as a dict), before and after a pause."""

    def open_ledger(state: _Ledger, runtime: Runtime[_Account]) -> dict[str, Any]:
        return {"lines": [f"ledger of {runtime.context.owner} in {runtime.context.currency}"]}

    def charge(state: _Ledger, runtime: Runtime[_Account]) -> dict[str, Any]:
        amount = interrupt("amount?")
        return {"lines": [f"{runtime.context.owner} pays {amount} {runtime.context.currency}"]}

    return chain(
        StateGraph(_Ledger, context_schema=_Account), ("open_ledger", open_ledger), ("charge", charge)
    )


class _Wire(TypedDict):
    wire: Annotated[str, operator.add]
    gauge: str


class _Cable(TypedDict):
    wire: Annotated[str, operator.add]


def subgraph_breakpoint_beside_a_parent_task() -> StateGraph[Any]:
    """A subgraph compiled with its own `interrupt_before` pauses the parent while a parallel parent task finishes."""
    inner = StateGraph(_Wire)
    inner.add_node("strip", lambda s: {"wire": "<strip>", "gauge": f"g{len(s['wire'])}"})
    inner.add_node("solder", lambda s: {"wire": f"<solder {s['gauge']}>"})
    inner.add_edge(START, "strip")
    inner.add_edge("strip", "solder")
    b = StateGraph(_Cable)
    b.add_node("splice", inner.compile(interrupt_before=["solder"]))
    b.add_node("label", lambda s: {"wire": "<label>"})
    b.add_node("test", lambda s: {"wire": "<test>"})
    b.add_edge(START, "splice")
    b.add_edge(START, "label")
    b.add_edge(["splice", "label"], "test")
    return b


class _Mine(TypedDict):
    ore: str


def breakpoint_two_levels_down() -> StateGraph[Any]:
    """A grandchild graph's own breakpoint pauses the whole run; continuing finishes all three levels."""
    shaft = StateGraph(_Mine)
    shaft.add_node("dig", lambda s: {"ore": s["ore"] + " dug"})
    shaft.add_node("haul", lambda s: {"ore": s["ore"] + " hauled"})
    shaft.add_edge(START, "dig")
    shaft.add_edge("dig", "haul")
    level = (
        StateGraph(_Mine).add_node("shaft", shaft.compile(interrupt_before=["haul"])).add_edge(START, "shaft")
    )
    return chain(
        StateGraph(_Mine),
        ("survey", lambda s: {"ore": "surveyed " + s["ore"]}),
        ("level", level.compile()),
        ("smelt", lambda s: {"ore": s["ore"] + " smelted"}),
    )


class _Dose(TypedDict):
    dose: int
    log: Annotated[list[str], operator.add]


def node_fails_on_its_answer() -> StateGraph[Any]:
    """A node that fails on the answer it is given: the error comes out of the resume, a later resume fails again."""

    def measure(state: _Dose) -> dict[str, Any]:
        raw = interrupt("dose in mg?")
        return {"dose": int(raw), "log": [f"dose {raw}"]}

    return chain(StateGraph(_Dose), ("measure", measure))


PAUSE: dict[str, Case] = {
    "two_questions_in_one_node": Case(
        two_questions_in_one_node,
        [
            ("run", {"form": "F:"}),
            ("resume", Command(resume="Ines", update={"form": "named;"})),
            ("resume", Command(resume="Porto")),
        ],
    ),
    "ask_until_the_answer_is_valid": Case(
        ask_until_the_answer_is_valid,
        [("run", {"tries": 0}), ("resume", "12"), ("resume", "abcd"), ("resume", "4321")],
    ),
    "breakpoint_answered_with_resume": Case(
        breakpoint_answered_with_resume,
        [("run", {"baton": "go"}), ("resume", Command(resume="ignored"))],
        {"interrupt_before": ["first_leg"]},
    ),
    "breakpoint_answered_with_goto": Case(
        breakpoint_answered_with_goto,
        [("run", {"baton": "go"}), ("resume", Command(goto=["third_leg"]))],
        {"interrupt_before": ["first_leg"]},
    ),
    "sends_to_an_interrupting_subgraph": Case(
        sends_to_an_interrupting_subgraph, [("run", {"guests": ["ana", "bo", "cy"]}), ("resume", "MAP")]
    ),
    "sends_to_an_interrupting_subgraph_one_by_one": Case(
        sends_to_an_interrupting_subgraph,
        [("run", {"guests": ["ana", "bo", "cy"]}), ("resume", "ONE"), ("resume", "ONE"), ("resume", "ONE")],
    ),
    "interrupt_beside_a_finished_task": Case(
        interrupt_beside_a_finished_task, [("run", {"shift": ["start"]}), ("resume", "yes")]
    ),
    "breakpoints_after_two_nodes": Case(
        three_stations,
        [("run", {"shift": []}), ("resume", RESUME), ("resume", RESUME)],
        {"interrupt_after": ["wash", "dry"]},
    ),
    "breakpoints_before_every_node": Case(
        three_stations, [("run", {"shift": []})] + [("resume", RESUME)] * 3, {"interrupt_before": "*"}
    ),
    "state_edited_at_a_breakpoint": Case(
        three_stations,
        [("run", {"shift": []}), ("update", ({"shift": ["inspected"]}, None)), ("resume", RESUME)],
        {"interrupt_before": ["dry"]},
    ),
    "state_edited_as_the_paused_node": Case(
        three_stations,
        [("run", {"shift": []}), ("update", ({"shift": ["dried by hand"]}, "dry")), ("resume", RESUME)],
        {"interrupt_before": ["dry"]},
    ),
    "finished_run_edited_then_continued": Case(
        three_stations,
        [("run", {"shift": []}), ("update", ({"shift": ["rewashed"]}, "wash")), ("resume", RESUME)],
    ),
    "interrupt_inside_a_subgraph": Case(
        interrupt_inside_a_subgraph, [("run", {"code": ""}), ("resume", "34")]
    ),
    "breakpoint_before_an_interrupting_subgraph": Case(
        interrupt_inside_a_subgraph,
        [("run", {"code": ""}), ("resume", RESUME), ("resume", "56")],
        {"interrupt_before": ["vault"]},
    ),
    "questions_answered_one_per_resume": Case(
        questions_answered_one_per_resume,
        [("run", {"questions": ["age", "town"], "answers": []}), ("resume", "40"), ("resume", "Lyon")],
    ),
    "subgraph_routes_its_parent": Case(subgraph_routes_its_parent, [("run", {"mail": ["bill", "card"]})]),
    "review_loop_routed_by_command": Case(
        review_loop_routed_by_command,
        [
            ("run", {"feedback": [HumanMessage(content="write about owls", id="brief")]}),
            ("resume", "more owls"),
            ("resume", "approve"),
        ],
    ),
    "runtime_context_across_a_pause": Case(
        runtime_context_across_a_pause, [("run", {"lines": []}), ("resume", "12")], context={"owner": "Rui"}
    ),
    "subgraph_breakpoint_beside_a_parent_task": Case(
        subgraph_breakpoint_beside_a_parent_task, [("run", {"wire": "w"}), ("resume", RESUME)]
    ),
    "breakpoint_two_levels_down": Case(
        breakpoint_two_levels_down, [("run", {"ore": "tin"}), ("resume", RESUME)]
    ),
    "node_fails_on_its_answer": Case(
        node_fails_on_its_answer, [("run", {"dose": 0, "log": []}), ("resume", "ten"), ("resume", RESUME)]
    ),
}
"""The pause, breakpoint, subgraph and context cases, by name."""
