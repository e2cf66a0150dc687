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
from types import ModuleType
from typing import Any

import pytest
from compat_chains import Act, Problem, build, make_problem, summary

langgoap = pytest.importorskip("langgoap")

import goap.compat as compat  # noqa: E402

SEEDS = range(40)


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
