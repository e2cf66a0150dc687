"""Reducers merge a node's delta into the state. Pure: they never mutate their inputs.

The default reducer of a pydantic model merges only the fields the delta set explicitly
(`model_fields_set`); a field annotated with a reducer (`Annotated[list[str], append]`, or any
two-argument function such as `operator.add`) merges with it instead of being replaced.
TypedDict and plain dict states merge key by key the same way.
"""

from __future__ import annotations

import inspect
import operator
import typing
from collections.abc import Callable, Mapping, Sequence
from types import MappingProxyType
from typing import Any, TypeAlias, TypeVar, get_args, get_origin, get_type_hints

from pydantic import BaseModel
from typing_extensions import is_typeddict

__all__ = [
    "Reducer",
    "append",
    "default_reducer",
    "delta_fields",
    "field_reducers",
    "is_pure",
    "merge",
    "replace",
]

S = TypeVar("S")
T = TypeVar("T")
K = TypeVar("K")
V = TypeVar("V")

Reducer: TypeAlias = Callable[[S, S], S]
"""`(previous state, delta) -> new state`; must be pure and deterministic."""


def append(prev: list[T], delta: list[T]) -> list[T]:
    """Field reducer: the delta's items are appended to the previous list."""
    return [*prev, *delta]


def merge(prev: Mapping[K, V], delta: Mapping[K, V]) -> dict[K, V]:
    """Field reducer: the delta's keys are merged into the previous mapping."""
    return {**prev, **delta}


def replace(prev: T, delta: T) -> T:
    """Field reducer: the delta's value replaces the previous one (the default behaviour)."""
    return delta


def delta_fields(delta: Any) -> dict[str, Any] | None:
    """The fields a delta sets, by name: what the default reducer merges, and nothing else.

    A pydantic model gives the fields set explicitly (`model_fields_set`, in declaration order,
    extra fields after): its other fields hold defaults that are not merged, so showing them
    would look like a reset. A mapping (TypedDict, dict) gives its items; None gives ``{}``.
    Any other value (a state merged by a reducer of the caller's own) is not made of fields:
    None. The stream's step events (`meta["changes"]`) and the server's JSON both show this.
    """
    if delta is None:
        return {}
    if isinstance(delta, BaseModel):
        fs = delta.model_fields_set
        out = {k: getattr(delta, k) for k in type(delta).model_fields if k in fs}
        for k, v in (delta.__pydantic_extra__ or {}).items():
            if k in fs:
                out[k] = v
        return out
    if isinstance(delta, Mapping):
        return dict(delta)
    return None


def is_pure(reducer: Callable[..., Any]) -> bool:
    """Whether `reducer` is known never to change its previous state in place.

    True for a default reducer whose field reducers are all this module's, `operator.add`/`or_`,
    the builtins `max`/`min`, or functions marked ``fn.pure = True`` (as
    `graphengine.models.add_messages` and `graphengine.crdt.converge` are); a reducer of the
    caller's own (or a default one with an unmarked field reducer of its own) may change
    what it is given, so the engine hands it a copy wherever the previous state is still seen.
    """
    return getattr(reducer, "pure", False) is True


def field_reducers(reducer: Callable[..., Any]) -> Mapping[str, Callable[[Any, Any], Any]] | None:
    """The per-field reducers of a default reducer merging field by field, else None.

    A field missing from the mapping is replaced by the delta's value (a plain `dict` state
    declares no fields: an empty mapping). None for a reducer of the
    caller's own (it may merge the whole state in any way) and for models allowing extra fields
    (their extra fields are not known in advance); adapters that expose one channel per field
    (`graphengine.adapters.langgraph`) use it to decide whether they can.
    """
    fields = getattr(reducer, "field_reducers", None)
    return fields if isinstance(fields, MappingProxyType) else None


def _pure_fields(fields: Mapping[str, Callable[[Any, Any], Any]]) -> bool:
    # A field reducer may declare itself pure (`add_messages` and `crdt.converge` do).
    return all(r in _PURE or getattr(r, "pure", False) is True for r in fields.values())


def _field_reducer(metadata: list[Any], field: str = "") -> Callable[[Any, Any], Any] | None:
    for m in metadata:
        if callable(m) and not isinstance(m, type):
            _refuse_async_reducer(m, f"the reducer of field {field!r}")
            return typing.cast(Callable[[Any, Any], Any], m)
    return None


def _refuse_async_reducer(fn: Any, what: str) -> None:
    """A reducer runs synchronously: an async one would merge a coroutine into the state."""
    if inspect.iscoroutinefunction(fn) or inspect.iscoroutinefunction(getattr(fn, "__call__", None)):  # noqa: B004
        from .errors import GraphValidationError

        raise GraphValidationError(
            f"{what} ({getattr(fn, '__qualname__', fn)!r}) is async; reducers merge synchronously "
            "(prev, delta) -> new value: make it a plain def"
        )


_setattr = object.__setattr__
_PURE: tuple[Callable[[Any, Any], Any], ...] = ()  # filled below, once append/merge/replace exist


