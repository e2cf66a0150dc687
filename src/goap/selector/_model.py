"""The selector's data model: GoalSegment, SlotContract, StateDef, and the per-conversation slot ledger.

Segments and states are declared once (frozen dataclasses, validated on construction); the ledger
and observations live in the conversation's state, so they are frozen pydantic models that
serialise with the engine's codec.
"""

from __future__ import annotations

import math
from collections.abc import Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal, TypeAlias

from pydantic import BaseModel, ConfigDict, Field, model_validator

from goap.planning import ModelError
from goap.planning.kit import check_fact_map

__all__ = [
    "GoalSegment",
    "SelectorKind",
    "SlotContract",
    "SlotEntry",
    "SlotLedger",
    "SlotObservation",
    "SlotValue",
    "StateDef",
]

SlotValue: TypeAlias = bool | int | float | str
"""What a slot can hold (a JSON scalar)."""

SelectorKind: TypeAlias = Literal["goap_lite", "none"]
"""How a segment picks its next state: ``goap_lite`` (this selector) or ``none`` (declared edges only)."""


def _names(owner: str, what: str, value: object) -> tuple[str, ...]:
    if isinstance(value, str) or not isinstance(value, Iterable):
        raise ModelError(f"{owner}: {what} must be a sequence of slot names, got {value!r}")
    out = tuple(value)
    for v in out:
        if not isinstance(v, str) or not v:
            raise ModelError(f"{owner}: {what} must hold non-empty str, got {v!r}")
    if len(set(out)) != len(out):
        raise ModelError(f"{owner}: {what} names a slot twice: {list(out)}")
    return out


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class SlotContract:
    """What a segment must collect: its target slots, which are required, and how sure it must be.

    A slot is *satisfied* when its ledger entry is valid, not blocked, and either confirmed or at
    least ``min_confidence`` sure; a slot in ``confirm`` must be confirmed whatever its confidence.
    """

    target: tuple[str, ...]
    """Slots the segment pursues, in priority order ("first unsatisfied slot" follows it)."""
    required: tuple[str, ...] | None = None
    """Slots the exit guard requires (None: every target slot)."""
    confirm: tuple[str, ...] = ()
    """Slots that need an explicit confirmation before they count."""
    min_confidence: float = 0.0
    """Confidence a valid, unconfirmed value needs to count."""
    max_attempts: int = 3
    """Attempts per slot before the slot is given up (then a required slot leads to the fallback)."""
    slot_max_attempts: Mapping[str, int] = field(default_factory=_empty)
    """Per-slot overrides of ``max_attempts``."""

    def __post_init__(self) -> None:
        owner = "SlotContract"
        target = _names(owner, "target", self.target)
        object.__setattr__(self, "target", target)
        if not target:
            raise ModelError(f"{owner}: target needs at least one slot")
        req = target if self.required is None else _names(owner, "required", self.required)
        object.__setattr__(self, "required", req)
        object.__setattr__(self, "confirm", _names(owner, "confirm", self.confirm))
        conf = self.min_confidence
        if isinstance(conf, bool) or not isinstance(conf, int | float) or not 0.0 <= conf <= 1.0:
            raise ModelError(f"{owner}: min_confidence must be a number in [0, 1], got {conf!r}")
        caps = {
            "max_attempts": self.max_attempts,
            **{f"slot_max_attempts[{k!r}]": v for k, v in self.slot_max_attempts.items()},
        }
        for name, cap in caps.items():
            if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
                raise ModelError(f"{owner}: {name} must be an int >= 1, got {cap!r}")
        if not isinstance(self.slot_max_attempts, MappingProxyType):
            object.__setattr__(self, "slot_max_attempts", MappingProxyType(dict(self.slot_max_attempts)))

    @property
    def required_slots(self) -> tuple[str, ...]:
        """The required slots (``required`` with its default resolved)."""
        return self.required if self.required is not None else self.target

    def cap(self, slot: str) -> int:
        """Attempts allowed for ``slot``."""
        return self.slot_max_attempts.get(slot, self.max_attempts)


