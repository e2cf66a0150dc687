"""Property: goap.compat's A* entry points plan at the least cost a brute-force search finds.

For random small equality problems (hypothesis), the plan cost of ``GoapPlanner`` (the graph's
planner node, default strategy), ``AStarStrategy``, ``TwoPhasePipelineStrategy`` and
``RepairStrategy`` (both A* here: no constraints, no prior plan), ``AnytimePlanningStrategy``
(goap's anytime weighted A*, given time to finish), ``plan`` and ``plan`` with per-node tracing
(which searches the states themselves instead of compiling them for goap's A*) equals the cost
of a uniform-cost search over every reachable state (``tests/compat_brute_force.py``).
Blacklisting follows LangGOAP: the blacklisted actions are left out first and used again only
when nothing else reaches the goal."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import hypothesis.strategies as st
import pytest
from compat_brute_force import cheapest_cost, replay_cost
from hypothesis import HealthCheck, given, settings

from goap.compat import ActionSpec, GoalSpec, GoapPlanner, PlanningState, plan
from goap.compat.planner.repair import RepairStrategy
from goap.compat.planner.strategy import AnytimePlanningStrategy, AStarStrategy, TwoPhasePipelineStrategy
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


def _expected(
    start: Mapping[str, Any], goal: Mapping[str, Any], specs: list[dict[str, Any]], black: set[str]
) -> float | None:
    """LangGOAP's blacklisting: without the blacklisted actions when that reaches the goal, else with all."""
    if black:
        without = cheapest_cost(start, goal, [s for s in specs if s["name"] not in black])
        if without is not None:
            return without
    return cheapest_cost(start, goal, specs)


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
        # without constraints the pipeline is its first search, and repair without a prior plan
        # is its inner A*
        "TwoPhasePipelineStrategy": TwoPhasePipelineStrategy().plan(
            state, goal_spec, actions, blacklisted_actions=blacklist
        ),
        "RepairStrategy": RepairStrategy().plan(state, goal_spec, actions, blacklisted_actions=blacklist),
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
        assert replay_cost(start, goal, got.actions) == pytest.approx(got.total_cost), where
