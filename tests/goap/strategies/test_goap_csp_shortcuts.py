"""The CP-SAT pipeline's shortcuts give the same answers as the work they skip.

Each shortcut is checked against the long way on the benchmark's problems (``bench.strategies``)
and on generated ones: the compact selection model (or its optimum computed without CP-SAT)
against the model with interval, start and span variables; phase 1 ending once a candidate is proven unbeatable (``settle``) against phase 1
running every diversity search; the budgeted descent's proof at a soft-constrained top level
against every plan, enumerated.
"""

from __future__ import annotations

from collections.abc import Iterator
from contextlib import contextmanager
from dataclasses import replace
from typing import Any
from unittest import mock

import pytest
from goap_tasks import layered_action
from hypothesis import given, settings
from hypothesis import strategies as st

import goap.strategies._csp as csp
import goap.strategies._csp_common as csp_common
import goap.strategies._csp_model as csp_model
import goap.strategies._csp_search as csp_search
from bench.strategies import FAMILIES, ours_actions
from goap import (
    ActionSpec,
    Capacity,
    CspPipeline,
    GoalSpec,
    Objective,
    PlanResult,
    ResourceConstraint,
    dependencies,
    plan,
)

Problem = tuple[list[ActionSpec], GoalSpec, list[ResourceConstraint], list[Objective], list[Capacity]]


@contextmanager
def both_models() -> Iterator[list[int]]:
    """Solve every phase 2 compact (computed where every makespan is a constant) and with the full
    CP-SAT model, and fail on any difference in the outcome."""
    calls: list[int] = []
    solve = csp._solve_model

    def check(*args: Any) -> Any:
        compact = solve(*args)
        full = solve(*args, compact=False)
        assert replace(compact, seconds=0.0) == replace(full, seconds=0.0)
        calls.append(len(args[1]))
        return compact

    with mock.patch.object(csp, "_solve_model", check):
        yield calls


def bench_problems() -> list[Any]:
    out = []
    for family in FAMILIES.values():
        for k in (2, 3, 6):
            p = family(k)
            problem = (ours_actions(p), GoalSpec(p.goal), p.constraints, p.objectives, [])
            out.append(pytest.param(problem, id=p.name))
    return out


@st.composite
def problems(draw: st.DrawFn) -> Problem:
    """Layered tasks with two ways to reach each fact, and a random mix of constraints."""
    n = draw(st.integers(2, 6))
    acts = []
    for i in range(n):
        needs = draw(st.sets(st.integers(0, i - 1), max_size=2)) if i else set()
        for alt in range(draw(st.integers(1, 2))):
            acts.append(
                layered_action(
                    f"a{i}_{alt}",
                    needs,
                    i,
                    cost=draw(st.integers(1, 4)),
                    resources={"usd": draw(st.integers(0, 5)), "gpu": draw(st.integers(0, 1))},
                    duration=draw(st.sampled_from([0, 1, 2, 3, 5])),
                )
            )
    extra = draw(st.sets(st.integers(0, n - 2), max_size=2))
    goal = GoalSpec({f"f{n - 1}": True, **{f"f{i}": True for i in sorted(extra)}})
    constraints = draw(
        st.lists(
            st.one_of(
                st.builds(ResourceConstraint, st.just("usd"), max=st.integers(0, 12)),
                st.builds(
                    ResourceConstraint,
                    st.just("usd"),
                    max=st.integers(0, 12),
                    level=st.just("soft"),
                    weight=st.sampled_from([0.5, 1.0, 3.0]),
                ),
                st.builds(ResourceConstraint, st.just("makespan"), max=st.integers(1, 12)),
                st.builds(
                    ResourceConstraint, st.just("makespan"), max=st.integers(1, 12), level=st.just("soft")
                ),
                st.builds(ResourceConstraint, st.just("cost"), max=st.integers(2, 14)),
                st.builds(
                    ResourceConstraint,
                    st.sampled_from(["cost", "length", "gpu"]),
                    max=st.integers(0, 8),
                    level=st.just("soft"),
                    weight=st.sampled_from([0.5, 1.0, 2.0]),
                ),
                st.builds(ResourceConstraint, st.just("usd"), min=st.integers(1, 8), level=st.just("soft")),
            ),
            max_size=3,
        )
    )
    objectives = draw(
        st.sampled_from(
            [
                [],
                [Objective("usd")],
                [Objective("makespan", priority=1), Objective("cost")],
                [Objective("makespan")],
                [Objective("cost"), Objective("usd", weight=0.5)],
                [Objective("usd", priority=2), Objective("makespan", priority=1), Objective("cost")],
                [Objective("length")],
                [Objective("cost")],
            ]
        )
    )
    capacities = draw(st.sampled_from([[], [Capacity("gpu", 1)]]))
    return acts, goal, constraints, objectives, capacities


