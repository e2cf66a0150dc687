"""The :class:`PlanningTracer` Protocol.

Lives in its own module so tracer implementations import just the Protocol.

Ported from ``langgoap.tracing._protocol`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable


@runtime_checkable
class PlanningTracer(Protocol):
    """Sync + async observability hooks for the GOAP planning loop.

    Every hook does nothing here and returns None, so a class that names this protocol as its
    base inherits a working no-op for every hook it does not define (a body of only a docstring
    would leave the hook abstract to type checkers).

    Every hook is fire-and-forget.  Implementations must **never**
    raise — :class:`~goap.compat.tracing.multi.MultiTracer` catches and
    logs exceptions, but user-facing nodes also wrap each call in a
    try/except as a second line of defence.
    """

    # ------------------------------------------------------------------
    # Sync hooks
    # ------------------------------------------------------------------
    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """A planning round starts for ``goal`` (the current sub-goal of a sequential MultiGoal) from ``state``."""
        return None

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """The first planning round of a run found ``plan`` in ``duration_ms``."""
        return None

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Planning found no plan, or the run ended without reaching its goal (``reason`` says why)."""
        return None

    def on_action_start(self, action: Any, state: Any) -> None:
        """The executor is about to run ``action`` in world ``state``."""
        return None

    def on_action_complete(self, result: Any) -> None:
        """Called immediately after an action node returns.

        ``result`` is the :class:`~goap.compat.graph.state.GoapState` update
        dict produced by :class:`~goap.compat.graph.nodes.GoapExecutor`.  Key
        fields to inspect:

        * ``result.get("status")`` — ``"executing"`` on success,
          ``"action_failed"`` on failure.
        * ``result.get("execution_history", [])`` — list of
          :class:`~goap.compat.graph.state.ActionResult` objects for the
          current planning round.
        * ``result.get("world_state")`` — updated world state after the
          action ran.

        Implementations must **never** raise.
        """
        return None

    def on_action_retry(self, action: Any, attempt: int, exception: BaseException, backoff_ms: float) -> None:
        """Called between retry attempts inside the executor.

        Fires when an action's ``execute`` / ``aexecute`` raised, the
        action's :class:`~goap.compat.qos.ActionQos` policy approved a
        retry, and the executor is about to sleep ``backoff_ms``
        before re-invoking.  ``attempt`` is 1-indexed and refers to
        the attempt that just failed.  Implementations must **never**
        raise.
        """
        return None

    def on_strategy_chosen(self, strategy_name: str) -> None:
        """Called when :class:`~goap.compat.planner.router.StrategyRouter`
        picks a planning strategy.  ``strategy_name`` is the simple
        class name.
        """
        return None

    def on_replan(self, reason: str, new_plan: Any) -> None:
        """A later planning round (``reason``: why the observer replanned) found ``new_plan``."""
        return None

    def on_goal_achieved(self, final_state: Any) -> None:
        """The observer found the goal satisfied in ``final_state``; the run ends."""
        return None

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Sensor ``sensor_name`` ran before planning and changed ``updates``."""
        return None

    # ------------------------------------------------------------------
    # A* search-tree hooks (gated by ``record_expansions`` on the graph /
    # planner — silent by default because per-expansion firehose is
    # high-volume and expensive to persist).  Aligned with the
    # OpenTelemetry GenAI convention of capturing high-volume content
    # as span *events* rather than nested child spans.
    # ------------------------------------------------------------------
    def on_search_expand(
        self,
        node_id: int,
        state: Any,
        g: float,
        h: float,
        f: float,
        parent_id: int | None,
        action_name: str | None,
    ) -> None:
        """A* expanded search node ``node_id`` (only with ``record_expansions``)."""
        return None

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """The search hit a dead end (``reason``, with ``detail``)."""
        return None

    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """The search ended after ``nodes_explored`` nodes; ``found`` says whether a plan was found."""
        return None

    # ------------------------------------------------------------------
    # Async hooks: the same events on the async (ainvoke) path
    # ------------------------------------------------------------------
    async def aon_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Async form of ``on_plan_start`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Async form of ``on_plan_complete`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Async form of ``on_plan_failed`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_action_start(self, action: Any, state: Any) -> None:
        """Async form of ``on_action_start`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_action_complete(self, result: Any) -> None:
        """Async form of ``on_action_complete`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_action_retry(
        self, action: Any, attempt: int, exception: BaseException, backoff_ms: float
    ) -> None:
        """Async form of ``on_action_retry`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_strategy_chosen(self, strategy_name: str) -> None:
        """Async form of ``on_strategy_chosen`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_replan(self, reason: str, new_plan: Any) -> None:
        """Async form of ``on_replan`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_goal_achieved(self, final_state: Any) -> None:
        """Async form of ``on_goal_achieved`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Async form of ``on_sensor_complete`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_search_expand(
        self,
        node_id: int,
        state: Any,
        g: float,
        h: float,
        f: float,
        parent_id: int | None,
        action_name: str | None,
    ) -> None:
        """Async form of ``on_search_expand`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """Async form of ``on_search_dead_end`` (awaited on the ``ainvoke`` path)."""
        return None

    async def aon_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """Async form of ``on_search_complete`` (awaited on the ``ainvoke`` path)."""
        return None


SYNC_HOOKS: tuple[str, ...] = tuple(name for name in vars(PlanningTracer) if name.startswith("on_"))
"""The names of the sync hooks, in declaration order; each has an async twin ``a<name>``.

Tracers that treat every hook alike (fan-out, forwarding) are built from this list, so a hook
added to the protocol reaches them without being spelled out again.
"""

__all__ = ["SYNC_HOOKS", "PlanningTracer"]
