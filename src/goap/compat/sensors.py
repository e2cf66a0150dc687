"""LangGOAP's sensors as goap sensors.

A LangGOAP sensor (``name`` + ``sense(world_state)``) already is a goap `goap.runtime.Sensor`;
`FunctionalSensor` is goap's. Async-only sensors (``asense``) are given to goap through
`as_goap_sensors`. The run helpers read through goap's own sensor loop.
"""

from __future__ import annotations

import logging
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from goap.runtime import FunctionalSensor
from goap.runtime._sensors import read_sensors

__all__ = [
    "AsyncSensor",
    "FunctionalSensor",
    "Sensor",
    "as_goap_sensors",
    "run_sensors_async",
    "run_sensors_sync",
]

_log = logging.getLogger(__name__)
_T = TypeVar("_T")


@runtime_checkable
class Sensor(Protocol):
    """Reads facts before planning: a ``name`` and ``sense(world_state) -> dict``."""

    @property
    def name(self) -> str:
        """Stable name."""
        ...

    def sense(self, world_state: dict[str, Any]) -> dict[str, Any]:
        """The facts to merge into the world state (``{}`` for none)."""
        ...


@runtime_checkable
class AsyncSensor(Protocol):
    """The async sensor: a ``name`` and ``async asense(world_state) -> dict``."""

    @property
    def name(self) -> str:
        """Stable name."""
        ...

    async def asense(self, world_state: dict[str, Any]) -> dict[str, Any]:
        """The facts to merge into the world state."""
        ...


class _AsyncSense:
    """An ``asense`` sensor seen as a goap sensor (goap awaits what ``sense`` returns)."""

    def __init__(self, sensor: Any) -> None:
        self.sensor = sensor
        self.name: str = sensor.name

    def sense(self, world: Mapping[str, Any]) -> Any:
        return self.sensor.asense(dict(world))


def _goap(sensor: Any) -> Any:
    return _AsyncSense(sensor) if hasattr(sensor, "asense") else sensor


def as_goap_sensors(sensors: Iterable[Any] | None) -> list[Any]:
    """LangGOAP sensors as goap sensors (an ``asense`` is preferred, as LangGOAP's async path does)."""
    return [_goap(s) for s in sensors or ()]


def _finish(coro: Coroutine[Any, Any, _T]) -> _T:
    """Run a coroutine that never suspends (its callees are all sync) to its result."""
    try:
        coro.send(None)
    except StopIteration as done:
        return done.value  # type: ignore[no-any-return]
    coro.close()
    raise RuntimeError("this call waits on something asynchronous; use its async form")


async def _read(sensors: Sequence[Any], world_state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    r = await read_sensors(None, sensors, world_state)
    for name, error in r.errors:
        _log.warning("sensor %r raised %s", name, error)
    world_state.update(r.world)
    return list(r.readings)


def run_sensors_sync(sensors: Sequence[Any], world_state: dict[str, Any]) -> list[tuple[str, dict[str, Any]]]:
    """Read the sync sensors in order into ``world_state`` (in place); ``(name, facts)`` per answer.

    Async-only sensors are skipped with a warning; a raising sensor is logged and skipped.
    """
    sync = []
    for s in sensors:
        if hasattr(s, "sense"):
            sync.append(s)
        else:
            _log.warning("sensor %r is async-only, skipped on the sync path (use ainvoke)", s.name)
    return _finish(_read(sync, world_state))


async def run_sensors_async(
    sensors: Sequence[Any], world_state: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """Read every sensor in order (each sees the facts read before it) into ``world_state``."""
    return await _read(as_goap_sensors(sensors), world_state)
