"""Property tests on generated small problems: plans are valid, optimal and respect the blacklist.

Each generated problem mixes boolean facts, enumerated facts (with ne / in_ conditions) and a
bounded numeric counter (add effects guarded so the state space stays finite), and is compared
with a brute-force uniform-cost search. Hypothesis prints the failing example (and its seed).
"""

from __future__ import annotations

from typing import Any

import hypothesis.strategies as st
from goap_tasks import ENUM, Problem, draw_action, draw_condition, on_drawn

from goap import ActionSpec, AStar, GoalSpec, GreedyBestFirst, add, ge, le, lt, plan
from goap.testing import brute_force_optimum, simulate

EXAMPLES = 150
COSTS = st.sampled_from([0.0, 0.5, 1.0, 2.0, 3.5])


@st.composite
def problems(draw: st.DrawFn) -> tuple[dict[str, Any], GoalSpec, list[ActionSpec]]:
    """A small random problem: (initial, goal, actions)."""
    nb = draw(st.integers(1, 3))
    ne_ = draw(st.integers(0, 2))
    numeric = draw(st.booleans())
    init: dict[str, Any] = {f"b{i}": draw(st.booleans()) for i in range(nb)}
    init.update({f"e{i}": draw(st.sampled_from(ENUM)) for i in range(ne_)})
    if numeric:
        init["n"] = draw(st.integers(0, 2))
    keys = sorted(init)

    def cond(k: str) -> Any:
        return draw_condition(
            draw, k, lambda: draw(st.sampled_from([ge, le, lambda v: v]))(draw(st.integers(0, 4)))
        )

    def counter() -> tuple[Any, Any]:
        amount = draw(st.sampled_from([-1, 1, 2]))
        return add(amount), lt(4) if amount > 0 else ge(1)

    actions = [
        draw_action(draw, f"a{i}", keys, cond, counter, most=2, cost=COSTS)
        for i in range(draw(st.integers(1, 7)))
    ]
    goal = {k: cond(k) for k in draw(st.sets(st.sampled_from(keys), min_size=1, max_size=3))}
    return init, GoalSpec(goal), actions


@on_drawn(problems(), examples=EXAMPLES)
def test_astar_matches_brute_force(problem: Problem) -> None:
    """A* finds a plan exactly when one exists; it replays to the goal at the brute-force optimum."""
    init, goal, actions = problem
    best = brute_force_optimum(init, goal, actions)
    res = plan(init, goal, actions)
    if best is None:
        assert res.status == "no_plan"
        assert res.explanation is not None
        return
    assert res.status == "found"
    assert res.plan is not None
    ok, cost, _ = simulate(init, goal, res.plan.actions)
    assert ok
    assert abs(cost - res.plan.cost) < 1e-9
    assert abs(sum(a.cost for a in res.plan.actions) - res.plan.cost) < 1e-9  # type: ignore[misc]
    assert abs(res.plan.cost - best) < 1e-6


@on_drawn(problems(), st.data(), examples=EXAMPLES)
def test_blacklisted_actions_never_appear(problem: Problem, data: st.DataObject) -> None:
    """Blacklisted actions are never planned, and the plan is optimal among the others."""
    init, goal, actions = problem
    black = data.draw(st.sets(st.sampled_from([a.name for a in actions])))
    res = plan(init, goal, actions, blacklist=black)
    allowed = [a for a in actions if a.name not in black]
    best = brute_force_optimum(init, goal, allowed)
    if best is None:
        assert res.status == "no_plan"
        return
    assert res.plan is not None
    assert not set(res.plan.names) & black
    assert abs(res.plan.cost - best) < 1e-6


@on_drawn(problems(), examples=EXAMPLES)
def test_same_inputs_give_same_plan(problem: Problem) -> None:
    """Planning twice gives the same result (deterministic tie-breaking)."""
    init, goal, actions = problem
    a = plan(init, goal, actions)
    b = plan(init, goal, actions)
    assert a.status == b.status
    assert (a.plan.names if a.plan else None) == (b.plan.names if b.plan else None)


@on_drawn(problems(), examples=EXAMPLES)
def test_heuristics_agree_on_the_optimum(problem: Problem) -> None:
    """Every admissible heuristic gives the same optimal cost; inadmissible modes give valid plans."""
    init, goal, actions = problem
    ref = plan(init, goal, actions, AStar(heuristic="blind"))
    for strat in (AStar(heuristic="hmax"), AStar(symmetry=False)):
        res = plan(init, goal, actions, strat)
        assert res.status == ref.status
        if ref.plan is not None:
            assert res.plan is not None
            assert abs(res.plan.cost - ref.plan.cost) < 1e-6
    for strat2 in (GreedyBestFirst(), AStar(heuristic="ff", weight=2.0)):
        res = plan(init, goal, actions, strat2)
        assert res.status == ref.status
        if res.plan is not None:
            assert simulate(init, goal, res.plan.actions)[0]
