"""A best-first search over resolved states, for what goap's compiled A* cannot take or show.

goap's A* compiles actions with static effects and reports statistics, not each node. Two things
of LangGOAP's ``plan()`` need the states themselves: effects computed from the state (an
:class:`~goap.compat.actions.ActionSpec` whose ``effects`` is a function), and the opt-in
per-node tracer hooks (``on_search_expand``, ``on_search_dead_end``). Both are searched here:
A* over the states the effects produce, guided by the number of unmet goal conditions, first
found first among ties, actions tried in descending precondition count. The guide never
overestimates when every action costs at least 1.
"""

from __future__ import annotations

import heapq
import itertools
import math
import time
from collections.abc import Callable, Mapping, Sequence
from dataclasses import dataclass, field
from typing import Any

from goap.compat.actions import ActionSpec
from goap.compat.state import PlanningState
from goap.planning import ModelError

__all__ = ["ExpandHook", "Node", "search_states", "step_cost"]

ExpandHook = Callable[[int, PlanningState, float, float, float, "int | None", "str | None"], Any]
"""``on_search_expand(node_id, state, g, h, f, parent_id, action_name)``."""


@dataclass(order=True, slots=True)
class Node:
    """An entry of the open list, ordered by f then insertion."""

    f: float
    node_id: int
    g: float = field(compare=False)
    state: PlanningState = field(compare=False)
    path: tuple[ActionSpec, ...] = field(compare=False, default=())
    parent_id: int | None = field(compare=False, default=None)


def _unmet(state: PlanningState, goal: Mapping[str, Any]) -> int:
    return sum(1 for item in goal.items() if item not in state.conditions)


def step_cost(action: ActionSpec, state: dict[str, Any]) -> float:
    """The action's cost in ``state``; ModelError naming it when negative, infinite or NaN."""
    cost = action.get_cost(state)
    if not math.isfinite(cost) or cost < 0:
        raise ModelError(f"action {action.name!r}: cost must be a finite number >= 0, got {cost!r}")
    return float(cost)


def search_states(
    start: PlanningState,
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    deadline: float | None,
    on_expand: ExpandHook | None = None,
) -> tuple[tuple[ActionSpec, ...] | None, int]:
    """The cheapest action sequence found from ``start`` to ``goal`` (or None) and the nodes expanded.

    Gives up with None at ``deadline`` (a ``time.monotonic()`` value). Actions with
    ``can_rerun=False`` appear at most once per plan. ``on_expand`` is called for each node taken
    from the open list, the root first. Raises :class:`goap.planning.ModelError` naming the action
    whose cost is negative, infinite or NaN.
    """
    ordered = sorted(actions, key=lambda a: len(a.preconditions), reverse=True)
    single_use = any(not a.can_rerun for a in ordered)
    ids = itertools.count()
    open_list = [Node(float(_unmet(start, goal)), next(ids), 0.0, start)]
    best: dict[tuple[PlanningState, frozenset[str]], float] = {(start, frozenset()): 0.0}
    expanded = 0
    while open_list:
        if deadline is not None and time.monotonic() >= deadline:
            return None, expanded
        node = heapq.heappop(open_list)
        expanded += 1
        if on_expand is not None:
            last = node.path[-1].name if node.path else None
            on_expand(node.node_id, node.state, node.g, node.f - node.g, node.f, node.parent_id, last)
        if node.state.satisfies(goal):
            return node.path, expanded
        used = frozenset(a.name for a in node.path if not a.can_rerun) if single_use else frozenset()
        if node.g > best.get((node.state, used), float("inf")):
            continue
        now = node.state.to_dict()
        for a in ordered:
            if (not a.can_rerun and a.name in used) or not node.state.satisfies(a.preconditions):
                continue
            nxt = node.state.apply(a.get_effects(now))
            if nxt == node.state:
                continue
            g = node.g + step_cost(a, now)
            key = (nxt, used if a.can_rerun else used | {a.name})
            if g >= best.get(key, float("inf")):
                continue
            best[key] = g
            child = Node(g + _unmet(nxt, goal), next(ids), g, nxt, (*node.path, a), node.node_id)
            heapq.heappush(open_list, child)
    return None, expanded
