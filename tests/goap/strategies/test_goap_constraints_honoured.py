"""Constrained goals: every strategy honours a goal's constraints or refuses it with a typed error,
the default planner and GoapGraph route it to the CP-SAT pipeline, the whole goal survives the
store, and the router never trades optimality away on deterministic problems.

The oracle is brute force written here: every sequence of distinct actions (the test problems
only set facts to True, so repeating an action never helps), checked for the goal and the budget.
"""

from __future__ import annotations

import heapq
import itertools
from collections.abc import Mapping, Sequence
from pathlib import Path
from random import Random
from typing import Any

import pytest

from goap import (
    ActionSpec,
    AnytimeStrategy,
    AStar,
    ConstrainedGoal,
    CspPipeline,
    GoalSpec,
    GoapGraph,
    GreedyBestFirst,
    Mcts,
    ModelError,
    MultiGoal,
    Objective,
    PlanResult,
    RepairStrategy,
    ResourceConstraint,
    StrategyRouter,
    UnsupportedConstraintError,
    UtilityStrategy,
    plan,
)
from goap.planning._planner import DefaultStrategy
from goap.runtime._approval import Approval
from goap.runtime._serialize import goal_from_dict, goal_to_dict
from goap.runtime._state import GoapState
from graphengine.store import SQLiteStore, Store

TOKENS = ResourceConstraint("tokens", max=4)

INIT = {"done": False}
ACTIONS = (
    ActionSpec("blast", {}, {"done": True}, cost=1, resources={"tokens": 8}),
    ActionSpec("prep", {}, {"prepped": True}, cost=1, resources={"tokens": 2}),
    ActionSpec("finish", {"prepped": True}, {"done": True}, cost=1, resources={"tokens": 2}),
)
GOAL = ConstrainedGoal({"done": True}, name="ship", constraints=(TOKENS,))


def tokens(steps: Sequence[ActionSpec]) -> float:
    """Tokens a plan spends."""
    return sum((a.resources or {}).get("tokens", 0.0) for a in steps)


def brute_force(
    initial: Mapping[str, Any], goal: GoalSpec, actions: Sequence[ActionSpec], budget: float | None
) -> float | None:
    """Least cost over every sequence of distinct actions reaching the goal within the token budget."""
    best: float | None = None
    for n in range(len(actions) + 1):
        for seq in itertools.permutations(actions, n):
            state = dict(initial)
            cost = 0.0
            ok = True
            for a in seq:
                if not a.applicable(state):
                    ok = False
                    break
                cost += a.cost_in(state)
                state = a.apply(state)
            if not ok or not goal.satisfied_by(state):
                continue
            if budget is not None and tokens(seq) > budget + 1e-9:
                continue
            if best is None or cost < best:
                best = cost
    return best


def replayed(initial: Mapping[str, Any], goal: GoalSpec, res: PlanResult) -> tuple[float, float]:
    """(cost, tokens) of the result's plan, after checking it reaches the goal from ``initial``."""
    assert res.plan is not None
    state = dict(initial)
    cost = 0.0
    for a in res.plan.actions:
        assert a.applicable(state), a.name
        cost += a.cost_in(state)
        state = a.apply(state)
    assert goal.satisfied_by(state)
    return cost, tokens(res.plan.actions)


# ---------------------------------------------------------------- the default planner


def test_default_plan_honours_the_goals_token_budget() -> None:
    """plan() with no strategy plans a ConstrainedGoal under its budget (4 tokens, not blast's 8)."""
    assert plan(INIT, GoalSpec({"done": True}), ACTIONS).plan is not None  # unconstrained: blast
    assert plan(INIT, GoalSpec({"done": True}), ACTIONS).plan.names == ("blast",)  # type: ignore[union-attr]
    res = plan(INIT, GOAL, ACTIONS)
    assert res.found and res.plan is not None and res.plan.names == ("prep", "finish")
    assert replayed(INIT, GOAL, res) == (2.0, 4.0)
    assert res.strategy.startswith("csp-pipeline")
    assert brute_force(INIT, GOAL, ACTIONS, 4) == 2.0


def test_default_plan_reports_an_unmeetable_budget_as_no_plan() -> None:
    """A budget no plan meets is no_plan naming the constraint, never a plan that breaks it."""
    goal = ConstrainedGoal({"done": True}, constraints=(ResourceConstraint("tokens", max=3),))
    assert brute_force(INIT, goal, ACTIONS, 3) is None
    res = plan(INIT, goal, ACTIONS)
    assert res.status == "no_plan" and res.plan is None
    assert res.explanation is not None and "tokens <= 3" in res.explanation.message


