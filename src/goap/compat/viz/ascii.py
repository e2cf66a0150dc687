"""Plain-text pictures of LangGOAP plans: a step list and a Gantt chart of the schedule."""

from __future__ import annotations

from typing import Any

from goap.compat.viz import _layout as lay

__all__ = ["render_ascii", "render_ascii_gantt"]


def render_ascii(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """One line per step (with the steps it waits for, or its start time), then resources."""
    n = len(plan.actions)
    if not n:
        return "Plan: (empty — goal already satisfied)\n"
    out = [f"Plan ({n} step{'' if n == 1 else 's'}, cost={plan.total_cost:g})"]
    names = [a.name for a in plan.actions]
    slots = lay.slots(plan, show_schedule)
    if slots is None:
        after: dict[int, list[int]] = {}
        for i, j in lay.links(plan):
            after.setdefault(j, []).append(i)
        out += [
            f"├── [{j}] {name}" + (f"  (after: {after[j]})" if j in after else "")
            for j, name in enumerate(names)
        ]
    else:
        for t, members in slots:
            spans = {i: lay.duration(plan, i) for i in members}
            if len(members) == 1:
                ((i, d),) = spans.items()
                out.append(f"├── t={t:g}s  [{i}] {names[i]}" + (f"  duration={d:g}s" if d > 0 else ""))
            else:
                out.append(f"├── t={t:g}s (parallel):")
                out += [f"│     • [{i}] {names[i]}  duration={d:g}s" for i, d in spans.items()]
    resources = lay.resource_lines(plan, show_resources)
    csp = plan.metadata.csp
    if resources:
        out += ["", "Resources:", *(f"  {line}" for line in resources)]
        if csp.makespan is not None:
            out.append(f"  makespan: {csp.makespan.total_seconds():g}s")
    why = lay.shortfall_lines(plan)
    if csp is not None and csp.explanation is not None:
        out += ["", "Infeasibility Explanation:"]
        out += [
            f"  - {c.key} (max={c.max}, min={c.min}, weight={c.weight:g})"
            for c in csp.explanation.conflicting_constraints
        ]
        out += [f"  {line}" for line in why]
    return "\n".join(out) + "\n"


def render_ascii_gantt(plan: Any, *, width: int = 60) -> str:
    """One bar of ``#`` per scheduled action on a ``width``-column time axis (ValueError without a schedule)."""
    schedule = lay.to_schedule(plan)
    if width < 10:
        raise ValueError(f"width must be at least 10, got {width}")
    span = schedule.makespan if schedule.makespan > 0 else 1.0
    pad = max(len(e.action) for e in schedule)
    out = [f"{'action'.ljust(pad)}  |{'-' * width}|  0..{span:g}s"]
    for e in schedule:
        first = int(e.start * width / span)
        last = max(first + 1, int(e.end * width / span))
        bar = "".join("#" if first <= c < last else " " for c in range(width))
        out.append(f"{e.action.ljust(pad)}  |{bar}|  {e.start:g}-{e.end:g}s")
    return "\n".join(out) + "\n"
