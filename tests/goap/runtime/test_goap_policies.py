"""Execution policies of the GOAP runtime: QoS, guards, sensors, stuck handlers, termination, approval, reflexion."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any

import pytest

from goap import ActionSpec, GoalSpec, GoapGraph
from goap.planning._qos import ActionQos
from goap.runtime._approval import Approval
from goap.runtime._guards import FunctionalGuard, GuardResult
from goap.runtime._reflexion import ReflexionTracer
from goap.runtime._sensors import FunctionalSensor
from goap.runtime._stuck import FunctionalStuckHandler, StuckResolution
from goap.runtime._termination import AllOf, FirstOf, MaxActions, MaxCost, MaxTokens, OnStuck
from graphengine.store import Store
from graphengine.testing import assert_replays

W0 = {"built": False, "signed": False, "published": False}
GOAL = GoalSpec({"published": True})


def actions(**over: Any) -> list[ActionSpec]:
    """build -> sign (hsm cheap, local costly) -> publish."""
    acts = {
        "build": ActionSpec("build", {}, {"built": True}),
        "sign_hsm": ActionSpec("sign_hsm", {"built": True}, {"signed": True}, cost=1),
        "sign_local": ActionSpec("sign_local", {"built": True}, {"signed": True}, cost=3),
        "publish": ActionSpec("publish", {"signed": True}, {"published": True}),
    }
    acts.update(over)
    return list(acts.values())


class Flaky:
    """Raises `exc` the first `fails` calls, then returns `out`."""

    def __init__(self, fails: int, exc: BaseException, out: dict[str, Any]) -> None:
        self.fails, self.exc, self.out, self.calls = fails, exc, out, 0

    def __call__(self, world: Mapping[str, Any]) -> dict[str, Any]:
        self.calls += 1
        if self.calls <= self.fails:
            raise self.exc
        return self.out


async def _run_signing(store: Store, hsm: Flaky) -> tuple[Flaky, GoapGraph, Any]:
    """Run to the goal with `hsm` signing under ActionQos(attempts=3); the run must be achieved."""
    sign = ActionSpec("sign_hsm", {"built": True}, {"signed": True}, execute=hsm, qos=ActionQos(attempts=3))
    g = GoapGraph(actions(sign_hsm=sign), store=store)
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    return hsm, g, final


async def test_qos_retries_are_the_engines_retries_of_the_executor_step(store: Store) -> None:
    """A retryable failure is retried by the engine (same step, attempt 3) and then succeeds without a replan."""
    hsm, g, final = await _run_signing(store, Flaky(2, TimeoutError("slow"), {"signed": True}))
    assert hsm.calls == 3
    assert final.plans_made == 1 and [o.success for o in final.execution_history] == [True, True, True]
    steps = await g.engine.history("r")
    assert [v.attempt for v in steps if v.node_id == "executor"] == [1, 3, 1]
    await assert_replays(g.engine, "r")


async def test_qos_does_not_retry_an_exception_outside_retry_on(store: Store) -> None:
    """A non-idempotent action is retried only on its retry_on exceptions; others fail at once and replan."""
    _, _, final = await _run_signing(store, Flaky(1, ValueError("bad key"), {"signed": True}))
    assert final.execution_history[1].error == "ValueError: bad key"
    assert final.replan_reason == "action_failed"


async def test_single_use_action_is_never_planned_twice(store: Store) -> None:
    """can_rerun=False: after it ran (and failed), the planner no longer uses it, even before blacklisting."""
    hsm = Flaky(5, RuntimeError("down"), {})
    sign = ActionSpec(
        "sign_hsm", {"built": True}, {"signed": True}, execute=hsm, qos=ActionQos(can_rerun=False)
    )
    g = GoapGraph(actions(sign_hsm=sign), store=store, blacklist_after=0, max_replans=5)
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    assert hsm.calls == 1
    assert [o.action for o in final.execution_history].count("sign_hsm") == 1
    assert [v.plan.count("sign_hsm") for v in final.plan_lineage] == [1, 0]


async def test_block_guard_stops_the_action_and_the_observer_replans(store: Store) -> None:
    """A BLOCK pre guard: the action does not run, the history names the guard, the run replans around it."""
    ran: list[str] = []

    def sign_hsm(world: Mapping[str, Any]) -> dict[str, Any]:
        ran.append("hsm")
        return {"signed": True}

    sign = ActionSpec(
        "sign_hsm",
        {"built": True},
        {"signed": True},
        execute=sign_hsm,
        guards=(FunctionalGuard("hsm_quota", lambda a, w: False, message="quota exhausted"),),
    )
    g = GoapGraph(actions(sign_hsm=sign), store=store, blacklist_after=1)
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    assert ran == []
    failed = final.execution_history[1]
    assert (failed.success, failed.executed, failed.guard) == (False, False, "hsm_quota")
    assert "quota exhausted" in (failed.error or "")
    assert final.replan_reason == "action_failed"
    assert [(v.trigger, v.plan) for v in final.plan_lineage][1] == ("guard", ["sign_local", "publish"])
    await assert_replays(g.engine, "r")


async def test_post_guard_refuses_the_result_and_raising_guard_is_a_warning(store: Store) -> None:
    """A BLOCK post guard leaves the world unchanged; a raising guard only warns; WARN guards are recorded."""

    def boom(action: ActionSpec, world: Mapping[str, Any]) -> GuardResult:
        raise RuntimeError("guard bug")

    refuse = FunctionalGuard(
        "signature_check",
        lambda a, w: GuardResult(w.get("signature") != "bad", "bad signature", "block"),
        stage="post",
    )
    sign = ActionSpec(
        "sign_hsm",
        {"built": True},
        {"signed": True},
        execute=lambda w: {"signed": True, "signature": "bad"},
        guards=(refuse,),
    )
    warn = FunctionalGuard("audit", lambda a, w: GuardResult(False, "not audited", "warn"))
    g = GoapGraph(
        actions(sign_hsm=sign), store=store, guards=[FunctionalGuard("buggy", boom), warn], blacklist_after=1
    )
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    refused = final.execution_history[1]
    assert refused.guard == "signature_check" and refused.executed and not refused.success
    assert "signature" not in final.world_state
    kinds = {(e.kind, e.name) for e in final.policy_events}
    assert {("guard_warn", "buggy"), ("guard_warn", "audit"), ("guard_block", "signature_check")} <= kinds
    assert any("audit: not audited" in w for w in final.execution_history[0].warnings)


async def test_sensor_readings_are_merged_and_a_failing_sensor_keeps_the_last_reading(store: Store) -> None:
    """Sensors feed world_state before planning and observing; a failure is recorded and the last value kept."""
    readings = iter(
        [{"temp": 20}, {"temp": 21}, RuntimeError("probe lost"), {"temp": 23}, {"temp": 24}, {"temp": 25}]
    )

    def probe(world: Mapping[str, Any]) -> Mapping[str, Any]:
        r: Any = next(readings, {"temp": 99})
        if isinstance(r, Exception):
            raise r
        return dict(r)

    g = GoapGraph(actions(), store=store, sensors=[FunctionalSensor("probe", probe)])
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    assert isinstance(final.world_state["temp"], int)
    assert [(e.kind, e.name) for e in final.policy_events if e.kind == "sensor_error"] == [
        ("sensor_error", "probe")
    ]
    await assert_replays(g.engine, "r")


async def test_sensor_change_triggers_a_replan_named_sensor_change(store: Store) -> None:
    """A reading that breaks the next action's precondition makes the observer replan with reason sensor_change."""
    seen = {"n": 0}

    def hsm_status(world: Mapping[str, Any]) -> Mapping[str, Any]:
        seen["n"] += 1
        return {"hsm_up": seen["n"] < 2}

    sign = ActionSpec("sign_hsm", {"built": True, "hsm_up": True}, {"signed": True}, cost=1)
    g = GoapGraph(actions(sign_hsm=sign), store=store, sensors=[hsm_status])
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    assert [v.trigger for v in final.plan_lineage] == ["initial", "sensor_change"]
    assert "sign_local" in final.plan_lineage[1].plan


