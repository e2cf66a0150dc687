"""The errors of :mod:`goap.capabilities`, a branch of the :class:`goap.PlanningError` tree.

::

    PlanningError                    (goap.planning._errors)
    └── CapabilityError              base of every goap.capabilities error
        ├── CapabilityInputError     an input is malformed (also a ValueError); names the field
        │   ├── InvalidGoal          a Goal field is missing, unknown or the wrong type
        │   ├── InvalidWorldState    a WorldState or Fact field is the wrong type
        │   └── InvalidCapability    a ToolCapability is malformed, duplicated or not bound to a Tool
        ├── ContractViolation        a plan or a planner broke the contract (rule names which)
        └── PlanRejected             CapabilityPlanResult.unwrap() on a result that is not "success"
            ├── NoCapabilityError    status "no_capability"
            ├── BlockedError         status "blocked"
            └── PartialPlanError     status "partial"

Outcomes a caller branches on (no tool can do it, requirements unreachable, only part of it is
possible) are statuses of :class:`CapabilityPlanResult`; :meth:`CapabilityPlanResult.unwrap` turns them into the
:class:`PlanRejected` errors for callers who prefer exceptions.
"""

from __future__ import annotations

from goap.planning import PlanningError

__all__ = [
    "BlockedError",
    "CapabilityError",
    "CapabilityInputError",
    "ContractViolation",
    "InvalidCapability",
    "InvalidGoal",
    "InvalidWorldState",
    "NoCapabilityError",
    "PartialPlanError",
    "PlanRejected",
]


class CapabilityError(PlanningError):
    """Base class of every error raised by :mod:`goap.capabilities`."""


class CapabilityInputError(CapabilityError, ValueError):
    """An input of the planner is malformed; ``field`` names it, the message says what was expected."""

    field: str
    """Dotted name of the bad field, e.g. ``goal.goal_type`` or ``capabilities[2].name``."""

    def __init__(self, field: str, detail: str) -> None:
        self.field = field
        super().__init__(f"{field}: {detail}")


class InvalidGoal(CapabilityInputError):
    """A :class:`Goal` field is missing, unknown or of the wrong type."""


class InvalidWorldState(CapabilityInputError):
    """A :class:`WorldState` (or one of its :class:`Fact`\\ s) holds a value of the wrong type."""


class InvalidCapability(CapabilityInputError):
    """A :class:`ToolCapability` is malformed or duplicated, or a plan's tool has no bound ``Tool``."""


class ContractViolation(CapabilityError):
    """A plan or a planner broke the GoalPlanner contract.

    ``rule`` names the broken rule: ``empty_success``, ``unknown_tool`` (G3),
    ``goal_achieved_by``, ``unknown_dependency``, ``cyclic_dependencies`` (G4),
    ``duplicate_action_id``, ``total_actions``, ``input_mutation`` (G5) or ``result_shape``.
    """

    rule: str
    """Short name of the broken rule."""

    def __init__(self, rule: str, detail: str) -> None:
        self.rule = rule
        super().__init__(f"contract violation ({rule}): {detail}")


class PlanRejected(CapabilityError):
    """A planning result was not ``success``; raised by :meth:`CapabilityPlanResult.unwrap`."""

    status: str
    """The result's status."""
    reason: str
    """The result's reason."""

    def __init__(self, status: str, reason: str) -> None:
        self.status = status
        self.reason = reason
        super().__init__(f"{status}: {reason}")


class NoCapabilityError(PlanRejected):
    """No capability can achieve (a part of) the goal."""


class BlockedError(PlanRejected):
    """A capability could achieve the goal, but its requirements cannot be met from the world state."""


class PartialPlanError(PlanRejected):
    """Only part of the goal can be achieved; ``unmet`` names the rest."""

    unmet: tuple[str, ...]
    """The parts of the goal no plan achieves."""

    def __init__(self, status: str, reason: str, unmet: tuple[str, ...]) -> None:
        super().__init__(status, reason)
        self.unmet = unmet
