"""The layout the Mermaid and DOT drawings of a plan share: node ids, edges, the schedule shown.

Ported from ``langgoap.viz`` (langgoap 0.1.2, MIT licence, Integrallis Software), where each
renderer derived them.
"""

from __future__ import annotations

import re
from collections.abc import Callable, Sequence
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from goap.compat.planner.csp import ResourceUsage, ScheduleEntry
    from goap.compat.planner.types import Plan

__all__ = [
    "drawing_lines",
    "drawn_schedule",
    "node_ids",
    "plan_edges",
    "resource_status",
    "scheduled_lines",
    "start_groups",
    "timed_label",
]

_ID_SAFE = re.compile(r"[^A-Za-z0-9_]")


def node_ids(plan: Plan) -> list[str]:
    """One id per action, ``a{index}_{name}`` with every character outside ``[A-Za-z0-9_]`` as ``_``.

    Both Mermaid and DOT accept these; action names with dots or spaces would break either.
    """
    return [f"a{i}_{_ID_SAFE.sub('_', a.name)}" for i, a in enumerate(plan.actions)]


def drawn_schedule(plan: Plan, show_schedule: bool) -> Any:
    """The plan's CSP schedule when it is to be shown and covers every action, else None."""
    csp = plan.metadata.csp
    schedule = csp.schedule if (show_schedule and csp is not None and csp.schedule) else None
    if schedule is not None and len(schedule) == len(plan.actions):
        return schedule
    return None


def plan_edges(plan: Plan) -> tuple[list[tuple[int, int]], bool]:
    """The edges ``(i, j)`` (action ``j`` depends on action ``i``) and whether they are a fallback.

    Edges come from :func:`goap.compat.planner.csp.build_dependency_graph`, so a drawing shows
    what the scheduler sees. A plan of several actions with no dependency at all is drawn as the
    sequence it will run in; the second value is then True (drawn dashed).
    """
    from goap.compat.planner.csp import build_dependency_graph

    deps = build_dependency_graph(plan.actions)
    edges = [(i, j) for j in range(len(plan.actions)) for i in deps[j]]
    if edges or len(plan.actions) < 2:
        return edges, False
    return [(i, i + 1) for i in range(len(plan.actions) - 1)], True


def start_groups(schedule: Sequence[ScheduleEntry]) -> list[tuple[float, list[int]]]:
    """The schedule's entries grouped by start time (seconds), earliest first: ``(start, indices)``.

    A group of several indices runs in parallel; every renderer draws it as one cluster.
    """
    by_start: dict[float, list[int]] = {}
    for i, entry in enumerate(schedule):
        by_start.setdefault(entry.start.total_seconds(), []).append(i)
    return sorted(by_start.items())


def resource_status(usage: ResourceUsage, gap: str = " ") -> str:
    """``key: total`` with the bound (``/ max`` or ``>= min``), ``gap``, then ``[OK]`` or ``[VIOLATED]``."""
    bound = ""
    if usage.constraint_max is not None:
        bound = f" / {usage.constraint_max:g}"
    elif usage.constraint_min is not None:
        bound = f" >= {usage.constraint_min:g}"
    marker = "OK" if usage.satisfied else "VIOLATED"
    return f"{usage.key}: {usage.total:g}{bound}{gap}[{marker}]"


def scheduled_lines(
    schedule: Sequence[ScheduleEntry],
    node: Callable[[int], str],
    opening: Callable[[int, float], Sequence[str]],
    closing: str,
) -> list[str]:
    """One ``node(i)`` line per action, parallel groups wrapped in ``opening(group, start)`` ... ``closing``.

    Lone actions are indented four spaces, grouped ones eight; the group lines are the caller's.
    """
    out: list[str] = []
    for group, (start_t, indices) in enumerate(start_groups(schedule)):
        if len(indices) == 1:
            out.append(f"    {node(indices[0])}")
            continue
        out.extend(opening(group, start_t))
        out.extend(f"        {node(i)}" for i in indices)
        out.append(closing)
    return out


def drawing_lines(
    plan: Plan,
    show_schedule: bool,
    scheduled: Callable[[Plan, list[str], Sequence[ScheduleEntry]], list[str]],
    unscheduled: Callable[[Plan, list[str]], list[str]],
    edges: tuple[str, str],
) -> list[str]:
    """A drawing's node lines, then its edge lines: what Mermaid and DOT draw alike.

    The nodes are ``scheduled(plan, ids, schedule)`` when the schedule is drawn (see
    :func:`drawn_schedule`), else ``unscheduled(plan, ids)``. ``edges`` is the form of an edge and
    of an edge of the fallback chain of :func:`plan_edges`, each formatted with ``a`` and ``b``
    (the two node ids).
    """
    ids = node_ids(plan)
    schedule = drawn_schedule(plan, show_schedule)
    lines = scheduled(plan, ids, schedule) if schedule is not None else unscheduled(plan, ids)
    pairs, chained = plan_edges(plan)
    form = edges[1] if chained else edges[0]
    lines.extend(form.format(a=ids[i], b=ids[j]) for i, j in pairs)
    return lines


def action_labels(plan: Plan, escape: Callable[[str], str]) -> list[tuple[str, float | None]]:
    """Each action's escaped name, and its cost when it is not the default 1.0 (only those are drawn)."""
    labels: list[tuple[str, float | None]] = []
    for action in plan.actions:
        cost = action.get_cost({})
        labels.append((escape(action.name), None if cost == 1.0 else cost))
    return labels


def timed_label(label: str, entry: ScheduleEntry, duration: str) -> str:
    """``label``, then ``duration`` formatted with the entry's seconds ``s`` when it lasts at all."""
    seconds = entry.duration.total_seconds()
    return f"{label}{duration.format(s=seconds)}" if seconds > 0 else label
