"""LangGOAP-shaped actions (plain data; :func:`goap.compat._convert.to_goap_action` makes goap's)."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType
from typing import Any, ClassVar

from goap.compat.qos import ActionQos
from goap.compat.types import CostFunction

__all__ = ["ActionSpec", "EffectFunction", "GoapAction", "goap_action"]

EffectFunction = Callable[[Mapping[str, Any]], Mapping[str, Any]]
"""Effects computed from the world state: ``fn(world_state) -> {key: value}``."""
_Run = Callable[..., Any]
_Check = Callable[[dict[str, Any], dict[str, Any]], bool]


def _lost_effect(world_state: Mapping[str, Any]) -> Mapping[str, Any]:
    raise RuntimeError("a callable effect is lost in a checkpoint: pass the actions built from source again")


def _effect_keys(keys: object) -> frozenset[str]:
    """The declared keys of a callable effect, checked (non-empty) and frozen."""
    if keys is None:
        raise ValueError("callable effects need effect_keys (a frozenset of the keys they write)")
    keys = frozenset(keys) if isinstance(keys, set | list | tuple) else keys
    if not isinstance(keys, frozenset):
        raise TypeError(f"ActionSpec.effect_keys must be a frozenset[str]; got {type(keys).__name__}")
    if not keys:
        raise ValueError("ActionSpec.effect_keys must be non-empty for a callable effect")
    return keys


def _frozen(m: Mapping[str, Any] | None) -> Mapping[str, Any] | None:
    return m if m is None or isinstance(m, MappingProxyType) else MappingProxyType(dict(m))


@dataclass(slots=True, frozen=True)
class ActionSpec:
    """One action: preconditions (equality), effects (a mapping or an :data:`EffectFunction`), cost."""

    name: str
    preconditions: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    effects: Mapping[str, Any] | EffectFunction = field(default_factory=lambda: MappingProxyType({}))
    effect_keys: frozenset[str] | None = None
    cost: CostFunction | float = 1.0
    execute: _Run | None = None
    aexecute: _Run | None = None
    effect_validator: _Check | None = None
    max_retries: int = 0
    qos: ActionQos | None = None
    can_rerun: bool = True
    read_only: bool = False
    utility: CostFunction | float | None = None
    require_human_approval: type | bool = False
    human_input_key: str | None = None
    resources: Mapping[str, float] | None = None
    duration: timedelta | None = None
    metadata: Mapping[str, Any] | None = None

    def __post_init__(self) -> None:
        setf = object.__setattr__
        for attr in ("preconditions", "resources", "metadata"):
            setf(self, attr, _frozen(getattr(self, attr)))
        keys = self.effect_keys
        if self.effects is None and keys is not None:
            setf(self, "effects", _lost_effect)
        if self.has_dynamic_effects:
            setf(self, "effect_keys", _effect_keys(keys))
        elif keys is not None:
            raise ValueError("ActionSpec.effect_keys is only valid when effects is a callable")
        else:
            setf(self, "effects", _frozen(self.effects))  # type: ignore[arg-type]

    @property
    def has_dynamic_effects(self) -> bool:
        """Whether the effects are computed from the world state."""
        return callable(self.effects) and not isinstance(self.effects, Mapping)

    def effect_key_set(self) -> frozenset[str]:
        """The keys the action may write."""
        return (self.effect_keys or frozenset()) if self.has_dynamic_effects else frozenset(self.effects)  # type: ignore[arg-type]

    def get_effects(self, world_state: Mapping[str, Any]) -> Mapping[str, Any]:
        """The effects in ``world_state`` (a read-only mapping)."""
        return _frozen(self.effects(world_state) if self.has_dynamic_effects else self.effects)  # type: ignore[operator,arg-type,return-value]

    def get_cost(self, world_state: dict[str, Any] | None = None) -> float:
        """The cost, evaluated on ``world_state`` when it is a function."""
        return self.cost(world_state or {}) if callable(self.cost) else self.cost

    def has_effects(self) -> bool:
        """Whether the action declares any effect (callable effects always do)."""
        return self.has_dynamic_effects or bool(self.effects)

    def is_async_execute(self) -> bool:
        """Whether running the action awaits (``aexecute`` set, or ``execute`` is a coroutine function)."""
        return self.aexecute is not None or inspect.iscoroutinefunction(self.execute)

    def validate_effects(self, pre_state: dict[str, Any], post_state: dict[str, Any]) -> bool:
        """The ``effect_validator``'s verdict, else whether every expected effect shows in ``post_state``."""
        if self.effect_validator is not None:
            return self.effect_validator(pre_state, post_state)
        return all(post_state.get(k) == v for k, v in self.get_effects(pre_state).items())

    def __repr__(self) -> str:
        shown = [f"name={self.name!r}"]
        if self.preconditions:
            shown.append(f"preconditions={dict(self.preconditions)!r}")
        if self.has_dynamic_effects:
            shown.append(f"effects=<dynamic effect_keys={set(self.effect_keys or ())!r}>")
        elif self.effects:
            shown.append(f"effects={dict(self.effects)!r}")  # type: ignore[arg-type]
        if self.cost != 1.0:
            shown.append(f"cost={self.cost!r}")
        if self.max_retries:
            shown.append(f"max_retries={self.max_retries!r}")
        return f"ActionSpec({', '.join(shown)})"


