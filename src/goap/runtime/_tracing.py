"""Planning tracers: sync `on_*` and async `aon_*` hooks around planning and execution.

A tracer that raises never affects planning: `MultiTracer` and the runtime isolate each call.
"""

from __future__ import annotations

import logging
from collections.abc import Iterable, Mapping
from typing import Any, Protocol, runtime_checkable

__all__ = [
    "SEARCH_HOOKS",
    "TRACER_HOOKS",
    "LoggingTracer",
    "MultiTracer",
    "NullTracer",
    "PlanningTracer",
    "SearchTracer",
]
__all__ += ["call_tracer"]

_log = logging.getLogger("goap.runtime._tracing")

TRACER_HOOKS = (
    "plan_start",
    "plan_complete",
    "plan_failed",
    "action_start",
    "action_complete",
    "action_retry",
    "replan",
    "goal_achieved",
)
"""Hook names; each has a sync `on_<name>` and an async `aon_<name>`."""


@runtime_checkable
class PlanningTracer(Protocol):
    """Observability hooks of the GOAP loop. Implementations should never raise."""

    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Planning starts for `goal` from `state`."""

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """A plan was found."""

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        """No plan was found (`reason` is the status)."""

    def on_action_start(self, action: Any, state: Any) -> None:
        """An action is about to execute."""

    def on_action_complete(self, result: Any) -> None:
        """An action finished (result: the `ActionOutcome`)."""

    def on_action_retry(self, action: Any, attempt: int, exception: BaseException, backoff_ms: float) -> None:
        """An action failed and is retried."""

    def on_replan(self, reason: str, new_plan: Any) -> None:
        """The observer asked for a new plan."""

    def on_goal_achieved(self, final_state: Any) -> None:
        """The goal holds."""

    async def aon_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Async `on_plan_start`."""

    async def aon_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Async `on_plan_complete`."""

    async def aon_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Async `on_plan_failed`."""

    async def aon_action_start(self, action: Any, state: Any) -> None:
        """Async `on_action_start`."""

    async def aon_action_complete(self, result: Any) -> None:
        """Async `on_action_complete`."""

    async def aon_action_retry(
        self, action: Any, attempt: int, exception: BaseException, backoff_ms: float
    ) -> None:
        """Async `on_action_retry`."""

    async def aon_replan(self, reason: str, new_plan: Any) -> None:
        """Async `on_replan`."""

    async def aon_goal_achieved(self, final_state: Any) -> None:
        """Async `on_goal_achieved`."""


SEARCH_HOOKS = ("strategy_chosen", "sensor_complete", "search_expand", "search_dead_end", "search_complete")
"""Hooks a :class:`SearchTracer` adds to :data:`TRACER_HOOKS` (each a sync ``on_`` and an async ``aon_``)."""


@runtime_checkable
class SearchTracer(PlanningTracer, Protocol):
    """A tracer that also hears a router's choice, each sensor's facts (the runtime calls
    ``sensor_complete``) and search events a strategy's expansion callback reports (one per expanded
    node, dead end and finished search), e.g. :class:`goap.runtime.LangSmithTracer`."""

    def on_strategy_chosen(self, strategy_name: str) -> None:
        """A router picked ``strategy_name``."""

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """A sensor answered with ``updates``."""

    def on_search_expand(
        self,
        node_id: int,
        state: Mapping[str, Any],
        g: float,
        h: float,
        f: float,
        parent_id: int | None = None,
        action_name: str | None = None,
    ) -> None:
        """A search expanded node ``node_id`` (reached from ``parent_id`` by ``action_name``)."""

    def on_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """A search hit a dead end."""

    def on_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """A search finished."""

    async def aon_strategy_chosen(self, strategy_name: str) -> None:
        """Async `on_strategy_chosen`."""

    async def aon_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Async `on_sensor_complete`."""

    async def aon_search_expand(
        self,
        node_id: int,
        state: Mapping[str, Any],
        g: float,
        h: float,
        f: float,
        parent_id: int | None = None,
        action_name: str | None = None,
    ) -> None:
        """Async `on_search_expand`."""

    async def aon_search_dead_end(self, reason: str, detail: dict[str, Any]) -> None:
        """Async `on_search_dead_end`."""

    async def aon_search_complete(self, nodes_explored: int, duration_ms: float, found: bool) -> None:
        """Async `on_search_complete`."""


class NullTracer:
    """Does nothing (the default)."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("aon_"):

            async def _anop(*args: Any, **kwargs: Any) -> None:
                return None

            return _anop
        if name.startswith("on_"):
            return lambda *args, **kwargs: None
        raise AttributeError(name)


class LoggingTracer(NullTracer):
    """Logs every hook through stdlib logging (INFO).

    It answers the hooks named in ``hooks`` (default: :data:`TRACER_HOOKS`); a subclass serving a tracer
    protocol with more hooks (e.g. search events) extends that set.
    """

    hooks: frozenset[str] = frozenset(TRACER_HOOKS)
    """The hook names (without ``on_``/``aon_``) this tracer logs."""

    def __init__(self, logger: logging.Logger | str = "goap", level: int = logging.INFO) -> None:
        self._logger = logging.getLogger(logger) if isinstance(logger, str) else logger
        self._level = level

    def __getattr__(self, name: str) -> Any:
        hook = name.removeprefix("a").removeprefix("on_")
        if hook not in self.hooks or not name.startswith(("on_", "aon_")):
            raise AttributeError(name)

        def log(*args: Any, **kwargs: Any) -> None:
            self._logger.log(self._level, "goap %s %s", hook, " ".join(repr(a)[:200] for a in args))

        if name.startswith("aon_"):

            async def alog(*args: Any, **kwargs: Any) -> None:
                log(*args, **kwargs)

            return alog
        return log


class MultiTracer(NullTracer):
    """Sends each hook to several tracers, isolating their failures."""

    def __init__(self, tracers: Iterable[Any]) -> None:
        self.tracers = tuple(tracers)
        """The tracers, in order."""

    def __getattr__(self, name: str) -> Any:
        if name.startswith("aon_"):

            async def fan(*args: Any, **kwargs: Any) -> None:
                for t in self.tracers:
                    await call_tracer(t, name[4:], *args, **kwargs)

            return fan
        if name.startswith("on_"):

            def fan_sync(*args: Any, **kwargs: Any) -> None:
                for t in self.tracers:
                    try:
                        getattr(t, name)(*args, **kwargs)
                    except Exception:
                        _log.exception("tracer %r failed in %s", t, name)

            return fan_sync
        raise AttributeError(name)

    @property
    def reflections(self) -> list[Any]:
        """The reflections kept by the tracers inside (e.g. a `ReflexionTracer`'s), in tracer order."""
        return [r for t in self.tracers for r in getattr(t, "reflections", ())]


async def call_tracer(tracer: Any, hook: str, *args: Any, **kwargs: Any) -> None:
    """Call `aon_<hook>` (or `on_<hook>` when the tracer has no async one); never raises."""
    try:
        fn = getattr(tracer, f"aon_{hook}", None)
        if fn is not None:
            await fn(*args, **kwargs)
            return
        sync = getattr(tracer, f"on_{hook}", None)
        if sync is not None:
            sync(*args, **kwargs)
    except Exception:
        _log.exception("tracer %r failed in %s", tracer, hook)
