"""h^max: the most expensive single goal fact in the delete relaxation (admissible, weak)."""

from __future__ import annotations

from goap.planning._task import State, Task
from goap.planning.heuristics.base import INF, RelaxedTask

__all__ = ["HMax"]


class HMax:
    """h^max (Bonet and Geffner 2001): admissible; the cost of the dearest goal fact."""

    name = "hmax"
    admissible = True

    def __init__(self, task: Task) -> None:
        self._rt = RelaxedTask(task)

    def __call__(self, state: State) -> float:
        """The h^max value of ``state`` (``INF`` when the relaxation cannot reach the goal)."""
        rt = self._rt
        if rt.impossible:
            return INF
        h, _ = rt.hmax(rt.init_facts(state), rt.costs)
        return h[rt.goal]
