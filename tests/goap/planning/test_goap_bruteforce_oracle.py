"""On small tasks the planner's cost equals a brute-force uniform-cost search written here.

The oracle is Dijkstra over plain dict states (no compilation, no heuristic, no symmetry), so it
shares no code with the planner. It checks the generated families at small sizes and, as a
hypothesis property, random tasks with interchangeable objects, in the C and the Python search
loop, with the symmetry switch at several points.
"""

from __future__ import annotations

import heapq
from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from goap_families import FAMILIES, Encoding
from goap_tasks import search_replayed
from hypothesis import HealthCheck, given, settings
from hypothesis import strategies as st

from goap import ActionSpec, AStar, GoalSpec, plan
from goap.planning import _strategy as strategies_module
from goap.planning._compile import _cache


def dijkstra(
    initial: Mapping[str, Any], goal: Mapping[str, Any], actions: Sequence[ActionSpec]
) -> float | None:
    """The least plan cost by uniform-cost search over dict states, or None when there is none."""
    keys = sorted(initial)
    plain = [(a.preconditions, a.effects, float(a.cost)) for a in actions]  # type: ignore[arg-type]
    start = tuple(initial[k] for k in keys)
    pos = {k: i for i, k in enumerate(keys)}
    best = {start: 0.0}
    heap: list[tuple[float, int, tuple[Any, ...]]] = [(0.0, 0, start)]
    tie = 0
    while heap:
        g, _, s = heapq.heappop(heap)
        if g > best[s]:
            continue
        if all(s[pos[k]] == v for k, v in goal.items()):
            return g
        for pre, eff, cost in plain:
            if all(s[pos[k]] == v for k, v in pre.items()):
                t = list(s)
                for k, v in eff.items():
                    t[pos[k]] = v
                child = tuple(t)
                ng = g + cost
                if ng < best.get(child, float("inf")):
                    best[child] = ng
                    tie += 1
                    heapq.heappush(heap, (ng, tie, child))
    return None


def _searched_cost(
    init: Mapping[str, Any], goal: Mapping[str, Any], acts: Sequence[ActionSpec], after: int, native: bool
) -> float | None:
    """The replayed cost of a searched plan (see `search_replayed`), or None for no plan."""
    out, cost = search_replayed(init, goal, acts, after, native)
    if out.status == "no_plan":
        return None
    assert out.status == "found" and cost is not None
    assert cost == pytest.approx(out.cost, abs=1e-9)
    return cost


_SMALL = [("gripper", 2), ("gripper", 4), ("logistics", 3), ("transport", 3), ("elevators", 4)]


@pytest.mark.parametrize("encoding", ["atoms", "values"])
@pytest.mark.parametrize(("family", "n"), _SMALL)
def test_small_families_cost_what_dijkstra_says(family: str, n: int, encoding: Encoding) -> None:
    """Small generated tasks: both loops, switch after 1, 3 or 20 expansions, cost the optimum."""
    init, goal, acts = FAMILIES[family](n, encoding)
    best = dijkstra(init, goal, acts)
    assert best is not None
    for after in (1, 3, 20):
        for native in (True, False):
            assert _searched_cost(init, goal, acts, after, native) == pytest.approx(best, abs=1e-9)


