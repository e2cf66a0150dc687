"""LangGOAP's action guards as goap guards.

A LangGOAP guard (``name`` + ``check(action, world_state)``) already is a goap pre guard: goap's
executor reads a missing ``stage`` as ``"pre"`` and accepts this module's `GuardResult`, a
subclass of goap's. Async-only guards (``acheck``) are given to goap through `as_goap_guards`.
"""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Mapping, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Literal, Protocol, runtime_checkable

from goap.runtime import GuardResult as _GoapGuardResult
from goap.runtime._guards import run_check, verdict

__all__ = [
    "ActionGuard",
    "AsyncActionGuard",
    "FunctionalGuard",
    "GuardResult",
    "GuardSeverity",
    "as_goap_guards",
    "has_blocking_failure",
    "run_guards_async",
    "run_guards_sync",
]

_log = logging.getLogger(__name__)


class GuardSeverity(str, Enum):  # noqa: UP042 - str() as LangGOAP's
    """What a failed check does: ``WARN`` is logged, ``BLOCK`` stops the action and replans."""

    WARN = "warn"
    BLOCK = "block"


@dataclass(frozen=True, slots=True)
class GuardResult(_GoapGuardResult):
    """A check's verdict (a goap `GuardResult` whose severity is a `GuardSeverity`)."""

    passed: bool
    message: str
    severity: GuardSeverity = GuardSeverity.WARN  # type: ignore[assignment]


@runtime_checkable
class ActionGuard(Protocol):
    """A synchronous guard: a ``name`` and ``check(action, world_state) -> GuardResult``."""

    @property
    def name(self) -> str:
        """Stable name."""
        ...

    def check(self, action: Any, world_state: dict[str, Any]) -> GuardResult:
        """The verdict on running ``action`` now."""
        ...


@runtime_checkable
class AsyncActionGuard(Protocol):
    """An asynchronous guard: a ``name`` and ``async acheck(action, world_state)``."""

    @property
    def name(self) -> str:
        """Stable name."""
        ...

    async def acheck(self, action: Any, world_state: dict[str, Any]) -> GuardResult:
        """The verdict on running ``action`` now."""
        ...


class FunctionalGuard:
    """A pre guard from a function ``fn(action, world_state) -> GuardResult``.

    ``severity`` is informational: ``fn`` sets the severity of the results it returns.
    """

    stage: Literal["pre"] = "pre"

    def __init__(
        self,
        name: str,
        fn: Callable[[Any, dict[str, Any]], GuardResult],
        severity: GuardSeverity = GuardSeverity.WARN,
    ) -> None:
        self._name = name
        self.fn = fn
        self.severity = severity

    @property
    def name(self) -> str:
        """Stable name."""
        return self._name

    def check(self, action: Any, world_state: dict[str, Any]) -> GuardResult:
        """Call ``fn``."""
        return self.fn(action, world_state)


class _AsyncCheck:
    """An ``acheck`` guard seen as a goap guard (goap awaits a ``check`` returning an awaitable)."""

    stage: Literal["pre"] = "pre"

    def __init__(self, guard: Any) -> None:
        self.guard = guard
        self.name: str = guard.name

    def check(self, action: Any, world: Mapping[str, Any]) -> Any:
        return self.guard.acheck(action, world)


def _goap(guard: Any) -> Any:
    return _AsyncCheck(guard) if hasattr(guard, "acheck") else guard


def as_goap_guards(guards: Iterable[Any] | None) -> list[Any]:
    """LangGOAP guards as goap pre guards (an ``acheck`` is preferred, as LangGOAP's async path does)."""
    return [_goap(g) for g in guards or ()]


def _result(guard: Any, out: Any) -> GuardResult:
    if isinstance(out, GuardResult):
        return out
    v = verdict(guard, out)
    return GuardResult(v["passed"], v["message"], GuardSeverity(v["severity"]))


def _raised(guard: Any, exc: Exception) -> GuardResult:
    _log.warning("guard %r raised %s: %s", guard.name, type(exc).__name__, exc)
    return GuardResult(False, f"guard {guard.name!r} raised {type(exc).__name__}: {exc}")


def _report(guard: Any, r: GuardResult) -> None:
    if not r.passed:
        _log.warning("guard %r failed (%s): %s", guard.name, GuardSeverity(r.severity).value, r.message)


def run_guards_sync(guards: Sequence[Any], action: Any, world_state: dict[str, Any]) -> list[GuardResult]:
    """Every sync guard's verdict, in order; async-only guards are skipped, a raising one is a WARN."""
    out: list[GuardResult] = []
    for g in guards:
        if not hasattr(g, "check"):
            _log.warning("guard %r is async-only, skipped on the sync path (use run_guards_async)", g.name)
            continue
        try:
            r = _result(g, g.check(action, world_state))
        except Exception as exc:
            r = _raised(g, exc)
        _report(g, r)
        out.append(r)
    return out


async def run_guards_async(
    guards: Sequence[Any], action: Any, world_state: dict[str, Any]
) -> list[GuardResult]:
    """Every guard's verdict, checked concurrently; a raising guard is a WARN."""

    async def one(g: Any) -> GuardResult:
        try:
            v = await run_check(_goap(g), action, world_state)
        except Exception as exc:
            return _raised(g, exc)
        r = GuardResult(v["passed"], v["message"], GuardSeverity(v["severity"]))
        _report(g, r)
        return r

    return list(await asyncio.gather(*(one(g) for g in guards)))


def has_blocking_failure(results: Iterable[Any]) -> bool:
    """Whether a result failed with BLOCK severity."""
    return any(not r.passed and r.severity == GuardSeverity.BLOCK for r in results)