@dataclass(frozen=True, slots=True)
class StateDef:
    """One state of a segment: the slots it collects or repairs, when it may run, and its cost.

    ``preconditions`` maps a ledger fact to a plain value (equality) or a :mod:`goap` condition
    (:func:`goap.ge`, ...). Ledger facts, per slot ``s``: ``s.valid`` (satisfied), ``s.filled``
    (has a value), ``s.confirmed``, ``s.blocked``, ``s.attempts``; plus the conversation's own
    facts (:attr:`SelectorContext.facts`). ``effects`` declares what the state makes true, in the
    same vocabulary (collecting ``s`` implies ``s.filled``/``s.valid``); lint uses it to find
    cyclic orderings. ``order`` breaks cost ties; ``cost`` is the first key of the cost tuple.
    """

    name: str
    """Node id of the state in the engine graph (unique across all segments)."""
    collects: tuple[str, ...] = ()
    """Slots this state asks for."""
    repairs: tuple[str, ...] = ()
    """Slots this state repairs (re-asks or confirms a value that is invalid or unsure)."""
    preconditions: Mapping[str, Any] = field(default_factory=_empty)
    """Ledger fact -> value or condition that must hold for the state to be a candidate."""
    effects: Mapping[str, Any] = field(default_factory=_empty)
    """Ledger facts the state is expected to make true (documentation and lint)."""
    order: int = 0
    """Declared order: breaks ties of the cost tuple (lower first)."""
    cost: float = 1.0
    """Cost of running the state (>= 0)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ModelError(f"state name must be a non-empty str, got {self.name!r}")
        owner = f"state {self.name!r}"
        object.__setattr__(self, "collects", _names(owner, "collects", self.collects))
        object.__setattr__(self, "repairs", _names(owner, "repairs", self.repairs))
        for what in ("preconditions", "effects"):
            value = getattr(self, what)
            if not isinstance(value, Mapping):
                raise ModelError(f"{owner}: {what} must be a mapping, got {type(value).__name__}")
            check_fact_map(owner, what, value, effect=what == "effects")
            if not isinstance(value, MappingProxyType):
                object.__setattr__(self, what, MappingProxyType(dict(value)))
        if isinstance(self.order, bool) or not isinstance(self.order, int):
            raise ModelError(f"{owner}: order must be an int, got {self.order!r}")
        c = self.cost
        if isinstance(c, bool) or not isinstance(c, int | float) or not (math.isfinite(c) and c >= 0):
            raise ModelError(f"{owner}: cost must be a finite number >= 0, got {c!r}")

    def produces(self) -> Mapping[str, Any]:
        """Ledger facts this state sets: what collecting/repairing implies, then its declared effects."""
        out: dict[str, Any] = {}
        for s in self.collects:
            out.update({f"{s}.filled": True, f"{s}.valid": True})
        for s in self.repairs:
            out.update({f"{s}.valid": True, f"{s}.confirmed": True})
        out.update(self.effects)
        return out


@dataclass(frozen=True, slots=True)
class GoalSegment:
    """A goal of a conversation: a slot contract, its member states, where to exit and fall back.

    The selector acts only when ``selector == "goap_lite"`` (and the runtime flag is on, see
    :func:`selector_enabled`). ``exit_target`` is the node to go to once the exit guard passes
    (every required slot satisfied); ``fallback_state`` is where the conversation goes when no
    state can make progress (a required slot given up, the segment's attempt cap, no candidate).
    Malformed fields raise :class:`goap.ModelError`; whole-segment problems (an uncovered
    required slot, a cycle, ...) are lint problems reported by :func:`load_segments`.
    """

    name: str
    """Unique segment name."""
    contract: SlotContract
    """The slot contract."""
    states: tuple[StateDef, ...]
    """Member states (order in this tuple does not matter: ``StateDef.order`` does)."""
    exit_target: str
    """Node to go to when the exit guard passes."""
    fallback_state: str
    """Node to go to when the segment cannot make progress."""
    selector: SelectorKind = "goap_lite"
    """``goap_lite`` to let the selector choose; anything else leaves routing to the graph."""
    max_attempts: int = 12
    """Attempts over all slots of the segment before the fallback (the per-segment cap)."""

    def __post_init__(self) -> None:
        if not isinstance(self.name, str) or not self.name:
            raise ModelError(f"segment name must be a non-empty str, got {self.name!r}")
        owner = f"segment {self.name!r}"
        if not isinstance(self.contract, SlotContract):
            raise ModelError(f"{owner}: contract must be a SlotContract, got {type(self.contract).__name__}")
        if isinstance(self.states, str) or not isinstance(self.states, Iterable):
            raise ModelError(f"{owner}: states must be a sequence of StateDef")
        object.__setattr__(self, "states", tuple(self.states))
        for i, st in enumerate(self.states):
            if not isinstance(st, StateDef):
                raise ModelError(f"{owner}: states[{i}] must be a StateDef, got {type(st).__name__}")
        for attr in ("exit_target", "fallback_state"):
            if not isinstance(getattr(self, attr), str):
                raise ModelError(f"{owner}: {attr} must be a str, got {getattr(self, attr)!r}")
        if not isinstance(self.selector, str):
            raise ModelError(f"{owner}: selector must be a str, got {self.selector!r}")
        cap = self.max_attempts
        if isinstance(cap, bool) or not isinstance(cap, int) or cap < 1:
            raise ModelError(f"{owner}: max_attempts must be an int >= 1, got {cap!r}")

    def state(self, name: str) -> StateDef:
        """The member state called ``name``; KeyError naming it when absent."""
        for st in self.states:
            if st.name == name:
                return st
        raise KeyError(f"segment {self.name!r} has no state {name!r}")


class SlotEntry(BaseModel):
    """What the conversation knows about one slot."""

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="after")
    def _all_fields_set(self) -> Any:
        # Deltas are stored with exclude_unset=True: marking every field set makes a ledger encode
        # the same whether it was built live or decoded from the store, so replays compare equal.
        object.__setattr__(self, "__pydantic_fields_set__", set(type(self).model_fields))
        return self

    value: SlotValue | None = None
    """The value heard (None: not mentioned yet)."""
    valid: bool = False
    """Whether the value passed validation."""
    confidence: float = Field(default=0.0, ge=0.0, le=1.0)
    """How sure the recogniser is of the value."""
    confirmed: bool = False
    """Whether the caller confirmed this value."""
    attempts: int = Field(default=0, ge=0)
    """How many times the selector pursued this slot."""
    blocked: bool = False
    """Whether the caller refused to give it (the slot is then given up)."""


_EMPTY_ENTRY = SlotEntry()


class SlotLedger(BaseModel):
    """The per-conversation slot ledger: one entry per slot, and the slot being pursued.

    Everything ``choose_next`` decides is recomputed from this ledger, so a conversation that
    leaves a segment and re-enters it resumes where the ledger says. Treat it as immutable:
    ``with_entry`` returns a new ledger.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="after")
    def _all_fields_set(self) -> Any:
        # Deltas are stored with exclude_unset=True: marking every field set makes a ledger encode
        # the same whether it was built live or decoded from the store, so replays compare equal.
        object.__setattr__(self, "__pydantic_fields_set__", set(type(self).model_fields))
        return self

    slots: dict[str, SlotEntry] = Field(default_factory=dict)
    """Slot name -> entry (a slot never mentioned has no entry)."""
    pursuing: str | None = None
    """The slot the last decision pursued (hysteresis keeps pursuing it)."""

    def entry(self, slot: str) -> SlotEntry:
        """The entry of ``slot`` (an empty one when the slot was never mentioned)."""
        return self.slots.get(slot, _EMPTY_ENTRY)

    def with_entry(self, slot: str, entry: SlotEntry) -> SlotLedger:
        """A copy of the ledger with ``slot``'s entry replaced."""
        return SlotLedger(slots={**self.slots, slot: entry}, pursuing=self.pursuing)

    def with_pursuing(self, slot: str | None) -> SlotLedger:
        """A copy of the ledger pursuing ``slot``."""
        return SlotLedger(slots=dict(self.slots), pursuing=slot)


class SlotObservation(BaseModel):
    """What the recogniser heard about one slot in the last turn.

    ``value`` set: the slot now holds it (a new value resets the confirmation unless
    ``confirmed``). ``value`` None with ``confirmed``: the caller confirmed the current value.
    ``blocked``: the caller refused the slot.
    """

    model_config = ConfigDict(frozen=True, extra="forbid")

    @model_validator(mode="after")
    def _all_fields_set(self) -> Any:
        # Deltas are stored with exclude_unset=True: marking every field set makes a ledger encode
        # the same whether it was built live or decoded from the store, so replays compare equal.
        object.__setattr__(self, "__pydantic_fields_set__", set(type(self).model_fields))
        return self

    slot: str
    """The slot observed."""
    value: SlotValue | None = None
    """The value heard, if any."""
    valid: bool = True
    """Whether ``value`` passed validation."""
    confidence: float = Field(default=1.0, ge=0.0, le=1.0)
    """Recogniser confidence of ``value``."""
    confirmed: bool = False
    """The caller confirmed the value."""
    blocked: bool = False
    """The caller refused to give this slot."""
