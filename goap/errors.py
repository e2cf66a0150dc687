"""The errors of the planning package, one tree rooted at :class:`PlanningError`.

::

    PlanningError                 base of every error raised by goap
    ├── ModelError                an ActionSpec, GoalSpec, condition or effect is invalid
    │                             (also a ValueError, so plain ``except ValueError`` still works)
    └── ProblemFormatError        a problem file is malformed; names the file and the field

Search outcomes are not errors: "no plan" and "budget exhausted" are statuses of
:class:`goap.PlanResult`, so a caller branches on data instead of catching exceptions.
"""

from __future__ import annotations

__all__ = ["ModelError", "PlanningError", "ProblemFormatError"]


class PlanningError(Exception):
    """Base class of every error the planning package raises."""


class ModelError(PlanningError, ValueError):
    """A planning model object (action, goal, condition, effect) is invalid.

    The message names the object and the bad value, e.g.
    ``action 'pick': cost must be a number >= 0, got -1``.
    """


class ProblemFormatError(PlanningError):
    """A problem file does not follow the JSON problem format.

    Attributes carry where the error is, so tools can point at it:
    ``ProblemFormatError: blocksworld-4.json: actions[3].cost: expected a number >= 0, got "x"``.
    """

    file: str
    """Name of the file (or ``"<dict>"`` for in-memory data)."""
    field: str
    """JSON path of the bad field, e.g. ``actions[3].cost`` (empty for file-level errors)."""
    detail: str
    """What was expected and what was found."""

    def __init__(self, file: str, field: str, detail: str) -> None:
        self.file = file
        self.field = field
        self.detail = detail
        where = f"{file}: {field}" if field else file
        super().__init__(f"{where}: {detail}")
