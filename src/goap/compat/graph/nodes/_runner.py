"""Running one action of a plan: guards, human approval, ``execute`` with its QoS retries, effects.

:class:`ActionRunner` is what :class:`~goap.compat.graph.nodes.GoapExecutor` and
:class:`~goap.compat.graph.nodes.ParallelGoapExecutor` share: the sequential executor runs one
action per step, the parallel one a wave of them.

Ported from ``langgoap.graph.nodes.executor`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

import asyncio
import inspect
import random
import time
from typing import TYPE_CHECKING, Any

from goap.compat.actions import ActionSpec
from goap.compat.graph.nodes._execution import (
    apply_result,
    build_failure,
    build_guard_block,
    build_success,
    check_human_approval,
)
from goap.compat.guards import (
    ActionGuard,
    AsyncActionGuard,
    has_blocking_failure,
    run_guards_async,
    run_guards_sync,
)
from goap.compat.tracing import NullTracer, PlanningTracer, SafeTracerProxy

if TYPE_CHECKING:
    from goap.compat.planner.transitions import TransitionModel


class ActionRunner:
    """Runs single actions for an executor node (see the module docstring).

    Args:
        tracer: told of each action's start, retries and completion (wrapped in
            :class:`~goap.compat.tracing.SafeTracerProxy`, so a failing hook never fails an action).
        guards: evaluated before each action; a ``BLOCK`` failure stops it and blacklists it.
        transition_model: draws the effects of actions whose ``execute`` is absent or returns
            ``None`` (``execute``'s dict, when it returns one, is authoritative).
        rng: the random source of ``transition_model.sample`` and retry back-off (one
            ``random.Random()`` when omitted; pass a seeded one for reproducible runs).
        actions: the live action specs, by which actions restored from a checkpoint (whose
            callables, QoS and form classes the serializer drops) are rebound before they run.
    """

    def __init__(
        self,
        *,
        tracer: PlanningTracer | None = None,
        guards: list[ActionGuard | AsyncActionGuard] | None = None,
        transition_model: TransitionModel | None = None,
        rng: random.Random | None = None,
        actions: list[ActionSpec] | None = None,
    ) -> None:
        self._tracer: PlanningTracer = SafeTracerProxy(tracer or NullTracer())
        self._guards: list[ActionGuard | AsyncActionGuard] = guards or []
        self._transition_model: TransitionModel | None = transition_model
        self._rng: random.Random = rng if rng is not None else random.Random()
        self._actions: dict[str, ActionSpec] = {a.name: a for a in actions} if actions else {}

    def _rebind(self, action: ActionSpec) -> ActionSpec:
        """The live ``ActionSpec`` named as ``action`` (``action`` itself when unknown)."""
        return self._actions.get(action.name, action)

    def run_sync(
        self, action: ActionSpec, world_state: dict[str, Any], step: int
    ) -> tuple[dict[str, Any], bool]:
        """Run ``action`` (plan index ``step``) on ``world_state``, which it updates in place.

        Returns the executor's update and whether ``execute`` completed: False when a guard
        blocked it, a person denied it or it raised (an effect validator's rejection counts as
        completed, as in langgoap, and comes back as an ``action_failed`` update).
        """
        self._tracer.on_action_start(action, world_state)
        before = dict(world_state)
        if self._guards:
            checks = run_guards_sync(self._guards, action, world_state)
            if has_blocking_failure(checks):
                return self._complete_sync(build_guard_block(action, checks, before, world_state), False)
        # Human-in-the-loop: interrupt() raises GraphInterrupt on the first pass (the
        # checkpointer keeps the state) and returns the answer when the run resumes.
        denial = check_human_approval(action, world_state, before)
        if denial is not None:
            return self._complete_sync(denial, False)
        try:
            raw = execute_with_retries_sync(action, world_state, tracer=self._tracer, rng=self._rng)
            apply_result(raw, action, world_state, transition_model=self._transition_model, rng=self._rng)
        except Exception as exc:
            return self._complete_sync(build_failure(action, exc, before, world_state), False)
        return self._complete_sync(build_success(action, step, before, world_state), True)

    async def run_async(
        self, action: ActionSpec, world_state: dict[str, Any], step: int
    ) -> tuple[dict[str, Any], bool]:
        """Async :meth:`run_sync`: async guards and tracer hooks, ``aexecute`` preferred."""
        await self._tracer.aon_action_start(action, world_state)
        before = dict(world_state)
        if self._guards:
            checks = await run_guards_async(self._guards, action, world_state)
            if has_blocking_failure(checks):
                return await self._complete_async(
                    build_guard_block(action, checks, before, world_state), False
                )
        denial = check_human_approval(action, world_state, before)
        if denial is not None:
            return await self._complete_async(denial, False)
        try:
            raw = await execute_with_retries_async(action, world_state, tracer=self._tracer, rng=self._rng)
            apply_result(raw, action, world_state, transition_model=self._transition_model, rng=self._rng)
        except Exception as exc:
            return await self._complete_async(build_failure(action, exc, before, world_state), False)
        return await self._complete_async(build_success(action, step, before, world_state), True)

    def _complete_sync(self, result: dict[str, Any], ran: bool) -> tuple[dict[str, Any], bool]:
        self._tracer.on_action_complete(result)
        return result, ran

    async def _complete_async(self, result: dict[str, Any], ran: bool) -> tuple[dict[str, Any], bool]:
        await self._tracer.aon_action_complete(result)
        return result, ran


def execute_with_retries_sync(
    action: ActionSpec,
    world_state: dict[str, Any],
    *,
    tracer: PlanningTracer,
    rng: random.Random | None,
) -> Any:
    """Run ``action`` with the sync retry loop dictated by ``action.qos``.

    When ``action.qos`` is ``None`` this is a single attempt — preserving
    a single attempt.  Otherwise the executor re-invokes
    the action up to ``qos.max_attempts`` times, sleeping
    ``qos.compute_backoff_ms(attempt)`` between attempts and emitting
    ``on_action_retry`` before each sleep.  Returns the raw result of
    the successful invocation, or re-raises the last exception when
    every attempt is exhausted.
    """
    if action.aexecute is not None and action.execute is None:
        raise RuntimeError(
            f"Action {action.name!r} is async-only (aexecute is set, "
            "execute is None). Use GoapGraph.ainvoke() or "
            "compiled.ainvoke() to run async actions."
        )
    if action.execute is not None and inspect.iscoroutinefunction(action.execute):
        raise RuntimeError(
            f"Action {action.name!r} has an async execute callable. "
            "Use GoapGraph.ainvoke() or compiled.ainvoke() instead."
        )

    backoff_rng = rng if rng is not None else random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            if action.execute is not None:
                return action.execute(world_state)
            return None
        except Exception as exc:
            backoff_ms = _backoff_or_raise(action, exc, attempt, backoff_rng)
            tracer.on_action_retry(action, attempt, exc, backoff_ms)
            time.sleep(backoff_ms / 1000.0)


async def execute_with_retries_async(
    action: ActionSpec,
    world_state: dict[str, Any],
    *,
    tracer: PlanningTracer,
    rng: random.Random | None,
) -> Any:
    """Async sibling of :func:`execute_with_retries_sync`."""
    backoff_rng = rng if rng is not None else random.Random()
    attempt = 0
    while True:
        attempt += 1
        try:
            return await async_execute_action(action, world_state)
        except Exception as exc:
            backoff_ms = _backoff_or_raise(action, exc, attempt, backoff_rng)
            await tracer.aon_action_retry(action, attempt, exc, backoff_ms)
            await asyncio.sleep(backoff_ms / 1000.0)


def _backoff_or_raise(action: ActionSpec, exc: Exception, attempt: int, rng: random.Random) -> float:
    """The pause before the next attempt, in ms; re-raises ``exc`` when ``action.qos`` allows none.

    No QoS is a single attempt; ``ActionQos.should_retry`` is False from ``max_attempts`` on, so the
    retry loops of both paths end.
    """
    qos = action.qos
    if qos is None or not qos.should_retry(exc, attempt):
        raise exc
    return qos.compute_backoff_ms(attempt, rng=rng)


async def async_execute_action(action: ActionSpec, world_state: dict[str, Any]) -> Any:
    """Resolve and await the best async callable for *action*.

    Resolution priority:
    1. ``action.aexecute`` — explicit async callable (highest priority)
    2. ``action.execute`` if it is a coroutine function
    3. ``action.execute`` run in the default thread-pool executor (sync → async)
    4. No callable — returns ``None``; caller applies declared effects

    This is a public helper so that advanced callers (e.g. custom executors,
    test utilities) can reuse the resolution logic without duplicating it.
    """
    if action.aexecute is not None:
        return await action.aexecute(world_state)
    if action.execute is not None:
        if inspect.iscoroutinefunction(action.execute):
            return await action.execute(world_state)
        loop = asyncio.get_running_loop()
        return await loop.run_in_executor(None, action.execute, world_state)
    return None


__all__ = ["ActionRunner", "async_execute_action", "execute_with_retries_async", "execute_with_retries_sync"]