@pytest.mark.parametrize("seed", range(12))
def test_default_plan_matches_brute_force_on_random_budgets(seed: int) -> None:
    """On random monotone problems the default plan is feasible iff brute force finds one, at the same least cost."""
    rng = Random(seed)
    facts = [f"f{i}" for i in range(4)]
    actions = []
    for i in range(5):
        pre = {f: True for f in rng.sample(facts, rng.randint(0, 1))}
        eff = {f: True for f in rng.sample(facts, rng.randint(1, 2))}
        actions.append(
            ActionSpec(f"a{i}", pre, eff, cost=rng.randint(1, 4), resources={"tokens": rng.randint(0, 5)})
        )
    initial = dict.fromkeys(facts, False)
    budget = rng.randint(2, 9)
    goal = ConstrainedGoal(
        {f: True for f in rng.sample(facts, 2)}, constraints=(ResourceConstraint("tokens", max=budget),)
    )
    expected = brute_force(initial, goal, actions, budget)
    res = plan(initial, goal, actions)
    if expected is None:
        assert res.status == "no_plan", (res.plan, budget)
        return
    cost, spent = replayed(initial, goal, res)
    assert spent <= budget
    assert cost == pytest.approx(expected)


def test_multigoal_all_keeps_every_goals_constraints() -> None:
    """The conjunction of a MultiGoal("all") carries its goals' constraints, so plan() honours them."""
    goal = MultiGoal((GoalSpec({"done": True}), ConstrainedGoal({}, constraints=(TOKENS,))), mode="all")
    conj = goal.conjunction()
    assert isinstance(conj, ConstrainedGoal) and conj.constraints == (TOKENS,)
    res = plan(INIT, goal, ACTIONS)
    assert res.plan is not None and res.plan.names == ("prep", "finish")


def test_sequential_legs_are_each_planned_under_their_own_constraints() -> None:
    """A sequential MultiGoal plans a constrained leg with the pipeline and a plain one with A*."""
    goal = MultiGoal((ConstrainedGoal({"done": True}, constraints=(TOKENS,)), GoalSpec({"prepped": True})))
    res = plan(INIT, goal, ACTIONS)
    assert res.plan is not None and res.plan.names == ("prep", "finish")


# ---------------------------------------------------------------- every strategy


REFUSING = [
    AStar(),
    AStar(heuristic="ff", weight=2.0),
    GreedyBestFirst(),
    Mcts(iterations=50),
    AnytimeStrategy(time_budget=5.0),
    UtilityStrategy(),
    RepairStrategy(),
    RepairStrategy(previous=("blast",)),
]


@pytest.mark.parametrize("strategy", REFUSING, ids=lambda s: s.name)
def test_condition_only_strategies_refuse_a_constrained_goal(strategy: Any) -> None:
    """A strategy that would ignore the constraints raises UnsupportedConstraintError naming itself and the constraint."""
    for call in (
        lambda: strategy.solve(INIT, GOAL, ACTIONS),
        lambda: plan(INIT, GOAL, ACTIONS, strategy),
    ):
        with pytest.raises(UnsupportedConstraintError) as err:
            call()
        assert err.value.constraint == "tokens <= 4"
        assert strategy.name in str(err.value) or err.value.strategy in strategy.name
        assert "tokens <= 4" in str(err.value) and "'ship'" in str(err.value)
        assert isinstance(err.value, ModelError)


@pytest.mark.parametrize("strategy", REFUSING, ids=lambda s: s.name)
def test_objectives_alone_are_refused_too(strategy: Any) -> None:
    """An objective is not silently replaced by plan cost: the same typed error, naming the objective."""
    goal = ConstrainedGoal({"done": True}, objectives=(Objective("tokens"),))
    with pytest.raises(UnsupportedConstraintError, match="minimize tokens"):
        plan(INIT, goal, ACTIONS, strategy)


def test_a_constrained_goal_without_constraints_is_a_plain_goal() -> None:
    """A ConstrainedGoal carrying nothing to honour plans with any strategy, as its conditions."""
    goal = ConstrainedGoal({"done": True})
    for strategy in REFUSING[:3]:
        res = plan(INIT, goal, ACTIONS, strategy)
        assert res.plan is not None and res.plan.names == ("blast",)


HONOURING = [
    CspPipeline(),
    CspPipeline(search=GreedyBestFirst()),
    DefaultStrategy(),
    StrategyRouter(),
    RepairStrategy(base=CspPipeline()),
    RepairStrategy(base=CspPipeline(), previous=("blast",)),
]


