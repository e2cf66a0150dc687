"""RepairStrategy, AnytimeStrategy, UtilityStrategy, MultiGoal(mode="any") and SoftGoal, by behaviour."""

from __future__ import annotations

import math
import re
from collections.abc import Mapping
from typing import Any

import pytest

from goap import (
    STRATEGIES,
    ActionSpec,
    AStar,
    CspPipeline,
    GoalSpec,
    GoapGraph,
    GreedyBestFirst,
    Mcts,
    ModelError,
    MultiGoal,
    PlanningStrategy,
    StrategyRouter,
    add,
    ge,
    plan,
)
from goap.planning._goals import SoftGoal, soft_score
from goap.strategies._anytime import AnytimeStrategy
from goap.strategies._repair import RepairStrategy
from goap.strategies._utility import UtilityStrategy
from graphengine.store import Store
from graphengine.testing import assert_replays


def roads() -> list[ActionSpec]:
    """Two ways to town: a -> b -> c -> town (cost 3), or a shortcut from home (cost 2)."""
    return [
        ActionSpec("to_a", {"at": "home"}, {"at": "a"}),
        ActionSpec("to_b", {"at": "a"}, {"at": "b"}),
        ActionSpec("to_c", {"at": "b", "bridge": True}, {"at": "c"}),
        ActionSpec("c_to_town", {"at": "c"}, {"at": "town"}),
        ActionSpec("b_to_town", {"at": "b"}, {"at": "town"}, cost=5),
        ActionSpec("shortcut", {"at": "home"}, {"at": "town"}, cost=2.5),
    ]


TOWN = GoalSpec({"at": "town"})


def test_repair_keeps_the_longest_valid_prefix_and_searches_the_suffix() -> None:
    """The bridge is out: repair keeps to_a, to_b and searches from b; planning from scratch takes the shortcut."""
    world = {"at": "home", "bridge": False}
    old = ("to_a", "to_b", "to_c", "c_to_town")
    res = RepairStrategy().repair(world, TOWN, roads(), old)
    assert res.plan is not None and res.plan.names == ("to_a", "to_b", "b_to_town")
    assert res.plan.cost == 7 and not res.optimal and res.strategy == "repair(astar(lmcut))"
    fresh = plan(world, TOWN, roads())
    assert fresh.plan is not None and fresh.plan.names == ("shortcut",)


def test_repair_falls_back_to_planning_from_scratch() -> None:
    """When no suffix completes the kept prefix, repair plans from the start (and may then be optimal)."""
    acts = [a for a in roads() if a.name != "b_to_town"]
    res = RepairStrategy(previous=("to_a", "to_b", "to_c")).solve({"at": "home", "bridge": False}, TOWN, acts)
    assert res.plan is not None and res.plan.names == ("shortcut",) and res.optimal


def test_repair_stops_the_prefix_at_a_blacklisted_action() -> None:
    """A blacklisted action ends the valid prefix: to_a is kept, the rest is searched from a."""
    acts = [*roads(), ActionSpec("a_to_town", {"at": "a"}, {"at": "town"}, cost=10)]
    old = ("to_a", "to_b", "to_c", "c_to_town")
    res = RepairStrategy().repair(
        {"at": "home", "bridge": True}, TOWN, acts, old, blacklist=frozenset({"to_b"})
    )
    assert res.plan is not None and res.plan.names == ("to_a", "a_to_town")


