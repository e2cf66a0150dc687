"""The GOAP nodes of the engine: planner, executor, observer (and approval, when an action asks).

They are ordinary `graphengine` nodes over `GoapState`, so a GOAP run is durable, resumable and
replayable like any run. Side effects (action `execute` calls, guards, sensors, stuck handlers,
reflections, the wall clock) go through `ctx.call`, so a replay serves them from the record.
Planning goes through `ctx.call` too: a replay serves the recorded plan (a plan may depend on a
time budget), and ``GoapGraph.replay(run_id, replan=True)`` plans again to compare.

Policies (QoS, guards, sensors, stuck handlers, termination, approval, reflexion) are objects in
`GoapConfig` that these nodes consult; none of them is a node of its own except the approval
step, which must be a separate node so the engine can pause before it.
"""

from __future__ import annotations

import asyncio
import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import dataclass
from types import SimpleNamespace
from typing import Any

from pydantic import ValidationError

from goap.planning import Plan, SearchStats
from goap.runtime._approval import BASE_FIELDS
from goap.runtime._config import GoapConfig, _clock, _limits, current_goal, solve, spent_single_use
from goap.runtime._lineage import PlanVersion, plan_diff, trigger_of
from goap.runtime._otel import GoapTelemetry
from goap.runtime._sensors import SensorReadings, read_sensors
from goap.runtime._serialize import goal_from_dict
from goap.runtime._state import GoapState, PolicyEvent
from goap.runtime._stuck import HandlerCall, StuckReason
from goap.runtime._termination import RunView, Termination, needs_clock
from goap.runtime._tracing import NullTracer, call_tracer
from graphengine import Context, Next, NodeResult, ToolCallError, goto, interrupt, stop

__all__ = ["ApprovalStep", "Planner"]

_log = logging.getLogger("goap.runtime._nodes")


class _PlanCall:
    """A planning round as a recorded tool call (planning is CPU-bound: it runs in a thread)."""

    name = "plan"

    def __init__(self, cfg: GoapConfig, world: Mapping[str, Any], s: GoapState) -> None:
        self.cfg, self.world, self.s = cfg, world, s

    async def call(self, ctx: Any, input: Any) -> Any:
        return await asyncio.to_thread(
            solve, self.cfg, self.world, self.s, input["blacklist"], input["previous"]
        )


