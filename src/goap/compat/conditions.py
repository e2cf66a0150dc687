"""LangGOAP's condition resolvers: per missing key, the first answer other than UNKNOWN is written as
True/False; an unknown key stays absent. :func:`resolver_sensor` makes them a goap sensor."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from goap.runtime import FunctionalSensor

_log = logging.getLogger(__name__)


class ConditionStatus(str):
    """A three-valued answer (``"true"``, ``"false"``, ``"unknown"``); a str, so it serialises as one."""

    TRUE: ConditionStatus
    FALSE: ConditionStatus
    UNKNOWN: ConditionStatus

    def __repr__(self) -> str:
        return "ConditionStatus." + self.upper()

    def __bool__(self) -> bool:
        return str(self) == "true"


_T = ConditionStatus.TRUE = ConditionStatus("true")
_F = ConditionStatus.FALSE = ConditionStatus("false")
_U = ConditionStatus.UNKNOWN = ConditionStatus("unknown")
_WORDS = {"true": _T, "yes": _T, "1": _T, "false": _F, "no": _F, "0": _F}


def as_status(raw: Any) -> ConditionStatus:
    """Read a resolver's answer: a status, a bool, None (unknown) or a yes/no word."""
    if isinstance(raw, ConditionStatus):
        return raw
    if isinstance(raw, bool):
        return _T if raw else _F
    return _WORDS.get(raw.strip().lower(), _U) if isinstance(raw, str) else _U


@runtime_checkable
class ConditionResolver(Protocol):
    """Answers whether a condition key holds, synchronously."""

    name: str
    """Name used in logs."""

    def resolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """The status of ``key`` in ``world_state``."""


@runtime_checkable
class AsyncConditionResolver(Protocol):
    """Answers whether a condition key holds, asynchronously."""

    name: str
    """Name used in logs."""

    async def aresolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """The status of ``key`` in ``world_state``."""


class FunctionalConditionResolver:
    """A resolver from ``fn(key, world_state)`` (sync or async) returning a status, bool or None."""

    def __init__(self, name: str, fn: Callable[[str, dict[str, Any]], Any]) -> None:
        self.name, self._fn = name, fn
        """The name given (used in logs)."""

    def resolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Call ``fn``; a coroutine function must be used through :meth:`aresolve`."""
        out = self._fn(key, world_state)
        if inspect.iscoroutine(out):
            out.close()
            raise TypeError(f"resolver {self.name!r} is async: call aresolve() instead of resolve()")
        return as_status(out)

    async def aresolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Call ``fn``, awaiting it when it is async."""
        out = self._fn(key, world_state)
        return as_status(await out if inspect.isawaitable(out) else out)


class PromptConditionResolver:
    """Asks a LangChain chat model (structured output) whether the key holds; failures are UNKNOWN."""

    TEMPLATE = (
        "Does the condition {key!r} hold in this world state? {world_state}\nAnswer true, false or unknown."
    )

    def __init__(self, llm: Any, *, prompt_template: str | None = None, timeout_s: float = 30.0) -> None:
        self._llm, self._template, self.timeout_s = llm, prompt_template or self.TEMPLATE, timeout_s

    name = "PromptConditionResolver"
    """The resolver's name in logs."""

    def _ask(self, key: str, world_state: Mapping[str, Any], run: str) -> Any:
        from langchain_core.messages import HumanMessage
        from pydantic import BaseModel

        class Verdict(BaseModel):
            status: str
            reasoning: str = ""

        text = self._template.format(key=key, world_state=str(dict(world_state)))
        return getattr(self._llm.with_structured_output(Verdict), run)([HumanMessage(content=text)])

    def resolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Ask the model; any error gives UNKNOWN."""
        try:
            return as_status(self._ask(key, world_state, "invoke").status)
        except Exception as exc:
            _log.warning("condition %r: the model gave no answer (%s): UNKNOWN", key, exc)
            return _U

    async def aresolve(self, key: str, world_state: dict[str, Any]) -> ConditionStatus:
        """Ask the model asynchronously; any error gives UNKNOWN."""
        try:
            return as_status((await self._ask(key, world_state, "ainvoke")).status)
        except Exception as exc:
            _log.warning("condition %r: the model gave no answer (%s): UNKNOWN", key, exc)
            return _U


def _settle(world: dict[str, Any], key: str, status: Any) -> bool:
    """Write a definite answer into ``world``; whether it was definite."""
    if status in (_T, _F):
        world[key] = status == _T
    return status in (_T, _F)


def resolve_conditions(
    resolvers: Sequence[Any], keys: Iterable[str], world_state: Mapping[str, Any], *, overwrite: bool = False
) -> dict[str, Any]:
    """A copy of ``world_state`` with the missing ``keys`` the resolvers could answer (sync)."""
    world = dict(world_state)
    for key in [k for k in keys if overwrite or k not in world]:
        for r in resolvers:
            try:
                if not hasattr(r, "resolve"):
                    _log.warning("resolver %r is async only: skipped for %r", r.name, key)
                elif _settle(world, key, r.resolve(key, world)):
                    break
            except Exception as exc:
                _log.warning("resolver %r failed on %r: %s", r.name, key, exc)
    return world


async def aresolve_conditions(
    resolvers: Sequence[Any], keys: Iterable[str], world_state: Mapping[str, Any], *, overwrite: bool = False
) -> dict[str, Any]:
    """As :func:`resolve_conditions`, awaiting ``aresolve`` (sync-only resolvers run in a thread)."""
    world = dict(world_state)
    for key in [k for k in keys if overwrite or k not in world]:
        for r in resolvers:
            try:
                if hasattr(r, "aresolve"):
                    status = await r.aresolve(key, world)
                elif hasattr(r, "resolve"):
                    status = await asyncio.to_thread(r.resolve, key, dict(world))
                else:
                    continue
                if _settle(world, key, status):
                    break
            except Exception as exc:
                _log.warning("resolver %r failed on %r: %s", r.name, key, exc)
    return world


def resolver_sensor(
    resolvers: Sequence[Any], keys: Iterable[str], *, name: str = "conditions"
) -> FunctionalSensor:
    """The resolvers as a goap sensor: its reading is the answers for the ``keys`` missing from the world."""
    wanted = tuple(keys)

    async def read(world: Mapping[str, Any]) -> dict[str, Any]:
        filled = await aresolve_conditions(resolvers, wanted, world)
        return {k: v for k, v in filled.items() if k not in world}

    return FunctionalSensor(name, read)
