"""LangGOAP's action guards as goap pre guards; `GuardResult` is goap's."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Callable, Iterable, Sequence
from dataclasses import dataclass
from enum import Enum
from typing import Any, Protocol, runtime_checkable

from goap.compat._convert import decode_state
from goap.runtime import FunctionalGuard as _GoapGuard
from goap.runtime import GuardResult as _Verdict
from goap.runtime import check_guard, guard_verdict

__all__ = ["ActionGuard", "AsyncActionGuard", "FunctionalGuard", "GuardResult", "GuardSeverity",
           "as_goap_guards", "has_blocking_failure", "run_guards_async", "run_guards_sync"]  # fmt: skip

_log = logging.getLogger(__name__)


class GuardSeverity(str, Enum):  # noqa: UP042 - str() as LangGOAP's
    """What a failed check does: ``WARN`` is logged, ``BLOCK`` stops the action and replans."""

    WARN = "warn"
    BLOCK = "block"


@dataclass(slots=True, frozen=True)
class GuardResult(_Verdict):
    """A check's verdict (a goap `GuardResult` whose severity is a `GuardSeverity`)."""

    passed: bool
    message: str
    severity: GuardSeverity = GuardSeverity.WARN  # type: ignore[assignment]


@runtime_checkable
class ActionGuard(Protocol):
    """A sync guard: a ``name`` and ``check(action, world_state) -> GuardResult``."""

    @property
    def name(self) -> str: ...
    def check(self, action: Any, world_state: dict[str, Any]) -> GuardResult: ...


@runtime_checkable
class AsyncActionGuard(Protocol):
    """An async guard: a ``name`` and ``async acheck(action, world_state) -> GuardResult``."""

    @property
    def name(self) -> str: ...
    async def acheck(self, action: Any, world_state: dict[str, Any]) -> GuardResult: ...


class FunctionalGuard:
    """A guard from ``fn(action, world_state) -> GuardResult`` (``severity`` is informational)."""

    def __init__(self, name: str, fn: Callable[[Any, dict[str, Any]], GuardResult], severity: GuardSeverity = GuardSeverity.WARN) -> None:  # fmt: skip
        self.name, self.fn, self.severity = name, fn, severity

    def check(self, action: Any, world_state: dict[str, Any]) -> GuardResult:
        """Call ``fn``."""
        return self.fn(action, world_state)


def _goap(g: Any) -> Any:
    if hasattr(g, "stage"):  # goap's own guard
        return g
    check = g.acheck if hasattr(g, "acheck") else g.check
    return _GoapGuard(g.name, lambda action, world: check(action, decode_state(world)), severity="warn")


def as_goap_guards(guards: Iterable[Any] | None) -> list[Any]:
    """LangGOAP guards as goap pre guards seeing LangGOAP's values (``acheck`` preferred)."""
    return [_goap(g) for g in guards or ()]


def _judged(g: Any, v: dict[str, Any]) -> GuardResult:
    r = GuardResult(v["passed"], v["message"], GuardSeverity(v["severity"]))
    if not r.passed:
        _log.warning("guard %r failed (%s): %s", g.name, r.severity.value, r.message)
    return r


def _raised(g: Any, exc: Exception) -> GuardResult:  # a raising guard is a WARN, as goap's executor has it
    return _judged(g, {"passed": False, "message": f"guard {g.name!r} raised {exc!r}", "severity": "warn"})


def run_guards_sync(guards: Sequence[Any], action: Any, world_state: dict[str, Any]) -> list[GuardResult]:
    """Each sync guard's verdict in order; async-only guards are skipped, a raising one is a WARN."""
    out = []
    for g in guards:
        if not hasattr(g, "check"):
            _log.warning("guard %r is async-only, skipped on the sync path (use run_guards_async)", g.name)
            continue
        try:
            out.append(_judged(g, guard_verdict(g, g.check(action, world_state))))
        except Exception as exc:
            out.append(_raised(g, exc))
    return out


async def run_guards_async(
    guards: Sequence[Any], action: Any, world_state: dict[str, Any]
) -> list[GuardResult]:
    """Each guard's verdict, checked concurrently by goap's check; a raising guard is a WARN."""

    async def one(g: Any) -> GuardResult:
        try:
            return _judged(g, await check_guard(_goap(g), action, world_state))
        except Exception as exc:
            return _raised(g, exc)

    return list(await asyncio.gather(*map(one, guards)))


def has_blocking_failure(results: Iterable[Any]) -> bool:
    """Whether a result failed with BLOCK severity."""
    return any(not r.passed and r.severity == GuardSeverity.BLOCK for r in results)
