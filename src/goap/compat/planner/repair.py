"""Plan repair: keep the still-applicable prefix of a drifted plan and replan only the rest.

From the current state, the remaining actions of the old plan are replayed while their
preconditions hold; A* (ours, through :func:`goap.compat.planner.astar.plan`) plans from where
that prefix ends; the result is prefix + new suffix.

Why this is not goap's :class:`~goap.strategies.RepairStrategy` (the suffix search is goap's A*
all the same): LangGOAP's tests check the :class:`RepairResult` fields (``suffix_replanned``,
``suffix_length``, ``valid_prefix_length``) and that a suffix with no plan gives None
(``test_no_prefix_and_replan_fails_returns_none``); goap's returns a plan only, stops the prefix
at a blacklisted action or a goal already met, and falls back to planning from scratch.
"""

from __future__ import annotations

from dataclasses import dataclass

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.astar import plan as astar_plan
from goap.compat.planner.strategy import AStarStrategy, PlanningStrategy, PlanRequest, StrategyBase
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore
from goap.compat.state import PlanningState

__all__ = ["RepairResult", "RepairStrategy", "repair_plan"]


@dataclass(frozen=True, slots=True)
class RepairResult:
    """What one repair attempt did."""

    repaired_plan: Plan | None
    """The repaired plan; None when no suffix plan exists."""
    repair_applied: bool
    """Whether a non-empty prefix of the old plan was kept."""
    valid_prefix_length: int
    """Actions kept from the old plan."""
    suffix_replanned: bool
    """Whether A* was run for the suffix."""
    suffix_length: int
    """Actions in the new suffix."""


def repair_plan(
    plan: Plan,
    current_state: PlanningState,
    goal: GoalSpec,
    actions: list[ActionSpec],
    *,
    current_step: int = 0,
    blacklisted_actions: list[str] | None = None,
) -> RepairResult:
    """Repair ``plan`` from ``current_state``, its actions before ``current_step`` being done.

    A goal already satisfied gives an empty plan and no search.
    """
    if current_state.satisfies(goal.conditions):
        return RepairResult(Plan.empty(), False, 0, False, 0)
    state = current_state
    prefix: list[ActionSpec] = []
    states: list[PlanningState] = []
    cost = 0.0
    for action in plan.actions[current_step:]:
        if not state.satisfies(action.preconditions):
            break  # the prefix ends at the first action that no longer applies
        now = state.to_dict()
        cost += action.get_cost(now)
        state = state.apply(action.get_effects(now))
        prefix.append(action)
        states.append(state)
    suffix = astar_plan(state, goal, actions, blacklisted_actions=blacklisted_actions)
    if suffix is None:
        return RepairResult(None, bool(prefix), len(prefix), True, 0)
    total = cost + suffix.total_cost
    repaired = Plan(
        actions=(*prefix, *suffix.actions),
        expected_states=(*states, *suffix.expected_states),
        total_cost=total,
        metadata=PlanMetadata(
            nodes_explored=suffix.metadata.nodes_explored, planning_time_ms=suffix.metadata.planning_time_ms
        ),
        score=SimpleScore(scalar=total),
    )
    return RepairResult(repaired, bool(prefix), len(prefix), True, len(suffix.actions))


class RepairStrategy(StrategyBase):
    """Repairs the prior plan when there is one, else (or when repair keeps nothing) plans with ``inner``."""

    def __init__(self, inner: PlanningStrategy | None = None) -> None:
        self._inner: PlanningStrategy = inner if inner is not None else AStarStrategy()

    def solve(self, request: PlanRequest) -> Plan | None:
        """A repaired prior plan, or the inner strategy's plan from scratch."""
        r = request
        if r.prior_plan is not None:
            result = repair_plan(
                r.prior_plan,
                r.start,
                r.goal,
                r.actions,
                current_step=r.current_step,
                blacklisted_actions=r.blacklisted_actions,
            )
            if result.repair_applied and result.repaired_plan is not None:
                return result.repaired_plan
        return r.first().delegate(self._inner)
