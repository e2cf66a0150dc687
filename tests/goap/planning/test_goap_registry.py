"""Every heuristic and strategy in the registries plans valid plans; admissible ones plan optimally."""

from __future__ import annotations

import glob
import os

import pytest
from problem_files import PROBLEMS as PROBLEM_DIR

from goap import HEURISTICS, STRATEGIES, AStar, GreedyBestFirst, load_problem, plan
from goap.planning._compile import compile_task
from goap.testing import simulate

PROBLEMS = PROBLEM_DIR
SMALL = [
    f
    for f in sorted(glob.glob(f"{PROBLEMS}/*.json"))
    if os.path.basename(f)
    in {
        "blocksworld-4.json",
        "gripper-4.json",
        "logistics-2.json",
        "cost-trap-6.json",
        "numeric-house-1.json",
    }
]
pytestmark = pytest.mark.skipif(not SMALL, reason="shared problem files not found")


@pytest.mark.parametrize("name", sorted(HEURISTICS))
@pytest.mark.parametrize("path", SMALL, ids=lambda p: os.path.basename(p)[:-5])
def test_heuristic_plans_replay_to_the_goal(name: str, path: str) -> None:
    """A* with each heuristic returns a valid plan; admissible heuristics return the optimum."""
    p = load_problem(path)
    res = plan(p.initial, p.goal, p.actions, AStar(heuristic=name))
    assert res.plan is not None
    ok, cost, _ = simulate(p.initial, p.goal, res.plan.actions)
    assert ok and cost == pytest.approx(res.plan.cost)
    h = HEURISTICS[name](compile_task(p.initial, p.goal.conditions, p.actions))
    assert res.optimal == h.admissible
    if h.admissible:
        assert res.plan.cost == pytest.approx(p.optimal_cost)


@pytest.mark.parametrize("name", sorted(STRATEGIES))
@pytest.mark.parametrize("path", SMALL, ids=lambda p: os.path.basename(p)[:-5])
def test_strategy_plans_replay_to_the_goal(name: str, path: str) -> None:
    """Every registered strategy returns a valid plan, and says whether it is optimal."""
    p = load_problem(path)
    strat = STRATEGIES[name]()
    res = plan(p.initial, p.goal, p.actions, strat)
    assert res.plan is not None
    ok, cost, _ = simulate(p.initial, p.goal, res.plan.actions)
    assert ok and cost == pytest.approx(res.plan.cost)
    if res.optimal:
        assert res.plan.cost == pytest.approx(p.optimal_cost)
    if isinstance(strat, GreedyBestFirst):
        assert not res.optimal
    assert res.strategy == strat.name
