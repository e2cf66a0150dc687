"""The CP-SAT two-phase pipeline: constraints, schedules, selection, determinism, GoapGraph runs."""

from __future__ import annotations

from collections.abc import Mapping, Sequence
from typing import Any

import pytest
from goap_tasks import layered_action
from hypothesis import given, settings
from hypothesis import strategies as st

from goap import (
    ActionSpec,
    Capacity,
    ConstrainedGoal,
    ConstraintExplanation,
    CspPipeline,
    GoalSpec,
    GoapGraph,
    ModelError,
    Objective,
    PlanResult,
    ResourceConstraint,
    Schedule,
    add,
    dependencies,
    ge,
    pipeline_plan,
    plan,
)
from goap.testing import simulate
from graphengine.store import Store
from graphengine.testing import assert_replays

GOAL = GoalSpec({"shipped": True}, name="ship")


def release() -> list[ActionSpec]:
    """fetch, then lint and one of two builds in parallel, then test, then ship."""
    return [
        ActionSpec("fetch", {}, {"src": True}, cost=1, resources={"budget": 1}, duration=2),
        ActionSpec("lint", {"src": True}, {"linted": True}, cost=1, resources={"budget": 1}, duration=1),
        ActionSpec(
            "build_fast",
            {"src": True},
            {"built": True},
            cost=1,
            resources={"budget": 5, "gpu": 1},
            duration=3,
        ),
        ActionSpec("build_slow", {"src": True}, {"built": True}, cost=3, resources={"budget": 2}, duration=6),
        ActionSpec(
            "test", {"built": True}, {"tested": True}, cost=1, resources={"budget": 1, "gpu": 1}, duration=2
        ),
        ActionSpec("ship", {"tested": True, "linted": True}, {"shipped": True}, cost=1, duration=1),
    ]


def check_schedule(
    initial: Mapping[str, Any], goal: GoalSpec, res: PlanResult, capacities: Sequence[Capacity] = ()
) -> Schedule:
    """The schedule respects its precedence edges and capacities, and its start order reaches the goal."""
    assert res.plan is not None and res.schedule is not None
    sched = res.schedule
    entries = sched.entries
    assert [e.action for e in entries] == list(res.plan.names)
    for u, v in sched.edges:
        assert entries[v].start >= entries[u].end - 1e-9
    for e, a in zip(entries, res.plan.actions, strict=True):
        assert e.end - e.start == pytest.approx(a.duration or 0.0)
    assert sched.makespan == pytest.approx(max((e.end for e in entries), default=0.0))
    for cap in capacities:
        for e in entries:
            running = sched.running_at(e.start)
            used = sum((res.plan.actions[i].resources or {}).get(cap.key, 0.0) for i in running)
            assert used <= cap.limit + 1e-9
    ok, _, _ = simulate(initial, goal, [res.plan.actions[i] for i in sched.order()])
    assert ok
    return sched


def test_without_constraints_the_pipeline_is_the_inner_search() -> None:
    """No constraint, objective, capacity or duration: the inner A* plan and a SKIPPED report."""
    acts = [ActionSpec(a.name, a.preconditions, a.effects, cost=a.cost) for a in release()]
    res = plan({}, GOAL, acts, CspPipeline())
    assert res.found and res.plan is not None
    assert res.plan.names == ("fetch", "lint", "build_fast", "test", "ship")
    assert res.optimal and res.solver is not None and res.solver.status == "SKIPPED"
    assert res.strategy == "csp-pipeline(astar(lmcut))"


def test_hard_budget_replaces_the_cheapest_plan() -> None:
    """The least-cost plan breaks the budget, so CP-SAT picks the feasible slow build, with a schedule."""
    res = pipeline_plan({}, GOAL, release(), constraints=[ResourceConstraint("budget", max=7)])
    assert res.found and res.plan is not None and res.solver is not None
    assert "build_slow" in res.plan.names
    assert dict(res.solver.metrics)["budget"] <= 7
    assert res.solver.status == "OPTIMAL"
    assert res.plan.score.feasible
    check_schedule({}, GOAL, res)


