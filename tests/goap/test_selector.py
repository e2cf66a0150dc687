"""GOAP-lite selector: every rule of choose_next, its tie-breaks, the defences and the lint gates."""

from __future__ import annotations

import pytest

import goap.selector as sel
from goap import ModelError, PlanningError, ge
from goap.selector import (
    GoalSegment,
    SegmentLintError,
    SelectorContext,
    SlotContract,
    SlotEntry,
    SlotLedger,
    SlotObservation,
    StateDef,
    choose_next,
    lint_segments,
    load_segments,
)


def segment(**kw: object) -> GoalSegment:
    """The booking segment used by most tests (name, phone, address)."""
    contract = kw.pop("contract", SlotContract(("name", "phone", "address"), min_confidence=0.6))
    states = kw.pop(
        "states",
        (
            StateDef("ask_name", collects=("name",), order=1),
            StateDef("ask_phone", collects=("phone",), order=2),
            StateDef("ask_address", collects=("address",), order=3),
            StateDef("repair_phone", repairs=("phone",), preconditions={"phone.filled": True}, order=4),
        ),
    )
    args: dict[str, object] = {"exit_target": "readback", "fallback_state": "handoff"}
    args.update(kw)
    return GoalSegment("booking", contract, states, **args)  # type: ignore[arg-type]


def ledger(**slots: SlotEntry) -> SlotLedger:
    return SlotLedger(slots=dict(slots))


GOOD = SlotEntry(value="x", valid=True, confidence=0.9)


def obs(slot: str, value: object = None, **kw: object) -> SlotObservation:
    return SlotObservation(slot=slot, value=value, **kw)


# ---------------------------------------------------------------- exports


def test_errors_belong_to_the_planning_tree() -> None:
    """Selector errors derive from goap.PlanningError."""
    assert issubclass(SegmentLintError, PlanningError)
    assert issubclass(sel.SelectorError, PlanningError)


# ---------------------------------------------------------------- rules in order


def test_observations_are_applied_before_the_exit_guard() -> None:
    """Slots given in this turn count for the exit guard of this turn."""
    ctx = SelectorContext(
        observations=(obs("name", "Ada"), obs("phone", "5551234567"), obs("address", "1 A St"))
    )
    d = choose_next(segment(), ctx)
    assert (d.kind, d.target, d.rule) == ("exit", "readback", "exit_guard")
    assert d.reason == "goap_lite: exit to readback: required slots name, phone, address valid"
    assert d.ledger.entry("phone").value == "5551234567"


def test_exit_guard_needs_valid_not_merely_mentioned() -> None:
    """A mentioned but invalid required slot keeps the exit guard shut."""
    ctx = SelectorContext(ledger=ledger(name=GOOD, phone=SlotEntry(value="55", valid=False), address=GOOD))
    d = choose_next(segment(), ctx)
    assert d.kind == "repair"
    assert d.reason == "goap_lite: repair phone via repair_phone"


def test_exit_guard_needs_confidence() -> None:
    """A valid value below min_confidence does not satisfy the guard; it needs a repair."""
    low = SlotEntry(value="Ada", valid=True, confidence=0.3)
    d = choose_next(segment(), SelectorContext(ledger=ledger(name=low, phone=GOOD, address=GOOD)))
    assert d.kind != "exit"
    assert d.slot == "name"
    assert d.rule == "first_repair"


def test_confirmation_satisfies_a_low_confidence_value() -> None:
    """A confirmed value counts even when the recogniser was unsure."""
    low = SlotEntry(value="Ada", valid=True, confidence=0.3)
    ctx = SelectorContext(
        ledger=ledger(name=low, phone=GOOD, address=GOOD), observations=(obs("name", confirmed=True),)
    )
    assert choose_next(segment(), ctx).kind == "exit"


def test_confirm_slots_need_explicit_confirmation() -> None:
    """A slot in contract.confirm must be confirmed whatever its confidence."""
    contract = SlotContract(("name", "phone", "address"), confirm=("phone",))
    full = ledger(name=GOOD, phone=SlotEntry(value="5551234567", valid=True, confidence=1.0), address=GOOD)
    d = choose_next(segment(contract=contract), SelectorContext(ledger=full))
    assert (d.kind, d.slot, d.target) == ("repair", "phone", "repair_phone")
    confirmed = SelectorContext(ledger=full, observations=(obs("phone", confirmed=True),))
    assert choose_next(segment(contract=contract), confirmed).kind == "exit"


def test_first_repair_comes_before_the_first_unsatisfied_slot() -> None:
    """An invalid phone is repaired before the still-missing name is asked."""
    d = choose_next(segment(), SelectorContext(ledger=ledger(phone=SlotEntry(value="55", valid=False))))
    assert (d.kind, d.slot, d.rule) == ("repair", "phone", "first_repair")


