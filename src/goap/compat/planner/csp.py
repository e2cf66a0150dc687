"""LangGOAP's CSP records and plan checks over goap's CP-SAT pipeline (:class:`goap.CspPipeline`)."""

from __future__ import annotations

import enum
import time
from collections.abc import Iterable, Mapping, Sequence
from dataclasses import dataclass, field, replace
from datetime import timedelta
from types import MappingProxyType
from typing import TYPE_CHECKING, Any, Literal

import goap.planning as gp
from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.types import ObjectiveDirection
from goap.strategies import CspPipeline, SolverReport, pareto_front

if TYPE_CHECKING:
    from goap.compat.planner.types import Plan


class CSPStatus(str, enum.Enum):  # noqa: UP042 (str() as LangGOAP's)
    """Outcome of the CSP phase."""

    OPTIMAL = "optimal"
    FEASIBLE = "feasible"
    INFEASIBLE = "infeasible"
    """A hard constraint is broken (the plan may still be returned, as LangGOAP's is advisory)."""
    ERROR = "error"
    SKIPPED = "skipped"


Bound = float | None
"""A constraint's lower or upper limit on a resource total (None: unbounded)."""
Span = timedelta | None
"""How long the scheduled plan takes, first start to last end (None: not scheduled)."""


@dataclass(slots=True, frozen=True)
class ResourceUsage:
    """A resource's total over a plan and the bounds of its constraint (``info``: none)."""

    key: str
    total: float
    constraint_min: Bound = None
    constraint_max: Bound = None
    satisfied: bool = True
    """Whether ``total`` lies within the bounds."""
    level: Literal["hard", "soft", "info"] = "info"


@dataclass(slots=True, frozen=True)
class ScheduleEntry:
    """When one action of the plan runs."""

    action_name: str
    start: timedelta
    duration: timedelta
    """How long it runs (zero for an action without a duration)."""
    end: timedelta


@dataclass(slots=True, frozen=True)
class CSPMetadata:
    """What the CSP phase found: status, resource totals, objective values, schedule, explanation."""

    status: CSPStatus
    solver_time_ms: float = 0.0
    resource_usage: tuple[ResourceUsage, ...] = ()
    objective_values: Mapping[str, float] = field(default_factory=lambda: MappingProxyType({}))
    schedule: tuple[ScheduleEntry, ...] = ()
    makespan: Span = None
    plans_evaluated: int = 0
    """Candidate plans the choice was made among."""
    scale_factor: int = 1000
    explanation: Any = None

    def __post_init__(self) -> None:
        if not isinstance(self.objective_values, MappingProxyType):
            object.__setattr__(self, "objective_values", MappingProxyType(dict(self.objective_values)))

    def __repr__(self) -> str:
        extra = [
            (self.solver_time_ms > 0, f"solver_time_ms={self.solver_time_ms:.2f}"),
            (self.resource_usage, f"resources={len(self.resource_usage)}"),
            (self.objective_values, f"objectives={dict(self.objective_values)!r}"),
            (self.schedule, f"schedule_entries={len(self.schedule)}"),
            (self.makespan is not None, f"makespan={self.makespan}"),
            (self.plans_evaluated > 0, f"plans_evaluated={self.plans_evaluated}"),
        ]
        shown = [f"status={self.status.value!r}", *(text for keep, text in extra if keep)]
        return f"CSPMetadata({', '.join(shown)})"


def compute_resource_totals(actions: Iterable[ActionSpec]) -> dict[str, float]:
    """Each resource key summed over ``actions``."""
    totals: dict[str, float] = {}
    for a in actions:
        for k, v in (a.resources or {}).items():
            totals[k] = totals.get(k, 0.0) + v
    return totals


def build_dependency_graph(actions: Sequence[ActionSpec]) -> dict[int, list[int]]:
    """Plan index -> indices of the earlier actions it must wait for (goap's :func:`goap.dependencies`)."""
    preds: dict[int, list[int]] = {j: [] for j in range(len(actions))}
    for i, j in gp.dependencies(cv.goap_actions(actions)):
        preds[j].append(i)
    return preds