class _Node:
    def __init__(self, cfg: GoapConfig) -> None:
        self.cfg = cfg

    def tracer(self, ctx: Context) -> Any:
        # A replay re-executes nodes to compare them; it must not report the run a second time.
        return _SILENT if ctx.replaying else self.cfg.tracer

    async def sense(
        self, ctx: Context, s: GoapState
    ) -> tuple[GoapState, SensorReadings | None, list[PolicyEvent]]:
        """Read the sensors; the state as the node should see it, the readings and failure events."""
        if not self.cfg.sensors:
            return s, None, []
        r = await read_sensors(ctx, self.cfg.sensors, s.world_state)
        for name, facts in r.readings:
            await call_tracer(self.tracer(ctx), "sensor_complete", name, facts)
        events = [PolicyEvent(step=ctx.step, kind="sensor_error", name=n, message=e) for n, e in r.errors]
        view = s.model_copy(update={"world_state": r.world}) if r.changed else s
        return view, r, events

    async def terminate(self, ctx: Context, s: GoapState, *, stuck: bool) -> Termination | None:
        """The termination policy's decision (a raising policy is logged and ignored)."""
        pol = self.cfg.termination
        if pol is None:
            return None
        elapsed = None
        if needs_clock(pol) and s.wall_clock_started_at is not None:
            elapsed = await _clock(ctx) - s.wall_clock_started_at
        try:
            t: Termination | None = pol.check(RunView(s, elapsed, stuck))
            return t
        except Exception:
            _log.exception("termination policy %r failed", pol)
            return None

    @staticmethod
    def terminated(
        ctx: Context, t: Termination, extra: dict[str, Any], events: list[PolicyEvent]
    ) -> NodeResult[GoapState]:
        ev = PolicyEvent(step=ctx.step, kind="terminated", name=t.policy, message=t.reason)
        return NodeResult(
            delta=GoapState(
                **extra,
                status="terminated",
                termination={"policy": t.policy, "reason": t.reason, "error": t.error},
                policy_events=[*events, ev],
                expected_world_state=None,
            ),
            route=stop(),
        )

    async def unstick(
        self, ctx: Context, s: GoapState, reason: StuckReason
    ) -> tuple[dict[str, Any] | None, list[PolicyEvent]]:
        """Ask the stuck handlers in order; the delta fields of the first resolution (or None)."""
        cfg = self.cfg
        events: list[PolicyEvent] = []
        if not cfg.stuck_handlers or s.stuck_resolutions >= cfg.max_stuck_resolutions:
            return None, events
        for h in cfg.stuck_handlers:
            try:
                out = await ctx.call(HandlerCall(h, s), reason)
            except ToolCallError as exc:
                msg = str(exc).split(" failed: ", 1)[-1]
                events.append(PolicyEvent(step=ctx.step, kind="stuck_error", name=h.name, message=msg))
                continue
            if not isinstance(out, dict):
                continue
            kw: dict[str, Any] = {
                "world_state": {**s.world_state, **dict(out.get("state_updates") or {})},
                "replan_reason": "stuck_resolved",
                "replan_count": 0,
                "stuck_resolutions": s.stuck_resolutions + 1,
                "status": "planning",
                "plan": [],
                "current_step": 0,
                "expected_world_state": None,
            }
            if out.get("goal") is not None:
                kw["goal"] = goal_from_dict(out["goal"])
                kw["current_subgoal_index"] = 0
            events.append(
                PolicyEvent(
                    step=ctx.step, kind="stuck_resolved", name=h.name, message=str(out.get("message", ""))
                )
            )
            return kw, events
        events.append(
            PolicyEvent(step=ctx.step, kind="stuck_unresolved", name=reason, message="no handler resolved it")
        )
        return None, events

    def hop(
        self, plan: Sequence[str], index: int, version: int, granted: Mapping[str, Any] | None
    ) -> tuple[Next, dict[str, Any]]:
        """Where the next action goes: the approval step when it needs an approval not yet given."""
        if index >= len(plan):
            return goto("observer"), {}
        a = self.cfg.actions.get(plan[index])
        if a is None or a.approval is None or _granted(granted, a.name, index, version):
            return goto("executor"), {}
        ask = {"action": a.name, "plan_index": index, "plan_version": version, "form": a.approval.__name__}
        return goto("approval"), {"pending_approval": ask}


def _granted(granted: Mapping[str, Any] | None, name: str, index: int, version: int) -> bool:
    return (
        granted is not None
        and granted.get("action") == name
        and granted.get("plan_index") == index
        and granted.get("plan_version") == version
    )


_SILENT = NullTracer()


