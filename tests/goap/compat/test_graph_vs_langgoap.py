"""`goap.compat.GoapGraph` runs the GOAP loop as langgoap 0.1.2 does: the same problems with the same
failing actions end in the same status, history, blacklist and counts.

The oracle is langgoap itself (installed in the dev environment), running each problem side by side
with :mod:`goap.compat`. Problems are chains of levels ``f0 -> f1 -> ... -> fn``; each level has
two or three alternative actions with distinct costs, so the cheapest plan is unique and both
planners must pick it. Actions fail their first ``k`` calls; the replan and blacklist rules
(blacklist after ``max_retries + 1`` recorded failures, replan, fall back to the full action set
and clear the counts when the blacklist makes the goal unreachable, give up after the goal's
``max_replans``) decide everything else.
"""

from __future__ import annotations

import asyncio
import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any

import pytest

langgoap = pytest.importorskip("langgoap")

import goap.compat as compat  # noqa: E402

SEEDS = range(40)


@dataclass(frozen=True)
class Act:
    """One action of a generated problem."""

    name: str
    level: int
    cost: float
    fails: int
    """How many of its first calls raise."""
    max_retries: int


@dataclass(frozen=True)
class Problem:
    """A chain problem: levels, their alternatives, the goal's replan budget."""

    levels: int
    actions: tuple[Act, ...]
    max_replans: int
    seed: int


def make_problem(seed: int) -> Problem:
    """A random chain problem; costs are distinct so the cheapest plan is unique."""
    rng = random.Random(seed)
    levels = rng.randint(1, 4)
    acts: list[Act] = []
    costs = rng.sample(range(1, 100), 3 * levels)
    for lvl in range(levels):
        for j in range(rng.randint(1, 3)):
            acts.append(
                Act(
                    name=f"a{lvl}_{j}",
                    level=lvl,
                    cost=float(costs.pop()),
                    fails=rng.choice((0, 0, 1, 2, 5)),
                    max_retries=rng.choice((0, 0, 1, 2)),
                )
            )
    return Problem(levels, tuple(acts), rng.choice((0, 1, 3, 5, 8)), seed)


def build(lib: ModuleType, p: Problem) -> tuple[Any, Any, dict[str, bool]]:
    """The problem's graph, goal and start state in one library (``langgoap`` or ``goap.compat``)."""
    calls: dict[str, int] = {}

    def runner(a: Act) -> Any:
        def execute(world: dict[str, Any]) -> dict[str, Any]:
            calls[a.name] = calls.get(a.name, 0) + 1
            if calls[a.name] <= a.fails:
                raise RuntimeError(f"{a.name} failed (call {calls[a.name]})")
            return {f"f{a.level + 1}": True}

        return execute

    actions = [
        lib.ActionSpec(
            name=a.name,
            preconditions={f"f{a.level}": True},
            effects={f"f{a.level + 1}": True},
            cost=a.cost,
            execute=runner(a),
            max_retries=a.max_retries,
        )
        for a in p.actions
    ]
    goal = lib.GoalSpec(conditions={f"f{p.levels}": True}, policy=lib.GoalPolicy(max_replans=p.max_replans))
    world = {f"f{i}": i == 0 for i in range(p.levels + 1)}
    return lib.GoapGraph(actions=actions), goal, world


def summary(result: dict[str, Any]) -> dict[str, Any]:
    """What the two libraries must agree on."""
    plan = result.get("plan")
    return {
        "status": result.get("status"),
        "history": [(h.action_name, h.success, h.error) for h in result["execution_history"]],
        "world": dict(result["world_state"]),
        "blacklisted": sorted(result.get("blacklisted_actions", [])),
        "counts": dict(result.get("action_failure_counts", {})),
        "replan_count": result.get("replan_count"),
        "replan_reason": result.get("replan_reason"),
        "plan": None if plan is None else list(plan.action_names),
    }


def run(lib: ModuleType, p: Problem) -> dict[str, Any]:
    graph, goal, world = build(lib, p)
    out: dict[str, Any] = graph.invoke(goal=goal, world_state=world, config={"recursion_limit": 500})
    return summary(out)


@pytest.mark.parametrize("seed", SEEDS)
def test_random_chain_runs_like_langgoap(seed: int) -> None:
    """A random chain problem with failing actions ends exactly as it does under langgoap."""
    p = make_problem(seed)
    assert run(compat, p) == run(langgoap, p), p


def test_first_failure_blacklists_and_replans_onto_the_alternative() -> None:
    """An action with max_retries=0 is blacklisted after its first failure; the plan switches."""
    p = Problem(1, (Act("cheap", 0, 1.0, 1, 0), Act("dear", 0, 5.0, 0, 0)), 3, -1)
    out = run(compat, p)
    assert out == run(langgoap, p)
    assert out["status"] == "goal_achieved"
    assert out["history"][0] == ("cheap", False, "cheap failed (call 1)")
    assert out["history"][1][:2] == ("dear", True)
    assert out["blacklisted"] == ["cheap"]


def test_unreachable_blacklist_falls_back_to_all_actions_and_clears_counts() -> None:
    """With the only action blacklisted the planner falls back to it and clears the bookkeeping."""
    p = Problem(1, (Act("only", 0, 1.0, 1, 0),), 3, -2)
    out = run(compat, p)
    assert out == run(langgoap, p)
    assert out["status"] == "goal_achieved"
    assert out["blacklisted"] == [] and out["counts"] == {}


def test_replan_budget_ends_the_run_as_failed() -> None:
    """An action that keeps failing exhausts max_replans: status failed, reason names the budget."""
    p = Problem(1, (Act("flaky", 0, 1.0, 99, 0),), 2, -3)
    out = run(compat, p)
    assert out == run(langgoap, p)
    assert out["status"] == "failed"
    assert out["replan_reason"] == "max_replans_exceeded (2)"


def test_ainvoke_matches_invoke() -> None:
    """The async path takes the same route as the sync one."""
    p = make_problem(7)
    graph, goal, world = build(compat, p)
    out = asyncio.run(graph.ainvoke(goal=goal, world_state=world, config={"recursion_limit": 500}))
    assert summary(out) == run(langgoap, p)
