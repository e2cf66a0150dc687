"""The PDDL translation used to run Fast Downward and pyperplan on the JSON problems."""

from __future__ import annotations

import heapq
import json
from pathlib import Path
from typing import Any

import pytest

from bench.pddl import MAX_COST_SCALE, NumericProblemError, cost_scale, to_pddl
from bench.peers import fast_downward, pyperplan_search
from bench.validate import check, is_optimal


def trap_problem() -> dict[str, Any]:
    """A task whose only cheap-looking plan is invalid unless moving away deletes the old value.

    ``get_tool`` moves the agent from ``a`` to ``b``; an encoding that forgot to delete ``pos=a``
    would allow ``get_tool, cheap_done, go_c`` (cost 3). The true optimum is 7: ``get_tool, go_c,
    go_a, cheap_done, go_c``; the shortest plan ``get_tool, go_c, done_at_c`` costs 7.5.
    """
    return {
        "name": "trap",
        "family": "test",
        "description": "",
        "initial": {"pos": "a", "tool": False, "done": False},
        "goal": {"pos": "c", "done": True},
        "actions": [
            {"name": "get_tool", "preconditions": {}, "effects": {"tool": True, "pos": "b"}, "cost": 1},
            {"name": "go_c", "preconditions": {}, "effects": {"pos": "c"}, "cost": 1},
            {"name": "go_a", "preconditions": {"pos": "c"}, "effects": {"pos": "a"}, "cost": 3},
            {
                "name": "cheap_done",
                "preconditions": {"pos": "a", "tool": True},
                "effects": {"done": True},
                "cost": 1,
            },
            {
                "name": "done_at_c",
                "preconditions": {"pos": "c", "tool": True},
                "effects": {"done": True},
                "cost": 5.5,
            },
        ],
        "optimal_cost": 7,
        "expect": "plan",
    }


def uniform_cost_optimum(problem: dict[str, Any]) -> float | None:
    """Least plan cost by exhaustive uniform-cost search (tiny problems only)."""
    start = tuple(sorted(problem["initial"].items()))
    frontier: list[tuple[float, int, tuple[tuple[str, Any], ...]]] = [(0.0, 0, start)]
    best = {start: 0.0}
    tie = 0
    while frontier:
        cost, _, state = heapq.heappop(frontier)
        facts = dict(state)
        if all(facts[k] == v for k, v in problem["goal"].items()):
            return cost
        for action in problem["actions"]:
            if all(facts[k] == v for k, v in action["preconditions"].items()):
                nxt = tuple(sorted({**facts, **action["effects"]}.items()))
                if cost + action["cost"] < best.get(nxt, float("inf")):
                    best[nxt] = cost + action["cost"]
                    tie += 1
                    heapq.heappush(frontier, (cost + action["cost"], tie, nxt))
    return None


@pytest.fixture
def trap_file(tmp_path: Path) -> Path:
    path = tmp_path / "trap.json"
    path.write_text(json.dumps(trap_problem()))
    return path


def test_trap_optimum_is_seven() -> None:
    """The fixture's stated optimum matches exhaustive search, so the other tests rest on it."""
    assert uniform_cost_optimum(trap_problem()) == pytest.approx(7.0)


def test_fast_downward_plan_validates_with_optimal_cost(trap_file: Path, tmp_path: Path) -> None:
    """Fast Downward's plan on the translation replays under our simulator at the JSON optimum."""
    workdir = tmp_path / "fd"
    workdir.mkdir()
    outcome = fast_downward.run(trap_file, workdir)
    assert outcome.status == "found", outcome.note
    assert outcome.plan is not None
    result = check(trap_problem(), outcome.plan)
    assert result.valid, result.message
    assert is_optimal(result.cost, 7.0)
    assert outcome.search_seconds is not None
    assert outcome.nodes is not None


def test_fast_downward_reports_no_plan(tmp_path: Path) -> None:
    """An unreachable goal is reported as no_plan, not as an error."""
    problem = trap_problem()
    problem["goal"] = {"pos": "d"}
    path = tmp_path / "unsolvable.json"
    path.write_text(json.dumps(problem))
    outcome = fast_downward.run(path, tmp_path)
    assert outcome.status == "no_plan", outcome.note


