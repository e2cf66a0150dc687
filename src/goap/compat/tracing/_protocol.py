"""LangGOAP's tracer protocol: goap.runtime's `PlanningTracer` plus routing, sensor and search hooks."""

from __future__ import annotations

from collections.abc import Mapping
from typing import Any, Protocol, runtime_checkable

from goap.runtime import PlanningTracer as _RuntimeTracer

EXTRA_HOOKS = ("strategy_chosen", "sensor_complete", "search_expand", "search_dead_end", "search_complete")
"""Hooks LangGOAP adds to goap.runtime's (each a sync ``on_`` and an async ``aon_`` method)."""


@runtime_checkable
class PlanningTracer(_RuntimeTracer, Protocol):
    """goap.runtime's tracer hooks plus a router's choice, a sensor's updates and search events
    (one per expansion, dead end and finished search); implementations never raise."""

    def on_strategy_chosen(self, strategy_name: str) -> None: ...
    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None: ...
    def on_search_expand(
        self,
        node_id: int,
        state: Mapping[str, Any],
        g: float,
        h: float,
        f: float,
        parent_id: int | None = None,
        action_name: str | None = None,
    ) -> None: ...
    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None: ...
    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None: ...
    async def aon_strategy_chosen(self, strategy_name: str) -> None: ...
    async def aon_sensor_complete(self, sensor_name: str, updates: Any) -> None: ...
    async def aon_search_expand(
        self,
        node_id: int,
        state: Mapping[str, Any],
        g: float,
        h: float,
        f: float,
        parent_id: int | None = None,
        action_name: str | None = None,
    ) -> None: ...
    async def aon_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None: ...
    async def aon_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None: ...
