"""The planning model: actions, conditions, goals, multi-goals, costs and search limits."""

from __future__ import annotations

from collections.abc import Mapping
from types import MappingProxyType
from typing import Any

import pytest
from goap_tasks import gripper

from goap import (
    ActionSpec,
    AStar,
    Compare,
    GoalSpec,
    GreedyBestFirst,
    ModelError,
    MultiGoal,
    add,
    eq,
    ge,
    gt,
    in_,
    le,
    lt,
    ne,
    plan,
    sub,
)
from goap.testing import simulate


def test_action_mappings_are_read_only() -> None:
    """Preconditions and effects are MappingProxyType, so a shared action cannot be mutated."""
    a = ActionSpec("a", {"x": 1}, {"y": 2})
    assert isinstance(a.preconditions, MappingProxyType)
    assert isinstance(a.effects, MappingProxyType)
    with pytest.raises(TypeError):
        a.effects["y"] = 3  # type: ignore[index]
    with pytest.raises(AttributeError):
        a.name = "b"  # type: ignore[misc]


@pytest.mark.parametrize("cost", [-1, float("nan"), float("inf"), "1", True])
def test_bad_cost_is_a_model_error(cost: Any) -> None:
    """Costs must be finite numbers >= 0 (or a CostFunction)."""
    with pytest.raises(ModelError, match="cost"):
        ActionSpec("a", {}, {"x": 1}, cost=cost)


def test_bad_condition_value_is_a_model_error() -> None:
    """Only scalars and condition objects are valid preconditions."""
    with pytest.raises(ModelError, match="unsupported value"):
        ActionSpec("a", {"x": [1]}, {})
    with pytest.raises(ModelError, match="unknown comparison"):
        Compare("~", 1)  # type: ignore[arg-type]


def test_condition_helpers_compare_like_python() -> None:
    """eq/ne/lt/le/gt/ge/in_ hold as their operators do, and never on an absent fact."""
    assert eq(2).holds(2) and not eq(2).holds(3)
    assert ne("x").holds("y") and not ne("x").holds("x") and not ne("x").holds(None)
    assert lt(3).holds(2) and le(3).holds(3) and gt(3).holds(4) and ge(3).holds(3)
    assert not lt(3).holds("a")
    assert in_({"a", "b"}).holds("a") and not in_({"a"}).holds(None)
    assert add(2).amount == 2 and sub(2).amount == -2


def test_duplicate_action_names_are_rejected() -> None:
    """Two actions with one name make plans ambiguous, so plan() refuses them."""
    acts = [ActionSpec("a", {}, {"x": 1}), ActionSpec("a", {}, {"x": 2})]
    with pytest.raises(ModelError, match="duplicate action name 'a'"):
        plan({"x": 0}, {"x": 2}, acts)


def test_add_on_non_number_is_a_model_error() -> None:
    """A numeric effect needs a numeric initial value (the type check names the str fact first)."""
    with pytest.raises(ModelError, match="fact 'x' is a str"):
        plan({"x": "a"}, {"x": ge(3)}, [ActionSpec("inc", {}, {"x": add(1)})])


def test_non_equality_conditions_are_planned_with() -> None:
    """ne/in_/lt conditions on finite facts are honoured by the planner."""
    acts = [
        ActionSpec("to_b", {"pos": "a"}, {"pos": "b"}),
        ActionSpec("to_c", {"pos": ne("a")}, {"pos": "c"}),
        ActionSpec("done", {"pos": in_({"c", "d"}), "level": lt(2)}, {"done": True}),
        ActionSpec("up", {}, {"level": 5}),
    ]
    res = plan({"pos": "a", "done": False, "level": 0}, {"done": True}, acts)
    assert res.plan is not None
    assert res.plan.names == ("to_b", "to_c", "done")


def test_numeric_effects_and_conditions() -> None:
    """Numeric add effects and comparisons plan to the least-cost plan."""
    acts = [
        ActionSpec("chop", {"axe": True}, {"wood": add(2)}),
        ActionSpec("gather", {}, {"wood": add(1)}),
        ActionSpec("buy_axe", {"gold": ge(2)}, {"axe": True, "gold": sub(2)}, cost=1.5),
        ActionSpec("build", {"wood": ge(7)}, {"house": True, "wood": sub(7)}, cost=2.0),
    ]
    init = {"wood": 0, "gold": 3, "axe": False, "house": False}
    res = plan(init, {"house": True}, acts)
    assert res.plan is not None
    assert res.plan.cost == pytest.approx(7.5)
    ok, cost, final = simulate(init, GoalSpec({"house": True}), res.plan.actions)
    assert ok and cost == pytest.approx(7.5)
    assert final["gold"] == 1


def test_cost_function_uses_state_and_min_cost() -> None:
    """A state-dependent cost is evaluated on the planned states; min_cost keeps A* optimal."""

    def far(state: Mapping[str, Any]) -> float:
        return 5.0 if state["tired"] else 1.0

    acts = [
        ActionSpec("walk", {"at": "home"}, {"at": "shop", "tired": True}, cost=far, min_cost=1.0),
        ActionSpec("rest", {"tired": True}, {"tired": False}, cost=1.0),
        ActionSpec("drive", {"at": "shop"}, {"at": "park"}, cost=far, min_cost=1.0),
    ]
    res = plan({"at": "home", "tired": False}, {"at": "park"}, acts)
    assert res.plan is not None
    assert res.plan.names == ("walk", "rest", "drive")
    assert res.plan.cost == pytest.approx(3.0)


