"""LM-cut values against oracles computed here: never above the true cost to the goal, never below h^max.

The true cost ``h*`` of every reachable state comes from a backward Dijkstra over the explicit
state space (brute force, no heuristic); h^max from a plain fixpoint over the relaxed facts. Both
the C core and the pure-Python LM-cut are checked, from scratch and with a parent's inherited
landmarks, on random STRIPS-like tasks (boolean facts, costs 0 to 3, some fractional) and on every
state of the small IPC tasks' reachable spaces that a bounded exploration reaches.
"""

from __future__ import annotations

import heapq
import json
import random
from pathlib import Path
from typing import Any

import pytest
from problem_files import PROBLEMS

from goap import ActionSpec
from goap.planning._compile import compile_task
from goap.planning._task import Task
from goap.planning.heuristics import lmcut as lmcut_module
from goap.planning.heuristics.lmcut import LMCut

_INF = float("inf")
_MAX_STATES = 3000
"""States explored per task (the IPC tasks' spaces are larger; their first states are checked)."""


def _space(task: Task) -> tuple[list[Any], dict[Any, list[tuple[Any, float, Any]]]]:
    """Reachable states (breadth first, up to _MAX_STATES) and each one's (child, cost, op) edges."""
    seen = {task.initial}
    order = [task.initial]
    edges: dict[Any, list[tuple[Any, float, Any]]] = {}
    i = 0
    while i < len(order):
        s = order[i]
        i += 1
        edges[s] = [(child, c, op) for op, child, c in task.expand(s)]
        for child, _, _ in edges[s]:
            if child not in seen and len(seen) < _MAX_STATES:
                seen.add(child)
                order.append(child)
    return order, edges


def _true_costs(
    task: Task, order: list[Any], edges: dict[Any, list[tuple[Any, float, Any]]]
) -> dict[Any, float]:
    """h* of every state whose successors were all explored (backward Dijkstra from goal states).

    A state of a truncated space gets a value only if the whole space was explored, so the
    comparison never uses a cost that a missing state could lower."""
    complete = len(order) < _MAX_STATES
    if not complete:
        return {}
    back: dict[Any, list[tuple[Any, float]]] = {s: [] for s in order}
    for s, out in edges.items():
        for child, c, _ in out:
            back[child].append((s, c))
    dist = {s: 0.0 for s in order if task.is_goal(s)}
    heap = [(0.0, n, s) for n, s in enumerate(dist)]
    count = len(heap)
    while heap:
        d, _, s = heapq.heappop(heap)
        if d > dist[s]:
            continue
        for parent, c in back[s]:
            if d + c < dist.get(parent, _INF):
                dist[parent] = d + c
                count += 1
                heapq.heappush(heap, (d + c, count, parent))
    return {s: dist.get(s, _INF) for s in order}


def _hmax(task: Task, state: Any) -> float:
    """h^max of the goal by a plain fixpoint (no queue, no supporters)."""
    h = {f: 0.0 for f in task.facts(state)}
    changed = True
    while changed:
        changed = False
        for op in task.ops:
            if all(p in h for p in op.pre):
                v = max((h[p] for p in op.pre), default=0.0) + op.cost
                for e in op.eff:
                    if v < h.get(e, _INF):
                        h[e] = v
                        changed = True
    return max((min((h.get(f, _INF) for f in disj), default=_INF) for disj in task.goal_facts), default=0.0)


def _check(task: Task) -> int:
    """Checks every explored state with both cores; returns how many states had a known h*."""
    order, edges = _space(task)
    true = _true_costs(task, order, edges)
    cores = [LMCut(task, accelerated=False)]
    if lmcut_module._core is not None:
        cores.append(LMCut(task, accelerated=True))
    for h in cores:
        landmarks = {}
        for s in order:
            value, landmarks[s] = h.evaluate(s, ())
            hm = _hmax(task, s)
            assert value >= hm - 1e-9, (s, value, hm)
            if s in true:
                assert value <= true[s] + 1e-9, (s, value, true[s])
        # a child's value from its parent's inherited landmarks is admissible too
        for s in order[:300]:
            for child, _, op in edges[s]:
                if child in true:
                    inherited, _ = h.evaluate(child, h.inherit(landmarks[s], op))
                    assert inherited <= true[child] + 1e-9
    return len(true)


