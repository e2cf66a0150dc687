"""goap.compat's GOAP loop graph next to LangGOAP 0.1.2's: the same scenarios on both, compared.

Each scenario builds its actions and goal with one side's classes, runs that side's GoapGraph
and returns what a user reads from the final state.
"""

from __future__ import annotations

from typing import Any

import pytest

langgoap = pytest.importorskip("langgoap")

import goap.compat as compat  # noqa: E402


def _both(scenario: Any) -> tuple[Any, Any]:
    return scenario(langgoap), scenario(compat)


def _summary(out: dict[str, Any]) -> dict[str, Any]:
    return {
        "status": out["status"],
        "world": out["world_state"],
        "ran": [(r.action_name, r.success) for r in out["execution_history"]],
        "replans": out.get("replan_count", 0),
        "plan": out["plan"].action_names if out.get("plan") is not None else None,
    }


def _pipeline(m: Any, execute: Any = None) -> list[Any]:
    return [
        m.ActionSpec(name="fetch", effects={"raw": True}, execute=execute),
        m.ActionSpec(name="clean", preconditions={"raw": True}, effects={"clean": True}),
        m.ActionSpec(name="report", preconditions={"clean": True}, effects={"done": True}, cost=2.0),
    ]


def test_pipeline_reaches_the_goal_with_the_same_history() -> None:
    """A three-step pipeline ends goal_achieved with the same world, history and plan."""

    def run(m: Any) -> dict[str, Any]:
        g = m.GoapGraph(actions=_pipeline(m)).compile()
        return _summary(g.invoke({"goal": m.GoalSpec(conditions={"done": True}), "world_state": {}}))

    lg, ours = _both(run)
    assert lg == ours


def test_transient_failure_is_replanned_around() -> None:
    """An action failing once is blacklisted, planned again anyway (no other way) and succeeds."""

    def run(m: Any) -> dict[str, Any]:
        calls = {"n": 0}

        def flaky(ws: dict[str, Any]) -> dict[str, Any]:
            calls["n"] += 1
            if calls["n"] == 1:
                raise RuntimeError("transient")
            return {"raw": True}

        g = m.GoapGraph(actions=_pipeline(m, flaky)).compile()
        out = g.invoke({"goal": m.GoalSpec(conditions={"done": True}), "world_state": {}})
        s = _summary(out)
        s["errors"] = [r.error for r in out["execution_history"] if not r.success]
        return s

    lg, ours = _both(run)
    assert lg == ours


def test_unreachable_goal_ends_no_plan() -> None:
    """A goal no action reaches ends with status no_plan and no history."""

    def run(m: Any) -> tuple[str, int]:
        out = m.GoapGraph(actions=_pipeline(m)).invoke(m.GoalSpec(conditions={"moon": True}), {})
        return out["status"], len(out["execution_history"])

    assert run(langgoap) == run(compat) == ("no_plan", 0)


def test_never_policy_stops_on_the_first_failure() -> None:
    """ReplanStrategy.NEVER ends the run failed with reason action_failed after one failure."""

    def run(m: Any) -> tuple[str, str]:
        def boom(ws: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("boom")

        pol = m.GoalPolicy(replan_strategy=m.ReplanStrategy.NEVER)
        out = m.GoapGraph(actions=_pipeline(m, boom)).invoke(
            m.GoalSpec(conditions={"done": True}, policy=pol), {}
        )
        return out["status"], out["replan_reason"]

    assert run(langgoap) == run(compat) == ("failed", "action_failed")


def test_sequential_multigoal_advances_through_subgoals() -> None:
    """A sequential MultiGoal runs each sub-goal's plan in turn and ends on the last index."""

    def run(m: Any) -> tuple[str, int, list[str]]:
        goal = m.MultiGoal(
            goals=(m.GoalSpec(conditions={"raw": True}), m.GoalSpec(conditions={"done": True}))
        )
        out = m.GoapGraph(actions=_pipeline(m)).invoke(goal, {})
        return out["status"], out["current_subgoal_index"], [r.action_name for r in out["execution_history"]]

    assert run(langgoap) == run(compat)


def test_rich_world_values_reach_execute_and_the_result() -> None:
    """Lists in the world state reach ``execute`` and come back in the final world state."""

    def run(m: Any) -> dict[str, Any]:
        def fetch(ws: dict[str, Any]) -> dict[str, Any]:
            return {"raw": True, "docs": [*ws["docs"], "new"]}

        out = m.GoapGraph(actions=_pipeline(m, fetch)).invoke(
            m.GoalSpec(conditions={"done": True}), {"docs": ["a"]}
        )
        return dict(out["world_state"])

    assert run(langgoap) == run(compat)


async def test_ainvoke_matches_invoke() -> None:
    """The async path gives the same final state summary as LangGOAP's."""

    async def run(m: Any) -> dict[str, Any]:
        out = await m.GoapGraph(actions=_pipeline(m)).ainvoke(m.GoalSpec(conditions={"done": True}), {})
        return _summary(dict(out))

    assert await run(langgoap) == await run(compat)


def test_engine_is_the_durable_goap_runtime_graph() -> None:
    """``GoapGraph.engine()`` (ours only) is goap.runtime's graph of the same actions."""
    from goap.runtime import GoapGraph as RuntimeGraph

    eng = compat.GoapGraph(actions=_pipeline(compat)).engine()
    assert isinstance(eng, RuntimeGraph)
    assert sorted(eng.actions) == ["clean", "fetch", "report"]
