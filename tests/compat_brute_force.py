"""Checks for goap.compat's planning tests: the least plan cost by exhaustive search, and a replay.

Problems are in LangGOAP's terms as plain dicts (``name``, ``preconditions``, ``effects``,
``cost``, ``can_rerun``), equality facts only, so the brute force shares no code with the planner.
"""

from __future__ import annotations

import heapq
import math
from collections.abc import Mapping, Sequence
from typing import Any

from goap.compat import ActionSpec, PlanningState

__all__ = ["cheapest_cost", "replay_cost"]


def cheapest_cost(
    start: Mapping[str, Any], goal: Mapping[str, Any], specs: Sequence[Mapping[str, Any]]
) -> float | None:
    """Uniform-cost search over (facts, single-use actions spent): the least plan cost, or None.

    An action with ``can_rerun`` False runs at most once; an action that changes nothing is never
    worth taking, so it is not expanded.
    """
    first = (frozenset(start.items()), frozenset[str]())
    frontier: list[tuple[float, int, frozenset[tuple[str, Any]], frozenset[str]]] = [(0.0, 0, *first)]
    best: dict[tuple[frozenset[tuple[str, Any]], frozenset[str]], float] = {first: 0.0}
    tie = 1
    while frontier:
        cost, _, facts, spent = heapq.heappop(frontier)
        if cost > best[(facts, spent)]:
            continue
        if all(item in facts for item in goal.items()):
            return cost
        for s in specs:
            if s["name"] in spent or not all(item in facts for item in s["preconditions"].items()):
                continue
            after = dict(facts)
            after.update(s["effects"])
            key = (frozenset(after.items()), spent if s["can_rerun"] else spent | {s["name"]})
            if key[0] == facts:
                continue
            if cost + s["cost"] < best.get(key, math.inf):
                best[key] = cost + s["cost"]
                heapq.heappush(frontier, (cost + s["cost"], tie, *key))
                tie += 1
    return None


def replay_cost(start: Mapping[str, Any], goal: Mapping[str, Any], steps: Sequence[ActionSpec]) -> float:
    """Run ``steps`` from ``start`` with every precondition checked; their summed cost.

    AssertionError names the first action that cannot run, or the end state missing the goal.
    """
    state = PlanningState.from_dict(dict(start))
    total = 0.0
    for a in steps:
        assert state.satisfies(a.preconditions), f"{a.name} cannot run in {state.to_dict()}"
        total += a.get_cost(state.to_dict())
        state = state.apply(a.get_effects(state.to_dict()))
    assert state.satisfies(goal), f"the plan ends in {state.to_dict()}, not in {dict(goal)}"
    return total
