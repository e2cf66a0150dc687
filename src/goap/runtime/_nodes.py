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
from dataclasses import dataclass, field, replace
from random import Random
from types import SimpleNamespace
from typing import Any

from opentelemetry.trace import Status, StatusCode
from pydantic import ValidationError

from goap.planning._actions import ActionSpec
from goap.planning._conditions import holds
from goap.planning._constraints import ConstrainedGoal, ResourceConstraint
from goap.planning._goals import GoalSpec, MultiGoal
from goap.planning._planner import DefaultStrategy, plan_any
from goap.planning._planner import plan as make_plan
from goap.planning._qos import ActionQos, ActionRetry, RetryableActionError, qos_of
from goap.planning._result import Plan, SearchStats
from goap.planning._strategy import PlanningStrategy
from goap.planning._transitions import DeterministicTransitionModel, TransitionModel
from goap.runtime._approval import BASE_FIELDS
from goap.runtime._guards import run_check
from goap.runtime._lineage import PlanVersion, plan_diff, trigger_of
from goap.runtime._otel import GoapTelemetry
from goap.runtime._parallel import BatchCall, independent_batch
from goap.runtime._reflexion import ReflectCall, ReflexionTracer
from goap.runtime._sensors import SensorReadings, read_sensors
from goap.runtime._serialize import goal_from_dict
from goap.runtime._state import ActionOutcome, GoapState, PolicyEvent, ReplanReason
from goap.runtime._stuck import HandlerCall, StuckReason
from goap.runtime._termination import RunView, Termination, needs_clock
from goap.runtime._tracing import NullTracer, call_tracer
from graphengine import Context, Next, NodeResult, ToolCallError, goto, interrupt, stop

_BATCH_MAX = 16  # the most actions a parallel batch runs (goap.runtime._parallel)

__all__ = ["ApprovalStep", "Executor", "GoapConfig", "Observer", "Planner", "current_goal"]

_log = logging.getLogger("goap.runtime._nodes")


@dataclass(frozen=True, slots=True)
class GoapConfig:
    """Settings the nodes share (built by `GoapGraph`)."""

    actions: Mapping[str, ActionSpec]
    """Actions by name."""
    strategy: PlanningStrategy = field(default_factory=DefaultStrategy)
    """How plans are made (default: A*, or the CP-SAT pipeline for a constrained goal)."""
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
    guards: tuple[Any, ...] = ()
    """Guards run around every action (before each action's own guards)."""
    sensors: tuple[Any, ...] = ()
    """Sensors read before every planning round and every observation."""
    stuck_handlers: tuple[Any, ...] = ()
    """Asked in order when the run is stuck (no plan, replan budget spent)."""
    termination: Any = None
    """A `TerminationPolicy` checked after every action (None: none)."""
    reflexion: ReflexionTracer | None = None
    """Writes the failure notes of `reflection_context` (None: the executor's default note)."""
    max_stuck_resolutions: int = 3
    """How often stuck handlers may rescue one run."""
    parallel: bool = False
    """Run consecutive independent plain actions of a plan concurrently (see `goap.runtime._parallel`)."""
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


def spent_single_use(cfg: GoapConfig, s: GoapState) -> set[str]:
    """Single-use actions (``can_rerun=False``) this run has already executed."""
    out: set[str] = set()
    for o in s.execution_history:
        a = cfg.actions.get(o.action)
        if o.executed and a is not None and not qos_of(a).can_rerun:
            out.add(o.action)
    return out


def _limits(strategy: Any, planned_by: str = "") -> dict[str, Any]:
    if isinstance(strategy, DefaultStrategy):
        # The limits that mattered are those of the strategy it delegated to (named in the round).
        inner = strategy.constrained if planned_by == strategy.constrained.name else strategy.search
        return _limits(inner, planned_by)
    out: dict[str, Any] = {}
    for name in ("max_expansions", "timeout", "time_budget", "weight", "heuristic", "seed", "time_limit"):
        v = getattr(strategy, name, None)
        if isinstance(v, int | float | str) and not isinstance(v, bool):
            out[name] = v
    return out


