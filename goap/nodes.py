"""The GOAP nodes of the engine: planner, executor, observer.

They are ordinary `graphengine` nodes over `GoapState`, so a GOAP run is durable, resumable and
replayable like any run. Side effects (action `execute` calls, the wall clock) go through
`ctx.call`, so a replay serves them from the record; planning itself is deterministic and is
simply re-derived.
"""

from __future__ import annotations

import asyncio
import time
from collections.abc import Mapping
from dataclasses import dataclass, field
from random import Random
from typing import Any

from opentelemetry.trace import Status, StatusCode

from goap.actions import ActionSpec
from goap.conditions import holds
from goap.goals import GoalSpec, MultiGoal
from goap.otel import GoapTelemetry
from goap.planner import plan as make_plan
from goap.state import ActionOutcome, GoapState, ReplanReason
from goap.strategies import AStar, PlanningStrategy
from goap.tracing import NullTracer, call_tracer
from goap.transitions import DeterministicTransitionModel, TransitionModel
from graphengine import Context, NodeResult, ToolCallError, goto, stop

__all__ = ["Executor", "GoapConfig", "Observer", "Planner", "current_goal"]


@dataclass(frozen=True, slots=True)
class GoapConfig:
    """Settings the three nodes share (built by `GoapGraph`)."""

    actions: Mapping[str, ActionSpec]
    """Actions by name."""
    strategy: PlanningStrategy = field(default_factory=AStar)
    """How plans are made."""
    max_replans: int | None = 3
    """Replans allowed per (sub-)goal; None: each goal's own `GoalSpec.max_replans`."""
    replan_every_action: bool = False
    """Re-plan after every successful action (for worlds that change under the agent)."""
    blacklist_after: int = 2
    """Failures after which an action is blacklisted (0: never)."""
    time_budget: float | None = None
    """Seconds a run may take from `wall_clock_started_at` (None: unlimited)."""
    transition_model: TransitionModel | None = None
    """Used when an action has no `execute` (or it returns None); default: declared effects."""
    seed: int = 0
    """Seed of the per-step rng handed to `TransitionModel.sample`."""
    tracer: Any = field(default_factory=NullTracer)
    """A `PlanningTracer`."""
    telemetry: GoapTelemetry = field(default_factory=GoapTelemetry)
    """OpenTelemetry spans and metrics of planning rounds and actions."""


def current_goal(s: GoapState) -> GoalSpec:
    """The goal being pursued now: the goal, the current sub-goal, or the conjunction ("all")."""
    g = s.goal
    if isinstance(g, MultiGoal):
        if g.mode == "all":
            return g.conjunction()
        return g.goals[min(s.current_subgoal_index, len(g.goals) - 1)]
    if g is None:
        raise ValueError("GoapState.goal is not set")
    return g


def _budget(cfg: GoapConfig, goal: GoalSpec) -> int:
    return goal.max_replans if cfg.max_replans is None else cfg.max_replans


async def _clock(ctx: Context) -> float:
    return float(await ctx.call(_now, None, name="clock"))


def _now(_: object) -> float:
    return time.time()


class _Node:
    def __init__(self, cfg: GoapConfig) -> None:
        self.cfg = cfg

    def tracer(self, ctx: Context) -> Any:
        # A replay re-executes nodes to compare them; it must not report the run a second time.
        return _SILENT if ctx.replaying else self.cfg.tracer


_SILENT = NullTracer()


