"""Smoke tests: the package imports and solves a tiny problem."""

from __future__ import annotations

from goap import ActionSpec, GoalSpec, plan


def test_tiny_plan_is_found() -> None:
    """A two-step chain is planned in order."""
    acts = [ActionSpec("b", {"a": True}, {"b": True}), ActionSpec("a", {}, {"a": True})]
    res = plan({"a": False, "b": False}, GoalSpec({"b": True}), acts)
    assert res.status == "found"
    assert res.plan is not None
    assert res.plan.names == ("a", "b")
    assert res.plan.cost == 2.0
