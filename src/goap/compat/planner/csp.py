"""LangGOAP's CSP layer: resource checks, schedules, choosing among candidate plans, Pareto fronts.

Every computation here is exact without a solver run, so none is made:

- resource totals are sums over the plan's actions, checked against each
  :class:`~goap.compat.goals.ConstraintSpec`;
- a schedule without capacities is the earliest start of every action under the precedence edges of
  :func:`build_dependency_graph`, which is the least makespan (the critical path), so the status is
  ``OPTIMAL``;
- :func:`optimize_plans` picks, among a finite list, the feasible plan whose objective (the same
  fixed-point sum LangGOAP hands CP-SAT: objectives, weighted soft violations, soft-goal rewards,
  else plan cost) is least; ties go to the earlier plan. Enumerating the list is the optimum.
"""

from __future__ import annotations

import enum
import math
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass, field
from datetime import timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

from goap.compat.actions import ActionSpec
from goap.compat.goals import ConstraintSpec, GoalSpec
from goap.compat.types import ObjectiveDirection

if TYPE_CHECKING:
    from goap.compat.planner.types import Plan

__all__ = [
    "CSPMetadata",
    "CSPStatus",
    "ResourceUsage",
    "ScheduleEntry",
    "build_dependency_graph",
    "compute_resource_totals",
    "optimize_plans",
    "pareto_plans",
    "schedule_plan",
    "validate_plan",
]


class CSPStatus(str, enum.Enum):  # noqa: UP042 -- str() and format() as in LangGOAP, not StrEnum's
    """Outcome of a constraint check or a selection."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    ERROR = "error"
    SKIPPED = "skipped"


@dataclass(frozen=True, slots=True)
class ResourceUsage:
    """One resource of a plan: its total and, when constrained, its bounds and whether they hold."""

    key: str
    """Resource name (``"tokens"``, ``"cost_usd"``)."""
    total: float
    """Sum over the plan's actions."""
    constraint_min: float | None = None
    """Lower bound of the matching constraint, if any."""
    constraint_max: float | None = None
    """Upper bound of the matching constraint, if any."""
    satisfied: bool = True
    """Whether ``total`` lies within the bounds."""
    level: Literal["hard", "soft", "info"] = "info"
    """The constraint's level; ``"info"`` when no constraint names this key."""


@dataclass(frozen=True, slots=True)
class ScheduleEntry:
    """When one action of a plan runs."""

    action_name: str
    """The action."""
    start: timedelta
    """Offset from the start of the plan."""
    duration: timedelta
    """How long it runs."""
    end: timedelta
    """``start + duration``."""


@dataclass(frozen=True, slots=True)
class CSPMetadata:
    """What the CSP layer found for one plan (or one selection among plans)."""

    status: CSPStatus
    """Outcome."""
    solver_time_ms: float = 0.0
    """Wall-clock time spent."""
    resource_usage: tuple[ResourceUsage, ...] = ()
    """Per-resource totals and bounds."""
    objective_values: MappingProxyType[str, float] = field(default_factory=lambda: MappingProxyType({}))
    """Objective key (or ``soft_goal:<label>``) -> value for the plan."""
    schedule: tuple[ScheduleEntry, ...] = ()
    """Per-action schedule, when actions carry durations."""
    makespan: timedelta | None = None
    """End of the last action, or None without a schedule."""
    plans_evaluated: int = 0
    """Candidate plans looked at."""
    scale_factor: int = 1000
    """Fixed-point scale of the comparisons (ticks per unit)."""
    explanation: Any = None
    """An :class:`~goap.compat.planner.explain.InfeasibilityExplanation` when infeasible."""

    def __post_init__(self) -> None:
        if not isinstance(self.objective_values, MappingProxyType):
            object.__setattr__(self, "objective_values", MappingProxyType(dict(self.objective_values)))

    def __repr__(self) -> str:
        # LangGOAP's repr: the status, then only the fields that say something
        shown = (
            (self.solver_time_ms > 0, f"solver_time_ms={self.solver_time_ms:.2f}"),
            (bool(self.resource_usage), f"resources={len(self.resource_usage)}"),
            (bool(self.objective_values), f"objectives={dict(self.objective_values)!r}"),
            (bool(self.schedule), f"schedule_entries={len(self.schedule)}"),
            (self.makespan is not None, f"makespan={self.makespan}"),
            (self.plans_evaluated > 0, f"plans_evaluated={self.plans_evaluated}"),
        )
        parts = [f"status={self.status.value!r}", *(text for show, text in shown if show)]
        return f"CSPMetadata({', '.join(parts)})"