def test_pyperplan_astar_finds_shortest_plan(trap_file: Path, tmp_path: Path) -> None:
    """pyperplan ignores costs: its A* plan is valid, shortest (3 steps) and priced 7.5 by us."""
    outcome = pyperplan_search.run_astar_lmcut(trap_file, tmp_path)
    assert outcome.status == "found"
    assert outcome.plan is not None
    result = check(trap_problem(), outcome.plan)
    assert result.valid, result.message
    assert len(outcome.plan) == 3
    assert result.cost == pytest.approx(7.5)


def test_pyperplan_gbf_plan_is_valid(trap_file: Path, tmp_path: Path) -> None:
    """pyperplan's greedy search returns a plan that replays to the goal."""
    outcome = pyperplan_search.run_gbf_hff(trap_file, tmp_path)
    assert outcome.status == "found"
    assert outcome.plan is not None
    assert check(trap_problem(), outcome.plan).valid


def test_forgotten_delete_plan_is_invalid() -> None:
    """The simulator rejects the plan that only a delete-free encoding would allow."""
    result = check(trap_problem(), ["get_tool", "cheap_done", "go_c"])
    assert not result.valid
    assert result.message.startswith("step 1:")


def test_unconstrained_assignment_is_split_per_current_value() -> None:
    """``go_c`` sets ``pos`` without testing it, so it gets one copy per value ``pos`` can hold."""
    task = to_pddl(trap_problem())
    copies = [line for line in task.domain.splitlines() if "(:action a1_" in line]
    assert len(copies) == 3
    assert task.plan_names(["(a1_v2_go_c)"]) == ["go_c"]


def test_pinned_assignment_deletes_only_the_required_value() -> None:
    """``go_a`` requires ``pos=c``, so it deletes exactly that fact and adds ``pos=a``."""
    task = to_pddl(trap_problem())
    lines = task.domain.splitlines()
    effect = lines[lines.index(next(line for line in lines if "(:action a2_go_a" in line)) + 3]
    assert effect.count("(not ") == 1
    assert "(increase (total-cost) 30)" in effect


def test_costs_are_scaled_to_integers() -> None:
    """Fractional costs are multiplied by the smallest power of ten that makes them whole."""
    assert to_pddl(trap_problem()).cost_scale == 10
    assert cost_scale([1, 0.5, 2.25]) == (100, True)
    assert cost_scale([5.595603427188925]) == (MAX_COST_SCALE, False)


def test_strips_variant_has_no_costs() -> None:
    """The pyperplan variant is plain STRIPS: no cost function, no metric."""
    task = to_pddl(trap_problem(), action_costs=False)
    assert "total-cost" not in task.domain + task.problem
    assert ":action-costs" not in task.domain


def test_ipc_atom_keys_become_lifted_atoms() -> None:
    """A boolean key spelled ``(on a b)`` is emitted as an ``on`` atom over objects a and b."""
    problem = {
        "name": "ipc",
        "initial": {"(on a b)": False, "(clear b)": True},
        "goal": {"(on a b)": True},
        "actions": [
            {
                "name": "(stack a b)",
                "preconditions": {"(clear b)": True},
                "effects": {"(on a b)": True, "(clear b)": False},
                "cost": 1,
            }
        ],
    }
    task = to_pddl(problem)
    assert "(p0_clear o0_b)" in task.domain
    assert "(p1_on o1_a o0_b)" in task.problem


def test_numeric_problem_is_rejected() -> None:
    """Numeric conditions have no STRIPS form; the translation says so instead of guessing."""
    problem = trap_problem()
    problem["goal"] = {"pos": "c", "count": {"op": ">=", "value": 2}}
    with pytest.raises(NumericProblemError):
        to_pddl(problem)


def test_plan_line_naming_no_action_is_an_error() -> None:
    """A plan line that maps to no action raises instead of being dropped."""
    with pytest.raises(ValueError, match="names no action"):
        to_pddl(trap_problem()).plan_names(["(a99_nothing)"])
