"""AStar's hooks for adapters: tie_break="fifo", the goalcount heuristic, on_expand events and
state-computed effects (ActionSpec.effect_fn / effect_keys)."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from goap.planning import ActionSpec, AStar, ModelError, SearchEvent, plan


def _two_independent() -> list[ActionSpec]:
    return [
        ActionSpec("dear", effects={"b": True}, cost=5.0),
        ActionSpec("cheap", effects={"a": True}, cost=1.0),
    ]


def test_default_ties_prefer_smaller_h() -> None:
    """With the default tie-break, the node closer to the goal goes first: the dear action first."""
    res = plan({"a": False, "b": False}, {"a": True, "b": True}, _two_independent(), AStar())
    assert res.plan is not None and res.plan.names == ("dear", "cheap")


def test_fifo_ties_with_goalcount_take_the_earlier_node() -> None:
    """tie_break="fifo" with goalcount expands in generation order: the cheap action first."""
    strat = AStar(heuristic="goalcount", tie_break="fifo")
    res = plan({"a": False, "b": False}, {"a": True, "b": True}, _two_independent(), strat)
    assert res.plan is not None and res.plan.names == ("cheap", "dear")
    assert res.plan.cost == 6.0 and not res.optimal


def test_unknown_tie_break_is_refused() -> None:
    """Only "h" and "fifo" are tie-breaks."""
    with pytest.raises(ModelError):
        AStar(tie_break="lifo")  # type: ignore[arg-type]


def test_on_expand_reports_each_taken_node_with_lineage() -> None:
    """on_expand sees the root (no parent) and then each child with its parent and action."""
    seen: list[SearchEvent] = []
    acts = [ActionSpec("ab", {"a": True}, {"b": True}), ActionSpec("bc", {"b": True}, {"c": True})]
    res = plan({"a": True, "b": False, "c": False}, {"c": True}, acts, AStar(on_expand=seen.append))
    assert res.plan is not None and res.plan.names == ("ab", "bc")
    assert seen[0].parent is None and seen[0].action is None and seen[0].g == 0.0
    ids = {e.node: e for e in seen}
    last = seen[-1]
    assert last.action == "bc" and last.state["c"] is True
    assert ids[last.parent].action == "ab"  # type: ignore[index]
    assert len(seen) == res.stats.expanded + 1  # the goal node is reported too


def _decrement(state: Mapping[str, Any]) -> dict[str, Any]:
    return {"n": state["n"] - 1}


def test_effect_fn_plans_repeated_state_dependent_steps() -> None:
    """An effect computed from the state can be applied again and again until the goal holds."""
    dec = ActionSpec("dec", effect_fn=_decrement, effect_keys=frozenset({"n"}))
    res = plan({"n": 3}, {"n": 0}, [dec], AStar())
    assert res.plan is not None and res.plan.names == ("dec", "dec", "dec")
    assert dec.apply({"n": 3}) == {"n": 2}


def test_effect_fn_may_write_any_value_and_mix_with_static_effects() -> None:
    """An open fact can take values no static effect names; static effects apply too."""
    tag = ActionSpec(
        "tag", effects={"tagged": True}, effect_fn=lambda s: {"label": f"{s['who']}!"}, effect_keys={"label"}
    )
    res = plan({"who": "ann", "tagged": False}, {"label": "ann!", "tagged": True}, [tag], AStar())
    assert res.plan is not None and res.plan.names == ("tag",)


def test_effect_fn_goal_is_not_declared_unreachable() -> None:
    """Relaxed reachability counts effect_keys as producible with any value."""
    mk = ActionSpec("mk", effect_fn=lambda s: {"x": 7}, effect_keys=frozenset({"x"}))
    assert plan({}, {"x": 7}, [mk], AStar()).found
    res = plan({}, {"y": 1}, [mk], AStar())
    assert res.status == "no_plan" and res.explanation is not None


def test_effect_fn_needs_its_keys_and_stays_inside_them() -> None:
    """effect_fn and effect_keys go together; writing another key is a ModelError."""
    with pytest.raises(ModelError):
        ActionSpec("bad", effect_fn=_decrement)
    with pytest.raises(ModelError):
        ActionSpec("bad", effect_keys=frozenset({"n"}))
    stray = ActionSpec("stray", effect_fn=lambda s: {"m": 1}, effect_keys=frozenset({"n"}))
    with pytest.raises(ModelError):
        stray.apply({"n": 1})


def test_prune_false_keeps_irrelevant_actions_in_the_search() -> None:
    """With prune=False the search also expands what relevance pruning would drop; the plan is the same."""
    acts = [
        ActionSpec("ab", {"a": True}, {"b": True}, cost=2.0),
        ActionSpec("side", {"a": True}, {"x": True}),
    ]
    start = {"a": True, "b": False, "x": False}
    for prune, expect in ((True, set()), (False, {"side"})):
        seen: list[SearchEvent] = []
        res = plan(start, {"b": True}, acts, AStar(heuristic="blind", prune=prune, on_expand=seen.append))
        assert res.plan is not None and res.plan.names == ("ab",)
        assert {e.action for e in seen} - {None, "ab"} == expect