def _random_task(seed: int) -> Task:
    rng = random.Random(seed)
    nfacts = rng.randint(3, 7)
    keys = [f"f{i}" for i in range(nfacts)]
    init = {k: rng.random() < 0.4 for k in keys}
    actions = []
    for i in range(rng.randint(2, 10)):
        pre = {k: True for k in rng.sample(keys, rng.randint(0, 3))}
        eff = {k: rng.random() < 0.7 for k in rng.sample(keys, rng.randint(1, 3))}
        cost = rng.choice([0, 1, 1, 2, 3, 0.5, 1.25])
        actions.append(ActionSpec(f"a{i}", pre, eff, cost=cost))
    goal = {k: True for k in rng.sample(keys, rng.randint(1, 3))}
    return compile_task(init, goal, actions)


@pytest.mark.parametrize("seed", range(300))
def test_lmcut_is_between_hmax_and_the_true_cost_on_random_tasks(seed: int) -> None:
    """On every reachable state of a random task, h^max <= LM-cut <= h* (C and Python, inherited or not)."""
    _check(_random_task(seed))


@pytest.mark.parametrize(
    "name",
    ["ipc-blocks-04", "ipc-gripper-02", "ipc-depot-01", "ipc-logistics-01", "ipc-movie-01", "ipc-psr-02"],
)
def test_lmcut_is_admissible_on_ipc_tasks(name: str) -> None:
    """On the reachable states of IPC tasks, LM-cut never exceeds h* nor falls below h^max."""
    from goap import load_problem

    problem = load_problem(f"{PROBLEMS}/ipc/{name}.json")
    task = compile_task(problem.initial, problem.goal.conditions, problem.actions)
    _check(task)
    data = json.loads(Path(f"{PROBLEMS}/ipc/{name}.json").read_text(encoding="utf-8"))
    assert LMCut(task).evaluate(task.initial, ())[0] <= data["optimal_cost"]


def _gripper_task() -> Task:
    """An IPC gripper task whose A* evaluates more states than the tie-break probes."""
    from goap import load_problem

    problem = load_problem(f"{PROBLEMS}/ipc/ipc-gripper-02.json")
    return compile_task(problem.initial, problem.goal.conditions, problem.actions)


def test_probing_keeps_the_larger_of_both_tie_breaks_then_uses_the_chosen_one() -> None:
    """While probing, a value is the larger of the two tie-breaks' values; afterwards only the chosen one runs."""
    task = _gripper_task()
    order, _ = _space(task)
    probing = LMCut(task, accelerated=False)
    by_id = LMCut(task, accelerated=False)
    by_id._tie_use = 1
    hashed = LMCut(task, accelerated=False)
    hashed._tie_use = 2
    for n, s in enumerate(order[: lmcut_module.TIE_PROBES + 50]):
        a, b = by_id.evaluate(s, ())[0], hashed.evaluate(s, ())[0]
        expected = max(a, b) if n < lmcut_module.TIE_PROBES else (b if probing._tie_use == 2 else a)
        assert probing.evaluate(s, ())[0] == expected
    assert probing._tie_use in (1, 2)
    assert probing._tie_probes == lmcut_module.TIE_PROBES


@pytest.mark.skipif(
    lmcut_module._core is None, reason="goap.planning._lmcut is not built (or GOAP_PURE_PYTHON=1)"
)
def test_c_and_python_choose_the_same_tie_break() -> None:
    """The C core and the Python LM-cut give the same value on every state, before and after the choice."""
    task = _gripper_task()
    order, _ = _space(task)
    assert len(order) > lmcut_module.TIE_PROBES + 100
    py, c = LMCut(task, accelerated=False), LMCut(task, accelerated=True)
    for s in order[: lmcut_module.TIE_PROBES + 100]:
        assert py.evaluate(s, ())[0] == c.evaluate(s, ())[0]
