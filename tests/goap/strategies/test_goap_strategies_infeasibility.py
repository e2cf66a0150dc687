"""explain_infeasibility: a minimal set of hard constraints that cannot hold together, each named."""

from __future__ import annotations

import pytest

from goap import ActionSpec, GoalSpec
from goap.planning._constraints import ResourceConstraint
from goap.strategies._infeasibility import explain_infeasibility

pytest.importorskip("ortools")

ACTIONS = [
    ActionSpec("ask_llm", {}, {"answered": True}, cost=1, resources={"tokens": 10}),
    ActionSpec("ask_expert", {}, {"answered": True}, cost=5, resources={"tokens": 0}),
]
GOAL = GoalSpec({"answered": True})


def test_the_conflicting_pair_is_found_and_bystanders_are_filtered_out() -> None:
    """tokens <= 5 forces the expert, cost <= 3 forbids it; the loose length bound is not part of the conflict."""
    loose = ResourceConstraint("length", max=10)
    tokens = ResourceConstraint("tokens", max=5)
    cost = ResourceConstraint("cost", max=3)
    why = explain_infeasibility({}, GOAL, ACTIONS, constraints=[loose, tokens, cost])
    assert why is not None
    assert sorted(c.label for c in why.constraints) == ["cost <= 3", "tokens <= 5"]
    short = {c.label: c.shortfall for c in why.constraints}
    assert short == {"tokens <= 5": 5.0, "cost <= 3": 2.0}  # the llm's 10 tokens; the expert's cost 5
    assert "cannot all hold" in why.message and "tokens <= 5" in why.message
    assert why.solves >= 2


def test_a_feasible_problem_has_no_explanation() -> None:
    """When a plan satisfies every hard constraint, there is nothing to explain."""
    assert explain_infeasibility({}, GOAL, ACTIONS, constraints=[ResourceConstraint("cost", max=3)]) is None


def test_soft_constraints_never_conflict() -> None:
    """Soft constraints are ignored by the explanation."""
    soft = ResourceConstraint("tokens", max=0, level="soft")
    assert (
        explain_infeasibility({}, GOAL, ACTIONS, constraints=[soft, ResourceConstraint("cost", max=3)])
        is None
    )
