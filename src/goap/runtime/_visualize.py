"""Pictures of plans: Mermaid flowcharts, Mermaid Gantt charts of schedules, Graphviz DOT, plain text.

Each function takes a :class:`goap.Plan`, a :class:`goap.PlanResult` or a sequence of action
names and returns text to paste into a Markdown file (Mermaid) or feed to ``dot -Tsvg`` (DOT).
A plan is drawn as a chain ``start -> a1 -> ... -> goal`` with each action's cost; a scheduled
plan (one the CP-SAT pipeline placed in time, ``PlanResult.schedule``) is drawn from its
precedence edges instead, so actions that may run in parallel appear side by side, and as a
Gantt chart of start and end times.
"""

from __future__ import annotations

import json
from collections.abc import Callable, Sequence
from typing import Any

from goap.planning import Plan, PlanResult, Schedule

__all__ = ["plan_to_dot", "plan_to_gantt", "plan_to_mermaid", "plan_to_text", "plan_to_text_gantt"]


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


def _edges(
    n: int, schedule: Schedule | None, links: Sequence[tuple[int, int]] | None, frame: bool
) -> list[tuple[str, str]]:
    ids = [f"a{i}" for i in range(n)]
    if not n:
        return [("start", "goal")] if frame else []
    if links is None:
        links = list(schedule.edges) if schedule is not None else [(i, i + 1) for i in range(n - 1)]
    out = [(ids[i], ids[j]) for i, j in links]
    if frame:
        has_in = {j for _, j in links}
        has_out = {i for i, _ in links}
        out = [("start", ids[i]) for i in range(n) if i not in has_in] + out
        out += [(ids[i], "goal") for i in range(n) if i not in has_out]
    return out


def _nodes(
    names: list[str],
    costs: list[float | None],
    labels: Sequence[str] | None,
    groups: Sequence[tuple[str, Sequence[int]]],
    node: Callable[[int, str], str],
    group: Callable[[int, str], tuple[str, str]],
) -> list[str]:
    """Node declarations in plan order; a group's nodes are declared together, inside it."""
    text = (
        list(labels)
        if labels is not None
        else [f"{i + 1}. " + _label(n, c) for i, (n, c) in enumerate(zip(names, costs, strict=True))]
    )
    grouped = {i: g for g, (_, members) in enumerate(groups) for i in members}
    out: list[str] = []
    for i in range(len(names)):
        g = grouped.get(i)
        if g is None:
            out.append("  " + node(i, text[i]))
        elif min(groups[g][1]) == i:
            opening, closing = group(g, groups[g][0])
            out += [f"  {opening}", *(f"    {node(j, text[j])}" for j in groups[g][1]), f"  {closing}"]
    return out


def plan_to_mermaid(
    plan: Plan | PlanResult | Sequence[str],
    *,
    direction: str = "LR",
    frame: bool = True,
    labels: Sequence[str] | None = None,
    ids: Sequence[str] | None = None,
    edges: Sequence[tuple[int, int]] | None = None,
    groups: Sequence[tuple[str, Sequence[int]]] = (),
    node_class: str | None = None,
    extra: Sequence[str] = (),
) -> str:
    """A Mermaid flowchart of the plan (a precedence graph when the plan is scheduled).

    Options for callers drawing their own way: ``frame=False`` leaves out the title and the
    start/goal nodes; ``labels`` and ``ids`` replace the action nodes' labels and ids; ``edges``
    (pairs of action indices, e.g. :func:`goap.planning.dependencies`) replace the chain or the
    schedule's edges; ``groups`` draws each ``(title, indices)`` as a subgraph; ``node_class`` is
    a class given to every action node; ``extra`` lines are appended as they are.
    """
    names, costs, schedule, title = _parts(plan)
    key = list(ids) if ids is not None else [f"a{i}" for i in range(len(names))]
    cls = f":::{node_class}" if node_class else ""
    lines = ["---", f"title: {json.dumps(title)}", "---"] if frame else []
    lines.append(f"flowchart {direction}")
    if frame:
        lines.append("  start((start))")
    lines += _nodes(
        names,
        costs,
        labels,
        groups,
        lambda i, text: f"{key[i]}[{json.dumps(text)}]{cls}",
        lambda g, text: (f"subgraph group{g}[{json.dumps(text)}]", "end"),
    )
    if frame:
        lines.append("  goal(((goal)))")
    ref = {f"a{i}": k for i, k in enumerate(key)}
    lines += [f"  {ref.get(a, a)} --> {ref.get(b, b)}" for a, b in _edges(len(names), schedule, edges, frame)]
    return "\n".join([*lines, *extra]) + "\n"


def _schedule_of(plan: PlanResult | Schedule) -> Schedule:
    schedule = plan.schedule if isinstance(plan, PlanResult) else plan
    if schedule is None:
        raise ValueError(
            "this plan has no schedule; plan with CspPipeline and actions that declare a duration"
        )
    return schedule


