"""Values that JSON would give back as another type, in the fields whose type does not say.

A field typed `Any` (or `object`, a bare `list`/`dict`, an abstract `Sequence`, an ambiguous
union) is validated back from JSON as whatever JSON holds: a tuple comes back as a list, an int
key as a str, an Enum as its value, a datetime, Decimal, UUID or Path as a str, a set as a list,
a model or dataclass as a dict, a `str` or `dict` subclass as the base type. The engine decodes
every delta from the bytes it writes, so a run would go on with the changed value, silently.

The rule, per kind of value, chosen so that the state type stays the one schema of what a run
holds: in a field whose type does not fix it, only a value that reads back as itself (same type,
equal) is committed; anything else is refused at the step with `EncodeError` naming the path and
what it would become, and the message says which type to declare (`tuple[int, ...]`,
`dict[int, str]`, the Enum, `datetime`, `Decimal`, `UUID`, the model...). Declared, each of them
is stored and validated back exactly. A typed encoding of `Any` values (tags in the stored JSON)
was not chosen: it would make the stored JSON another format than the state type's, for every
reader of the store (the inspector, migrations over JSON, other languages).

Fields whose type fixes the value (`int`, `list[str]`, `dict[int, Model]`, an Enum, `datetime`,
a nested model of such fields, ...) are not compared: pydantic validates the value back into
that type. Which fields need the comparison is worked out once per state type (`plan_for`), so
a state with none costs the step loop one `is None` test.
"""

from __future__ import annotations

import dataclasses
import datetime
import decimal
import enum
import functools
import pathlib
import types
import typing
import uuid
from collections.abc import Mapping
from typing import Any

import typing_extensions
from pydantic import BaseModel

__all__ = ["ReadBackPlan", "changed", "changed_by_plan", "plan_for"]

_SCALARS: frozenset[Any] = frozenset({int, float, str, bool, type(None), bytes})
_FIXED: frozenset[Any] = frozenset(
    {
        datetime.datetime,
        datetime.date,
        datetime.time,
        datetime.timedelta,
        decimal.Decimal,
        uuid.UUID,
        pathlib.Path,
        pathlib.PurePath,
    }
)
_SEQUENCES: frozenset[Any] = frozenset({list, set, frozenset})
_JSON_SCALARS: frozenset[Any] = frozenset({int, float, str, bool, type(None)})
_REDUCER_TYPES = (types.FunctionType, types.BuiltinFunctionType, functools.partial)
_DEPTH = 300


@dataclasses.dataclass(frozen=True, slots=True)
class ReadBackPlan:
    """What of a state type's values must be compared with their read-back copy."""

    fields: tuple[str, ...]
    """Fields (keys of a TypedDict) whose type does not fix what JSON gives back."""
    extras: bool = False
    """A model with `extra="allow"`: its extra fields are `Any`."""
    whole: bool = False
    """The state type itself does not fix it (say `dict[str, Any]`): compare whole values."""


def plan_for(tp: Any) -> ReadBackPlan | None:
    """The comparisons a value of state type `tp` needs after its round trip, or None for none
    (also for `tp` None: a codec that names no type)."""
    if tp is None:
        return None
    try:
        return _plan_cached(tp)
    except TypeError:  # an unhashable type object
        return _plan(tp)


@functools.cache
def _plan_cached(tp: Any) -> ReadBackPlan | None:
    return _plan(tp)


def _plan(tp: Any) -> ReadBackPlan | None:
    try:
        if isinstance(tp, type) and issubclass(tp, BaseModel):
            loose = tuple(n for n, f in tp.model_fields.items() if not _fixed(_annotated(f), set()))
            extras = tp.model_config.get("extra") == "allow"
            return ReadBackPlan(loose, extras) if loose or extras else None
        if typing_extensions.is_typeddict(tp) or dataclasses.is_dataclass(tp):
            hints = typing.get_type_hints(tp, include_extras=True)
            loose = tuple(n for n, h in hints.items() if not _fixed(h, set()))
            return ReadBackPlan(loose) if loose else None
        return None if _fixed(tp, set()) else ReadBackPlan((), whole=True)
    except Exception:  # a type we cannot read (unresolved forward refs): compare everything
        return ReadBackPlan((), whole=True)


def _annotated(f: Any) -> Any:
    if any(not isinstance(m, _REDUCER_TYPES) for m in f.metadata):
        return Any  # validators, serializers, constraints: their read-back is not ours to predict
    return f.annotation


