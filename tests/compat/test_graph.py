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
    """``GoapGraph.engine()`` (ours only) is goap.runtime's graph of the same actions, and runs."""
    import asyncio

    from goap.compat._convert import to_goap_goal
    from goap.runtime import GoapGraph as RuntimeGraph

    goal = compat.GoalSpec(conditions={"done": True})
    eng = compat.GoapGraph(actions=_pipeline(compat)).engine(goal)
    assert isinstance(eng, RuntimeGraph)
    final = asyncio.run(eng.run("r", {}, to_goap_goal(goal)))
    assert final.status == "achieved"
    assert [o.action for o in final.execution_history] == ["fetch", "clean", "report"]


def test_human_approval_interrupts_and_a_denial_is_replanned_around() -> None:
    """An approval-gated action pauses the run; denying it blacklists it and the run uses the other way."""
    from langgraph.checkpoint.memory import MemorySaver
    from langgraph.types import Command

    def run(m: Any) -> tuple[Any, ...]:
        acts = [
            m.ActionSpec(name="risky", effects={"done": True}, cost=1.0, require_human_approval=True),
            m.ActionSpec(name="safe", effects={"done": True}, cost=5.0),
        ]
        app = m.GoapGraph(actions=acts).compile(checkpointer=MemorySaver())
        cfg = {"configurable": {"thread_id": "t"}}
        first = app.invoke({"goal": m.GoalSpec(conditions={"done": True}), "world_state": {}}, config=cfg)
        ask = first["__interrupt__"][0].value
        out = app.invoke(Command(resume={"approved": False, "reason": "no"}), config=cfg)
        ran = [(r.action_name, r.success, r.error) for r in out["execution_history"]]
        return ask["type"], ask["action"], out["status"], ran, out["blacklisted_actions"]

    assert run(langgoap) == run(compat)


def test_checkpointed_state_is_readable_after_the_run() -> None:
    """With a checkpointer, get_state shows the final status and world as LangGOAP's does."""
    from langgraph.checkpoint.memory import MemorySaver

    def run(m: Any) -> tuple[Any, ...]:
        app = m.GoapGraph(actions=_pipeline(m)).compile(checkpointer=MemorySaver())
        cfg = {"configurable": {"thread_id": "c"}}
        app.invoke({"goal": m.GoalSpec(conditions={"done": True}), "world_state": {}}, config=cfg)
        snap = app.get_state(cfg)
        return snap.values["status"], snap.values["world_state"], snap.next

    assert run(langgoap) == run(compat)


def test_interrupt_before_executor_pauses_before_each_action() -> None:
    """interrupt_before=["executor"] pauses before every action; invoke(None) continues."""
    from langgraph.checkpoint.memory import MemorySaver

    def run(m: Any) -> list[Any]:
        app = m.GoapGraph(actions=_pipeline(m)).compile(
            checkpointer=MemorySaver(), interrupt_before=["executor"]
        )
        cfg = {"configurable": {"thread_id": "p"}}
        app.invoke({"goal": m.GoalSpec(conditions={"done": True}), "world_state": {}}, config=cfg)
        seen = []
        while app.get_state(cfg).next:
            seen.append(sorted(app.get_state(cfg).values["world_state"]))
            app.invoke(None, config=cfg)
        return [*seen, app.get_state(cfg).values["status"]]

    assert run(langgoap) == run(compat)


def test_tracer_sees_the_same_hook_sequence() -> None:
    """A recording tracer gets the same hooks, goal keys and plans from both graphs."""

    def run(m: Any) -> list[Any]:
        calls: list[Any] = []

        class Rec:
            def on_plan_start(self, goal: Any, world: Any, strategy: str) -> None:
                calls.append(("plan_start", sorted(goal.conditions), strategy))

            def on_plan_complete(self, plan: Any, ms: float) -> None:
                calls.append(("plan_complete", plan.action_names))

            def on_action_start(self, action: Any, world: Any) -> None:
                calls.append(("action_start", action.name))

            def on_action_complete(self, result: Any) -> None:
                calls.append(("action_complete", [r.action_name for r in result["execution_history"]]))

            def on_replan(self, reason: str, plan: Any) -> None:
                calls.append(("replan", reason))

            def on_plan_failed(self, reason: str, ms: float) -> None:
                calls.append(("plan_failed", reason))

            def on_goal_achieved(self, world: Any) -> None:
                calls.append(("goal_achieved", sorted(world)))

        m.GoapGraph(actions=_pipeline(m), tracer=Rec()).invoke(m.GoalSpec(conditions={"done": True}), {})
        return calls

    assert run(langgoap) == run(compat)


def test_max_retries_tolerates_failures_before_blacklisting() -> None:
    """max_retries=1 lets an action fail twice across replans before the alternative is used."""

    def run(m: Any) -> tuple[Any, ...]:
        def boom(ws: dict[str, Any]) -> dict[str, Any]:
            raise RuntimeError("down")

        acts = [
            m.ActionSpec(name="cheap", effects={"done": True}, cost=1.0, execute=boom, max_retries=1),
            m.ActionSpec(name="dear", effects={"done": True}, cost=9.0),
        ]
        out = m.GoapGraph(actions=acts).invoke(m.GoalSpec(conditions={"done": True}), {})
        ran = [(r.action_name, r.success) for r in out["execution_history"]]
        return out["status"], ran, out["replan_count"], out["blacklisted_actions"]

    assert run(langgoap) == run(compat)


