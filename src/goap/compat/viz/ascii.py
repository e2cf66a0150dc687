"""Plain-text pictures of LangGOAP plans: a step list and a Gantt chart of the schedule."""

from __future__ import annotations

from typing import Any

from goap.compat.viz._layout import resource_lines, shape, shortfall_lines, to_schedule

__all__ = ["render_ascii", "render_ascii_gantt"]


def render_ascii(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """One line per step (the steps it waits for, or its start time), then resources and shortfalls."""
    n = len(plan.actions)
    if not n:
        return "Plan: (empty — goal already satisfied)\n"
    out = [f"Plan ({n} step{'' if n == 1 else 's'}, cost={plan.total_cost:g})"]
    opts = shape(plan, show_schedule, "{name}  duration={d:g}s", "{name}")
    labels = [f"[{i}] {label}" for i, label in enumerate(opts["labels"])]
    csp = plan.metadata.csp
    if opts["scheduled"]:
        grouped = {i: title for title, members in opts["groups"] for i in members}
        for i, e in sorted(enumerate(csp.schedule), key=lambda p: (p[1].start, p[0])):
            if i not in grouped:
                out.append(f"├── t={e.start.total_seconds():g}s  {labels[i]}")
            elif min(m for m, t in grouped.items() if t == grouped[i]) == i:
                out.append(f"├── {grouped[i]} (parallel):")
            out += [f"│     • {labels[i]}"] if i in grouped else []
    else:
        after: dict[int, list[int]] = {}
        for i, j in opts["edges"]:
            after.setdefault(j, []).append(i)
        out += [
            f"├── {label}" + (f"  (after: {after[j]})" if j in after else "")
            for j, label in enumerate(labels)
        ]
    if lines := resource_lines(plan, show_resources):
        out += ["", "Resources:", *(f"  {line}" for line in lines)]
        out += [f"  makespan: {csp.makespan.total_seconds():g}s"] if csp.makespan is not None else []
    if lines := shortfall_lines(plan):
        out += ["", "Infeasibility Explanation:", *(f"  {line}" for line in lines)]
    return "\n".join(out) + "\n"


def render_ascii_gantt(plan: Any, *, width: int = 60) -> str:
    """A ``#`` bar per scheduled action on a ``width``-column time axis (ValueError without a schedule)."""
    schedule = to_schedule(plan)
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
