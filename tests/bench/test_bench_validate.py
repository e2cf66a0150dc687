"""The benchmark's plan checker agrees with the shared reference checker (validate.py)."""

from __future__ import annotations

import importlib.util
from pathlib import Path
from types import ModuleType
from typing import Any

import pytest
from problem_files import house_problem

from bench.planner import DEFAULT_PROBLEMS
from bench.validate import check, is_optimal


def reference_checker() -> ModuleType:
    """``tests/data/problems/validate.py`` (the reference plan checker), imported from its file."""
    path = DEFAULT_PROBLEMS / "validate.py"
    if not path.is_file():
        pytest.skip(f"no reference checker at {path}")
    spec = importlib.util.spec_from_file_location("shared_validate", path)
    assert spec is not None
    assert spec.loader is not None
    module = importlib.util.module_from_spec(spec)
    spec.loader.exec_module(module)
    return module


def _problem() -> dict[str, Any]:
    """The house task with a numeric goal condition too, and `build` at the format's default cost."""
    problem = house_problem()
    problem["goal"]["gold"] = {"op": "<", "value": 2}
    del problem["actions"][3]["cost"]
    return problem


PROBLEM = _problem()

PLANS = [
    [],
    ["chop"],
    ["gather", "buy_axe", "chop", "chop", "chop", "build"],
    ["gather"] * 7 + ["build"],
    ["buy_axe", "chop", "chop", "chop", "chop", "build", "unknown"],
]


@pytest.mark.parametrize("plan", PLANS, ids=range(len(PLANS)))
def test_agrees_with_reference_checker(plan: list[str]) -> None:
    """Validity, cost and message match ``validate.check`` (numeric conditions and effects included)."""
    ok, cost, message = reference_checker().check(PROBLEM, plan)
    result = check(PROBLEM, plan)
    assert (result.valid, result.cost, result.message) == (ok, cost, message)


def test_optimality_tolerance() -> None:
    """Costs within 1e-6 of the optimum count as optimal; no known optimum gives None."""
    assert is_optimal(6.095603427188925, 6.095603)
    assert not is_optimal(6.0957, 6.095603)
    assert is_optimal(3.0, None) is None


def test_default_problems_folder_is_in_the_repository() -> None:
    """The problem set is the repository's own copy (tests/data/problems), not a folder beside it."""
    assert Path(__file__).resolve().parents[2] / "tests" / "data" / "problems" == DEFAULT_PROBLEMS