def goap_action(
    *,
    preconditions: Mapping[str, Any] | None = None,
    effects: Mapping[str, Any] | None = None,
    name: str | None = None,
    **fields: Any,
) -> Callable[[Callable[..., Any]], ActionSpec]:
    """Decorator: the function as an ActionSpec's ``execute`` (or ``aexecute`` when async)."""

    def make(fn: Callable[..., Any]) -> ActionSpec:
        run: dict[str, Any] = {"aexecute" if inspect.iscoroutinefunction(fn) else "execute": fn}
        return ActionSpec(name or fn.__name__, preconditions or {}, effects or {}, **run, **fields)

    return make


class GoapAction:
    """Base class for actions written as classes; :meth:`to_spec` makes the :class:`ActionSpec`."""

    preconditions: ClassVar[dict[str, Any]] = {}
    effects: ClassVar[dict[str, Any]] = {}
    max_retries: int = 0
    qos: ActionQos | None = None
    can_rerun: bool = True
    read_only: bool = False
    utility: CostFunction | float | None = None
    require_human_approval: type | bool = False
    human_input_key: str | None = None

    def __init_subclass__(cls, **kwargs: Any) -> None:
        super().__init_subclass__(**kwargs)
        for attr in ("preconditions", "effects"):
            if attr not in cls.__dict__:
                setattr(cls, attr, {})  # a dict of its own, never the base class's

    def cost(self, world_state: dict[str, Any]) -> float:
        """The action's cost (1.0 unless overridden)."""
        return 1.0

    def execute(self, state: dict[str, Any]) -> dict[str, Any]:
        """Run the action; returns the state update."""
        return {}

    async def aexecute(self, state: dict[str, Any]) -> dict[str, Any]:
        """Run the action asynchronously (by default :meth:`execute` in a worker thread)."""
        return await asyncio.get_running_loop().run_in_executor(None, self.execute, state)

    def validate_effects(self, pre_state: dict[str, Any], post_state: dict[str, Any]) -> bool:
        """Whether every declared effect shows in ``post_state``."""
        return all(post_state.get(k) == v for k, v in self.effects.items())

    def to_spec(self) -> ActionSpec:
        """The :class:`ActionSpec` of this action (validator and ``aexecute`` only when overridden)."""
        cls = type(self)
        own = {n: getattr(self, n) for n in _CLASS_FIELDS}
        mine = {n for n in ("aexecute", "validate_effects") if getattr(cls, n) is not getattr(GoapAction, n)}
        own["aexecute"] = self.aexecute if "aexecute" in mine else None
        own["effect_validator"] = self.validate_effects if "validate_effects" in mine else None
        pre, eff = dict(self.preconditions), dict(self.effects)
        return ActionSpec(cls.__name__, pre, eff, cost=self.cost, execute=self.execute, **own)


_CLASS_FIELDS = "max_retries qos can_rerun read_only utility require_human_approval human_input_key".split()  # noqa: SIM905
