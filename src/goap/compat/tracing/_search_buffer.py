"""Pending search events of one root run: expansions capped (one truncation marker), batched flushes."""

from __future__ import annotations

from typing import Any

__all__ = ["SearchEventBuffer"]


class SearchEventBuffer:
    """Collects search events; `add_*` return True when `flush_every` events wait for an upload.

    Not thread-safe: the owner serialises calls.
    """

    def __init__(self, *, max_events: int, flush_every: int) -> None:
        if max_events < 1:
            raise ValueError(f"max_events must be at least 1, got {max_events}")
        if flush_every < 1:
            raise ValueError(f"flush_every must be at least 1, got {flush_every}")
        self._cap = max_events
        self._batch = flush_every
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new root run starts)."""
        self._events: list[dict[str, Any]] = []
        self._unsent = 0
        self._kept = 0
        self._marker: dict[str, Any] | None = None

    def _added(self) -> bool:
        self._unsent += 1
        return self._unsent >= self._batch

    def add_expand(self, event: dict[str, Any]) -> bool:
        """Record an expansion (beyond the cap only the marker's ``dropped`` count grows)."""
        if self._kept < self._cap:
            self._kept += 1
            self._events.append(event)
        elif self._marker is None:
            self._marker = {"kind": "search_truncated", "dropped": 1}
            self._events.append(self._marker)
        else:
            self._marker["dropped"] += 1
        return self._added()

    def add_uncapped(self, event: dict[str, Any]) -> bool:
        """Record a rare event (a dead end), never capped."""
        self._events.append(event)
        return self._added()

    def drain(self) -> list[dict[str, Any]] | None:
        """A copy of all events of the run (None if there are none); restarts the batch count."""
        self._unsent = 0
        return list(self._events) or None
