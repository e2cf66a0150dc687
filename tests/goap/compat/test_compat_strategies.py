"""goap.compat's strategy wrappers: deadlines, lookahead and routing, on real searches."""

from __future__ import annotations

import threading
from typing import Any

import pytest
from compat_brute_force import replay_cost

from goap.compat import GoapGraph
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.strategy import (
    AnytimePlanningStrategy,
    AStarStrategy,
    CoreStrategy,
    LazyDecompositionStrategy,
)
from goap.compat.state import PlanningState
from goap.planning import GreedyBestFirst
from goap.strategies import Mcts

CHAIN = [
    ActionSpec(name="a", effects={"x": True}),
    ActionSpec(name="b", preconditions={"x": True}, effects={"y": True}),
    ActionSpec(name="c", preconditions={"y": True}, effects={"z": True}),
]


class _Stalls:
    """A strategy that never answers in time (it waits for ``release``)."""

    def __init__(self) -> None:
        self.release = threading.Event()
        self.returned = threading.Event()

    def plan(self, start: Any, goal: Any, actions: Any, **kwargs: Any) -> None:
        self.release.wait(60.0)
        self.returned.set()


def test_anytime_returns_none_at_the_deadline_without_waiting_for_the_inner_strategy() -> None:
    """A stalled inner strategy costs the caller the budget, not the stall."""
    inner = _Stalls()
    strategy = AnytimePlanningStrategy(50.0, inner=inner)
    try:
        assert strategy.plan(PlanningState.from_dict({}), GoalSpec(conditions={"z": True}), CHAIN) is None
        # The caller has its answer while the inner strategy still stalls (no clock is read: a
        # loaded machine delays both, but only the release ends the stall).
        assert not inner.returned.is_set()
    finally:
        inner.release.set()


def test_anytime_passes_a_timely_plan_through() -> None:
    """An inner strategy that finishes in time gives its plan unchanged."""
    plan = AnytimePlanningStrategy(5000.0).plan(
        PlanningState.from_dict({}), GoalSpec(conditions={"z": True}), CHAIN
    )
    assert plan is not None and plan.action_names == ["a", "b", "c"]


@pytest.mark.parametrize("lookahead", [1, 2, 3, 5])
def test_lazy_plan_is_the_full_plans_prefix_replayed_from_the_start(lookahead: int) -> None:
    """The kept actions are the full plan's first ones; states and cost are those of replaying them."""
    start, goal = PlanningState.from_dict({}), GoalSpec(conditions={"z": True})
    full = AStarStrategy().plan(start, goal, CHAIN)
    lazy = LazyDecompositionStrategy(lookahead=lookahead).plan(start, goal, CHAIN)
    assert full is not None and lazy is not None
    assert lazy.action_names == full.action_names[:lookahead]
    assert lazy.total_cost == pytest.approx(sum(a.get_cost({}) for a in lazy.actions))
    assert lazy.expected_states == full.expected_states[:lookahead]


def test_lazy_rejects_a_lookahead_below_one() -> None:
    """lookahead=0 is a ValueError naming the value."""
    with pytest.raises(ValueError, match="lookahead must be >= 1, got 0"):
        LazyDecompositionStrategy(lookahead=0)


@pytest.mark.parametrize("amount", [float("nan"), float("inf"), "10", True])
def test_a_resource_amount_that_is_not_a_finite_number_is_refused_by_name(amount: Any) -> None:
    """validate_plan names the action and the key instead of letting NaN pass every bound."""
    from goap.compat.goals import ConstraintSpec
    from goap.compat.planner.csp import validate_plan
    from goap.compat.planner.types import Plan

    bad = ActionSpec(name="spend", effects={"done": True}, resources={"tokens": amount})
    goal = GoalSpec(conditions={"done": True}, constraints=(ConstraintSpec(key="tokens", max=5),))
    with pytest.raises(ValueError, match=r"action 'spend': resources\['tokens'\] is .*finite numbers"):
        validate_plan(Plan(actions=(bad,)), goal)


@pytest.mark.parametrize(
    "make",
    [
        pytest.param(lambda left: GreedyBestFirst(), id="greedy"),
        pytest.param(lambda left: Mcts(seed=3), id="mcts"),
    ],
)
def test_core_strategy_runs_a_goap_strategy_inside_a_langgoap_graph(make: Any) -> None:
    """Any goap strategy plans a LangGOAP run through CoreStrategy: the graph reaches its goal with
    a plan that replays from the start, and LangGOAP's blacklist fallback still holds around it."""
    strategy = CoreStrategy(make)
    result = (
        GoapGraph(actions=CHAIN, strategy=strategy)
        .compile()
        .invoke({"goal": GoalSpec(conditions={"z": True}), "world_state": {}})
    )
    assert result["status"] == "goal_achieved"
    assert result["world_state"]["z"] is True
    start, goal = PlanningState.from_dict({}), GoalSpec(conditions={"z": True})
    plan = strategy.plan(start, goal, CHAIN, blacklisted_actions=["b"])  # only b reaches y: used again
    assert plan is not None and plan.action_names == ["a", "b", "c"]
    assert replay_cost({}, {"z": True}, plan.actions) == pytest.approx(plan.total_cost)
