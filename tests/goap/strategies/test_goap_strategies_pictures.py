"""Pictures of plans: Mermaid flowcharts, Mermaid Gantt charts and DOT."""

from __future__ import annotations

import pytest

from goap import ActionSpec, GoalSpec, plan
from goap.planning._result import Plan, PlanResult, SearchStats
from goap.planning._schedule import Schedule, ScheduledAction
from goap.runtime._visualize import (
    plan_to_dot,
    plan_to_gantt,
    plan_to_mermaid,
    plan_to_text,
    plan_to_text_gantt,
)

ACTIONS = [
    ActionSpec("fetch", {}, {"source": True}),
    ActionSpec("build", {"source": True}, {"built": True}, cost=2),
    ActionSpec("publish", {"built": True}, {"published": True}),
]


def _result() -> PlanResult:
    res = plan({}, GoalSpec({"published": True}), ACTIONS)
    assert res.plan is not None
    return res


def test_mermaid_flowchart_chains_the_actions_with_their_costs() -> None:
    """start -> 1. fetch -> 2. build (2) -> 3. publish -> goal, titled with strategy and cost."""
    text = plan_to_mermaid(_result())
    assert text.startswith('---\ntitle: "astar(lmcut): cost 4"\n---\nflowchart LR\n')
    assert 'a1["2. build (2)"]' in text
    assert "start --> a0" in text and "a0 --> a1" in text and "a1 --> a2" in text and "a2 --> goal" in text


def test_dot_is_a_digraph_of_the_same_chain() -> None:
    """DOT output names every action and links them in order."""
    text = plan_to_dot(_result().plan or Plan((), 0.0), name="release")
    assert text.startswith('digraph "release" {')
    assert 'a2 [label="3. publish (1)"];' in text and "a0 -> a1;" in text and text.rstrip().endswith("}")


def test_a_scheduled_plan_is_drawn_from_its_precedence_edges_and_as_a_gantt_chart() -> None:
    """Parallel actions hang off start side by side; the Gantt chart has one bar per action."""
    sched = Schedule(
        (
            ScheduledAction(0, "lint", 0, 2),
            ScheduledAction(1, "test", 0, 5),
            ScheduledAction(2, "ship", 5, 6),
        ),
        makespan=6,
        edges=((0, 2), (1, 2)),
    )
    p = Plan(tuple(ActionSpec(n) for n in ("lint", "test", "ship")), 3.0)
    res = PlanResult("found", p, None, SearchStats(), True, "csp", schedule=sched)
    flow = plan_to_mermaid(res)
    assert "start --> a0" in flow and "start --> a1" in flow and "a0 --> a2" in flow and "a2 --> goal" in flow
    assert "a0 --> a1" not in flow
    gantt = plan_to_gantt(res, title="ci")
    assert gantt.startswith("gantt\n  title ci (makespan 6s)")
    assert "  2. test :a1, 0, 5s" in gantt and "  3. ship :a2, 5, 1s" in gantt


def test_gantt_needs_a_schedule() -> None:
    """A plan without a schedule cannot be a Gantt chart."""
    with pytest.raises(ValueError, match="no schedule"):
        plan_to_gantt(_result())


def test_names_alone_and_no_plan_are_drawable() -> None:
    """A list of names draws without costs; no plan draws start -> goal."""
    assert 'a0["1. a"]' in plan_to_mermaid(["a", "b"])
    res = plan({}, GoalSpec({"x": True}), ACTIONS)
    assert "start --> goal" in plan_to_mermaid(res)


def test_unframed_pictures_take_ids_labels_edges_groups_and_extra_lines() -> None:
    """frame=False drops title and start/goal; ids, labels, edges, groups and extra lines are drawn as given."""
    opts = {
        "frame": False,
        "ids": ["x", "y", "z"],
        "labels": ["X", "Y", "Z"],
        "edges": [(0, 2), (1, 2)],
        "groups": [("t=0s", [0, 1])],
        "extra": ["  %% note"],
    }
    flow = plan_to_mermaid(["a", "b", "c"], direction="TD", node_class="act", **opts)  # type: ignore[arg-type]
    assert flow.startswith("flowchart TD\n") and "start" not in flow and "goal" not in flow
    assert '  subgraph group0["t=0s"]\n    x["X"]:::act\n    y["Y"]:::act\n  end\n  z["Z"]:::act' in flow
    assert "x --> z" in flow and "y --> z" in flow and "x --> y" not in flow and flow.endswith("%% note\n")
    dot = plan_to_dot(["a", "b", "c"], name="Plan", direction="TB", **opts)  # type: ignore[arg-type]
    assert dot.startswith("digraph Plan {\n  rankdir=TB;\n") and "start" not in dot
    assert 'subgraph cluster_0 { label="t=0s"; style=dashed;' in dot and "x -> z;" in dot
    assert dot.endswith("  %% note\n}\n")


def _scheduled() -> PlanResult:
    sched = Schedule(
        (
            ScheduledAction(0, "lint", 0, 2),
            ScheduledAction(1, "test", 0, 5),
            ScheduledAction(2, "ship", 5, 6),
        ),
        makespan=6,
        edges=((0, 2), (1, 2)),
    )
    p = Plan(tuple(ActionSpec(n) for n in ("lint", "test", "ship")), 3.0)
    return PlanResult("found", p, None, SearchStats(), True, "csp", schedule=sched)


def test_text_lists_the_steps_with_what_they_wait_for_or_by_start_time() -> None:
    """Unscheduled: one line per action and its predecessors; scheduled: by start time, parallel ones grouped."""
    assert plan_to_text(_result()) == (
        "astar(lmcut): cost 4 (3 steps)\n├── [0] fetch (1)\n├── [1] build (2)  (after: [0])\n"
        "├── [2] publish (1)  (after: [1])\n"
    )
    text = plan_to_text(_scheduled(), title="ci", labels=["L", "T", "S"], extra=["", "done"])
    assert text == "ci\n├── t=0s (parallel):\n│     • [0] L\n│     • [1] T\n├── t=5s  [2] S\n\ndone\n"
    assert "├── [1] b\n" in plan_to_text(["a", "b"], edges=[])


def test_text_gantt_draws_one_bar_per_action() -> None:
    """Bars of # scaled to the width; no schedule or a width below 10 is a ValueError."""
    text = plan_to_text_gantt(_scheduled(), width=12)
    assert text.splitlines()[1:] == [
        "lint  |####        |  0-2s",
        "test  |##########  |  0-5s",
        "ship  |          ##|  5-6s",
    ]
    with pytest.raises(ValueError, match="no schedule"):
        plan_to_text_gantt(_result())
    with pytest.raises(ValueError, match="width"):
        plan_to_text_gantt(_scheduled(), width=5)
