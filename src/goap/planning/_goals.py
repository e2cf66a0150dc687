"""Goals: the conditions a plan must make true, alone (GoalSpec) or in groups (MultiGoal)."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import Any, Literal

from goap.planning._actions import check_fact_map
from goap.planning._checks import freeze_field
from goap.planning._conditions import holds
from goap.planning._errors import ModelError

__all__ = ["GoalSpec", "MultiGoal", "SoftGoal", "soft_score"]


def _empty() -> Mapping[str, Any]:
    return MappingProxyType({})


@dataclass(frozen=True, slots=True)
class GoalSpec:
    """The conditions that must hold at the end of a plan.

    ``conditions`` maps a fact key to a plain value (equality) or a condition object
    (:func:`goap.ge`, :func:`goap.in_`, ...); it is stored read-only.
    """

    conditions: Mapping[str, Any] = field(default_factory=_empty)
    """Fact key -> plain value or condition object."""
    name: str = ""
    """Optional label used in explanations and logs."""
    priority: int = 0
    """Higher is more important; used by runtimes choosing the next goal."""
    max_replans: int = 10
    """Replanning budget for runtimes (0 disables the limit); planning ignores it."""

    def __post_init__(self) -> None:
        if not isinstance(self.conditions, Mapping):
            raise ModelError(f"goal conditions must be a mapping, got {type(self.conditions).__name__}")
        check_fact_map(f"goal {self.name or '<unnamed>'}", "conditions", self.conditions, effect=False)
        freeze_field(self, "conditions", MappingProxyType)
        if (
            isinstance(self.max_replans, bool)
            or not isinstance(self.max_replans, int)
            or self.max_replans < 0
        ):
            raise ModelError(
                f"goal {self.label!r}: max_replans must be an int >= 0, got {self.max_replans!r}"
            )
        p = self.priority
        if isinstance(p, bool) or not isinstance(p, int | float) or p != p:
            # NaN orders with nothing: choosing the next goal by priority would be arbitrary.
            raise ModelError(f"goal {self.label!r}: priority must be a number (not NaN), got {p!r}")

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.conditions))))

    def satisfied_by(self, state: Mapping[str, Any]) -> bool:
        """Whether every condition holds in ``state``."""
        return all(holds(cond, state.get(key)) for key, cond in self.conditions.items())

    @property
    def label(self) -> str:
        """The name, or a compact rendering of the conditions."""
        return self.name or repr(dict(self.conditions))


@dataclass(frozen=True, slots=True)
class MultiGoal:
    """Several goals planned together.

    - ``mode="all"``: one plan for the conjunction of every goal's conditions (a key named by two
      goals with different conditions is a :class:`goap.ModelError`).
    - ``mode="sequential"``: goals are planned one after the other, in order, each from the state
      the previous plan leaves; the plans are concatenated. Each piece is optimal for its goal;
      the whole is not necessarily optimal for the conjunction, and a later goal may undo an
      earlier one (that is what sequential means: the goals are milestones).
    - ``mode="any"``: reaching one goal is enough; each is planned for and the cheapest plan
      found wins (ties: the earlier goal). The runtime pursues that goal and ends achieved
      as soon as any goal holds.
    """

    goals: tuple[GoalSpec, ...]
    """The goals, in order."""
    mode: Literal["sequential", "all", "any"] = "sequential"
    """How the goals combine (see the class docstring)."""

    def __post_init__(self) -> None:
        freeze_field(self, "goals", tuple)
        if not self.goals:
            raise ModelError("MultiGoal needs at least one GoalSpec")
        for i, goal in enumerate(self.goals):
            if not isinstance(goal, GoalSpec):
                raise ModelError(f"MultiGoal.goals[{i}] must be a GoalSpec, got {type(goal).__name__}")
        if self.mode not in ("sequential", "all", "any"):
            raise ModelError(f"MultiGoal.mode must be 'sequential', 'all' or 'any', got {self.mode!r}")

    def conjunction(self) -> GoalSpec:
        """One GoalSpec whose conditions are all the goals' conditions.

        When some goal is a :class:`goap.ConstrainedGoal`, the conjunction is one too, carrying
        every goal's constraints, objectives and capacities (none is dropped).
        """
        merged: dict[str, Any] = {}
        for goal in self.goals:
            for key, cond in goal.conditions.items():
                if key in merged and merged[key] != cond:
                    raise ModelError(
                        f"MultiGoal(mode='all'): goals disagree on {key!r}: {merged[key]!r} vs {cond!r}"
                    )
                merged[key] = cond
        name = " & ".join(g.name for g in self.goals if g.name)
        priority = max(g.priority for g in self.goals)
        from goap.planning._constraints import (
            ConstrainedGoal,
            merge_constraints,
        )  # constraints imports this module

        constrained = [g for g in self.goals if isinstance(g, ConstrainedGoal)]
        if constrained:
            cs = merge_constraints(g.constraint_set for g in constrained)
            return ConstrainedGoal(
                merged,
                name=name,
                priority=priority,
                constraints=cs.constraints,
                objectives=cs.objectives,
                capacities=cs.capacities,
            )
        return GoalSpec(merged, name=name, priority=priority)


@dataclass(frozen=True, slots=True)
class SoftGoal:
    """Conditions worth reaching but not required: ``weight`` when they hold, ``-penalty`` when not.

    Soft goals feed soft scores (:func:`soft_score`): :class:`goap.UtilityStrategy` chooses the
    actions that raise it most per unit of cost, and a plan's soft score can rank plans that
    all reach the hard goal.
    """

    conditions: Mapping[str, Any] = field(default_factory=_empty)
    """Fact key -> plain value or condition object."""
    weight: float = 1.0
    """Reward when every condition holds (>= 0)."""
    penalty: float = 0.0
    """Cost when they do not all hold (>= 0)."""
    name: str = ""
    """Optional label."""

    def __post_init__(self) -> None:
        if not isinstance(self.conditions, Mapping):
            raise ModelError(f"soft goal conditions must be a mapping, got {type(self.conditions).__name__}")
        check_fact_map(f"soft goal {self.name or '<unnamed>'}", "conditions", self.conditions, effect=False)
        freeze_field(self, "conditions", MappingProxyType)
        if not (self.weight >= 0 and self.penalty >= 0):
            raise ModelError(f"soft goal weight and penalty must be >= 0, got {self.weight}, {self.penalty}")

    def __hash__(self) -> int:
        return hash((self.name, tuple(sorted(self.conditions)), self.weight, self.penalty))

    def satisfied_by(self, state: Mapping[str, Any]) -> bool:
        """Whether every condition holds in ``state``."""
        return all(holds(cond, state.get(key)) for key, cond in self.conditions.items())

    def value(self, state: Mapping[str, Any]) -> float:
        """``weight`` when satisfied, else ``-penalty``."""
        return self.weight if self.satisfied_by(state) else -self.penalty


def soft_score(state: Mapping[str, Any], goals: tuple[SoftGoal, ...] | list[SoftGoal]) -> float:
    """The sum of the soft goals' values in ``state``."""
    return sum(g.value(state) for g in goals)