def test_cost_function_below_min_cost_is_reported() -> None:
    """A cost function that breaks its declared lower bound is a ModelError, not a wrong plan."""
    acts = [ActionSpec("a", {}, {"x": True}, cost=lambda s: 0.5, min_cost=1.0)]
    with pytest.raises(ModelError, match="below min_cost"):
        plan({"x": False}, {"x": True}, acts)


def test_goal_already_satisfied_gives_empty_plan() -> None:
    """The empty plan is returned when the initial state satisfies the goal."""
    res = plan({"x": 1}, {"x": 1}, [ActionSpec("a", {}, {"x": 2})])
    assert res.plan is not None and res.plan.names == () and res.plan.cost == 0.0


def test_absent_fact_can_be_created() -> None:
    """A key absent from the initial state reads as None and can be set by an effect."""
    res = plan({}, {"made": True}, [ActionSpec("make", {"made": None}, {"made": True})])
    assert res.plan is not None and res.plan.names == ("make",)


def _chain(n: int) -> tuple[dict[str, Any], list[ActionSpec]]:
    init = {f"s{i}": i == 0 for i in range(n + 1)}
    acts = [ActionSpec(f"adv{i}", {f"s{i}": True}, {f"s{i + 1}": True}) for i in range(n)]
    return init, acts


def test_multigoal_all_plans_the_conjunction() -> None:
    """MultiGoal(mode='all') plans once for every goal's conditions together."""
    acts = [ActionSpec("a", {}, {"x": True}), ActionSpec("b", {}, {"y": True})]
    goal = MultiGoal((GoalSpec({"x": True}), GoalSpec({"y": True})), mode="all")
    res = plan({"x": False, "y": False}, goal, acts)
    assert res.plan is not None and sorted(res.plan.names) == ["a", "b"]


def test_multigoal_sequential_concatenates_legs() -> None:
    """MultiGoal(mode='sequential') plans goal by goal from the state the last leg left."""
    acts = [ActionSpec("on", {}, {"light": True}), ActionSpec("off", {"light": True}, {"light": False})]
    goal = MultiGoal((GoalSpec({"light": True}), GoalSpec({"light": False})))
    res = plan({"light": False}, goal, acts)
    assert res.plan is not None
    assert res.plan.names == ("on", "off")
    assert res.plan.cost == 2.0


def test_multigoal_conflict_is_a_model_error() -> None:
    """Goals that disagree on a key cannot be combined with mode='all'."""
    goal = MultiGoal((GoalSpec({"x": 1}), GoalSpec({"x": 2})), mode="all")
    with pytest.raises(ModelError, match="disagree"):
        plan({"x": 0}, goal, [])


def test_max_expansions_ends_with_budget_exhausted() -> None:
    """Hitting max_expansions returns budget_exhausted, not a hang or an error."""
    init, acts = _chain(50)
    res = plan(init, {"s50": True}, acts, AStar(heuristic="blind", max_expansions=10))
    assert res.status == "budget_exhausted"
    assert res.plan is None and res.explanation is None
    assert res.stats.expanded == 10


def test_timeout_ends_with_budget_exhausted() -> None:
    """An unbounded numeric search stops at its timeout."""
    acts = [ActionSpec("inc", {}, {"n": add(1)}), ActionSpec("dec", {}, {"n": add(-1)})]
    res = plan({"n": 0, "flag": False}, {"n": ge(10**9)}, acts, AStar(timeout=0.2))
    assert res.status == "budget_exhausted"
    assert res.stats.seconds < 2.0


def test_invalid_strategy_settings_are_model_errors() -> None:
    """Unknown heuristics, weights below 1 and bad limits are rejected early."""
    with pytest.raises(ModelError, match="unknown heuristic"):
        AStar(heuristic="magic")
    with pytest.raises(ModelError, match="weight"):
        AStar(weight=0.5)
    with pytest.raises(ModelError, match="max_expansions"):
        AStar(max_expansions=0)
    with pytest.raises(ModelError, match="timeout"):
        GreedyBestFirst(timeout=-1)


def test_inadmissible_modes_say_they_are_not_optimal() -> None:
    """Weighted A* and greedy search report optimal=False; default A* reports True."""
    init, acts = _chain(5)
    assert plan(init, {"s5": True}, acts).optimal
    assert not plan(init, {"s5": True}, acts, AStar(weight=2.0)).optimal
    assert not plan(init, {"s5": True}, acts, AStar(heuristic="ff")).optimal
    assert not plan(init, {"s5": True}, acts, GreedyBestFirst()).optimal


def test_symmetric_objects_plan_is_realized_on_real_objects() -> None:
    """With symmetry folding, the returned plan still names real, applicable actions."""
    init, goal_conditions, acts = gripper([f"b{i}" for i in range(6)])
    goal = GoalSpec(goal_conditions)
    res = plan(init, goal, acts)
    assert res.stats.symmetry_classes >= 1
    assert res.plan is not None and res.plan.cost == 17.0
    ok, cost, _ = simulate(init, goal, res.plan.actions)
    assert ok and cost == 17.0
    plain = plan(init, goal, acts, AStar(symmetry=False))
    assert plain.plan is not None and plain.plan.cost == 17.0
