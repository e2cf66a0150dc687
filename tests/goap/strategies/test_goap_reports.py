"""Strategy reports on a PlanResult: planning defines the seam, the strategies own the report types."""

from __future__ import annotations

import dataclasses
import re

import goap.strategies
from goap import (
    ActionSpec,
    AStar,
    CspPipeline,
    GoalSpec,
    PlanResult,
    ResourceConstraint,
    RoutingDecision,
    SolverReport,
    StrategyRouter,
    plan,
)
from graphengine.exports import defined_in

ACTS = [ActionSpec("a", {}, {"x": True}, resources={"budget": 2}), ActionSpec("b", {"x": True}, {"y": True})]
GOAL = GoalSpec({"y": True})


def test_plan_result_fields_name_no_strategy_type() -> None:
    """No field of PlanResult is annotated with a type goap.strategies exports."""
    strategy_names = set(goap.strategies.__all__)
    for f in dataclasses.fields(PlanResult):
        words = set(re.findall(r"\w+", str(f.type)))
        assert not words & strategy_names, (f.name, f.type)
    # written in the strategies (their public module is `goap`; defined_in names the source)
    assert {defined_in(SolverReport), defined_in(RoutingDecision)} <= {
        "goap.strategies._csp_common",
        "goap.strategies._router",
    }


def test_a_routed_pipeline_result_carries_both_reports_by_class_and_by_kind() -> None:
    """A router over the CP-SAT pipeline leaves a routing decision and a solver report, each found by
    its class (typed) and by the `routing`/`solver` shortcuts, which return the same objects."""
    pipe = CspPipeline(constraints=(ResourceConstraint("budget", max=5),))
    res = plan({}, GOAL, ACTS, StrategyRouter({"astar": AStar(), "csp-pipeline": pipe}))
    solver, routing = res.report(SolverReport), res.report(RoutingDecision)
    assert solver is not None and solver.status == "OPTIMAL" and res.solver is solver
    assert routing is not None and routing.chosen == "csp-pipeline" and res.routing is routing
    assert [r.kind for r in res.reports] == ["solver", "routing"]
    assert routing.message.startswith("csp-pipeline: ") and "OPTIMAL over" in solver.message


def test_a_plain_astar_result_has_no_reports() -> None:
    """A* reports nothing: every lookup answers None."""
    res = plan({}, GOAL, ACTS)
    assert res.reports == () and res.solver is None and res.routing is None
    assert res.report(SolverReport) is None


def test_with_report_replaces_a_report_of_the_same_kind() -> None:
    """Adding a report of a kind already present replaces it; other kinds stay."""
    res = plan({}, GOAL, ACTS, CspPipeline(constraints=(ResourceConstraint("budget", max=5),)))
    old = res.report(SolverReport)
    assert old is not None
    new = dataclasses.replace(old, seed=7)
    again = res.with_report(new)
    assert again.reports == (new,) and again.report(SolverReport) is new
    assert res.report(SolverReport) is old  # the result itself is unchanged
