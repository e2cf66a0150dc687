"""Graphviz DOT renderer for Plan objects.

Ported from ``langgoap.viz.dot`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

from collections.abc import Sequence
from typing import TYPE_CHECKING

from goap.compat.viz._layout import (
    action_labels,
    drawing_lines,
    resource_status,
    scheduled_lines,
    timed_label,
)

if TYPE_CHECKING:
    from goap.compat.planner.csp import CSPMetadata, ScheduleEntry
    from goap.compat.planner.types import Plan


_EDGES = ("    {a} -> {b};", "    {a} -> {b} [style=dashed];")
"""An edge, and an edge of the fallback chain (drawn dashed)."""


def _escape_dot(text: str) -> str:
    return text.replace("\\", "\\\\").replace('"', '\\"')


def render_dot(plan: Plan, *, show_resources: bool = True, show_schedule: bool = True) -> str:
    """Render a Plan as a Graphviz DOT digraph.

    Args:
        plan: Plan to render.
        show_resources: If True, append a legend node with resource usage.
        show_schedule: If True and the plan has a schedule, group
            actions with equal start time into clusters.

    Returns:
        DOT source code as a plain string.
    """
    if len(plan) == 0:
        return 'digraph Plan {\n    rankdir=TB;\n    empty [label="(empty plan)"];\n}\n'

    lines: list[str] = [
        "digraph Plan {",
        "    rankdir=TB;",
        '    node [shape=box, style="rounded,filled", fillcolor="#e8f4ff"];',
    ]

    lines.extend(drawing_lines(plan, show_schedule, _emit_scheduled_nodes, _emit_unscheduled_nodes, _EDGES))
    csp = plan.metadata.csp
    if show_resources and csp is not None and csp.resource_usage:
        lines.append(_emit_resource_legend(csp))

    lines.append("}")
    return "\n".join(lines) + "\n"


def _emit_scheduled_nodes(plan: Plan, node_ids: list[str], schedule: Sequence[ScheduleEntry]) -> list[str]:
    """Emit nodes grouped by start time, wrapping parallel groups in clusters."""

    def node(i: int) -> str:
        return f'{node_ids[i]} [label="{_format_label(plan, i, schedule[i])}"];'

    def opening(group: int, start_t: float) -> list[str]:
        return [
            f"    subgraph cluster_{group} {{",
            f'        label="t={start_t:g}s";',
            '        style="dashed";',
        ]

    return scheduled_lines(schedule, node, opening, "    }")


def _emit_unscheduled_nodes(plan: Plan, node_ids: list[str]) -> list[str]:
    """Emit one node per action, annotating non-default costs."""
    out: list[str] = []
    for node_id, (label, cost) in zip(node_ids, action_labels(plan, _escape_dot), strict=True):
        if cost is not None:
            label = f"{label}\\ncost={cost:g}"
        out.append(f'    {node_id} [label="{label}"];')
    return out


def _emit_resource_legend(csp: CSPMetadata) -> str:
    """Build the resource-usage legend node as a single DOT statement."""
    legend_lines = ["Resources:"]
    legend_lines.extend(resource_status(usage) for usage in csp.resource_usage)
    legend = "\\l".join(_escape_dot(line) for line in legend_lines) + "\\l"
    return f'    legend [shape=note, fillcolor="#fff8dc", label="{legend}"];'


def _format_label(plan: Plan, index: int, schedule_entry: ScheduleEntry) -> str:
    return timed_label(_escape_dot(plan.actions[index].name), schedule_entry, "\\nduration={s:g}s")


__all__ = ["render_dot"]