def test_first_unsatisfied_slot_follows_target_order() -> None:
    """With nothing to repair, the first unsatisfied slot in target order is collected."""
    d = choose_next(segment(), SelectorContext(ledger=ledger(name=GOOD)))
    assert (d.kind, d.slot, d.target, d.rule) == ("collect", "phone", "ask_phone", "first_unsatisfied")
    assert d.reason == "goap_lite: collect phone via ask_phone"


def test_candidates_need_their_preconditions() -> None:
    """A state whose precondition fails is not a candidate."""
    states = (
        StateDef(
            "ask_name_verified", collects=("name",), preconditions={"verified": True}, order=1, cost=0.5
        ),
        StateDef("ask_name", collects=("name",), order=2),
        StateDef("ask_phone", collects=("phone",), order=3),
    )
    seg = segment(contract=SlotContract(("name", "phone")), states=states)
    assert choose_next(seg, SelectorContext()).target == "ask_name"
    assert choose_next(seg, SelectorContext(facts={"verified": True})).target == "ask_name_verified"


def test_preconditions_read_ledger_facts() -> None:
    """Preconditions can test the ledger (``s.attempts``, ``s.filled``, ...) with goap conditions."""
    states = (
        StateDef("ask_name", collects=("name",), order=1),
        StateDef("spell_name", collects=("name",), preconditions={"name.attempts": ge(1)}, order=2, cost=0.5),
    )
    seg = segment(contract=SlotContract(("name",)), states=states)
    first = choose_next(seg, SelectorContext())
    assert first.target == "ask_name"
    assert choose_next(seg, SelectorContext(ledger=first.ledger)).target == "spell_name"


def test_repair_without_repairing_state_is_collected_again() -> None:
    """A slot needing repair with no repairing state is asked again by a collecting state."""
    states = (StateDef("ask_phone", collects=("phone",), order=1),)
    seg = segment(contract=SlotContract(("phone",)), states=states)
    d = choose_next(seg, SelectorContext(ledger=ledger(phone=SlotEntry(value="5", valid=False))))
    assert (d.kind, d.target) == ("collect", "ask_phone")


def test_no_candidate_goes_to_the_fallback() -> None:
    """When no state can pursue the slot, the fallback state is chosen with a reason."""
    states = (StateDef("ask_name", collects=("name",), preconditions={"open": True}, order=1),)
    seg = segment(contract=SlotContract(("name",)), states=states)
    d = choose_next(seg, SelectorContext())
    assert (d.kind, d.target, d.rule) == ("fallback", "handoff", "no_candidate")
    assert d.reason == "goap_lite: fallback to handoff: no state can collect name"


def test_least_cost_wins() -> None:
    """Among candidates, the least cost wins over declared order."""
    states = (
        StateDef("ask_slow", collects=("name",), order=1, cost=2.0),
        StateDef("ask_fast", collects=("name",), order=2, cost=1.0),
    )
    seg = segment(contract=SlotContract(("name",)), states=states)
    assert choose_next(seg, SelectorContext()).target == "ask_fast"


def test_a_state_covering_more_pending_slots_wins_a_cost_tie() -> None:
    """At equal cost, a state that collects more of the unsatisfied slots wins."""
    states = (
        StateDef("ask_name", collects=("name",), order=1),
        StateDef("ask_name_and_phone", collects=("name", "phone"), order=2),
        StateDef("ask_phone", collects=("phone",), order=3),
    )
    seg = segment(contract=SlotContract(("name", "phone")), states=states)
    assert choose_next(seg, SelectorContext()).target == "ask_name_and_phone"


@pytest.mark.parametrize(
    ("orders", "chosen"),
    [({"ask_b_first": 2, "ask_a_second": 1}, "ask_a_second"), ({"zeta": 1, "alpha": 1}, "alpha")],
    ids=["declared order, not tuple position", "equal orders fall back to names"],
)
def test_ties_are_broken_by_declared_order_then_by_name(orders: dict[str, int], chosen: str) -> None:
    """Equal cost tuples fall to StateDef.order, wherever the states are listed; even states sharing
    an order are chosen deterministically (by name)."""
    a, b = (StateDef(name, collects=("name",), order=order) for name, order in orders.items())
    for states in ((a, b), (b, a)):
        seg = segment(contract=SlotContract(("name",)), states=states)
        assert choose_next(seg, SelectorContext()).target == chosen


def test_model_suggestion_is_ignored_and_noted() -> None:
    """A next state suggested by a language model changes nothing but is recorded in the notes."""
    plain = choose_next(segment(), SelectorContext())
    suggested = choose_next(segment(), SelectorContext(suggested_next="readback"))
    assert suggested.target == plain.target == "ask_name"
    assert suggested.notes == ("ignored model-suggested next state 'readback'",)


