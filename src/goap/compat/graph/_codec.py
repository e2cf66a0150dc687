"""How the LangGOAP-style GOAP state is stored by the engine: tagged JSON, no pickle, no imports.

:class:`~goap.compat.graph.state.GoapState` holds frozen dataclasses (goals, plans, planning
states, scores, CSP metadata), read-only mappings, tuples, frozensets, enums and
:class:`~goap.compat.actions.ActionSpec` objects whose ``execute`` is code. pydantic cannot
describe these, so the engine running a compat graph stores its state with
:class:`CompatStateCodec`:

- JSON values (``None``, booleans, ints, finite floats, strings, lists, dicts with string keys)
  are themselves;
- everything else is an object ``{"$ge": tag, ...}``: ``tuple``, ``frozenset``, ``set``,
  ``proxy`` (``MappingProxyType``), ``dict`` (non-string keys, or a key spelled ``"$ge"``),
  ``float`` (NaN and infinities), ``timedelta``, ``enum`` and ``dc`` (a dataclass, by class
  name, among the compat classes listed here and nothing else), ``model`` (a pydantic form
  class an action asks approval with) and ``action`` (an action by name, read back as the
  graph's own ``ActionSpec``, so plans keep their callables across a resume in another
  process).

A value of any other type (a callable goal value, an object of the application's), a value
nested deeper than :data:`MAX_DEPTH` containers, a key a ``GoapState`` does not have, or a
top-level value of the wrong kind (``world_state`` not a dict, ``goal`` not a goal) raises
``TypeError`` naming where it is in the state, before anything is written: the engine reports
it as a `StateValidationError` for a run's input, a `NodeError` for a step's update.
Decoding never imports: class names are looked up in the fixed table, and an unknown name or
action raises ``ValueError``.
"""

from __future__ import annotations

import dataclasses
import enum
import functools
import json
import math
from collections import Counter
from collections.abc import Callable, Iterable, Mapping
from datetime import timedelta
from types import MappingProxyType
from typing import Any

from pydantic import BaseModel

from goap.compat.actions import ActionSpec

__all__ = ["MAX_DEPTH", "CompatStateCodec"]

_TAG = "$ge"

MAX_DEPTH = 100
"""How many containers deep a stored value may nest. Deeper values are refused with their path:
JSON encoders and decoders recurse per level, and a value near Python's recursion limit would
be written and then fail to read back (or fail with a bare ``RecursionError``)."""


@functools.cache
def _classes() -> tuple[dict[str, type], dict[str, type[enum.Enum]]]:
    """The dataclasses and enums a compat state may hold, by name (imported on first use)."""
    from goap.compat import goals, score
    from goap.compat.graph.state import ActionResult
    from goap.compat.planner import csp, explain, types
    from goap.compat.state import PlanningState
    from goap.compat.types import ObjectiveDirection, ReplanStrategy

    dcs: list[type] = [
        goals.GoalSpec,
        goals.GoalPolicy,
        goals.ConstraintSpec,
        goals.SoftGoal,
        goals.MultiGoal,
        types.Plan,
        types.PlanMetadata,
        csp.CSPMetadata,
        csp.ResourceUsage,
        csp.ScheduleEntry,
        explain.InfeasibilityExplanation,
        score.SimpleScore,
        score.HardSoftScore,
        score.BendableScore,
        PlanningState,
        ActionResult,
    ]
    dcs += [getattr(explain, n) for n in ("ResourceShortfall",) if hasattr(explain, n)]
    enums: list[type[enum.Enum]] = [ReplanStrategy, ObjectiveDirection, csp.CSPStatus]
    return {c.__name__: c for c in dcs}, {e.__name__: e for e in enums}


class _Unstorable(Exception):
    """A value of a type the codec cannot store; ``path`` is filled in on the way out."""

    def __init__(self, t: type, what: str = "") -> None:
        super().__init__(t.__qualname__)
        self.what = what or f"has type {t.__qualname__}"
        self.path: list[str] = []


