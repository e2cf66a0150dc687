"""goap.compat's plan(): langgoap's calling style and semantics, optimal plans from goap's A*.

Oracles: a brute-force Dijkstra written here (optimal cost), langgoap 0.1.2 itself (found or not,
and a cost never below ours: its heuristic counts unmet goal conditions, which can overestimate),
and replaying each plan from the start state.
"""

from __future__ import annotations

import math
import random
from collections.abc import Mapping
from typing import Any

import langgoap
import pytest
from compat_brute_force import cheapest_cost, replay_cost

from goap.compat import ActionSpec, GoalSpec, PlanningState, plan
from goap.planning import ModelError

KEYS = ("a", "b", "c", "d", "e")
VALUES = (True, False, 0, 1, 2)


def _random_problem(rng: random.Random) -> tuple[dict[str, Any], dict[str, Any], list[dict[str, Any]]]:
    start = {k: rng.choice(VALUES) for k in KEYS if rng.random() < 0.7}
    goal = {k: rng.choice(VALUES) for k in rng.sample(KEYS, rng.randint(1, 3))}
    actions = [
        {
            "name": f"act{i}",
            "preconditions": {k: rng.choice(VALUES) for k in rng.sample(KEYS, rng.randint(0, 2))},
            "effects": {k: rng.choice(VALUES) for k in rng.sample(KEYS, rng.randint(1, 2))},
            "cost": float(rng.randint(1, 3)),
            "can_rerun": rng.random() < 0.85,
        }
        for i in range(rng.randint(2, 8))
    ]
    return start, goal, actions


@pytest.mark.parametrize("seed", range(6))
def test_random_problems_match_brute_force_and_langgoap(seed: int) -> None:
    """On random equality problems the plan is optimal, replays to the goal, and is found exactly
    when langgoap finds one, never costing more than langgoap's."""
    rng = random.Random(seed)
    for case in range(40):
        start, goal, specs = _random_problem(rng)
        ours = plan(start, GoalSpec(goal), [ActionSpec(**s) for s in specs])
        theirs = langgoap.plan(start, langgoap.GoalSpec(goal), [langgoap.ActionSpec(**s) for s in specs])
        best = cheapest_cost(start, goal, specs)
        where = f"seed {seed} case {case}: start={start} goal={goal} actions={specs}"
        assert (ours is None) == (best is None) == (theirs is None), where
        if ours is not None and theirs is not None:
            assert replay_cost(start, goal, ours.actions) == pytest.approx(ours.total_cost), where
            assert ours.total_cost == pytest.approx(best), where
            assert ours.total_cost <= theirs.total_cost + 1e-9, where


def test_blacklisted_actions_are_avoided_then_used_when_nothing_else_reaches_the_goal() -> None:
    """A blacklist steers the plan away from an action, and is dropped when it blocks the goal."""
    cheap = ActionSpec("cheap", effects={"done": True}, cost=1)
    dear = ActionSpec("dear", effects={"done": True}, cost=5)
    assert plan({}, GoalSpec({"done": True}), [cheap, dear]).action_names == ["cheap"]
    assert plan({}, GoalSpec({"done": True}), [cheap, dear], ["cheap"]).action_names == ["dear"]
    assert plan({}, GoalSpec({"done": True}), [cheap], ["cheap"]).action_names == ["cheap"]


def test_state_dependent_costs_and_effects_are_planned_with_the_real_values() -> None:
    """Cost functions see the original (not interned) values; callable effects are planned too."""
    seen: list[Any] = []

    def cost(state: Mapping[str, Any]) -> float:
        seen.append(state.get("mode"))
        return 1.0 if state.get("mode") == "fast" else 10.0

    go = ActionSpec("go", preconditions={"ready": True}, effects={"there": True}, cost=cost)
    result = plan({"ready": True, "mode": "fast"}, GoalSpec({"there": True}), [go])
    assert result is not None and result.total_cost == 1.0
    assert "fast" in seen

    grow = ActionSpec(
        "grow", effects=lambda s: {"size": s.get("size", 0) + 1}, effect_keys=frozenset({"size"})
    )
    grown = plan({"size": 0}, GoalSpec({"size": 3}), [grow])
    assert grown is not None and grown.action_names == ["grow"] * 3


