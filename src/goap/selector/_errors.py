"""The errors of :mod:`goap.selector`, a branch of the :class:`goap.PlanningError` tree.

::

    PlanningError                 (goap.planning._errors)
    ├── ModelError                a GoalSegment, StateDef, SlotContract or observation is malformed
    └── SelectorError             base of the selector's own errors
        └── SegmentLintError      load-time lint found problems; ``problems`` lists every one
"""

from __future__ import annotations

from dataclasses import dataclass

from goap.planning import PlanningError

__all__ = ["LintProblem", "SegmentLintError", "SelectorError"]


class SelectorError(PlanningError):
    """Base class of the errors specific to the GOAP-lite selector."""


@dataclass(frozen=True, slots=True)
class LintProblem:
    """One problem found by the load-time lint."""

    code: str
    """``required_slot_uncovered``, ``cyclic_ordering``, ``state_in_two_segments``,
    ``missing_exit_guard``, ``missing_fallback``, ``unknown_slot``, ``duplicate_state``,
    ``duplicate_order``, ``duplicate_segment`` or ``bad_selector``."""
    segment: str
    """The segment the problem is in."""
    message: str
    """What is wrong and how to fix it."""

    def __str__(self) -> str:
        return f"{self.segment}: {self.code}: {self.message}"


class SegmentLintError(SelectorError):
    """Segments failed the load-time lint; the message lists every problem, one per line."""

    problems: tuple[LintProblem, ...]
    """Every problem found, in segment then check order."""

    def __init__(self, problems: tuple[LintProblem, ...]) -> None:
        self.problems = problems
        lines = "\n".join(f"  - {p}" for p in problems)
        super().__init__(f"{len(problems)} selector lint problem(s):\n{lines}")
