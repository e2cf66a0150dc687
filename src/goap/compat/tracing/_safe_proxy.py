"""A wrapper making every hook of a tracer exception-safe (failures are logged, never raised)."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

__all__ = ["SafeTracerProxy"]

_log = logging.getLogger("goap.compat.tracing")


class SafeTracerProxy:
    """Forwards attribute access to a tracer; its callables log instead of raising."""

    __slots__ = ("_target",)

    def __init__(self, inner: Any) -> None:
        while isinstance(inner, SafeTracerProxy):
            inner = inner._target
        object.__setattr__(self, "_target", inner)

    @property
    def inner(self) -> Any:
        """The wrapped tracer."""
        return self._target

    def __getattr__(self, name: str) -> Any:
        value = getattr(self._target, name)
        return _guarded(name, value) if callable(value) else value


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    def complain(exc: Exception) -> None:
        _log.warning("tracer hook %s failed: %s", name, exc)

    if name.startswith("aon_") or inspect.iscoroutinefunction(fn):

        async def run_async(*args: Any, **kwargs: Any) -> None:
            try:
                await fn(*args, **kwargs)
            except Exception as exc:
                complain(exc)

        return run_async

    def run(*args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except Exception as exc:
            complain(exc)

    return run