def _objectives(goal: GoalSpec) -> list[gp.Objective]:
    up = ObjectiveDirection.MAXIMIZE
    return [
        gp.Objective(cv.csp_metric(k), "maximize" if d == up else "minimize")
        for k, d in (goal.objectives or {}).items()
    ]


def _pipeline(goal: GoalSpec, scale: int, **settings: Any) -> CspPipeline:
    """goap's pipeline weighted as LangGOAP's CSP (soft violations at ``weight * scale``)."""
    bounded = [c for c in goal.constraints if c.min is not None or c.max is not None]
    weights = [max(c.weight, 0.0) * (scale if c.level == "soft" else 1) for c in bounded]
    cons = tuple(
        gp.ResourceConstraint(cv.csp_metric(c.key), c.max, c.min, c.level, w)
        for c, w in zip(bounded, weights, strict=True)
    )
    objs = _objectives(goal)
    if not objs and any(c.level == "soft" for c in cons):
        objs = [gp.Objective("length", weight=0.0)]
    return CspPipeline(constraints=cons, objectives=tuple(objs), scale=scale, **settings)


def _goap_plan(p: Plan) -> gp.Plan:
    return gp.Plan(tuple(cv.csp_actions(p.actions)), p.total_cost)


def _schedule(sched: gp.Schedule | None) -> tuple[tuple[ScheduleEntry, ...], timedelta | None]:
    if sched is None:
        return (), None
    entries = tuple(
        ScheduleEntry(e.action, timedelta(0, e.start), timedelta(0, e.end - e.start), timedelta(0, e.end))
        for e in sched
    )
    return entries, timedelta(seconds=sched.makespan)


def usage_of(totals: Mapping[str, float], goal: GoalSpec) -> tuple[ResourceUsage, ...]:
    """Constrained keys first (a key's last constraint counts), then unconstrained ones as ``info``."""
    by_key = {c.key: c for c in goal.constraints}
    out = []
    for key, c in by_key.items():
        total = totals.get(key, 0.0)
        over = c.max is not None and total > c.max
        under = c.min is not None and total < c.min
        out.append(ResourceUsage(key, total, c.min, c.max, not (over or under), c.level))
    out += [ResourceUsage(k, v) for k, v in totals.items() if k not in by_key]
    return tuple(out)


def objective_values(p: Plan, goal: GoalSpec, totals: Mapping[str, float]) -> dict[str, float]:
    """Each objective's total, and ``soft_goal:<label>`` -> its weight when the plan reaches it."""
    values = {k: totals.get(k, 0.0) for k in goal.objectives or {}}
    last = p.expected_states[-1] if p.expected_states else None
    for sg in goal.soft_goals:
        if last is not None:
            values[f"soft_goal:{sg.label}"] = sg.weight if last.satisfies(sg.conditions) else 0.0
    return values


def _ms(t0: float) -> float:
    return (time.monotonic() - t0) * 1000


def validate_plan(plan: Plan, goal: GoalSpec, *, scale: int = 1000) -> CSPMetadata:
    """Check one plan against the goal's constraints (scheduling it when actions have durations)."""
    t0 = time.monotonic()
    if not goal.constraints and goal.objectives is None:
        return CSPMetadata(CSPStatus.SKIPPED, _ms(t0), scale_factor=scale)
    totals = compute_resource_totals(plan.actions)
    res = _pipeline(goal, scale).evaluate([_goap_plan(plan)])
    status = CSPStatus.FEASIBLE if res.found else CSPStatus.INFEASIBLE
    entries, makespan = _schedule(res.schedule if any(a.duration is not None for a in plan.actions) else None)
    values = objective_values(plan, goal, totals)
    meta = CSPMetadata(status, 0.0, usage_of(totals, goal), values, entries, makespan, 1, scale)
    if status is CSPStatus.INFEASIBLE:
        from goap.compat.planner.explain import explain_infeasibility

        meta = replace(meta, explanation=explain_infeasibility(plan, goal, meta))
    return replace(meta, solver_time_ms=_ms(t0))


