"""Graphviz DOT pictures of LangGOAP plans, drawn by goap's renderer."""

from __future__ import annotations

import json
from itertools import pairwise
from typing import Any

from goap.compat.viz._layout import resource_lines, shape
from goap.runtime import plan_to_dot

__all__ = ["render_dot"]


def render_dot(plan: Any, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """A top-down digraph ``Plan``: dependency edges, same-start actions clustered, a resource legend."""
    names = [a.name for a in plan.actions]
    if not names:
        return plan_to_dot(
            [], name="Plan", direction="TB", frame=False, extra=['  empty [label="(empty plan)"];']
        )
    opts = shape(plan, show_schedule, "{name}\nduration={d:g}s", "{name}\ncost={c:g}")
    del opts["scheduled"]
    extra = [] if opts["edges"] else [f"  {a} -> {b} [style=dashed];" for a, b in pairwise(opts["ids"])]
    if lines := resource_lines(plan, show_resources):
        legend = "".join(json.dumps(line)[1:-1] + "\\l" for line in ["Resources:", *lines])
        extra.append(f'  legend [shape=note, label="{legend}"];')
    return plan_to_dot(names, name="Plan", direction="TB", extra=extra, **opts)
