"""LangGOAP's tracer protocol: goap.runtime's `PlanningTracer` plus routing, sensor and search hooks."""

from __future__ import annotations

from typing import Any, Protocol, runtime_checkable

from goap.runtime import PlanningTracer as _RuntimeTracer

__all__ = ["EXTRA_HOOKS", "PlanningTracer"]

EXTRA_HOOKS = ("strategy_chosen", "sensor_complete", "search_expand", "search_dead_end", "search_complete")
"""Hooks LangGOAP's protocol adds to goap.runtime's (each sync `on_` and async `aon_`)."""


@runtime_checkable
class PlanningTracer(_RuntimeTracer, Protocol):
    """goap.runtime's tracer protocol with LangGOAP's extra hooks; implementations never raise."""

    def on_strategy_chosen(self, strategy_name: str) -> None:
        """A router picked `strategy_name`."""

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """A sensor refreshed the world state."""

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
        """The search expanded one node."""

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """The search proved a dead end."""

    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """The search ended."""

    async def aon_strategy_chosen(self, strategy_name: str) -> None:
        """Async `on_strategy_chosen`."""

    async def aon_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Async `on_sensor_complete`."""

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
        """Async `on_search_expand`."""

    async def aon_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """Async `on_search_dead_end`."""

    async def aon_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """Async `on_search_complete`."""
