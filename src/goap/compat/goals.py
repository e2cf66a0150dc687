"""LangGOAP-shaped goals, soft goals, constraints and replanning policy (converted by _convert)."""

from __future__ import annotations

from collections.abc import Callable, Iterable, Mapping
from dataclasses import dataclass, field
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from goap.compat.types import ObjectiveDirection, ReplanStrategy

if TYPE_CHECKING:
    from goap.compat.constraints import BuilderOutput
    from goap.compat.planner.metrics import PlanQualityMetric

__all__ = ["ConstraintSpec", "Goal", "GoalPolicy", "GoalSpec", "MultiGoal", "SoftGoal"]

Level = Literal["hard", "soft"]
"""How a constraint counts: a hard one makes a violating plan infeasible, a soft one costs score."""


def _proxy(m: Mapping[str, Any]) -> MappingProxyType[str, Any]:
    return MappingProxyType(dict(m))


@dataclass(slots=True, frozen=True)
class ConstraintSpec:
    """A bound on a summed resource (``min``/``max``), hard or soft (``weight`` per unit over)."""

    key: str
    max: float | None = None
    min: float | None = None
    weight: float = 1.0
    level: Level = "hard"

    def __post_init__(self) -> None:
        lo, hi = self.min, self.max
        if lo is not None and hi is not None and lo > hi:
            raise ValueError(f"ConstraintSpec {self.key!r}: min {lo} is above max {hi}")
        if self.level not in ("hard", "soft"):
            raise ValueError(f"ConstraintSpec {self.key!r}: level {self.level!r} is not hard or soft")


@dataclass(slots=True, frozen=True)
class SoftGoal:
    """Conditions worth ``weight`` when a plan reaches them, not required."""

    conditions: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    weight: float = 1.0
    name: str = ""

    def __post_init__(self) -> None:
        object.__setattr__(self, "conditions", _proxy(self.conditions))
        if self.weight < 0:
            raise ValueError(f"SoftGoal.weight must be >= 0, got {self.weight}")

    @property
    def label(self) -> str:
        """The name, or the conditions as text."""
        return self.name or str(dict(self.conditions))


@dataclass(slots=True, frozen=True)
class GoalPolicy:
    """When to replan, the goal's priority and its replanning budget (0: unlimited)."""

    replan_strategy: ReplanStrategy = ReplanStrategy.ON_DEVIATION
    priority: int = 0
    max_replans: int = 10

    def __post_init__(self) -> None:
        if self.max_replans < 0:
            raise ValueError(f"max_replans must be >= 0 (0 means no limit), got {self.max_replans}")


@dataclass(slots=True, frozen=True)
class GoalSpec:
    """What must hold at the end (equality ``conditions``) plus what the CSP phase optimises."""

    conditions: Mapping[str, Any] = field(default_factory=lambda: MappingProxyType({}))
    policy: GoalPolicy = field(default_factory=GoalPolicy)
    objectives: Mapping[str, ObjectiveDirection] | None = None
    constraints: tuple[ConstraintSpec, ...] = ()
    soft_goals: tuple[SoftGoal, ...] = ()
    metrics: tuple[PlanQualityMetric, ...] = ()
    value: float | Callable[[Mapping[str, Any]], float] = 1.0

    def __post_init__(self) -> None:
        setf = object.__setattr__
        setf(self, "conditions", _proxy(self.conditions))
        if self.objectives is not None:
            setf(self, "objectives", _proxy(self.objectives) if self.objectives else None)
        for name in ("constraints", "soft_goals", "metrics"):
            setf(self, name, tuple(getattr(self, name)))

    def __repr__(self) -> str:
        extra = {
            "policy": self.policy if self.policy != GoalPolicy() else None,
            "objectives": dict(self.objectives) if self.objectives else None,
            "constraints": self.constraints or None,
            "soft_goals": self.soft_goals or None,
        }
        shown = [f"conditions={dict(self.conditions)!r}"] + [f"{k}={v!r}" for k, v in extra.items() if v]
        return f"GoalSpec({', '.join(shown)})"

    @classmethod
    def from_builder(
        cls,
        conditions: Mapping[str, Any] | None = None,
        builder_output: BuilderOutput | None = None,
        **kwargs: Any,
    ) -> GoalSpec:
        """A goal carrying a ConstraintBuilder's constraints and objectives."""
        out = builder_output
        cons = tuple(out.constraints) if out is not None else ()
        objs = (out.objectives or None) if out is not None else None
        return cls(conditions=dict(conditions or {}), constraints=cons, objectives=objs, **kwargs)

    @classmethod
    def per_entity(
        cls,
        entity_ids: Iterable[str],
        conditions: Mapping[str, object],
        *,
        mode: Literal["sequential", "any"] = "any",
        **goal_kwargs: Any,
    ) -> MultiGoal:
        """One goal per entity id, ``{entity}`` filled into the template's keys and string values."""
        ids = list(entity_ids)
        if not ids:
            raise ValueError("GoalSpec.per_entity requires at least one entity id.")
        marker = "{entity}"
        if not any(marker in k or (isinstance(v, str) and marker in v) for k, v in conditions.items()):
            raise ValueError(f"per_entity: no '{marker}' in a key or value of {dict(conditions)!r}")

        def fill(x: Any, eid: str) -> Any:
            return x.format(entity=eid) if isinstance(x, str) else x

        goals = tuple(
            cls(conditions={fill(k, e): fill(v, e) for k, v in conditions.items()}, **goal_kwargs)
            for e in ids
        )
        return MultiGoal(goals=goals, mode=mode)


Goal = GoalSpec
"""The name LangGOAP recommends for :class:`GoalSpec`."""


@dataclass(slots=True, frozen=True)
class MultiGoal:
    """Several goals: in order, the cheapest (``any``) or the best value minus cost."""

    goals: tuple[GoalSpec, ...]
    mode: Literal["sequential", "any", "best_value"] = "sequential"

    def __post_init__(self) -> None:
        object.__setattr__(self, "goals", tuple(self.goals))
        if not self.goals:
            raise ValueError("MultiGoal must contain at least one GoalSpec")
        if self.mode not in ("sequential", "any", "best_value"):
            raise ValueError(f"MultiGoal.mode {self.mode!r} is none of sequential, any, best_value")
        for i, g in enumerate(self.goals):
            if not isinstance(g, GoalSpec):
                raise ValueError(f"MultiGoal.goals[{i}] is a {type(g).__name__}, not a GoalSpec (no nesting)")
