"""Plan scores: :class:`SimpleScore`, :class:`HardSoftScore`, :class:`BendableScore`.

Every level is *higher is better*: penalties are negative, rewards positive (the Timefold /
OptaPlanner convention). Hard levels are never positive; a score is feasible when every hard
level is 0.

Scores are totally ordered by quality, lexicographically, hard levels first: ``a < b`` means
*a is better than b*. So ``min(plans, key=lambda p: p.score)`` picks the best plan, and
``sorted()`` lists the best first. The inversion (better sorts first although its numbers are
larger) is deliberate: planners minimise, and ``min()`` should mean "best".

Every score has a canonical form ``(hard_levels, soft_levels)``: ``SimpleScore(v)`` is
``((0,), (v,))``, ``HardSoftScore(h, s)`` is ``((h,), (s,))``. Scores of the same shape compare
(and are equal) whatever their class; shapes that differ raise ``TypeError``, because ordering a
one-level score against a three-level one has no meaning.
"""

from __future__ import annotations

import math
from dataclasses import dataclass
from typing import Any

from goap.planning._errors import ModelError

__all__ = ["BendableScore", "HardSoftScore", "Score", "SimpleScore"]

Levels = tuple[tuple[float, ...], tuple[float, ...]]


def _finite(owner: str, value: float) -> float:
    if isinstance(value, bool) or not isinstance(value, int | float) or not math.isfinite(value):
        raise ModelError(f"{owner}: a score level must be a finite number, got {value!r}")
    return float(value)


class Score:
    """Base of the score types: ordering, equality and hashing on the canonical levels."""

    __slots__ = ()

    def levels(self) -> Levels:
        """``(hard_levels, soft_levels)``, the canonical form."""
        raise NotImplementedError

    @property
    def feasible(self) -> bool:
        """Whether every hard level is 0."""
        return all(h == 0.0 for h in self.levels()[0])

    def _key(self, other: object) -> tuple[Levels, Levels] | None:
        if not isinstance(other, Score):
            return None
        mine, theirs = self.levels(), other.levels()
        if (len(mine[0]), len(mine[1])) != (len(theirs[0]), len(theirs[1])):
            raise TypeError(
                f"cannot compare {self!r} with {other!r}: shapes {len(mine[0])}h/{len(mine[1])}s and "
                f"{len(theirs[0])}h/{len(theirs[1])}s differ"
            )
        return mine, theirs

    @staticmethod
    def _order(levels: Levels) -> tuple[float, ...]:
        # Negated so that tuple order puts the better (higher) score first.
        return tuple(-v for v in levels[0] + levels[1])

    def __lt__(self, other: object) -> bool:
        pair = self._key(other)
        if pair is None:
            return NotImplemented
        return self._order(pair[0]) < self._order(pair[1])

    def __le__(self, other: object) -> bool:
        pair = self._key(other)
        if pair is None:
            return NotImplemented
        return self._order(pair[0]) <= self._order(pair[1])

    def __gt__(self, other: object) -> bool:
        pair = self._key(other)
        if pair is None:
            return NotImplemented
        return self._order(pair[0]) > self._order(pair[1])

    def __ge__(self, other: object) -> bool:
        pair = self._key(other)
        if pair is None:
            return NotImplemented
        return self._order(pair[0]) >= self._order(pair[1])

    def __eq__(self, other: object) -> bool:
        if not isinstance(other, Score):
            return NotImplemented
        return self.levels() == other.levels()

    def __hash__(self) -> int:
        return hash(self.levels())

    def better_than(self, other: Score) -> bool:
        """Whether this score is strictly better than ``other`` (same as ``self < other``)."""
        return self < other


@dataclass(frozen=True, slots=True, eq=False)
class SimpleScore(Score):
    """One soft level, always feasible: e.g. ``SimpleScore(-plan_cost)``."""

    value: float
    """Higher is better."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "value", _finite("SimpleScore", self.value))

    def levels(self) -> Levels:
        """``((0.0,), (value,))``."""
        return (0.0,), (self.value,)


@dataclass(frozen=True, slots=True, eq=False)
class HardSoftScore(Score):
    """A hard level (``<= 0``; feasible when 0) and a soft level (higher is better)."""

    hard: float = 0.0
    """Minus the total hard violation; 0 when every hard constraint holds."""
    soft: float = 0.0
    """Soft penalties (negative) and rewards (positive)."""

    def __post_init__(self) -> None:
        object.__setattr__(self, "hard", _finite("HardSoftScore.hard", self.hard))
        object.__setattr__(self, "soft", _finite("HardSoftScore.soft", self.soft))
        if self.hard > 0:
            raise ModelError(f"HardSoftScore.hard must be <= 0 (a penalty), got {self.hard!r}")

    def levels(self) -> Levels:
        """``((hard,), (soft,))``."""
        return (self.hard,), (self.soft,)


@dataclass(frozen=True, slots=True, eq=False)
class BendableScore(Score):
    """Any number of hard levels (each ``<= 0``) and soft levels, most important first."""

    hard_levels: tuple[float, ...] = ()
    """Hard levels, most important first; each ``<= 0``."""
    soft_levels: tuple[float, ...] = ()
    """Soft levels, most important first."""

    def __post_init__(self) -> None:
        hard = tuple(_finite("BendableScore.hard_levels", v) for v in self.hard_levels)
        soft = tuple(_finite("BendableScore.soft_levels", v) for v in self.soft_levels)
        bad = [v for v in hard if v > 0]
        if bad:
            raise ModelError(f"BendableScore.hard_levels must be <= 0 (penalties), got {hard!r}")
        object.__setattr__(self, "hard_levels", hard)
        object.__setattr__(self, "soft_levels", soft)

    def levels(self) -> Levels:
        """``(hard_levels, soft_levels)``."""
        return self.hard_levels, self.soft_levels


def score_to_dict(score: Score) -> dict[str, Any]:
    """A JSON-ready form of any score (its class name and canonical levels)."""
    hard, soft = score.levels()
    return {"type": type(score).__name__, "hard": list(hard), "soft": list(soft)}
