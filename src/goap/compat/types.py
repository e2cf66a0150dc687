"""Enums and protocols shared by LangGOAP-shaped goals and actions."""

from __future__ import annotations

import enum
from typing import Any, Protocol, runtime_checkable

__all__ = ["CostFunction", "Maximize", "Minimize", "ObjectiveDirection", "ReplanStrategy"]


@runtime_checkable
class CostFunction(Protocol):
    """A cost computed from the world state (a plain dict)."""

    def __call__(self, world_state: dict[str, Any]) -> float:
        """The cost in ``world_state``."""
        ...


class ReplanStrategy(str, enum.Enum):  # noqa: UP042 (str() as LangGOAP's)
    """When the observer asks for a new plan while executing."""

    ON_DEVIATION = "on_deviation"
    EVERY_ACTION = "every_action"
    NEVER = "never"


class ObjectiveDirection(str, enum.Enum):  # noqa: UP042
    """Whether a numeric objective is to be made small or large."""

    MINIMIZE = "minimize"
    MAXIMIZE = "maximize"


Minimize = ObjectiveDirection.MINIMIZE
"""Shorthand for :attr:`ObjectiveDirection.MINIMIZE`."""
Maximize = ObjectiveDirection.MAXIMIZE
"""Shorthand for :attr:`ObjectiveDirection.MAXIMIZE`."""
