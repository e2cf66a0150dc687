"""MCTS: plans through expected outcomes, values them through sampled ones, deterministically."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import dataclass
from random import Random
from typing import Any

import pytest

from goap import (
    ActionSpec,
    AStar,
    DeterministicTransitionModel,
    DivergencePolicy,
    GoalSpec,
    GoapGraph,
    Mcts,
    ModelError,
    PlanningStrategy,
    plan,
)
from goap.testing import simulate
from graphengine.store import Store
from graphengine.testing import assert_replays

SAFE = {"hurt": False}
ACTIONS = [
    ActionSpec("jump", SAFE, {"across": True}, cost=1),
    ActionSpec("walk", SAFE, {"bridge": True}, cost=1),
    ActionSpec("cross", {"bridge": True, **SAFE}, {"across": True}, cost=1),
]
GOAL = GoalSpec({"across": True})
W0 = {"hurt": False, "bridge": False, "across": False}


RISK = DivergencePolicy("jumps usually fail", kind="risk-averse")


@dataclass(frozen=True, slots=True)
class Slippery(DeterministicTransitionModel):
    """Jumping fails 80% of the time and hurts (a dead end); everything else, the expected outcomes
    included, is as declared."""

    divergence_policy: DivergencePolicy | None = RISK

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """One draw: a jump hurts with probability 0.8."""
        if action.name == "jump" and rng.random() < 0.8:
            return {**state, "hurt": True}
        return action.apply(state)


def test_mcts_is_a_planning_strategy() -> None:
    """Mcts satisfies the PlanningStrategy protocol."""
    assert isinstance(Mcts(), PlanningStrategy)


def test_astar_takes_the_risky_jump_mcts_walks() -> None:
    """Declared effects make the jump cheapest; sampled outcomes make MCTS prefer the bridge."""
    risky = plan(W0, GOAL, ACTIONS, AStar())
    assert risky.plan is not None and risky.plan.names == ("jump",)
    safe = plan(W0, GOAL, ACTIONS, Mcts(transition_model=Slippery(), iterations=300))
    assert safe.plan is not None and safe.plan.names == ("walk", "cross")
    assert not safe.optimal and safe.strategy.startswith("mcts")


def test_deterministic_model_plans_reach_the_goal() -> None:
    """Without a model MCTS plans on the declared effects, and its plan replays to the goal."""
    acts = [
        ActionSpec("fetch", {}, {"src": True}),
        ActionSpec("build", {"src": True}, {"built": True}, cost=2),
        ActionSpec("sign", {"built": True}, {"signed": True}),
        ActionSpec("publish", {"signed": True}, {"published": True}),
        ActionSpec("noise", {}, {"noise": True}),
    ]
    goal = GoalSpec({"published": True})
    res = plan({}, goal, acts, Mcts(iterations=400))
    assert res.plan is not None
    ok, cost, _ = simulate({}, goal, res.plan.actions)
    assert ok and cost == pytest.approx(res.plan.cost)


def test_same_seed_same_plan() -> None:
    """Two searches with one seed give the same plan and the same counters."""
    a = plan(W0, GOAL, ACTIONS, Mcts(transition_model=Slippery(), iterations=200, seed=3))
    b = plan(W0, GOAL, ACTIONS, Mcts(transition_model=Slippery(), iterations=200, seed=3))
    assert (
        a.plan == b.plan and a.stats.expanded == b.stats.expanded and a.stats.generated == b.stats.generated
    )


def test_unreachable_goal_is_no_plan_with_explanation() -> None:
    """Relaxed reachability answers before any search."""
    res = plan(W0, GoalSpec({"flying": True}), ACTIONS, Mcts())
    assert res.status == "no_plan" and res.explanation is not None
    assert res.explanation.unreachable_conditions == ("flying",)


def test_blacklisted_actions_are_never_planned() -> None:
    """A blacklisted action is not in the plan."""
    res = plan(W0, GOAL, ACTIONS, Mcts(iterations=200), blacklist={"jump"})
    assert res.plan is not None and "jump" not in res.plan.names


def test_iteration_budget_without_a_goal_path_is_budget_exhausted() -> None:
    """One iteration cannot reach a three-step goal: budget_exhausted, not a wrong plan."""
    acts = [ActionSpec(f"s{i}", {f"f{i}": True}, {f"f{i + 1}": True}) for i in range(3)]
    res = plan({"f0": True}, GoalSpec({"f3": True}), acts, Mcts(iterations=1, max_depth=2))
    assert res.status == "budget_exhausted" and res.plan is None


def test_bad_settings_are_model_errors() -> None:
    """Iterations, depth and bias are checked."""
    with pytest.raises(ModelError):
        Mcts(iterations=0)
    with pytest.raises(ModelError):
        Mcts(greedy_bias=2.0)


async def test_goap_graph_runs_with_mcts(store: Store) -> None:
    """A GoapGraph planning with MCTS over the slippery model walks across and replays."""
    model = Slippery()
    g = GoapGraph(
        ACTIONS, strategy=Mcts(transition_model=model, iterations=300), transition_model=model, store=store
    )
    final = await g.run("mcts", W0, GOAL)
    assert final.status == "achieved"
    assert [o.action for o in final.execution_history] == ["walk", "cross"]
    await assert_replays(g.engine, "mcts")
