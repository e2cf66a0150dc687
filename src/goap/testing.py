"""Test helpers for users of goap: replay a plan, brute-force the optimum of a small problem.

The planner's own tests use these; applications can check their plans the same way.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping, Sequence
from typing import Any

from goap.planning import ActionSpec, GoalSpec

__all__ = ["brute_force_optimum", "simulate"]


def simulate(
    initial: Mapping[str, Any], goal: GoalSpec, actions: Sequence[ActionSpec]
) -> tuple[bool, float, dict[str, Any]]:
    """Replay a plan with the rules of the problem format: (valid, cost, final state).

    Each action must be applicable where it is applied; the goal must hold at the end; the cost is
    the sum of the actions' costs in the states they are applied in.
    """
    state = dict(initial)
    cost = 0.0
    for a in actions:
        if not a.applicable(state):
            return False, cost, state
        cost += a.cost_in(state)
        state = a.apply(state)
    return goal.satisfied_by(state), cost, state


def brute_force_optimum(
    initial: Mapping[str, Any], goal: GoalSpec, actions: Sequence[ActionSpec], limit: int = 200_000
) -> float | None:
    """Least plan cost by uniform-cost search over plain dict states (None when there is none).

    Meant for small problems: raises RuntimeError after ``limit`` expansions.
    """
    tie = itertools.count()

    def key(s: Mapping[str, Any]) -> tuple[tuple[str, Any], ...]:
        return tuple(sorted((k, (type(v).__name__, v)) for k, v in s.items()))

    start = dict(initial)
    best = {key(start): 0.0}
    heap: list[tuple[float, int, dict[str, Any]]] = [(0.0, next(tie), start)]
    seen = 0
    while heap:
        g, _, s = heapq.heappop(heap)
        if g > best[key(s)] + 1e-12:
            continue
        if goal.satisfied_by(s):
            return g
        seen += 1
        if seen > limit:
            raise RuntimeError("brute force limit reached")
        for a in actions:
            if a.applicable(s):
                c = a.cost_in(s)
                t = a.apply(s)
                kt = key(t)
                if g + c < best.get(kt, float("inf")) - 1e-12:
                    best[kt] = g + c
                    heapq.heappush(heap, (g + c, next(tie), t))
    return None