class Planner(_Node):
    """Plans from the current world state for the current goal, skipping blacklisted actions."""

    async def run(self, ctx: Context, s: GoapState) -> NodeResult[GoapState]:
        """Set `plan` (and go execute it), rescue a stuck run, or end it with status `no_plan`."""
        cfg = self.cfg
        started = s.wall_clock_started_at if s.wall_clock_started_at is not None else await _clock(ctx)
        view, readings, events = await self.sense(ctx, s)
        world = view.world_state
        goal = current_goal(view)
        black = sorted(set(s.blacklisted_actions) | spent_single_use(cfg, s))
        previous = s.plan[s.current_step :] if s.plans_made and s.plan else []
        await call_tracer(self.tracer(ctx), "plan_start", goal, dict(world), type(cfg.strategy).__name__)
        tool = _PlanCall(cfg, world, view)
        inp = {"goal": goal.label, "blacklist": black, "previous": list(previous)}
        tel = cfg.telemetry
        with tel.tracer.start_as_current_span("goap.plan") as span:
            t0 = time.perf_counter()
            if ctx.recorded is not None and not any(c.get("tool") == "plan" for c in ctx.recorded):
                # A run recorded before planning was a recorded call: re-derive the plan.
                doc = await tool.call(ctx, inp)
            else:
                doc = await ctx.call(tool, inp)
            cleared = False
            if doc["plan"] is None and cfg.blacklist_fallback and s.blacklisted_actions:
                # The blacklist left no plan: plan without it (single-use actions stay out).
                inp = {**inp, "blacklist": sorted(spent_single_use(cfg, s))}
                again = await ctx.call(tool, inp)
                if again["plan"] is not None:
                    doc, cleared = again, True
            ms = (time.perf_counter() - t0) * 1e3
            result = _ResultView(cfg, doc)
            if span.is_recording():
                span.set_attributes(
                    GoapTelemetry.plan_attributes(result, replan_reason=s.replan_reason, ms=ms)
                )
            labels = {"goap.plan.status": doc["status"], "goap.plan.strategy": doc["strategy"] or ""}
            tel.planning_time.record(ms / 1e3, labels)
            tel.plans.add(1, labels)
            tel.nodes_expanded.add(int(doc["expanded"]), labels)
        ctx.emit(
            "planned",
            {
                "status": doc["status"],
                "strategy": doc["strategy"],
                "expanded": doc["expanded"],
                "generated": doc["generated"],
                "cost": doc["cost"],
                "length": len(doc["plan"]) if doc["plan"] is not None else None,
                "replan_reason": s.replan_reason,
            },
        )
        version = self._version(ctx, s, doc)
        base: dict[str, Any] = {"wall_clock_started_at": started, "plan_lineage": [version]}
        if readings is not None and readings.changed:
            base["world_state"] = world
        if doc["plan"] is None:
            await call_tracer(self.tracer(ctx), "plan_failed", doc["status"], ms)
            reason: StuckReason = "budget_exhausted" if doc["status"] == "budget_exhausted" else "no_plan"
            fix, more = await self.unstick(ctx, view, reason)
            events += more
            if fix is not None:
                return NodeResult(
                    delta=GoapState(**{**base, **fix}, policy_events=events), route=goto("planner")
                )
            t = await self.terminate(ctx, view, stuck=True)
            if t is not None:
                return self.terminated(ctx, t, {**base, "plan": [], "current_step": 0}, events)
            return NodeResult(
                delta=GoapState(
                    **base,
                    status=reason,
                    plan=[],
                    current_step=0,
                    no_plan_explanation=doc["explanation"],
                    policy_events=events,
                ),
                route=stop(),
            )
        plan_obj = result.plan
        await call_tracer(self.tracer(ctx), "plan_complete", plan_obj, ms)
        if s.plans_made:
            await call_tracer(self.tracer(ctx), "replan", s.replan_reason or "", plan_obj)
        made = s.plans_made + 1
        route, extra = self.hop(doc["plan"], 0, made, None)
        if cleared:
            extra.update(blacklisted_actions=[], action_failure_counts={})
        if doc["goal_index"] is not None:
            extra["current_subgoal_index"] = doc["goal_index"]
        return NodeResult(
            delta=GoapState(
                **base,
                **extra,
                status="executing",
                plan=list(doc["plan"]),
                plan_cost=float(doc["cost"]),
                current_step=0,
                no_plan_explanation=None,
                plans_made=made,
                approval_granted=None,
                policy_events=events,
            ),
            route=route,
        )

    def _remaining_cost(self, world: Mapping[str, Any], names: Sequence[str]) -> float | None:
        """What the rest of the old plan would have cost from here (None if it cannot be evaluated)."""
        state: dict[str, Any] = dict(world)
        total = 0.0
        try:
            for n in names:
                a = self.cfg.actions[n]
                total += a.cost_in(state)
                state = a.apply(state)
        except Exception:  # an unknown action or a cost function that fails off its plan
            return None
        return total

    def _version(self, ctx: Context, s: GoapState, doc: Mapping[str, Any]) -> PlanVersion:
        trigger, detail = trigger_of(s)
        # Compared with what was still to do: the executed prefix of the old plan is history,
        # not something the new plan removed.
        old_plan = list(s.plan[s.current_step :])
        old_cost = self._remaining_cost(s.world_state, old_plan) if s.plans_made else None
        new_plan = list(doc["plan"] or [])
        added, removed = plan_diff(old_plan, new_plan) if doc["plan"] is not None else ([], [])
        cost = doc["cost"]
        solver = {
            "strategy": doc["strategy"],
            "seed": self.cfg.seed,
            "limits": _limits(self.cfg.strategy, str(doc["strategy"] or "")),
            "optimal": doc["optimal"],
            "expanded": doc["expanded"],
        }
        return PlanVersion(
            version=len(s.plan_lineage) + 1,
            step=ctx.step,
            trigger=trigger,
            reason=s.replan_reason if trigger != "initial" else None,
            detail=detail,
            status=doc["status"],
            plan=new_plan,
            cost=cost,
            subgoal=doc["goal_index"] if doc["goal_index"] is not None else s.current_subgoal_index,
            added=added,
            removed=removed,
            cost_change=(cost - old_cost) if cost is not None and old_cost is not None else None,
            solver=solver,
        )


