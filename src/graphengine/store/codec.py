"""Codecs turn states into bytes and back. JSON through pydantic; never pickle."""

from __future__ import annotations

import functools
import json
import sys
import types
import typing
from collections.abc import Callable
from typing import Any, Generic, Protocol, TypeVar

import typing_extensions
from pydantic import BaseModel, TypeAdapter

__all__ = ["Codec", "JsonCodec", "adaptable_type"]

S = TypeVar("S")


class Codec(Protocol[S]):
    """Encodes values of one type to bytes and decodes them back (validating on the way in).

    JSON writes NaN and infinity as `null`, so when encoded bytes hold `null` the engine walks the
    value for a non-finite float and refuses it (it would read back as something else). A codec
    that never writes them as `null` (it tags them, or refuses them itself) may say so with a class
    attribute `keeps_non_finite = True`; the engine then skips that walk.
    """

    def encode(self, value: S) -> bytes:
        """Encode a full value."""
        ...

    def encode_delta(self, value: S) -> bytes:
        """Encode a partial value (a delta): only what it set explicitly, when the type knows."""
        ...

    def decode(self, data: bytes) -> S:
        """Decode and validate; raises `ValueError` (pydantic `ValidationError`) on bad data."""
        ...

    def decode_delta(self, data: bytes) -> S:
        """Decode and validate what `encode_delta` wrote: a delta may leave out required keys."""
        ...


class JsonCodec(Generic[S]):
    """JSON through pydantic's `TypeAdapter(S)`, built once per type.

    Deltas of pydantic models are encoded with `exclude_unset=True`, so a decoded delta has the
    same `model_fields_set` as the one the node returned and the reducer sees the same merge.
    A delta may leave out required keys: `decode_delta` validates a TypedDict delta against the
    same TypedDict made `total=False`, and a model delta field by field when the model has
    required fields (each field's own validators run; whole-model validators judge full states).
    Output is deterministic: field order is the declaration order, dict order is insertion order.
    """

    def __init__(self, tp: type[S] | Any) -> None:
        self.type = tp
        """The type encoded."""
        self._adapter: TypeAdapter[S] = TypeAdapter(adaptable_type(tp))
        self._is_model = isinstance(tp, type) and issubclass(tp, BaseModel)
        self._serializer: Any = getattr(tp, "__pydantic_serializer__", None) if self._is_model else None
        # The adapter's validator directly: the same validation without TypeAdapter's wrapper,
        # as the engine decodes every delta it writes. Values are encoded by field name, so they
        # are read back by field name too (by_name): a field with an alias would otherwise be
        # looked up under its alias, not found, and silently take its default.
        self._validate: Callable[[bytes], S] = functools.partial(
            self._adapter.validator.validate_json, by_name=True
        )
        self.decode_delta: Callable[[bytes], S] = self._delta_decoder(tp)
        """Decode and validate a delta (see the class docstring)."""

    def encode(self, value: S) -> bytes:
        """Encode a full value."""
        if self._is_model:
            return self._serializer.to_json(value)  # type: ignore[no-any-return]
        return self._adapter.dump_json(value)

    def encode_delta(self, value: S) -> bytes:
        """Encode only the fields the delta set explicitly."""
        if self._is_model:
            # The model's serializer directly: skips model_dump_json's wrapper and a str round trip.
            return self._serializer.to_json(value, exclude_unset=True)  # type: ignore[no-any-return]
        return self._adapter.dump_json(value, exclude_unset=True)

    def decode(self, data: bytes) -> S:
        """Decode and validate."""
        return self._validate(data)

    def _delta_decoder(self, tp: Any) -> Callable[[bytes], S]:
        if typing.is_typeddict(tp) or typing_extensions.is_typeddict(tp):
            hints = typing.get_type_hints(tp, include_extras=True)
            fields = {
                k: typing_extensions.NotRequired[adaptable_type(_unwrap_required(v))]
                for k, v in hints.items()
            }
            partial = _MAKE_TYPEDDICT(f"{tp.__name__}Delta", fields)
            return TypeAdapter(partial).validate_json
        if self._is_model and any(f.is_required() for f in tp.model_fields.values()):
            return functools.partial(_partial_model, tp)
        return self._validate