def test_a_single_use_action_runs_at_most_once() -> None:
    """``can_rerun=False`` keeps an action to one run, even where running it twice is cheapest."""
    step = ActionSpec("step", effects={"n": 1}, cost=1, can_rerun=False)
    step2 = ActionSpec("step2", preconditions={"n": 1}, effects={"n": 2}, cost=1)
    again = ActionSpec("again", preconditions={"n": 2}, effects={"n": 3}, cost=9)
    reuse = ActionSpec("reuse", preconditions={"n": 2}, effects={"n": 0}, cost=1)
    finish = ActionSpec("finish", preconditions={"n": 1, "twice": True}, effects={"done": True}, cost=1)
    mark = ActionSpec("mark", preconditions={"n": 0}, effects={"twice": True}, cost=1)
    result = plan({"n": 0}, GoalSpec({"done": True}), [step, step2, again, reuse, finish, mark])
    assert result is None or result.action_names.count("step") <= 1


def test_a_long_chain_is_planned() -> None:
    """A 300-step chain is found (deep plans are no trouble for the compiled search)."""
    chain = [ActionSpec(f"s{i}", preconditions={"at": i}, effects={"at": i + 1}) for i in range(300)]
    result = plan({"at": 0}, GoalSpec({"at": 300}), list(reversed(chain)))
    assert result is not None and len(result) == 300 and result.total_cost == 300


def test_repeated_names_are_allowed_and_the_cheaper_is_chosen() -> None:
    """Two actions may share a name (langgoap allows it); the cheaper one is planned."""
    result = plan(
        {},
        GoalSpec({"x": True}),
        [ActionSpec("x", effects={"x": True}, cost=3), ActionSpec("x", effects={"x": True}, cost=2)],
    )
    assert result is not None and result.total_cost == 2


@pytest.mark.parametrize("bad", [math.nan, math.inf, -1.0])
def test_a_bad_cost_is_a_model_error_naming_the_action(bad: float) -> None:
    """A negative, infinite or NaN cost raises ModelError naming the action, static or computed."""
    with pytest.raises(ModelError, match="action 'boom'"):
        plan({}, GoalSpec({"a": True}), [ActionSpec("boom", effects={"a": True}, cost=bad)])
    with pytest.raises(ModelError, match="action 'boom'"):
        plan({}, GoalSpec({"a": True}), [ActionSpec("boom", effects={"a": True}, cost=lambda s: bad)])
    dynamic = ActionSpec("boom", effects=lambda s: {"a": True}, effect_keys=frozenset({"a"}), cost=bad)
    with pytest.raises(ModelError, match="action 'boom'"):
        plan({}, GoalSpec({"a": True}), [dynamic])


def test_an_unhashable_value_is_a_model_error_naming_where() -> None:
    """A list in a goal or an effect raises ModelError naming the goal or the action and the key."""
    with pytest.raises(ModelError, match="goal conditions: 'a'"):
        plan({}, GoalSpec({"a": [1]}), [ActionSpec("x", effects={"a": True})])
    with pytest.raises(ModelError, match="action 'x': effects: 'a'"):
        plan({}, GoalSpec({"a": True}), [ActionSpec("x", effects={"a": [1]})])


def test_no_actions_or_a_met_goal() -> None:
    """No actions gives None; a goal the start already meets gives the empty plan."""
    assert plan({}, GoalSpec({"a": True}), []) is None
    done = plan({"a": True}, GoalSpec({"a": True}), [])
    assert done is not None and done.actions == () and done.total_cost == 0.0


def test_an_endless_state_space_gives_up_instead_of_running_forever() -> None:
    """A state-dependent effect that counts up forever toward an unreachable goal ends with None."""
    from goap.compat._search import search_states

    grow = ActionSpec("grow", effects=lambda s: {"n": s["n"] + 1}, effect_keys=frozenset({"n"}))
    start = PlanningState.from_dict({"n": 0})
    found, nodes = search_states(start, {"n": -1}, [grow], None, max_nodes=500)
    assert found is None and nodes == 500