def test_observation_of_an_unknown_slot_is_ignored_and_noted() -> None:
    """Observations about slots outside the contract do not enter the ledger."""
    d = choose_next(segment(), SelectorContext(observations=(obs("email", "a@b"),)))
    assert "email" not in d.ledger.slots
    assert d.notes == ("ignored observation of slot 'email' (not in segment 'booking')",)


# ---------------------------------------------------------------- defences


def test_attempts_are_counted_in_the_returned_ledger() -> None:
    """Each collect decision adds one attempt to its slot and records the slot being pursued."""
    d = choose_next(segment(), SelectorContext())
    assert d.ledger.entry("name").attempts == 1
    assert d.ledger.pursuing == "name"
    assert SelectorContext().ledger.entry("name").attempts == 0


def test_hysteresis_keeps_pursuing_the_current_slot() -> None:
    """While pursuing phone, an address-turned-invalid does not pull the selector away."""
    led = SlotLedger(
        slots={"name": GOOD, "phone": SlotEntry(attempts=1), "address": SlotEntry(value="?", valid=False)},
        pursuing="phone",
    )
    d = choose_next(segment(), SelectorContext(ledger=led))
    assert (d.slot, d.rule, d.target) == ("phone", "hysteresis", "ask_phone")


def test_hysteresis_ends_when_the_slot_is_valid() -> None:
    """Once the pursued slot is valid, the next slot is chosen by the ordinary rules."""
    led = SlotLedger(slots={"name": GOOD, "phone": SlotEntry(attempts=1)}, pursuing="phone")
    d = choose_next(segment(), SelectorContext(ledger=led, observations=(obs("phone", "5551234567"),)))
    assert (d.slot, d.rule) == ("address", "first_unsatisfied")


def test_per_slot_cap_leads_to_the_fallback() -> None:
    """A required slot asked max_attempts times ends in the fallback, not another ask."""
    led = SlotLedger(slots={"name": SlotEntry(attempts=3)}, pursuing="name")
    d = choose_next(segment(), SelectorContext(ledger=led))
    assert (d.kind, d.target, d.rule, d.slot) == ("fallback", "handoff", "slot_cap", "name")
    assert d.reason == "goap_lite: fallback to handoff: required slot name reached 3 attempts"


def test_per_slot_cap_override() -> None:
    """slot_max_attempts overrides the cap of one slot."""
    contract = SlotContract(("name", "phone", "address"), slot_max_attempts={"name": 1})
    d = choose_next(segment(contract=contract), SelectorContext(ledger=ledger(name=SlotEntry(attempts=1))))
    assert d.rule == "slot_cap"


def test_optional_slot_at_its_cap_is_skipped() -> None:
    """A non-required slot that reached its cap is skipped, not a reason to fall back."""
    contract = SlotContract(("nickname", "name"), required=("name",))
    states = (
        StateDef("ask_nick", collects=("nickname",), order=1),
        StateDef("ask_name", collects=("name",), order=2),
    )
    seg = segment(contract=contract, states=states)
    d = choose_next(seg, SelectorContext(ledger=ledger(nickname=SlotEntry(attempts=3))))
    assert (d.kind, d.target) == ("collect", "ask_name")


def test_blocked_required_slot_leads_to_the_fallback() -> None:
    """A caller refusing a required slot goes to the fallback at once."""
    d = choose_next(segment(), SelectorContext(observations=(obs("phone", blocked=True),)))
    assert (d.kind, d.rule, d.slot) == ("fallback", "slot_blocked", "phone")
    assert d.reason == "goap_lite: fallback to handoff: required slot phone was refused"


def test_segment_cap_leads_to_the_fallback() -> None:
    """Attempts summed over the segment reaching max_attempts end in the fallback."""
    led = ledger(name=SlotEntry(attempts=2), phone=SlotEntry(attempts=2))
    d = choose_next(segment(max_attempts=4), SelectorContext(ledger=led))
    assert (d.kind, d.rule) == ("fallback", "segment_cap")


def test_reentry_recomputes_from_the_ledger() -> None:
    """A ledger serialised and read back (re-entering the segment) gives the same decision."""
    d1 = choose_next(segment(), SelectorContext(observations=(obs("name", "Ada"),)))
    stored = d1.ledger.model_dump_json()
    again = SlotLedger.model_validate_json(stored)
    assert again == d1.ledger
    assert choose_next(segment(), SelectorContext(ledger=again)) == choose_next(
        segment(), SelectorContext(ledger=d1.ledger)
    )