def solve(problem: Problem, **settings: Any) -> PlanResult:
    acts, goal, constraints, objectives, capacities = problem
    strategy = CspPipeline(tuple(constraints), tuple(objectives), tuple(capacities), **settings)
    return plan({}, goal, acts, strategy)


def assert_same_choice(short: PlanResult, full: PlanResult) -> None:
    """Same plan, score, schedule, levels and verdict; the short run's candidates lead the full run's."""
    assert short.status == full.status and short.optimal == full.optimal
    assert short.plan == full.plan and short.schedule == full.schedule
    assert short.explanation == full.explanation
    a, b = short.solver, full.solver
    assert a is not None and b is not None
    assert (a.status, a.selected, a.levels, a.metrics, a.soft_violations, a.violations) == (
        b.status,
        b.selected,
        b.levels,
        b.metrics,
        b.soft_violations,
        b.violations,
    )
    assert short.candidates == full.candidates[: len(short.candidates)]


@pytest.mark.parametrize("problem", bench_problems())
def test_compact_model_matches_the_full_model_on_benchmark_problems(problem: Problem) -> None:
    """On every benchmark problem the selection-only model picks, scores and schedules as the full one."""
    with both_models() as calls:
        solve(problem)
    assert calls


@settings(max_examples=60, deadline=None)
@given(problems())
def test_compact_model_matches_the_full_model_on_generated_problems(problem: Problem) -> None:
    """On generated problems the selection-only model's outcome equals the full model's."""
    with both_models():
        solve(problem)


@pytest.mark.parametrize("problem", bench_problems())
def test_settled_phase_one_chooses_as_the_full_one_on_benchmark_problems(problem: Problem) -> None:
    """Stopping the diversity searches at a proven-unbeatable candidate changes no benchmark answer."""
    assert_same_choice(solve(problem), solve(problem, settle=False))


@settings(max_examples=80, deadline=None)
@given(problems())
def test_settled_phase_one_chooses_as_the_full_one_on_generated_problems(problem: Problem) -> None:
    """On generated problems the settled phase 1 leads to the same plan, schedule and levels."""
    assert_same_choice(solve(problem), solve(problem, settle=False))


def test_least_makespan_then_cost_settles_after_the_quick_plan() -> None:
    """Least makespan then cost: the all-quick plan meets both bounds, so no diversity search runs."""
    p = FAMILIES["deadline"](3)
    problem = (ours_actions(p), GoalSpec(p.goal), p.constraints, p.objectives, [])
    short, full = solve(problem), solve(problem, settle=False)
    assert short.plan is not None and short.plan.names == ("quick0", "quick1", "quick2")
    assert len(short.candidates) == 2 < len(full.candidates)
    assert short.stats.expanded < full.stats.expanded


def test_soft_budget_at_its_kink_settles_on_the_descent_proof() -> None:
    """soft-3's optimum ties across its bound (3 local = 2 local + 1 API + 1 overrun = 6): one
    budgeted search proves it, no diversity search runs, and the plan is reported optimal."""
    p = FAMILIES["soft"](3)
    problem = (ours_actions(p), GoalSpec(p.goal), p.constraints, p.objectives, [])
    short, full = solve(problem), solve(problem, settle=False)
    assert short.plan is not None and short.plan.quality is not None
    assert short.plan.quality.soft == -6.0 and short.optimal
    assert len(short.candidates) == 2 < len(full.candidates)
    assert short.stats.expanded < full.stats.expanded


def test_soft_budget_descent_finds_a_better_plan_than_the_diversity_searches() -> None:
    """soft-6: five local runs and one API run (cost 11, usd 10 within 12) beat six local runs
    (12); the budgeted search finds them, which no least-cost or least-usd search does."""
    p = FAMILIES["soft"](6)
    problem = (ours_actions(p), GoalSpec(p.goal), p.constraints, p.objectives, [])
    res = solve(problem)
    assert res.plan is not None and res.plan.quality is not None
    assert res.plan.quality.soft == -11.0 and res.optimal
    assert sorted(n[:3] for n in res.plan.names) == ["api"] + ["loc"] * 5
    res_without = solve(problem, constrained_search=False)
    assert res_without.plan is not None and res_without.plan.quality is not None
    assert res_without.plan.quality.soft == -12.0


