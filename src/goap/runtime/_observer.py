"""The observer node: reads sensors, checks guards and termination after an action, and decides
whether to continue, replan or stop."""

from __future__ import annotations

from typing import Any

from goap.planning import DeterministicTransitionModel, MultiGoal, TransitionModel
from goap.runtime._config import _BATCH_MAX, GoapConfig, _budget, _clock, current_goal
from goap.runtime._nodes import _Node
from goap.runtime._state import GoapState, ReplanReason
from goap.runtime._tracing import call_tracer
from graphengine import Context, NodeResult, goto, stop

__all__ = ["Observer"]


class Observer(_Node):
    """Checks the goal and the world, then continues, replans (with a reason), advances or ends."""

    def __init__(self, cfg: GoapConfig) -> None:
        super().__init__(cfg)
        self.model: TransitionModel = cfg.transition_model or DeterministicTransitionModel()

    def _deviates(self, s: GoapState) -> bool:
        exp = s.expected_world_state
        if not exp:
            return False
        policy = getattr(self.model, "divergence_policy", None)
        bound = policy.max_relative_deviation if policy is not None else None
        for k, want in exp.items():
            got = s.world_state.get(k)
            if got == want:
                continue
            if (
                bound is not None
                and isinstance(want, int | float)
                and isinstance(got, int | float)
                and not isinstance(want, bool)
                and not isinstance(got, bool)
                and abs(got - want) / max(abs(want), 1.0) <= bound
            ):
                continue
            return True
        return False

    async def run(self, ctx: Context, s: GoapState) -> NodeResult[GoapState]:
        """Decide the next hop from the goal, the last outcome and the policies."""
        cfg = self.cfg
        view, readings, events = await self.sense(ctx, s)
        base: dict[str, Any] = {"policy_events": events} if events else {}
        if readings is not None and readings.changed:
            base["world_state"] = view.world_state
        world = view.world_state
        g = s.goal
        goal = current_goal(view)
        achieved = (
            any(x.satisfied_by(world) for x in g.goals)
            if isinstance(g, MultiGoal) and g.mode == "any"
            else goal.satisfied_by(world)
        )
        if achieved:
            if (
                isinstance(g, MultiGoal)
                and g.mode == "sequential"
                and s.current_subgoal_index + 1 < len(g.goals)
            ):
                return NodeResult(
                    delta=GoapState(
                        **base,
                        current_subgoal_index=s.current_subgoal_index + 1,
                        replan_count=0,
                        replan_reason="subgoal_achieved",
                        status="planning",
                        plan=[],
                        current_step=0,
                        expected_world_state=None,
                    ),
                    route=goto("planner"),
                )
            await call_tracer(self.tracer(ctx), "goal_achieved", dict(world))
            return NodeResult(
                delta=GoapState(**base, status="achieved", expected_world_state=None), route=stop()
            )
        t = await self.terminate(ctx, view, stuck=False)
        if t is not None:
            return self.terminated(ctx, t, {k: v for k, v in base.items() if k != "policy_events"}, events)
        if (
            cfg.time_budget is not None
            and s.wall_clock_started_at is not None
            and await _clock(ctx) - s.wall_clock_started_at > cfg.time_budget
        ):
            return NodeResult(delta=GoapState(**base, status="budget_exhausted"), route=stop())
        last = s.execution_history[-1] if s.execution_history else None
        reason: ReplanReason | None = None
        if (
            last is not None
            and last.step == ctx.step - 1
            and any(not o.success for o in s.execution_history[-_BATCH_MAX:] if o.step == last.step)
        ):
            reason = "action_failed"
        elif self._deviates(view):
            reason = "state_deviation"
        elif s.current_step >= len(s.plan):
            reason = "plan_exhausted"
        else:
            nxt = cfg.actions.get(s.plan[s.current_step])
            if nxt is None or not nxt.applicable(world):
                reason = "state_deviation"
            elif cfg.replan_every_action:
                reason = "every_action_replan"
        if reason == "state_deviation" and readings is not None and readings.changed:
            reason = "sensor_change"
        if cfg.never_replan and reason is not None:
            if reason in ("state_deviation", "sensor_change") and s.current_step < len(s.plan):
                reason = None  # deviations are not checked: the next action runs (or fails)
            else:
                return NodeResult(
                    delta=GoapState(**base, status="failed", replan_reason=reason, expected_world_state=None),
                    route=stop(),
                )
        if reason is None:
            route, extra = self.hop(s.plan, s.current_step, s.plans_made, s.approval_granted)
            return NodeResult(delta=GoapState(**base, **extra, expected_world_state=None), route=route)
        if s.replan_count >= _budget(cfg, goal):
            fix, more = await self.unstick(ctx, view, "max_replans_exceeded")
            events = [*events, *more]
            if fix is not None:
                return NodeResult(
                    delta=GoapState(**{**base, **fix, "policy_events": events}), route=goto("planner")
                )
            t = await self.terminate(ctx, view, stuck=True)
            if t is not None:
                return self.terminated(
                    ctx, t, {k: v for k, v in base.items() if k != "policy_events"}, events
                )
            return NodeResult(
                delta=GoapState(
                    **{**base, "policy_events": events},
                    status="max_replans_exceeded",
                    replan_reason="max_replans_exceeded",
                ),
                route=stop(),
            )
        return NodeResult(
            delta=GoapState(
                **base,
                replan_count=s.replan_count + 1,
                replan_reason=reason,
                status="planning",
                expected_world_state=None,
            ),
            route=goto("planner"),
        )