class _TooDeep(_Unstorable):
    """A value nested deeper than `MAX_DEPTH` containers."""

    def __init__(self) -> None:
        super().__init__(dict)
        self.what = f"nests deeper than {MAX_DEPTH} containers"


@functools.cache
def _top_level() -> dict[str, tuple[type, ...]]:
    """What each ``GoapState`` key may hold at the top (``None`` for the optional ones)."""
    from goap.compat.goals import GoalSpec, MultiGoal
    from goap.compat.graph.state import GoapState
    from goap.compat.planner.types import Plan

    none = type(None)
    kinds: dict[str, tuple[type, ...]] = {
        "world_state": (Mapping,),
        "goal": (GoalSpec, MultiGoal),
        "plan": (Plan, none),
        "current_step": (int,),
        "execution_history": (list, tuple),
        "replan_count": (int,),
        "replan_reason": (str, none),
        "status": (str,),
        "blacklisted_actions": (list, tuple, set, frozenset),
        "action_failure_counts": (Mapping,),
        "current_subgoal_index": (int,),
        "no_plan_explanation": (Mapping, none),
        "reflection_context": (list, tuple),
        "wall_clock_started_at": (int, float, none),
    }
    # A key added to GoapState and not listed here is still storable (any value the codec takes).
    return {k: kinds.get(k, (object,)) for k in GoapState.__annotations__}


def _short(path: str) -> str:
    """A path for a message: a value 100 levels deep has a long one."""
    return path if len(path) <= 120 else path[:100] + "…" + path[-19:]


@functools.cache
def _field_names(cls: type) -> tuple[str, ...]:
    return tuple(f.name for f in dataclasses.fields(cls))


