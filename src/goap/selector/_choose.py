"""``choose_next``: the pure, deterministic GOAP-lite decision, in a fixed order.

1. **Apply slot observations** to the ledger (observations of slots outside the contract are
   ignored and noted).
2. **Exit guard**: every required slot satisfied (valid, not merely mentioned, and confident or
   confirmed as the contract asks) -> ``exit_target``.
3. **Caps**: the segment's attempt cap reached, or a required slot given up (blocked, or its
   per-slot attempt cap reached) -> ``fallback_state``; the exit guard can no longer pass, so
   asking further would only loop.
4. **Slot to pursue**: the slot pursued last time while it is still unsatisfied and not given up
   (hysteresis); else the **first slot needing repair** (it holds a value that is invalid, unsure
   or unconfirmed), else the **first unsatisfied slot**, both in the contract's target order.
5. **Candidates**: member states that repair (for a repair) or collect the slot and whose
   preconditions hold; a repair with no repairing state is asked again by a collecting state.
6. No candidate -> ``fallback_state``.
7. Otherwise the candidate with the least cost tuple ``(cost, -slots it collects that are
   still unsatisfied, declared order, name)``: ties fall to the declared order, never to how a
   model worded anything. The slot's attempt count goes up by one.

A next state suggested by a language model is never followed: it is recorded in the decision's
notes (and logged by the engine router).
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from goap.planning import holds
from goap.selector._model import GoalSegment, SlotEntry, SlotLedger, SlotObservation, SlotValue, StateDef

__all__ = ["Decision", "DecisionKind", "SelectorContext", "apply_observations", "choose_next", "ledger_facts"]

DecisionKind: TypeAlias = Literal["exit", "collect", "repair", "fallback"]
"""What a decision does."""


def _no_facts() -> Mapping[str, SlotValue]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class SelectorContext:
    """Everything ``choose_next`` reads: the ledger, the new observations and outside facts."""

    ledger: SlotLedger = field(default_factory=SlotLedger)
    """The conversation's slot ledger before this turn."""
    observations: tuple[SlotObservation, ...] = ()
    """What the recogniser heard this turn, applied in order (a later one about a slot wins)."""
    facts: Mapping[str, SlotValue] = field(default_factory=_no_facts)
    """Conversation facts preconditions may test besides the ledger (e.g. ``caller_verified``)."""
    suggested_next: str | None = None
    """A next state a language model suggested; ignored, and noted in the decision."""

    def __post_init__(self) -> None:
        if not isinstance(self.observations, tuple):
            object.__setattr__(self, "observations", tuple(self.observations))
        if not isinstance(self.facts, MappingProxyType):
            object.__setattr__(self, "facts", MappingProxyType(dict(self.facts)))


@dataclass(frozen=True, slots=True)
class Decision:
    """The selector's choice: where to go, for which slot, by which rule, and why in words."""

    kind: DecisionKind
    """``exit``, ``collect``, ``repair`` or ``fallback``."""
    target: str
    """Node to go to next (a member state, the exit target or the fallback state)."""
    slot: str | None
    """The slot pursued (None for exit and most fallbacks)."""
    rule: str
    """Which rule decided: ``exit_guard``, ``hysteresis``, ``first_repair``, ``first_unsatisfied``,
    ``segment_cap``, ``slot_cap``, ``slot_blocked`` or ``no_candidate``."""
    reason: str
    """One line for logs, e.g. ``goap_lite: collect phone via ask_phone``."""
    ledger: SlotLedger
    """The ledger after the observations and this decision's attempt count."""
    notes: tuple[str, ...] = ()
    """Things ignored on the way (unknown slots, a model's suggested state)."""


def _apply(entry: SlotEntry, obs: SlotObservation) -> SlotEntry:
    upd: dict[str, Any] = {}
    if obs.value is not None:
        changed = obs.value != entry.value
        upd.update(value=obs.value, valid=obs.valid, confidence=obs.confidence)
        # A different value needs its own confirmation; the same value keeps the old one.
        upd["confirmed"] = obs.confirmed or (entry.confirmed and not changed)
        upd["blocked"] = False
    elif obs.confirmed and entry.value is not None:
        upd["confirmed"] = True
    if obs.blocked:
        upd["blocked"] = True
    return entry.model_copy(update=upd) if upd else entry


def apply_observations(
    segment: GoalSegment, ledger: SlotLedger, observations: tuple[SlotObservation, ...]
) -> tuple[SlotLedger, tuple[str, ...]]:
    """Step 1: the ledger with ``observations`` applied, and notes on the ones ignored."""
    target = segment.contract.target
    slots = dict(ledger.slots)
    notes: list[str] = []
    for obs in observations:
        if obs.slot not in target:
            notes.append(f"ignored observation of slot {obs.slot!r} (not in segment {segment.name!r})")
            continue
        slots[obs.slot] = _apply(slots.get(obs.slot, SlotEntry()), obs)
    return SlotLedger(slots=slots, pursuing=ledger.pursuing), tuple(notes)


