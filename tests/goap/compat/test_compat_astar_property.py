"""Property: goap.compat's A* entry points plan at the least cost a brute-force search finds.

For random small equality problems (hypothesis), the plan cost of ``GoapPlanner`` (the graph's
planner node, default strategy), ``AStarStrategy``, ``AnytimePlanningStrategy`` (goap's anytime
weighted A*, given time to finish), ``plan`` and ``plan`` with per-node tracing (which searches
the states themselves instead of compiling them for goap's A*) equals the cost of a
uniform-cost search over every reachable state written here. Blacklisting follows LangGOAP:
the blacklisted actions are left out first and used again only when nothing else reaches the goal.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import Any

import hypothesis.strategies as st
import pytest
from hypothesis import HealthCheck, given, settings

from goap.compat import ActionSpec, GoalSpec, GoapPlanner, PlanningState, plan
from goap.compat.planner.strategy import AnytimePlanningStrategy, AStarStrategy
from goap.compat.tracing import NullTracer

KEYS = ("a", "b", "c", "d")
VALUES = (0, 1, 2)

_facts = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=1)
_effects = st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), min_size=1, max_size=2)
_action = st.builds(
    lambda pre, eff, cost, rerun: {
        "preconditions": pre,
        "effects": eff,
        "cost": float(cost),
        "can_rerun": rerun,
    },
    _facts,
    _effects,
    st.integers(1, 4),
    st.booleans(),
)


@st.composite
def _problem(draw: st.DrawFn) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], list[int]]:
    """A start state, a goal, actions and blacklisted action indices; most goal facts are some
    action's effect, so that most problems have a plan (a goal fact nothing produces is still drawn)."""
    start = draw(st.dictionaries(st.sampled_from(KEYS), st.sampled_from(VALUES), max_size=4))
    actions: list[dict[str, Any]] = draw(st.lists(_action, min_size=1, max_size=8))
    produced: list[tuple[str, int]] = sorted({item for a in actions for item in a["effects"].items()})
    fact = st.tuples(st.sampled_from(KEYS), st.sampled_from(VALUES))
    goal = dict(
        draw(st.lists(st.sampled_from(produced) | st.sampled_from(produced) | fact, min_size=1, max_size=2))
    )
    return start, goal, actions, draw(st.lists(st.integers(0, 7), max_size=2))


def _cheapest(
    start: Mapping[str, Any], goal: Mapping[str, Any], specs: Sequence[dict[str, Any]]
) -> float | None:
    """Uniform-cost search over (facts, single-use actions spent): the least plan cost, or None."""
    first = (frozenset(start.items()), frozenset[int]())
    frontier: list[tuple[float, int, frozenset[tuple[str, Any]], frozenset[int]]] = [(0.0, 0, *first)]
    best: dict[tuple[frozenset[tuple[str, Any]], frozenset[int]], float] = {first: 0.0}
    tie = 1
    while frontier:
        cost, _, facts, spent = heapq.heappop(frontier)
        if cost > best[(facts, spent)]:
            continue
        if all(item in facts for item in goal.items()):
            return cost
        for i, s in enumerate(specs):
            if i in spent or not all(item in facts for item in s["preconditions"].items()):
                continue
            after = dict(facts)
            after.update(s["effects"])
            key = (frozenset(after.items()), spent if s["can_rerun"] else spent | {i})
            if cost + s["cost"] < best.get(key, math.inf):
                best[key] = cost + s["cost"]
                heapq.heappush(frontier, (cost + s["cost"], tie, *key))
                tie += 1
    return None


def _expected(
    start: Mapping[str, Any], goal: Mapping[str, Any], specs: list[dict[str, Any]], black: set[str]
) -> float | None:
    """LangGOAP's blacklisting: without the blacklisted actions when that reaches the goal, else with all."""
    if black:
        without = _cheapest(start, goal, [s for s in specs if s["name"] not in black])
        if without is not None:
            return without
    return _cheapest(start, goal, specs)


def _replayed(start: Mapping[str, Any], goal: Mapping[str, Any], steps: Sequence[ActionSpec]) -> float:
    state = PlanningState.from_dict(dict(start))
    total = 0.0
    for a in steps:
        assert state.satisfies(a.preconditions), f"{a.name} cannot run in {state.to_dict()}"
        total += a.get_cost(state.to_dict())
        state = state.apply(a.get_effects(state.to_dict()))
    assert state.satisfies(goal), f"the plan ends in {state.to_dict()}, not in {dict(goal)}"
    return total


@settings(max_examples=150, deadline=None, suppress_health_check=[HealthCheck.too_slow])
@given(_problem())
def test_every_astar_entry_point_plans_at_the_brute_force_cost(
    problem: tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]], list[int]],
) -> None:
    start, goal, raw, black_ix = problem
    specs = [{"name": f"act{i}", **s} for i, s in enumerate(raw)]
    black = {specs[i]["name"] for i in black_ix if i < len(specs)}
    want = _expected(start, goal, specs, black)
    actions = [ActionSpec(**s) for s in specs]
    goal_spec = GoalSpec(conditions=goal)
    state = PlanningState.from_dict(start)
    blacklist = sorted(black) or None

    found = {
        "plan": plan(state, goal_spec, actions, blacklist),
        "plan traced per node": plan(
            state, goal_spec, actions, blacklist, tracer=NullTracer(), record_expansions=True
        ),
        "AStarStrategy": AStarStrategy().plan(state, goal_spec, actions, blacklisted_actions=blacklist),
        # goap's AnytimeStrategy: its last round (weight 1) completes on problems this small, so
        # the plan is optimal too
        "AnytimePlanningStrategy": AnytimePlanningStrategy(30_000).plan(
            state, goal_spec, actions, blacklisted_actions=blacklist
        ),
    }
    if not black:  # the graph node reads the blacklist from failures of its own run, so none here
        found["GoapPlanner"] = GoapPlanner(actions)({"world_state": start, "goal": goal_spec}).get("plan")
    for name, got in found.items():
        where = f"{name}: start={start} goal={goal} actions={specs} blacklist={black}"
        if want is None:
            assert got is None, where
            continue
        assert got is not None, where
        assert got.total_cost == pytest.approx(want), where
        assert _replayed(start, goal, got.actions) == pytest.approx(got.total_cost), where
