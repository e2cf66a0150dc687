"""Constraints and objectives on whole plans, and the explanations of their infeasibility.

A *metric* is a number measured on a plan:

- a resource key: the sum of ``ActionSpec.resources[key]`` over the plan's actions;
- ``"cost"``: the plan's cost; ``"length"``: its number of actions;
- ``"makespan"``: the end of its schedule (actions run in parallel when the dependency graph and
  the capacities allow it; see :mod:`goap.planning._schedule`).

The names ``cost``, ``length`` and ``makespan`` are reserved: an action declaring a resource of
that name is a :class:`goap.ModelError` when constraints are solved.

- :class:`ResourceConstraint` bounds a metric. ``level="hard"``: a plan violating it is
  infeasible; ``level="soft"``: the violation (how far past the bound) times ``weight`` is a
  penalty in the top objective level.
- :class:`Capacity` bounds a *renewable* resource while actions run in parallel: at any instant
  the actions running use at most ``limit`` of it (e.g. one GPU). Always hard.
- :class:`Objective` is a metric to minimise or maximise. Objectives of equal ``priority`` are
  summed with their weights; levels are optimised lexicographically, highest priority first.

Constraints travel with the strategy (``CspPipeline(constraints=...)``) or with the goal
(:class:`ConstrainedGoal`). A goal's constraints are never dropped: :func:`goap.plan` plans a
constrained goal with :class:`goap.CspPipeline` unless told otherwise, a strategy that cannot
honour them raises :class:`goap.UnsupportedConstraintError`, and a GOAP run stores the whole goal
(constraints, objectives, capacities) in its state, so a resumed run plans with them too.
"""

from __future__ import annotations

import math
from collections.abc import Iterable
from dataclasses import dataclass
from typing import Any, Literal

from goap.planning._errors import ModelError, UnsupportedConstraintError
from goap.planning._explain import NoPlanExplanation, fields_to_json
from goap.planning._goals import GoalSpec

__all__ = [
    "RESERVED_METRICS",
    "Capacity",
    "ConstrainedGoal",
    "ConstraintExplanation",
    "ConstraintSet",
    "ConstraintViolation",
    "Objective",
    "ResourceConstraint",
    "constraint_label",
    "goal_constraints",
    "honours_constraints",
    "plain_goal",
    "refuse_constraints",
]

RESERVED_METRICS = frozenset({"cost", "length", "makespan"})
"""Metric names measured on the plan itself rather than summed from ``resources``."""


def _num(owner: str, name: str, value: float | None) -> None:
    if value is None:
        return
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ModelError(f"{owner}: {name} must be a finite number, got {value!r}")


@dataclass(frozen=True, slots=True)
class ResourceConstraint:
    """A bound on a plan metric (see the module docstring), hard or soft."""

    key: str
    """The metric: a resource key, ``"cost"``, ``"length"`` or ``"makespan"``."""
    max: float | None = None
    """Upper bound (inclusive); None: none."""
    min: float | None = None
    """Lower bound (inclusive); None: none."""
    level: Literal["hard", "soft"] = "hard"
    """``hard``: violation makes the plan infeasible; ``soft``: violation is penalised."""
    weight: float = 1.0
    """Penalty per unit of violation (soft), or of the hard score (hard)."""
    name: str = ""
    """Label for reports; defaults to a rendering like ``budget <= 5``."""

    def __post_init__(self) -> None:
        owner = f"constraint on {self.key!r}"
        if not isinstance(self.key, str) or not self.key:
            raise ModelError(f"constraint key must be a non-empty str, got {self.key!r}")
        _num(owner, "max", self.max)
        _num(owner, "min", self.min)
        _num(owner, "weight", self.weight)
        if self.max is None and self.min is None:
            raise ModelError(f"{owner}: give max=, min= or both")
        if self.max is not None and self.min is not None and self.min > self.max:
            raise ModelError(f"{owner}: min {self.min!r} > max {self.max!r}")
        if self.level not in ("hard", "soft"):
            raise ModelError(f"{owner}: level must be 'hard' or 'soft', got {self.level!r}")
        if self.weight < 0:
            raise ModelError(f"{owner}: weight must be >= 0, got {self.weight!r}")

    @property
    def label(self) -> str:
        """The name, or a rendering like ``budget <= 5``."""
        if self.name:
            return self.name
        parts = []
        if self.min is not None:
            parts.append(f"{self.key} >= {self.min:g}")
        if self.max is not None:
            parts.append(f"{self.key} <= {self.max:g}")
        return " and ".join(parts)

    def violation(self, value: float) -> float:
        """How far ``value`` lies outside the bounds (0 when inside)."""
        if self.max is not None and value > self.max + 1e-9:
            return value - self.max
        if self.min is not None and value < self.min - 1e-9:
            return self.min - value
        return 0.0


