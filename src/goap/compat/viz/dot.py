"""Graphviz DOT pictures of LangGOAP plans, drawn by goap's renderer."""

from __future__ import annotations

import itertools
import json
from typing import Any

from goap.compat.viz import _layout as lay
from goap.runtime import plan_to_dot

__all__ = ["render_dot"]


def render_dot(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """A top-down DOT digraph ``Plan``: dependency edges, same-start actions clustered, a resource legend."""
    if not plan.actions:
        return plan_to_dot(
            [], name="Plan", direction="TB", frame=False, extra=['  empty [label="(empty plan)"];']
        )
    ids = lay.node_ids(plan)
    slots = lay.slots(plan, show_schedule)
    labels = [a.name for a in plan.actions]
    groups: list[tuple[str, list[int]]] = []
    if slots is not None:
        groups = [(f"t={t:g}s", members) for t, members in slots if len(members) > 1]
        durations = [lay.duration(plan, i) for i in range(len(labels))]
        labels = [f"{n}\nduration={d:g}s" if d > 0 else n for n, d in zip(labels, durations, strict=True)]
    else:
        costs = [a.get_cost({}) for a in plan.actions]
        labels = [f"{n}\ncost={c:g}" if c != 1.0 else n for n, c in zip(labels, costs, strict=True)]
    edges = lay.links(plan)
    extra = [] if edges else [f"  {a} -> {b} [style=dashed];" for a, b in itertools.pairwise(ids)]
    resources = lay.resource_lines(plan, show_resources)
    if resources:
        legend = "".join(json.dumps(line)[1:-1] + "\\l" for line in ["Resources:", *resources])
        extra.append(f'  legend [shape=note, label="{legend}"];')
    return plan_to_dot(
        [a.name for a in plan.actions],
        name="Plan",
        direction="TB",
        frame=False,
        labels=labels,
        ids=ids,
        edges=edges,
        groups=groups,
        extra=extra,
    )