def subset_plans(acts: list[ActionSpec], goal: GoalSpec) -> Iterator[list[ActionSpec]]:
    """Every plan of a layered task that runs each action at most once (set facts only grow, so
    a set of actions is a plan when running each once its preconditions hold reaches the goal)."""
    for mask in range(1, 1 << len(acts)):
        chosen = [a for i, a in enumerate(acts) if mask >> i & 1]
        state: dict[str, Any] = {}
        order: list[ActionSpec] = []
        left = list(chosen)
        while left:
            ready = [a for a in left if a.applicable(state)]
            if not ready:
                break
            for a in ready:
                state = a.apply(state)
                order.append(a)
                left.remove(a)
        if not left and goal.satisfied_by(state):
            yield order


@settings(max_examples=60, deadline=None)
@given(problems())
def test_descent_proof_holds_against_every_plan(problem: Problem) -> None:
    """When the budgeted descent proves its best candidate, no plan within the hard budgets has a
    lower top level (without its makespan terms, a lower bound of it), by exhaustive enumeration."""
    proofs: list[tuple[csp_search._Settle, list[ResourceConstraint]]] = []
    descend = csp_search._Generator._descend

    def spy(gen: csp_search._Generator, judge: csp_search._Settle, hard: list[ResourceConstraint]) -> bool:
        proven = descend(gen, judge, hard)
        if proven:
            proofs.append((judge, list(hard)))
        return proven

    with mock.patch.object(csp_search._Generator, "_descend", spy):
        solve(problem)
    acts, goal, _, _, _ = problem
    for judge, hard in proofs:
        assert judge.top_lb is not None
        top = judge.gen.levels[0]
        relaxed = csp_common._Level(top.terms, tuple(c for c in top.soft if c.key != "makespan"))
        for steps in subset_plans(acts, goal):
            metrics = {"cost": float(sum(a.cost_in({}) for a in steps)), "length": float(len(steps))}
            for a in steps:
                for key, use in (a.resources or {}).items():
                    metrics[key] = metrics.get(key, 0.0) + use
            if any(c.violation(metrics.get(c.key, 0.0)) > 0 for c in hard):
                continue
            assert judge._value(relaxed, metrics, 0) >= judge.top_lb, [a.name for a in steps]


@settings(max_examples=60, deadline=None)
@given(problems())
def test_makespan_bound_is_below_every_candidates_makespan(problem: Problem) -> None:
    """h^max over durations never exceeds the earliest-start makespan of a plan the pipeline found."""
    acts, goal, _, _, _ = problem
    res = solve(problem, settle=False)
    bound = csp_search._makespan_bound({}, goal.conditions, acts, 1000)
    assert bound is not None
    for cand in res.candidates:
        steps = list(cand.actions)
        finish = [0.0] * len(steps)
        for u, v in dependencies(steps):
            finish[v] = max(finish[v], finish[u] + (steps[u].duration or 0.0))
        makespan = max((f + (a.duration or 0.0) for f, a in zip(finish, steps, strict=True)), default=0.0)
        assert bound <= round(makespan * 1000)


def test_descent_out_of_expansions_proves_nothing() -> None:
    """With the constrained searches' expansions spent, the descent stops unproven: every
    diversity search runs, the choice is the full phase 1's and the plan is not called optimal."""
    p = FAMILIES["soft"](3)
    problem = (ours_actions(p), GoalSpec(p.goal), p.constraints, p.objectives, [])
    short = solve(problem, constrained_expansions=2)
    full = solve(problem, constrained_expansions=2, settle=False)
    assert_same_choice(short, full)
    assert short.candidates == full.candidates and not short.optimal


def test_constant_makespans_choose_without_building_a_model() -> None:
    """Without capacities every candidate's levels are constants: phase 2 picks without CP-SAT."""
    p = FAMILIES["deadline"](3)
    problem = (ours_actions(p), GoalSpec(p.goal), p.constraints, p.objectives, [])
    with mock.patch.object(csp_model, "_model_class", side_effect=AssertionError("model built")):
        res = solve(problem)
    assert res.solver is not None and res.solver.status == "OPTIMAL"
    assert res.plan is not None and res.plan.names == ("quick0", "quick1", "quick2")
