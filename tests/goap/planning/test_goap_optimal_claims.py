"""``PlanResult.optimal`` is claimed only when the plan is proven least-cost.

Each way the claim could be a lie is pinned: costs too small or too large for an absolute
tolerance, weighted and greedy search, inadmissible heuristics, searches cut short by a budget, and
the cheapest of several goals when one goal's search did not finish.
"""

from __future__ import annotations

from typing import Any

import pytest

from goap import ActionSpec, AnytimeStrategy, AStar, GoalSpec, GreedyBestFirst, MultiGoal, plan
from goap.planning._compile import compile_task
from goap.planning._search import best_first
from goap.planning.heuristics import HEURISTICS


def _detour(scale: float) -> list[ActionSpec]:
    """From a to c: one action of cost ``3 * scale`` or two of ``scale`` each (optimum ``2 * scale``)."""
    return [
        ActionSpec("direct", {"at": "a"}, {"at": "c"}, cost=3 * scale),
        ActionSpec("hop1", {"at": "a"}, {"at": "b"}, cost=scale),
        ActionSpec("hop2", {"at": "b"}, {"at": "c"}, cost=scale),
    ]


@pytest.mark.parametrize("scale", [1e-10, 1e-14, 1.0, 1e9])
@pytest.mark.parametrize("heuristic", ["lmcut", "hmax", "blind"])
def test_tiny_and_huge_costs_are_told_apart(scale: float, heuristic: str) -> None:
    """A plan cheaper by less than 1e-9 in absolute terms still wins (costs are compared with a
    relative tolerance) in plan() and in the Python loop."""
    acts = _detour(scale)
    res = plan({"at": "a"}, {"at": "c"}, acts, AStar(heuristic=heuristic))
    assert res.plan is not None and res.optimal
    assert res.plan.names == ("hop1", "hop2")
    assert res.plan.cost == pytest.approx(2 * scale, rel=1e-12)
    task = compile_task({"at": "a"}, {"at": "c"}, acts)
    out = best_first(task, HEURISTICS[heuristic](task))
    assert out.cost == pytest.approx(2 * scale, rel=1e-12)


def _trap() -> tuple[dict[str, Any], dict[str, Any], list[ActionSpec]]:
    """A greedy trap: the action that looks closest to the goal is the dear one."""
    acts = [
        ActionSpec("shortcut", {"at": "a"}, {"at": "goal"}, cost=10.0),
        ActionSpec("step1", {"at": "a"}, {"at": "b"}, cost=1.0),
        ActionSpec("step2", {"at": "b"}, {"at": "c"}, cost=1.0),
        ActionSpec("step3", {"at": "c"}, {"at": "goal"}, cost=1.0),
    ]
    return {"at": "a"}, {"at": "goal"}, acts


@pytest.mark.parametrize(
    "strategy",
    [
        AStar(weight=2.0),
        AStar(weight=1.5, heuristic="hmax"),
        AStar(heuristic="ff"),
        AStar(heuristic="add"),
        GreedyBestFirst(),
        GreedyBestFirst(heuristic="lmcut"),
    ],
    ids=lambda s: s.name,
)
def test_weighted_greedy_and_inadmissible_searches_never_claim_optimality(strategy: Any) -> None:
    """Weighted A*, greedy search and A* with an inadmissible heuristic report optimal=False,
    whether or not the plan they find happens to be the cheapest."""
    init, goal, acts = _trap()
    res = plan(init, goal, acts, strategy)
    assert res.plan is not None
    assert res.optimal is False


def test_a_search_cut_short_returns_no_plan_rather_than_an_unproven_one() -> None:
    """A* that runs out of expansions answers budget_exhausted without a plan."""
    init = {"at": "s0"}
    acts = [ActionSpec(f"go{i}", {"at": f"s{i}"}, {"at": f"s{i + 1}"}, cost=0.1) for i in range(30)]
    res = plan(init, {"at": "s30"}, acts, AStar(heuristic="blind", max_expansions=3))
    assert res.status == "budget_exhausted"
    assert res.plan is None


def test_anytime_claims_optimality_only_after_a_finished_weight_one_round() -> None:
    """The anytime strategy marks its plan optimal only when a weight-1 round completed."""
    init, goal, acts = _trap()
    unfinished = plan(init, goal, acts, AnytimeStrategy(weights=(5.0, 3.0)))
    assert unfinished.plan is not None and unfinished.optimal is False
    finished = plan(init, goal, acts, AnytimeStrategy(weights=(5.0, 1.0)))
    assert finished.plan is not None and finished.optimal is True
    assert finished.plan.cost == 3.0


def test_cheapest_of_several_goals_is_not_claimed_when_a_search_ran_out() -> None:
    """With mode="any", the cheapest found plan is optimal only if every goal's search finished:
    here the cheap goal's search runs out of budget, so the dear goal's plan is not optimal."""
    init: dict[str, Any] = {"at": "s0", "b": False}
    acts = [ActionSpec(f"go{i}", {"at": f"s{i}"}, {"at": f"s{i + 1}"}, cost=0.1) for i in range(30)]
    acts.append(ActionSpec("make_b", {}, {"b": True}, cost=100.0))
    cheap, dear = GoalSpec({"at": "s30"}), GoalSpec({"b": True})
    res = plan(init, MultiGoal((cheap, dear), mode="any"), acts, AStar(heuristic="blind", max_expansions=5))
    assert res.plan is not None and res.plan.names == ("make_b",)
    assert res.optimal is False
    both = plan(init, MultiGoal((cheap, dear), mode="any"), acts, AStar())
    assert both.plan is not None and both.optimal is True
    assert both.plan.cost == pytest.approx(3.0)



def test_huge_costs_whose_sum_a_float_holds_are_planned_and_proven() -> None:
    """Costs of 1e300 (sum 5e300): the cheaper plan of two hops is found and claimed optimal."""
    res = plan({"at": "a"}, {"at": "c"}, _detour(1e300))
    assert res.plan is not None and res.optimal and res.plan.names == ("hop1", "hop2")


def test_costs_whose_sum_overflows_a_float_are_refused_not_called_unreachable() -> None:
    """Each cost is finite but their sum is not (1.5e308 + 2 * 1e308): a heuristic adding them
    would read infinity as "unreachable" and report a solvable problem as having no plan."""
    from goap import ModelError

    acts = [
        ActionSpec("direct", {"at": "a"}, {"at": "c"}, cost=1.5e308),
        ActionSpec("hop1", {"at": "a"}, {"at": "b"}, cost=1e308),
        ActionSpec("hop2", {"at": "b"}, {"at": "c"}, cost=1e308),
    ]
    with pytest.raises(ModelError, match="sum to more than a float holds.*'direct'"):
        plan({"at": "a"}, {"at": "c"}, acts)