def _satisfied(segment: GoalSegment, e: SlotEntry, slot: str) -> bool:
    c = segment.contract
    if e.value is None or not e.valid or e.blocked:
        return False
    if slot in c.confirm:
        return e.confirmed
    return e.confirmed or e.confidence >= c.min_confidence


def _needs_repair(segment: GoalSegment, e: SlotEntry, slot: str) -> bool:
    return e.value is not None and not e.blocked and not _satisfied(segment, e, slot)


def _given_up(segment: GoalSegment, e: SlotEntry, slot: str) -> str | None:
    if e.blocked:
        return "slot_blocked"
    if e.attempts >= segment.contract.cap(slot):
        return "slot_cap"
    return None


def ledger_facts(segment: GoalSegment, ledger: SlotLedger, facts: Mapping[str, SlotValue]) -> dict[str, Any]:
    """The facts preconditions are evaluated on: per slot ``s.valid``, ``s.filled``, ``s.confirmed``,
    ``s.blocked``, ``s.attempts``, then the conversation's ``facts`` (which win on a clash)."""
    out: dict[str, Any] = {}
    for s in segment.contract.target:
        e = ledger.entry(s)
        out[f"{s}.valid"] = _satisfied(segment, e, s)
        out[f"{s}.filled"] = e.value is not None
        out[f"{s}.confirmed"] = e.confirmed
        out[f"{s}.blocked"] = e.blocked
        out[f"{s}.attempts"] = e.attempts
    out.update(facts)
    return out


def _applicable(st: StateDef, facts: Mapping[str, Any]) -> bool:
    return all(holds(cond, facts.get(key)) for key, cond in st.preconditions.items())


def choose_next(segment: GoalSegment, ctx: SelectorContext) -> Decision:
    """Decide where ``segment``'s conversation goes next; pure and deterministic (module docstring).

    The same segment and context always give the same decision, whatever the order of
    ``segment.states``. The decision carries the new ledger; store it for the next turn.
    """
    ledger, notes = apply_observations(segment, ctx.ledger, ctx.observations)
    if ctx.suggested_next is not None:
        notes = (*notes, f"ignored model-suggested next state {ctx.suggested_next!r}")
    c = segment.contract
    entries = {s: ledger.entry(s) for s in c.target}
    ok = {s: _satisfied(segment, entries[s], s) for s in c.target}

    def fallback(rule: str, why: str, slot: str | None = None) -> Decision:
        reason = f"goap_lite: fallback to {segment.fallback_state}: {why}"
        return Decision(
            "fallback", segment.fallback_state, slot, rule, reason, ledger.with_pursuing(None), notes
        )

    # 2. Exit guard.
    if all(ok[s] for s in c.required_slots):
        reason = (
            f"goap_lite: exit to {segment.exit_target}: required slots {', '.join(c.required_slots)} valid"
        )
        return Decision(
            "exit", segment.exit_target, None, "exit_guard", reason, ledger.with_pursuing(None), notes
        )
    # 3. Caps: past them the exit guard cannot pass any more.
    spent = sum(e.attempts for e in entries.values())
    if spent >= segment.max_attempts:
        return fallback("segment_cap", f"segment reached {segment.max_attempts} attempts")
    for s in c.required_slots:
        why = None if ok[s] else _given_up(segment, entries[s], s)
        if why == "slot_blocked":
            return fallback(why, f"required slot {s} was refused", s)
        if why == "slot_cap":
            return fallback(why, f"required slot {s} reached {c.cap(s)} attempts", s)
    # 4. Slot to pursue.
    open_ = [s for s in c.target if not ok[s] and _given_up(segment, entries[s], s) is None]
    cur = ledger.pursuing
    if cur in open_:
        slot: str | None = cur
        rule = "hysteresis"
    else:
        slot = next((s for s in open_ if _needs_repair(segment, entries[s], s)), None)
        rule = "first_repair"
        if slot is None:
            slot = open_[0] if open_ else None
            rule = "first_unsatisfied"
    if slot is None:
        return fallback("no_candidate", "no slot left to pursue")
    repair = _needs_repair(segment, entries[slot], slot)
    # 5. Candidates whose preconditions hold.
    facts = ledger_facts(segment, ledger, ctx.facts)
    usable = [st for st in segment.states if _applicable(st, facts)]
    cands = [st for st in usable if slot in st.repairs] if repair else []
    mode: Literal["collect", "repair"] = "repair"
    if not cands:
        mode = "collect"
        cands = [st for st in usable if slot in st.collects]
    # 6. Fallback if none.
    if not cands:
        return fallback("no_candidate", f"no state can {'repair' if repair else 'collect'} {slot}", slot)
    # 7. Least cost tuple; ties by declared order (then name, so even equal orders are stable).
    pending = set(open_)
    best = min(cands, key=lambda st: (st.cost, -len(pending.intersection(st.collects)), st.order, st.name))
    e = entries[slot]
    new = ledger.with_entry(slot, e.model_copy(update={"attempts": e.attempts + 1})).with_pursuing(slot)
    reason = f"goap_lite: {mode} {slot} via {best.name}"
    return Decision(mode, best.name, slot, rule, reason, new, notes)