def test_nodes_called_directly_answer_in_langgoap_shapes() -> None:
    """Planner, executor and observer called on a dict return LangGOAP's update dicts and Command."""

    def run(m: Any) -> tuple[Any, ...]:
        acts = _pipeline(m)
        state: dict[str, Any] = {"world_state": {}, "goal": m.GoalSpec(conditions={"done": True})}
        planned = m.GoapPlanner(acts)(state)
        state.update(planned)
        done = m.GoapExecutor()(state)
        state.update({k: v for k, v in done.items() if k != "execution_history"})
        cmd = m.GoapObserver(acts)(state)
        return planned["status"], planned["plan"].action_names, done["world_state"], cmd.goto, cmd.update

    assert run(langgoap) == run(compat)


def test_every_action_policy_replans_after_each_action() -> None:
    """ReplanStrategy.EVERY_ACTION replans after every action, counting each replan."""

    def run(m: Any) -> tuple[Any, ...]:
        pol = m.GoalPolicy(replan_strategy=m.ReplanStrategy.EVERY_ACTION)
        out = m.GoapGraph(actions=_pipeline(m)).invoke(m.GoalSpec(conditions={"done": True}, policy=pol), {})
        return out["status"], out["replan_count"], out["replan_reason"]

    assert run(langgoap) == run(compat)


def test_parallel_executor_runs_independent_actions_in_one_call() -> None:
    """ParallelGoapExecutor runs two independent actions in one node call."""

    def run(m: Any) -> tuple[Any, ...]:
        a = m.ActionSpec(name="a", effects={"x": True})
        b = m.ActionSpec(name="b", effects={"y": True})
        state = {"world_state": {}, "goal": m.GoalSpec(conditions={"x": True, "y": True})}
        state.update(m.GoapPlanner([a, b])(state))
        out = m.ParallelGoapExecutor(actions=[a, b])(state)
        return (
            out["world_state"],
            out["current_step"],
            sorted(r.action_name for r in out["execution_history"]),
        )

    assert run(langgoap) == run(compat)


async def test_concurrent_runs_of_one_compiled_graph_stay_apart() -> None:
    """Two runs of one compiled graph at once keep their own (unhashable) world values."""
    import asyncio

    async def run(m: Any) -> list[Any]:
        async def fetch(ws: dict[str, Any]) -> dict[str, Any]:
            await asyncio.sleep(0.01)
            return {"raw": True, "docs": [*ws["docs"], "x"]}

        acts = _pipeline(m)
        acts[0] = m.ActionSpec(name="fetch", effects={"raw": True}, aexecute=fetch)
        app = m.GoapGraph(actions=acts).compile()
        goal = m.GoalSpec(conditions={"done": True})
        runs = [app.ainvoke({"goal": goal, "world_state": {"docs": [n]}}) for n in "ab"]
        return [o["world_state"]["docs"] for o in await asyncio.gather(*runs)]

    assert await run(langgoap) == await run(compat) == [["a", "x"], ["b", "x"]]


def test_blocking_guard_passed_to_the_graph_stops_the_action() -> None:
    """A graph guard that blocks an action fails it and the run plans around it."""

    def run(m: Any) -> tuple[Any, ...]:
        def veto(action: Any, world: Any) -> Any:
            ok = action.name != "risky"
            return m.GuardResult(passed=ok, message="" if ok else "no", severity=m.GuardSeverity.BLOCK)

        acts = [
            m.ActionSpec(name="risky", effects={"done": True}, cost=1.0),
            m.ActionSpec(name="safe", effects={"done": True}, cost=5.0),
        ]
        out = m.GoapGraph(actions=acts, guards=[m.FunctionalGuard("veto", veto)]).invoke(
            m.GoalSpec(conditions={"done": True}), {}
        )
        return out["status"], [(r.action_name, r.success) for r in out["execution_history"]]

    assert run(langgoap) == run(compat)


def test_max_actions_policy_terminates_the_run() -> None:
    """MaxActionsPolicy ends a long plan with status terminated after the allowed actions."""

    def run(m: Any) -> tuple[Any, ...]:
        g = m.GoapGraph(actions=_pipeline(m), termination_policies=[m.MaxActionsPolicy(2)])
        out = g.invoke(m.GoalSpec(conditions={"done": True}), {})
        return out["status"], [r.action_name for r in out["execution_history"]]

    assert run(langgoap) == run(compat)


def test_sensor_refreshes_the_world_before_planning() -> None:
    """A sensor's reading is in the world the planner plans from (a shorter plan)."""

    def run(m: Any) -> tuple[Any, ...]:
        sensor = m.FunctionalSensor("feed", lambda ws: {"clean": True})
        out = m.GoapGraph(actions=_pipeline(m), sensors=[sensor]).invoke(
            m.GoalSpec(conditions={"done": True}), {}
        )
        return out["status"], [r.action_name for r in out["execution_history"]]

    assert run(langgoap) == run(compat)
