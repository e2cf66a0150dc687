"""goap.compat's planner modules against langgoap 0.1.2 itself, on the same random inputs.

langgoap (a dev dependency, never imported by the library) is the oracle: each test builds one
problem twice, once from each library's own classes, runs the same function in both and compares
the results. Where langgoap leaves a choice open (CP-SAT picks any of several optimal plans), the
test checks that both choices are equally good by the objective langgoap's documentation states.
"""

from __future__ import annotations

from datetime import timedelta
from types import ModuleType
from typing import Any

import pytest
from hypothesis import given, settings
from hypothesis import strategies as st

lg = pytest.importorskip("langgoap")

import langgoap.planner.csp as lg_csp  # noqa: E402
import langgoap.planner.explain as lg_explain  # noqa: E402
import langgoap.planner.mcts as lg_mcts  # noqa: E402
import langgoap.planner.repair as lg_repair  # noqa: E402
import langgoap.planner.utility as lg_utility  # noqa: E402
from langgoap import actions as lg_actions  # noqa: E402
from langgoap import goals as lg_goals  # noqa: E402
from langgoap import state as lg_state  # noqa: E402
from langgoap import types as lg_types  # noqa: E402
from langgoap.planner import types as lg_ptypes  # noqa: E402

import goap.compat.planner.csp as gc_csp  # noqa: E402
import goap.compat.planner.explain as gc_explain  # noqa: E402
import goap.compat.planner.mcts as gc_mcts  # noqa: E402
import goap.compat.planner.repair as gc_repair  # noqa: E402
import goap.compat.planner.utility as gc_utility  # noqa: E402
from goap.compat import actions as gc_actions  # noqa: E402
from goap.compat import goals as gc_goals  # noqa: E402
from goap.compat import state as gc_state  # noqa: E402
from goap.compat import types as gc_types  # noqa: E402
from goap.compat.planner import types as gc_ptypes  # noqa: E402
from goap.compat.planner.strategy import simulate  # noqa: E402

KEYS = ("a", "b", "c", "d")
RESOURCES = ("cost", "quality")

Side = dict[str, ModuleType]
LG: Side = {
    "actions": lg_actions,
    "goals": lg_goals,
    "state": lg_state,
    "types": lg_types,
    "ptypes": lg_ptypes,
}
GC: Side = {
    "actions": gc_actions,
    "goals": gc_goals,
    "state": gc_state,
    "types": gc_types,
    "ptypes": gc_ptypes,
}

facts = st.dictionaries(st.sampled_from(KEYS), st.booleans(), max_size=2)
action_specs = st.fixed_dictionaries(
    {
        "pre": facts,
        "eff": st.dictionaries(st.sampled_from(KEYS), st.booleans(), min_size=1, max_size=2),
        "cost": st.integers(1, 5),
        "res": st.dictionaries(st.sampled_from(RESOURCES), st.integers(0, 10), max_size=2),
        "dur": st.one_of(st.none(), st.integers(0, 5)),
        "utility": st.integers(0, 6),
    }
)
constraint_specs = st.lists(
    st.fixed_dictionaries(
        {
            "key": st.sampled_from(RESOURCES),
            "max": st.one_of(st.none(), st.integers(0, 20)),
            "min": st.one_of(st.none(), st.integers(0, 5)),
            "level": st.sampled_from(("hard", "soft")),
            "weight": st.sampled_from((0.5, 1.0, 2.0)),
        }
    ).filter(lambda c: c["max"] is None or c["min"] is None or c["min"] <= c["max"]),
    max_size=2,
    unique_by=lambda c: c["key"],
)
objective_specs = st.one_of(
    st.none(), st.dictionaries(st.sampled_from(RESOURCES), st.sampled_from(("min", "max")), min_size=1)
)
goal_specs = st.fixed_dictionaries(
    {
        "cond": st.dictionaries(st.sampled_from(KEYS), st.booleans(), min_size=1, max_size=2),
        "cons": constraint_specs,
        "obj": objective_specs,
    }
)


def build_actions(side: Side, specs: list[dict[str, Any]]) -> list[Any]:
    """Each spec as an ActionSpec of ``side`` (names a0, a1, ...)."""
    return [
        side["actions"].ActionSpec(
            name=f"a{i}",
            preconditions=s["pre"],
            effects=s["eff"],
            cost=float(s["cost"]),
            resources={k: float(v) for k, v in s["res"].items()} or None,
            duration=None if s["dur"] is None else timedelta(seconds=s["dur"]),
            utility=float(s["utility"]),
        )
        for i, s in enumerate(specs)
    ]


def build_goal(side: Side, spec: dict[str, Any]) -> Any:
    """The goal of ``spec`` in ``side``'s classes."""
    od = side["types"].ObjectiveDirection
    objectives = None
    if spec["obj"] is not None:
        objectives = {k: od.MINIMIZE if d == "min" else od.MAXIMIZE for k, d in spec["obj"].items()}
    constraints = tuple(
        side["goals"].ConstraintSpec(
            key=c["key"], max=c["max"], min=c["min"], level=c["level"], weight=c["weight"]
        )
        for c in spec["cons"]
    )
    return side["goals"].GoalSpec(conditions=spec["cond"], constraints=constraints, objectives=objectives)


