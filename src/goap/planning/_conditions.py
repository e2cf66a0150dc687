"""Conditions on facts and effects on facts.

A precondition or goal value is either a plain scalar (the fact must equal it) or a condition
object built by :func:`eq`, :func:`ne`, :func:`lt`, :func:`le`, :func:`gt`, :func:`ge` or
:func:`in_`. An effect value is either a plain scalar (the fact is set to it) or a numeric
:class:`Add` built by :func:`add` / :func:`sub`.

A missing fact (a key absent from the state) is represented by ``None``: plain equality with
``None`` holds for it, every comparison object is false on it (as in ``validate.py``).
"""

from __future__ import annotations

import math
import operator
from collections.abc import Callable, Iterable
from dataclasses import dataclass
from typing import Any, Literal, TypeAlias

from goap.planning._checks import freeze_field
from goap.planning._errors import ModelError

__all__ = [
    "Add",
    "Compare",
    "Condition",
    "Effect",
    "OneOf",
    "Op",
    "Scalar",
    "add",
    "condition_to_json",
    "eq",
    "ge",
    "gt",
    "holds",
    "in_",
    "le",
    "lt",
    "ne",
    "sub",
]

Scalar: TypeAlias = bool | int | float | str
"""A fact value: JSON scalars (``None`` stands for an absent fact)."""

Op: TypeAlias = Literal["==", "!=", "<", "<=", ">", ">="]
"""The comparison operators of the problem format."""

_OPS: dict[str, Callable[[Any, Any], bool]] = {
    "==": operator.eq,
    "!=": operator.ne,
    "<": operator.lt,
    "<=": operator.le,
    ">": operator.gt,
    ">=": operator.ge,
}


def _is_scalar(value: object) -> bool:
    return isinstance(value, bool | int | float | str)


@dataclass(frozen=True, slots=True)
class Compare:
    """``state[key] <op> value``; false when the fact is absent or the types do not compare."""

    op: Op
    """One of ``==``, ``!=``, ``<``, ``<=``, ``>``, ``>=``."""
    value: Scalar
    """The right-hand side."""

    def __post_init__(self) -> None:
        if self.op not in _OPS:
            raise ModelError(f"unknown comparison operator {self.op!r}; use one of {sorted(_OPS)}")
        if not _is_scalar(self.value):
            raise ModelError(f"comparison value must be a bool, int, float or str, got {self.value!r}")

    def holds(self, actual: object) -> bool:
        """Whether the fact value ``actual`` satisfies this condition."""
        if actual is None:
            return False
        try:
            return bool(_OPS[self.op](actual, self.value))
        except TypeError:
            # "a" < 3 is not an error in a plan, just a condition that does not hold
            return False

    def __repr__(self) -> str:
        return f"{_NAMES[self.op]}({self.value!r})"


_NAMES = {"==": "eq", "!=": "ne", "<": "lt", "<=": "le", ">": "gt", ">=": "ge"}


@dataclass(frozen=True, slots=True)
class OneOf:
    """``state[key] in values``; false when the fact is absent."""

    values: frozenset[Scalar]
    """The allowed values."""

    def __post_init__(self) -> None:
        freeze_field(self, "values", frozenset)
        for v in self.values:
            if not _is_scalar(v):
                raise ModelError(f"in_() values must be bool, int, float or str, got {v!r}")

    def holds(self, actual: object) -> bool:
        """Whether the fact value ``actual`` is one of the allowed values."""
        return actual is not None and actual in self.values

    def __repr__(self) -> str:
        return f"in_({sorted(self.values, key=repr)!r})"


Condition: TypeAlias = Compare | OneOf
"""A non-equality condition object (plain scalars mean equality)."""


@dataclass(frozen=True, slots=True)
class Add:
    """Numeric effect: add ``amount`` to the fact (negative amounts subtract)."""

    amount: int | float
    """What to add; must be finite."""

    def __post_init__(self) -> None:
        if isinstance(self.amount, bool) or not isinstance(self.amount, int | float):
            raise ModelError(f"add() needs a number, got {self.amount!r}")
        if not math.isfinite(self.amount):
            raise ModelError(f"add() needs a finite number, got {self.amount!r}")

    def __repr__(self) -> str:
        return f"add({self.amount!r})"


Effect: TypeAlias = Add
"""A non-assignment effect object (plain scalars mean "set to")."""


def _comparison(name: str, op: Op, meaning: str) -> Callable[[Scalar], Compare]:
    """The condition constructor ``name``: ``name(value)`` is ``Compare(op, value)``."""

    def condition(value: Scalar) -> Compare:
        return Compare(op, value)

    condition.__name__ = condition.__qualname__ = name
    condition.__doc__ = f"Condition: the fact {meaning}."
    return condition


eq = _comparison("eq", "==", "equals ``value`` (same as writing the plain value)")
ne = _comparison("ne", "!=", "is present and differs from ``value``")
lt = _comparison("lt", "<", "is less than ``value``")
le = _comparison("le", "<=", "is less than or equal to ``value``")
gt = _comparison("gt", ">", "is greater than ``value``")
ge = _comparison("ge", ">=", "is greater than or equal to ``value``")


def in_(values: Iterable[Scalar]) -> OneOf:
    """Condition: the fact is one of ``values``."""
    return OneOf(frozenset(values))


def add(amount: int | float) -> Add:
    """Effect: add ``amount`` to the numeric fact."""
    return Add(amount)


def sub(amount: int | float) -> Add:
    """Effect: subtract ``amount`` from the numeric fact."""
    return Add(-amount)


def holds(condition: object, actual: object) -> bool:
    """Whether a fact value satisfies a condition (a plain value means equality)."""
    if isinstance(condition, Compare | OneOf):
        return condition.holds(actual)
    return bool(actual == condition)


def condition_to_json(condition: object) -> object:
    """The JSON form of a condition as in the problem format (``OneOf`` as ``{"in": [...]}``)."""
    if isinstance(condition, Compare):
        return {"op": condition.op, "value": condition.value}
    if isinstance(condition, OneOf):
        return {"in": sorted(condition.values, key=repr)}
    return condition
