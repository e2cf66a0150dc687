"""Fact types: a goal, precondition or effect value of another type than its fact is a typed
error naming the key, the value and the fact's type (in code, in problem files, in GoapGraph)."""

from __future__ import annotations

from random import Random
from typing import Any

import pytest

from goap import (
    ActionSpec,
    GoalSpec,
    GoapGraph,
    ModelError,
    MultiGoal,
    ProblemFormatError,
    add,
    ge,
    in_,
    ne,
    plan,
    problem_from_dict,
)
from goap.planning._typecheck import check_types, first_type_error
from graphengine.store import MemoryStore

INIT: dict[str, Any] = {"b": False, "n": 0, "s": "idle", "unknown": None}
OK_ACTIONS = [
    ActionSpec("flip", {}, {"b": True}),
    ActionSpec("count", {"b": True}, {"n": add(1)}),
    ActionSpec("name", {"n": ge(1)}, {"s": "busy", "fresh": "yes"}),
]


@pytest.mark.parametrize(
    ("cond", "shown", "got"),
    [
        (1, "1", "number"),
        (0, "0", "number"),
        ("yes", "'yes'", "str"),
        (1.0, "1.0", "number"),
        (ge(1), "1", "number"),
        (ne("x"), "'x'", "str"),
        (in_([0, 1]), "0", "number"),
    ],
)
def test_goal_value_of_another_type_than_a_bool_fact_is_refused(cond: Any, shown: str, got: str) -> None:
    """A goal b: 1 (True == 1 in Python), b: "yes", ge(1) or in_([0, 1]) on a bool fact raises naming key, value and type."""
    with pytest.raises(ModelError) as err:
        plan(INIT, GoalSpec({"b": cond}, name="g"), OK_ACTIONS)
    msg = str(err.value)
    assert (
        "'b'" in msg
        and f"= {shown} is a {got}" in msg
        and "is a bool" in msg
        and "initial state (False)" in msg
    )


@pytest.mark.parametrize(
    "goal",
    [
        {"b": True},
        {"n": 3},
        {"n": 2.0},
        {"n": ge(1.5)},
        {"s": in_(["busy", "idle"])},
        {"unknown": 1},
        {"b": None},
        {"fresh": "yes"},
    ],
)
def test_values_of_the_facts_type_plan(goal: dict[str, Any]) -> None:
    """Matching types (ints and floats alike; None facts carry no type) are accepted."""
    plan(INIT, GoalSpec(goal), OK_ACTIONS)


def test_a_bool_goal_on_a_numeric_fact_is_refused() -> None:
    """The other way round too: n: True on a number fact (True == 1) is refused."""
    with pytest.raises(ModelError, match=r"'n' = True is a bool, but fact 'n' is a number"):
        plan(INIT, GoalSpec({"n": True}), OK_ACTIONS)


@pytest.mark.parametrize(
    ("action", "where", "shown"),
    [
        (ActionSpec("x", {"b": 1}, {}), "preconditions", "1"),
        (ActionSpec("x", {"s": ge(2)}, {}), "preconditions", "2"),
        (ActionSpec("x", {}, {"b": 1}), "effects", "1"),
        (ActionSpec("x", {}, {"b": add(1)}), "effects", "add(1)"),
        (ActionSpec("x", {}, {"n": "many"}), "effects", "'many'"),
        (ActionSpec("x", {}, {"fresh": 3}), "effects", "3"),
    ],
)
def test_preconditions_and_effects_of_another_type_are_refused(
    action: ActionSpec, where: str, shown: str
) -> None:
    """A precondition or effect whose value type differs from the fact's names the action, key and value."""
    with pytest.raises(ModelError) as err:
        plan(INIT, GoalSpec({"b": True}), [*OK_ACTIONS, action])
    msg = str(err.value)
    assert msg.startswith(f"action 'x': {where}:") and f"= {shown} is a" in msg


def test_a_fact_absent_from_the_initial_state_takes_its_first_effects_type() -> None:
    """'fresh' is a str by the effect of 'name', so a goal fresh: 1 names that effect as the type's origin."""
    with pytest.raises(ModelError, match=r"fact 'fresh' is a str \(from the effect of action 'name'"):
        plan(INIT, GoalSpec({"fresh": 1}), OK_ACTIONS)


