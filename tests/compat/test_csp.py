"""goap.compat's CSP checks, two-phase pipeline, explanations and constraint builder next to
LangGOAP 0.1.2's: each scenario runs on both and compares what a user sees."""

from __future__ import annotations

from collections.abc import Callable
from datetime import timedelta
from types import ModuleType, SimpleNamespace
from typing import Any

import pytest

pytest.importorskip("langgoap")
pytest.importorskip("ortools")

import langgoap
import langgoap.constraints as lg_constraints
import langgoap.planner.csp as lg_csp
import langgoap.planner.explain as lg_explain
import langgoap.planner.pipeline as lg_pipeline
import langgoap.planner.types as lg_types

import goap.compat as compat
import goap.compat.constraints as our_constraints
import goap.compat.planner.csp as our_csp
import goap.compat.planner.explain as our_explain
import goap.compat.planner.pipeline as our_pipeline
import goap.compat.planner.types as our_types


def _side(
    top: ModuleType, csp: ModuleType, pipe: ModuleType, expl: ModuleType, cons: ModuleType, types: ModuleType
) -> Any:
    return SimpleNamespace(top=top, csp=csp, pipe=pipe, expl=expl, cons=cons, types=types)


SIDES = (
    _side(langgoap, lg_csp, lg_pipeline, lg_explain, lg_constraints, lg_types),
    _side(compat, our_csp, our_pipeline, our_explain, our_constraints, our_types),
)


def both(fn: Callable[[Any], Any]) -> tuple[Any, Any]:
    """``fn`` run on LangGOAP's modules, then on ours."""
    return fn(SIDES[0]), fn(SIDES[1])


def act(
    s: Any, name: str, pre: dict[str, Any] | None = None, eff: dict[str, Any] | None = None, **kw: Any
) -> Any:
    return s.top.ActionSpec(name=name, preconditions=pre or {}, effects=eff or {"done": True}, **kw)


def a_plan(s: Any, *actions: Any) -> Any:
    state = s.top.PlanningState.from_dict({})
    states = []
    for a in actions:
        state = state.apply(a.effects)
        states.append(state)
    return s.types.Plan(
        actions=actions, expected_states=tuple(states), total_cost=sum(a.get_cost() for a in actions)
    )


def usage(meta: Any) -> list[tuple[Any, ...]]:
    return sorted(
        (u.key, u.total, u.constraint_min, u.constraint_max, u.satisfied, u.level)
        for u in meta.resource_usage
    )


def seen(p: Any) -> tuple[Any, ...]:
    """What a user reads off a pipeline plan."""
    csp = p.metadata.csp
    return (
        p.action_names,
        p.total_cost,
        p.score.hard,
        p.score.soft,
        csp.status.value,
        usage(csp),
        dict(csp.objective_values),
    )


def test_validate_reports_the_same_usage_and_status() -> None:
    """A plan within its hard budget is FEASIBLE with the same per-resource rows (a soft one broken)."""

    def run(s: Any) -> Any:
        p = a_plan(s, act(s, "a", resources={"tokens": 100, "cost": 7, "latency": 3}))
        goal = s.top.GoalSpec(
            conditions={"done": True},
            constraints=(
                s.top.ConstraintSpec("tokens", max=200),
                s.top.ConstraintSpec("cost", max=5, level="soft"),
            ),
            objectives={"latency": s.top.Minimize},
        )
        meta = s.csp.validate_plan(p, goal)
        return (
            meta.status.value,
            usage(meta),
            dict(meta.objective_values),
            meta.plans_evaluated,
            meta.explanation,
        )

    lg, ours = both(run)
    assert ours == lg


