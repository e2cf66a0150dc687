"""The selector on the engine: golden booking conversations, the dual gate, declared edges first."""

from __future__ import annotations

import logging
from typing import Any

import pytest

from goap.selector import ENV_FLAG, SelectorContext, SelectorRouter, selector_enabled
from goap.selector.booking import BookingState, booking_engine, booking_segment
from graphengine import Context, Engine, NodeResult, goto
from graphengine.store import MemoryStore
from graphengine.testing import assert_replays

GREET = "agent: Hello, I can book that for you. May I have your name, phone number and address?"
READBACK = "agent: Let me read that back: Ada Lovelace, 5551234567, 12 Baker Street."
HANDOFF = "agent: Let me transfer you to a colleague who can help."


ASK_NAME = "agent: May I have your name?"


def call_transcript(caller: list[str], agent: list[str]) -> list[str]:
    """A call's transcript: the greeting, then each caller line followed by the agent's answer to it."""
    return [
        GREET,
        *(line for said, answer in zip(caller, agent, strict=True) for line in (f"caller: {said}", answer)),
    ]


async def converse(lines: list[str], **kw: Any) -> BookingState:
    engine = booking_engine(enabled=True, **kw)
    return await engine.run("call", BookingState(caller=lines))


async def test_cooperative_caller_goes_straight_to_readback() -> None:
    """A caller who gives all three slots at once hears the read-back next."""
    line = "Hi, my name is Ada Lovelace, my number is 555 123 4567 and I live at 12 Baker Street."
    final = await converse([line])
    assert final.transcript == call_transcript([line], [READBACK])
    assert final.decisions == ["goap_lite: exit to readback: required slots name, phone, address valid"]
    assert final.outcome == "readback"


async def test_withholding_caller_is_asked_for_the_missing_slots() -> None:
    """A caller who gives one slot at a time is asked for each missing slot in turn."""
    lines = ["My name is Ada Lovelace.", "It is 555 123 4567", "I live at 12 Baker Street"]
    final = await converse(lines)
    asked = ["agent: What is the best phone number to reach you?", "agent: And the address for the booking?"]
    assert final.transcript == call_transcript(lines, [*asked, READBACK])
    assert final.decisions == [
        "goap_lite: collect phone via ask_phone",
        "goap_lite: collect address via ask_address",
        "goap_lite: exit to readback: required slots name, phone, address valid",
    ]


async def test_stonewalling_caller_reaches_the_fallback() -> None:
    """A caller who never answers is handed off after the slot's attempt cap, instead of looping."""
    lines = ["Why do you need that?", "No.", "Hmm."]
    final = await converse(lines)
    # the caller has no fourth line: the agent hands off after its third unanswered question
    assert final.transcript == call_transcript([*lines, ""], [ASK_NAME, ASK_NAME, ASK_NAME, HANDOFF])
    assert final.decisions[-1] == "goap_lite: fallback to handoff: required slot name reached 3 attempts"
    assert final.outcome == "handoff"


async def test_invalid_phone_is_repaired() -> None:
    """An incomplete phone number is repaired before the conversation moves on."""
    final = await converse(["This is Ada Lovelace, 555 12", "5551234567", "12 Baker Street"])
    assert final.decisions == [
        "goap_lite: repair phone via repair_phone",
        "goap_lite: collect address via ask_address",
        "goap_lite: exit to readback: required slots name, phone, address valid",
    ]
    assert final.transcript[-1] == READBACK


async def test_refusal_goes_to_the_fallback_at_once() -> None:
    """A caller refusing a required slot is handed off without being asked again."""
    final = await converse(["I am Ada Lovelace and I would rather not give my phone number"])
    assert final.decisions == ["goap_lite: fallback to handoff: required slot phone was refused"]


async def test_model_suggestion_is_ignored_and_logged(caplog: pytest.LogCaptureFixture) -> None:
    """A model's suggested next state does not change the route and is logged."""
    engine = booking_engine(enabled=True)
    with caplog.at_level(logging.INFO, logger="goap.selector"):
        final = await engine.run(
            "call", BookingState(caller=["My name is Ada Lovelace."], suggested_next="readback")
        )
    assert final.transcript[2] == "agent: What is the best phone number to reach you?"
    assert "ignored model-suggested next state 'readback'" in caplog.text
    assert final.suggested_next is None


