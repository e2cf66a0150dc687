"""Search events of one root run: expansions capped (then one marker counts the dropped ones),
``add_*`` answering True once ``flush_every`` events wait for an upload. Callers serialise access."""

from __future__ import annotations

from typing import Any


class SearchEventBuffer:
    """The search events of a LangSmith root run, capped and batched."""

    def __init__(self, *, max_events: int, flush_every: int) -> None:
        for name, value in (("max_events", max_events), ("flush_every", flush_every)):
            if value < 1:
                raise ValueError(f"{name} must be at least 1, got {value}")
        self._cap, self._batch = max_events, flush_every
        self.reset()

    def reset(self) -> None:
        """Forget everything (a new root run starts)."""
        self._events: list[dict[str, Any]] = []
        self._unsent = self._kept = 0
        self._marker: dict[str, Any] | None = None

    def add_expand(self, event: dict[str, Any]) -> bool:
        """Record an expansion; beyond the cap only the ``search_truncated`` marker's count grows."""
        if self._kept < self._cap:
            self._kept += 1
            self._events.append(event)
        elif self._marker is None:
            self._marker = {"kind": "search_truncated", "dropped": 1}
            self._events.append(self._marker)
        else:
            self._marker["dropped"] += 1
        return self.add_uncapped(None)

    def add_uncapped(self, event: dict[str, Any] | None) -> bool:
        """Record a rare event (a dead end), never capped."""
        if event is not None:
            self._events.append(event)
        self._unsent += 1
        return self._unsent >= self._batch

    def drain(self) -> list[dict[str, Any]] | None:
        """A copy of the run's events so far (None without any); the batch count restarts."""
        self._unsent = 0
        return list(self._events) or None
