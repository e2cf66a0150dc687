"""State types whose JSON nests no deeper than their type says and holds no NaN or Infinity constants.

A fan-out's branch inputs are decoded from the bytes their route stores, so a value that does not
fit its type never gets through; what does get through has the type's shape. For a type built
only of these parts, that shape bounds how deep its JSON nests, and pydantic writes no JSON
constants for it, so the route check need not parse an input's bytes again to count its depth:

- fields of `int`, `float`, `str`, `bool`, `None`, `list[...]`, `dict[str, ...]`, unions of them
  and nested models of the same kind (not recursive);
- no constraints, aliases, excluded or computed fields, validators, serializers, custom
  `__init__` or `model_post_init`, extra fields or non-default JSON settings; the only
  `Annotated` metadata plain functions (field reducers, which pydantic ignores).

Any doubt means no bound: `plain_depth` returns None and the route check parses what could break
the rules. (Skipping the decode instead, on the strength of the serializer's own type checks,
was measured slower: pydantic-core's `warnings="error"` costs more than the decode it saves.)
"""

from __future__ import annotations

import functools
import types
import typing
from typing import Any

from pydantic import BaseModel

__all__ = ["plain_depth"]

_SCALARS = (int, float, str, bool, type(None))
# model_config keys that change what is written or what is accepted back.
_CONFIG_KEYS = (
    "alias_generator",
    "coerce_numbers_to_str",
    "serialize_by_alias",
    "strict",
    "use_enum_values",
    "validate_by_alias",
    "validate_by_name",
    "populate_by_name",
)
_REDUCER_TYPES = (types.FunctionType, types.BuiltinFunctionType)


@functools.cache
def plain_depth(tp: Any) -> int | None:
    """How deep the JSON of a value of `tp` that decodes can nest (an object is 1), or None when
    `tp` is not built only of the parts the module docstring lists."""
    if not (isinstance(tp, type) and issubclass(tp, BaseModel)):
        return None
    return _plain_model(tp, frozenset())


def _plain_model(tp: type[BaseModel], seen: frozenset[type]) -> int | None:
    if tp in seen:
        return None  # recursive: its JSON may nest deeper than the decoder follows
    cfg = tp.model_config
    if cfg.get("extra") == "allow" or cfg.get("ser_json_inf_nan", "null") != "null":
        return None
    if any(cfg.get(k) for k in _CONFIG_KEYS):
        return None
    deco = tp.__pydantic_decorators__
    hooks = (
        deco.validators,
        deco.field_validators,
        deco.root_validators,
        deco.field_serializers,
        deco.model_serializers,
        deco.model_validators,
        deco.computed_fields,
    )
    if any(hooks) or tp.__pydantic_custom_init__ or tp.__pydantic_post_init__ is not None:
        return None
    if tp.__pydantic_root_model__:
        return None
    seen = seen | {tp}
    deepest = 0
    for f in tp.model_fields.values():
        if f.alias or f.validation_alias or f.serialization_alias or f.exclude or f.discriminator:
            return None
        if any(not isinstance(m, _REDUCER_TYPES) for m in f.metadata):
            return None
        depth = _plain_type(f.annotation, seen)
        if depth is None:
            return None
        deepest = max(deepest, depth)
    return 1 + deepest


def _plain_type(tp: Any, seen: frozenset[type]) -> int | None:
    """The nesting depth of `tp`'s JSON (a scalar is 0), or None when it is not plain."""
    if tp in _SCALARS:
        return 0
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        return _plain_model(tp, seen)
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    inner: list[int | None]
    if origin is list and len(args) == 1:
        inner = [_plain_type(args[0], seen)]
    elif origin is dict and len(args) == 2 and args[0] is str:
        inner = [_plain_type(args[1], seen)]
    elif origin is typing.Union or origin is types.UnionType:
        depths = [_plain_type(a, seen) for a in args]
        return None if None in depths else max(d for d in depths if d is not None)
    else:
        return None
    return None if inner[0] is None else 1 + inner[0]
