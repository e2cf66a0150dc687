"""Which Python values JSON keeps exactly: the rule for what a step records of its outside inputs.

A resume input, event meta, an interrupt payload and a tool's result are handed to the node (or
the caller) as Python values and recorded as JSON; replay and `history()` serve the JSON. Only a
value JSON gives back as itself may be recorded, or a correct run would replay as a divergence.
"""

from __future__ import annotations

import math
from typing import Any

__all__ = ["RECORD_MAX_DEPTH", "bad_key", "not_json"]


RECORD_MAX_DEPTH = 200
"""Deepest an outside input a step records (resume input, event meta) may nest: below the JSON
encoder's own limit (254 levels) with room for the record around it."""


def bad_key(k: Any) -> bool:
    """Whether dict key `k` would not read back as itself (a non-finite float, a lone surrogate)."""
    # A float key is written as its repr ("nan", "inf") or, inside Any, as "None": it never reads
    # back as the float; a str key with a lone surrogate is written as U+FFFD by pydantic.
    if isinstance(k, float):
        return not math.isfinite(k)
    if isinstance(k, str):
        try:
            k.encode()
        except UnicodeEncodeError:
            return True
    return False


def not_json(value: Any, path: str, depth: int = 0) -> str | None:
    """Where inside `value` JSON would read back something else, as "path (why)", or None.

    Only what JSON keeps exactly is taken: None, bool, int, finite float, str without lone
    surrogates, list, and dict with str keys (exactly these types, not subclasses). A tuple
    (read back as a list), a set, a datetime, an Enum, a pydantic model or a dataclass (read
    back as a dict), any other object (read back as its str) is refused, so that what replay
    serves is what the node saw. Callers that must hand such a value through encode it
    themselves, as the LangGraph adapter does with its `Command` answers.
    """
    t = type(value)
    if value is None or t is bool or t is int:
        return None
    if t is float:
        return None if math.isfinite(value) else f"{path} (a non-finite float)"
    if t is str:
        return None if not bad_key(value) else f"{path} (a str with a lone surrogate)"
    if depth > RECORD_MAX_DEPTH:
        # refused here, before anything runs: the encoder would refuse it only at the step's write
        return f"{path[:40]}... (nests more than {RECORD_MAX_DEPTH} levels)"
    if t is list:
        for i, v in enumerate(value):
            found = not_json(v, f"{path}[{i}]", depth + 1)
            if found is not None:
                return found
        return None
    if t is dict:
        for k, v in value.items():
            if type(k) is not str or bad_key(k):
                return f"{path} (key {k!r} of type {type(k).__name__}: JSON keys are str)"
            found = not_json(v, f"{path}.{k}", depth + 1)
            if found is not None:
                return found
        return None
    if hasattr(value, "__pydantic_fields__") or hasattr(value, "__dataclass_fields__"):
        return f"{path} (a {t.__name__}: JSON would read it back as a dict; pass its fields as a dict)"
    return f"{path} (a {t.__name__}: JSON would read it back as another type)"