def adaptable_type(tp: Any) -> Any:
    """`tp` in a form pydantic accepts on this Python: the same type, except that on Python 3.11 a
    `typing.TypedDict` (pydantic wants `typing_extensions.TypedDict` there) becomes an equivalent
    `typing_extensions.TypedDict`, also where one is nested in another type's arguments.

    Names, module, required and optional keys and `Annotated` metadata (reducers) are kept, so
    validation and encoding are those of the original type."""
    if sys.version_info >= (3, 12):
        return tp
    return _rebuilt(tp, {})


_MAKE_TYPEDDICT: Any = typing_extensions.TypedDict
_EXTENSIONS_META: Any = type(_MAKE_TYPEDDICT("_Probe", {}))


def _is_extensions_typeddict(tp: Any) -> bool:
    return type(tp) is _EXTENSIONS_META


def _rebuilt(tp: Any, seen: dict[int, Any]) -> Any:
    if isinstance(tp, type) and typing.is_typeddict(tp) and not _is_extensions_typeddict(tp):
        done = seen.get(id(tp))
        if done is not None:
            return done
        seen[id(tp)] = tp  # a recursive reference to it while it is being rebuilt stays as it was
        hints = typing.get_type_hints(tp, include_extras=True)
        required: frozenset[str] = getattr(tp, "__required_keys__", frozenset())
        fields: dict[str, Any] = {}
        for key, hint in hints.items():
            wrap = typing_extensions.Required if key in required else typing_extensions.NotRequired
            fields[key] = wrap[_rebuilt(hint, seen)]
        new: Any = _MAKE_TYPEDDICT(tp.__name__, fields)  # the functional form: the name is a variable
        new.__module__ = tp.__module__
        new.__qualname__ = tp.__qualname__
        new.__doc__ = tp.__doc__
        seen[id(tp)] = new
        return new
    args = typing.get_args(tp)
    if not args:
        return tp
    new_args = tuple(_rebuilt(a, seen) for a in args)
    if new_args == args:
        return tp
    origin = typing.get_origin(tp)
    if origin is typing.Annotated:
        return typing.Annotated[(new_args[0], *tp.__metadata__)]
    if origin is types.UnionType or origin is typing.Union:
        return typing.Union[new_args]  # noqa: UP007 (X | Y of a tuple of arguments; the same type to pydantic)
    try:
        return tp.copy_with(new_args)  # typing generics (List[X], Optional[X], Literal, ...)
    except AttributeError:
        return origin[new_args] if len(new_args) > 1 else origin[new_args[0]]  # list[X], dict[K, V]


def _unwrap_required(hint: Any) -> Any:
    """`X` of `Required[X]` / `NotRequired[X]` (either module's), else the hint itself."""
    origin = typing.get_origin(hint)
    wrappers = {typing_extensions.Required, typing_extensions.NotRequired}
    wrappers |= {getattr(typing, n) for n in ("Required", "NotRequired") if hasattr(typing, n)}
    return typing.get_args(hint)[0] if origin in wrappers else hint


def _partial_model(tp: Any, data: bytes) -> Any:
    """A model delta holding only the fields in `data`, each validated by its own field validators."""
    raw = json.loads(data)
    if not isinstance(raw, dict):
        raise ValueError(f"a {tp.__name__} delta must be a JSON object, got {type(raw).__name__}")
    inst = tp.model_construct(_fields_set=set())
    validator = tp.__pydantic_validator__
    for name, value in raw.items():
        if name not in tp.model_fields:
            raise ValueError(f"{tp.__name__} has no field {name!r}")
        validator.validate_assignment(inst, name, value)
    object.__setattr__(inst, "__pydantic_fields_set__", set(raw))
    return inst