async def test_repair_strategy_in_a_run_keeps_what_was_still_to_do(store: Store) -> None:
    """In a run, a replan repairs the rest of the old plan; the lineage shows the kept prefix."""

    def collapse(world: Mapping[str, Any]) -> dict[str, Any]:
        return {"at": "b", "bridge": False}

    acts = [
        a if a.name != "to_b" else ActionSpec("to_b", {"at": "a"}, {"at": "b"}, execute=collapse)
        for a in roads()
    ]
    acts = [a for a in acts if a.name != "shortcut"] + [
        ActionSpec("shortcut", {"at": "a"}, {"at": "town"}, cost=4)
    ]
    g = GoapGraph(acts, store=store, strategy=RepairStrategy())
    final = await g.run("r", {"at": "home", "bridge": True}, TOWN)
    assert final.status == "achieved"
    v1, v2 = final.plan_lineage
    assert v1.plan == ["to_a", "to_b", "to_c", "c_to_town"]
    assert (v2.trigger, v2.plan, v2.removed) == ("deviation", ["b_to_town"], ["to_c", "c_to_town"])
    assert v2.solver["strategy"] == "repair(astar(lmcut))"
    await assert_replays(g.engine, "r")


def test_anytime_proves_optimality_when_time_allows() -> None:
    """With time to spare the last round has weight 1 and the plan is proved optimal; improvements are kept."""
    res = AnytimeStrategy(time_budget=10).solve({"at": "home", "bridge": True}, TOWN, roads())
    assert res.plan is not None and res.plan.names == ("shortcut",) and res.optimal
    assert res.candidates[-1] == res.plan
    assert all(b.cost < a.cost for a, b in zip(res.candidates, res.candidates[1:], strict=False))


def test_anytime_returns_the_best_plan_so_far_unproved_when_rounds_are_cut() -> None:
    """Without a weight-1 round the plan is returned but not claimed optimal."""
    res = AnytimeStrategy(time_budget=10, weights=(5.0, 3.0)).solve(
        {"at": "home", "bridge": True}, TOWN, roads()
    )
    assert res.plan is not None and not res.optimal


def test_anytime_reports_unreachable_goals_as_no_plan() -> None:
    """No plan at any weight is proven by the first round."""
    res = AnytimeStrategy(time_budget=1).solve({"at": "home"}, GoalSpec({"at": "moon"}), roads())
    assert res.status == "no_plan" and res.explanation is not None


def test_utility_takes_actions_by_net_value_until_none_pays() -> None:
    """Greedy: the best net value first, stopping when nothing has a positive one."""
    acts = [
        ActionSpec("coffee", {}, {"coffee": True}, cost=1, metadata={"value": 3}),
        ActionSpec("email", {}, {"inbox": 0}, cost=2),
        ActionSpec("report", {"coffee": True}, {"report": True}, cost=2),
        ActionSpec("nap", {}, {"rested": True}, cost=1, metadata={"value": 0.5}),
    ]
    soft = (
        SoftGoal({"report": True}, weight=5, name="report done"),
        SoftGoal({"inbox": 0}, weight=1, penalty=1),
    )
    res = UtilityStrategy(soft_goals=soft).solve({"inbox": 7}, GoalSpec(), acts)
    assert res.plan is not None and res.plan.names == ("coffee", "report")
    assert not res.optimal and res.strategy == "utility"
    assert soft_score({"report": True, "inbox": 0}, soft) == 6
    assert soft_score({}, soft) == -1


def test_utility_with_an_unmet_goal_proves_nothing() -> None:
    """A greedy run that misses a goal with conditions is budget_exhausted, not no_plan."""
    res = UtilityStrategy().solve({}, GoalSpec({"x": True}), [ActionSpec("x", {}, {"x": True}, cost=1)])
    assert res.status == "budget_exhausted" and res.plan is None


@pytest.mark.parametrize("name", ["repair", "anytime", "utility"])
def test_each_new_strategy_is_selectable_by_the_router(name: str) -> None:
    """A StrategyRouter whose classifier names the strategy uses it."""
    strategies: dict[str, PlanningStrategy] = {
        "repair": RepairStrategy(),
        "anytime": AnytimeStrategy(time_budget=5),
        "utility": UtilityStrategy(),
    }
    router = StrategyRouter(strategies=strategies, classifier=lambda features: name)
    res = router.solve({"at": "home", "bridge": True}, TOWN, roads() if name != "utility" else [])
    assert res.strategy.startswith(name) or res.strategy == strategies[name].name


