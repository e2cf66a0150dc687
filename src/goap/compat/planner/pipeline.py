"""LangGOAP's two-phase planning: search finds a plan, the CSP layer checks it, alternatives on failure.

1. A goal without constraints, objectives or quality metrics is planned by A* alone.
2. Otherwise the least-cost plan is checked (:func:`~goap.compat.planner.csp.validate_plan`); a
   feasible one is returned with its CSP metadata and a :class:`~goap.compat.score.HardSoftScore`.
3. An infeasible one: up to ``max_alternatives`` further plans, each found with one action of the
   first plan blacklisted, and the best of them by
   :func:`~goap.compat.planner.csp.optimize_plans`; none feasible: the first plan, marked
   ``INFEASIBLE`` (the CSP layer advises, it does not block execution).

Every search is :func:`goap.compat.planner.astar.plan`, which runs on our A*.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from goap.compat._logs import get_logger
from goap.compat.actions import ActionSpec
from goap.compat.goals import ConstraintSpec, GoalSpec
from goap.compat.planner.astar import plan as astar_plan
from goap.compat.planner.csp import CSPMetadata, CSPStatus, optimize_plans, validate_plan
from goap.compat.planner.types import Plan
from goap.compat.score import HardSoftScore
from goap.compat.state import PlanningState
from goap.compat.types import ObjectiveDirection

__all__ = ["augment_plan", "enumerate_alternatives", "needs_csp", "plan", "score_from_csp"]

logger = get_logger(__name__)


def _penalty(c: ConstraintSpec, total: float) -> float:
    """``violation * weight``, 0 when the bound holds."""
    if c.max is not None and total > c.max:
        return (total - c.max) * c.weight
    if c.min is not None and total < c.min:
        return (c.min - total) * c.weight
    return 0.0


def score_from_csp(plan: Plan, goal: GoalSpec, meta: CSPMetadata) -> HardSoftScore:
    """The plan's score: hard = -(hard violations), soft = objectives (signed) - soft violations - metrics."""
    by_key = {c.key: c for c in goal.constraints}
    hard = soft = 0.0
    for usage in meta.resource_usage:
        c = by_key.get(usage.key)
        if c is None:
            continue
        if c.level == "hard":
            hard -= _penalty(c, usage.total)
        else:
            soft -= _penalty(c, usage.total)
    for key, direction in (goal.objectives or {}).items():
        v = meta.objective_values.get(key, 0.0)
        soft += -v if direction == ObjectiveDirection.MINIMIZE else v
    for metric in goal.metrics:
        soft -= metric.weight * metric.evaluate(plan)
    return HardSoftScore(hard=hard, soft=soft)


def needs_csp(goal: GoalSpec) -> bool:
    """Whether the goal has constraints, objectives or quality metrics."""
    return bool(goal.constraints) or goal.objectives is not None or bool(goal.metrics)


def augment_plan(plan: Plan, goal: GoalSpec, meta: CSPMetadata) -> Plan:
    """``plan`` with ``meta`` attached and its score recomputed from it (a new plan)."""
    return replace(plan, metadata=replace(plan.metadata, csp=meta), score=score_from_csp(plan, goal, meta))


def enumerate_alternatives(
    start: PlanningState | dict[str, Any],
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    blacklisted: Sequence[str] | None,
    exclude_plan: Plan,
    max_count: int,
) -> list[Plan]:
    """Plans found with one action of ``exclude_plan`` blacklisted at a time, distinct by action names."""
    seen = {tuple(exclude_plan.action_names)}
    found: list[Plan] = []
    base = list(blacklisted or ())
    for action in exclude_plan.actions:
        if len(found) >= max_count:
            break
        alt = astar_plan(start, goal, list(actions), blacklisted_actions=[*base, action.name])
        if alt is not None and (names := tuple(alt.action_names)) not in seen:
            seen.add(names)
            found.append(alt)
    return found


def plan(
    start: PlanningState | Mapping[str, Any],
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    blacklisted_actions: Sequence[str] | None = None,
    *,
    max_alternatives: int = 5,
    tracer: Any = None,
    record_expansions: bool = False,
) -> Plan | None:
    """Plan for ``goal`` and attach the CSP verdict (see the module docstring); None when search finds none.

    ``tracer`` (with ``record_expansions=True``) sees the first search's expansions and a
    ``"csp_infeasible"`` dead end when the first plan fails its constraints.
    """
    if not isinstance(start, PlanningState):
        start = PlanningState.from_dict(dict(start))
    black = list(blacklisted_actions) if blacklisted_actions is not None else None
    primary = astar_plan(
        start,
        goal,
        list(actions),
        blacklisted_actions=black,
        tracer=tracer,
        record_expansions=record_expansions,
    )
    if not needs_csp(goal) or primary is None or len(primary) == 0:
        return primary
    meta = validate_plan(primary, goal)
    if meta.status is not CSPStatus.INFEASIBLE:
        return augment_plan(primary, goal, meta)
    dead_end = (
        getattr(tracer, "on_search_dead_end", None) if tracer is not None and record_expansions else None
    )
    if dead_end is not None:
        dead_end("csp_infeasible", {"plan": list(primary.action_names), "status": meta.status.value})
    alternatives = enumerate_alternatives(start, goal, actions, black, primary, max_alternatives)
    if not alternatives:
        logger.warning(
            "plan %s breaks its hard constraints and no alternative plan exists", primary.action_names
        )
        return augment_plan(primary, goal, meta)
    best, chosen = optimize_plans(alternatives, goal)
    if chosen.status in (CSPStatus.FEASIBLE, CSPStatus.OPTIMAL):
        return augment_plan(best, goal, chosen)
    logger.warning("every alternative plan breaks the hard constraints; keeping %s", primary.action_names)
    return augment_plan(primary, goal, meta)
