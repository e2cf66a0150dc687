"""LangGOAP-shaped plan scores, ordered as LangGOAP's code orders them (see the diffs note)."""

from __future__ import annotations

import functools
from dataclasses import dataclass, field
from typing import Any

__all__ = ["BendableScore", "HardSoftScore", "Score", "SimpleScore"]


@functools.total_ordering
@dataclass(slots=True, frozen=True, order=False)
class Score:
    """Base of the score classes: ordering by :meth:`_compare_payload` within one class."""

    @property
    def value(self) -> float:
        """One number summarising the score (for logs, not for ranking)."""
        raise NotImplementedError

    def is_feasible(self) -> bool:
        """Whether no hard level is violated."""
        raise NotImplementedError

    def _compare_payload(self) -> Any:
        raise NotImplementedError

    def __lt__(self, other: Any) -> bool:
        if not isinstance(other, type(self)):
            raise TypeError(f"Cannot compare {type(self).__name__} with {type(other).__name__}")
        mine, theirs = self._compare_payload(), other._compare_payload()
        if isinstance(self, BendableScore) and [len(x) for x in mine] != [len(x) for x in theirs]:
            raise TypeError(f"BendableScore levels of different shapes: {self!r} vs {other!r}")
        return bool(mine < theirs)


@dataclass(slots=True, frozen=True, order=False)
class SimpleScore(Score):
    """A single number, typically a plan's total cost (lower sorts first); always feasible."""

    scalar: float = 0.0

    value = property(lambda self: self.scalar, doc="The scalar.")

    def is_feasible(self) -> bool:
        """Always true."""
        return True

    def _compare_payload(self) -> float:
        return self.scalar

    def __repr__(self) -> str:
        return f"{type(self).__name__}({self.scalar:g})"


@dataclass(slots=True, frozen=True, order=False)
class HardSoftScore(Score):
    """A hard level (0 when feasible, negative when violated) and a soft level."""

    hard: float = 0.0
    soft: float = 0.0

    value = property(lambda self: self.hard + self.soft, doc="hard + soft.")

    def is_feasible(self) -> bool:
        """Whether ``hard`` is 0."""
        return self.hard == 0.0

    def _compare_payload(self) -> tuple[float, float]:
        return (self.hard, self.soft)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(hard={self.hard:g}, soft={self.soft:g})"


@dataclass(slots=True, frozen=True, order=False)
class BendableScore(Score):
    """Any number of hard and soft levels, most significant first."""

    hard_levels: tuple[float, ...] = field(default_factory=tuple)
    soft_levels: tuple[float, ...] = field(default_factory=tuple)

    def __post_init__(self) -> None:
        object.__setattr__(self, "hard_levels", tuple(self.hard_levels))
        object.__setattr__(self, "soft_levels", tuple(self.soft_levels))

    value = property(lambda self: sum(self.hard_levels) + sum(self.soft_levels), doc="The sum of all levels.")

    def is_feasible(self) -> bool:
        """Whether every hard level is 0."""
        return all(h == 0.0 for h in self.hard_levels)

    def _compare_payload(self) -> tuple[tuple[float, ...], tuple[float, ...]]:
        return (self.hard_levels, self.soft_levels)

    def __repr__(self) -> str:
        return f"{type(self).__name__}(hard={list(self.hard_levels)!r}, soft={list(self.soft_levels)!r})"