async def test_stuck_handler_relaxes_the_goal_and_the_run_replans(store: Store) -> None:
    """No plan: the first handler with a resolution wins; its goal replaces the goal and the run replans."""
    calls: list[str] = []

    def nothing(state: Any, reason: str) -> None:
        calls.append(f"nothing:{reason}")

    def relax(state: Any, reason: str) -> StuckResolution:
        calls.append(f"relax:{reason}")
        return StuckResolution(
            "publish is impossible; settle for signed", {"waiver": True}, GoalSpec({"signed": True})
        )

    g = GoapGraph(
        actions(),
        store=store,
        stuck_handlers=[FunctionalStuckHandler("nothing", nothing), FunctionalStuckHandler("relax", relax)],
    )
    final = await g.run("r", W0, GoalSpec({"published": True, "audited": True}))
    assert final.status == "achieved"
    assert calls == ["nothing:no_plan", "relax:no_plan"]
    assert final.world_state["waiver"] is True and final.world_state["signed"] is True
    assert [v.trigger for v in final.plan_lineage] == ["initial", "stuck_handler"]
    assert ("stuck_resolved", "relax") in {(e.kind, e.name) for e in final.policy_events}
    await assert_replays(g.engine, "r")


async def test_termination_policy_name_is_in_the_terminal_status(store: Store) -> None:
    """MaxActions fires after two actions: status terminated, the policy's name recorded."""
    g = GoapGraph(actions(), store=store, termination=FirstOf(MaxCost(100), MaxActions(2)))
    final = await g.run("r", W0, GOAL)
    assert final.status == "terminated"
    assert final.termination is not None and final.termination["policy"] == "MaxActions"
    assert len(final.execution_history) == 2
    await assert_replays(g.engine, "r")


