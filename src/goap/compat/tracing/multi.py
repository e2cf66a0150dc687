"""Fan-out :class:`~goap.compat.tracing.PlanningTracer` composer (LangGOAP's ``MultiTracer``)."""

from __future__ import annotations

from collections.abc import Callable, Coroutine
from typing import Any

from goap.compat._logs import get_logger
from goap.compat.tracing._protocol import SYNC_HOOKS, PlanningTracer

__all__ = ["MultiTracer"]

logger = get_logger("goap.compat.tracing")


class MultiTracer(PlanningTracer):
    """Fan a single event out to multiple tracers.

    Each inner tracer is invoked in sequence; exceptions raised by an
    individual tracer are caught and logged so one broken tracer
    cannot break the planner or stop other tracers from receiving
    the event.
    """

    def __init__(self, tracers: list[PlanningTracer]) -> None:
        self._tracers = list(tracers)

    @property
    def reflections(self) -> list[Any]:
        """Aggregate reflections from every inner tracer that exposes them.

        Enables :class:`~goap.compat.graph.nodes.GoapPlanner` to surface
        reflection context into :class:`~goap.compat.graph.state.GoapState`
        transparently when a :class:`~goap.compat.reflexion.ReflexionTracer`
        is composed inside a ``MultiTracer``.
        """
        result: list[Any] = []
        for t in self._tracers:
            result.extend(getattr(t, "reflections", []))
        return result

    def _fan_sync(self, method: str, *args: Any, **kwargs: Any) -> None:
        for t in self._tracers:
            try:
                getattr(t, method)(*args, **kwargs)
            except Exception as exc:
                logger.warning("Tracer %r raised during %s: %s", type(t).__name__, method, exc)

    async def _fan_async(self, method: str, *args: Any, **kwargs: Any) -> None:
        for t in self._tracers:
            try:
                await getattr(t, method)(*args, **kwargs)
            except Exception as exc:
                logger.warning("Tracer %r raised during %s: %s", type(t).__name__, method, exc)


def _sync_fan(name: str) -> Callable[..., None]:
    def hook(self: MultiTracer, *args: Any, **kwargs: Any) -> None:
        self._fan_sync(name, *args, **kwargs)

    hook.__name__ = hook.__qualname__ = name
    hook.__doc__ = f"Calls ``{name}`` on every inner tracer."
    return hook


def _async_fan(name: str) -> Callable[..., Coroutine[Any, Any, None]]:
    async def hook(self: MultiTracer, *args: Any, **kwargs: Any) -> None:
        await self._fan_async(name, *args, **kwargs)

    hook.__name__ = hook.__qualname__ = name
    hook.__doc__ = f"Awaits ``{name}`` on every inner tracer."
    return hook


# Every hook fans out the same way, so they are made from the protocol's list (see SYNC_HOOKS).
for _name in SYNC_HOOKS:
    setattr(MultiTracer, _name, _sync_fan(_name))
    setattr(MultiTracer, f"a{_name}", _async_fan(f"a{_name}"))
