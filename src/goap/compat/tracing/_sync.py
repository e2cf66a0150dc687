"""`SyncTracer`: a tracer written once, with sync hooks; its async hooks call them.

Ported from ``langgoap.tracing.logging`` (langgoap 0.1.2, MIT licence, Integrallis Software),
whose logging tracer spelled out each async hook as a call of its sync twin.
"""

from __future__ import annotations

from typing import Any

from goap.compat.tracing._protocol import PlanningTracer

__all__ = ["SyncTracer"]


class SyncTracer(PlanningTracer):
    """Base of tracers whose hooks do not await: override the sync hooks you need.

    Every sync hook does nothing; every async hook runs its sync twin, so the same events are
    seen under ``invoke`` and ``ainvoke``.
    """

    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        return None

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        return None

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        return None

    def on_action_start(self, action: Any, state: Any) -> None:
        return None

    def on_action_complete(self, result: Any) -> None:
        return None

    def on_action_retry(self, action: Any, attempt: int, exception: BaseException, backoff_ms: float) -> None:
        return None

    def on_strategy_chosen(self, strategy_name: str) -> None:
        return None

    def on_replan(self, reason: str, new_plan: Any) -> None:
        return None

    def on_goal_achieved(self, final_state: Any) -> None:
        return None

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        return None

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
        return None

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        return None

    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        return None

    async def aon_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        self.on_plan_start(goal, state, strategy_name)

    async def aon_plan_complete(self, plan: Any, duration_ms: float) -> None:
        self.on_plan_complete(plan, duration_ms)

    async def aon_plan_failed(self, reason: str, duration_ms: float) -> None:
        self.on_plan_failed(reason, duration_ms)

    async def aon_action_start(self, action: Any, state: Any) -> None:
        self.on_action_start(action, state)

    async def aon_action_complete(self, result: Any) -> None:
        self.on_action_complete(result)

    async def aon_action_retry(
        self, action: Any, attempt: int, exception: BaseException, backoff_ms: float
    ) -> None:
        self.on_action_retry(action, attempt, exception, backoff_ms)

    async def aon_strategy_chosen(self, strategy_name: str) -> None:
        self.on_strategy_chosen(strategy_name)

    async def aon_replan(self, reason: str, new_plan: Any) -> None:
        self.on_replan(reason, new_plan)

    async def aon_goal_achieved(self, final_state: Any) -> None:
        self.on_goal_achieved(final_state)

    async def aon_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        self.on_sensor_complete(sensor_name, updates)

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
        self.on_search_expand(node_id, state, g, h, f, parent_id, action_name)

    async def aon_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        self.on_search_dead_end(reason, detail)

    async def aon_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        self.on_search_complete(nodes_explored, duration_ms, found)