def _ms(t0: float) -> float:
    return (time.monotonic() - t0) * 1000


def compute_resource_totals(actions: Sequence[ActionSpec]) -> dict[str, float]:
    """Sum each action's ``resources`` per key (actions without resources add nothing).

    Raises ValueError naming the action and the key when an amount is not a finite number: a NaN
    would otherwise pass every bound check unnoticed.
    """
    totals: dict[str, float] = {}
    for action in actions:
        for key, value in (action.resources or {}).items():
            if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
                raise ValueError(
                    f"action {action.name!r}: resources[{key!r}] is {value!r}; amounts must be finite numbers"
                )
            totals[key] = totals.get(key, 0.0) + value
    return totals


def _produces(action: ActionSpec, key: str, value: Any) -> bool:
    # A dynamic effect's value is unknown before it runs: it may produce any key it declares.
    if action.has_dynamic_effects:
        return key in action.effect_key_set()
    effects: Mapping[str, Any] = action.effects  # type: ignore[assignment]
    return key in effects and effects[key] == value


def build_dependency_graph(actions: Sequence[ActionSpec]) -> dict[int, list[int]]:
    """Precedence edges: action j follows the closest earlier action producing one of its preconditions.

    Returns index -> predecessor indices. Dynamic effects count as producing every declared key
    (over-inclusive: a schedule stays correct, maybe less parallel).
    """
    deps: dict[int, list[int]] = {j: [] for j in range(len(actions))}
    for j, action in enumerate(actions):
        for key, value in action.preconditions.items():
            i = next((i for i in range(j - 1, -1, -1) if _produces(actions[i], key, value)), None)
            if i is not None and i not in deps[j]:
                deps[j].append(i)
    return deps


def _usage(totals: Mapping[str, float], goal: GoalSpec) -> tuple[list[ResourceUsage], bool]:
    """Classify each constrained resource (constraint order), then the unconstrained ones."""
    by_key: dict[str, ConstraintSpec] = {c.key: c for c in goal.constraints}
    out: list[ResourceUsage] = []
    hard_ok = True
    for key, c in by_key.items():
        total = totals.get(key, 0.0)
        ok = _within(c, total)
        hard_ok = hard_ok and (ok or c.level != "hard")
        out.append(ResourceUsage(key, total, c.min, c.max, ok, c.level))
    out.extend(ResourceUsage(key, total) for key, total in totals.items() if key not in by_key)
    return out, hard_ok


def _within(c: ConstraintSpec, total: float) -> bool:
    return not ((c.max is not None and total > c.max) or (c.min is not None and total < c.min))


def _objective_values(totals: Mapping[str, float], plan: Plan, goal: GoalSpec) -> dict[str, float]:
    values = {key: totals.get(key, 0.0) for key in goal.objectives or {}}
    if goal.soft_goals and plan.expected_states:
        final = plan.expected_states[-1]
        for sg in goal.soft_goals:
            values[f"soft_goal:{sg.label}"] = sg.weight if final.satisfies(sg.conditions) else 0.0
    return values


def validate_plan(plan: Plan, goal: GoalSpec, *, scale: int = 1000) -> CSPMetadata:
    """Check ``plan`` against the goal's constraints, compute its objectives and, with durations, its schedule.

    ``SKIPPED`` when the goal has neither constraints nor objectives; ``INFEASIBLE`` (with an
    explanation) when a hard bound fails.
    """
    t0 = time.monotonic()
    if not goal.constraints and goal.objectives is None:
        return CSPMetadata(CSPStatus.SKIPPED, _ms(t0), scale_factor=scale)
    totals = compute_resource_totals(plan.actions)
    usage, hard_ok = _usage(totals, goal)
    objectives = _objective_values(totals, plan, goal)
    timed = None
    if hard_ok and any(a.duration is not None for a in plan.actions):
        timed = schedule_plan(plan, scale=scale)
    status = CSPStatus.FEASIBLE if hard_ok else CSPStatus.INFEASIBLE
    explanation = None
    if status is CSPStatus.INFEASIBLE:
        from goap.compat.planner.explain import explain_infeasibility  # explain builds on this module

        explanation = explain_infeasibility(plan, goal, CSPMetadata(status, resource_usage=tuple(usage)))
    return CSPMetadata(
        status,
        _ms(t0),
        tuple(usage),
        MappingProxyType(objectives),
        timed.schedule if timed else (),
        timed.makespan if timed else None,
        plans_evaluated=1,
        scale_factor=scale,
        explanation=explanation,
    )


