"""Checks and normalisations the frozen settings classes of the planning layers share.

Strategies and model classes are frozen dataclasses that accept any iterable or mapping for their
collection fields and store an immutable copy (so they stay hashable and cannot change under a
running search); their numeric settings are checked with one wording, so a user reads the same
message whichever class refused the value.
"""

from __future__ import annotations

import math
from types import MappingProxyType
from typing import Any

from goap.planning._errors import ModelError

__all__ = ["check_at_least", "check_seconds", "freeze_field"]

FrozenKind = type[frozenset[Any]] | type[tuple[Any, ...]] | type[MappingProxyType[Any, Any]]
"""The immutable collection types a field can be frozen into."""


def freeze_field(obj: object, name: str, kind: FrozenKind) -> None:
    """Store field ``name`` of the frozen dataclass ``obj`` as a ``kind`` (a copy) unless it is one."""
    value = getattr(obj, name)
    if not isinstance(value, kind):
        frozen = MappingProxyType(dict(value)) if kind is MappingProxyType else kind(value)
        object.__setattr__(obj, name, frozen)


def check_at_least(obj: object, *names: str, low: int = 1) -> None:
    """Raise :class:`goap.ModelError` naming the first of the fields ``names`` of ``obj`` below ``low``."""
    for name in names:
        value = getattr(obj, name)
        # `value < low` lets NaN through (it compares false), and a float count is no count.
        if isinstance(value, bool) or not isinstance(value, int):
            raise ModelError(f"{name} must be an int >= {low}, got {value!r}")
        if value < low:
            raise ModelError(f"{name} must be >= {low}, got {value}")


def check_seconds(name: str, value: float | None, *, optional: bool = True) -> None:
    """Raise :class:`goap.ModelError` unless ``value`` is a positive, finite number of seconds
    (or None, when ``optional``)."""
    if value is None and optional:
        return
    if not (isinstance(value, int | float) and value > 0 and math.isfinite(value)):
        alternative = " or None" if optional else ""
        raise ModelError(f"{name} must be a positive number of seconds{alternative}, got {value!r}")
