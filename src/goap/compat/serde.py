"""Checkpoint serializers for LangGOAP's values, on LangGraph's msgpack serializer (no pickle).

LangGraph's msgpack encoding loses what LangGOAP's frozen values rely on: tuples come back as
lists (so a ``frozenset`` of pairs cannot be rebuilt), read-only mappings and dataclasses holding
them are refused. The encoder here tags tuples, sets and dataclasses (callable fields dropped to
None) with the constructor extensions LangGraph's decoder already understands, and a default
allowlist admits LangGOAP's own classes.
"""

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

_HOME = "goap.compat"
_OWN_CLASSES: tuple[tuple[str, str], ...] = tuple(
    (f"{_HOME}.{mod}" if mod else "builtins", name)
    for mod, names in {
        "": "tuple set frozenset",
        "actions": "ActionSpec",
        "goals": "ConstraintSpec GoalPolicy GoalSpec MultiGoal SoftGoal",
        "graph.state": "ActionResult",
        "guards": "GuardResult",
        "history": "ExecutionRecord",
        "planner.csp": "CSPMetadata ResourceUsage ScheduleEntry",
        "planner.explain": "InfeasibilityExplanation NoPlanExplanation ResourceShortfall",
        "planner.repair": "RepairResult",
        "planner.types": "Plan PlanMetadata",
        "reflexion": "Reflection",
        "score": "BendableScore HardSoftScore Score SimpleScore",
        "state": "PlanningState",
        "types": "ObjectiveDirection ReplanStrategy",
    }.items()
    for name in names.split()
)
"""(module, class) of every value LangGOAP checkpoints."""

LANGGOAP_ALLOWED_MSGPACK_TYPES: tuple[type, ...]  # imported on first use, see __getattr__
_UNSET: Any = object()
_OPTIONS = _lg._option | ormsgpack.OPT_PASSTHROUGH_TUPLE
_CLASS_MARK = "__goap_class__"


def __getattr__(name: str) -> Any:
    if name == "LANGGOAP_ALLOWED_MSGPACK_TYPES":  # the classes, imported on first use
        return tuple(getattr(importlib.import_module(m), n) for m, n in _OWN_CLASSES)
    if name == "LangGOAPRedisSerializer":
        return _get_langgoap_redis_serializer_cls()
    raise AttributeError(f"module {__name__!r} has no attribute {name!r}")


def _ext(code: int, module: str, name: str, arg: Any) -> ormsgpack.Ext:
    # a list envelope: a tuple would be tagged again by OPT_PASSTHROUGH_TUPLE
    return ormsgpack.Ext(code, ormsgpack.packb([module, name, arg], default=_default, option=_OPTIONS))


def _default(obj: Any) -> Any:
    if isinstance(obj, MappingProxyType):
        return dict(obj)
    if isinstance(obj, type):
        return _ext(_lg.EXT_CONSTRUCTOR_KW_ARGS, obj.__module__, obj.__qualname__, {_CLASS_MARK: True})
    if isinstance(obj, tuple | set | frozenset):
        kind = type(obj)
        return _ext(_lg.EXT_CONSTRUCTOR_SINGLE_ARG, kind.__module__, kind.__name__, list(obj))
    if dataclasses.is_dataclass(obj):
        kwargs = {}
        for f in dataclasses.fields(obj):
            value = getattr(obj, f.name)
            kwargs[f.name] = (
                None if callable(value) and not isinstance(value, type | MappingProxyType) else value
            )
        return _ext(_lg.EXT_CONSTRUCTOR_KW_ARGS, type(obj).__module__, type(obj).__name__, kwargs)
    return _lg._msgpack_default(obj)


def _encode(obj: Any) -> bytes:
    return ormsgpack.packb(obj, default=_default, option=_OPTIONS)


