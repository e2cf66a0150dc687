"""Mermaid pictures of LangGOAP plans, drawn by goap's renderers."""

from __future__ import annotations

from itertools import pairwise
from typing import Any

from goap.compat.viz._layout import resource_lines, shape, shortfall_lines, to_schedule
from goap.runtime import plan_to_gantt, plan_to_mermaid

__all__ = ["draw_gantt_png", "draw_mermaid_png", "render_mermaid", "render_mermaid_gantt"]

_STYLES = [
    "  classDef action fill:#f8f9fa,stroke:#4a90d9,stroke-width:2px,color:#1a1a2e",
    "  classDef cost fill:#d4edda,stroke:#2d8a4e,stroke-width:1px,color:#155724,font-size:10px",
]


def render_mermaid(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """A top-down flowchart: dependency edges, same-start actions grouped, costs other than 1 as badges."""
    names = [a.name for a in plan.actions]
    if not names:
        return plan_to_mermaid([], direction="TD", frame=False, extra=['  empty["(empty plan)"]'])
    opts = shape(plan, show_schedule, "{name} ({d:g}s)", "{name}")
    opts["labels"] = [label.replace('"', "'") for label in opts["labels"]]
    extra, ids = list(_STYLES), opts["ids"]
    for i, a in enumerate(() if opts.pop("scheduled") else plan.actions):
        if (cost := a.get_cost({})) != 1.0:
            extra += [f'  subgraph sg_{ids[i]}[" "]', "    direction LR", f"    {ids[i]}"]
            extra += [
                f'    c{i}(["fa:fa-dollar-sign {cost:g}"]):::cost',
                "  end",
                f"  style sg_{ids[i]} fill:none,stroke:none",
            ]
    extra += [] if opts["edges"] else [f"  {a} -.-> {b}" for a, b in pairwise(ids)]
    if lines := resource_lines(plan, show_resources):
        extra += ["", "  %% Resource usage", *(f"  %%   {line}" for line in lines)]
    if plan.metadata.csp is not None and plan.metadata.csp.explanation is not None:
        note = "<br/>".join(["INFEASIBLE PLAN", *shortfall_lines(plan)])
        extra += ["", f"  note right of {ids[0]}: {note}"]
    return plan_to_mermaid(names, direction="TD", node_class="action", extra=extra, **opts)


def render_mermaid_gantt(plan: Any) -> str:
    """goap's Mermaid Gantt chart of the plan's schedule (ValueError without one)."""
    return plan_to_gantt(to_schedule(plan), title="Plan Schedule")


def draw_mermaid_png(plan: Any, **kwargs: Any) -> bytes:
    """The flowchart as PNG, through langchain_core's Mermaid drawing (kwargs passed on)."""
    from langchain_core.runnables import graph_mermaid

    return graph_mermaid.draw_mermaid_png(render_mermaid(plan), **kwargs)


def draw_gantt_png(plan: Any, **kwargs: Any) -> bytes:
    """The Gantt chart as PNG, as :func:`draw_mermaid_png`."""
    from langchain_core.runnables import graph_mermaid

    return graph_mermaid.draw_mermaid_png(render_mermaid_gantt(plan), **kwargs)
