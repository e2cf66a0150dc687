"""Strategy routing: one test per rule, custom classifiers, the decision in PlanResult, GoapGraph."""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import replace
from random import Random
from typing import Any

import pytest

from goap import (
    ActionSpec,
    AStar,
    CspPipeline,
    DeterministicTransitionModel,
    DivergencePolicy,
    GoalSpec,
    GoapGraph,
    Mcts,
    ModelError,
    PlanningStrategy,
    ProblemFeatures,
    ResourceConstraint,
    RuleBasedClassifier,
    StrategyRouter,
    extract_features,
    plan,
)
from graphengine.store import Store
from graphengine.testing import assert_replays

BASE = ProblemFeatures(
    action_count=5,
    horizon_estimate=5,
    goal_condition_count=1,
    unsatisfied_goal_conditions=1,
    risk_profile="strict",
    is_stochastic=False,
    has_hard_constraints=False,
    has_soft_objectives=False,
    has_trajectory_metrics=False,
)
ACTS = [ActionSpec("a", {}, {"x": True}, resources={"budget": 2}), ActionSpec("b", {"x": True}, {"y": True})]
GOAL = GoalSpec({"y": True})


class Noisy:
    """A stochastic model whose expectation is the declared effects."""

    def __init__(self, kind: Any = "other") -> None:
        self.divergence_policy = DivergencePolicy("noisy sensors", kind=kind)

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        """The declared effects."""
        return action.apply(state)

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        """The declared effects."""
        return action.apply(state)


@pytest.mark.parametrize(
    ("changes", "expected"),
    [
        ({"has_hard_constraints": True}, "csp-pipeline"),
        ({"has_soft_objectives": True}, "csp-pipeline"),
        ({"has_trajectory_metrics": True}, "csp-pipeline"),
        ({"has_hard_constraints": True, "risk_profile": "risk-averse"}, "csp-pipeline"),
        ({"is_stochastic": True, "risk_profile": "risk-averse"}, "mcts"),
        ({"risk_profile": "risk-averse"}, "astar"),
        ({"is_stochastic": True}, "astar"),
        ({"is_stochastic": True, "action_count": 30, "horizon_estimate": 20}, "mcts"),
        ({"is_stochastic": True, "action_count": 30, "horizon_estimate": 19}, "astar"),
        ({"action_count": 30, "horizon_estimate": 20}, "astar"),
        ({"action_count": 300, "horizon_estimate": 3000, "risk_profile": "risk-averse"}, "astar"),
        ({}, "astar"),
    ],
)
def test_rule_based_classifier_rules_in_order(changes: dict[str, Any], expected: str) -> None:
    """Each rule fires on its features, earlier rules first; stochastic alone stays on A*, and with
    deterministic transitions the choice is A* (never MCTS), however wide or deep the problem."""
    assert RuleBasedClassifier()(replace(BASE, **changes)) == expected


def test_stochastic_goes_to_mcts_when_preferred() -> None:
    """Rule 3 fires only with prefer_mcts_for_stochastic."""
    name, reason = RuleBasedClassifier(prefer_mcts_for_stochastic=True).decide(
        replace(BASE, is_stochastic=True)
    )
    assert name == "mcts" and reason.startswith("rule 3")


def test_features_are_read_from_the_problem() -> None:
    """Constraints, durations, the model and the blacklist shape the features."""
    acts = [*ACTS, ActionSpec("slow", {}, {"z": True}, duration=3)]
    f = extract_features(
        {}, GOAL, acts, transition_model=Noisy("risk-averse"), blacklist=frozenset({"b"}), constraints=None
    )
    assert (f.action_count, f.goal_condition_count, f.unsatisfied_goal_conditions) == (2, 1, 1)
    assert f.has_trajectory_metrics and f.is_stochastic and f.risk_profile == "risk-averse"
    assert not f.has_hard_constraints
    assert not extract_features({}, GOAL, ACTS, transition_model=DeterministicTransitionModel()).is_stochastic


def test_router_is_a_planning_strategy_and_reports_its_decision() -> None:
    """The router plans with A* by default and says so, with the rule and the features."""
    router = StrategyRouter()
    assert isinstance(router, PlanningStrategy)
    res = plan({}, GOAL, ACTS, router)
    assert res.plan is not None and res.plan.names == ("a", "b")
    assert res.routing is not None and res.routing.chosen == "astar"
    assert res.routing.reason == "rule 5: default"
    assert res.strategy == "astar(lmcut)"


def test_router_sends_constrained_problems_to_the_pipeline() -> None:
    """A pipeline with a hard constraint among the strategies makes rule 1 fire."""
    pipe = CspPipeline(constraints=(ResourceConstraint("budget", max=5),))
    router = StrategyRouter({"astar": AStar(), "csp-pipeline": pipe})
    res = plan({}, GOAL, ACTS, router)
    assert res.routing is not None and res.routing.chosen == "csp-pipeline"
    assert "hard constraints" in res.routing.reason
    assert res.solver is not None and res.solver.status == "OPTIMAL"


def test_router_gives_its_model_to_the_default_mcts() -> None:
    """With a risk-averse model the default MCTS is chosen and samples from that model."""
    model = Noisy("risk-averse")
    router = StrategyRouter(transition_model=model)
    mcts = router.strategies["mcts"]
    assert isinstance(mcts, Mcts) and mcts.transition_model is model
    res = plan({}, GOAL, ACTS, router)
    assert res.routing is not None and res.routing.chosen == "mcts"
    assert res.plan is not None and res.plan.names == ("a", "b")


def test_any_callable_is_a_classifier() -> None:
    """A plain function of the features routes, and the reason names it."""

    def always_mcts(f: ProblemFeatures) -> str:
        return "mcts"

    res = plan({}, GOAL, ACTS, StrategyRouter(classifier=always_mcts))
    assert res.routing is not None and res.routing.chosen == "mcts"
    assert "always_mcts" in res.routing.reason


def test_unknown_strategy_raises_or_falls_back() -> None:
    """An unregistered name raises by default, or falls back to ``default`` and records the request."""
    with pytest.raises(ModelError, match="'nope', which is not registered"):
        plan({}, GOAL, ACTS, StrategyRouter(classifier=lambda f: "nope"))
    router = StrategyRouter(classifier=lambda f: "nope", on_unknown="default")
    res = plan({}, GOAL, ACTS, router)
    assert res.routing is not None and res.routing.chosen == "astar" and res.routing.requested == "nope"


def test_routing_is_pure() -> None:
    """Routing twice gives equal decisions and leaves the router unchanged."""
    router = StrategyRouter()
    before = repr(router)
    assert router.route({}, GOAL, ACTS) == router.route({}, GOAL, ACTS)
    assert repr(router) == before


async def test_goap_graph_runs_with_the_router(store: Store) -> None:
    """A GoapGraph routing through the pipeline reaches the goal and replays."""
    pipe = CspPipeline(constraints=(ResourceConstraint("budget", max=5),))
    g = GoapGraph(ACTS, strategy=StrategyRouter({"astar": AStar(), "csp-pipeline": pipe}), store=store)
    final = await g.run("routed", {}, GOAL)
    assert final.status == "achieved"
    await assert_replays(g.engine, "routed")