async def test_on_stuck_stops_gracefully_and_all_of_needs_every_policy(store: Store) -> None:
    """OnStuck turns no_plan into a graceful termination; AllOf fires only when all its policies fire."""
    g = GoapGraph(actions(), store=store, termination=FirstOf(AllOf(MaxActions(1), MaxTokens(10)), OnStuck()))
    final = await g.run("r", W0, GoalSpec({"unreachable": True}))
    assert final.status == "terminated"
    assert final.termination == {
        "policy": "OnStuck",
        "reason": "no way forward: stopping gracefully",
        "error": False,
    }
    final = await g.run("r2", {**W0, "total_tokens": 50}, GOAL)
    assert final.termination is not None and final.termination["policy"] == "AllOf(MaxActions, MaxTokens)"


class SignOff(Approval):
    """Approve signing, optionally choosing the key."""

    key: str = "prod"


async def test_approval_rejected_then_another_approved(store: Store) -> None:
    """The run pauses before each approval; a rejection blacklists and replans; an approval runs with the form's arguments."""
    used: list[str] = []

    def sign_with(world: Mapping[str, Any], key: str = "") -> dict[str, Any]:
        used.append(key)
        return {"signed": True}

    acts = actions(
        sign_hsm=ActionSpec("sign_hsm", {"built": True}, {"signed": True}, cost=1, approval=SignOff),
        sign_local=ActionSpec(
            "sign_local", {"built": True}, {"signed": True}, cost=3, execute=sign_with, approval=SignOff
        ),
    )
    g = GoapGraph(acts, store=store)
    paused = await g.run("r", W0, GOAL)
    assert paused.status == "executing" and [o.action for o in paused.execution_history] == ["build"]
    ask = await g.pending_approval("r")
    assert ask is not None and ask["action"] == "sign_hsm" and "key" in ask["schema"]["properties"]
    again = await g.resume("r", input={"approved": "maybe"})
    bad = await g.pending_approval("r")
    assert again.status == "executing" and bad is not None and "approved" in bad["error"]
    await g.resume("r", input={"approved": False, "reason": "HSM under maintenance"})
    ask = await g.pending_approval("r")
    assert ask is not None and ask["action"] == "sign_local"
    final = await g.resume("r", input=SignOff(approved=True, key="offline-2"))
    assert final.status == "achieved"
    assert used == ["offline-2"]
    assert final.blacklisted_actions == ["sign_hsm"]
    assert [v.trigger for v in final.plan_lineage] == ["initial", "approval_rejected"]
    kinds = [(e.kind, e.name) for e in final.policy_events]
    assert kinds == [("approval_rejected", "sign_hsm"), ("approval_granted", "sign_local")]
    await assert_replays(g.engine, "r")


async def test_reflexion_tracer_writes_one_suggestion_per_failure(store: Store) -> None:
    """ReflexionTracer: one "[action] suggestion" per failure in reflection_context, recorded for replay."""
    prompts: list[str] = []

    async def model(prompt: str) -> str:
        prompts.append(prompt)
        return "use the local key while the HSM is down"

    sign = ActionSpec(
        "sign_hsm", {"built": True}, {"signed": True}, execute=Flaky(9, RuntimeError("HSM offline"), {})
    )
    tracer = ReflexionTracer(model)
    g = GoapGraph(actions(sign_hsm=sign), store=store, tracer=tracer, blacklist_after=2)
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved"
    assert final.reflection_context == ["[sign_hsm] use the local key while the HSM is down"] * 2
    assert len(prompts) == 2 and "HSM offline" in prompts[0]
    assert [r.action for r in tracer.reflections] == ["sign_hsm", "sign_hsm"]
    await assert_replays(g.engine, "r")
    assert len(prompts) == 2


