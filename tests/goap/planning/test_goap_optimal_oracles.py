"""The planner's optimal cost agrees with oracles that do not fold symmetric states.

The C search loop and the Python loop are ports of each other, so comparing them cannot catch a
flaw they share (an unsound symmetry fold returned cost 31 as optimal on a 10-ball gripper whose
optimum is 29). Here each is compared with A* without symmetry (``AStar(symmetry=False)``), with
the optima proved when the problem files were made and with gripper's closed-form optimum, on the
repository's problem sets and on generated families with interchangeable objects, with the
symmetry switch forced at many points.
"""

from __future__ import annotations

import functools
import glob
import os
from typing import Any

import pytest
from goap_families import FAMILIES, Encoding, gripper, gripper_optimum
from goap_tasks import search_replayed
from problem_files import PROBLEMS

from goap import AStar, GoalSpec, load_problem, plan
from goap.planning import _strategy as strategies_module
from goap.planning._compile import _cache
from goap.planning._search import SearchOutcome
from goap.testing import simulate

SWITCH_POINTS = (1, 2, 5, 20, 80, 200)
"""Expansions after which symmetry detection is forced to run (then folding starts)."""

PROBLEM_FILES = sorted(glob.glob(f"{PROBLEMS}/*.json")) + sorted(glob.glob(f"{PROBLEMS}/ipc/*.json"))

_UNFOLDED_BUDGET = 20_000
"""Expansions the unfolded oracle may spend on a problem file; beyond that the file's proven
optimum is the oracle (gripper-12 needs 370,000 without symmetry)."""


@functools.cache
def _unfolded_cost(path: str) -> float | None:
    """AStar(symmetry=False)'s cost on a problem file, or None when it ran out of budget."""
    p = load_problem(path)
    res = plan(p.initial, p.goal, p.actions, AStar(symmetry=False, max_expansions=_UNFOLDED_BUDGET))
    if res.status == "budget_exhausted":
        return None
    assert res.plan is not None and res.optimal
    return res.plan.cost


@pytest.mark.parametrize(
    "path",
    [f for f in PROBLEM_FILES if load_problem(f).expect == "plan"],
    ids=lambda p: os.path.basename(p)[:-5],
)
def test_problem_files_cost_the_same_with_the_switch_anywhere(
    monkeypatch: pytest.MonkeyPatch, path: str
) -> None:
    """On every solvable problem file the default planner, with symmetry detection forced after
    1, 2, 5, 20, 80 or 200 expansions, returns the unfolded search's cost and the file's optimum."""
    p = load_problem(path)
    assert p.optimal_cost is not None
    oracle = _unfolded_cost(path)
    if oracle is not None:
        assert oracle == pytest.approx(p.optimal_cost, abs=1e-6)
    for after in SWITCH_POINTS:
        monkeypatch.setattr(strategies_module, "SYMMETRY_AFTER", after)
        _cache.clear()
        res = plan(p.initial, p.goal, p.actions)
        assert res.plan is not None and res.optimal, (after, res.status)
        assert res.plan.cost == pytest.approx(p.optimal_cost, abs=1e-6), after
        ok, cost, _ = simulate(p.initial, p.goal, res.plan.actions)
        assert ok and cost == pytest.approx(res.plan.cost, abs=1e-9)


def test_ten_ball_ipc_gripper_costs_29() -> None:
    """The IPC-encoded 10-ball gripper (one boolean fact per atom) is solved at its optimum 29 by
    the default planner and by the unfolded search, both claiming optimality."""
    init, goal, acts = gripper(10, "atoms")
    assert gripper_optimum(10) == 29
    _cache.clear()
    res = plan(init, GoalSpec(goal), acts)
    assert res.plan is not None and res.optimal
    assert res.plan.cost == 29.0
    assert res.stats.symmetry_classes == 2
    ok, cost, _ = simulate(init, GoalSpec(goal), res.plan.actions)
    assert ok and cost == 29.0
    plain = plan(init, GoalSpec(goal), acts, AStar(symmetry=False))
    assert plain.plan is not None and plain.plan.cost == 29.0


def _run(
    init: dict[str, Any], goal: dict[str, Any], acts: list[Any], after: int, native: bool
) -> tuple[SearchOutcome, float]:
    """A search that must find a plan (see `search_replayed`): the outcome and its replayed cost."""
    out, cost = search_replayed(init, goal, acts, after, native)
    assert out.status == "found" and cost is not None
    return out, cost


@functools.cache
def _family_optimum(family: str, n: int, encoding: Encoding) -> float:
    """The optimum of a generated task: gripper's closed form, else the unfolded search's cost."""
    if family == "gripper":
        return float(gripper_optimum(n))
    init, goal, acts = FAMILIES[family](n, encoding)
    res = plan(init, GoalSpec(goal), acts, AStar(symmetry=False))
    assert res.plan is not None and res.optimal
    return res.plan.cost


_CASES = [
    ("gripper", (3, 5, 10)),
    ("logistics", (3, 6)),
    ("transport", (3, 5)),
    ("elevators", (5, 6)),
]


@pytest.mark.parametrize("encoding", ["atoms", "values"])
@pytest.mark.parametrize(("family", "n"), [(f, n) for f, sizes in _CASES for n in sizes])
def test_families_cost_the_optimum_in_both_loops(family: str, n: int, encoding: Encoding) -> None:
    """Gripper, logistics, transport and elevators with interchangeable objects, in both
    encodings: the C and the Python loop return the optimum with the switch at any point."""
    best = _family_optimum(family, n, encoding)
    init, goal, acts = FAMILIES[family](n, encoding)
    for after in SWITCH_POINTS:
        for native in (True, False):
            if not native and after not in (1, 5, 80):
                continue  # the Python loop is several times slower: three points stand for it
            out, cost = _run(init, goal, acts, after, native)
            assert out.cost == pytest.approx(best, abs=1e-9), (after, native)
            assert cost == pytest.approx(best, abs=1e-9), (after, native)


@pytest.mark.parametrize("n", [4, 7, 9, 11])
def test_gripper_sizes_around_ten_cost_the_closed_form(n: int) -> None:
    """The IPC-encoded gripper near 10 balls costs its closed-form optimum with the switch at the
    planner's default point and at 80 expansions in both loops."""
    init, goal, acts = gripper(n, "atoms")
    for native in (True, False):
        out, cost = _run(init, goal, acts, strategies_module.SYMMETRY_AFTER, native)
        assert out.cost == cost == gripper_optimum(n), native
