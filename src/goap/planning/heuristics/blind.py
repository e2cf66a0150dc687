"""The blind heuristic: 0 everywhere (A* becomes uniform-cost search)."""

from __future__ import annotations

from goap.planning._task import State, Task
from goap.planning.heuristics.base import INF

__all__ = ["Blind"]


class Blind:
    """0 for every state (``INF`` only when the goal is statically impossible); admissible."""

    name = "blind"
    admissible = True

    def __init__(self, task: Task) -> None:
        self._impossible = task.impossible

    def __call__(self, state: State) -> float:
        """Always 0 (or ``INF`` for an impossible goal)."""
        return INF if self._impossible else 0.0
