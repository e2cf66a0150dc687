"""A tracer wrapper whose hooks log failures (``goap.compat.tracing``, WARNING) instead of raising."""

from __future__ import annotations

import inspect
import logging
from collections.abc import Callable
from typing import Any

_log = logging.getLogger("goap.compat.tracing")


class SafeTracerProxy:
    """Forwards attributes to the wrapped tracer (proxies are not nested); callables never raise."""

    __slots__ = ("inner",)

    def __init__(self, inner: Any) -> None:
        object.__setattr__(self, "inner", inner.inner if isinstance(inner, SafeTracerProxy) else inner)

    def __getattr__(self, name: str) -> Any:
        value = getattr(self.inner, name)
        return _guarded(name, value) if callable(value) else value


def _guarded(name: str, fn: Callable[..., Any]) -> Callable[..., Any]:
    if name.startswith("aon_") or inspect.iscoroutinefunction(fn):

        async def run_async(*args: Any, **kwargs: Any) -> None:
            try:
                await fn(*args, **kwargs)
            except Exception as exc:
                _log.warning("tracer hook %s failed: %s", name, exc)

        return run_async

    def run(*args: Any, **kwargs: Any) -> None:
        try:
            fn(*args, **kwargs)
        except Exception as exc:
            _log.warning("tracer hook %s failed: %s", name, exc)

    return run
