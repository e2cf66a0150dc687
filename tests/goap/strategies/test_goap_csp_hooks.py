"""Options of the CP-SAT pipeline that goap.compat builds on: phase 2 over given plans, the
blacklist-only enumeration, the deletion filter and Pareto fronts."""

from __future__ import annotations

from collections.abc import Sequence

import pytest

from goap import ActionSpec, ConstraintExplanation, CspPipeline, GoalSpec, ModelError, Objective, plan
from goap.planning import Plan, ResourceConstraint
from goap.strategies import SolverReport, dominates, minimal_conflict, pareto_front

pytest.importorskip("ortools")

FAST = ActionSpec("fast", {}, {"done": True}, cost=1, resources={"usd": 50}, duration=1)
SLOW = ActionSpec("slow", {}, {"done": True}, cost=4, resources={"usd": 5}, duration=4)
PREP = ActionSpec("prep", {}, {"ready": True}, cost=1, resources={"usd": 10}, duration=2)
USE = ActionSpec("use", {"ready": True}, {"done": True}, cost=1, resources={"usd": 10}, duration=3)


def given(*plans: Sequence[ActionSpec]) -> list[Plan]:
    return [Plan(tuple(p), float(sum(float(a.cost) for a in p))) for p in plans]  # type: ignore[arg-type]


def test_evaluate_picks_among_the_given_plans_only() -> None:
    """evaluate() chooses the cheapest given plan within the hard budget, in the order given."""
    pipe = CspPipeline(constraints=(ResourceConstraint("usd", max=30),))
    res = pipe.evaluate(given([FAST], [PREP, USE], [SLOW]))
    assert res.found and res.plan is not None
    assert res.plan.names == ("prep", "use")  # fast breaks the budget; slow fits but costs more
    report = res.report(SolverReport)
    assert report is not None and report.candidates == 3 and report.selected == 1
    assert [c.names for c in res.candidates] == [("fast",), ("prep", "use"), ("slow",)]
    assert not res.optimal


def test_evaluate_schedules_one_plan() -> None:
    """A single timed plan comes back scheduled on its precedence edges."""
    res = CspPipeline().evaluate(given([PREP, USE]))
    assert res.schedule is not None
    assert [(e.action, e.start, e.end) for e in res.schedule] == [("prep", 0.0, 2.0), ("use", 2.0, 5.0)]
    assert res.schedule.makespan == 5.0


def test_evaluate_names_the_violated_constraint() -> None:
    """No given plan fits: no_plan, with the violated constraint and the closest plan."""
    res = CspPipeline(constraints=(ResourceConstraint("usd", max=1),)).evaluate(given([FAST], [SLOW]))
    assert res.status == "no_plan"
    assert isinstance(res.explanation, ConstraintExplanation)
    (v,) = res.explanation.violations
    assert v.constraint == "usd <= 1" and v.best_value == 5.0 and v.best_plan == ("slow",)


def test_evaluate_needs_a_plan() -> None:
    """An empty list of plans is a ModelError."""
    with pytest.raises(ModelError):
        CspPipeline().evaluate([])


def test_blacklist_enumeration_keeps_to_single_swaps() -> None:
    """enumeration='blacklist' tries the base plan with one action blacklisted at a time, no more."""
    swap = ActionSpec("swap", {}, {"ready": True}, cost=3, resources={"usd": 1})
    alt = ActionSpec("alt", {"ready": True}, {"done": True}, cost=3, resources={"usd": 1})
    budget = (ResourceConstraint("usd", max=5),)
    acts = [PREP, USE, swap, alt]
    full = plan({}, GoalSpec({"done": True}), acts, CspPipeline(budget))
    listed = plan({}, GoalSpec({"done": True}), acts, CspPipeline(budget, enumeration="blacklist"))
    assert full.plan is not None and full.plan.names == ("swap", "alt")  # two swaps: found by search
    assert listed.status == "no_plan"  # every single swap still spends 11
    assert isinstance(listed.explanation, ConstraintExplanation)
    assert listed.explanation.violations[0].best_value == 11.0
    with pytest.raises(ModelError):
        CspPipeline(enumeration="every")  # type: ignore[arg-type]


def test_minimal_conflict_is_the_deletion_filter() -> None:
    """Items whose removal keeps the conflict are dropped, in order; the rest is irreducible."""
    seen: list[tuple[list[int], int]] = []

    def conflicts(rest: Sequence[int], dropped: int) -> bool:
        seen.append((list(rest), dropped))
        return sum(rest) > 10  # the set conflicts while its sum exceeds 10

    assert minimal_conflict([8, 5, 4], conflicts) == [8, 4]
    assert seen == [([5, 4], 8), ([8, 4], 5), ([8], 4)]


def test_pareto_front_keeps_trade_offs() -> None:
    """Dominated plans drop out; incomparable and tied ones stay; maximize flips the order."""
    objs = [Objective("usd"), Objective("quality", direction="maximize")]
    values = [
        {"usd": 10, "quality": 5},
        {"usd": 20, "quality": 9},
        {"usd": 20, "quality": 4},
        {"usd": 10, "quality": 5},
    ]
    assert pareto_front(values, objs) == [0, 1, 3]
    assert dominates(values[0], values[2], objs) and not dominates(values[0], values[3], objs)
    assert pareto_front(values, []) == [0, 1, 2, 3]


def test_dependencies_count_a_state_computed_effect_as_a_writer() -> None:
    """An effect_fn action writes its effect_keys: readers wait for it, and it for earlier writers."""
    from goap import dependencies

    first = ActionSpec("first", {}, {"x": True})
    computed = ActionSpec("computed", {}, {}, effect_fn=lambda s: {"x": not s.get("x")}, effect_keys={"x"})
    reader = ActionSpec("reader", {"x": True}, {"done": True})
    assert dependencies([first, computed, reader]) == ((0, 1), (1, 2))
    assert dependencies([computed, ActionSpec("other", {"y": True}, {"done": True})]) == ()
