"""Checking ``**options`` typed by a TypedDict at run time, as an explicit signature would."""

from __future__ import annotations

from collections.abc import Mapping
from functools import cache
from typing import Any, NotRequired, Required, get_origin, get_type_hints

__all__ = ["check_options"]


def check_options(call: str, options: Mapping[str, Any], spec: Any) -> None:
    """Raise TypeError, as Python does for a signature, when ``options`` names a keyword that the
    TypedDict ``spec`` does not declare or leaves out one it requires (type checkers see both too,
    but a call made without one would otherwise pass the mistake by silently)."""
    declared, required = _keys(spec)
    unknown = sorted(set(options) - declared)
    if unknown:
        raise TypeError(f"{call}() got unexpected keyword argument(s): {', '.join(map(repr, unknown))}")
    missing = sorted(required - set(options))
    if missing:
        raise TypeError(f"{call}() missing required keyword argument(s): {', '.join(map(repr, missing))}")


@cache
def _keys(spec: Any) -> tuple[frozenset[str], frozenset[str]]:
    """The keys ``spec`` declares and those it requires.

    Read from the resolved hints, not ``__required_keys__``: under postponed annotations Python
    3.11-3.13 cannot see ``Required``/``NotRequired`` when it builds a TypedDict.
    """
    hints = get_type_hints(spec, include_extras=True)
    required = {
        key
        for key, hint in hints.items()
        if get_origin(hint) is Required or (spec.__total__ and get_origin(hint) is not NotRequired)
    }
    return frozenset(hints), frozenset(required)