def solve(
    cfg: GoapConfig, world: Mapping[str, Any], s: GoapState, blacklist: Sequence[str], previous: Sequence[str]
) -> dict[str, Any]:
    """One planning round as JSON: what the planner records and a ``replan=True`` replay recomputes."""
    actions = list(cfg.actions.values())
    black = frozenset(blacklist)
    goal_index: int | None = None
    g = s.goal
    if isinstance(g, MultiGoal) and g.mode == "any":
        g = MultiGoal(tuple(remaining_budget(cfg, s, leg) for leg in g.goals), mode="any")
        goal_index, result = plan_any(world, g, actions, cfg.strategy, blacklist=black)
    else:
        goal = remaining_budget(cfg, s, current_goal(s))
        repair = getattr(cfg.strategy, "repair", None)
        if previous and callable(repair):
            result = repair(world, goal, actions, previous, blacklist=black)
        else:
            result = make_plan(world, goal, actions, cfg.strategy, blacklist=black)
    return {
        "status": result.status,
        "plan": list(result.plan.names) if result.plan is not None else None,
        "cost": result.plan.cost if result.plan is not None else None,
        "strategy": result.strategy,
        "optimal": result.optimal,
        "expanded": result.stats.expanded,
        "generated": result.stats.generated,
        "seconds": result.stats.seconds,
        "explanation": result.explanation.to_dict() if result.explanation is not None else None,
        "goal_index": goal_index,
        "routing": _routing_doc(getattr(result, "routing", None)),
        "solver": _solver_doc(getattr(result, "solver", None)),
    }


def remaining_budget(cfg: GoapConfig, s: GoapState, goal: GoalSpec) -> GoalSpec:
    """``goal`` with its additive bounds reduced by what the run already spent pursuing it.

    A :class:`goap.ConstrainedGoal`'s bounds on ``cost``, ``length`` and resource sums hold for
    the run, not for each plan: after executed actions spent 3 of ``tokens <= 4``, a replan may
    spend 1 more. Actions that ran count (``executed``), failed ones too, since their resources
    were used; for a sequential MultiGoal only those of the current sub-goal. ``makespan`` bounds,
    objectives and capacities are per plan and stay as they are. A bound already exceeded becomes
    negative, so the pipeline answers ``no_plan`` naming the constraint rather than overspending.
    """
    if not isinstance(goal, ConstrainedGoal) or not goal.constraints:
        return goal
    sequential = isinstance(s.goal, MultiGoal) and s.goal.mode == "sequential"
    done = [
        o
        for o in s.execution_history
        if o.executed and (not sequential or o.subgoal == s.current_subgoal_index)
    ]
    if not done:
        return goal

    def spent(key: str) -> float | None:
        if key == "cost":
            return sum(o.cost for o in done)
        if key == "length":
            return float(len(done))
        if key == "makespan":
            return None
        total = 0.0
        for o in done:
            a = cfg.actions.get(o.action)
            if a is not None and a.resources:
                total += float(a.resources.get(key, 0.0))
        return total

    bounds: list[ResourceConstraint] = []
    for c in goal.constraints:
        used = spent(c.key)
        if not used:
            bounds.append(c)
            continue
        bounds.append(
            replace(
                c,
                max=None if c.max is None else c.max - used,
                min=None if c.min is None else c.min - used,
                name=f"{c.label} ({used:g} already spent)",
            )
        )
    return replace(goal, constraints=tuple(bounds))


def _routing_doc(routing: Any) -> dict[str, Any] | None:
    """What a StrategyRouter chose and why (kept with the recorded round for telemetry)."""
    if routing is None:
        return None
    return {"chosen": str(routing.chosen), "reason": str(routing.reason)}


