"""The public surface of goap: __all__ is sorted, importable and documented."""

from __future__ import annotations

import inspect

import goap


def test_all_is_sorted() -> None:
    """__all__ is kept in sorted order."""
    assert goap.__all__ == sorted(goap.__all__)


def test_every_name_is_importable() -> None:
    """Every name in __all__ exists on the package."""
    for name in goap.__all__:
        assert hasattr(goap, name), name


def test_every_public_callable_is_documented() -> None:
    """Every exported class and function has a docstring."""
    for name in goap.__all__:
        obj = getattr(goap, name)
        if inspect.isclass(obj) or inspect.isfunction(obj):
            assert (obj.__doc__ or "").strip(), f"{name} has no docstring"


def test_documented_names_are_exported() -> None:
    """The names the README and the benchmark rely on are exported."""
    from goap import (  # noqa: F401
        ActionSpec,
        AStar,
        CostFunction,
        GoalSpec,
        MultiGoal,
        NoPlanExplanation,
        Plan,
        PlanResult,
        Problem,
        add,
        eq,
        ge,
        gt,
        in_,
        le,
        load_problem,
        lt,
        ne,
        plan,
        sub,
    )


def test_errors_share_one_root() -> None:
    """Every goap error derives from PlanningError."""
    assert issubclass(goap.ModelError, goap.PlanningError)
    assert issubclass(goap.ProblemFormatError, goap.PlanningError)
