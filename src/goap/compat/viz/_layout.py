"""What the renderers need of a LangGOAP plan, computed by goap: dependency edges, schedule, ids."""

from __future__ import annotations

import re
from typing import Any

from goap.compat._convert import goap_actions
from goap.planning import Schedule, ScheduledAction, dependencies


def shape(plan: Any, show_schedule: bool, timed: str, costed: str) -> dict[str, Any]:
    """goap renderer options for ``plan``: ids, labels, dependency edges, same-start groups."""
    ids = [f"a{i}_{re.sub(r'[^A-Za-z0-9_]', '_', a.name)}" for i, a in enumerate(plan.actions)]
    labels = [a.name for a in plan.actions]
    groups = []
    csp = plan.metadata.csp
    entries = csp.schedule if show_schedule and csp is not None and csp.schedule else ()
    scheduled = bool(entries) and len(entries) == len(labels)
    if scheduled:
        by_start: dict[float, list[int]] = {}
        for i, e in enumerate(entries):
            by_start.setdefault(e.start.total_seconds(), []).append(i)
            d = e.duration.total_seconds()
            labels[i] = timed.format(name=labels[i], d=d) if d > 0 else labels[i]
        groups = [(f"t={t:g}s", members) for t, members in sorted(by_start.items()) if len(members) > 1]
    else:
        costs = [a.get_cost({}) for a in plan.actions]
        labels = [costed.format(name=n, c=c) if c != 1.0 else n for n, c in zip(labels, costs, strict=True)]
    edges = list(dependencies(goap_actions(plan.actions)))
    drawn = {"ids": ids, "labels": labels, "edges": edges, "groups": groups}
    return {**drawn, "frame": False, "scheduled": scheduled}


def to_schedule(plan: Any) -> Schedule:
    """goap's Schedule of the plan's CSP schedule (ValueError when it has none)."""
    csp = plan.metadata.csp
    if csp is None or not csp.schedule:
        raise ValueError("the plan has no schedule (plan.metadata.csp.schedule is empty)")
    entries = [(e.action_name, e.start.total_seconds(), e.end.total_seconds()) for e in csp.schedule]
    return Schedule(tuple(ScheduledAction(i, *e) for i, e in enumerate(entries)), max(e[2] for e in entries))


def resource_lines(plan: Any, show_resources: bool) -> list[str]:
    """``key: total / max [OK|VIOLATED]`` per resource of the CSP phase."""
    csp = plan.metadata.csp
    out = []
    for u in csp.resource_usage if show_resources and csp is not None else ():
        bound = f" / {u.constraint_max:g}" if u.constraint_max is not None else ""
        bound = f" >= {u.constraint_min:g}" if not bound and u.constraint_min is not None else bound
        out.append(f"{u.key}: {u.total:g}{bound} [{'OK' if u.satisfied else 'VIOLATED'}]")
    return out


def shortfall_lines(plan: Any) -> list[str]:
    """The CSP explanation's shortfalls and suggestion (none when feasible)."""
    csp = plan.metadata.csp
    why = csp.explanation if csp is not None else None
    out = []
    for sf in why.resource_shortfalls if why is not None else ():
        if sf.available_max is not None:
            out.append(f"{sf.key}: {sf.required:g} / {sf.available_max:g} (overrun: {sf.overrun:g})")
        elif sf.available_min is not None:
            out.append(f"{sf.key}: {sf.required:g} >= {sf.available_min:g} (shortfall: {sf.overrun:g})")
    return out + ([f"Suggestion: {why.suggestion}"] if why is not None and why.suggestion else [])
