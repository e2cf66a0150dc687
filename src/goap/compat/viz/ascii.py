"""Plain-text pictures of LangGOAP plans, drawn by goap's text renderers."""

from __future__ import annotations

from typing import Any

from goap.compat.viz._layout import resource_lines, shape, shortfall_lines, to_schedule
from goap.runtime import plan_to_text, plan_to_text_gantt

__all__ = ["render_ascii", "render_ascii_gantt"]


def render_ascii(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """A line per step (the steps it waits for, or its start time), then resources and shortfalls."""
    n = len(plan.actions)
    if not n:
        return "Plan: (empty — goal already satisfied)\n"
    opts = shape(plan, show_schedule, "{name}  duration={d:g}s", "{name}")
    csp, extra = plan.metadata.csp, []
    if lines := resource_lines(plan, show_resources):
        extra += ["", "Resources:", *(f"  {line}" for line in lines)]
        extra += [f"  makespan: {csp.makespan.total_seconds():g}s"] if csp.makespan is not None else []
    if lines := shortfall_lines(plan):
        extra += ["", "Infeasibility Explanation:", *(f"  {line}" for line in lines)]
    title = f"Plan ({n} step{'' if n == 1 else 's'}, cost={plan.total_cost:g})"
    drawn = {"labels": opts["labels"], "edges": opts["edges"], "extra": extra}
    schedule = to_schedule(plan) if opts["scheduled"] else None
    return plan_to_text([a.name for a in plan.actions], title=title, schedule=schedule, **drawn)


def render_ascii_gantt(plan: Any, *, width: int = 60) -> str:
    """goap's text Gantt chart of the plan's schedule (ValueError without one or below 10 columns)."""
    return plan_to_text_gantt(to_schedule(plan), width=width)