def _with_own_classes(allowed: Any) -> Any:
    """LangGOAP's classes added to a user allowlist (``True``, allow-all, stays as it is)."""
    if allowed is True:
        return True
    extra = () if allowed is None or allowed is _UNSET else tuple(allowed)
    return (*_OWN_CLASSES, *extra)


class _GoapMsgpack:
    """Shared by both serializers: the merged allowlist, no pickle, classes decoded when allowed."""

    _allowed_msgpack_modules: Any
    _unpack_ext_hook: Callable[[int, bytes], Any]

    def __init__(self, **options: Any) -> None:
        options["allowed_msgpack_modules"] = _with_own_classes(options.get("allowed_msgpack_modules", _UNSET))
        options["pickle_fallback"] = False  # never pickle
        super().__init__(**options)
        stock = self._unpack_ext_hook

        def hook(code: int, data: bytes) -> Any:
            if code == _lg.EXT_CONSTRUCTOR_KW_ARGS and _CLASS_MARK.encode() in data:
                doc = ormsgpack.unpackb(data, ext_hook=lambda *_: None, option=ormsgpack.OPT_NON_STR_KEYS)
                if isinstance(doc, list) and len(doc) == 3 and doc[2] == {_CLASS_MARK: True}:
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
        if obj is None:
            return "null", b""
        if isinstance(obj, bytes | bytearray):
            return type(obj).__name__, bytes(obj)
        return "msgpack", _encode(obj)


def _json_native(obj: Any) -> bool:
    if isinstance(obj, dict):
        return all(isinstance(k, str) and _json_native(v) for k, v in obj.items())
    if isinstance(obj, list):
        return all(_json_native(v) for v in obj)
    return obj is None or isinstance(obj, str | int | float | bool)


_redis_cls: type | None = None


def _get_langgoap_redis_serializer_cls() -> type:
    """The Redis variant (JSON for plain JSON values, else LangGOAP's msgpack), built on first use."""
    global _redis_cls
    if _redis_cls is None:
        from langgraph.checkpoint.redis.jsonplus_redis import JsonPlusRedisSerializer

        class LangGOAPRedisSerializer(_GoapMsgpack, JsonPlusRedisSerializer):
            """Redis's serializer; values JSON cannot carry faithfully go as LangGOAP's msgpack."""

            def dumps_typed(self, obj: Any) -> tuple[str, bytes]:
                """JSON when ``obj`` is plain JSON, else msgpack."""
                if obj is None or isinstance(obj, bytes | bytearray) or _json_native(obj):
                    return super().dumps_typed(obj)
                return "msgpack", _encode(obj)

        _redis_cls = LangGOAPRedisSerializer
    return _redis_cls


def _is_redis(serde: Any) -> bool:
    try:
        from langgraph.checkpoint.redis.jsonplus_redis import JsonPlusRedisSerializer
    except ImportError:
        return False
    return isinstance(serde, JsonPlusRedisSerializer)


def install_langgoap_serde(
    checkpointer: BaseCheckpointSaver[Any], *, extra_allowed_types: tuple[type, ...] = ()
) -> BaseCheckpointSaver[Any]:
    """Give ``checkpointer`` a LangGOAP serializer (kept if it has one), keeping its allowlists."""
    current = getattr(checkpointer, "serde", None)
    if isinstance(current, _GoapMsgpack):
        return checkpointer
    options: dict[str, Any] = {}
    allowed: Any = getattr(current, "_allowed_msgpack_modules", None)
    if getattr(current, "_allowed_json_modules", None) is not None:
        options["allowed_json_modules"] = current._allowed_json_modules  # type: ignore[union-attr]
    if allowed is True:  # LangGraph's default allow-all: not a user choice
        allowed = None
    if extra_allowed_types:
        allowed = (*(allowed or ()), *extra_allowed_types)
    if allowed is not None:
        options["allowed_msgpack_modules"] = allowed
    cls = _get_langgoap_redis_serializer_cls() if _is_redis(current) else LangGOAPSerializer
    checkpointer.serde = cls(**options)
    return checkpointer