def _solver_doc(solver: Any) -> dict[str, Any] | None:
    """The CP-SAT report of a refined round (status, objective levels, time, seed)."""
    if solver is None:
        return None
    return {
        "status": str(solver.status),
        "seconds": float(solver.seconds),
        "seed": int(solver.seed),
        "candidates": int(solver.candidates),
        "time_limit_hit": bool(solver.time_limit_hit),
        "levels": [float(v) for v in solver.levels],
    }


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


class _ActionCall:
    """An action's `execute` as a recorded tool call."""

    def __init__(self, action: ActionSpec, qos: ActionQos, arguments: Mapping[str, Any]) -> None:
        self.action = action
        self.qos = qos
        self.arguments = arguments
        self.name = f"action:{action.name}"

    async def call(self, ctx: Context, world: Any) -> Any:
        assert self.action.execute is not None
        try:
            out = self.action.execute(dict(world), **self.arguments)
            if asyncio.iscoroutine(out) or isinstance(out, asyncio.Future):
                out = await out
        except Exception as exc:
            # Classify here, where the exception's class is known; the record keeps the verdict.
            if self.qos.attempts > 1 and self.qos.retryable(exc):
                raise RetryableActionError(f"{type(exc).__name__}: {exc}") from exc
            raise
        return out


_RETRYABLE = "RetryableActionError: "


