"""Mermaid pictures of LangGOAP plans, drawn by goap's renderers."""

from __future__ import annotations

import itertools
from typing import Any

from goap.compat.viz import _layout as lay
from goap.runtime import plan_to_gantt, plan_to_mermaid

__all__ = ["draw_gantt_png", "draw_mermaid_png", "render_mermaid", "render_mermaid_gantt"]

_STYLES = (
    "  classDef action fill:#f8f9fa,stroke:#4a90d9,stroke-width:2px,color:#1a1a2e",
    "  classDef cost fill:#d4edda,stroke:#2d8a4e,stroke-width:1px,color:#155724,font-size:10px",
)


def render_mermaid(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """A top-down Mermaid flowchart: dependency edges, same-start actions grouped, costs as badges."""
    names = [a.name.replace('"', "'") for a in plan.actions]
    if not names:
        return plan_to_mermaid([], direction="TD", frame=False, extra=['  empty["(empty plan)"]'])
    ids = lay.node_ids(plan)
    slots = lay.slots(plan, show_schedule)
    extra = list(_STYLES)
    groups: list[tuple[str, list[int]]] = []
    if slots is not None:
        groups = [(f"t={t:g}s", members) for t, members in slots if len(members) > 1]
        durations = [lay.duration(plan, i) for i in range(len(names))]
        names = [f"{n} ({d:g}s)" if d > 0 else n for n, d in zip(names, durations, strict=True)]
    else:
        for i, a in enumerate(plan.actions):
            cost = a.get_cost({})
            if cost != 1.0:
                extra += [f'  subgraph sg_{ids[i]}[" "]', "    direction LR", f"    {ids[i]}"]
                extra += [f'    c{i}(["fa:fa-dollar-sign {cost:g}"]):::cost', "  end"]
                extra.append(f"  style sg_{ids[i]} fill:none,stroke:none")
    edges = lay.links(plan)
    if not edges:
        extra += [f"  {a} -.-> {b}" for a, b in itertools.pairwise(ids)]
    resources = lay.resource_lines(plan, show_resources)
    if resources:
        extra += ["", "  %% Resource usage", *(f"  %%   {line}" for line in resources)]
    notes = lay.shortfall_lines(plan)
    if notes:
        extra += ["", "  %% INFEASIBLE PLAN", *(f"  %%   {line}" for line in notes)]
    return plan_to_mermaid(
        [a.name for a in plan.actions],
        direction="TD",
        frame=False,
        labels=names,
        ids=ids,
        edges=edges,
        groups=groups,
        node_class="action",
        extra=extra,
    )


def render_mermaid_gantt(plan: Any) -> str:
    """goap's Mermaid Gantt chart of the plan's schedule (ValueError without one)."""
    return plan_to_gantt(lay.to_schedule(plan), title="Plan Schedule")


def draw_mermaid_png(plan: Any, **kwargs: Any) -> bytes:
    """The flowchart as PNG, through langchain_core's Mermaid drawing (kwargs passed on)."""
    from langchain_core.runnables import graph_mermaid

    return graph_mermaid.draw_mermaid_png(render_mermaid(plan), **kwargs)


def draw_gantt_png(plan: Any, **kwargs: Any) -> bytes:
    """The Gantt chart as PNG, as :func:`draw_mermaid_png`."""
    from langchain_core.runnables import graph_mermaid

    return graph_mermaid.draw_mermaid_png(render_mermaid_gantt(plan), **kwargs)