def test_validate_explains_a_broken_budget_alike() -> None:
    """An over-budget plan is INFEASIBLE; the explanation names the same minimal conflict and overrun."""

    def run(s: Any) -> Any:
        p = a_plan(s, act(s, "a", resources={"usd": 20.0, "tokens": 50}))
        cons = (
            s.top.ConstraintSpec("usd", max=5.0),
            s.top.ConstraintSpec("usd", max=10.0),
            s.top.ConstraintSpec("tokens", min=80),
        )
        meta = s.csp.validate_plan(p, s.top.GoalSpec(conditions={"done": True}, constraints=cons))
        why = meta.explanation
        return (
            meta.status.value,
            [(c.key, c.max, c.min) for c in why.conflicting_constraints],
            why.resource_shortfalls,
        )

    (lg_status, lg_core, lg_short), (status, core, short) = both(run)
    assert (status, core) == (lg_status, lg_core)
    assert [(x.key, x.required, x.available_max, x.available_min, x.overrun) for x in short] == [
        (x.key, x.required, x.available_max, x.available_min, x.overrun) for x in lg_short
    ]


def test_schedule_plan_gives_the_same_critical_path() -> None:
    """Independent branches run in parallel: the same makespan and critical path. Difference: an
    action with slack starts as early as it can (goap compacts the schedule), where LangGOAP's
    CP-SAT may start it anywhere within its slack."""

    def run(s: Any) -> Any:
        h = timedelta(hours=1)
        p = a_plan(
            s,
            act(s, "a", eff={"x": True}, duration=h),
            act(s, "b", {"x": True}, {"y": True}, duration=5 * h),
            act(s, "c", {"x": True}, {"z": True}, duration=2 * h),
            act(s, "d", {"y": True, "z": True}, {"done": True}, duration=h),
        )
        meta = s.csp.schedule_plan(p)
        return (
            meta.status.value,
            meta.makespan,
            {e.action_name: (e.start, e.duration, e.end) for e in meta.schedule},
        )

    (lg_status, lg_span, lg_at), (status, span, at) = both(run)
    assert (status, span) == (lg_status, lg_span) == ("optimal", timedelta(hours=7))
    assert {k: at[k] for k in "abd"} == {k: lg_at[k] for k in "abd"}
    assert at["c"] == (timedelta(hours=1), timedelta(hours=2), timedelta(hours=3))
    assert lg_at["c"][0] >= lg_at["a"][2] and lg_at["c"][2] <= lg_at["d"][0]


def test_optimize_plans_picks_the_same_plan() -> None:
    """Objectives (min usd, max quality) and a hard cap choose the same candidate."""

    def run(s: Any) -> Any:
        plans = [
            a_plan(s, act(s, "cheap", resources={"usd": 10, "quality": 2})),
            a_plan(s, act(s, "balanced", resources={"usd": 20, "quality": 50})),
            a_plan(s, act(s, "lavish", resources={"usd": 200, "quality": 90})),
        ]
        goal = s.top.GoalSpec(
            conditions={"done": True},
            constraints=(s.top.ConstraintSpec("usd", max=100),),
            objectives={"usd": s.top.Minimize, "quality": s.top.Maximize},
        )
        chosen, meta = s.csp.optimize_plans(plans, goal)
        return (
            chosen.action_names,
            meta.status.value,
            usage(meta),
            dict(meta.objective_values),
            meta.plans_evaluated,
        )

    lg, ours = both(run)
    assert ours == lg


def test_pareto_plans_keep_the_same_front() -> None:
    """Dominated and over-budget plans drop out; the front comes back in the same order."""

    def run(s: Any) -> Any:
        spec = [(5, 8), (8, 5), (3, 2), (9, 9), (50, 99)]
        plans = [a_plan(s, act(s, f"p{u}_{q}", resources={"usd": u, "quality": q})) for u, q in spec]
        goal = s.top.GoalSpec(
            conditions={"done": True},
            constraints=(s.top.ConstraintSpec("usd", max=10),),
            objectives={"usd": s.top.Minimize, "quality": s.top.Maximize},
        )
        return [(p.action_names, m.plans_evaluated) for p, m in s.csp.pareto_plans(plans, goal)]

    lg, ours = both(run)
    assert ours == lg


