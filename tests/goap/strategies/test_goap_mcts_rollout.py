"""goap.strategies' rollout options for Mcts: shaped_reward and walk_rollout."""

from __future__ import annotations

import logging
from collections.abc import Mapping
from random import Random
from typing import Any

import pytest

from goap import ActionSpec, GoalSpec
from goap.strategies import Mcts, shaped_reward, walk_rollout

GOAL = GoalSpec({"a": True, "b": True})
ACTS = [
    ActionSpec("noop", {}, {"c": True}),
    ActionSpec("get_a", {}, {"a": True}),
    ActionSpec("get_b", {"a": True}, {"b": True}),
]


def test_shaped_reward_is_one_at_the_goal_else_minus_the_unmet_share() -> None:
    """The goal earns 1; one of two conditions unmet earns -0.5."""
    assert shaped_reward({"a": True, "b": True}, GOAL) == 1.0
    assert shaped_reward({"a": True}, GOAL) == -0.5


def test_shaped_reward_clamps_a_value_and_survives_its_failure(caplog: pytest.LogCaptureFixture) -> None:
    """A value is clamped below 1; a raising one is logged and the unmet share used instead."""
    assert shaped_reward({}, GOAL, lambda s: 5.0) == 0.999
    assert shaped_reward({}, GOAL, lambda s: -9.0) == -1.0

    def broken(state: Mapping[str, Any]) -> float:
        raise RuntimeError("no")

    with caplog.at_level(logging.WARNING, logger="goap.strategies.mcts"):
        assert shaped_reward({}, GOAL, broken) == -1.0
    assert any("heuristic" in r.message for r in caplog.records)


def test_greedy_walk_reaches_the_goal_within_its_depth() -> None:
    """Greedy steps skip the useless action: two steps reach the goal, one does not."""
    assert walk_rollout(GOAL, ACTS, depth=2)({}, Random(0)) == 1.0
    assert walk_rollout(GOAL, ACTS, depth=1)({}, Random(0)) == -0.5


def test_random_walk_is_seeded_and_mcts_plans_with_the_hook() -> None:
    """A random walk repeats under one seed; Mcts with the hook finds get_a, get_b."""
    rnd = walk_rollout(GOAL, ACTS, depth=3, greedy=False)
    assert rnd({}, Random(3)) == rnd({}, Random(3))
    result = Mcts(iterations=200, rollout=walk_rollout(GOAL, ACTS)).solve({}, GOAL, ACTS)
    assert result.plan is not None and result.plan.names == ("get_a", "get_b")
