"""Symmetry detection runs only once a search has expanded ``SYMMETRY_AFTER`` states.

Folding that starts mid-search keeps plans optimal and valid whatever the switch point, a search
that ends sooner never detects symmetry, and the same call always returns the same plan.
"""

from __future__ import annotations

from typing import Any

import pytest
from goap_tasks import gripper

from goap import ActionSpec, AStar, GoalSpec, plan
from goap.planning import _strategy as strategies_module
from goap.planning._compile import _cache


def _gripper(n: int) -> tuple[dict[str, Any], GoalSpec, list[ActionSpec]]:
    init, goal, acts = gripper([f"ball{i}" for i in range(1, n + 1)])
    return init, GoalSpec(goal), acts


def _replays(init: dict[str, Any], goal: GoalSpec, steps: Any) -> bool:
    state = dict(init)
    for a in steps:
        if not a.applicable(state):
            return False
        state = a.apply(state)
    return goal.satisfied_by(state)


@pytest.mark.parametrize("after", [1, 2, 3, 5, 8, 13, 16, 20, 40, 80])
def test_folding_from_any_expansion_keeps_plans_optimal(monkeypatch: pytest.MonkeyPatch, after: int) -> None:
    """Whenever detection starts, the plan is valid and as cheap as without symmetry."""
    monkeypatch.setattr(strategies_module, "SYMMETRY_AFTER", after)
    init, goal, acts = _gripper(5)
    _cache.clear()
    res = plan(init, goal, acts)
    plain = plan(init, goal, acts, AStar(symmetry=False))
    assert res.plan is not None and plain.plan is not None
    assert res.plan.cost == plain.plan.cost == 15.0
    assert _replays(init, goal, res.plan.actions)
    assert res.stats.symmetry_classes >= 1
    assert res.stats.expanded < plain.stats.expanded


def test_a_search_that_ends_before_the_threshold_detects_nothing() -> None:
    """A short search returns before symmetry detection would start."""
    init, goal, acts = _gripper(1)
    res = plan(init, goal, acts)
    assert res.plan is not None and res.plan.cost == 3.0
    assert res.stats.expanded <= strategies_module.SYMMETRY_AFTER
    assert res.stats.symmetry_classes == 0


def test_the_same_call_gives_the_same_plan() -> None:
    """Detection is triggered by a count, not a clock: repeated calls return the same plan."""
    init, goal, acts = _gripper(4)
    plans = set()
    for _ in range(3):
        _cache.clear()
        res = plan(init, goal, acts)
        assert res.plan is not None
        plans.add(tuple(a.name for a in res.plan.actions))
    assert len(plans) == 1