async def test_booking_run_replays() -> None:
    """A selector-routed conversation replays step for step."""
    engine = booking_engine(enabled=True)
    await engine.run(
        "call", BookingState(caller=["My name is Ada Lovelace.", "5551234567", "12 Baker Street"])
    )
    await assert_replays(engine, "call")


# ---------------------------------------------------------------- dual gate


def test_gate_needs_both_the_segment_and_the_flag(monkeypatch: pytest.MonkeyPatch) -> None:
    """The selector acts only with selector='goap_lite' AND the flag on (argument or environment)."""
    on, off = booking_segment(), booking_segment(selector="none")
    assert selector_enabled(on, True) and not selector_enabled(off, True)
    assert not selector_enabled(on, False)
    monkeypatch.delenv(ENV_FLAG, raising=False)
    assert not selector_enabled(on)
    monkeypatch.setenv(ENV_FLAG, "1")
    assert selector_enabled(on) and not selector_enabled(off)
    assert not selector_enabled(on, False)


async def _records(engine: Engine[BookingState], store: MemoryStore) -> list[Any]:
    await engine.run("call", BookingState(caller=["My name is Ada Lovelace."]))
    return [r._replace(ts=0.0) for r in await store.load_steps("call")]


@pytest.mark.parametrize("how", ["flag_off", "env_unset", "segment_not_goap_lite"])
async def test_gate_closed_gives_identical_step_records(how: str, monkeypatch: pytest.MonkeyPatch) -> None:
    """With the gate closed, the step records are byte for byte those of the graph without the selector."""
    monkeypatch.delenv(ENV_FLAG, raising=False)
    ref_store, store = MemoryStore(), MemoryStore()
    reference = await _records(booking_engine(store=ref_store, route_listen=False), ref_store)
    if how == "flag_off":
        engine = booking_engine(enabled=False, store=store)
    elif how == "env_unset":
        engine = booking_engine(store=store)
    else:
        engine = booking_engine(enabled=True, segment=booking_segment(selector="none"), store=store)
    assert await _records(engine, store) == reference
    assert [r.node_id for r in reference] == ["greet", "listen"]


async def test_env_flag_opens_the_gate(monkeypatch: pytest.MonkeyPatch) -> None:
    """GRAPHENGINE_GOAP_SELECTOR=1 turns the selector on when no flag is passed."""
    monkeypatch.setenv(ENV_FLAG, "1")
    final = await booking_engine().run("call", BookingState(caller=["My name is Ada Lovelace."]))
    assert final.decisions[0] == "goap_lite: collect phone via ask_phone"


# ---------------------------------------------------------------- declared routing wins


async def test_declared_edge_wins_over_the_selector() -> None:
    """A static edge out of the routed node whose predicate holds is followed, not the selector."""
    engine = booking_engine(enabled=True)
    engine.connect("listen", "handoff", when=lambda s: "agent" in s.transcript[-1])
    final = await engine.run("call", BookingState(caller=["Put me through to an agent please"]))
    assert final.transcript[-1] == HANDOFF
    assert final.decisions == []


async def test_selector_acts_when_the_declared_edge_does_not_fire() -> None:
    """A static edge whose predicate is false leaves the choice to the selector."""
    engine = booking_engine(enabled=True)
    engine.connect("listen", "handoff", when=lambda s: "agent" in s.transcript[-1])
    final = await engine.run("call", BookingState(caller=["My name is Ada Lovelace."]))
    assert final.decisions[0] == "goap_lite: collect phone via ask_phone"


async def test_route_returned_by_the_node_wins() -> None:
    """A route the wrapped node returns itself is kept."""
    seg = booking_segment()
    engine: Engine[BookingState] = Engine(BookingState)

    def listen(ctx: Context, s: BookingState) -> NodeResult[BookingState]:
        return NodeResult(route=goto("done"))

    def done(ctx: Context, s: BookingState) -> NodeResult[BookingState]:
        return NodeResult(delta=BookingState(outcome="done"))

    def never(s: BookingState) -> SelectorContext:
        raise AssertionError("the selector must not be consulted")

    router = SelectorRouter(engine, "listen", listen, seg, read=never, write=lambda s, d: s, enabled=True)
    engine.add("listen", router).add("done", done).start_at("listen")
    for st in [*(s.name for s in seg.states), "readback", "handoff"]:
        engine.add(st, done)
        engine.connect("done", st, when=lambda s: False)
    assert (await engine.run("r", BookingState())).outcome == "done"
