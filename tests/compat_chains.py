"""Random chain problems with failing actions, built in langgoap or in goap.compat (shared by the
tests comparing goap.compat's GOAP loop with langgoap's: through LangGraph and on the engine).

Problems are chains of levels ``f0 -> f1 -> ... -> fn``; each level has two or three alternative
actions with distinct costs, so the cheapest plan is unique. Actions fail their first ``k`` calls.
"""

from __future__ import annotations

import random
from dataclasses import dataclass
from types import ModuleType
from typing import Any


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
