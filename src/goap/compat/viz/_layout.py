"""What the renderers need of a LangGOAP plan, computed by goap: dependency edges, schedule, ids."""

from __future__ import annotations

import re
from typing import Any

from goap.compat._convert import goap_actions
from goap.planning import Schedule, ScheduledAction, dependencies

__all__ = ["bound", "links", "node_ids", "resource_lines", "slots", "to_schedule"]


def node_ids(plan: Any) -> list[str]:
    """Identifier-safe node ids, ``a<index>_<name>``."""
    return [f"a{i}_{re.sub(r'[^A-Za-z0-9_]', '_', a.name)}" for i, a in enumerate(plan.actions)]


def links(plan: Any) -> list[tuple[int, int]]:
    """goap's precedence edges ``(before, after)`` between the plan's actions."""
    return list(dependencies(goap_actions(plan.actions)))


def _csp(plan: Any) -> Any:
    return plan.metadata.csp


def slots(plan: Any, show_schedule: bool) -> list[tuple[float, list[int]]] | None:
    """Action indices grouped by start time (seconds), when the plan's schedule covers every action."""
    csp = _csp(plan)
    entries = csp.schedule if show_schedule and csp is not None and csp.schedule else ()
    if not entries or len(entries) != len(plan.actions):
        return None
    by_start: dict[float, list[int]] = {}
    for i, e in enumerate(entries):
        by_start.setdefault(e.start.total_seconds(), []).append(i)
    return sorted(by_start.items())


def duration(plan: Any, i: int) -> float:
    """The scheduled duration of action ``i`` in seconds."""
    return float(_csp(plan).schedule[i].duration.total_seconds())


def to_schedule(plan: Any) -> Schedule:
    """goap's Schedule of the plan's CSP schedule (ValueError when it has none)."""
    csp = _csp(plan)
    if csp is None or not csp.schedule:
        raise ValueError("the plan has no schedule (plan.metadata.csp.schedule is empty)")
    entries = tuple(
        ScheduledAction(i, e.action_name, e.start.total_seconds(), e.end.total_seconds())
        for i, e in enumerate(csp.schedule)
    )
    return Schedule(entries, max(e.end for e in entries))


def bound(usage: Any) -> str:
    """`` / max`` or `` >= min`` of a resource usage (empty when unbounded)."""
    if usage.constraint_max is not None:
        return f" / {usage.constraint_max:g}"
    return f" >= {usage.constraint_min:g}" if usage.constraint_min is not None else ""


def resource_lines(plan: Any, show_resources: bool) -> list[str]:
    """``key: total / max [OK|VIOLATED]`` per resource of the CSP phase."""
    csp = _csp(plan)
    if not show_resources or csp is None:
        return []
    return [
        f"{u.key}: {u.total:g}{bound(u)} [{'OK' if u.satisfied else 'VIOLATED'}]" for u in csp.resource_usage
    ]


def shortfall_lines(plan: Any) -> list[str]:
    """The CSP explanation's shortfalls and suggestion, one line each (none when feasible)."""
    csp = _csp(plan)
    why = csp.explanation if csp is not None else None
    if why is None:
        return []
    out = []
    for sf in why.resource_shortfalls:
        if sf.available_max is not None:
            out.append(f"{sf.key}: {sf.required:g} / {sf.available_max:g} (overrun: {sf.overrun:g})")
        elif sf.available_min is not None:
            out.append(f"{sf.key}: {sf.required:g} >= {sf.available_min:g} (shortfall: {sf.overrun:g})")
    return out + ([f"Suggestion: {why.suggestion}"] if why.suggestion else [])