def schedule_plan(plan: Plan, *, scale: int = 1000) -> CSPMetadata:
    """The least-makespan schedule of a plan on its precedence edges (``SKIPPED`` without durations)."""
    t0 = time.monotonic()
    if not any(a.duration is not None for a in plan.actions):
        return CSPMetadata(CSPStatus.SKIPPED, _ms(t0), scale_factor=scale)
    res = CspPipeline(scale=scale).evaluate([_goap_plan(plan)])
    report = res.report(SolverReport)
    if not res.found or report is None:
        return CSPMetadata(CSPStatus.INFEASIBLE, _ms(t0), scale_factor=scale)
    entries, makespan = _schedule(res.schedule)
    status = CSPStatus.OPTIMAL if report.status == "OPTIMAL" else CSPStatus.FEASIBLE
    return CSPMetadata(status, _ms(t0), schedule=entries, makespan=makespan, scale_factor=scale)


def selection_metadata(
    chosen: Plan, goal: GoalSpec, report: Any, among: Sequence[Sequence[ActionSpec]], scale: int, t0: float
) -> CSPMetadata:
    """The metadata of the plan goap's pipeline chose ``among`` plans (no schedule)."""
    totals = compute_resource_totals(chosen.actions)
    keys = {k: 0.0 for acts in among for k in compute_resource_totals(acts)}
    status = CSPStatus.OPTIMAL if report.status == "OPTIMAL" else CSPStatus.FEASIBLE
    values, usage = {k: totals.get(k, 0.0) for k in goal.objectives or {}}, usage_of({**keys, **totals}, goal)
    return CSPMetadata(status, _ms(t0), usage, values, plans_evaluated=len(among), scale_factor=scale)


def optimize_plans(plans: list[Plan], goal: GoalSpec, *, scale: int = 1000) -> tuple[Plan, CSPMetadata]:
    """The best of ``plans`` under the goal's constraints and objectives (ValueError when empty)."""
    if not plans:
        raise ValueError("No plans to optimize: optimize_plans() needs at least one plan")
    t0 = time.monotonic()
    res = _pipeline(goal, scale).evaluate([_goap_plan(p) for p in plans])
    report = res.report(SolverReport)
    if not res.found or report is None:
        return plans[0], CSPMetadata(
            CSPStatus.INFEASIBLE, _ms(t0), plans_evaluated=len(plans), scale_factor=scale
        )
    chosen = plans[report.selected]
    return chosen, selection_metadata(chosen, goal, report, [p.actions for p in plans], scale, t0)


def pareto_plans(
    plans: list[Plan], goal: GoalSpec, *, scale: int = 1000, max_frontier: int | None = None
) -> list[tuple[Plan, CSPMetadata]]:
    """The feasible plans no other beats on every objective, best first (ValueError: none)."""
    if not plans:
        raise ValueError("pareto_plans: the list of plans must not be empty")
    t0 = time.monotonic()
    checked = [(p, validate_plan(p, goal, scale=scale)) for p in plans]
    feasible = [(p, m) for p, m in checked if m.status is not CSPStatus.INFEASIBLE]
    if goal.objectives:
        objs = [replace(o, metric=k) for o, k in zip(_objectives(goal), goal.objectives, strict=True)]
        feasible = [feasible[i] for i in pareto_front([dict(m.objective_values) for _, m in feasible], objs)]
        sign = -1.0 if objs[0].direction == "maximize" else 1.0
        feasible.sort(key=lambda pm: sign * pm[1].objective_values.get(objs[0].metric, 0.0))
    else:
        feasible.sort(key=lambda pm: pm[0].total_cost)
    kept = feasible[:max_frontier] if max_frontier is not None else feasible
    return [(p, replace(m, solver_time_ms=_ms(t0), plans_evaluated=len(plans))) for p, m in kept]
