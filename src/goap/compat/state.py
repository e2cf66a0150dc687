"""LangGOAP's hashable world-state value and the clean-slate start-state helper."""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from dataclasses import dataclass
from typing import TYPE_CHECKING, Any

if TYPE_CHECKING:
    from goap.compat.actions import ActionSpec

__all__ = ["PlanningState", "infer_start_state"]

_log = logging.getLogger(__name__)


@dataclass(slots=True, frozen=True)
class PlanningState:
    """An immutable world state: a frozenset of ``(key, value)`` pairs (values must be hashable)."""

    conditions: frozenset[tuple[str, Any]]

    @classmethod
    def from_dict(cls, d: Mapping[str, Any], *, keys: Iterable[str] | None = None) -> PlanningState:
        """The state of ``d`` (only ``keys`` when given); unhashable values are left out with a warning."""
        wanted = None if keys is None else set(keys)
        pairs = []
        for k, v in d.items():
            if wanted is not None and k not in wanted:
                continue
            try:
                hash(v)
            except TypeError:
                _log.warning("PlanningState: leaving out %r, its %s value is unhashable", k, type(v).__name__)
                continue
            pairs.append((k, v))
        return cls(frozenset(pairs))

    def to_dict(self) -> dict[str, Any]:
        """A plain dict copy."""
        return dict(self.conditions)

    def satisfies(self, requirements: Mapping[str, Any]) -> bool:
        """Whether every ``key: value`` of ``requirements`` is in this state (absent keys fail)."""
        have = self.conditions
        return all((k, v) in have for k, v in requirements.items())

    def apply(self, effects: Mapping[str, Any]) -> PlanningState:
        """A new state with ``effects`` written over this one."""
        merged = self.to_dict()
        merged.update(effects)
        return PlanningState.from_dict(merged)

    def get(self, key: str, default: Any = None) -> Any:
        """The value of ``key``, or ``default``."""
        return next((v for k, v in self.conditions if k == key), default)

    def __len__(self) -> int:
        return len(self.conditions)

    def __contains__(self, key: object) -> bool:
        return any(k == key for k, _ in self.conditions)

    def __repr__(self) -> str:
        return f"PlanningState({self.to_dict()!r})"


def infer_start_state(actions: Iterable[ActionSpec]) -> dict[str, bool]:
    """Every precondition key and every key a static effect sets to a bool, all ``False`` (sorted)."""
    found: set[str] = set()
    for a in actions:
        found.update(a.preconditions)
        if not a.has_dynamic_effects:
            found.update(k for k, v in a.effects.items() if isinstance(v, bool))  # type: ignore[union-attr]
    return dict.fromkeys(sorted(found), False)


Start = PlanningState | Mapping[str, Any]
"""A start state as planners take it: a PlanningState or a plain mapping."""