@pytest.mark.parametrize("strategy", HONOURING, ids=lambda s: s.name)
def test_honouring_strategies_stay_within_the_budget(strategy: Any) -> None:
    """Strategies that honour constraints return a plan within the budget, at brute force's least cost."""
    res = plan(INIT, GOAL, ACTIONS, strategy)
    cost, spent = replayed(INIT, GOAL, res)
    assert spent <= 4 and cost == brute_force(INIT, GOAL, ACTIONS, 4)


def test_router_with_a_classifier_choosing_astar_refuses() -> None:
    """A router whose classifier picks A* for a constrained goal raises, naming the router's choice."""
    router = StrategyRouter(classifier=lambda f: "astar")
    with pytest.raises(UnsupportedConstraintError, match=r"astar\(lmcut\)") as err:
        plan(INIT, GOAL, ACTIONS, router)
    assert "router(" in err.value.strategy


def test_a_user_strategy_that_does_not_declare_support_is_refused() -> None:
    """plan() refuses a constrained goal for a strategy without ``honours_constraints``, before calling it."""
    calls: list[GoalSpec] = []

    class Mine:
        name = "mine"

        def solve(self, initial: Any, goal: GoalSpec, actions: Any, *, blacklist: Any = frozenset()) -> Any:
            calls.append(goal)
            return AStar().solve(initial, GoalSpec(goal.conditions), actions, blacklist=blacklist)

    with pytest.raises(UnsupportedConstraintError, match="'mine'"):
        plan(INIT, GOAL, ACTIONS, Mine())
    assert calls == []
    assert plan(INIT, GoalSpec({"done": True}), ACTIONS, Mine()).plan is not None


def test_default_strategy_refuses_a_non_honouring_constrained_slot() -> None:
    """DefaultStrategy(constrained=AStar()) is a ModelError at construction, not a silent drop later."""
    with pytest.raises(ModelError, match="must honour constraints"):
        DefaultStrategy(constrained=AStar())


# ---------------------------------------------------------------- the router keeps optimality


def dijkstra(initial: Mapping[str, Any], goal: GoalSpec, actions: Sequence[ActionSpec]) -> float | None:
    """Uniform-cost search over whole states: the least plan cost, or None."""
    start = tuple(sorted(initial.items()))
    frontier: list[tuple[float, int, tuple[tuple[str, Any], ...]]] = [(0.0, 0, start)]
    seen: dict[tuple[tuple[str, Any], ...], float] = {start: 0.0}
    tick = 0
    while frontier:
        g, _, key = heapq.heappop(frontier)
        state = dict(key)
        if goal.satisfied_by(state):
            return g
        if g > seen.get(key, float("inf")):
            continue
        for a in actions:
            if a.applicable(state):
                nxt = tuple(sorted(a.apply(state).items()))
                ng = g + a.cost_in(state)
                if ng < seen.get(nxt, float("inf")):
                    seen[nxt] = ng
                    tick += 1
                    heapq.heappush(frontier, (ng, tick, nxt))
    return None


def test_router_sends_a_deterministic_30_action_problem_to_astar_and_stays_optimal() -> None:
    """30 actions and a deep horizon with deterministic transitions: A*, optimal cost 2 (uniform-cost search agrees)."""
    chain = [ActionSpec(f"step{i}", {"at": i}, {"at": i + 1}, cost=1) for i in range(10)]
    decoys = [ActionSpec(f"decoy{i}", {"at": 0}, {f"noise{i}": True}, cost=1) for i in range(18)]
    shortcut = [
        ActionSpec("jump", {"at": 0}, {"at": 5, "key": True}, cost=1),
        ActionSpec("warp", {"key": True}, {"at": 10}, cost=1),
    ]
    actions = chain + decoys + shortcut
    assert len(actions) == 30
    initial: dict[str, Any] = {"at": 0, "key": False, **{f"noise{i}": False for i in range(18)}}
    goal = GoalSpec({"at": 10})
    res = plan(initial, goal, actions, StrategyRouter())
    assert res.routing is not None and res.routing.chosen == "astar"
    assert res.routing.features.horizon_estimate >= 20 and res.routing.features.action_count == 30
    assert res.plan is not None and res.optimal
    assert res.plan.cost == dijkstra(initial, goal, actions) == 2.0


# ---------------------------------------------------------------- the goal in the store


def test_goal_json_round_trip_keeps_constraints_objectives_and_capacities() -> None:
    """goal_to_dict/goal_from_dict keep every part of a ConstrainedGoal, inside MultiGoals too."""
    from goap import Capacity

    goal = ConstrainedGoal(
        {"done": True},
        name="ship",
        priority=2,
        max_replans=4,
        constraints=(TOKENS, ResourceConstraint("cost", min=1, max=9.5, level="soft", weight=2, name="c")),
        objectives=(Objective("tokens", "maximize", 0.5, 1),),
        capacities=(Capacity("gpu", 1),),
    )
    assert goal_from_dict(goal_to_dict(goal)) == goal
    multi = MultiGoal((goal, GoalSpec({"x": 1})), mode="any")
    assert goal_from_dict(goal_to_dict(multi)) == multi
    state = GoapState.model_validate_json(GoapState(goal=goal).model_dump_json())
    assert state.goal == goal


