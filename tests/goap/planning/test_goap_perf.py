"""The planner's per-call shortcuts change no result: the compiled-task cache, linear reachability
and the symmetry fast paths (speed itself is measured by ``python -m bench planner``)."""

from __future__ import annotations

from concurrent.futures import ThreadPoolExecutor
from pathlib import Path
from typing import Any

import pytest
from problem_files import PROBLEMS as PROBLEM_DIR

from goap import ActionSpec, AStar, GoalSpec, load_problem, plan
from goap.planning._compile import _CACHE_SIZE, compile_task

PROBLEMS = Path(PROBLEM_DIR)


def _chain(n: int) -> tuple[dict[str, Any], list[ActionSpec]]:
    init: dict[str, Any] = {f"s{i}": False for i in range(1, n + 1)}
    init["s0"] = True
    acts = [ActionSpec(f"step{i}", {f"s{i}": True}, {f"s{i + 1}": True}) for i in range(n)]
    return init, acts


def test_repeated_compilation_is_cached_and_equal() -> None:
    init, acts = _chain(6)
    goal = {"s6": True}
    first = compile_task(init, goal, acts)
    assert compile_task(dict(init), dict(goal), list(acts)) is first
    # another initial state, goal or action set compiles afresh
    other = dict(init, s3=True)
    assert compile_task(other, goal, acts) is not first
    assert compile_task(init, {"s5": True}, acts) is not first
    copies = [ActionSpec(a.name, a.preconditions, a.effects) for a in acts]
    assert compile_task(init, goal, copies) is not first
    assert compile_task(init, goal, acts, prune=False) is not first


def test_cache_tells_equal_values_of_other_types_apart() -> None:
    acts = [ActionSpec("flip", {"x": True}, {"y": 1})]
    a = compile_task({"x": True, "y": 0}, {"y": 1}, acts)
    b = compile_task({"x": 1, "y": 0}, {"y": 1}, acts)
    assert a is not b
    assert a.decode(a.initial)["x"] is True
    assert b.decode(b.initial)["x"] == 1 and b.decode(b.initial)["x"] is not True


def test_cache_is_bounded() -> None:
    init, acts = _chain(3)
    first = compile_task(init, {"s3": True}, acts)
    for i in range(_CACHE_SIZE + 1):
        compile_task(dict(init, extra=i), {"s3": True}, acts)
    assert compile_task(init, {"s3": True}, acts) is not first


def test_repeated_plans_are_identical() -> None:
    init, acts = _chain(8)
    runs = [plan(init, GoalSpec({"s8": True}), acts) for _ in range(3)]
    assert all(r.plan is not None for r in runs)
    names = {tuple(a.name for a in r.plan.actions) for r in runs if r.plan is not None}
    assert len(names) == 1 and {r.plan.cost for r in runs if r.plan is not None} == {8.0}


@pytest.mark.parametrize("name", ["gripper-4", "blocksworld-4", "cost-trap-6", "logistics-2"])
def test_concurrent_plans_match_serial(name: str) -> None:
    path = PROBLEMS / f"{name}.json"
    if not path.exists():
        pytest.skip(f"{path} not present")
    p = load_problem(path)

    def one(_: int) -> tuple[str, tuple[str, ...], float]:
        r = plan(p.initial, p.goal, p.actions, strategy=AStar())
        assert r.plan is not None
        return r.status, tuple(a.name for a in r.plan.actions), r.plan.cost

    serial = one(0)
    with ThreadPoolExecutor(max_workers=6) as pool:
        results = list(pool.map(one, range(12)))
    assert all(r == serial for r in results)
    assert p.optimal_cost is None or serial[2] == pytest.approx(p.optimal_cost)