def _fixed(tp: Any, seen: set[int]) -> bool:
    """Whether pydantic validates any JSON of a value of `tp` back into the value's own type."""
    if tp in _SCALARS or tp in _FIXED:
        return True
    if isinstance(tp, type):
        if issubclass(tp, enum.Enum):
            return True
        if issubclass(tp, BaseModel) or typing_extensions.is_typeddict(tp) or dataclasses.is_dataclass(tp):
            return _fixed_record(tp, seen)
        return False  # a bare list/dict/tuple, object, any other class
    origin = typing.get_origin(tp)
    args = typing.get_args(tp)
    if origin is typing.Annotated:
        return all(isinstance(m, _REDUCER_TYPES) for m in tp.__metadata__) and _fixed(args[0], seen)
    if origin in (typing_extensions.Required, typing_extensions.NotRequired, typing.ClassVar):
        return _fixed(args[0], seen)
    if origin is typing.Literal:
        return all(type(a) in _JSON_SCALARS for a in args)
    if origin in _SEQUENCES:
        return len(args) == 1 and _fixed(args[0], seen)
    if origin is tuple:
        return bool(args) and all(a is Ellipsis or _fixed(a, seen) for a in args)
    if origin is dict:
        return len(args) == 2 and _fixed(args[0], seen) and _fixed(args[1], seen)
    if origin is typing.Union or origin is types.UnionType:
        # `X | None`, or scalars JSON tells apart; any other union may validate into another member.
        members = [a for a in args if a is not type(None)]
        if len(members) == 1:
            return _fixed(members[0], seen)
        return all(a in _JSON_SCALARS for a in members)
    return False


def _fixed_record(tp: Any, seen: set[int]) -> bool:
    if id(tp) in seen:
        return True  # recursive: fixed if the rest of it is
    seen.add(id(tp))
    if isinstance(tp, type) and issubclass(tp, BaseModel):
        if tp.model_config.get("extra") == "allow":
            return False
        return all(_fixed(_annotated(f), seen) for f in tp.model_fields.values())
    hints = typing.get_type_hints(tp, include_extras=True)
    return all(_fixed(h, seen) for h in hints.values())


def _kind(v: Any) -> str:
    t = type(v)
    if isinstance(v, enum.Enum):
        return f"an Enum ({t.__qualname__})"
    name = t.__qualname__ if t.__module__ == "builtins" else f"{t.__module__}.{t.__qualname__}"
    return f"{'an' if name[0] in 'aeio' else 'a'} {name}"


def _advice(sent: Any) -> str:
    if isinstance(sent, enum.Enum):
        return f"declare the field as {type(sent).__name__}, or store its value"
    if isinstance(sent, tuple):
        return "declare the field as tuple[...], or store a list"
    if isinstance(sent, (set, frozenset)):
        return "declare the field as set[...], or store a list"
    if isinstance(sent, BaseModel) or dataclasses.is_dataclass(sent):
        return f"declare the field as {type(sent).__name__}, or store a dict"
    if isinstance(sent, Mapping):
        return "store a plain dict"
    return f"declare the field as {type(sent).__name__}, or store a JSON value (None, bool, int, float, str, list, dict)"


def changed(sent: Any, back: Any, path: str, depth: int = 0) -> str | None:
    """Where `back` (decoded from the JSON of `sent`) is not `sent` again, as "path: why", or None.

    Types must be the same at every level (a tuple that came back a list differs, so does an
    IntEnum that came back an int), values equal; dict keys in the same order.
    """
    ts = type(sent)
    if ts is not type(back):
        return f"{path or 'the value'}: {_kind(sent)} would read back as {_kind(back)} ({_advice(sent)})"
    if ts is str or ts is int or ts is float or ts is bool or sent is None:
        return (
            None if sent == back else f"{path or 'the value'}: {sent!r:.60} would read back as {back!r:.60}"
        )
    if depth > _DEPTH:
        return None
    if ts is list or ts is tuple:
        if len(sent) != len(back):
            return f"{path}: {len(sent)} items would read back as {len(back)}"
        for i, (a, b) in enumerate(zip(sent, back, strict=True)):
            found = changed(a, b, f"{path}[{i}]", depth + 1)
            if found is not None:
                return found
        return None
    if ts is dict:
        if len(sent) != len(back):
            return f"{path}: {len(sent)} keys would read back as {len(back)} (keys that JSON makes equal)"
        for (ka, a), (kb, b) in zip(sent.items(), back.items(), strict=True):
            if type(ka) is not type(kb) or ka != kb:
                why = f"{_kind(ka)} key would read back as {_kind(kb)}"
                return (
                    f"{path}[key {ka!r:.40}]: {why} (declare the key type, dict[int, ...], or use str keys)"
                )
            found = changed(a, b, f"{path}.{ka}" if path else str(ka), depth + 1)
            if found is not None:
                return found
        return None
    if isinstance(sent, BaseModel):
        items = list(sent.__dict__.items())
        if sent.__pydantic_extra__:
            items += list(sent.__pydantic_extra__.items())
        for k, a in items:
            found = changed(a, getattr(back, k, None), f"{path}.{k}" if path else k, depth + 1)
            if found is not None:
                return found
        return None
    if dataclasses.is_dataclass(sent):
        for f in dataclasses.fields(sent):
            found = changed(getattr(sent, f.name), getattr(back, f.name, None), f"{path}.{f.name}", depth + 1)
            if found is not None:
                return found
        return None
    try:
        same = bool(sent == back)
    except Exception:
        same = False
    return None if same else f"{path or 'the value'}: {sent!r:.60} would read back as {back!r:.60}"