def test_new_value_resets_confirmation() -> None:
    """Changing a confirmed value needs a new confirmation; repeating it keeps the confirmation."""
    contract = SlotContract(("phone",), confirm=("phone",))
    seg = segment(contract=contract, states=(StateDef("ask_phone", collects=("phone",)),))
    led = ledger(phone=SlotEntry(value="5551234567", valid=True, confidence=1.0, confirmed=True))
    same = choose_next(seg, SelectorContext(ledger=led, observations=(obs("phone", "5551234567"),)))
    assert same.kind == "exit"
    changed = choose_next(seg, SelectorContext(ledger=led, observations=(obs("phone", "5559999999"),)))
    assert changed.kind != "exit"
    assert not changed.ledger.entry("phone").confirmed


def test_choose_next_does_not_mutate_its_inputs() -> None:
    """choose_next returns a new ledger and leaves the context's ledger as it was."""
    led = ledger(name=GOOD)
    before = led.model_dump()
    choose_next(segment(), SelectorContext(ledger=led, observations=(obs("phone", "5551234567"),)))
    assert led.model_dump() == before


# ---------------------------------------------------------------- model validation


def test_malformed_records_raise_model_error() -> None:
    """Bad fields raise goap.ModelError naming the object and the value."""
    with pytest.raises(ModelError, match="target needs at least one slot"):
        SlotContract(())
    with pytest.raises(ModelError, match="min_confidence"):
        SlotContract(("a",), min_confidence=2.0)
    with pytest.raises(ModelError, match=r"state 'x': cost"):
        StateDef("x", cost=-1)
    with pytest.raises(ModelError, match=r"state 'x': collects names a slot twice"):
        StateDef("x", collects=("a", "a"))
    with pytest.raises(ModelError, match="max_attempts"):
        segment(max_attempts=0)


# ---------------------------------------------------------------- lint gates


def codes(*segments: GoalSegment) -> list[str]:
    return [p.code for p in lint_segments(segments)]


def test_a_good_segment_passes_lint() -> None:
    """The booking segment has no lint problem and loads by name."""
    assert lint_segments([segment()]) == ()
    assert list(load_segments([segment()])) == ["booking"]


def test_lint_required_slot_without_state() -> None:
    """A required slot no state collects or repairs is reported."""
    states = (StateDef("ask_name", collects=("name",), order=1),)
    assert codes(segment(contract=SlotContract(("name", "phone")), states=states)) == [
        "required_slot_uncovered"
    ]


def test_lint_cyclic_ordering() -> None:
    """States waiting for each other's effects are reported as a cycle."""
    states = (
        StateDef("a", collects=("name",), preconditions={"phone.valid": True}, order=1),
        StateDef("b", collects=("phone",), preconditions={"name.valid": True}, order=2),
    )
    probs = lint_segments([segment(contract=SlotContract(("name", "phone")), states=states)])
    assert [p.code for p in probs] == ["cyclic_ordering"]
    assert "['a', 'b']" in probs[0].message


def test_lint_negative_preconditions_are_not_cycles() -> None:
    """A precondition an effect cannot meet (``phone.valid == False``) makes no ordering edge."""
    states = (
        StateDef("a", collects=("name",), preconditions={"phone.valid": False}, order=1),
        StateDef("b", collects=("phone",), preconditions={"name.valid": False}, order=2),
    )
    assert codes(segment(contract=SlotContract(("name", "phone")), states=states)) == []


def test_lint_state_in_two_segments() -> None:
    """A state may belong to one segment only."""
    other = GoalSegment(
        "other", SlotContract(("name",)), (StateDef("ask_name", collects=("name",)),), "done", "human"
    )
    assert codes(segment(), other) == ["state_in_two_segments"]


def test_lint_missing_exit_guard() -> None:
    """No exit target, or no required slot, is a missing exit guard."""
    assert codes(segment(exit_target="")) == ["missing_exit_guard"]
    contract = SlotContract(("name", "phone", "address"), required=())
    assert codes(segment(contract=contract)) == ["missing_exit_guard"]


def test_lint_lists_every_problem_at_once() -> None:
    """load_segments raises one SegmentLintError listing every problem, one per line."""
    bad = segment(
        exit_target="",
        fallback_state="",
        selector="fancy",
        contract=SlotContract(("name", "email"), confirm=("zip",)),
        states=(StateDef("ask_name", collects=("name", "nick"), order=1), StateDef("x", order=1)),
    )
    with pytest.raises(SegmentLintError) as info:
        load_segments([bad, bad])
    got = [p.code for p in info.value.problems]
    for code in (
        "bad_selector",
        "missing_exit_guard",
        "missing_fallback",
        "unknown_slot",
        "duplicate_order",
        "required_slot_uncovered",
        "duplicate_segment",
    ):
        assert code in got
    assert str(info.value).count("\n  - ") == len(got)
