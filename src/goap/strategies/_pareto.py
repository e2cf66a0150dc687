"""`pareto_front`: the plans no other plan beats on every objective at once.

Where :class:`goap.CspPipeline` ranks objectives lexicographically (or sums a level's weighted
metrics), a Pareto front keeps every trade-off: plan ``a`` *dominates* ``b`` when ``a`` is at
least as good on each objective (by its direction) and strictly better on one. Weights and
priorities play no part.
"""

from __future__ import annotations

from collections.abc import Mapping, Sequence

from goap.planning import Objective

__all__ = ["dominates", "pareto_front"]


def dominates(a: Mapping[str, float], b: Mapping[str, float], objectives: Sequence[Objective]) -> bool:
    """Whether metric values ``a`` dominate ``b`` on ``objectives`` (a missing metric is 0)."""
    better = False
    for o in objectives:
        x, y = a.get(o.metric, 0.0), b.get(o.metric, 0.0)
        if o.direction == "maximize":
            x, y = -x, -y
        if x > y:
            return False
        better = better or x < y
    return better


def pareto_front(values: Sequence[Mapping[str, float]], objectives: Sequence[Objective]) -> list[int]:
    """Indices (ascending) of the non-dominated entries of ``values`` (one metric map per plan).

    Entries with equal values on every objective all stay. With no objective, every index stays.
    """
    return [
        i
        for i, v in enumerate(values)
        if not any(j != i and dominates(w, v, objectives) for j, w in enumerate(values))
    ]