def shop(s: Any) -> list[Any]:
    """A two-step job with an express and a standard mode per step."""
    return [
        act(s, "prep_fast", {"prepped": False}, {"prepped": True}, cost=1, resources={"usd": 40}),
        act(s, "prep_slow", {"prepped": False}, {"prepped": True}, cost=2, resources={"usd": 15}),
        act(s, "ship_fast", {"prepped": True}, {"done": True}, cost=1, resources={"usd": 30}),
        act(s, "ship_slow", {"prepped": True}, {"done": True}, cost=2, resources={"usd": 10}),
    ]


def test_pipeline_keeps_a_feasible_primary_plan() -> None:
    """The least-cost plan within the cap comes back FEASIBLE with the same score."""

    def run(s: Any) -> Any:
        goal = s.top.GoalSpec(
            conditions={"done": True},
            constraints=(s.top.ConstraintSpec("usd", max=100),),
            objectives={"usd": s.top.Minimize},
        )
        return seen(s.pipe.plan({"prepped": False}, goal, shop(s)))

    lg, ours = both(run)
    assert ours == lg


def test_pipeline_swaps_one_action_under_a_hard_cap() -> None:
    """Over the cap, the best single-blacklist alternative is chosen, status OPTIMAL."""

    def run(s: Any) -> Any:
        goal = s.top.GoalSpec(
            conditions={"done": True},
            constraints=(s.top.ConstraintSpec("usd", max=56),),
            objectives={"usd": s.top.Minimize},
        )
        return seen(s.pipe.plan({"prepped": False}, goal, shop(s)))

    lg, ours = both(run)
    assert ours == lg


def test_pipeline_returns_the_primary_marked_infeasible() -> None:
    """No single swap fits (both swaps would): the primary plan comes back INFEASIBLE, explained."""

    def run(s: Any) -> Any:
        goal = s.top.GoalSpec(conditions={"done": True}, constraints=(s.top.ConstraintSpec("usd", max=30),))
        p = s.pipe.plan({"prepped": False}, goal, shop(s))
        return seen(p), p.metadata.csp.explanation.suggestion != ""

    lg, ours = both(run)
    assert ours == lg


def test_explain_no_plan_names_the_same_keys() -> None:
    """Goal keys nothing produces and preconditions nothing establishes are listed alike."""

    def run(s: Any) -> Any:
        acts = [act(s, "a", {"key": True}, {"x": True}), act(s, "b", {"x": True}, {"y": True})]
        goal = s.top.GoalSpec(conditions={"y": True, "impossible": True})
        why = s.expl.explain_no_plan(s.top.PlanningState.from_dict({}), goal, acts)
        return why.unreachable_conditions, why.missing_preconditions, "impossible" in why.suggestion

    lg, ours = both(run)
    assert ours == lg


def test_constraint_builder_builds_the_same_goal_parts() -> None:
    """Fluent chains end in the same constraints and objectives."""

    def run(s: Any) -> Any:
        b = s.cons.ConstraintBuilder
        out = b.build(
            b.for_plan()
            .sum_resource("gpu")
            .bounded(max=100)
            .penalize(level="soft", weight=2.0)
            .as_constraint("gpu_cap"),
            b.for_each_action().bounded(min=1).as_constraint("steps"),
            b.for_plan().sum_resource("usd").minimize().weight(3.0).as_objective("usd"),
        )
        cons = [(c.key, c.min, c.max, c.weight, c.level) for c in out.constraints]
        return cons, {k: v.value for k, v in out.objectives.items()}

    lg, ours = both(run)
    assert ours == lg


def test_dependency_graph_differs_by_writer_order() -> None:
    """Difference: goap's precedence also orders two writers of one fact (LangGOAP links only the
    closest producer a precondition reads); the reader's edge is the same."""

    def run(s: Any) -> Any:
        acts = (act(s, "a", eff={"x": True}), act(s, "b", eff={"x": True}), act(s, "c", {"x": True}))
        return s.csp.build_dependency_graph(acts)

    lg, ours = both(run)
    assert lg[2] == ours[2] == [1]
    assert lg[1] == [] and ours[1] == [0]
