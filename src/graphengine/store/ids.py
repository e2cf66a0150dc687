"""Which strings may key a run (run ids, checkpoint labels): one rule for every backend.

Every store compares ids byte for byte (no case folding, no Unicode normalisation, no trailing
space padding), and refuses, before touching its database, any id that some backend could not
store exactly: so an id that works on one backend works, and means the same run, on all of them.
"""

from __future__ import annotations

import re
from typing import Final

from .errors import InvalidIdError

__all__ = ["MAX_ID_CHARS", "check_id"]

MAX_ID_CHARS: Final = 255
"""Longest id, in code points (at most 1,020 UTF-8 bytes: what MySQL's keys hold)."""

# NUL ends strings in C APIs and PostgreSQL refuses it in text; a lone surrogate is not valid
# Unicode and cannot be encoded as UTF-8 at all.
_BAD: Final = re.compile("[\x00\ud800-\udfff]")


def check_id(value: object, what: str = "run id") -> None:
    """Raise `InvalidIdError` unless `value` is a usable id: a non-empty `str` of at most
    `MAX_ID_CHARS` code points with no NUL and no lone surrogate. `what` names it in the message.
    """
    if not isinstance(value, str):
        raise InvalidIdError(f"{what} must be a str, got {type(value).__name__} {value!r:.60}", value=value)
    n = len(value)
    if n == 0:
        raise InvalidIdError(f"{what} {value!r} is empty: an id has at least one character", value=value)
    if n > MAX_ID_CHARS:
        raise InvalidIdError(
            f"{what} {value[:40]!r}... has {n} characters; at most {MAX_ID_CHARS} are allowed", value=value
        )
    if not value.isascii() or "\x00" in value:
        bad = _BAD.search(value)
        if bad is not None:
            kind = "NUL" if bad.group() == "\x00" else f"lone surrogate U+{ord(bad.group()):04X}"
            raise InvalidIdError(
                f"{what} {value!r:.80} holds a {kind} at position {bad.start()}; no store can key by it",
                value=value,
            )