def model_copier(tp: type[BaseModel]) -> Callable[[Any, dict[str, Any]], Any]:
    """Return `(prev, update) -> new instance`, the same as `prev.model_copy(update=update)`.

    For models without extra fields or private attributes this builds the instance directly,
    which is about three times faster than `model_copy` and is on every step's path.
    """
    if tp.model_config.get("extra") == "allow" or tp.__private_attributes__:
        return lambda prev, update: prev.model_copy(update=update)

    def copy(prev: Any, update: dict[str, Any]) -> Any:
        cls: Any = type(prev)
        m = cls.__new__(cls)
        d = prev.__dict__.copy()
        d.update(update)
        _setattr(m, "__dict__", d)
        _setattr(m, "__pydantic_extra__", None)
        _setattr(m, "__pydantic_fields_set__", prev.__pydantic_fields_set__ | update.keys())
        _setattr(m, "__pydantic_private__", None)
        return m

    return copy


def _model_reducer(tp: type[BaseModel]) -> Reducer[Any]:
    fields: dict[str, Callable[[Any, Any], Any]] = {}
    for name, info in tp.model_fields.items():
        r = _field_reducer(list(info.metadata), name)
        if r is not None:
            fields[name] = r
    copy = model_copier(tp)

    if tp.model_config.get("extra") == "allow":
        # Extra fields live outside __dict__; take the general, slower path.
        def with_extra(prev: Any, delta: Any) -> Any:
            fs = delta.__pydantic_fields_set__
            if not fs:
                return prev
            update = {}
            for k in fs:
                r = fields.get(k)
                v = getattr(delta, k)
                update[k] = v if r is None or not hasattr(prev, k) else r(getattr(prev, k), v)
            return prev.model_copy(update=update)

        with_extra.pure = _pure_fields(fields)  # type: ignore[attr-defined]
        return with_extra

    if not fields:

        def plain(prev: Any, delta: Any) -> Any:
            fs = delta.__pydantic_fields_set__
            if not fs:
                return prev
            d = delta.__dict__
            return copy(prev, {k: d[k] for k in fs})

        plain.pure = True  # type: ignore[attr-defined]
        plain.field_reducers = MappingProxyType(fields)  # type: ignore[attr-defined]
        return plain

    def with_fields(prev: Any, delta: Any) -> Any:
        fs = delta.__pydantic_fields_set__
        if not fs:
            return prev
        d = delta.__dict__
        p = prev.__dict__
        update = {}
        for k in fs:
            r = fields.get(k)
            update[k] = d[k] if r is None else r(p[k], d[k])
        return copy(prev, update)

    def many(prev: Any, deltas: Sequence[Any]) -> Any:
        """Merge deltas in order, as repeated `with_fields` would, in one copy.

        `append` fields gather their items and concatenate once, so merging K fan-out branches
        costs O(K) instead of copying a growing list K times; other reducers apply in order.
        """
        p = prev.__dict__
        update: dict[str, Any] = {}
        gathered: dict[str, list[Any]] = {}
        for delta in deltas:
            d = delta.__dict__
            for k in delta.__pydantic_fields_set__:
                r = fields.get(k)
                if r is None:
                    update[k] = d[k]
                elif r is append:
                    items = gathered.get(k)
                    if items is None:
                        items = gathered[k] = []
                    items += d[k]
                else:
                    update[k] = r(update[k] if k in update else p[k], d[k])
        for k, items in gathered.items():
            update[k] = [*p[k], *items]
        return copy(prev, update) if update else prev

    with_fields.many = many  # type: ignore[attr-defined]
    with_fields.pure = _pure_fields(fields)  # type: ignore[attr-defined]
    with_fields.field_reducers = MappingProxyType(fields)  # type: ignore[attr-defined]
    return with_fields


def _dict_reducer(tp: Any) -> Reducer[Any]:
    fields: dict[str, Callable[[Any, Any], Any]] = {}
    try:
        hints = get_type_hints(tp, include_extras=True)
    except TypeError:
        hints = {}
    for name, hint in hints.items():
        if get_origin(hint) is typing.Annotated:
            r = _field_reducer(list(get_args(hint)[1:]), name)
            if r is not None:
                fields[name] = r

    def reduce(prev: Any, delta: Any) -> Any:
        out = dict(prev)
        for k, v in delta.items():
            r = fields.get(k)
            out[k] = v if r is None or k not in out else r(out[k], v)
        return out

    reduce.pure = _pure_fields(fields)  # type: ignore[attr-defined]
    reduce.field_reducers = MappingProxyType(fields)  # type: ignore[attr-defined]
    return reduce


def default_reducer(tp: Any) -> Reducer[Any] | None:
    """Return the default reducer for a state type, or None if the type has none.

    Pydantic models and TypedDict/dict states have one; other types need an explicit reducer.
    """
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _model_reducer(tp)
    if is_typeddict(tp) or tp is dict or get_origin(tp) is dict:
        return _dict_reducer(tp)
    return None


_PURE = (append, merge, replace, operator.add, operator.or_, max, min)
