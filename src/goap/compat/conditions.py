"""LangGOAP's condition resolvers over goap's :func:`goap.runtime.resolve_missing`."""

from __future__ import annotations

import asyncio
import inspect
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from typing import Any, Protocol, runtime_checkable

from goap.compat.sensors import _finish
from goap.runtime import resolve_missing
from goap.runtime import resolver_sensor as goap_resolver_sensor

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


def _ask(r: Any, sync: bool) -> Callable[[str, Any], Any]:
    """A LangGOAP resolver as goap's (True/False/None); ``aresolve`` only on the async path."""

    async def ask(key: str, world: Any) -> bool | None:
        if hasattr(r, "aresolve") and not sync:
            status = await r.aresolve(key, world)
        elif hasattr(r, "resolve"):
            status = r.resolve(key, world) if sync else await asyncio.to_thread(r.resolve, key, dict(world))
        else:
            if sync:
                _log.warning("resolver %r is async only: skipped for %r", r.name, key)
            return None
        return {_T: True, _F: False}.get(status)

    ask.__name__ = repr(getattr(r, "name", r))
    return ask


def resolve_conditions(
    resolvers: Sequence[Any], keys: Iterable[str], world_state: Mapping[str, Any], *, overwrite: bool = False
) -> dict[str, Any]:
    """A copy of ``world_state`` with the missing ``keys`` the resolvers could answer (sync)."""
    return _finish(
        resolve_missing([_ask(r, True) for r in resolvers], keys, world_state, overwrite=overwrite)
    )


async def aresolve_conditions(
    resolvers: Sequence[Any], keys: Iterable[str], world_state: Mapping[str, Any], *, overwrite: bool = False
) -> dict[str, Any]:
    """As :func:`resolve_conditions`, awaiting ``aresolve`` (sync-only resolvers run in a thread)."""
    return await resolve_missing([_ask(r, False) for r in resolvers], keys, world_state, overwrite=overwrite)


def resolver_sensor(resolvers: Sequence[Any], keys: Iterable[str], *, name: str = "conditions") -> Any:
    """The resolvers as goap's :func:`goap.runtime.resolver_sensor` (answers for the ``keys`` the world lacks)."""
    return goap_resolver_sensor([_ask(r, False) for r in resolvers], keys, name=name)
