"""LangGraph executor node — runs the current action in the plan.

Ported from ``langgoap.graph.nodes.executor`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

from typing import Any

from goap.compat.actions import ActionSpec
from goap.compat.graph.nodes._execution import prepare_execution
from goap.compat.graph.nodes._helpers import logger
from goap.compat.graph.nodes._runner import ActionRunner, async_execute_action
from goap.compat.graph.state import GoapState


class GoapExecutor(ActionRunner):
    """LangGraph node that executes the current action in the plan.

    Runs ``plan.actions[current_step]``, updates world_state with the action's effects, and
    appends to execution_history. A ``WARN`` guard failure is logged and the action runs; a
    ``BLOCK`` failure aborts it and blacklists it at once (as ``max_retries + 1`` failures),
    so the observer replans. Arguments: see :class:`ActionRunner`.
    """

    def __call__(self, state: GoapState) -> dict[str, Any]:
        step = self._current_action(state, "")
        if isinstance(step, dict):
            return step
        return self.run_sync(*step)[0]

    async def acall(self, state: GoapState) -> dict[str, Any]:
        """Async variant of the executor node.

        Uses :func:`async_execute_action` to resolve the best callable:
        1. ``action.aexecute`` (explicit async callable)
        2. ``action.execute`` if it is a coroutine function
        3. ``action.execute`` via ``loop.run_in_executor`` (sync in thread)
        4. No callable — declared effects applied
        """
        step = self._current_action(state, " async")
        if isinstance(step, dict):
            return step
        return (await self.run_async(*step))[0]

    def _current_action(
        self, state: GoapState, mode: str
    ) -> dict[str, Any] | tuple[ActionSpec, dict[str, Any], int]:
        """The live action at ``current_step`` with the world state and step, logged as run ``mode``.

        A dict is the node's whole update when there is nothing to run (no plan, or plan done).
        """
        prep = prepare_execution(state)
        if isinstance(prep, dict):
            return prep
        world_state, plan_obj, current_step, action = prep
        action = self._rebind(action)
        logger.info("Executing action %r%s (step %d/%d)", action.name, mode, current_step + 1, len(plan_obj))
        return action, world_state, current_step


__all__ = ["GoapExecutor", "async_execute_action"]