def build_plan(side: Side, actions: list[Any]) -> Any:
    """A plan of ``actions`` from the empty state, with its expected states and cost.

    :func:`simulate` only calls the state's and actions' methods, which both libraries share.
    """
    states, cost = simulate(side["state"].PlanningState.from_dict({}), actions)
    return side["ptypes"].Plan(actions=tuple(actions), expected_states=states, total_cost=cost)


def plans_of(side: Side, specs: list[dict[str, Any]], cuts: list[int]) -> list[Any]:
    """The actions cut into consecutive plans at ``cuts`` (every plan non-empty)."""
    actions = build_actions(side, specs)
    bounds = sorted({min(max(c, 1), len(actions)) for c in cuts} | {len(actions)})
    out, lo = [], 0
    for hi in bounds:
        if hi > lo:
            out.append(build_plan(side, actions[lo:hi]))
            lo = hi
    return out


def usage_rows(meta: Any) -> list[tuple[Any, ...]]:
    return [
        (u.key, u.total, u.constraint_min, u.constraint_max, u.satisfied, u.level)
        for u in meta.resource_usage
    ]


def stated_objective(plan: Any, goal_spec: dict[str, Any], known: set[str]) -> float:
    """The selection objective as langgoap's ``optimize_plans`` documents it (objectives, soft violations)."""
    totals: dict[str, float] = {}
    for a in plan.actions:
        for k, v in (a.resources or {}).items():
            totals[k] = totals.get(k, 0.0) + v
    value = 0.0
    for k, d in (goal_spec["obj"] or {}).items():
        if k in known:
            value += totals.get(k, 0.0) * (1 if d == "min" else -1)
    for c in goal_spec["cons"]:
        if c["level"] == "soft":
            t = totals.get(c["key"], 0.0)
            if c["max"] is not None:
                value += max(0.0, t - c["max"]) * c["weight"]
            if c["min"] is not None:
                value += max(0.0, c["min"] - t) * c["weight"]
    return value


common = settings(max_examples=30, deadline=None)


def assert_same_plan(r1: Any, r2: Any, metric: str) -> None:
    """Both sides find a plan or neither does; plans found have the same actions, cost and
    ``metadata.<metric>``."""
    assert (r1 is None) == (r2 is None)
    if r1 is not None and r2 is not None:
        ours, theirs = ((r.action_names, r.total_cost, getattr(r.metadata, metric)) for r in (r1, r2))
        assert ours == theirs


@common
@given(st.lists(action_specs, min_size=1, max_size=6), st.lists(st.integers(1, 6), max_size=4), goal_specs)
def test_validate_and_schedule_match_langgoap(
    specs: list[dict[str, Any]], cuts: list[int], goal: dict[str, Any]
) -> None:
    """Every plan gets the same status, resource rows, objective values, schedule and makespan."""
    for ours, theirs in zip(plans_of(GC, specs, cuts), plans_of(LG, specs, cuts), strict=True):
        m1 = gc_csp.validate_plan(ours, build_goal(GC, goal))
        m2 = lg_csp.validate_plan(theirs, build_goal(LG, goal))
        assert m1.status.value == m2.status.value
        assert usage_rows(m1) == usage_rows(m2)
        assert dict(m1.objective_values) == dict(m2.objective_values)
        s1, s2 = gc_csp.schedule_plan(ours), lg_csp.schedule_plan(theirs)
        assert s1.makespan == s2.makespan
        assert [(e.action_name, e.duration) for e in s1.schedule] == [
            (e.action_name, e.duration) for e in s2.schedule
        ]
        if s2.status.value == "optimal":
            # CP-SAT may start an action off the critical path anywhere in its slack; only its
            # earliest starts are unique, and ours are those: each start is some predecessor's end.
            assert all(e1.start <= e2.start for e1, e2 in zip(s1.schedule, s2.schedule, strict=True))


@common
@given(st.lists(action_specs, min_size=1, max_size=8), st.lists(st.integers(1, 8), max_size=5), goal_specs)
def test_optimize_plans_chooses_as_well_as_langgoap(
    specs: list[dict[str, Any]], cuts: list[int], goal: dict[str, Any]
) -> None:
    """Same feasibility verdict; the chosen plans are equally good by the stated objective."""
    ours_plans, their_plans = plans_of(GC, specs, cuts), plans_of(LG, specs, cuts)
    p1, m1 = gc_csp.optimize_plans(ours_plans, build_goal(GC, goal))
    p2, m2 = lg_csp.optimize_plans(their_plans, build_goal(LG, goal))
    assert (m1.status.value == "infeasible") == (m2.status.value == "infeasible")
    assert m1.plans_evaluated == m2.plans_evaluated
    if m2.status.value == "infeasible":
        return
    known = {k for p in ours_plans for a in p.actions for k in (a.resources or {})}
    if (goal["obj"] and any(k in known for k in goal["obj"])) or any(
        c["level"] == "soft" for c in goal["cons"]
    ):
        assert stated_objective(p1, goal, known) == pytest.approx(stated_objective(p2, goal, known))
    else:
        assert p1.total_cost == p2.total_cost