def test_every_leg_of_a_multigoal_is_checked() -> None:
    """A bad type in any goal of a MultiGoal is refused, whatever the mode."""
    for mode in ("sequential", "any", "all"):
        goal = MultiGoal((GoalSpec({"n": 1}), GoalSpec({"s": False})), mode=mode)  # type: ignore[arg-type]
        with pytest.raises(ModelError, match="'s' = False is a bool"):
            plan(INIT, goal, OK_ACTIONS)


async def test_goapgraph_refuses_a_mistyped_goal_before_creating_the_run() -> None:
    """GoapGraph.run raises the ModelError and commits nothing: the run does not exist afterwards."""
    store = MemoryStore()
    g = GoapGraph(OK_ACTIONS, store=store)
    with pytest.raises(ModelError, match="'b' = 1 is a number"):
        await g.run("r", INIT, {"b": 1})
    assert await store.get_run("r") is None
    final = await g.run("r", INIT, {"b": True})
    assert final.status == "achieved"


def problem(**changes: Any) -> dict[str, Any]:
    """A valid problem dict with ``changes`` applied."""
    data: dict[str, Any] = {
        "name": "p",
        "initial": {"b": False, "n": 0},
        "goal": {"b": True},
        "actions": [{"name": "flip", "preconditions": {"n": 0}, "effects": {"b": True, "n": {"add": 1}}}],
    }
    data.update(changes)
    return data


@pytest.mark.parametrize(
    ("changes", "field", "shown"),
    [
        ({"goal": {"b": 1}}, "goal.b", "1"),
        ({"goal": {"b": "yes"}}, "goal.b", "'yes'"),
        ({"goal": {"n": True}}, "goal.n", "True"),
        ({"goal": {"n": {"op": ">=", "value": False}}}, "goal.n", "False"),
        (
            {"actions": [{"name": "flip", "preconditions": {"b": 0}, "effects": {"b": True}}]},
            "actions[0].preconditions.b",
            "0",
        ),
        ({"actions": [{"name": "flip", "effects": {"b": 1}}]}, "actions[0].effects.b", "1"),
        ({"actions": [{"name": "flip", "effects": {"b": {"add": 1}}}]}, "actions[0].effects.b", "add(1)"),
    ],
)
def test_problem_files_with_mistyped_values_name_the_field(
    changes: dict[str, Any], field: str, shown: str
) -> None:
    """load_problem's reader raises ProblemFormatError at the JSON path, naming the value and the fact's type."""
    with pytest.raises(ProblemFormatError) as err:
        problem_from_dict(problem(**changes), "p.json")
    assert err.value.file == "p.json" and err.value.field == field
    assert f"= {shown} is a" in err.value.detail and "but fact" in err.value.detail


def test_a_well_typed_problem_file_loads() -> None:
    """The unchanged problem loads and plans."""
    p = problem_from_dict(problem())
    assert plan(p.initial, p.goal, p.actions).plan is not None


@pytest.mark.parametrize("seed", range(40))
def test_the_cached_quick_check_agrees_with_the_detailed_one(seed: int) -> None:
    """On random, often mistyped problems, check_types raises exactly when first_type_error finds a mismatch."""
    rng = Random(seed)
    values: list[Any] = [True, False, 0, 1, 2.5, "a", "b", None]
    keys = ["k0", "k1", "k2", "k3"]
    initial = {k: rng.choice(values) for k in rng.sample(keys, rng.randint(0, 4))}

    def val() -> Any:
        return rng.choice([v for v in values if v is not None])

    actions = [
        ActionSpec(
            f"a{i}",
            {k: val() for k in rng.sample(keys, rng.randint(0, 2))},
            {k: (add(1) if rng.random() < 0.2 else val()) for k in rng.sample(keys, rng.randint(1, 2))},
        )
        for i in range(3)
    ]
    goal = GoalSpec({k: val() for k in rng.sample(keys, rng.randint(0, 2))})
    expected = first_type_error(initial, (goal,), actions)
    for _ in range(2):  # the second call is served by the per-action-list cache
        if expected is None:
            check_types(initial, (goal,), actions)
        else:
            with pytest.raises(ModelError, match=repr(expected.key)):
                check_types(initial, (goal,), actions)
