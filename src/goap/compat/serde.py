"""Checkpoint serializers for LangGOAP's values on LangGraph's msgpack serializer (never pickle)."""

from __future__ import annotations

import dataclasses
import importlib
from collections.abc import Callable
from types import MappingProxyType
from typing import Any

import ormsgpack
from langgraph.checkpoint.base import BaseCheckpointSaver
from langgraph.checkpoint.serde import jsonplus as _lg

__all__ = ["LANGGOAP_ALLOWED_MSGPACK_TYPES", "LangGOAPSerializer", "install_langgoap_serde"]

_CLASSES = """builtins:tuple,set,frozenset actions:ActionSpec goals:ConstraintSpec,GoalPolicy,GoalSpec,MultiGoal,SoftGoal
graph.state:ActionResult guards:GuardResult history:ExecutionRecord planner.csp:CSPMetadata,ResourceUsage,ScheduleEntry
planner.explain:InfeasibilityExplanation,NoPlanExplanation,ResourceShortfall planner.repair:RepairResult
planner.types:Plan,PlanMetadata reflexion:Reflection score:BendableScore,HardSoftScore,Score,SimpleScore
state:PlanningState types:ObjectiveDirection,ReplanStrategy"""
_OWN = tuple(
    (mod if mod == "builtins" else f"goap.compat.{mod}", name)
    for mod, names in (part.split(":") for part in _CLASSES.split())
    for name in names.split(",")
)
LANGGOAP_ALLOWED_MSGPACK_TYPES: tuple[type, ...]  # imported on first use (module __getattr__)
_OPTIONS = _lg._option | ormsgpack.OPT_PASSTHROUGH_TUPLE
_MARK = "__goap_class__"
_UNSET: Any = object()


def __getattr__(name: str) -> Any:
    if name == "LANGGOAP_ALLOWED_MSGPACK_TYPES":
        return tuple(getattr(importlib.import_module(m), n) for m, n in _OWN)
    if name == "LangGOAPRedisSerializer":
        return _get_langgoap_redis_serializer_cls()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _ext(code: int, kind: type, arg: Any, name: str | None = None) -> ormsgpack.Ext:
    # a list envelope: a tuple would be tagged again under OPT_PASSTHROUGH_TUPLE
    doc = [kind.__module__, name or kind.__name__, arg]
    return ormsgpack.Ext(code, ormsgpack.packb(doc, default=_default, option=_OPTIONS))


def _default(obj: Any) -> Any:
    if isinstance(obj, MappingProxyType):
        return dict(obj)
    if isinstance(obj, type):
        return _ext(_lg.EXT_CONSTRUCTOR_KW_ARGS, obj, {_MARK: True}, obj.__qualname__)
    if isinstance(obj, tuple | set | frozenset):
        return _ext(_lg.EXT_CONSTRUCTOR_SINGLE_ARG, type(obj), list(obj))
    if dataclasses.is_dataclass(obj):
        values = {f.name: getattr(obj, f.name) for f in dataclasses.fields(obj)}
        kept = {
            k: None if callable(v) and not isinstance(v, type | MappingProxyType) else v
            for k, v in values.items()
        }
        return _ext(_lg.EXT_CONSTRUCTOR_KW_ARGS, type(obj), kept)
    return _lg._msgpack_default(obj)


def _encode(obj: Any) -> bytes:
    return ormsgpack.packb(obj, default=_default, option=_OPTIONS)


class _GoapMsgpack:
    """Both serializers' setup: LangGOAP's classes allowed, no pickle, classes decoded when allowed."""

    _allowed_msgpack_modules: Any
    _unpack_ext_hook: Callable[[int, bytes], Any]

    def __init__(self, **options: Any) -> None:
        user = options.get("allowed_msgpack_modules", _UNSET)
        if user is not True:  # True: LangGraph's allow-all, kept
            options["allowed_msgpack_modules"] = (*_OWN, *(() if user is None or user is _UNSET else user))
        super().__init__(**{**options, "pickle_fallback": False})
        stock = self._unpack_ext_hook

        def hook(code: int, data: bytes) -> Any:
            if code == _lg.EXT_CONSTRUCTOR_KW_ARGS and _MARK.encode() in data:
                doc = ormsgpack.unpackb(data, ext_hook=lambda *_: None, option=ormsgpack.OPT_NON_STR_KEYS)
                if isinstance(doc, list) and len(doc) == 3 and doc[2] == {_MARK: True}:
                    return self._class(doc[0], doc[1])
            return stock(code, data)

        self._unpack_ext_hook = hook

    def _class(self, module: str, qualname: str) -> Any:
        allowed = self._allowed_msgpack_modules
        if allowed is not True and (module, qualname) not in (allowed or ()):
            return None
        obj: Any = importlib.import_module(module)
        for part in qualname.split("."):
            obj = getattr(obj, part)
        return obj


class LangGOAPSerializer(_GoapMsgpack, _lg.JsonPlusSerializer):
    """LangGraph's serializer with LangGOAP's msgpack encoding and class allowlist."""

    def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
        """``(type, bytes)`` of ``obj``: null, bytes, bytearray or msgpack."""
        if isinstance(obj, bytes | bytearray):
            return type(obj).__name__, bytes(obj)
        return ("null", b"") if obj is None else ("msgpack", _encode(obj))


def _json_native(obj: Any) -> bool:
    if isinstance(obj, dict):
        return all(isinstance(k, str) and _json_native(v) for k, v in obj.items())
    if isinstance(obj, list):
        return all(_json_native(v) for v in obj)
    return obj is None or isinstance(obj, str | int | float | bool)


_redis_cls: list[type] = []


def _get_langgoap_redis_serializer_cls() -> type:
    """The Redis variant: plain JSON values as JSON, the rest as LangGOAP's msgpack (built on first use)."""
    if not _redis_cls:
        from langgraph.checkpoint.redis.jsonplus_redis import JsonPlusRedisSerializer

        class LangGOAPRedisSerializer(_GoapMsgpack, JsonPlusRedisSerializer):
            """Redis's serializer; values JSON cannot carry faithfully go as LangGOAP's msgpack."""

            def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
                """JSON for plain JSON values, else msgpack."""
                if isinstance(obj, bytes | bytearray) or _json_native(obj):
                    return super().dumps_typed(obj)
                return "msgpack", _encode(obj)

        _redis_cls.append(LangGOAPRedisSerializer)
    return _redis_cls[0]


def install_langgoap_serde(
    checkpointer: BaseCheckpointSaver[Any], *, extra_allowed_types: tuple[type, ...] = ()
) -> BaseCheckpointSaver[Any]:
    """Give ``checkpointer`` a LangGOAP serializer (kept if it has one), keeping its allowlists."""
    current = getattr(checkpointer, "serde", None)
    if isinstance(current, _GoapMsgpack):
        return checkpointer
    options: dict[str, Any] = {"allowed_json_modules": getattr(current, "_allowed_json_modules", None)}
    allowed = getattr(current, "_allowed_msgpack_modules", None)
    allowed = (*(allowed if allowed not in (None, True) else ()), *extra_allowed_types)
    if allowed:  # LangGraph's default allow-all (True) is not a user's choice: LangGOAP's list replaces it
        options["allowed_msgpack_modules"] = allowed
    redis = any(c.__name__ == "JsonPlusRedisSerializer" for c in type(current).__mro__)
    cls = _get_langgoap_redis_serializer_cls() if redis else LangGOAPSerializer
    checkpointer.serde = cls(**options)
    return checkpointer