async def test_reflexion_template_without_a_model(store: Store) -> None:
    """Without a model the suggestion is a template naming the error."""
    sign = ActionSpec(
        "sign_hsm", {"built": True}, {"signed": True}, execute=Flaky(9, RuntimeError("HSM offline"), {})
    )
    g = GoapGraph(actions(sign_hsm=sign), store=store, reflexion=ReflexionTracer(), blacklist_after=1)
    final = await g.run("r", W0, GOAL)
    assert final.reflection_context[0].startswith("[sign_hsm] failed with RuntimeError: HSM offline")


def test_guard_and_approval_fields_are_validated() -> None:
    """An approval form without `approved` or a guard without check is a ModelError."""
    from pydantic import BaseModel

    from goap import ModelError

    class NoDecision(BaseModel):
        note: str = ""

    with pytest.raises(ModelError, match="approved"):
        ActionSpec("a", approval=NoDecision)
    with pytest.raises(ModelError, match="guard"):
        ActionSpec("a", guards=(object(),))


async def test_idempotent_actions_retry_any_exception_after_a_backoff(store: Store) -> None:
    """idempotent=True retries whatever the exception; the executor waits the QoS backoff before the retry."""
    import time

    hsm = Flaky(1, ValueError("glitch"), {"signed": True})
    qos = ActionQos(attempts=2, idempotent=True, backoff=0.05)
    g = GoapGraph(
        actions(sign_hsm=ActionSpec("sign_hsm", {"built": True}, {"signed": True}, execute=hsm, qos=qos)),
        store=store,
    )
    t0 = time.perf_counter()
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved" and hsm.calls == 2 and final.plans_made == 1
    assert time.perf_counter() - t0 >= 0.05
    assert qos.delay(1) == 0.05 and qos.delay(2) == 0.1


async def test_max_wall_clock_reads_the_recorded_clock(store: Store) -> None:
    """MaxWallClock(0) fires at the first observation; the replay decides the same from the recorded clock."""
    from goap.runtime._termination import MaxWallClock

    g = GoapGraph(actions(), store=store, termination=MaxWallClock(0))
    final = await g.run("r", W0, GOAL)
    assert final.status == "terminated" and final.termination is not None
    assert final.termination["policy"] == "MaxWallClock" and len(final.execution_history) == 1
    await assert_replays(g.engine, "r")


async def test_stuck_handler_rescues_a_spent_replan_budget(store: Store) -> None:
    """When the replan budget is spent, a handler's state update lets the run replan and finish."""

    def hsm_back(state: Any, reason: str) -> StuckResolution | None:
        return StuckResolution("HSM rebooted", {"hsm_ok": True}) if reason == "max_replans_exceeded" else None

    def sign(world: Mapping[str, Any]) -> dict[str, Any]:
        if not world.get("hsm_ok"):
            raise RuntimeError("HSM offline")
        return {"signed": True}

    acts = [
        ActionSpec("build", {}, {"built": True}),
        ActionSpec("sign_hsm", {"built": True}, {"signed": True}, execute=sign),
        ActionSpec("publish", {"signed": True}, {"published": True}),
    ]
    g = GoapGraph(
        acts,
        store=store,
        max_replans=1,
        blacklist_after=0,
        stuck_handlers=[FunctionalStuckHandler("reboot", hsm_back)],
    )
    final = await g.run("r", W0, GOAL)
    assert final.status == "achieved" and final.stuck_resolutions == 1
    assert [v.trigger for v in final.plan_lineage] == ["initial", "failure", "stuck_handler"]
    assert final.plan_lineage[-1].detail == "reboot: HSM rebooted"


async def test_llm_budget_policies_read_world_counters(store: Store) -> None:
    """MaxLLMCalls and MaxTokens fire on the counters the actions keep in the world."""
    from goap.runtime._termination import MaxLLMCalls

    g = GoapGraph(actions(), store=store, termination=FirstOf(MaxTokens(10_000), MaxLLMCalls(3)))
    final = await g.run("r", {**W0, "llm_call_count": 3}, GOAL)
    assert final.termination is not None and final.termination["policy"] == "MaxLLMCalls"
