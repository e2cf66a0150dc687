"""The GOAP runtime on the engine: planner/executor/observer, replanning, multi-goal, transition models, history."""

from __future__ import annotations

from collections.abc import Mapping
from random import Random
from typing import Any

import pytest
from goap_tasks import RELEASE_START, offline, release_actions

from goap import (
    ActionSpec,
    DeterministicTransitionModel,
    DivergencePolicy,
    GoalSpec,
    GoapGraph,
    GoapState,
    MultiGoal,
    NoPlanExplanation,
    StoreExecutionHistory,
    add,
    assert_expected_matches_declared,
    ge,
)
from graphengine.store import Store
from graphengine.testing import assert_replays


async def test_plan_and_execute_to_the_goal(store: Store) -> None:
    """A plain run plans once, executes every action and ends achieved."""
    g = GoapGraph(release_actions(), store=store)
    final = await g.run("r", RELEASE_START, GoalSpec({"published": True}))
    assert final.status == "achieved"
    assert [o.action for o in final.execution_history] == ["fetch", "build", "sign_hsm", "publish"]
    assert final.world_state["published"] is True
    assert final.plans_made == 1
    assert final.wall_clock_started_at is not None
    assert g.engine.nodes == ("planner", "executor", "observer")
    await assert_replays(g.engine, "r")


async def test_failing_action_is_replanned_blacklisted_and_worked_around(store: Store) -> None:
    """execute raising is an action failure: counted, replanned (action_failed), blacklisted after 2."""
    g = GoapGraph(release_actions(offline), store=store, blacklist_after=2, max_replans=3)
    final = await g.run("r", RELEASE_START, GoalSpec({"published": True}))
    assert final.status == "achieved"
    assert final.replan_reason == "action_failed"
    assert final.replan_count == 2
    assert final.action_failure_counts == {"sign_hsm": 2}
    assert final.blacklisted_actions == ["sign_hsm"]
    assert [o.action for o in final.execution_history if o.success] == [
        "fetch",
        "build",
        "sign_local",
        "publish",
    ]
    assert final.reflection_context[-1].startswith("[sign_hsm] failed")
    assert "blacklisted" in final.reflection_context[-1]
    await assert_replays(g.engine, "r")


async def test_replan_budget_exhausted(store: Store) -> None:
    """When replans run out the run ends with status and reason max_replans_exceeded."""
    acts = [ActionSpec("only", {}, {"done": True}, execute=offline)]
    final = await GoapGraph(acts, store=store, max_replans=1, blacklist_after=0).run(
        "r", {"done": False}, GoalSpec({"done": True})
    )
    assert final.status == "max_replans_exceeded"
    assert final.replan_reason == "max_replans_exceeded"
    assert len(final.execution_history) == 2


async def test_no_plan_is_explained(store: Store) -> None:
    """An unreachable goal ends with status no_plan and a serialised explanation."""
    final = await GoapGraph(release_actions(), store=store).run(
        "r", RELEASE_START, GoalSpec({"notified": True})
    )
    assert final.status == "no_plan"
    assert final.no_plan_explanation is not None
    expl = NoPlanExplanation.from_dict(final.no_plan_explanation)
    assert expl.to_dict() == final.no_plan_explanation


async def test_state_deviation_triggers_a_replan(store: Store) -> None:
    """An action whose observed result differs from the expected one makes the observer replan."""
    seen = {"n": 0}

    def half_build(world: Mapping[str, Any]) -> dict[str, Any]:
        seen["n"] += 1
        return {"built": seen["n"] > 1}  # the first build silently does nothing

    acts = [
        ActionSpec("fetch", {}, {"source": True}),
        ActionSpec("build", {"source": True}, {"built": True}, execute=half_build),
    ]
    final = await GoapGraph(acts, store=store).run(
        "r", {"source": False, "built": False}, GoalSpec({"built": True})
    )
    assert final.status == "achieved"
    assert final.replan_reason == "state_deviation"
    assert [o.action for o in final.execution_history] == ["fetch", "build", "build"]


async def test_replan_after_every_action_when_asked(store: Store) -> None:
    """replan_every_action makes the observer replan after each successful action."""
    g = GoapGraph(release_actions(), store=store, replan_every_action=True, max_replans=10)
    final = await g.run("r", RELEASE_START, GoalSpec({"published": True}))
    assert final.status == "achieved"
    assert final.replan_reason == "every_action_replan"
    assert final.plans_made == 4


async def test_plan_exhausted_when_the_world_undoes_progress(store: Store) -> None:
    """If the plan ran out but the goal does not hold, the observer replans with plan_exhausted."""
    runs = {"n": 0}

    def lossy_publish(world: Mapping[str, Any]) -> dict[str, Any]:
        runs["n"] += 1
        return {"published": True, "signed": runs["n"] > 1} if runs["n"] > 1 else {"published": False}

    acts = [ActionSpec("publish", {}, {"published": True}, execute=lossy_publish)]
    g = GoapGraph(acts, store=store, transition_model=_Loose())
    final = await g.run("r", {"published": False}, GoalSpec({"published": True}))
    assert final.status == "achieved"
    assert final.replan_reason == "plan_exhausted"


class _Loose(DeterministicTransitionModel):
    """Expects nothing, so only the goal check notices a lost effect."""

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        return dict(state)


