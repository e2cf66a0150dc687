"""LangGOAP's sensors: goap's `Sensor`, `FunctionalSensor` and `read_sensors` underneath."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Coroutine, Iterable, Mapping, Sequence
from typing import Any, Protocol, TypeVar, runtime_checkable

from goap.compat._convert import decode_state, encode_map
from goap.runtime import FunctionalSensor, Sensor, read_sensors

__all__ = ["AsyncSensor", "FunctionalSensor", "Sensor", "as_goap_sensors", "run_sensors_async",
           "run_sensors_sync"]  # fmt: skip

_log = logging.getLogger(__name__)
_T = TypeVar("_T")


@runtime_checkable
class AsyncSensor(Protocol):
    """An async sensor: a ``name`` and ``async asense(world_state) -> dict``."""

    @property
    def name(self) -> str: ...
    async def asense(self, world_state: dict[str, Any]) -> dict[str, Any]: ...


def as_goap_sensors(sensors: Iterable[Any] | None) -> list[Any]:
    """LangGOAP sensors as goap sensors (``asense`` preferred, as on LangGOAP's async path)."""
    return [FunctionalSensor(s.name, _reader(s, True)) for s in sensors or ()]


def _reader(sensor: Any, encoded: bool) -> Any:
    """``sense`` (or ``asense``) as one async function; ``encoded``: of goap's values."""
    read = sensor.asense if hasattr(sensor, "asense") else sensor.sense

    async def sense(world: Mapping[str, Any]) -> dict[str, Any]:
        out = read(decode_state(world) if encoded else world)
        out = await out if inspect.isawaitable(out) else out
        return encode_map(out) if encoded else out

    return sense


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
    """Read the sync sensors into ``world_state``; ``(name, facts)`` of each that answered."""
    for s in sensors:
        if not hasattr(s, "sense"):
            _log.warning("sensor %r is async-only, skipped on the sync path (use ainvoke)", s.name)
    return _finish(_read([s for s in sensors if hasattr(s, "sense")], world_state))


async def run_sensors_async(
    sensors: Sequence[Any], world_state: dict[str, Any]
) -> list[tuple[str, dict[str, Any]]]:
    """Read every sensor in order (each sees the facts read before it) into ``world_state``."""
    return await _read([FunctionalSensor(s.name, _reader(s, False)) for s in sensors], world_state)