def test_hard_limit_violation_is_infeasible_with_the_constraint_named() -> None:
    """A budget no plan meets is INFEASIBLE: no plan, and the explanation names the constraint, proven."""
    res = pipeline_plan({}, GOAL, release(), constraints=[ResourceConstraint("budget", max=3)])
    assert res.status == "no_plan" and res.plan is None
    why = res.explanation
    assert isinstance(why, ConstraintExplanation)
    assert [v.constraint for v in why.violations] == ["budget <= 3"]
    assert why.violations[0].proven and why.proof == "exhaustive"
    assert "budget <= 3" in why.message and "INFEASIBLE" in why.message
    assert res.solver is not None and res.solver.status == "INFEASIBLE"
    assert why.to_dict()["violations"][0]["constraint"] == "budget <= 3"


def test_infeasible_core_names_only_the_conflicting_constraint() -> None:
    """Of a satisfiable and an unsatisfiable hard constraint, the core names the second one."""
    res = pipeline_plan(
        {},
        GOAL,
        release(),
        constraints=[ResourceConstraint("budget", max=20), ResourceConstraint("makespan", max=3)],
    )
    assert isinstance(res.explanation, ConstraintExplanation)
    (v,) = res.explanation.violations
    assert v.key == "makespan" and v.best_value == pytest.approx(8.0)
    assert not v.proven


def test_soft_violation_is_weighted_against_the_objective() -> None:
    """A soft budget's weight decides between a fast plan over budget and a slow plan within it."""
    soft = ResourceConstraint("budget", max=3, level="soft", weight=2)
    res = pipeline_plan({}, GOAL, release(), constraints=[soft], objectives=[Objective("makespan")])
    assert res.plan is not None and res.solver is not None
    # fast: makespan 8 + 2 * (8 - 3) = 18; slow: makespan 11 + 2 * (5 - 3) = 15
    assert "build_slow" in res.plan.names
    assert res.solver.levels[0] == pytest.approx(15.0)
    ((label, amount),) = res.solver.soft_violations
    assert label == "budget <= 3" and amount == pytest.approx(2.0)
    light = ResourceConstraint("budget", max=3, level="soft", weight=0.1)
    res2 = pipeline_plan({}, GOAL, release(), constraints=[light], objectives=[Objective("makespan")])
    assert res2.plan is not None and "build_fast" in res2.plan.names


def test_lexicographic_objectives_optimise_the_higher_priority_first() -> None:
    """Makespan first picks the fast build; budget first picks the slow one."""
    fast = pipeline_plan(
        {}, GOAL, release(), objectives=[Objective("makespan", priority=2), Objective("budget", priority=1)]
    )
    cheap = pipeline_plan(
        {}, GOAL, release(), objectives=[Objective("budget", priority=2), Objective("makespan", priority=1)]
    )
    assert fast.plan is not None and "build_fast" in fast.plan.names
    assert cheap.plan is not None and "build_slow" in cheap.plan.names
    assert fast.solver is not None and len(fast.solver.levels) == 2


def test_capacity_serialises_actions_sharing_a_resource() -> None:
    """Two GPU jobs that could overlap run one after the other under a GPU capacity of 1."""
    acts = [
        ActionSpec("train_a", {}, {"a": True}, resources={"gpu": 1}, duration=4),
        ActionSpec("train_b", {}, {"b": True}, resources={"gpu": 1}, duration=3),
        ActionSpec("prep", {}, {"c": True}, duration=2),
    ]
    goal = GoalSpec({"a": True, "b": True, "c": True})
    free = pipeline_plan({}, goal, acts)
    assert free.schedule is not None and free.schedule.makespan == pytest.approx(4.0)
    caps = [Capacity("gpu", 1)]
    res = pipeline_plan({}, goal, acts, capacities=caps)
    sched = check_schedule({}, goal, res, caps)
    assert sched.makespan == pytest.approx(7.0)


