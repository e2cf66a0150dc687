"""Pictures of plans: Mermaid flowcharts, Mermaid Gantt charts of schedules, Graphviz DOT.

Each function takes a :class:`goap.Plan`, a :class:`goap.PlanResult` or a sequence of action
names and returns text to paste into a Markdown file (Mermaid) or feed to ``dot -Tsvg`` (DOT).
A plan is drawn as a chain ``start -> a1 -> ... -> goal`` with each action's cost; a scheduled
plan (one the CP-SAT pipeline placed in time, ``PlanResult.schedule``) is drawn from its
precedence edges instead, so actions that may run in parallel appear side by side, and as a
Gantt chart of start and end times.
"""

from __future__ import annotations

import json
from collections.abc import Sequence
from itertools import pairwise
from typing import Any

from goap.planning import Plan, PlanResult, Schedule

__all__ = ["plan_to_dot", "plan_to_gantt", "plan_to_mermaid"]


def _parts(
    plan: Plan | PlanResult | Sequence[str],
) -> tuple[list[str], list[float | None], Schedule | None, str]:
    """Names, per-action costs (when known), the schedule and a title."""
    if isinstance(plan, PlanResult):
        if plan.plan is None:
            return [], [], None, f"no plan ({plan.status})"
        names, each, _, _ = _parts(plan.plan)
        return names, each, plan.schedule, f"{plan.strategy or 'plan'}: cost {plan.plan.cost:g}"
    if isinstance(plan, Plan):
        state: dict[str, Any] = {}
        costs: list[float | None] = []
        for a in plan.actions:
            # Costs of state-dependent actions are not known without the initial state.
            costs.append(None if a.has_cost_function else a.cost_in(state))
        return list(plan.names), costs, None, f"cost {plan.cost:g}"
    names = [str(n) for n in plan]
    return names, [None] * len(names), None, "plan"


def _label(name: str, cost: float | None) -> str:
    return name if cost is None else f"{name} ({cost:g})"


def _edges(n: int, schedule: Schedule | None) -> list[tuple[str, str]]:
    ids = [f"a{i}" for i in range(n)]
    if not n:
        return [("start", "goal")]
    if schedule is None:
        return [("start", ids[0]), *pairwise(ids), (ids[-1], "goal")]
    has_in = {j for _, j in schedule.edges}
    has_out = {i for i, _ in schedule.edges}
    out = [("start", ids[i]) for i in range(n) if i not in has_in]
    out += [(ids[i], ids[j]) for i, j in schedule.edges]
    out += [(ids[i], "goal") for i in range(n) if i not in has_out]
    return out


def plan_to_mermaid(plan: Plan | PlanResult | Sequence[str], *, direction: str = "LR") -> str:
    """A Mermaid flowchart of the plan (a precedence graph when the plan is scheduled)."""
    names, costs, schedule, title = _parts(plan)
    lines = ["---", f"title: {json.dumps(title)}", "---", f"flowchart {direction}", "  start((start))"]
    for i, (n, c) in enumerate(zip(names, costs, strict=True)):
        lines.append(f"  a{i}[{json.dumps(f'{i + 1}. ' + _label(n, c))}]")
    lines.append("  goal(((goal)))")
    lines += [f"  {a} --> {b}" for a, b in _edges(len(names), schedule)]
    return "\n".join(lines) + "\n"


def plan_to_gantt(plan: PlanResult | Schedule, *, title: str = "plan schedule") -> str:
    """A Mermaid Gantt chart of a scheduled plan (times in seconds from the start).

    Raises ValueError when the plan has no schedule (plan with the CP-SAT pipeline and actions
    that declare durations).
    """
    schedule = plan.schedule if isinstance(plan, PlanResult) else plan
    if schedule is None:
        raise ValueError(
            "this plan has no schedule; plan with CspPipeline and actions that declare a duration"
        )
    lines = [
        "gantt",
        f"  title {title} (makespan {schedule.makespan:g}s)",
        "  dateFormat X",
        "  axisFormat %s",
        "  section actions",
    ]
    for e in schedule.entries:
        # dateFormat X reads the start as seconds; the length is a Mermaid duration.
        lines.append(f"  {e.index + 1}. {e.action} :a{e.index}, {e.start:g}, {max(e.end - e.start, 0):g}s")
    return "\n".join(lines) + "\n"


def plan_to_dot(plan: Plan | PlanResult | Sequence[str], *, name: str = "plan") -> str:
    """The plan as a Graphviz DOT digraph (a precedence graph when the plan is scheduled)."""
    names, costs, schedule, title = _parts(plan)
    lines = [
        f"digraph {json.dumps(name)} {{",
        "  rankdir=LR;",
        f"  label={json.dumps(title)};",
        '  start [shape=circle, label="start"];',
        '  goal [shape=doublecircle, label="goal"];',
        "  node [shape=box, style=rounded];",
    ]
    for i, (n, c) in enumerate(zip(names, costs, strict=True)):
        lines.append(f"  a{i} [label={json.dumps(f'{i + 1}. ' + _label(n, c))}];")
    lines += [f"  {a} -> {b};" for a, b in _edges(len(names), schedule)]
    lines.append("}")
    return "\n".join(lines) + "\n"
