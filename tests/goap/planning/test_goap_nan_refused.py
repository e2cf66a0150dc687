"""NaN in a planning problem is refused by name: it equals and orders with nothing, so a search
for a goal over it could only burn its whole budget."""

from __future__ import annotations

import math
from typing import Any

import pytest

from goap import ActionSpec, AStar, GoalSpec, ModelError, add, eq, ge, gt, in_, le, lt, ne, plan


def _actions() -> list[ActionSpec]:
    return [
        ActionSpec("fill", {"fuel": lt(10.0)}, {"fuel": add(1.0)}),
        ActionSpec("go", {"fuel": ge(3.0)}, {"at": "b"}),
    ]


@pytest.mark.parametrize("solve", ["plan", "astar"])
def test_a_nan_initial_value_is_a_model_error_naming_the_fact(solve: str) -> None:
    """plan() and a strategy's own solve() refuse a NaN fact in the initial state, naming it."""
    initial = {"fuel": math.nan, "at": "a"}

    def run() -> object:
        if solve == "plan":
            return plan(initial, {"at": "b"}, _actions())
        return AStar().solve(initial, GoalSpec({"at": "b"}), _actions())

    with pytest.raises(ModelError, match=r"'fuel'.*nan") as info:
        run()
    assert "initial" in str(info.value)


@pytest.mark.parametrize("cond", [ge, gt, le, lt, eq, ne], ids=lambda f: f.__name__)
@pytest.mark.parametrize("where", ["goal", "precondition"])
def test_a_comparison_with_nan_is_a_model_error_naming_the_fact(cond: Any, where: str) -> None:
    """ge(nan) and its siblings never hold (or always do, for ne): refused where they are used, naming the fact."""
    build: Any = (
        (lambda c: GoalSpec({"fuel": c})) if where == "goal" else (lambda c: ActionSpec("a", {"fuel": c}))
    )
    with pytest.raises(ModelError, match=r"'fuel'.*nan"):
        build(cond(math.nan))


def test_in_with_nan_is_a_model_error_naming_the_fact() -> None:
    """in_ over a NaN can never match that member; refused like the comparisons."""
    with pytest.raises(ModelError, match=r"'fuel'.*nan"):
        GoalSpec({"fuel": in_([1.0, math.nan])})


def test_finite_numbers_still_plan() -> None:
    """The same problem with a number plans as before (the refusal is about NaN only)."""
    res = plan({"fuel": 1.0, "at": "a"}, {"at": "b"}, _actions())
    assert res.plan is not None and [a.name for a in res.plan.actions] == ["fill", "fill", "go"]


@pytest.mark.parametrize(
    ("build", "words"),
    [
        (lambda: AStar(max_expansions=math.nan), ["max_expansions", "nan"]),
        (lambda: AStar(max_expansions=2.5), ["max_expansions", "2.5"]),
        (lambda: GoalSpec({"x": 1}, priority=math.nan), ["priority", "nan"]),
        (lambda: GoalSpec({"x": 1}, max_replans=math.nan), ["max_replans", "nan"]),
    ],
    ids=["max_expansions-nan", "max_expansions-float", "priority-nan", "max_replans-nan"],
)
def test_limits_and_priorities_that_nan_would_switch_off_are_refused(build: Any, words: list[str]) -> None:
    """A NaN budget never ends a search and a NaN priority orders nothing: both are ModelErrors naming the field."""
    with pytest.raises(ModelError) as info:
        build()
    assert all(w in str(info.value) for w in words), str(info.value)
