"""A booking flow (name, phone, address) as an engine graph routed by the selector.

A scripted caller stands in for speech recognition: ``BookingState.caller`` holds the caller's
lines, ``listen`` takes the next one (silence once the script is over) and a deterministic
recogniser (:func:`recognise`) turns it into slot observations. ``listen`` is wrapped in a
:class:`SelectorRouter`, so after each line the selector picks ``ask_name``, ``ask_phone``,
``ask_address``, ``repair_phone``, the read-back (exit) or the hand-off (fallback)::

    engine = booking_engine(enabled=True)
    final = engine.run_sync("call-1", BookingState(caller=["I'm Ada Lovelace, 555 123 4567, 12 Baker Street"]))
    final.outcome == "readback"
"""

from __future__ import annotations

import re
from collections.abc import Callable
from typing import Annotated

from pydantic import BaseModel, Field

from goap.selector._choose import Decision, SelectorContext
from goap.selector._model import GoalSegment, SlotContract, SlotLedger, SlotObservation, StateDef
from goap.selector._router import SelectorRouter
from graphengine import Context, Engine, NodeResult, Options, append, stop
from graphengine.store import Store

__all__ = ["PROMPTS", "BookingState", "booking_engine", "booking_segment", "recognise"]


class BookingState(BaseModel):
    """State of one booking call."""

    caller: list[str] = Field(default_factory=list)
    """The caller's lines, in order (the script)."""
    turn: int = 0
    """How many caller lines were heard."""
    ledger: SlotLedger = Field(default_factory=SlotLedger)
    """The slot ledger."""
    heard: list[SlotObservation] = Field(default_factory=list)
    """Observations of the last caller line, consumed by the selector."""
    suggested_next: str | None = None
    """A next state a language model proposed (the selector ignores it)."""
    transcript: Annotated[list[str], append] = Field(default_factory=list)
    """``agent: ...`` and ``caller: ...`` lines."""
    decisions: Annotated[list[str], append] = Field(default_factory=list)
    """The selector's reason strings, one per decision."""
    outcome: str = ""
    """``readback`` or ``handoff`` at the end of the call."""


def booking_segment(*, selector: str = "goap_lite") -> GoalSegment:
    """The booking segment: name, phone and address required; phone repairs; hand-off after 3 tries."""
    return GoalSegment(
        name="booking",
        contract=SlotContract(target=("name", "phone", "address"), min_confidence=0.6, max_attempts=3),
        states=(
            StateDef("ask_name", collects=("name",), order=1),
            StateDef("ask_phone", collects=("phone",), order=2),
            StateDef("ask_address", collects=("address",), order=3),
            StateDef("repair_phone", repairs=("phone",), preconditions={"phone.filled": True}, order=4),
        ),
        exit_target="readback",
        fallback_state="handoff",
        selector=selector,  # type: ignore[arg-type]
    )


PROMPTS = {
    "greet": "Hello, I can book that for you. May I have your name, phone number and address?",
    "ask_name": "May I have your name?",
    "ask_phone": "What is the best phone number to reach you?",
    "ask_address": "And the address for the booking?",
    "repair_phone": "Sorry, that number seems incomplete. Could you repeat your phone number?",
    "handoff": "Let me transfer you to a colleague who can help.",
}
"""What the agent says in each state (the read-back is built from the ledger)."""

_NAME = re.compile(r"\b(?i:my name is|i am|i'm|this is|name's)\s+([A-Z][a-z]+(?:\s+[A-Z][a-z]+)*)")
_PHONE = re.compile(r"(\+?\d[\d\s().-]{3,}\d)")
_ADDRESS = re.compile(
    r"\b(\d+\s+[A-Z][a-z]+(?:\s+[A-Z][a-z]+)*\s+(?:Street|St|Road|Rd|Avenue|Ave|Lane|Way))\b"
)
_REFUSE = re.compile(r"\b(?:rather not|won't|not giving|no way)\b.*\b(name|phone|number|address)\b", re.I)
_SLOT_WORDS = {"name": "name", "phone": "phone", "number": "phone", "address": "address"}


def recognise(line: str) -> list[SlotObservation]:
    """Deterministic toy recogniser: a name, a phone (valid with 10+ digits), an address, refusals."""
    out: list[SlotObservation] = []
    if m := _NAME.search(line):
        out.append(SlotObservation(slot="name", value=m.group(1), confidence=0.9))
    if m := _ADDRESS.search(line):
        out.append(SlotObservation(slot="address", value=m.group(1), confidence=0.9))
        line = line.replace(m.group(1), "")
    if m := _PHONE.search(line):
        digits = re.sub(r"\D", "", m.group(1))
        out.append(SlotObservation(slot="phone", value=digits, valid=len(digits) >= 10, confidence=0.9))
    if m := _REFUSE.search(line):
        out.append(SlotObservation(slot=_SLOT_WORDS[m.group(1).lower()], blocked=True))
    return out


def _say(state_name: str) -> Callable[[Context, BookingState], NodeResult[BookingState]]:
    line = f"agent: {PROMPTS[state_name]}"

    def node(ctx: Context, s: BookingState) -> NodeResult[BookingState]:
        return NodeResult(delta=BookingState(transcript=[line]))

    return node


def _listen(ctx: Context, s: BookingState) -> NodeResult[BookingState]:
    line = s.caller[s.turn] if s.turn < len(s.caller) else ""
    return NodeResult(
        delta=BookingState(turn=s.turn + 1, heard=recognise(line), transcript=[f"caller: {line}"])
    )


def _readback(ctx: Context, s: BookingState) -> NodeResult[BookingState]:
    v = {k: e.value for k, e in s.ledger.slots.items()}
    line = f"agent: Let me read that back: {v.get('name')}, {v.get('phone')}, {v.get('address')}."
    return NodeResult(delta=BookingState(transcript=[line], outcome="readback"), route=stop())


def _handoff(ctx: Context, s: BookingState) -> NodeResult[BookingState]:
    return NodeResult(
        delta=BookingState(transcript=[f"agent: {PROMPTS['handoff']}"], outcome="handoff"), route=stop()
    )


def _read(s: BookingState) -> SelectorContext:
    return SelectorContext(ledger=s.ledger, observations=tuple(s.heard), suggested_next=s.suggested_next)


def _write(s: BookingState, d: Decision) -> BookingState:
    return BookingState(ledger=d.ledger, heard=[], suggested_next=None, decisions=[d.reason])


def booking_engine(
    *,
    enabled: bool | None = None,
    segment: GoalSegment | None = None,
    store: Store | None = None,
    route_listen: bool = True,
) -> Engine[BookingState]:
    """The booking graph: ``greet -> listen``, each ask state ``-> listen``, ``listen`` routed by the selector.

    ``enabled`` is the runtime flag of the dual gate (None: ``$GRAPHENGINE_GOAP_SELECTOR``).
    ``route_listen=False`` adds the bare ``listen`` node instead of the router (the reference
    graph the gate-closed run must match step for step).
    """
    seg = segment if segment is not None else booking_segment()
    eng: Engine[BookingState] = Engine(BookingState, store=store, options=Options(max_steps=200))
    eng.add("greet", _say("greet"))
    if route_listen:
        eng.add(
            "listen", SelectorRouter(eng, "listen", _listen, seg, read=_read, write=_write, enabled=enabled)
        )
    else:
        eng.add("listen", _listen)
    for st in seg.states:
        eng.add(st.name, _say(st.name))
        eng.connect(st.name, "listen")
    eng.add("readback", _readback)
    eng.add("handoff", _handoff)
    eng.start_at("greet").connect("greet", "listen")
    return eng