@common
@given(
    st.lists(action_specs, min_size=1, max_size=8),
    st.lists(st.integers(1, 8), max_size=5),
    goal_specs,
    st.one_of(st.none(), st.integers(1, 3)),
)
def test_pareto_front_matches_langgoap(
    specs: list[dict[str, Any]], cuts: list[int], goal: dict[str, Any], cap: int | None
) -> None:
    """The same plans, in the same order, with the same statuses."""
    f1 = gc_csp.pareto_plans(plans_of(GC, specs, cuts), build_goal(GC, goal), max_frontier=cap)
    f2 = lg_csp.pareto_plans(plans_of(LG, specs, cuts), build_goal(LG, goal), max_frontier=cap)
    assert [(p.action_names, m.status.value) for p, m in f1] == [
        (p.action_names, m.status.value) for p, m in f2
    ]


@common
@given(st.lists(action_specs, min_size=1, max_size=6), goal_specs, facts)
def test_explain_no_plan_matches_langgoap(
    specs: list[dict[str, Any]], goal: dict[str, Any], start: dict[str, bool]
) -> None:
    """The same unreachable conditions, missing preconditions and advice."""
    e1 = gc_explain.explain_no_plan(
        gc_state.PlanningState.from_dict(start), build_goal(GC, goal), build_actions(GC, specs)
    )
    e2 = lg_explain.explain_no_plan(
        lg_state.PlanningState.from_dict(start), build_goal(LG, goal), build_actions(LG, specs)
    )
    assert e1.to_dict() == e2.to_dict()


@common
@given(st.lists(action_specs, min_size=1, max_size=6), goal_specs, facts)
def test_utility_picks_what_langgoap_picks(
    specs: list[dict[str, Any]], goal: dict[str, Any], start: dict[str, bool]
) -> None:
    """The same one-step plan (or none), with the same cost and branching count."""
    r1 = gc_utility.UtilityStrategy().plan(
        gc_state.PlanningState.from_dict(start), build_goal(GC, goal), build_actions(GC, specs)
    )
    r2 = lg_utility.UtilityStrategy().plan(
        lg_state.PlanningState.from_dict(start), build_goal(LG, goal), build_actions(LG, specs)
    )
    assert_same_plan(r1, r2, "applicable_count")


def _mcts(side_mod: ModuleType, seed: int, reuse: bool) -> Any:
    return side_mod.MCTSStrategy(
        exploration=side_mod.MCTSExploration(iterations=60, wall_clock_ms=0, seed=seed),
        reuse=side_mod.MCTSReuseConfig(anytime_fallback=reuse),
    )


@common
@given(st.lists(action_specs, min_size=1, max_size=6), goal_specs, facts, st.integers(0, 3), st.booleans())
def test_mcts_with_the_same_seed_finds_langgoaps_plan(
    specs: list[dict[str, Any]], goal: dict[str, Any], start: dict[str, bool], seed: int, anytime: bool
) -> None:
    """MCTS draws its random numbers as langgoap's does, so a seed gives the very same plan."""
    r1 = _mcts(gc_mcts, seed, anytime).plan(
        gc_state.PlanningState.from_dict(start), build_goal(GC, goal), build_actions(GC, specs)
    )
    r2 = _mcts(lg_mcts, seed, anytime).plan(
        lg_state.PlanningState.from_dict(start), build_goal(LG, goal), build_actions(LG, specs)
    )
    assert_same_plan(r1, r2, "nodes_explored")


@common
@given(
    st.lists(action_specs, min_size=1, max_size=6),
    st.lists(st.integers(0, 5), min_size=1, max_size=4),
    goal_specs,
    facts,
    st.integers(0, 3),
)
def test_repair_keeps_the_prefix_langgoap_keeps(
    specs: list[dict[str, Any]], order: list[int], goal: dict[str, Any], start: dict[str, bool], step: int
) -> None:
    """Same prefix, same verdict, same repaired cost (the suffix search is optimal in both)."""

    def run(side: Side, mod: ModuleType) -> Any:
        acts = build_actions(side, specs)
        old = build_plan(side, [acts[i % len(acts)] for i in order])
        return mod.repair_plan(
            old, side["state"].PlanningState.from_dict(start), build_goal(side, goal), acts, current_step=step
        )

    r1, r2 = run(GC, gc_repair), run(LG, lg_repair)
    assert (r1.repair_applied, r1.valid_prefix_length, r1.suffix_replanned) == (
        r2.repair_applied,
        r2.valid_prefix_length,
        r2.suffix_replanned,
    )
    assert (r1.repaired_plan is None) == (r2.repaired_plan is None)
    if r1.repaired_plan is not None and r2.repaired_plan is not None:
        assert r1.repaired_plan.total_cost == pytest.approx(r2.repaired_plan.total_cost)
