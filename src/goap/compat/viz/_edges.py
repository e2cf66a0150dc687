"""Which actions of a plan a drawing connects: the scheduler's dependency edges, or a chain.

Ported from ``langgoap.viz`` (langgoap 0.1.2, MIT licence, Integrallis Software), where the
Mermaid and DOT renderers each derived them.
"""

from __future__ import annotations

from typing import TYPE_CHECKING

if TYPE_CHECKING:
    from goap.compat.planner.types import Plan

__all__ = ["plan_edges"]


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