@dataclass(frozen=True, slots=True)
class Capacity:
    """A renewable resource: actions running at the same time use at most ``limit`` of it."""

    key: str
    """The resource key (actions declare their use in ``ActionSpec.resources``)."""
    limit: float
    """Most that may be in use at any instant."""

    def __post_init__(self) -> None:
        _num(f"capacity {self.key!r}", "limit", self.limit)
        if self.limit < 0:
            raise ModelError(f"capacity {self.key!r}: limit must be >= 0, got {self.limit!r}")


@dataclass(frozen=True, slots=True)
class Objective:
    """A metric to optimise; see the module docstring for levels and weights."""

    metric: str
    """A resource key, ``"cost"``, ``"length"`` or ``"makespan"``."""
    direction: Literal["minimize", "maximize"] = "minimize"
    """Which way is better."""
    weight: float = 1.0
    """Weight within its priority level."""
    priority: int = 0
    """Levels are optimised from the highest priority down (lexicographically)."""

    def __post_init__(self) -> None:
        _num(f"objective {self.metric!r}", "weight", self.weight)
        if self.direction not in ("minimize", "maximize"):
            raise ModelError(f"objective {self.metric!r}: direction must be 'minimize' or 'maximize'")
        if self.weight < 0:
            raise ModelError(f"objective {self.metric!r}: weight must be >= 0, got {self.weight!r}")


@dataclass(frozen=True, slots=True)
class ConstraintSet:
    """Constraints, capacities and objectives together (what the pipeline solves for)."""

    constraints: tuple[ResourceConstraint, ...] = ()
    """Hard and soft bounds on plan metrics."""
    objectives: tuple[Objective, ...] = ()
    """What to optimise; empty: plan cost, then makespan when actions have durations."""
    capacities: tuple[Capacity, ...] = ()
    """Renewable resources limiting parallel execution."""

    def __post_init__(self) -> None:
        for attr, kind in (
            ("constraints", ResourceConstraint),
            ("objectives", Objective),
            ("capacities", Capacity),
        ):
            items = tuple(getattr(self, attr))
            for i, item in enumerate(items):
                if not isinstance(item, kind):
                    raise ModelError(f"{attr}[{i}] must be a {kind.__name__}, got {type(item).__name__}")
            object.__setattr__(self, attr, items)
        keys = [c.key for c in self.capacities]
        if len(set(keys)) != len(keys):
            raise ModelError(f"two capacities for the same resource: {sorted(keys)}")

    @property
    def empty(self) -> bool:
        """Whether there is nothing to check or optimise."""
        return not (self.constraints or self.objectives or self.capacities)

    def __add__(self, other: ConstraintSet) -> ConstraintSet:
        return ConstraintSet(
            self.constraints + other.constraints,
            self.objectives + other.objectives,
            self.capacities + other.capacities,
        )


@dataclass(frozen=True, slots=True)
class ConstrainedGoal(GoalSpec):
    """A :class:`goap.GoalSpec` carrying constraints and objectives for the CP-SAT pipeline.

    Strategies that cannot honour them (A*, greedy, MCTS, anytime, utility) raise
    :class:`goap.UnsupportedConstraintError` rather than ignore them; :func:`goap.plan` and
    ``GoapGraph`` use :class:`goap.CspPipeline` for it by default. Its JSON form (in a GOAP
    run's state) keeps every field, so a resumed run still honours them.
    """

    constraints: tuple[ResourceConstraint, ...] = ()
    """Hard and soft bounds on plan metrics."""
    objectives: tuple[Objective, ...] = ()
    """What to optimise."""
    capacities: tuple[Capacity, ...] = ()
    """Renewable resources limiting parallel execution."""

    def __post_init__(self) -> None:
        GoalSpec.__post_init__(self)
        for attr in ("constraints", "objectives", "capacities"):
            object.__setattr__(self, attr, tuple(getattr(self, attr)))
        ConstraintSet(self.constraints, self.objectives, self.capacities)  # validates

    def __hash__(self) -> int:
        return hash(
            (self.name, tuple(sorted(self.conditions)), self.constraints, self.objectives, self.capacities)
        )

    @property
    def constraint_set(self) -> ConstraintSet:
        """The constraints, objectives and capacities as one :class:`ConstraintSet`."""
        return ConstraintSet(self.constraints, self.objectives, self.capacities)