def plan_to_gantt(plan: PlanResult | Schedule, *, title: str = "plan schedule") -> str:
    """A Mermaid Gantt chart of a scheduled plan (times in seconds from the start).

    Raises ValueError when the plan has no schedule (plan with the CP-SAT pipeline and actions
    that declare durations).
    """
    schedule = _schedule_of(plan)
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


def plan_to_dot(
    plan: Plan | PlanResult | Sequence[str],
    *,
    name: str = "plan",
    direction: str = "LR",
    frame: bool = True,
    labels: Sequence[str] | None = None,
    ids: Sequence[str] | None = None,
    edges: Sequence[tuple[int, int]] | None = None,
    groups: Sequence[tuple[str, Sequence[int]]] = (),
    extra: Sequence[str] = (),
) -> str:
    """The plan as a Graphviz DOT digraph (a precedence graph when the plan is scheduled).

    The options are :func:`plan_to_mermaid`'s (``groups`` become dashed clusters, ``extra``
    statements go before the closing brace); with ``frame=False`` a ``name`` that is a DOT
    identifier is written unquoted.
    """
    names, costs, schedule, title = _parts(plan)
    key = list(ids) if ids is not None else [f"a{i}" for i in range(len(names))]
    bare = not frame and name.isidentifier()
    lines = [f"digraph {name if bare else json.dumps(name)} {{", f"  rankdir={direction};"]
    if frame:
        lines += [
            f"  label={json.dumps(title)};",
            '  start [shape=circle, label="start"];',
            '  goal [shape=doublecircle, label="goal"];',
        ]
    lines.append("  node [shape=box, style=rounded];")
    lines += _nodes(
        names,
        costs,
        labels,
        groups,
        lambda i, text: f"{key[i]} [label={json.dumps(text)}];",
        lambda g, text: (f"subgraph cluster_{g} {{ label={json.dumps(text)}; style=dashed;", "}"),
    )
    ref = {f"a{i}": k for i, k in enumerate(key)}
    lines += [f"  {ref.get(a, a)} -> {ref.get(b, b)};" for a, b in _edges(len(names), schedule, edges, frame)]
    lines += [*extra, "}"]
    return "\n".join(lines) + "\n"


def plan_to_text(
    plan: Plan | PlanResult | Sequence[str],
    *,
    title: str | None = None,
    labels: Sequence[str] | None = None,
    edges: Sequence[tuple[int, int]] | None = None,
    schedule: Schedule | None = None,
    extra: Sequence[str] = (),
) -> str:
    """A plain-text picture: a title line, then a line per action, ``[i] label  (after: [...])``
    naming the actions it waits for (``edges``, default: the chain); a scheduled plan (or one given
    a ``schedule``) is listed by start time instead, actions starting together grouped. The
    ``extra`` lines follow as they are."""
    names, costs, found, default = _parts(plan)
    schedule = schedule or found
    text = list(labels) if labels is not None else [_label(n, c) for n, c in zip(names, costs, strict=True)]
    n = len(names)
    lines = [title if title is not None else f"{default} ({n} step{'' if n == 1 else 's'})"]
    if schedule is None:
        after: dict[int, list[int]] = {}
        for i, j in edges if edges is not None else [(i, i + 1) for i in range(n - 1)]:
            after.setdefault(j, []).append(i)
        lines += [
            f"├── [{j}] {text[j]}" + (f"  (after: {sorted(after[j])})" if j in after else "")
            for j in range(n)
        ]
    else:
        starts: dict[float, list[int]] = {}
        for e in schedule.entries:
            starts.setdefault(e.start, []).append(e.index)
        for t, group in sorted(starts.items()):
            if len(group) == 1:
                lines.append(f"├── t={t:g}s  [{group[0]}] {text[group[0]]}")
            else:
                lines += [f"├── t={t:g}s (parallel):", *(f"│     • [{i}] {text[i]}" for i in group)]
    return "\n".join([*lines, *extra]) + "\n"


def plan_to_text_gantt(plan: PlanResult | Schedule, *, width: int = 60) -> str:
    """The schedule as text: a bar of ``#`` per action on a ``width``-column time axis.

    Raises ValueError when the plan has no schedule or ``width`` is below 10.
    """
    schedule = _schedule_of(plan)
    if width < 10:
        raise ValueError(f"width must be at least 10, got {width}")
    span = schedule.makespan if schedule.makespan > 0 else 1.0
    pad = max(len(e.action) for e in schedule.entries)
    lines = [f"{'action'.ljust(pad)}  |{'-' * width}|  0..{span:g}s"]
    for e in schedule.entries:
        first = int(e.start * width / span)
        last = max(first + 1, int(e.end * width / span))
        bar = "".join("#" if first <= c < last else " " for c in range(width))
        lines.append(f"{e.action.ljust(pad)}  |{bar}|  {e.start:g}-{e.end:g}s")
    return "\n".join(lines) + "\n"
