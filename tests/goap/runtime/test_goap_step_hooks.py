"""`GoapGraph.step` (one node outside a run) and `never_replan` (no replanning at all)."""

from __future__ import annotations

from typing import Any

from goap import ActionSpec, GoalSpec, GoapGraph, GoapState


def _boom(world: dict[str, Any]) -> dict[str, Any]:
    raise RuntimeError("boom")


async def test_step_runs_one_node_and_returns_its_delta_and_route() -> None:
    """The planner node run alone returns the plan in its delta and routes to the executor."""
    g = GoapGraph(
        [
            ActionSpec("a", effects={"x": True}),
            ActionSpec("b", preconditions={"x": True}, effects={"y": True}),
        ]
    )
    s = GoapState(world_state={}, goal=GoalSpec({"y": True}))
    res = await g.step("planner", s)
    assert res.delta is not None and res.delta.plan == ["a", "b"]
    assert res.route is not None and res.route.target == "executor"
    s = g.engine.runtime().reducer(s, res.delta)
    res = await g.step("executor", s, step=2)
    assert res.delta is not None and res.delta.world_state == {"x": True}
    assert res.delta.execution_history[0].step == 2


async def test_never_replan_ends_failed_on_an_action_failure() -> None:
    """With never_replan a failed action ends the run `failed` instead of replanning."""
    g = GoapGraph([ActionSpec("a", effects={"x": True}, execute=_boom)], never_replan=True)
    final = await g.run("r", {}, GoalSpec({"x": True}))
    assert final.status == "failed"
    assert final.replan_reason == "action_failed"
    assert final.plans_made == 1


async def test_never_replan_ignores_deviations_and_keeps_executing() -> None:
    """With never_replan a deviation is not checked: the plan goes on to the goal."""
    acts = [
        ActionSpec("a", effects={"x": True, "z": 5}, execute=lambda w: {"x": True, "z": 1}),
        ActionSpec("b", preconditions={"x": True}, effects={"z": 2, "y": True}),
    ]
    g = GoapGraph(acts, never_replan=True)
    final = await g.run("r", {"z": 0}, GoalSpec({"y": True}))
    assert final.status == "achieved"
    assert final.plans_made == 1


async def test_blacklist_fallback_plans_with_a_blacklisted_action_and_clears_the_blacklist() -> None:
    """With blacklist_fallback, an action blacklisted after a transient failure is used again when needed."""
    calls = {"n": 0}

    def flaky(world: dict[str, Any]) -> dict[str, Any]:
        calls["n"] += 1
        if calls["n"] == 1:
            raise RuntimeError("transient")
        return {"x": True}

    acts = [ActionSpec("a", effects={"x": True}, execute=flaky)]
    g = GoapGraph(acts, blacklist_after=1, blacklist_fallback=True)
    final = await g.run("r", {}, GoalSpec({"x": True}))
    assert final.status == "achieved"
    assert final.blacklisted_actions == [] and final.action_failure_counts == {}
    calls["n"] = 0
    plain = await GoapGraph(acts, blacklist_after=1).run("r", {}, GoalSpec({"x": True}))
    assert plain.status == "no_plan"


def test_count_failure_counts_and_blacklists_at_the_threshold() -> None:
    """count_failure adds one failure and blacklists the action when its count reaches the threshold."""
    from goap.runtime._executor import count_failure

    assert count_failure({}, [], "a", 2) == ({"a": 1}, [])
    assert count_failure({"a": 1}, [], "a", 2) == ({"a": 2}, ["a"])
    assert count_failure({"a": 5}, ["a"], "a", 2) == ({"a": 6}, ["a"])
    assert count_failure({}, [], "a", 0) == ({"a": 1}, [])


async def test_parallel_graph_with_guards_runs_actions_one_by_one_under_them() -> None:
    """A graph guard is checked before every action even with parallel=True (no batch skips it)."""
    from goap import FunctionalGuard

    seen: list[str] = []

    def guard(action: Any, world: Any) -> bool:
        seen.append(action.name)
        return True

    acts = [ActionSpec("a", effects={"x": True}), ActionSpec("b", effects={"y": True})]
    g = GoapGraph(acts, parallel=True, guards=[FunctionalGuard("g", guard)])
    final = await g.run("r", {}, GoalSpec({"x": True, "y": True}))
    assert final.status == "achieved"
    assert sorted(seen) == ["a", "b"]


async def test_parallel_batch_retries_an_action_by_its_qos() -> None:
    """An action whose QoS allows retries runs in a parallel batch and is retried there."""
    from goap import ActionQos

    calls = {"flaky": 0, "other": 0}

    def flaky(world: dict[str, Any]) -> dict[str, Any]:
        calls["flaky"] += 1
        if calls["flaky"] < 3:
            raise TimeoutError("slow")
        return {"x": True}

    def other(world: dict[str, Any]) -> dict[str, Any]:
        calls["other"] += 1
        return {"y": True}

    acts = [
        ActionSpec("a", effects={"x": True}, execute=flaky, qos=ActionQos(attempts=3)),
        ActionSpec("b", effects={"y": True}, execute=other),
    ]
    final = await GoapGraph(acts, parallel=True).run("r", {}, GoalSpec({"x": True, "y": True}))
    assert final.status == "achieved"
    assert calls == {"flaky": 3, "other": 1}
    first, second = final.execution_history[:2]
    assert first.step == second.step  # one batch


async def test_any_rank_picks_the_goal_of_best_value_over_the_cheapest() -> None:
    """any_rank orders an "any" MultiGoal's plans: here by value minus cost, not cost alone."""
    from goap import MultiGoal

    acts = [
        ActionSpec("cheap", effects={"a": True}, cost=1.0),
        ActionSpec("dear", effects={"b": True}, cost=3.0),
    ]
    goal = MultiGoal((GoalSpec({"a": True}), GoalSpec({"b": True})), mode="any")
    value = [2.0, 10.0]
    g = GoapGraph(acts, any_rank=lambda i, r: -(value[i] - r.plan.cost))
    final = await g.run("r", {}, goal)
    assert [o.action for o in final.execution_history] == ["dear"]
    plain = await GoapGraph(acts).run("r", {}, goal)
    assert [o.action for o in plain.execution_history] == ["cheap"]


async def test_skip_unreachable_goes_on_with_the_next_sub_goal_that_has_a_plan() -> None:
    """With skip_unreachable a sequential MultiGoal skips a sub-goal without a plan instead of ending."""
    from goap import MultiGoal

    acts = [ActionSpec("eat", effects={"fed": True})]
    goal = MultiGoal((GoalSpec({"flying": True}), GoalSpec({"fed": True})), mode="sequential")
    final = await GoapGraph(acts, skip_unreachable=True).run("r", {"flying": False}, goal)
    assert final.status == "achieved"
    assert final.current_subgoal_index == 1
    assert [o.action for o in final.execution_history] == ["eat"]
    plain = await GoapGraph(acts).run("r", {"flying": False}, goal)
    assert plain.status == "no_plan"
