"""h^max: the most expensive single goal fact in the delete relaxation (admissible, weak)."""

from __future__ import annotations

from goap.planning.heuristics.base import RelaxedHeuristic, RelaxedTask

__all__ = ["HMax"]


class HMax(RelaxedHeuristic):
    """h^max (Bonet and Geffner 2001): admissible; the cost of the dearest goal fact."""

    name = "hmax"
    admissible = True

    def _value(self, rt: RelaxedTask, init: list[int]) -> float:
        h, _ = rt.hmax(init, rt.costs)
        return h[rt.goal]