@pytest.mark.parametrize(
    "bad",
    [
        {"constraints": "tokens<=4"},
        {"constraints": [{"key": "tokens"}]},
        {"constraints": [{"key": "tokens", "max": 4, "evil": 1}]},
        {"objectives": [{"direction": "minimize"}]},
        {"capacities": [{"key": "gpu", "limit": -1}]},
    ],
)
def test_malformed_stored_constraints_are_model_errors(bad: dict[str, Any]) -> None:
    """A stored goal with malformed constraints is refused with a ModelError, never half-read."""
    with pytest.raises(ModelError):
        goal_from_dict({"conditions": {"done": True}, **bad})


async def test_goapgraph_runs_a_constrained_goal_within_budget(store: Store) -> None:
    """GoapGraph with no strategy executes the budgeted plan on every store, and stores the whole goal."""
    g = GoapGraph(ACTIONS, store=store)
    final = await g.run("r", INIT, GOAL)
    assert final.status == "achieved"
    assert [o.action for o in final.execution_history] == ["prep", "finish"]
    assert isinstance(final.goal, ConstrainedGoal) and final.goal.constraints == (TOKENS,)
    again = await g.engine.get_state("r")
    assert again.goal == GOAL


class Go(Approval):
    """Approve the last step."""


def budget_actions() -> list[ActionSpec]:
    """prep (2 tokens) then one of three finishes; the cheapest needs approval."""
    return [
        ActionSpec("blast", {}, {"done": True}, cost=1, resources={"tokens": 8}),
        ActionSpec("prep", {}, {"prepped": True}, cost=1, resources={"tokens": 2}),
        ActionSpec("finish", {"prepped": True}, {"done": True}, cost=1, resources={"tokens": 2}, approval=Go),
        ActionSpec("finish3", {"prepped": True}, {"done": True}, cost=3, resources={"tokens": 3}),
        ActionSpec("finish5", {"prepped": True}, {"done": True}, cost=5, resources={"tokens": 2}),
    ]


async def test_resumed_run_in_a_new_process_still_honours_the_budget(tmp_path: Path) -> None:
    """Paused at an approval, reopened from the SQLite file by a new graph and rejected: the replan
    keeps the goal's budget for the whole run (2 tokens left, so finish5, not finish3 or blast)."""
    db = tmp_path / "runs.db"
    async with SQLiteStore(db) as s1:
        paused = await GoapGraph(budget_actions(), store=s1).run("r", INIT, GOAL)
    assert paused.status == "executing" and [o.action for o in paused.execution_history] == ["prep"]
    async with SQLiteStore(db) as s2:
        g = GoapGraph(budget_actions(), store=s2)
        stored = await g.engine.get_state("r")
        assert stored.goal == GOAL
        final = await g.resume("r", input={"approved": False, "reason": "no"})
    assert final.status == "achieved"
    done = [o.action for o in final.execution_history if o.executed]
    assert done == ["prep", "finish5"]
    assert sum((a.resources or {})["tokens"] for a in budget_actions() if a.name in done) <= 4
    # the oracle: from the state after prep, the cheapest finish within the remaining 2 tokens
    rest = [a for a in budget_actions() if a.name != "finish"]
    assert brute_force({"done": False, "prepped": True}, GOAL, rest, 2) == 5.0


async def test_overspent_run_reports_no_plan_naming_the_constraint(store: Store) -> None:
    """When what ran already used the budget, a replan is no_plan naming the constraint, never more spending."""

    def boom(world: Mapping[str, Any]) -> dict[str, Any]:
        raise RuntimeError("down")

    acts = [
        ActionSpec("prep", {}, {"prepped": True}, cost=1, resources={"tokens": 2}),
        ActionSpec(
            "finish", {"prepped": True}, {"done": True}, cost=1, resources={"tokens": 2}, execute=boom
        ),
        ActionSpec("finish2", {"prepped": True}, {"done": True}, cost=2, resources={"tokens": 1}),
    ]
    g = GoapGraph(acts, store=store, blacklist_after=1)
    final = await g.run("r", INIT, GOAL)
    assert [o.action for o in final.execution_history] == ["prep", "finish"]
    assert final.status == "no_plan"
    assert final.no_plan_explanation is not None
    assert "tokens <= 4 (4 already spent)" in str(final.no_plan_explanation)
