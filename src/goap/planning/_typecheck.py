"""Fact types: a goal, precondition or effect value must have the type of the fact it is about.

A fact's type is that of its value in the initial state: ``bool``, ``number`` (int and float
together) or ``str``. A key the initial state does not give a value takes the type of the first
effect that sets it (actions in order; ``add()`` makes it a number). Python's ``True == 1`` would
otherwise let a goal ``{"done": 1}`` on a bool fact plan silently (and ``{"done": "yes"}`` never
hold): here both are errors naming the key, the value and the fact's type.

:func:`first_type_error` finds the first mismatch; :func:`check_types` raises it as a
:class:`goap.ModelError` (:func:`goap.plan`), :mod:`goap.planning._problem` as a
:class:`goap.ProblemFormatError` with the JSON path of the field.
"""

from __future__ import annotations

import threading
from collections import OrderedDict
from collections.abc import Iterable, Iterator, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from goap.planning._actions import ActionSpec
from goap.planning._conditions import Add, Compare, OneOf
from goap.planning._errors import ModelError
from goap.planning._goals import GoalSpec

__all__ = ["FactType", "TypeMismatch", "check_types", "fact_type", "first_type_error"]

FactType: TypeAlias = Literal["bool", "number", "str"]
"""The type of a fact value; ints and floats are one type (``add()`` mixes them)."""


def fact_type(value: object) -> FactType | None:
    """The :data:`FactType` of a plain value, None for None or anything else."""
    if isinstance(value, bool):  # before int: bool is a subclass of int
        return "bool"
    if isinstance(value, int | float):
        return "number"
    if isinstance(value, str):
        return "str"
    return None


@dataclass(frozen=True, slots=True)
class TypeMismatch:
    """A value whose type is not its fact's type."""

    where: Literal["goal", "precondition", "effect"]
    """Which kind of map holds it."""
    owner: str
    """The goal's label or the action's name."""
    index: int
    """Position of the goal (among the goals checked) or of the action (among the actions)."""
    key: str
    """The fact key."""
    value: object
    """The offending value (the condition's value for a comparison, the amount for ``add()``)."""
    expected: FactType
    """The fact's type."""
    origin: str
    """Where the fact's type comes from, e.g. ``the initial state (True)``."""

    @property
    def message(self) -> str:
        """One sentence naming the key, the value and the fact's type."""
        got = (
            "number" if isinstance(self.value, Add) else (fact_type(self.value) or type(self.value).__name__)
        )
        return (
            f"{self.key!r} = {self.value!r} is a {got}, but fact {self.key!r} is a {self.expected} "
            f"(from {self.origin})"
        )


def _values(cond: object) -> Iterator[object]:
    """The plain values a condition compares the fact with."""
    if isinstance(cond, Compare):
        yield cond.value
    elif isinstance(cond, OneOf):
        yield from sorted(cond.values, key=repr)
    elif cond is not None:
        yield cond


def _types(initial: Mapping[str, Any], actions: Sequence[ActionSpec]) -> dict[str, tuple[FactType, str]]:
    types: dict[str, tuple[FactType, str]] = {}
    for key, value in initial.items():
        t = fact_type(value)
        if t is not None:
            types[key] = (t, f"the initial state ({value!r})")
    for a in actions:
        for key, eff in a.effects.items():
            if key in types:
                continue
            t = "number" if isinstance(eff, Add) else fact_type(eff)
            if t is not None:
                types[key] = (t, f"the effect of action {a.name!r} ({eff!r})")
    return types


def _condition_error(
    types: Mapping[str, tuple[FactType, str]],
    where: Literal["goal", "precondition"],
    owner: str,
    index: int,
    conditions: Mapping[str, Any],
) -> TypeMismatch | None:
    """The first of ``conditions`` (of a goal or an action's preconditions) whose values are not of
    their fact's type, or None."""
    for key, cond in conditions.items():
        if key in types:
            t, origin = types[key]
            for v in _values(cond):
                if fact_type(v) != t:
                    return TypeMismatch(where, owner, index, key, v, t, origin)
    return None