def test_repair_and_anytime_are_registered() -> None:
    """The registry builds both by name."""
    assert isinstance(STRATEGIES["repair"](), RepairStrategy)
    assert isinstance(STRATEGIES["anytime"](), AnytimeStrategy)


def test_multigoal_any_plans_for_the_cheapest_goal() -> None:
    """mode="any": every goal is planned for and the cheapest plan wins."""
    acts = [
        ActionSpec("mine", {}, {"gold": add(1)}, cost=4),
        ActionSpec("chop", {}, {"wood": add(1)}, cost=1),
    ]
    goal = MultiGoal(
        (GoalSpec({"gold": ge(1)}, name="rich"), GoalSpec({"wood": ge(2)}, name="warm")), mode="any"
    )
    res = plan({"gold": 0, "wood": 0}, goal, acts)
    assert res.plan is not None and res.plan.names == ("chop", "chop") and res.plan.cost == 2


async def test_multigoal_any_in_a_run_ends_when_one_goal_holds(store: Store) -> None:
    """The run pursues the cheapest goal and is achieved as soon as any goal holds."""
    acts = [
        ActionSpec("mine", {}, {"gold": add(1)}, cost=4),
        ActionSpec("chop", {}, {"wood": add(1)}, cost=1),
    ]
    goal = MultiGoal((GoalSpec({"gold": ge(1)}), GoalSpec({"wood": ge(2)})), mode="any")
    g = GoapGraph(acts, store=store)
    final = await g.run("r", {"gold": 0, "wood": 0}, goal)
    assert final.status == "achieved" and final.current_subgoal_index == 1
    assert [o.action for o in final.execution_history] == ["chop", "chop"]
    await assert_replays(g.engine, "r")


def test_soft_goal_rejects_negative_weights() -> None:
    """Weights and penalties are >= 0."""
    from goap import ModelError

    with pytest.raises(ModelError):
        SoftGoal({"a": True}, weight=-1)


@pytest.mark.parametrize(
    ("make", "message"),
    [
        (lambda: Mcts(iterations=0), "iterations must be >= 1, got 0"),
        (lambda: Mcts(max_depth=0), "max_depth must be >= 1, got 0"),
        (lambda: CspPipeline(workers=0), "workers must be >= 1, got 0"),
        (
            lambda: CspPipeline(time_limit=-1.0),
            "time_limit must be a positive number of seconds or None, got -1.0",
        ),
        (lambda: UtilityStrategy(max_actions=0), "max_actions must be >= 1, got 0"),
        (lambda: AStar(timeout=0), "timeout must be a positive number of seconds or None, got 0"),
        (lambda: AStar(timeout="5"), "timeout must be a positive number of seconds or None, got '5'"),
        (
            lambda: AnytimeStrategy(time_budget=math.inf),
            "time_budget must be a positive number of seconds, got inf",
        ),
        (lambda: AnytimeStrategy(heuristic="nope"), "unknown heuristic 'nope'"),
        (lambda: GreedyBestFirst(heuristic="nope"), "unknown heuristic 'nope'"),
    ],
)
def test_strategy_settings_are_checked_with_one_wording(make: Any, message: str) -> None:
    """Every strategy refuses a bad setting with a ModelError naming it, in the same words."""
    with pytest.raises(ModelError, match=re.escape(message)):
        make()


def test_collection_settings_are_stored_frozen() -> None:
    """Lists given for collection settings are stored as immutable copies, so strategies stay hashable."""
    given = ["a"]
    mcts, anytime = Mcts(blacklist=given), AnytimeStrategy(weights=[2.0, 1.0])  # type: ignore[arg-type]
    given.append("b")
    assert mcts.blacklist == frozenset({"a"}) and anytime.weights == (2.0, 1.0)
    assert hash(mcts) == hash(Mcts(blacklist=frozenset({"a"}))) and hash(anytime)