@dataclass(frozen=True, slots=True)
class ConstraintViolation:
    """A hard constraint no candidate plan satisfies, with the closest a plan came."""

    constraint: str
    """The constraint's label, e.g. ``budget <= 5``."""
    key: str
    """The metric it bounds."""
    best_value: float | None
    """The metric value of the candidate closest to satisfying it (None: no candidate)."""
    best_plan: tuple[str, ...] = ()
    """That candidate's action names."""
    proven: bool = False
    """True when search proved that *no* plan satisfies the hard budgets, not only no candidate."""

    @property
    def message(self) -> str:
        """One sentence."""
        if self.proven:
            return f"{self.constraint}: no plan satisfies it (proven by exhaustive constrained search)"
        if self.best_value is None:
            return f"{self.constraint}: violated"
        plan = ", ".join(self.best_plan) or "<empty plan>"
        return f"{self.constraint}: every candidate violates it; closest is {self.best_value:g} by [{plan}]"

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict of the fields."""
        return fields_to_json(self)


@dataclass(frozen=True, slots=True)
class ConstraintExplanation(NoPlanExplanation):
    """Why the CP-SAT pipeline found no plan: the goal is reachable, the hard constraints are not.

    ``unreachable`` is empty (every goal condition is reachable); ``violations`` names the hard
    constraints in CP-SAT's infeasibility core. ``proof`` is ``"exhaustive"`` when constrained
    search proved no plan fits, else ``"relaxed"``, meaning only the candidates were checked.
    """

    violations: tuple[ConstraintViolation, ...] = ()
    """The hard constraints that cannot all hold."""

    @property
    def message(self) -> str:
        """Human-readable summary naming each violated constraint."""
        return "INFEASIBLE: " + "; ".join(v.message for v in self.violations)

    def to_dict(self) -> dict[str, Any]:
        """JSON-safe dict (the base fields plus ``violations`` and ``message``)."""
        out = NoPlanExplanation.to_dict(self)
        out["violations"] = [v.to_dict() for v in self.violations]
        out["message"] = self.message
        return out


def merge_constraints(sets: Iterable[ConstraintSet]) -> ConstraintSet:
    """One :class:`ConstraintSet` holding every set's items, in order."""
    out = ConstraintSet()
    for s in sets:
        out = out + s
    return out


def goal_constraints(goal: GoalSpec) -> ConstraintSet:
    """The constraints, objectives and capacities ``goal`` carries (empty for a plain GoalSpec)."""
    if isinstance(goal, ConstrainedGoal):
        return goal.constraint_set
    return ConstraintSet()


def plain_goal(goal: GoalSpec) -> GoalSpec:
    """``goal`` without constraints: its conditions, name, priority and replan budget."""
    if type(goal) is GoalSpec:
        return goal
    return GoalSpec(goal.conditions, name=goal.name, priority=goal.priority, max_replans=goal.max_replans)


def constraint_label(item: ResourceConstraint | Objective | Capacity) -> str:
    """How an error or report names a constraint, objective or capacity."""
    if isinstance(item, ResourceConstraint):
        return item.label
    if isinstance(item, Objective):
        return f"{item.direction} {item.metric}"
    return f"capacity {item.key} <= {item.limit:g}"


def honours_constraints(strategy: object) -> bool:
    """Whether ``strategy`` declares that it honours a goal's constraints (``honours_constraints``).

    :class:`goap.CspPipeline` does; so do :class:`goap.StrategyRouter` (it checks the strategy it
    routes to) and :class:`goap.RepairStrategy` over a base that does. A strategy without the
    attribute is taken not to.
    """
    return bool(getattr(strategy, "honours_constraints", False))


def refuse_constraints(strategy: str, goal: GoalSpec) -> None:
    """Raise :class:`goap.UnsupportedConstraintError` when ``goal`` carries anything to honour.

    For strategies that only reach conditions: planning such a goal as if it were plain would
    return a plan that may break its constraints without a word.
    """
    cs = goal_constraints(goal)
    items: tuple[ResourceConstraint | Objective | Capacity, ...] = (
        *cs.constraints,
        *cs.capacities,
        *cs.objectives,
    )
    if items:
        raise UnsupportedConstraintError(strategy, constraint_label(items[0]), goal.label)
