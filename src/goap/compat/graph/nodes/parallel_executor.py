"""Parallel-wave LangGraph executor node.

When a plan contains a sequence of actions whose preconditions /
effects do not interact, they form a *parallel wave* that can be
executed concurrently in the async path or sequentially-in-one-tick
in the sync path.

Ported from ``langgoap.graph.nodes.parallel_executor`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

import asyncio
from typing import Any

from goap.compat.actions import ActionSpec
from goap.compat.graph.nodes._execution import prepare_execution
from goap.compat.graph.nodes._helpers import logger
from goap.compat.graph.nodes._runner import ActionRunner
from goap.compat.graph.state import ActionResult, GoapState


def find_parallel_group(
    plan_actions: tuple[ActionSpec, ...],
    current_step: int,
    deps: dict[int, list[int]] | None = None,
) -> list[int]:
    """Return the maximal set of plan indices that can run in parallel from *current_step*.

    Uses the CSP dependency graph: action j is added to the group as long as it
    does not depend (transitively or directly) on any action already in the
    group.  The group always contains *current_step* as its first element.

    Args:
        plan_actions: All actions in the plan (full tuple, not a slice).
        current_step: Index of the first action to include.
        deps: Pre-computed dependency graph (output of
            :func:`~goap.compat.planner.csp.build_dependency_graph`).  When
            ``None``, computed on-the-fly.  Pass this to avoid redundant
            graph construction across waves of the same plan.

    Returns:
        A list of action indices (all >= current_step) that can execute in
        parallel.  A single-element list means no parallelism is available at
        this step.
    """
    if current_step >= len(plan_actions):
        return []

    if deps is None:
        from goap.compat.planner.csp import build_dependency_graph

        deps = build_dependency_graph(plan_actions)

    group: list[int] = [current_step]
    group_set: set[int] = {current_step}

    for j in range(current_step + 1, len(plan_actions)):
        # Stop if j depends on any action already in the group.
        if any(d in group_set for d in deps[j]):
            break
        group.append(j)
        group_set.add(j)

    return group


class ParallelGoapExecutor(ActionRunner):
    """LangGraph node that executes independent plan actions in parallel.

    See :class:`~goap.compat.graph.nodes.executor.GoapExecutor` for
    sequential semantics; this class differs only in detecting the
    maximal *parallel wave* starting at ``current_step`` and running
    its members concurrently in the async path.

    Args:
        tracer: Optional :class:`~goap.compat.tracing.PlanningTracer` invoked for
            each action in the wave.
        guards: Optional list of :class:`~goap.compat.guards.ActionGuard` /
            :class:`~goap.compat.guards.AsyncActionGuard` evaluated before each
            action.  A ``BLOCK`` failure aborts that action and the whole wave.
        transition_model: Optional
            :class:`~goap.compat.planner.transitions.TransitionModel` consumed
            when a wave action's ``execute`` callable returns ``None`` (or
            is absent).  Mirrors :class:`GoapExecutor` so direct users of
            this class get identical stochastic runtime semantics.
        rng: Optional ``random.Random`` forwarded to
            ``transition_model.sample``.  When omitted, a single
            ``random.Random()`` is created at construction time and
            reused across waves.
    """

    # The dependency graph is cached by the plan's action-name signature, computed once per
    # plan rather than once per wave (not by id(): addresses are reused after collection). The
    # class default is None; the first wave sets the instance's own cache.
    _dep_cache: tuple[tuple[str, ...], dict[int, list[int]]] | None = None

    def _get_deps(self, plan_actions: tuple[ActionSpec, ...]) -> dict[int, list[int]]:
        """Return the dependency graph, caching by action-name signature."""
        key = tuple(a.name for a in plan_actions)
        if self._dep_cache is not None and self._dep_cache[0] == key:
            return self._dep_cache[1]
        from goap.compat.planner.csp import build_dependency_graph

        deps = build_dependency_graph(plan_actions)
        self._dep_cache = (key, deps)
        return deps

    def __call__(self, state: GoapState) -> dict[str, Any]:
        """Run the wave from ``current_step`` one action after another; stop at the first failure."""
        prep = prepare_execution(state)
        if isinstance(prep, dict):
            return prep
        world_state, plan_obj, current_step, _first_action = prep
        group = find_parallel_group(plan_obj.actions, current_step, self._get_deps(plan_obj.actions))
        merged_world: dict[str, Any] = dict(world_state)
        all_results: list[ActionResult] = []
        for idx in group:
            action = self._rebind(plan_obj.actions[idx])
            logger.info(
                "ParallelExecutor: running action %r (wave idx %d/%d)",
                action.name,
                group.index(idx) + 1,
                len(group),
            )
            result, ran = self.run_sync(action, merged_world, idx)
            if not ran:
                return result
            all_results.extend(result.get("execution_history", []))
        return {"world_state": merged_world, "current_step": max(group) + 1, "execution_history": all_results}

    async def acall(self, state: GoapState) -> dict[str, Any]:
        """Async variant — executes the wave actions concurrently via asyncio.gather."""
        prep = prepare_execution(state)
        if isinstance(prep, dict):
            return prep
        world_state, plan_obj, current_step, _first_action = prep
        group = find_parallel_group(plan_obj.actions, current_step, self._get_deps(plan_obj.actions))

        async def run_one(idx: int) -> dict[str, Any]:
            # Each action sees the world as it was when the wave started: independent actions
            # do not see each other's effects in progress.
            result, _ = await self.run_async(self._rebind(plan_obj.actions[idx]), dict(world_state), idx)
            return result

        raw_results = list(await asyncio.gather(*(run_one(idx) for idx in group)))
        for r in raw_results:
            if r.get("status") == "action_failed":
                return r  # abort the wave; the observer replans
        merged_world = dict(world_state)
        all_results: list[ActionResult] = []
        for r in raw_results:
            merged_world.update(r.get("world_state", {}))
            all_results.extend(r.get("execution_history", []))
        return {"world_state": merged_world, "current_step": max(group) + 1, "execution_history": all_results}


__all__ = ["ParallelGoapExecutor", "find_parallel_group"]