_ATOMS: frozenset[Any] = frozenset({str, int, float, bool, type(None)})


def _same(a: Any, b: Any, depth: int) -> bool:
    """`changed(a, b, ...) is None`, without building paths: the check every step runs (a message
    is built by `changed` only once this says no). Items' types are compared in C (`map(type, ...)`)
    first, so a list or dict of plain values costs no Python call per item."""
    t = type(a)
    if t is not type(b):
        return False
    if t in _ATOMS:
        return bool(a == b)
    if depth > _DEPTH:
        return True
    if t is list or t is tuple:
        kinds = list(map(type, a))
        if kinds != list(map(type, b)):
            return False
        if _ATOMS.issuperset(kinds):
            return bool(a == b)
        return all(_same(x, y, depth + 1) for x, y in zip(a, b, strict=True))
    if t is dict:
        if list(map(type, a)) != list(map(type, b)) or list(a) != list(b):
            return False  # keys: same types, same order
        va, vb = list(a.values()), list(b.values())
        kinds = list(map(type, va))
        if kinds != list(map(type, vb)):
            return False
        if _ATOMS.issuperset(kinds):
            return va == vb
        return all(_same(x, y, depth + 1) for x, y in zip(va, vb, strict=True))
    return changed(a, b, "", depth) is None


def changed_by_plan(plan: ReadBackPlan, sent: Any, back: Any, full: bool = False) -> str | None:
    """`changed` over what `plan` says may change: its fields that `sent` holds, its extras, or all of it.

    `sent` is a model, dataclass or mapping (a TypedDict delta, an `update_state` mapping); `back`
    the decoded value (a mapping, or an object whose attributes are the fields). A model delta is
    compared on the fields it set; a whole state (`full`) on all of them (a default counts too).
    """
    if plan.whole:
        return None if _same(sent, back, 0) else changed(sent, back, "")
    fields_set = getattr(sent, "__pydantic_fields_set__", None)  # a model: the fields it set
    if fields_set is not None and type(back) is type(sent):
        for name in plan.fields:
            if full or name in fields_set:
                a, b = getattr(sent, name), getattr(back, name)
                if not _same(a, b, 0):
                    return changed(a, b, name)
        return _extras_changed(plan, sent, back)
    back_map = type(back) is dict or isinstance(back, Mapping)
    if type(sent) is dict or isinstance(sent, Mapping):
        for name in plan.fields:
            if name in sent:
                a = sent[name]
                b = back[name] if back_map else getattr(back, name)
                if not _same(a, b, 0):
                    return changed(a, b, name)
    else:
        for name in plan.fields:
            if fields_set is not None and not full and name not in fields_set:
                continue
            a = getattr(sent, name)
            b = back[name] if back_map else getattr(back, name)
            if not _same(a, b, 0):
                return changed(a, b, name)
    return _extras_changed(plan, sent, back)


def _extras_changed(plan: ReadBackPlan, sent: Any, back: Any) -> str | None:
    """`changed` over the extra fields of a model with `extra="allow"` (they are `Any`)."""
    if plan.extras and isinstance(sent, BaseModel) and sent.__pydantic_extra__:
        extra = back.__pydantic_extra__ or {}
        for k, a in sent.__pydantic_extra__.items():
            found = changed(a, extra.get(k), k)
            if found is not None:
                return found
    return None
