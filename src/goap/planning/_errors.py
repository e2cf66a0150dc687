"""The errors of the planning package, one tree rooted at :class:`PlanningError`.

::

    PlanningError                 base of every error raised by goap
    ├── ModelError                an ActionSpec, GoalSpec, condition or effect is invalid
    │   │                         (also a ValueError, so plain ``except ValueError`` still works)
    │   └── UnsupportedConstraintError
    │                             a strategy was asked to plan for constraints it cannot honour
    └── ProblemFormatError        a problem file is malformed; names the file and the field

Search outcomes are not errors: "no plan" and "budget exhausted" are statuses of
:class:`goap.PlanResult`, so a caller branches on data instead of catching exceptions.
"""

from __future__ import annotations

from goap.planning.exports import publish

__all__ = ["ModelError", "PlanningError", "ProblemFormatError", "UnsupportedConstraintError"]


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


class UnsupportedConstraintError(ModelError):
    """A strategy was handed a goal with constraints or objectives it cannot honour.

    Raised instead of planning as if they were absent. The message names the strategy and the
    first constraint, e.g. ``strategy 'astar(lmcut)' cannot honour constraint 'tokens <= 4' of
    goal 'ship'; plan it with CspPipeline (the default for constrained goals)``.
    """

    strategy: str
    """Name of the strategy that refused."""
    constraint: str
    """Label of the (first) constraint, objective or capacity it cannot honour."""

    def __init__(self, strategy: str, constraint: str, goal: str) -> None:
        self.strategy = strategy
        self.constraint = constraint
        super().__init__(
            f"strategy {strategy!r} cannot honour constraint {constraint!r} of goal {goal!r}; "
            "plan it with CspPipeline (the default for constrained goals) or a StrategyRouter"
        )


# Errors are raised from code that imported them privately, before any user asked for them by
# their public name: they report `goap` from the start, so every traceback prints `goap.ModelError`.
publish("goap", globals(), __all__)
