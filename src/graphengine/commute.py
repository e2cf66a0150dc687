"""Which reducers commute, and so in which order a fan-out merges its branches.

A reducer *commutes* when folding deltas into a state gives the same result in any order:
`r(r(s, a), b) == r(r(s, b), a)` and `r(a, b) == r(b, a)` for every state `s` and deltas `a`,
`b`. It is *idempotent* when merging the same delta twice changes nothing more:
`r(r(s, a), a) == r(s, a)`, so a branch result delivered twice (a queue delivers at least once)
is harmless.

A reducer declares both with `@commutative` (or `commutative(idempotent=True)`); the engine
never infers them. The builtins `max` and `min` are known to be both (`Annotated[int, max]`),
as are the reducers of `graphengine.crdt` (`converge`, `maximum`, `minimum`). `graphengine.testing.assert_commutes` checks a
claim on samples of your own.

With the default reducer of a state type, each field merges on its own, so the order matters
field by field: a fan-out merges a branch's delta as it lands (completion order) when every
field the delta sets has a commutative reducer, and in declared branch order otherwise. The two
give the same state, so runs stay deterministic either way. `merge_order` tells which one a
fan-out whose branches write given fields will use; `Engine.spec().merge_order(...)` answers it
for an engine at wiring time.
"""

from __future__ import annotations

import typing
from collections.abc import Callable, Iterable
from typing import Any, Literal, TypeAlias, TypeVar, overload

from pydantic import BaseModel
from typing_extensions import is_typeddict

from .reducer import field_reducers

__all__ = [
    "MergeOrder",
    "commutative",
    "commuting_fields",
    "delta_commutes",
    "is_commutative",
    "is_idempotent",
    "merge_order",
    "state_fields",
]

F = TypeVar("F", bound=Callable[..., Any])

MergeOrder: TypeAlias = Literal["completion", "declared"]
"""How a fan-out merges its branch deltas: as they land (`completion`) or in branch order (`declared`)."""

# Builtins take no attributes; these are order-insensitive and idempotent on any totally
# ordered values (not on NaN, which compares false with everything).
_BUILTINS: dict[Any, bool] = {max: True, min: True}


@overload
def commutative(fn: F, /) -> F: ...
@overload
def commutative(*, idempotent: bool = False) -> Callable[[F], F]: ...
def commutative(fn: F | None = None, /, *, idempotent: bool = False) -> F | Callable[[F], F]:
    """Declare that the reducer `fn` commutes (and, with `idempotent=True`, is idempotent).

    Sets `fn.commutative = True` and `fn.idempotent` and returns `fn` itself. The engine takes
    the claim on trust and may then merge fan-out branches in completion order; a claim that
    does not hold makes runs nondeterministic, so check it with
    `graphengine.testing.assert_commutes`.
    """

    def mark(f: F) -> F:
        f.commutative = True  # type: ignore[attr-defined]
        f.idempotent = idempotent  # type: ignore[attr-defined]
        return f

    return mark if fn is None else mark(fn)


def is_commutative(reducer: Callable[..., Any]) -> bool:
    """Whether `reducer` is declared to commute (`@commutative`, the builtins `max`/`min`, `graphengine.crdt`'s)."""
    try:
        if reducer in _BUILTINS:
            return True
    except TypeError:  # an unhashable callable object is simply not one of the builtins
        pass
    return getattr(reducer, "commutative", False) is True


def is_idempotent(reducer: Callable[..., Any]) -> bool:
    """Whether `reducer` is declared to commute and to be idempotent (a duplicate delta is harmless)."""
    try:
        if reducer in _BUILTINS:
            return _BUILTINS[reducer]
    except TypeError:
        pass
    return is_commutative(reducer) and getattr(reducer, "idempotent", False) is True


def commuting_fields(reducer: Callable[..., Any]) -> frozenset[str]:
    """The fields a default (field by field) reducer merges with a commutative reducer.

    Empty for a reducer of the caller's own: it merges the whole state in its own way (if it
    is declared commutative itself, every delta commutes; see `delta_commutes`).
    """
    fields = field_reducers(reducer)
    if not fields:
        return frozenset()
    return frozenset(name for name, r in fields.items() if is_commutative(r))


def merge_order(reducer: Callable[..., Any], writes: Iterable[str]) -> MergeOrder:
    """The order a fan-out merges branches that set the fields `writes`, under `reducer`.

    `completion` when the reducer commutes as a whole or every field in `writes` has a
    commutative field reducer; `declared` otherwise.
    """
    if is_commutative(reducer):
        return "completion"
    return "completion" if set(writes) <= commuting_fields(reducer) else "declared"


def _always(delta: Any) -> bool:
    return True


def delta_commutes(reducer: Callable[..., Any], state_type: Any) -> Callable[[Any], bool] | None:
    """Decide once how to tell whether one delta may merge in completion order; None if none may.

    The returned test is cheap: for a pydantic state it compares the fields the delta set with
    the commuting fields; for a dict state, its keys.
    """
    if is_commutative(reducer):
        return _always
    fields = commuting_fields(reducer)
    if not fields:
        return None
    if isinstance(state_type, type) and issubclass(state_type, BaseModel):
        return lambda delta: delta.__pydantic_fields_set__ <= fields
    return lambda delta: delta.keys() <= fields


def state_fields(state_type: Any) -> frozenset[str] | None:
    """The fields of a pydantic or TypedDict state type; None when they are open (dict, extra fields)."""
    if isinstance(state_type, type) and issubclass(state_type, BaseModel):
        if state_type.model_config.get("extra") == "allow":
            return None
        return frozenset(state_type.model_fields)
    if is_typeddict(state_type):
        return frozenset(typing.get_type_hints(state_type))
    return None