def test_capacity_below_one_actions_need_is_infeasible() -> None:
    """An action needing more of a capacity than exists makes every plan using it infeasible."""
    acts = [ActionSpec("big", {}, {"done": True}, resources={"gpu": 2}, duration=1)]
    res = pipeline_plan({}, GoalSpec({"done": True}), acts, capacities=[Capacity("gpu", 1)])
    assert isinstance(res.explanation, ConstraintExplanation)
    assert res.explanation.violations[0].key == "gpu"


def test_candidates_are_scored_and_the_best_is_chosen() -> None:
    """``min(candidates, key=score)`` is the chosen plan; infeasible candidates score hard < 0."""
    res = pipeline_plan({}, GOAL, release(), constraints=[ResourceConstraint("budget", max=7)])
    assert res.plan is not None and len(res.candidates) >= 2
    assert min(res.candidates, key=lambda p: p.score) == res.plan
    assert any(not c.score.feasible for c in res.candidates)


def test_constrained_goal_carries_its_constraints() -> None:
    """A ConstrainedGoal's constraints apply without configuring the strategy."""
    goal = ConstrainedGoal({"shipped": True}, constraints=(ResourceConstraint("budget", max=7),))
    res = plan({}, goal, release(), CspPipeline())
    assert res.plan is not None and "build_slow" in res.plan.names
    assert hash(goal) == hash(goal)


def test_same_inputs_give_the_same_plan_and_schedule() -> None:
    """Two runs with the same seed give identical plans, schedules and solver settings."""
    kw: dict[str, Any] = {
        "constraints": [ResourceConstraint("budget", max=9, level="soft")],
        "objectives": [Objective("makespan"), Objective("cost", priority=-1)],
        "capacities": [Capacity("gpu", 1)],
        "seed": 7,
    }
    a = pipeline_plan({}, GOAL, release(), **kw)
    b = pipeline_plan({}, GOAL, release(), **kw)
    assert a.plan == b.plan and a.schedule == b.schedule and a.candidates == b.candidates
    assert a.solver is not None and b.solver is not None
    assert (a.solver.seed, a.solver.workers) == (7, 1)
    assert a.solver.levels == b.solver.levels


def test_time_limit_ending_the_search_reports_feasible_not_optimal() -> None:
    """A tiny time limit still returns a plan, flagged FEASIBLE / time_limit_hit, never OPTIMAL."""
    acts = [
        ActionSpec(f"job{i}", {}, {f"j{i}": True}, resources={"m": 1 + i % 3}, duration=1 + (i * 7) % 5)
        for i in range(14)
    ]
    goal = GoalSpec({f"j{i}": True for i in range(14)})
    res = pipeline_plan({}, goal, acts, capacities=[Capacity("m", 3)], time_limit=1e-4)
    if res.solver is not None and res.solver.status == "UNKNOWN":
        assert res.status == "budget_exhausted"
        return
    assert res.plan is not None and res.solver is not None
    assert res.solver.time_limit_hit and res.solver.status == "FEASIBLE"
    assert not res.optimal
    check_schedule({}, goal, res, [Capacity("m", 3)])


def test_reserved_metric_names_are_refused() -> None:
    """A resource named like a reserved metric is a ModelError naming it."""
    acts = [ActionSpec("a", {}, {"x": True}, resources={"cost": 1})]
    with pytest.raises(ModelError, match="'cost' is a reserved metric"):
        pipeline_plan({}, {"x": True}, acts, constraints=[ResourceConstraint("cost", max=3)])


def test_bad_constraints_are_model_errors() -> None:
    """Bounds are checked when the constraint is built."""
    with pytest.raises(ModelError, match="min"):
        ResourceConstraint("x", min=3, max=1)
    with pytest.raises(ModelError, match="give max"):
        ResourceConstraint("x")
    with pytest.raises(ModelError, match="time_limit"):
        CspPipeline(time_limit=0)