@st.composite
def symmetric_tasks(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """A robot with two hands moves objects between places on a random road map (random costs);
    the objects fall into one or two groups that start and end alike (so they are
    interchangeable within a group); one fact per object or one boolean fact per atom."""
    atoms = draw(st.booleans())
    nplaces = draw(st.integers(2, 3))
    places = [f"l{i}" for i in range(nplaces)]
    costs = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.0])
    # a ring of roads (so most tasks are solvable) plus random shortcuts, with random costs
    ring = {(places[i], places[(i + 1) % nplaces]) for i in range(nplaces)}
    roads = {
        (x, y): draw(costs)
        for x in places
        for y in places
        if x != y and ((x, y) in ring or draw(st.booleans()))
    }
    nobj = draw(st.integers(3, 4))
    groups = draw(st.integers(1, 2))
    objs = [f"o{i}" for i in range(nobj)]
    group = {o: min(i * groups // nobj, groups - 1) for i, o in enumerate(objs)}
    start = [draw(st.sampled_from(places)) for _ in range(groups)]
    # the first group has somewhere else to go; the second may have no goal
    target: list[str | None] = [draw(st.sampled_from([p for p in places if p != start[0]]))]
    target += [draw(st.sampled_from([*places, None])) for _ in range(groups - 1)]
    pick_cost = draw(costs)
    robot0 = draw(st.sampled_from(places))
    hands = ["left", "right"]
    where = [*places, *hands]
    init: dict[str, Any] = {}

    def fact(obj: str, value: str) -> dict[str, Any]:
        return {f"(at {obj} {value})": True} if atoms else {f"at_{obj}": value}

    def moved(obj: str, old: str, new: str) -> dict[str, Any]:
        return {f"(at {obj} {old})": False, f"(at {obj} {new})": True} if atoms else {f"at_{obj}": new}

    for o in objs:
        if atoms:
            init.update({f"(at {o} {w})": w == start[group[o]] for w in where})
        else:
            init[f"at_{o}"] = start[group[o]]
    if atoms:
        init.update({f"(at robot {p})": p == robot0 for p in places})
        init.update({f"(free {h})": True for h in hands})
    else:
        init["at_robot"] = robot0
        init.update({f"hand_{h}": "free" for h in hands})
    acts = [
        ActionSpec(f"(go {x} {y})", fact("robot", x), moved("robot", x, y), cost=c)
        for (x, y), c in roads.items()
    ]
    for h in hands:
        free = {f"(free {h})": True} if atoms else {f"hand_{h}": "free"}
        take = {f"(free {h})": False} if atoms else {f"hand_{h}": "busy"}
        for o in objs:
            for p in places:
                acts.append(
                    ActionSpec(
                        f"(pick {o} {p} {h})",
                        {**fact(o, p), **fact("robot", p), **free},
                        {**moved(o, p, h), **take},
                        cost=pick_cost,
                    )
                )
                acts.append(
                    ActionSpec(
                        f"(drop {o} {p} {h})",
                        {**fact(o, h), **fact("robot", p)},
                        {**moved(o, h, p), **free},
                        cost=1.0,
                    )
                )
    goal: dict[str, Any] = {}
    for o in objs:
        t = target[group[o]]
        if t is not None:
            goal.update(fact(o, t))
    return init, goal, acts


@settings(max_examples=60, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(task=symmetric_tasks(), after=st.sampled_from([1, 2, 3, 5, 20]))
def test_random_symmetric_tasks_cost_what_dijkstra_says(
    task: tuple[dict[str, Any], dict[str, Any], list[ActionSpec]], after: int
) -> None:
    """Random tasks with interchangeable objects: both loops, and plan() with the switch at
    ``after``, find a plan exactly when Dijkstra does, at its cost."""
    init, goal, acts = task
    best = dijkstra(init, goal, acts)
    for native in (True, False):
        got = _searched_cost(init, goal, acts, after, native)
        if best is None:
            assert got is None
        else:
            assert got == pytest.approx(best, abs=1e-9), native
    old = strategies_module.SYMMETRY_AFTER
    strategies_module.SYMMETRY_AFTER = after  # restored below: hypothesis forbids function fixtures
    try:
        _cache.clear()
        res = plan(init, GoalSpec(goal), acts)
    finally:
        strategies_module.SYMMETRY_AFTER = old
    if best is None:
        assert res.status == "no_plan"
    else:
        assert res.plan is not None and res.optimal
        assert res.plan.cost == pytest.approx(best, abs=1e-9)
    plain = plan(init, GoalSpec(goal), acts, AStar(symmetry=False))
    assert (plain.plan.cost if plain.plan is not None else None) == (
        pytest.approx(best, abs=1e-9) if best is not None else None
    )
