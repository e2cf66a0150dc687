"""bench compat-anytime: its problems are solvable as built, and both strategies plan them right."""

from __future__ import annotations

import pytest
from compat_brute_force import cheapest_cost, replay_cost

from bench.compat_anytime import collect
from goap.compat import GoalSpec, PlanningState
from goap.compat.planner.strategy import AnytimePlanningStrategy, AStarStrategy


def test_collect_problems_plan_at_the_brute_force_cost() -> None:
    """A small collect problem: A* and the anytime strategy (whose last round, weight 1, finishes
    within a generous budget) both plan at the brute-force optimum, with plans that replay."""
    start, goal, actions = collect(5, 3)
    assert len(goal) == 3
    specs = [
        {"name": a.name, "preconditions": dict(a.preconditions), "effects": a.get_effects({}), "cost": 1.0}
        | {"can_rerun": True}
        for a in actions
    ]
    best = cheapest_cost(start, goal, specs)
    assert best is not None
    state, spec = PlanningState.from_dict(start), GoalSpec(conditions=goal)
    astar = AStarStrategy(time_budget_ms=30_000).plan(state, spec, actions)
    anytime = AnytimePlanningStrategy(30_000).plan(state, spec, actions)
    assert astar is not None and astar.total_cost == pytest.approx(best)
    assert anytime is not None and replay_cost(start, goal, anytime.actions) == pytest.approx(best)
