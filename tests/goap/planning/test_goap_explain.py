"""No-plan explanations: each unreachable goal condition is named with its reason."""

from __future__ import annotations

import json

from goap import ActionSpec, AStar, GoalSpec, NoPlanExplanation, ge, plan


def test_missing_producer_is_explained_without_search() -> None:
    """A goal value no action produces is reported as 'no_producer' by relaxed reachability."""
    acts = [ActionSpec("make_a", {}, {"a": True})]
    res = plan({"a": False, "c": False}, GoalSpec({"c": True}), acts)
    assert res.status == "no_plan"
    why = res.explanation
    assert why is not None
    assert why.proof == "relaxed"
    assert res.stats.expanded == 0
    assert [(u.key, u.reason) for u in why.unreachable] == [("c", "no_producer")]
    assert "no action produces it" in why.message


def test_cyclic_preconditions_are_named() -> None:
    """Producers whose preconditions are unreachable are listed with those preconditions."""
    acts = [
        ActionSpec("get_key", {"door": True}, {"key": True}),
        ActionSpec("open_door", {"key": True}, {"door": True}),
        ActionSpec("take", {"door": True}, {"treasure": True}),
    ]
    res = plan({"key": False, "door": False, "treasure": False}, {"treasure": True}, acts)
    why = res.explanation
    assert why is not None
    (u,) = why.unreachable
    assert u.reason == "unreachable_preconditions"
    assert u.producers == ("take",)
    assert u.unreachable_preconditions == ("door == True",)


def test_blacklisted_only_producer_is_reported() -> None:
    """When the only producer is blacklisted, the explanation says so."""
    acts = [ActionSpec("make", {}, {"x": True}), ActionSpec("other", {}, {"y": True})]
    res = plan({"x": False, "y": False}, {"x": True}, acts, blacklist={"make"})
    why = res.explanation
    assert why is not None
    (u,) = why.unreachable
    assert u.reason == "blacklisted_producer"
    assert u.blacklisted_producers == ("make",)
    assert "blacklisted" in u.message


def test_blacklist_on_the_strategy_is_honoured() -> None:
    """A blacklist given to the strategy works like one given to plan()."""
    acts = [ActionSpec("make", {}, {"x": True})]
    res = plan({"x": False}, {"x": True}, acts, AStar(blacklist=frozenset({"make"})))
    assert res.status == "no_plan"


def test_numeric_condition_without_producer_is_unreachable() -> None:
    """A numeric goal on a fact nothing changes is decided by relaxed reachability."""
    res = plan({"n": 0}, {"n": ge(3)}, [ActionSpec("noop", {}, {"m": True})])
    why = res.explanation
    assert why is not None
    assert why.unreachable[0].reason == "no_producer"
    assert why.unreachable[0].condition == {"op": ">=", "value": 3}


def test_jointly_unreachable_goal_needs_exhaustive_search() -> None:
    """Goal conditions reachable alone but not together are proven by exhaustive search."""
    acts = [ActionSpec("left", {}, {"side": "L"}), ActionSpec("right", {}, {"side": "R"})]
    acts.append(ActionSpec("flag", {"side": "L"}, {"f": True, "side": "R"}))
    res = plan({"side": "R", "f": False, "g": False}, {"f": True, "side": "L", "g": False}, acts)
    assert res.status == "found"
    acts2 = [ActionSpec("l", {}, {"a": 1, "b": 0}), ActionSpec("r", {}, {"a": 0, "b": 1})]
    res2 = plan({"a": 0, "b": 0}, {"a": 1, "b": 1}, acts2)
    why = res2.explanation
    assert why is not None
    assert why.proof == "exhaustive"
    assert {u.reason for u in why.unreachable} == {"jointly_unreachable"}
    assert "together" in why.message


def test_explanation_round_trips_through_json() -> None:
    """to_dict() is JSON-safe and from_dict() rebuilds an equal explanation."""
    acts = [ActionSpec("take", {"door": True}, {"treasure": True}), ActionSpec("b", {}, {"n": 1})]
    res = plan({"door": False, "treasure": False, "n": 0}, {"treasure": True, "n": ge(1)}, acts)
    why = res.explanation
    assert why is not None
    data = json.loads(json.dumps(why.to_dict()))
    back = NoPlanExplanation.from_dict(data)
    assert back == why
    assert back.message == why.message
    assert back.unreachable_conditions == ("treasure",)
