"""Hypothesis properties of choose_next: determinism, order independence, progress, termination."""

from __future__ import annotations

from hypothesis import given, settings
from hypothesis import strategies as st

from goap.selector import (
    GoalSegment,
    SelectorContext,
    SlotContract,
    SlotEntry,
    SlotLedger,
    SlotObservation,
    StateDef,
    choose_next,
)

SLOTS = ("name", "phone", "address")

entries = st.builds(
    SlotEntry,
    value=st.none() | st.sampled_from(["Ada", "5551234567", "12 Baker Street"]),
    valid=st.booleans(),
    confidence=st.floats(0, 1),
    confirmed=st.booleans(),
    attempts=st.integers(0, 4),
    blocked=st.booleans(),
)
ledgers = st.builds(
    SlotLedger,
    slots=st.dictionaries(st.sampled_from(SLOTS), entries),
    pursuing=st.none() | st.sampled_from(SLOTS),
)
observations = st.builds(
    SlotObservation,
    slot=st.sampled_from(SLOTS),
    value=st.none() | st.sampled_from(["Ada", "555", "5551234567"]),
    valid=st.booleans(),
    confidence=st.floats(0, 1),
    confirmed=st.booleans(),
    blocked=st.booleans(),
)
states = st.lists(
    st.builds(
        StateDef,
        name=st.sampled_from(["s1", "s2", "s3", "s4", "s5", "s6"]),
        collects=st.lists(st.sampled_from(SLOTS), unique=True, max_size=2).map(tuple),
        repairs=st.lists(st.sampled_from(SLOTS), unique=True, max_size=1).map(tuple),
        order=st.integers(0, 3),
        cost=st.sampled_from([0.5, 1.0, 2.0]),
    ),
    min_size=1,
    max_size=6,
    unique_by=lambda s: s.name,
)
contexts = st.builds(
    SelectorContext,
    ledger=ledgers,
    observations=st.lists(observations, max_size=4).map(tuple),
    suggested_next=st.none() | st.just("readback"),
)


def seg(members: list[StateDef]) -> GoalSegment:
    contract = SlotContract(SLOTS, min_confidence=0.5, confirm=("phone",))
    return GoalSegment("booking", contract, tuple(members), "readback", "handoff", max_attempts=8)


@settings(max_examples=60, deadline=None)
@given(states, contexts)
def test_choose_next_is_deterministic(members: list[StateDef], ctx: SelectorContext) -> None:
    """The same segment and context always give the same decision."""
    assert choose_next(seg(members), ctx) == choose_next(seg(members), ctx)


@settings(max_examples=60, deadline=None)
@given(states, contexts, st.randoms(use_true_random=False))
def test_state_listing_order_does_not_matter(
    members: list[StateDef], ctx: SelectorContext, rnd: object
) -> None:
    """Shuffling the member states never changes the decision (ties go to declared order, then name)."""
    shuffled = list(members)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    assert choose_next(seg(members), ctx) == choose_next(seg(shuffled), ctx)


@settings(max_examples=60, deadline=None)
@given(
    states,
    ledgers,
    st.lists(observations, max_size=3, unique_by=lambda o: o.slot),
    st.randoms(use_true_random=False),
)
def test_observations_of_distinct_slots_commute(
    members: list[StateDef], ledger: SlotLedger, obs: list[SlotObservation], rnd: object
) -> None:
    """Observations about different slots may arrive in any order."""
    shuffled = list(obs)
    rnd.shuffle(shuffled)  # type: ignore[attr-defined]
    a = choose_next(seg(members), SelectorContext(ledger=ledger, observations=tuple(obs)))
    b = choose_next(seg(members), SelectorContext(ledger=ledger, observations=tuple(shuffled)))
    assert a == b


@settings(max_examples=60, deadline=None)
@given(states, contexts)
def test_decision_targets_a_known_node_with_a_reason(members: list[StateDef], ctx: SelectorContext) -> None:
    """Every decision goes to a member state, the exit target or the fallback, and says why."""
    s = seg(members)
    d = choose_next(s, ctx)
    assert d.target in {m.name for m in members} | {"readback", "handoff"}
    assert d.reason.startswith("goap_lite: ")
    if d.kind in ("collect", "repair"):
        assert d.reason == f"goap_lite: {d.kind} {d.slot} via {d.target}"
        assert d.ledger.entry(str(d.slot)).attempts == ctx.ledger.entry(str(d.slot)).attempts + 1
    if d.kind == "exit":
        assert d.target == "readback"


@settings(max_examples=40, deadline=None)
@given(states, st.lists(st.lists(observations, max_size=2), max_size=40))
def test_every_conversation_ends(members: list[StateDef], turns: list[list[SlotObservation]]) -> None:
    """Whatever the caller says, the conversation reaches the exit or the fallback within the segment cap."""
    s = seg(members)
    ledger = SlotLedger()
    for n in range(s.max_attempts + 1):
        heard = tuple(turns[n]) if n < len(turns) else ()
        d = choose_next(s, SelectorContext(ledger=ledger, observations=heard))
        if d.kind in ("exit", "fallback"):
            return
        ledger = d.ledger
    raise AssertionError("the conversation did not end within the segment's attempt cap")