def _ticks(d: timedelta | None, scale: int) -> int:
    return max(int(d.total_seconds() * scale), 0) if d is not None else 0


def _td(ticks: int, scale: int) -> timedelta:
    return timedelta(milliseconds=ticks * 1000 / scale)


def schedule_plan(plan: Plan, *, scale: int = 1000) -> CSPMetadata:
    """The least-makespan schedule of ``plan`` (``scale`` ticks per second); ``SKIPPED`` without durations.

    With precedence edges only, earliest starts are optimal, so the status is ``OPTIMAL``.
    """
    t0 = time.monotonic()
    if not any(a.duration is not None for a in plan.actions):
        return CSPMetadata(CSPStatus.SKIPPED, _ms(t0), scale_factor=scale)
    durations = [_ticks(a.duration, scale) for a in plan.actions]
    deps = build_dependency_graph(plan.actions)
    starts: list[int] = []
    for j in range(len(plan.actions)):
        starts.append(max((starts[i] + durations[i] for i in deps[j]), default=0))
    entries = tuple(
        ScheduleEntry(a.name, _td(s, scale), _td(d, scale), _td(s + d, scale))
        for a, s, d in zip(plan.actions, starts, durations, strict=True)
    )
    makespan = max((s + d for s, d in zip(starts, durations, strict=True)), default=0)
    return CSPMetadata(
        CSPStatus.OPTIMAL, _ms(t0), schedule=entries, makespan=_td(makespan, scale), scale_factor=scale
    )


def _scaled(x: float, scale: int) -> int:
    return int(x * scale)  # LangGOAP truncates toward zero when it fixes values to integers


def _achieves(plan: Plan, conditions: Mapping[str, Any]) -> bool:
    return bool(plan.expected_states) and plan.expected_states[-1].satisfies(conditions)


def _selection_objective(
    plan: Plan, totals: Mapping[str, float], goal: GoalSpec, scale: int, known: set[str], by_cost: bool
) -> int:
    """The integer LangGOAP minimises for one candidate (see the module docstring)."""
    if by_cost:
        return _scaled(plan.total_cost, scale)
    value = 0
    for key, direction in (goal.objectives or {}).items():
        if key in known:
            v = _scaled(totals.get(key, 0.0), scale)
            value += v if direction == ObjectiveDirection.MINIMIZE else -v
    for c in goal.constraints:
        if c.level == "hard":
            continue
        v = _scaled(totals.get(c.key, 0.0), scale)
        w = max(int(c.weight * scale), 1)
        if c.max is not None:
            value += max(0, v - _scaled(c.max, scale)) * w
        if c.min is not None:
            value += max(0, _scaled(c.min, scale) - v) * w
    for sg in goal.soft_goals or ():
        if _achieves(plan, sg.conditions):
            value -= max(int(sg.weight * scale), 1)
    return value


def _by_cost(plans: Sequence[Plan], goal: GoalSpec, known: set[str]) -> bool:
    """Whether no objective term exists at all, so the cheapest plan wins (as in LangGOAP)."""
    return (
        not any(k in known for k in goal.objectives or {})
        and all(c.level == "hard" for c in goal.constraints)
        and not any(_achieves(p, sg.conditions) for sg in goal.soft_goals or () for p in plans)
    )


def _hard_ok_scaled(totals: Mapping[str, float], goal: GoalSpec, scale: int) -> bool:
    for c in goal.constraints:
        if c.level != "hard":
            continue
        v = _scaled(totals.get(c.key, 0.0), scale)
        if (c.max is not None and v > _scaled(c.max, scale)) or (
            c.min is not None and v < _scaled(c.min, scale)
        ):
            return False
    return True


