"""Utility planning: each tick, the applicable action of greatest ``utility - cost``, as a one-step plan.

Paired with ``ReplanStrategy.EVERY_ACTION`` the loop asks again after every action. A
:class:`NirvanaGoal` is never satisfied, so an always-on agent runs until no action applies.

Why this is not goap's :class:`~goap.strategies.UtilityStrategy`: LangGOAP takes the best action
even when its net value is negative (its test ``test_none_utility_treated_as_zero`` expects the
cheaper of two actions without utility), counts actions that change nothing, and plans one step;
goap's stops at a net value of 0 or less, skips actions that change nothing and chains up to
``max_actions`` steps valued by soft goals.
"""

from __future__ import annotations

import time
from typing import Any

from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.strategy import PlanRequest, StrategyBase
from goap.compat.planner.types import Plan, PlanMetadata
from goap.compat.score import SimpleScore

__all__ = ["NIRVANA_NAME", "NirvanaGoal", "UtilityStrategy", "is_nirvana"]

NIRVANA_NAME: str = "Nirvana"
"""The conventional name of the never-satisfied goal."""


class NirvanaGoal(GoalSpec):
    """A goal that is never satisfied (conditions default to empty): the run ends only when stuck."""

    def __init__(self, **kwargs: Any) -> None:
        kwargs.setdefault("conditions", {})
        super().__init__(**kwargs)


def is_nirvana(goal: Any) -> bool:
    """Whether ``goal`` is a :class:`NirvanaGoal`."""
    return isinstance(goal, NirvanaGoal)


def net_value(action: ActionSpec, state: dict[str, Any]) -> float:
    """``utility(state) - cost(state)``; no utility counts as 0."""
    util = action.utility
    value = 0.0 if util is None else float(util(state)) if callable(util) else float(util)
    return value - action.get_cost(state)


class UtilityStrategy(StrategyBase):
    """Greedy one-step planner: the best applicable, non-blacklisted action by :func:`net_value`.

    Ties go to the earlier action; None when no action applies.
    """

    name: str = "UtilityStrategy"
    """Shown in traces."""

    def solve(self, request: PlanRequest) -> Plan | None:
        """A one-action plan, or None."""
        t0 = time.perf_counter()
        start, actions = request.start, request.actions
        black = set(request.blacklisted_actions or ())
        applicable = [a for a in actions if a.name not in black and start.satisfies(a.preconditions)]
        if not applicable:
            return None
        now = start.to_dict()
        best = max(applicable, key=lambda a: net_value(a, start.to_dict()))
        cost = best.get_cost(now)
        return Plan(
            actions=(best,),
            expected_states=(start.apply(best.get_effects(now)),),
            total_cost=cost,
            metadata=PlanMetadata(
                applicable_count=len(applicable), planning_time_ms=(time.perf_counter() - t0) * 1000
            ),
            score=SimpleScore(scalar=cost),
        )