class _ResultView:
    """A recorded planning round seen as a `PlanResult` (for tracers and telemetry)."""

    def __init__(self, cfg: GoapConfig, doc: Mapping[str, Any]) -> None:
        self.status = doc["status"]
        self.strategy = doc["strategy"]
        self.optimal = doc["optimal"]
        self.stats = SearchStats(expanded=int(doc["expanded"]), generated=int(doc["generated"]))
        names = doc["plan"]
        self.plan = (
            None
            if names is None
            else Plan(tuple(cfg.actions[n] for n in names if n in cfg.actions), float(doc["cost"]))
        )
        why = doc["explanation"]
        self.explanation = None if why is None else _Explained(why)
        r, sv = doc.get("routing"), doc.get("solver")
        self.routing = None if r is None else SimpleNamespace(**r)
        self.solver = None if sv is None else SimpleNamespace(**sv)


@dataclass(frozen=True, slots=True)
class _Explained:
    doc: dict[str, Any]

    def to_dict(self) -> dict[str, Any]:
        return self.doc


class ApprovalStep(_Node):
    """Asks a person to approve the next action (see `goap.runtime._approval`); the engine pauses before it.

    It runs once per answer and does nothing before reading it, so nothing is done twice.
    """

    async def run(self, ctx: Context, s: GoapState) -> NodeResult[GoapState]:
        """Validate the answer, then go execute (approved) or blacklist and replan (rejected)."""
        ask = s.pending_approval
        if ask is None:
            return NodeResult(route=goto("executor"))
        action = self.cfg.actions[str(ask["action"])]
        form = action.approval
        assert form is not None
        if not ctx.resumed:
            # Resumed without an answer: keep waiting, now as the step's own interrupt.
            ctx.interrupt(dict(ask))
        try:
            answer = form.model_validate(ctx.resume_input)
        except ValidationError as exc:
            return NodeResult(route=interrupt({**ask, "error": str(exc)}))
        approved = bool(getattr(answer, "approved", False))
        why = str(getattr(answer, "reason", "") or "")
        if approved:
            args = answer.model_dump(mode="json", exclude=set(BASE_FIELDS))
            ev = PolicyEvent(step=ctx.step, kind="approval_granted", name=action.name, message=why)
            return NodeResult(
                delta=GoapState(
                    pending_approval=None,
                    approval_granted={**ask, "arguments": args},
                    policy_events=[ev],
                ),
                route=goto("executor"),
            )
        black = list(s.blacklisted_actions)
        if action.name not in black:
            black.append(action.name)
        ev = PolicyEvent(step=ctx.step, kind="approval_rejected", name=action.name, message=why)
        return NodeResult(
            delta=GoapState(
                pending_approval=None,
                approval_granted=None,
                blacklisted_actions=black,
                replan_reason="approval_rejected",
                status="planning",
                policy_events=[ev],
            ),
            route=goto("planner"),
        )