async def test_sequential_multigoal_advances_with_fresh_budgets(store: Store) -> None:
    """Each sub-goal gets its own replan budget: replan_count resets with reason subgoal_achieved."""
    g = GoapGraph(release_actions(offline), store=store, max_replans=2, blacklist_after=2)
    goal = MultiGoal((GoalSpec({"built": True}, name="build"), GoalSpec({"published": True}, name="ship")))
    final = await g.run("r", RELEASE_START, goal)
    assert final.status == "achieved"
    assert final.current_subgoal_index == 1
    assert final.replan_count == 2  # both spent on the second sub-goal
    history = await g.engine.history("r")
    reasons = [h.state.replan_reason for h in history if h.node_id == "observer"]
    assert "subgoal_achieved" in reasons


async def test_multigoal_all_plans_the_conjunction(store: Store) -> None:
    """mode='all' pursues every goal at once."""
    goal = MultiGoal((GoalSpec({"built": True}), GoalSpec({"published": True})), mode="all")
    final = await GoapGraph(release_actions(), store=store).run("r", RELEASE_START, goal)
    assert final.status == "achieved"
    assert final.world_state["built"] and final.world_state["published"]


class Dice:
    """A stochastic model: `roll` adds 1..3 at random; expected is +2."""

    divergence_policy = DivergencePolicy("rolls are random", max_relative_deviation=None)

    def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
        return action.apply(state)

    def sample(self, state: Mapping[str, Any], action: ActionSpec, rng: Random) -> Mapping[str, Any]:
        out = dict(action.apply(state))
        if action.name == "roll":
            out["points"] = state["points"] + rng.randint(1, 3)
        return out


async def test_stochastic_model_with_a_seed_gives_the_same_run_twice(store: Store) -> None:
    """A seeded transition model makes runs reproducible (and replayable)."""
    acts = [ActionSpec("roll", {}, {"points": add(2)})]

    async def once(run_id: str) -> GoapState:
        g = GoapGraph(acts, store=store, transition_model=Dice(), seed=42, max_replans=50)
        return await g.run(run_id, {"points": 0}, GoalSpec({"points": ge(10)}))

    a, b = await once("a"), await once("b")
    assert a.status == b.status == "achieved"
    assert a.world_state == b.world_state
    assert [o.effects for o in a.execution_history] == [o.effects for o in b.execution_history]
    g = GoapGraph(acts, store=store, transition_model=Dice(), seed=42, max_replans=50)
    await assert_replays(g.engine, "a")


def test_expected_must_match_declared_unless_a_policy_says_why() -> None:
    """assert_expected_matches_declared enforces the model contract."""
    act = ActionSpec("roll", {}, {"points": add(2)})
    assert_expected_matches_declared(DeterministicTransitionModel(), state={"points": 1}, action=act)

    class Liar(DeterministicTransitionModel):
        def expected(self, state: Mapping[str, Any], action: ActionSpec) -> Mapping[str, Any]:
            return {"points": 99}

    with pytest.raises(AssertionError, match="diverges"):
        assert_expected_matches_declared(Liar(), state={"points": 1}, action=act)


async def test_time_budget_ends_the_run(store: Store) -> None:
    """A run past its time budget ends with status budget_exhausted."""
    g = GoapGraph(release_actions(), store=store, time_budget=-1.0)
    final = await g.run("r", RELEASE_START, GoalSpec({"published": True}))
    assert final.status == "budget_exhausted"


async def test_goap_state_round_trips_through_the_store(store: Store) -> None:
    """Goals with comparison conditions and multi-goals survive the store (get_state equals the live state)."""
    goal = MultiGoal((GoalSpec({"points": ge(2)}, name="a"), GoalSpec({"points": ge(4)}, name="b")))
    g = GoapGraph([ActionSpec("inc", {}, {"points": add(1)})], store=store)
    final = await g.run("r", {"points": 0}, goal)
    assert final.status == "achieved"
    assert await g.engine.get_state("r") == final
    assert (await g.engine.get_state("r")).goal == goal


async def test_a_raising_tracer_never_affects_planning(store: Store) -> None:
    """Tracer exceptions are isolated."""

    class Boom:
        def __getattr__(self, name: str) -> Any:
            def fail(*a: Any, **k: Any) -> None:
                raise RuntimeError("tracer down")

            return fail

    final = await GoapGraph(release_actions(), store=store, tracer=Boom()).run(
        "r", RELEASE_START, GoalSpec({"published": True})
    )
    assert final.status == "achieved"


async def test_execution_history_by_run_and_by_action(store: Store) -> None:
    """StoreExecutionHistory reads committed action records per run and per action."""
    g = GoapGraph(release_actions(offline), store=store)
    await g.run("r1", RELEASE_START, GoalSpec({"published": True}))
    await g.run("r2", RELEASE_START, GoalSpec({"built": True}))
    hist = StoreExecutionHistory(g.engine)
    r1 = await hist.by_run("r1")
    assert [r.action for r in r1] == ["fetch", "build", "sign_hsm", "sign_hsm", "sign_local", "publish"]
    builds = await hist.by_action("build")
    assert sorted(r.run_id for r in builds) == ["r1", "r2"]
    fails = await hist.failures("sign_hsm")
    assert len(fails) == 2
    assert all(not f.success for f in fails)


async def test_async_execute_is_awaited(store: Store) -> None:
    """An async execute returning a dict is authoritative for the world state."""

    async def fetch(world: Mapping[str, Any]) -> dict[str, Any]:
        return {"source": True, "commit": "abc123"}

    acts = [ActionSpec("fetch", {}, {"source": True}, execute=fetch)]
    final = await GoapGraph(acts, store=store).run("r", {"source": False}, GoalSpec({"source": True}))
    assert final.world_state["commit"] == "abc123"
    assert final.execution_history[0].effects == {"source": True, "commit": "abc123"}