class Executor(_Node):
    """Runs the plan's next action; a raising `execute` is an action failure, never a crash.

    Guards run around it, its QoS decides retries (raising `ActionRetry` for the engine to retry
    the step), and a single-use action that already ran is refused.
    """

    def __init__(self, cfg: GoapConfig) -> None:
        super().__init__(cfg)
        self.model: TransitionModel = cfg.transition_model or DeterministicTransitionModel()

    async def _guards(
        self, ctx: Context, action: ActionSpec, world: Mapping[str, Any], stage: str
    ) -> tuple[list[str], tuple[str, str] | None, list[PolicyEvent]]:
        warnings: list[str] = []
        events: list[PolicyEvent] = []
        block: tuple[str, str] | None = None
        for g in (*self.cfg.guards, *action.guards):
            if getattr(g, "stage", "pre") != stage:
                continue
            try:
                verdict = await ctx.call(_GuardCall(g, action), world, name=f"guard:{g.name}")
            except ToolCallError as exc:
                # A raising guard is isolated from the others and counts as a warning.
                verdict = {
                    "passed": False,
                    "message": f"raised {str(exc).split(' failed: ', 1)[-1]}",
                    "severity": "warn",
                }
            if verdict.get("passed"):
                continue
            msg = str(verdict.get("message", ""))
            if verdict.get("severity") == "block":
                events.append(PolicyEvent(step=ctx.step, kind="guard_block", name=g.name, message=msg))
                if block is None:
                    block = (g.name, msg)
            else:
                warnings.append(f"{g.name}: {msg}")
                events.append(PolicyEvent(step=ctx.step, kind="guard_warn", name=g.name, message=msg))
        return warnings, block, events

    async def run(self, ctx: Context, s: GoapState) -> NodeResult[GoapState]:
        """Execute one action and record its outcome; the observer decides what comes next."""
        cfg = self.cfg
        name = s.plan[s.current_step]
        action = cfg.actions.get(name)
        if action is None:
            ctx.emit(f"plan names unknown action {name!r}", {"action": name})
            return NodeResult(delta=GoapState(status="failed"), route=stop())
        if cfg.parallel and ctx.attempt == 1:
            batch = independent_batch(cfg.actions, s)
            if batch:
                return await self._run_batch(ctx, s, batch)
        if action.approval is not None and not _granted(
            s.approval_granted, name, s.current_step, s.plans_made
        ):
            # Never run an action that needs an approval it has not been given.
            route, extra = self.hop(s.plan, s.current_step, s.plans_made, s.approval_granted)
            return NodeResult(delta=GoapState(**extra), route=route)
        qos = qos_of(action)
        world = dict(s.world_state)
        if ctx.attempt == 1:
            await call_tracer(self.tracer(ctx), "action_start", action, world)
        elif not ctx.replaying and qos.delay(ctx.attempt - 1) > 0:
            await asyncio.sleep(qos.delay(ctx.attempt - 1))
        if not qos.can_rerun and name in spent_single_use(cfg, s):
            return await self._failed(
                ctx, s, action, f"single-use action {name!r} already ran in this run", False
            )
        if not action.applicable(world):
            unmet = [k for k, c in action.preconditions.items() if not holds(c, world.get(k))]
            error = f"preconditions of {name!r} do not hold: " + ", ".join(
                f"{k}={world.get(k)!r}" for k in unmet
            )
            return await self._failed(ctx, s, action, error, False)
        warnings, block, events = await self._guards(ctx, action, world, "pre")
        if block is not None:
            error = f"blocked by guard {block[0]!r}: {block[1]}"
            return await self._failed(
                ctx, s, action, error, False, guard=block[0], warnings=warnings, events=events
            )
        args = dict((s.approval_granted or {}).get("arguments") or {})
        expected = dict(self.model.expected(world, action))
        span = cfg.telemetry.tracer.start_span(
            f"execute_tool {name}",
            attributes={
                "gen_ai.operation.name": "execute_tool",
                "gen_ai.tool.name": name,
                "gen_ai.tool.type": "function",
            },
        )
        try:
            out = (
                await ctx.call(_ActionCall(action, qos, args), world) if action.execute is not None else None
            )
            if out is not None and not isinstance(out, dict):
                raise ToolCallError(
                    f"execute of {name!r} returned {type(out).__name__}, expected a dict or None", tool=name
                )
        except ToolCallError as exc:
            # "tool 'action:x' failed: TimeoutError: ..." -> "TimeoutError: ..."
            error = str(exc).split(" failed: ", 1)[-1].removeprefix(_RETRYABLE)
            span.set_status(Status(StatusCode.ERROR, error))
            span.set_attribute("error.type", error.split(":", 1)[0])
            span.end()
            if exc.error_type == RetryableActionError.__name__ and ctx.attempt < qos.attempts:
                await call_tracer(
                    self.tracer(ctx), "action_retry", action, ctx.attempt, exc, qos.delay(ctx.attempt) * 1e3
                )
                raise ActionRetry(f"{name}: {error}") from exc
            return await self._failed(ctx, s, action, error, True, warnings=warnings, events=events)
        span.end()
        if out is not None:
            new_world = {**world, **out}
        else:
            rng = Random(f"{cfg.seed}:{ctx.step}:1")  # seed and position only: same inputs, same run
            new_world = dict(self.model.sample(world, action, rng))
        more, block, post_events = await self._guards(ctx, action, new_world, "post")
        warnings += more
        events += post_events
        if block is not None:
            error = f"result refused by guard {block[0]!r}: {block[1]}"
            return await self._failed(
                ctx, s, action, error, True, guard=block[0], warnings=warnings, events=events
            )
        changed = {k: v for k, v in new_world.items() if world.get(k) != v or k not in world}
        outcome = ActionOutcome(
            action=name,
            success=True,
            step=ctx.step,
            plan_index=s.current_step,
            effects=changed,
            subgoal=s.current_subgoal_index,
            cost=_cost(action, world),
            warnings=warnings,
        )
        await call_tracer(self.tracer(ctx), "action_complete", outcome)
        return NodeResult(
            delta=GoapState(
                world_state=new_world,
                current_step=s.current_step + 1,
                execution_history=[outcome],
                # A read-only action cannot have caused a deviation: nothing to check after it.
                expected_world_state=None if qos.read_only else {k: expected.get(k) for k in action.effects},
                approval_granted=None,
                policy_events=events,
            ),
            route=goto("observer"),
        )

    async def _run_batch(self, ctx: Context, s: GoapState, batch: list[ActionSpec]) -> NodeResult[GoapState]:
        """Execute independent actions together; record each outcome in plan order."""
        cfg = self.cfg
        world = dict(s.world_state)
        for a in batch:
            await call_tracer(self.tracer(ctx), "action_start", a, world)
        results = await ctx.call(BatchCall(batch), world)
        new_world = dict(world)
        expected: dict[str, Any] = {}
        outcomes: list[ActionOutcome] = []
        counts = dict(s.action_failure_counts)
        black = list(s.blacklisted_actions)
        notes: list[str] = []
        for i, (a, res) in enumerate(zip(batch, results, strict=True)):
            index = s.current_step + i
            if "error" in res:
                counts[a.name] = counts.get(a.name, 0) + 1
                if cfg.blacklist_after and counts[a.name] >= cfg.blacklist_after and a.name not in black:
                    black.append(a.name)
                outcome = ActionOutcome(
                    action=a.name,
                    success=False,
                    step=ctx.step,
                    plan_index=index,
                    error=res["error"],
                    subgoal=s.current_subgoal_index,
                )
                notes.append(
                    f"[{a.name}] failed ({res['error']}); "
                    + ("blacklisted: plan around it" if a.name in black else "retry later or plan around it")
                )
            else:
                out = res.get("out")
                if out is not None:
                    after = {**world, **out}
                else:
                    rng = Random(f"{cfg.seed}:{ctx.step}:{i}")
                    after = dict(self.model.sample(world, a, rng))
                changed = {k: v for k, v in after.items() if k not in world or world[k] != v}
                new_world.update(changed)
                exp = self.model.expected(world, a)
                expected.update({k: exp.get(k) for k in a.effects})
                outcome = ActionOutcome(
                    action=a.name,
                    success=True,
                    step=ctx.step,
                    plan_index=index,
                    effects=changed,
                    subgoal=s.current_subgoal_index,
                )
            outcomes.append(outcome)
            await call_tracer(self.tracer(ctx), "action_complete", outcome)
        ctx.emit(
            "parallel actions",
            {"actions": [a.name for a in batch], "failed": [o.action for o in outcomes if not o.success]},
        )
        return NodeResult(
            delta=GoapState(
                world_state=new_world,
                current_step=s.current_step + len(batch),
                execution_history=outcomes,
                action_failure_counts=counts,
                blacklisted_actions=black,
                reflection_context=notes,
                expected_world_state=expected or None,
            ),
            route=goto("observer"),
        )

    async def _failed(
        self,
        ctx: Context,
        s: GoapState,
        action: ActionSpec,
        error: str,
        executed: bool,
        *,
        guard: str | None = None,
        warnings: list[str] | None = None,
        events: list[PolicyEvent] | None = None,
    ) -> NodeResult[GoapState]:
        cfg = self.cfg
        name = action.name
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
            executed=executed,
            cost=_cost(action, s.world_state) if executed else 0.0,
            guard=guard,
            warnings=warnings or [],
        )
        if cfg.reflexion is not None:
            note = str(
                await ctx.call(ReflectCall(cfg.reflexion, s.world_state), {"action": name, "error": error})
            )
        else:
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
                approval_granted=None,
                policy_events=events or [],
            ),
            route=goto("observer"),
        )


def _cost(action: ActionSpec, world: Mapping[str, Any]) -> float:
    try:
        return action.cost_in(world)
    except Exception:  # a cost function that fails here already failed planning loudly
        return 0.0


class _GuardCall:
    def __init__(self, guard: Any, action: ActionSpec) -> None:
        self.guard = guard
        self.action = action
        self.name = f"guard:{guard.name}"

    async def call(self, ctx: Any, world: Any) -> Any:
        return await run_check(self.guard, self.action, dict(world))


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