class CompatStateCodec:
    """The engine's codec for the compat GOAP state (see the module docstring).

    ``actions`` are the graph's actions (plans are stored by action name and read back as
    these); ``forms`` are pydantic classes the state may hold (an action's approval form).
    """

    keeps_non_finite = True
    """NaN and infinity are tagged, never written as JSON null: the engine need not look for them."""

    def __init__(self, actions: Iterable[ActionSpec], forms: Iterable[type[BaseModel]] = ()) -> None:
        acts = list(actions)
        self.actions: dict[str, ActionSpec] = {a.name: a for a in acts}
        """The graph's actions by name."""
        self.shared_names: frozenset[str] = frozenset(
            n for n, k in Counter(a.name for a in acts).items() if k > 1
        )
        """Names two or more of the graph's actions have: a plan holding one of them cannot be
        stored by name (it would read back as another action), so encoding it raises."""
        self.forms: dict[str, type[BaseModel]] = {f.__name__: f for f in forms}
        """Pydantic classes the state may hold, by name."""

    # -------------------------------------------------------------- Codec protocol

    def encode(self, value: Any) -> bytes:
        """The state (or a delta: the same) as tagged JSON."""
        out = self.to_json(value)
        return json.dumps(out, ensure_ascii=False, separators=(",", ":"), allow_nan=False).encode()

    encode_delta = encode

    def decode(self, data: bytes) -> Any:
        """The state stored by :meth:`encode`; ``ValueError`` for data it did not write."""
        try:
            raw = json.loads(data)
        except RecursionError:
            raise ValueError("a stored GOAP state nests too deep to read") from None
        return self.from_json(raw)

    decode_delta = decode

    def to_json(self, value: Any) -> dict[str, Any]:
        """A state or delta (a dict) as its tagged JSON value (a dict of JSON values)."""
        if not isinstance(value, Mapping):
            raise TypeError(f"a GOAP state is a dict, got {type(value).__name__}")
        out: dict[str, Any] = {}
        kinds = _top_level()
        for k, v in value.items():
            kind = kinds.get(k) if type(k) is str else None
            if kind is None:
                raise TypeError(f"{k!r} is not a GoapState key (its keys: {', '.join(kinds)})")
            if not isinstance(v, kind) or (type(v) is bool and kind[0] is int):
                want = " or ".join("None" if t is type(None) else t.__name__ for t in kind)
                raise TypeError(f"state value at {k!r} is a {type(v).__name__}, expected {want}")
            try:
                out[k] = self._enc(v, 0)
            except _Unstorable as exc:
                where = _short(k + "".join(exc.path))
                raise TypeError(
                    f"state value at {where!r} {exc.what}, which a compat GOAP run cannot store"
                ) from None
        return out

    def check(self, value: Any, where: str) -> None:
        """Raise ``TypeError`` naming the place under ``where`` of anything in ``value`` the codec
        cannot store (for values a run will store later: an action's effects and preconditions)."""
        try:
            self._enc(value, 0)
        except _Unstorable as exc:
            raise TypeError(
                f"{_short(where + ''.join(exc.path))} {exc.what}, which a compat GOAP run cannot store"
            ) from None

    def from_json(self, raw: Any) -> dict[str, Any]:
        """The state or delta :meth:`to_json` gave ``raw`` for; ``ValueError`` for other data."""
        if not isinstance(raw, dict):
            raise ValueError(f"a stored GOAP state is a JSON object, got {type(raw).__name__}")
        try:
            return {k: self._dec(v) for k, v in raw.items()}
        except RecursionError:  # data this codec did not write (it refuses values this deep)
            raise ValueError("a stored GOAP state nests too deep to read") from None

    # -------------------------------------------------------------- encoding
    # Runs on every step (deltas, snapshots, recorded updates): dispatch on the exact type first,
    # and build the path of an unstorable value only when there is one (`_Unstorable.path`).

    def _enc(self, v: Any, depth: int) -> Any:
        t = type(v)
        if t is str or t is int or t is bool or v is None:
            return v
        if t is float:
            return v if math.isfinite(v) else {_TAG: "float", "v": repr(v)}
        if depth >= MAX_DEPTH and t in _CONTAINERS:
            raise _TooDeep()
        depth += 1
        if t is list:
            return self._seq(v, depth)
        if t is dict:
            return self._dict(v, depth)
        if t is tuple:
            return {_TAG: "tuple", "v": self._seq(v, depth)}
        if t is frozenset or t is set:
            items = self._seq(v, depth)
            # Sorted: a set's iteration order varies between processes (string hashing).
            items.sort(key=repr)
            return {_TAG: "frozenset" if t is frozenset else "set", "v": items}
        if t is MappingProxyType:
            return {_TAG: "proxy", "v": self._pairs(v, depth)}
        return self._other(v, t, depth)

    def _seq(self, v: Iterable[Any], depth: int) -> list[Any]:
        enc = self._enc
        out = []
        for i, x in enumerate(v):
            try:
                out.append(enc(x, depth))
            except _Unstorable as exc:
                exc.path.insert(0, f"[{i}]")
                raise
        return out

    def _dict(self, v: dict[Any, Any], depth: int) -> Any:
        if _TAG in v or not all(type(k) is str for k in v):
            return {_TAG: "dict", "v": self._pairs(v, depth)}
        enc = self._enc
        out = {}
        for k, x in v.items():
            try:
                out[k] = enc(x, depth)
            except _Unstorable as exc:
                exc.path.insert(0, f".{k}")
                raise
        return out

    def _pairs(self, m: Mapping[Any, Any], depth: int) -> list[list[Any]]:
        out = []
        for k, x in m.items():
            try:
                out.append([self._enc(k, depth), self._enc(x, depth)])
            except _Unstorable as exc:
                exc.path.insert(0, f"[{k!r}]")
                raise
        return out

    def _other(self, v: Any, t: type, depth: int) -> Any:
        if isinstance(v, enum.Enum):
            if _classes()[1].get(t.__name__) is not t:
                raise _Unstorable(t)
            return {_TAG: "enum", "c": t.__name__, "v": v.value}
        if isinstance(v, ActionSpec):
            if v.name in self.shared_names:
                raise _Unstorable(t, f"is action {v.name!r}, a name several of the graph's actions have")
            return {_TAG: "action", "v": v.name}
        if isinstance(v, str | int):  # subclasses of the JSON scalars
            return v
        if isinstance(v, timedelta):
            return {_TAG: "timedelta", "v": [v.days, v.seconds, v.microseconds]}
        if isinstance(v, BaseModel) and self.forms.get(t.__name__) is t:
            return {_TAG: "model", "c": t.__name__, "v": v.model_dump(mode="json")}
        if _classes()[0].get(t.__name__) is t:
            names = _field_names(t)
            fields = {}
            for name in names:
                try:
                    fields[name] = self._enc(getattr(v, name), depth)
                except _Unstorable as exc:
                    exc.path.insert(0, f".{name}")
                    raise
            return {_TAG: "dc", "c": t.__name__, "f": fields}
        raise _Unstorable(t)

    # -------------------------------------------------------------- decoding

    def _dec(self, v: Any) -> Any:
        if isinstance(v, list):
            return [self._dec(x) for x in v]
        if not isinstance(v, dict):
            return v
        tag = v.get(_TAG)
        if tag is None:
            return {k: self._dec(x) for k, x in v.items()}
        decoder = _DECODERS.get(tag)
        if decoder is None:
            raise ValueError(f"stored GOAP state: unknown tag {tag!r}")
        return decoder(self, v)

    def _dec_action(self, v: dict[str, Any]) -> ActionSpec:
        name = v["v"]
        found = self.actions.get(name)
        if found is None:
            raise ValueError(
                f"stored GOAP state names action {name!r}, which the graph does not have "
                "(resume and replay a run with a graph having the actions it ran with)"
            )
        return found

    def _dec_dc(self, v: dict[str, Any]) -> Any:
        dcs, _ = _classes()
        cls = dcs.get(v["c"])
        if cls is None:
            raise ValueError(f"stored GOAP state: unknown class {v['c']!r}")
        return cls(**{k: self._dec(x) for k, x in v["f"].items()})

    def _dec_enum(self, v: dict[str, Any]) -> Any:
        _, enums = _classes()
        cls = enums.get(v["c"])
        if cls is None:
            raise ValueError(f"stored GOAP state: unknown enum {v['c']!r}")
        return cls(v["v"])

    def _dec_model(self, v: dict[str, Any]) -> Any:
        cls = self.forms.get(v["c"])
        if cls is None:
            raise ValueError(f"stored GOAP state: unknown form class {v['c']!r}")
        return cls.model_validate(v["v"])

    def _dec_pairs(self, v: dict[str, Any]) -> dict[Any, Any]:
        # Keys come back hashable: a tuple key was stored tagged and decodes as a tuple.
        return {self._dec(k): self._dec(x) for k, x in v["v"]}


_CONTAINERS = frozenset({list, dict, tuple, set, frozenset, MappingProxyType})
"""The types that nest (and count towards `MAX_DEPTH`); dataclasses count too (see `_other`)."""

_DECODERS: dict[str, Callable[[CompatStateCodec, dict[str, Any]], Any]] = {
    "tuple": lambda c, v: tuple(c._dec(x) for x in v["v"]),
    "frozenset": lambda c, v: frozenset(c._dec(x) for x in v["v"]),
    "set": lambda c, v: {c._dec(x) for x in v["v"]},
    "proxy": lambda c, v: MappingProxyType(c._dec_pairs(v)),
    "dict": CompatStateCodec._dec_pairs,
    "float": lambda c, v: float(v["v"]),
    "timedelta": lambda c, v: timedelta(days=v["v"][0], seconds=v["v"][1], microseconds=v["v"][2]),
    "action": CompatStateCodec._dec_action,
    "dc": CompatStateCodec._dec_dc,
    "enum": CompatStateCodec._dec_enum,
    "model": CompatStateCodec._dec_model,
}
