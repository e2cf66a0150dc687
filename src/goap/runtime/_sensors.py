"""Sensors: readings of the outside world merged into `world_state` before planning and observing.

A sensor is a function ``fn(world) -> mapping`` (sync or async) or an object with a ``name`` and
such a ``sense`` method. The planner reads every sensor before each planning round and the
observer before each observation; the readings are merged into ``world_state`` (later sensors
win on a shared key). Each reading goes through ``ctx.call``, so it is recorded with the step and
a replay sees the same world. A failing sensor is recorded in ``GoapState.policy_events`` and its
last reading (already in ``world_state``) is kept. After each round the tracer's
``sensor_complete(sensor_name, facts)`` hook is called once per sensor that answered.
"""

from __future__ import annotations

import inspect
import logging
from collections.abc import Awaitable, Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from typing import Any, Protocol, runtime_checkable

from graphengine import Context, ToolCallError

__all__ = [
    "FunctionalSensor",
    "Sensor",
    "SensorReadings",
    "read_sensors",
    "resolve_missing",
    "resolver_sensor",
]

_log = logging.getLogger("goap.runtime.sensors")

ConditionResolver = Callable[[str, Mapping[str, Any]], Any]
"""``resolver(key, world) -> True | False | None`` (sync or async): whether a condition key holds, None
when it cannot tell."""


@runtime_checkable
class Sensor(Protocol):
    """Something that reads facts about the world."""

    @property
    def name(self) -> str:
        """Stable name, used in records and replay."""
        ...

    def sense(self, world: Mapping[str, Any]) -> Any:
        """The facts read (a mapping), or an awaitable of them."""
        ...


@dataclass(frozen=True, slots=True)
class FunctionalSensor:
    """A sensor from a function of the current world (sync or async)."""

    name: str
    """Stable name."""
    fn: Callable[[Mapping[str, Any]], Mapping[str, Any] | Awaitable[Mapping[str, Any]]]
    """The reading."""

    def sense(self, world: Mapping[str, Any]) -> Any:
        """Call ``fn``."""
        return self.fn(world)


def as_sensor(obj: Any) -> Sensor:
    """A `Sensor` for a sensor object or a plain function (named after it)."""
    if hasattr(obj, "sense") and hasattr(obj, "name"):
        return obj  # type: ignore[no-any-return]
    if callable(obj):
        return FunctionalSensor(getattr(obj, "__name__", type(obj).__name__), obj)
    raise TypeError(f"not a sensor: {obj!r} (give a function of the world or an object with name and sense)")


@dataclass(frozen=True, slots=True)
class SensorReadings:
    """What one round of sensing produced."""

    world: dict[str, Any]
    """The world with the readings merged."""
    changed: dict[str, Any]
    """Facts whose value the readings changed."""
    errors: tuple[tuple[str, str], ...]
    """(sensor name, error) of the sensors that failed."""
    readings: tuple[tuple[str, dict[str, Any]], ...] = ()
    """(sensor name, facts read) of the sensors that answered, in order."""


class _Reading:
    def __init__(self, sensor: Sensor, world: Mapping[str, Any]) -> None:
        self.sensor = sensor
        self.world = world
        self.name = f"sensor:{sensor.name}"

    async def call(self, ctx: Context, _: Any) -> Any:
        # The world is not passed as the call's input: the input is recorded, and the world is
        # already in the state.
        out: Any = self.sensor.sense(dict(self.world))
        if inspect.isawaitable(out):
            out = await out
        if not isinstance(out, Mapping):
            raise TypeError(f"sensor {self.sensor.name!r} returned {type(out).__name__}, expected a mapping")
        return dict(out)


async def _direct(reading: _Reading) -> Any:
    try:
        return await reading.call(None, None)  # type: ignore[arg-type]
    except Exception as exc:
        raise ToolCallError(f"{reading.name} failed: {type(exc).__name__}: {exc}", tool=reading.name) from exc


async def read_sensors(
    ctx: Context | None, sensors: Sequence[Sensor], world: Mapping[str, Any]
) -> SensorReadings:
    """Read every sensor in order through ``ctx.call``; failures are collected, never raised.

    With ``ctx=None`` the sensors are called directly (nothing is recorded), for callers outside
    a run; with sync sensors only, the coroutine then finishes without suspending.
    """
    merged = dict(world)
    errors: list[tuple[str, str]] = []
    readings: list[tuple[str, dict[str, Any]]] = []
    for s in sensors:
        try:
            reading = _Reading(s, merged)
            out = await (ctx.call(reading) if ctx is not None else _direct(reading))
        except ToolCallError as exc:
            errors.append((s.name, str(exc).split(" failed: ", 1)[-1]))
            continue
        if isinstance(out, dict):
            merged.update(out)
            readings.append((s.name, out))
    changed = {k: v for k, v in merged.items() if k not in world or world[k] != v}
    return SensorReadings(merged, changed, tuple(errors), tuple(readings))


async def resolve_missing(
    resolvers: Sequence[ConditionResolver],
    keys: Iterable[str],
    world: Mapping[str, Any],
    *,
    overwrite: bool = False,
) -> dict[str, Any]:
    """A copy of ``world`` with each missing key of ``keys`` (each key, with ``overwrite``) set by the first
    resolver answering True or False; None (or any non-bool) asks the next one, a resolver that raises is
    logged and skipped, and a key no resolver settles stays absent. With sync resolvers only, the
    coroutine finishes without suspending."""
    out = dict(world)
    for key in [k for k in keys if overwrite or k not in out]:
        for r in resolvers:
            try:
                answer = r(key, out)
                answer = await answer if inspect.isawaitable(answer) else answer
            except Exception as exc:
                _log.warning("condition resolver %s failed on %r: %s", getattr(r, "__name__", r), key, exc)
                continue
            if isinstance(answer, bool):
                out[key] = answer
                break
    return out


def resolver_sensor(
    resolvers: Sequence[ConditionResolver], keys: Iterable[str], *, name: str = "conditions"
) -> FunctionalSensor:
    """A sensor reading what :func:`resolve_missing` settles of ``keys`` (only the facts it added), so
    conditions the world does not report are asked for before each planning round."""
    wanted = tuple(keys)

    async def read(world: Mapping[str, Any]) -> dict[str, Any]:
        filled = await resolve_missing(resolvers, wanted, world)
        return {k: v for k, v in filled.items() if k not in world}

    return FunctionalSensor(name, read)