class Planner(_Node):
    """Plans from the current world state for the current goal, skipping blacklisted actions."""

    async def run(self, ctx: Context, s: GoapState) -> NodeResult[GoapState]:
        """Set `plan` (and go execute it) or end the run with status `no_plan`."""
        cfg = self.cfg
        started = s.wall_clock_started_at if s.wall_clock_started_at is not None else await _clock(ctx)
        goal = current_goal(s)
        await call_tracer(
            self.tracer(ctx), "plan_start", goal, dict(s.world_state), type(cfg.strategy).__name__
        )
        tel = cfg.telemetry
        with tel.tracer.start_as_current_span("goap.plan") as span:
            t0 = time.perf_counter()
            # Planning is CPU-bound and deterministic: run it off the event loop.
            result = await asyncio.to_thread(
                make_plan,
                s.world_state,
                goal,
                list(cfg.actions.values()),
                cfg.strategy,
                blacklist=s.blacklisted_actions,
            )
            ms = (time.perf_counter() - t0) * 1e3
            if span.is_recording():
                span.set_attributes(
                    GoapTelemetry.plan_attributes(result, replan_reason=s.replan_reason, ms=ms)
                )
            labels = {"goap.plan.status": result.status, "goap.plan.strategy": result.strategy or ""}
            tel.planning_time.record(ms / 1e3, labels)
            tel.plans.add(1, labels)
            tel.nodes_expanded.add(result.stats.expanded, labels)
        ctx.emit(
            "planned",
            {
                "status": result.status,
                "strategy": result.strategy,
                "expanded": result.stats.expanded,
                "generated": result.stats.generated,
                "cost": result.plan.cost if result.plan else None,
                "length": len(result.plan) if result.plan else None,
                "replan_reason": s.replan_reason,
            },
        )
        if result.plan is None:
            await call_tracer(self.tracer(ctx), "plan_failed", result.status, ms)
            status = "budget_exhausted" if result.status == "budget_exhausted" else "no_plan"
            return NodeResult(
                delta=GoapState(
                    status=status,
                    plan=[],
                    current_step=0,
                    no_plan_explanation=result.explanation.to_dict() if result.explanation else None,
                    wall_clock_started_at=started,
                ),
                route=stop(),
            )
        await call_tracer(self.tracer(ctx), "plan_complete", result.plan, ms)
        if s.plans_made:
            await call_tracer(self.tracer(ctx), "replan", s.replan_reason or "", result.plan)
        return NodeResult(
            delta=GoapState(
                status="executing",
                plan=list(result.plan.names),
                plan_cost=result.plan.cost,
                current_step=0,
                no_plan_explanation=None,
                wall_clock_started_at=started,
                plans_made=s.plans_made + 1,
            ),
            route=goto("executor") if len(result.plan) else goto("observer"),
        )


class _ActionCall:
    """An action's `execute` as a recorded tool call."""

    def __init__(self, action: ActionSpec) -> None:
        self.action = action
        self.name = f"action:{action.name}"

    async def call(self, ctx: Context, world: Any) -> Any:
        assert self.action.execute is not None
        out = self.action.execute(dict(world))
        if asyncio.iscoroutine(out) or isinstance(out, asyncio.Future):
            out = await out
        return out


