"""The executor node: runs the next action (or a parallel batch) under its guards, QoS and
transition model, and records the outcome."""

from __future__ import annotations

import asyncio
from collections.abc import Mapping, Sequence
from random import Random
from typing import Any

from opentelemetry.trace import Status, StatusCode

from goap.planning import (
    ActionQos,
    ActionRetry,
    ActionSpec,
    DeterministicTransitionModel,
    RetryableActionError,
    TransitionModel,
    holds,
    qos_of,
)
from goap.runtime._config import GoapConfig, spent_single_use
from goap.runtime._guards import GuardCall
from goap.runtime._nodes import _granted, _Node
from goap.runtime._parallel import BatchCall, independent_batch
from goap.runtime._reflexion import ReflectCall
from goap.runtime._state import ActionOutcome, GoapState, PolicyEvent
from goap.runtime._tracing import call_tracer
from graphengine import Context, NodeResult, ToolCallError, goto, stop


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

__all__ = ["Executor", "count_failure"]


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
                verdict = await ctx.call(GuardCall(g, action), world, name=f"guard:{g.name}")
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
        if cfg.parallel and ctx.attempt == 1 and not cfg.guards:  # graph guards run action by action
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
        outcome = _outcome(ctx, s, name, True, effects=changed, cost=_cost(action, world), warnings=warnings)
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
                counts, black = count_failure(counts, black, a.name, cfg.blacklist_after)
                outcome = _outcome(ctx, s, a.name, False, index, error=res["error"])
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
                outcome = _outcome(ctx, s, a.name, True, index, effects=changed)
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
        counts, black = count_failure(
            s.action_failure_counts, s.blacklisted_actions, name, cfg.blacklist_after
        )
        outcome = _outcome(
            ctx,
            s,
            name,
            False,
            error=error,
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


def count_failure(
    counts: Mapping[str, int], black: Sequence[str], name: str, after: int
) -> tuple[dict[str, int], list[str]]:
    """The failure counts and blacklist after one more failure of ``name``: blacklisted when its
    count reaches ``after`` (0: never). The executor's bookkeeping, for adapters that count elsewhere."""
    n = counts.get(name, 0) + 1
    out = list(black)
    if after and n >= after and name not in out:
        out.append(name)
    return {**counts, name: n}, out


def _outcome(
    ctx: Context, s: GoapState, name: str, success: bool, index: int | None = None, **details: Any
) -> ActionOutcome:
    """The outcome of action ``name`` at this step; its plan index is ``index`` (default: the current
    step of ``s``) and its subgoal the current one of ``s``."""
    plan_index = s.current_step if index is None else index
    return ActionOutcome(
        action=name,
        success=success,
        step=ctx.step,
        plan_index=plan_index,
        subgoal=s.current_subgoal_index,
        **details,
    )


def _cost(action: ActionSpec, world: Mapping[str, Any]) -> float:
    try:
        return action.cost_in(world)
    except Exception:  # a cost function that fails here already failed planning loudly
        return 0.0