def optimize_plans(plans: Sequence[Plan], goal: GoalSpec, *, scale: int = 1000) -> tuple[Plan, CSPMetadata]:
    """Choose the best feasible plan of ``plans`` for the goal; raises ValueError on an empty list.

    All infeasible: the first plan with status ``INFEASIBLE``.
    """
    if not plans:
        raise ValueError("No plans to optimize")
    t0 = time.monotonic()
    totals = [compute_resource_totals(p.actions) for p in plans]
    known = {k for t in totals for k in t}
    best: tuple[int, int] | None = None
    by_cost = _by_cost(plans, goal, known)
    for i, (p, t) in enumerate(zip(plans, totals, strict=True)):
        if _hard_ok_scaled(t, goal, scale):
            value = _selection_objective(p, t, goal, scale, known, by_cost)
            if best is None or value < best[0]:
                best = (value, i)
    if best is None:
        return plans[0], CSPMetadata(
            CSPStatus.INFEASIBLE, _ms(t0), plans_evaluated=len(plans), scale_factor=scale
        )
    chosen = best[1]
    chosen_totals = totals[chosen]
    by_key = {c.key: c for c in goal.constraints}
    usage = [
        ResourceUsage(
            key,
            chosen_totals.get(key, 0.0),
            by_key[key].min if key in by_key else None,
            by_key[key].max if key in by_key else None,
            _within(by_key[key], chosen_totals.get(key, 0.0)) if key in by_key else True,
            by_key[key].level if key in by_key else "info",
        )
        for key in sorted(known)
    ]
    usage.extend(
        ResourceUsage(key, 0.0, c.min, c.max, c.min is None or c.min <= 0, c.level)
        for key, c in by_key.items()
        if key not in known
    )
    objectives = {key: chosen_totals.get(key, 0.0) for key in goal.objectives or {}}
    meta = CSPMetadata(
        CSPStatus.OPTIMAL,
        _ms(t0),
        tuple(usage),
        MappingProxyType(objectives),
        plans_evaluated=len(plans),
        scale_factor=scale,
    )
    return plans[chosen], meta


def _dominates(a: Mapping[str, float], b: Mapping[str, float], objectives: Mapping[str, Any]) -> bool:
    """A is no worse than B on every objective and strictly better on one."""
    better = False
    for key, direction in objectives.items():
        x, y = a.get(key, 0.0), b.get(key, 0.0)
        if direction != ObjectiveDirection.MINIMIZE:
            x, y = -x, -y
        if x > y:
            return False
        better = better or x < y
    return better


def pareto_plans(
    plans: Sequence[Plan], goal: GoalSpec, *, scale: int = 1000, max_frontier: int | None = None
) -> list[tuple[Plan, CSPMetadata]]:
    """The non-dominated feasible plans, best first on the first objective (by cost without objectives).

    Plans breaking a hard constraint are dropped first. Raises ValueError on an empty list.
    """
    if not plans:
        raise ValueError("pareto_plans: plans list must not be empty")
    t0 = time.monotonic()
    feasible = [
        (p, m) for p in plans if (m := validate_plan(p, goal, scale=scale)).status != CSPStatus.INFEASIBLE
    ]
    if not feasible:
        return []
    objectives: Mapping[str, ObjectiveDirection] = goal.objectives or {}
    if not objectives:
        front = sorted(feasible, key=lambda pm: pm[0].total_cost)
        return front[:max_frontier] if max_frontier is not None else front
    values: list[dict[str, float]] = []
    for p, m in feasible:
        v = dict(m.objective_values)
        totals = compute_resource_totals(p.actions)
        values.append({**{k: totals.get(k, 0.0) for k in objectives if k not in v}, **v})
    kept = [
        (feasible[i], values[i])
        for i in range(len(feasible))
        if not any(j != i and _dominates(values[j], values[i], objectives) for j in range(len(feasible)))
    ]
    key, direction = next(iter(objectives.items()))
    kept.sort(key=lambda item: item[1].get(key, 0.0), reverse=direction == ObjectiveDirection.MAXIMIZE)
    front = (
        [item for item, _ in kept][:max_frontier] if max_frontier is not None else [item for item, _ in kept]
    )
    elapsed = _ms(t0)
    return [
        (
            p,
            CSPMetadata(
                m.status,
                elapsed,
                m.resource_usage,
                m.objective_values,
                m.schedule,
                m.makespan,
                len(plans),
                scale,
                m.explanation,
            ),
        )
        for p, m in front
    ]
