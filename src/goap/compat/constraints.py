"""LangGOAP's fluent constraint builder: immutable chains ending in a constraint or an objective."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field, replace
from types import MappingProxyType
from typing import Literal

from goap.compat.goals import ConstraintSpec
from goap.compat.types import ObjectiveDirection

__all__ = ["BuilderOutput", "ChainOutput", "ConstraintBuilder", "ConstraintChain"]


@dataclass(slots=True, frozen=True)
class BuilderOutput:
    """The constraints and the objectives (key -> direction) of :meth:`ConstraintBuilder.build`."""

    constraints: tuple[ConstraintSpec, ...] = ()
    objectives: Mapping[str, ObjectiveDirection] = field(default_factory=lambda: MappingProxyType({}))


@dataclass(slots=True, frozen=True)
class ChainOutput:
    """What one chain ends in: a constraint or a ``(key, direction)`` objective."""

    constraint: ConstraintSpec | None = None
    objective: tuple[str, ObjectiveDirection] | None = None


@dataclass(slots=True, frozen=True)
class _ChainState:
    key: str | None = None
    low: float | None = None
    high: float | None = None
    weight: float = 1.0
    level: Literal["hard", "soft"] = "hard"
    direction: ObjectiveDirection | None = None


class ConstraintChain:
    """One chain under construction (start it from :class:`ConstraintBuilder`)."""

    def __init__(self, parts: _ChainState | None = None) -> None:
        self._parts = parts or _ChainState()

    def _then(self, **changes: object) -> ConstraintChain:
        return ConstraintChain(replace(self._parts, **changes))  # type: ignore[arg-type]

    def sum_resource(self, key: str) -> ConstraintChain:
        """Total the resource ``key`` over the plan."""
        return self._then(key=key)

    def bounded(self, *, min: float | None = None, max: float | None = None) -> ConstraintChain:
        """Set a lower and/or upper bound (None keeps the earlier one)."""
        p = self._parts
        return self._then(low=p.low if min is None else min, high=p.high if max is None else max)

    def penalize(self, *, level: Literal["hard", "soft"] = "hard", weight: float = 1.0) -> ConstraintChain:
        """Make it hard or soft, with a penalty weight."""
        return self._then(level=level, weight=weight)

    def minimize(self) -> ConstraintChain:
        """Aim for a small total."""
        return self._then(direction=ObjectiveDirection.MINIMIZE)

    def maximize(self) -> ConstraintChain:
        """Aim for a large total."""
        return self._then(direction=ObjectiveDirection.MAXIMIZE)

    def weight(self, w: float) -> ConstraintChain:
        """Set the weight."""
        return self._then(weight=w)

    def as_constraint(self, name: str) -> ChainOutput:
        """End as a constraint on the summed resource (``name`` when none was summed)."""
        p = self._parts
        if p.low is None and p.high is None:
            raise ValueError(f"chain {name!r} has no bounds: call .bounded(min=..., max=...) first")
        spec = ConstraintSpec(key=p.key or name, max=p.high, min=p.low, weight=p.weight, level=p.level)
        return ChainOutput(constraint=spec)

    def as_objective(self, name: str) -> ChainOutput:
        """End as the objective ``name``."""
        if self._parts.direction is None:
            raise ValueError(f"chain {name!r} has no direction: call .minimize() or .maximize() first")
        return ChainOutput(objective=(name, self._parts.direction))


class ConstraintBuilder:
    """Starts chains and gathers their ends."""

    @staticmethod
    def for_plan() -> ConstraintChain:
        """A chain over the whole plan."""
        return ConstraintChain()

    for_each_action = for_plan  # every constraint is plan-wide

    @staticmethod
    def build(*outputs: ChainOutput) -> BuilderOutput:
        """The constraints and objectives of ``outputs``; ValueError on a repeated objective key."""
        objectives: dict[str, ObjectiveDirection] = {}
        for out in outputs:
            if out.objective is not None:
                key, direction = out.objective
                if key in objectives:
                    raise ValueError(f"Duplicate objective key {key!r} in the builder's outputs")
                objectives[key] = direction
        constraints = tuple(o.constraint for o in outputs if o.constraint is not None)
        return BuilderOutput(constraints, MappingProxyType(objectives))