def test_numeric_effects_commute_in_the_dependency_graph() -> None:
    """Two add() effects on one fact are unordered; a reader waits for both; a setter waits for readers."""
    acts = [
        ActionSpec("earn1", {}, {"money": add(5)}),
        ActionSpec("earn2", {}, {"money": add(5)}),
        ActionSpec("buy", {"money": ge(10)}, {"money": add(-10), "item": True}),
        ActionSpec("reset", {}, {"money": 0}),
    ]
    edges = dependencies(acts)
    assert (0, 1) not in edges
    assert {(0, 2), (1, 2), (2, 3)} <= set(edges)


@st.composite
def chains(draw: st.DrawFn) -> tuple[list[ActionSpec], GoalSpec]:
    """Random layered problems: each goal fact needs a random set of earlier facts."""
    n = draw(st.integers(2, 7))
    acts = []
    for i in range(n):
        needs = draw(st.sets(st.integers(0, i - 1), max_size=2)) if i else set()
        dur = draw(st.integers(0, 4))
        gpu = draw(st.integers(0, 1))
        acts.append(
            layered_action(
                f"a{i}", needs, i, cost=draw(st.integers(1, 3)), resources={"gpu": gpu}, duration=dur
            )
        )
    return acts, GoalSpec({f"f{n - 1}": True, **{f"f{i}": True for i in range(n) if i % 2 == 0}})


@settings(max_examples=25, deadline=None)
@given(chains())
def test_schedules_respect_precedence_and_capacity(problem: tuple[list[ActionSpec], GoalSpec]) -> None:
    """On random problems the schedule honours every edge and the capacity, and its order reaches the goal."""
    acts, goal = problem
    caps = [Capacity("gpu", 1)]
    res = pipeline_plan({}, goal, acts, capacities=caps)
    assert res.found
    check_schedule({}, goal, res, caps)
    assert res.plan is not None and min(res.candidates, key=lambda p: p.score) == res.plan


@settings(max_examples=25, deadline=None)
@given(chains(), st.integers(0, 12))
def test_hard_budget_is_met_or_proven_infeasible(
    problem: tuple[list[ActionSpec], GoalSpec], limit: int
) -> None:
    """Under a hard cost budget the plan fits it, or no plan does and the explanation says so."""
    acts, goal = problem
    res = pipeline_plan({}, goal, acts, constraints=[ResourceConstraint("cost", max=limit)])
    best = plan({}, goal, acts)
    assert best.plan is not None
    if best.plan.cost <= limit:
        assert res.plan is not None and res.plan.cost <= limit + 1e-9
    else:
        assert isinstance(res.explanation, ConstraintExplanation) and res.explanation.violations[0].proven


async def test_goap_graph_runs_with_the_pipeline_strategy(store: Store) -> None:
    """A GoapGraph with the pipeline executes the budget-feasible plan and replays identically."""
    strategy = CspPipeline(
        constraints=(ResourceConstraint("budget", max=7),), capacities=(Capacity("gpu", 1),)
    )
    g = GoapGraph(release(), strategy=strategy, store=store)
    final = await g.run("csp", {}, GOAL)
    assert final.status == "achieved"
    done = [o.action for o in final.execution_history]
    assert "build_slow" in done and "build_fast" not in done
    await assert_replays(g.engine, "csp")


async def test_goap_graph_stops_with_no_plan_when_constraints_are_infeasible(store: Store) -> None:
    """An infeasible budget ends the run with no_plan and the explanation stored in the state."""
    g = GoapGraph(
        release(), strategy=CspPipeline(constraints=(ResourceConstraint("budget", max=3),)), store=store
    )
    final = await g.run("csp-inf", {}, GOAL)
    assert final.status == "no_plan"
    assert final.no_plan_explanation is not None
    assert final.no_plan_explanation["violations"][0]["constraint"] == "budget <= 3"
