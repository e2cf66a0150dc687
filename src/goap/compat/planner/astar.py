"""LangGOAP's :func:`plan` over goap's A*, with LangGOAP's blacklist fallback and plan clean-ups."""

from __future__ import annotations

import logging
import time
from collections.abc import Mapping, Sequence
from dataclasses import replace
from typing import Any

from goap.compat import _convert as cv
from goap.compat.actions import ActionSpec
from goap.compat.goals import GoalSpec
from goap.compat.planner.types import Plan
from goap.compat.state import PlanningState

__all__ = ["plan"]

_log = logging.getLogger(__name__)


def _needed_only(steps: Sequence[ActionSpec], goal: Mapping[str, Any]) -> list[ActionSpec]:
    """Backwards from the goal, keep the steps producing something still needed."""
    dynamic = [a.name for a in steps if a.has_dynamic_effects]
    if dynamic:
        _log.debug("backward optimization skipped: dynamic effects of %s cannot be traced", dynamic)
        return list(steps)
    need = set(goal.items())
    kept: list[ActionSpec] = []
    for a in reversed(steps):
        made = set(a.effects.items())  # type: ignore[union-attr]
        if made & need:
            kept.append(a)
            need = (need - made) | set(a.preconditions.items())
    return kept[::-1]


def _changing_only(
    steps: Sequence[ActionSpec], start: PlanningState, goal: Mapping[str, Any]
) -> list[ActionSpec]:
    """Forwards from the start, drop steps that change nothing; unchanged if the goal is then missed."""
    kept: list[ActionSpec] = []
    st = start
    for a in steps:
        now = st.to_dict()
        eff = a.get_effects(now)
        if a.has_dynamic_effects or any(now.get(k) != v for k, v in eff.items()):
            kept.append(a)
            st = st.apply(eff)
    return kept if st.satisfies(goal) else list(steps)


def _producible(start: PlanningState, goal: Mapping[str, Any], actions: Sequence[ActionSpec]) -> bool:
    """LangGOAP's quick test: each missing goal fact is some action's effect (any value if callable)."""
    made = {(k, v) for a in actions if not a.has_dynamic_effects for k, v in a.effects.items()}  # type: ignore[union-attr]
    free = {k for a in actions if a.has_dynamic_effects for k in a.effect_key_set()}
    return all(p in start.conditions or p in made or p[0] in free for p in goal.items())


def _search(
    start: PlanningState,
    goal: Mapping[str, Any],
    actions: Sequence[ActionSpec],
    deadline: float | None,
    tracer: Any,
    attempt: int,
) -> tuple[list[ActionSpec] | None, int]:
    from goap.planning import SearchEvent

    seen = getattr(tracer, "on_search_expand", None)
    dead = getattr(tracer, "on_search_dead_end", None)
    popped = [0]  # LangGOAP's nodes_explored: every entry taken from the open list

    def hook(e: SearchEvent) -> None:
        popped[0] += 1
        if seen is not None:
            state = PlanningState.from_dict(cv.decode_state(e.state))
            seen(e.node, state, e.g, e.h, e.g + e.h, e.parent, e.action)

    by_name = {a.name: a for a in actions}
    converted = cv.goap_actions(ordered := cv.by_specificity(actions))
    if any(not a.can_rerun for a in ordered):  # single-use: a hidden "used" fact per action
        converted = [g if a.can_rerun else cv.once_only(g) for a, g in zip(ordered, converted, strict=True)]
    timeout = None if deadline is None else max(deadline - time.monotonic(), 1e-6)
    how = replace(cv.LANGGOAP_ASTAR, timeout=timeout, prune=False, on_expand=hook)  # every action kept
    res = how.solve(cv.encode_state(start), cv.to_goap_goal(goal), converted)
    nodes = popped[0]
    if res.plan is None:
        if dead is not None and res.explanation is not None:
            if res.explanation.proof == "relaxed" and not _producible(start, goal, actions):
                dead("not_reachable", {"goal_conditions": dict(goal), "attempt": attempt})
            else:
                dead("exhausted", {"nodes_explored": nodes, "attempt": attempt})
        return None, nodes
    return [by_name[a.name] for a in res.plan.actions], nodes


def plan(
    start: PlanningState | Mapping[str, Any],
    goal: GoalSpec,
    actions: Sequence[ActionSpec],
    blacklisted_actions: Sequence[str] | None = None,
    *,
    time_budget_ms: float | None = None,
    tracer: Any = None,
    record_expansions: bool = False,
) -> Plan | None:
    """The cheapest plan (blacklisted actions only as a fallback), or None."""
    st = start if isinstance(start, PlanningState) else PlanningState.from_dict(start)
    t0 = time.monotonic()
    deadline = None if time_budget_ms is None else t0 + time_budget_ms / 1000.0
    conds = goal.conditions
    tracer = tracer if record_expansions else None
    done = getattr(tracer, "on_search_complete", None)
    nodes = 0
    steps: list[ActionSpec] | None = []
    if not st.satisfies(conds):
        black = set(blacklisted_actions or ())
        tries = [[a for a in actions if a.name not in black], list(actions)] if black else [list(actions)]
        for attempt, acts in enumerate(tries, 1):
            steps, n = _search(st, conds, acts, deadline, tracer, attempt)
            nodes += n
            if steps is not None:
                break
    if done is not None:
        done(nodes, (time.monotonic() - t0) * 1000, steps is not None)
    if steps is None:
        return None
    cleaned = _changing_only(_needed_only(steps, conds), st, conds)
    return cv.to_plan(
        cleaned, st, nodes=nodes, ms=(time.monotonic() - t0) * 1000, pruned=len(steps) - len(cleaned)
    )