def first_type_error(
    initial: Mapping[str, Any], goals: Iterable[GoalSpec], actions: Sequence[ActionSpec]
) -> TypeMismatch | None:
    """The first goal condition, precondition or effect whose type differs from its fact's, or None."""
    types = _types(initial, actions)
    for gi, goal in enumerate(goals):
        if (wrong := _condition_error(types, "goal", goal.label, gi, goal.conditions)) is not None:
            return wrong
    for ai, a in enumerate(actions):
        if (wrong := _condition_error(types, "precondition", a.name, ai, a.preconditions)) is not None:
            return wrong
        for key, eff in a.effects.items():
            if key in types:
                t, origin = types[key]
                got = "number" if isinstance(eff, Add) else fact_type(eff)
                if got != t:
                    return TypeMismatch("effect", a.name, ai, key, eff, t, origin)
    return None


_TYPES: dict[type, FactType] = {bool: "bool", int: "number", float: "number", str: "str"}


@dataclass(frozen=True, slots=True)
class _ActionTypes:
    """What the actions say about each fact's type, computed once per action list."""

    actions: tuple[ActionSpec, ...]
    """Held so the ids in the cache key stay those of these actions."""
    used: dict[str, FactType | None]
    """Key -> the one type every precondition and effect value on it has (None: they disagree)."""
    first_effect: dict[str, FactType]
    """Key -> type of the first effect setting it (the fact's type when ``initial`` gives none)."""


_CACHE_SIZE = 32
_cache: OrderedDict[tuple[int, ...], _ActionTypes] = OrderedDict()
_cache_lock = threading.Lock()


def _action_types(actions: Sequence[ActionSpec]) -> _ActionTypes:
    key = tuple(map(id, actions))
    with _cache_lock:
        hit = _cache.get(key)
        if hit is not None:
            _cache.move_to_end(key)
            return hit
    used: dict[str, FactType | None] = {}
    first_effect: dict[str, FactType] = {}

    def note(k: str, t: FactType | None) -> None:
        if k not in used:
            used[k] = t
        elif used[k] != t:
            used[k] = None

    for a in actions:
        for k, cond in a.preconditions.items():
            for v in _values(cond):
                note(k, fact_type(v))
        for k, eff in a.effects.items():
            t = "number" if isinstance(eff, Add) else fact_type(eff)
            note(k, t)
            if t is not None and k not in first_effect:
                first_effect[k] = t
    out = _ActionTypes(tuple(actions), used, first_effect)
    with _cache_lock:
        _cache[key] = out
        while len(_cache) > _CACHE_SIZE:
            _cache.popitem(last=False)
    return out


def _quick_ok(initial: Mapping[str, Any], goals: Sequence[GoalSpec], actions: Sequence[ActionSpec]) -> bool:
    """True when nothing is mistyped, in time linear in the facts the actions use (cached per action list).

    False may be a false alarm only in the sense that :func:`first_type_error` then looks in
    detail; it never lets a mismatch through.
    """
    at = _action_types(actions)

    def fact_type_of(k: str) -> FactType | None:
        # the initial value's type, else the type of the first effect that sets the fact
        v = initial.get(k)
        t = None if v is None else (_TYPES.get(type(v)) or fact_type(v))
        return at.first_effect.get(k) if t is None else t

    for k, t_act in at.used.items():
        t = fact_type_of(k)
        if t is not None and t_act != t:
            return False
    for goal in goals:
        for k, cond in goal.conditions.items():
            t = fact_type_of(k)
            if t is None:
                continue
            for value in _values(cond):
                if fact_type(value) != t:
                    return False
    return True


def check_types(initial: Mapping[str, Any], goals: Iterable[GoalSpec], actions: Sequence[ActionSpec]) -> None:
    """Raise :class:`goap.ModelError` naming the first value whose type is not its fact's type."""
    goals = tuple(goals)
    if _quick_ok(initial, goals, actions):
        return
    bad = first_type_error(initial, goals, actions)
    if bad is None:
        return
    if bad.where == "goal":
        raise ModelError(f"goal {bad.owner}: conditions: {bad.message}")
    what = "preconditions" if bad.where == "precondition" else "effects"
    raise ModelError(f"action {bad.owner!r}: {what}: {bad.message}")
