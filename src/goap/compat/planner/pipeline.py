"""LangGOAP's two-phase :func:`plan`: A* proposes, goap's CP-SAT pipeline checks and chooses."""

from __future__ import annotations

import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.astar import plan as astar_plan
from goap.compat.planner.csp import CSPMetadata, CSPStatus, selection_metadata, validate_plan
from goap.compat.planner.csp import optimize_plans as optimize_plans  # LangGOAP's module has it
from goap.compat.planner.types import Plan
from goap.compat.score import HardSoftScore
from goap.compat.state import PlanningState
from goap.compat.types import ObjectiveDirection

__all__ = ["enumerate_alternatives", "needs_csp", "plan"]


def _state(start: PlanningState | Mapping[str, Any]) -> PlanningState:
    return start if isinstance(start, PlanningState) else PlanningState.from_dict(start)


def needs_csp(goal: GoalSpec) -> bool:
    """Whether the goal carries constraints, objectives or quality metrics."""
    return bool(goal.constraints) or goal.objectives is not None or bool(goal.metrics)


def _score(p: Plan, goal: GoalSpec, meta: CSPMetadata) -> HardSoftScore:
    """Hard: minus weighted hard violations; soft: minus soft ones, objectives, metrics."""
    from goap.compat.planner.explain import _shortfall

    by_key = {c.key: c for c in goal.constraints}
    lost = {"hard": 0.0, "soft": 0.0}
    for u in meta.resource_usage:
        if (c := by_key.get(u.key)) is not None and (gap := _shortfall(c, u.total)) is not None:
            lost[c.level] += gap.overrun * c.weight
    hard, soft = 0.0 - lost["hard"], 0.0 - lost["soft"]
    for k, d in (goal.objectives or {}).items():
        v = meta.objective_values.get(k, 0.0)
        soft += v if d == ObjectiveDirection.MAXIMIZE else -v
    soft -= sum(m.weight * m.evaluate(p) for m in goal.metrics)
    return HardSoftScore(hard=hard, soft=soft)


def with_csp(p: Plan, goal: GoalSpec, meta: CSPMetadata) -> Plan:
    """``p`` carrying ``meta`` and the HardSoftScore it implies."""
    return replace(p, metadata=replace(p.metadata, csp=meta), score=_score(p, goal, meta))


def enumerate_alternatives(
    start: PlanningState | Mapping[str, Any],
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    blacklisted: Sequence[str] | None,
    exclude_plan: Plan,
    max_count: int,
) -> list[Plan]:
    """Plans found with each action of ``exclude_plan`` blacklisted in turn, distinct, at most ``max_count``."""
    seen = {tuple(exclude_plan.action_names)}
    found: list[Plan] = []
    for name in exclude_plan.action_names:
        if len(found) >= max_count:
            break
        alt = astar_plan(_state(start), goal, list(actions), [*(blacklisted or ()), name])
        if alt is not None and tuple(alt.action_names) not in seen:
            seen.add(tuple(alt.action_names))
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
    """A* then the CSP phase: the best plan meeting hard constraints, else one marked INFEASIBLE."""
    st = _state(start)
    seen: dict[str, Any] = {"tracer": tracer, "record_expansions": record_expansions}
    primary = astar_plan(st, goal, list(actions), list(blacklisted_actions or ()), **seen)
    if primary is None or not needs_csp(goal) or len(primary) == 0:
        return primary
    checked = validate_plan(primary, goal)
    if checked.status is not CSPStatus.INFEASIBLE:
        return with_csp(primary, goal, checked)
    dead_end = getattr(tracer, "on_search_dead_end", None) if record_expansions else None
    if dead_end is not None:
        dead_end("csp_infeasible", {"plan": primary.action_names, "status": checked.status.value})
    chosen = _alternative(st, goal, actions, blacklisted_actions, max_alternatives)
    return chosen if chosen is not None else with_csp(primary, goal, checked)


def _alternative(
    st: PlanningState, goal: GoalSpec, actions: Sequence[ActionSpec], black: Sequence[str] | None, most: int
) -> Plan | None:
    """goap's pipeline over the single-blacklist variants of its A* plan (None: none fits)."""
    from goap.compat.planner.csp import _pipeline
    from goap.strategies import SolverReport

    t0 = time.monotonic()
    pipe = _pipeline(goal, 1000, search=cv.LANGGOAP_ASTAR, enumeration="blacklist", max_candidates=most + 1)
    acts = cv.csp_actions(cv.by_specificity(actions))
    res = pipe.solve(cv.encode_state(st), cv.to_goap_goal(goal), acts, blacklist=frozenset(black or ()))
    report = res.report(SolverReport)
    if res.plan is None or report is None:
        return None
    by_name = {a.name: a for a in actions}
    chosen = cv.to_plan([by_name[n] for n in res.plan.names], st)
    among = [[by_name[n] for n in c.names] for c in res.candidates[1:]]  # the first is the A* plan
    return with_csp(chosen, goal, selection_metadata(chosen, goal, report, among, 1000, t0))


pipeline_plan = plan
"""The name ``goap.compat`` exports :func:`plan` under (beside A*'s ``plan``)."""