class Executor(_Node):
    """Runs the plan's next action; a raising `execute` is an action failure, never a crash."""

    def __init__(self, cfg: GoapConfig) -> None:
        super().__init__(cfg)
        self.model: TransitionModel = cfg.transition_model or DeterministicTransitionModel()

    async def run(self, ctx: Context, s: GoapState) -> NodeResult[GoapState]:
        """Execute one action and record its outcome; the observer decides what comes next."""
        cfg = self.cfg
        name = s.plan[s.current_step]
        action = cfg.actions.get(name)
        if action is None:
            ctx.emit(f"plan names unknown action {name!r}", {"action": name})
            return NodeResult(delta=GoapState(status="failed"), route=stop())
        world = dict(s.world_state)
        expected = dict(self.model.expected(world, action))
        await call_tracer(self.tracer(ctx), "action_start", action, world)
        error: str | None = None
        new_world: dict[str, Any] | None = None
        if not action.applicable(world):
            unmet = [k for k, c in action.preconditions.items() if not holds(c, world.get(k))]
            error = f"preconditions of {name!r} do not hold: " + ", ".join(
                f"{k}={world.get(k)!r}" for k in unmet
            )
        else:
            span = cfg.telemetry.tracer.start_span(
                f"execute_tool {name}",
                attributes={
                    "gen_ai.operation.name": "execute_tool",
                    "gen_ai.tool.name": name,
                    "gen_ai.tool.type": "function",
                },
            )
            attempts = 1 + max(action.max_retries, 0)
            for attempt in range(1, attempts + 1):
                try:
                    out = await ctx.call(_ActionCall(action), world) if action.execute is not None else None
                    if out is not None and not isinstance(out, dict):
                        raise ToolCallError(
                            f"execute of {name!r} returned {type(out).__name__}, expected a dict or None",
                            tool=name,
                        )
                    if out is not None:
                        new_world = {**world, **out}
                    else:
                        rng = Random(
                            f"{cfg.seed}:{ctx.step}:{attempt}"
                        )  # seed and position only: same inputs, same run
                        new_world = dict(self.model.sample(world, action, rng))
                    error = None
                    break
                except ToolCallError as exc:
                    # "tool 'action:x' failed: TimeoutError: ..." -> "TimeoutError: ..."
                    error = str(exc).split(" failed: ", 1)[-1]
                    if attempt < attempts:
                        await call_tracer(self.tracer(ctx), "action_retry", action, attempt, exc, 0.0)
            if error is not None:
                span.set_status(Status(StatusCode.ERROR, error))
                span.set_attribute("error.type", error.split(":", 1)[0])
            span.end()
        if error is not None or new_world is None:
            fails = s.action_failure_counts.get(name, 0) + 1
            counts = {**s.action_failure_counts, name: fails}
            black = list(s.blacklisted_actions)
            if cfg.blacklist_after and fails >= cfg.blacklist_after and name not in black:
                black.append(name)
            outcome = ActionOutcome(
                action=name,
                success=False,
                step=ctx.step,
                plan_index=s.current_step,
                error=error,
                subgoal=s.current_subgoal_index,
            )
            note = f"[{name}] failed ({error}); " + (
                "blacklisted: plan around it" if name in black else "retry later or plan around it"
            )
            await call_tracer(self.tracer(ctx), "action_complete", outcome)
            return NodeResult(
                delta=GoapState(
                    execution_history=[outcome],
                    action_failure_counts=counts,
                    blacklisted_actions=black,
                    reflection_context=[note],
                    expected_world_state=None,
                ),
                route=goto("observer"),
            )
        changed = {k: v for k, v in new_world.items() if world.get(k) != v or k not in world}
        outcome = ActionOutcome(
            action=name,
            success=True,
            step=ctx.step,
            plan_index=s.current_step,
            effects=changed,
            subgoal=s.current_subgoal_index,
        )
        await call_tracer(self.tracer(ctx), "action_complete", outcome)
        return NodeResult(
            delta=GoapState(
                world_state=new_world,
                current_step=s.current_step + 1,
                execution_history=[outcome],
                expected_world_state={k: expected.get(k) for k in action.effects},
            ),
            route=goto("observer"),
        )


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
        goal = current_goal(s)
        if goal.satisfied_by(s.world_state):
            g = s.goal
            if (
                isinstance(g, MultiGoal)
                and g.mode == "sequential"
                and s.current_subgoal_index + 1 < len(g.goals)
            ):
                return NodeResult(
                    delta=GoapState(
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
            await call_tracer(self.tracer(ctx), "goal_achieved", dict(s.world_state))
            return NodeResult(delta=GoapState(status="achieved", expected_world_state=None), route=stop())
        if (
            cfg.time_budget is not None
            and s.wall_clock_started_at is not None
            and await _clock(ctx) - s.wall_clock_started_at > cfg.time_budget
        ):
            return NodeResult(delta=GoapState(status="budget_exhausted"), route=stop())
        last = s.execution_history[-1] if s.execution_history else None
        reason: ReplanReason | None = None
        if last is not None and not last.success and last.step == ctx.step - 1:
            reason = "action_failed"
        elif self._deviates(s):
            reason = "state_deviation"
        elif s.current_step >= len(s.plan):
            reason = "plan_exhausted"
        else:
            nxt = cfg.actions.get(s.plan[s.current_step])
            if nxt is None or not nxt.applicable(s.world_state):
                reason = "state_deviation"
            elif cfg.replan_every_action:
                reason = "every_action_replan"
        if reason is None:
            return NodeResult(delta=GoapState(expected_world_state=None), route=goto("executor"))
        if s.replan_count >= _budget(cfg, goal):
            return NodeResult(
                delta=GoapState(status="max_replans_exceeded", replan_reason="max_replans_exceeded"),
                route=stop(),
            )
        return NodeResult(
            delta=GoapState(
                replan_count=s.replan_count + 1,
                replan_reason=reason,
                status="planning",
                expected_world_state=None,
            ),
            route=goto("planner"),
        )
