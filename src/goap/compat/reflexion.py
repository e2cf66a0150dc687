"""Reflexion: a tracer that turns each failed action into a verbal :class:`Reflection`.

A failure (an ``action_failed`` result) becomes a reflection written by the chat model ``llm``
or, without one (or when the model fails), by a template. The newest ``max_reflections`` are kept
and, with a :class:`~goap.compat.history.StoreExecutionHistory`, written to its LangGraph store
under ``("langgoap", "reflections")`` / ``"current"`` after every change and read back lazily on the
first planning event (never in the constructor, so an async-only store is awaited on the async
path). The tracer never breaks a run: model and store errors are logged and swallowed.
"""

from __future__ import annotations

from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from goap.compat._logs import get_logger

__all__ = ["Reflection", "ReflexionTracer"]

logger = get_logger(__name__)

_REFLECTIONS_NS: tuple[str, str] = ("langgoap", "reflections")
"""Store namespace of the persisted reflections (LangGOAP's, so both read each other's)."""
_REFLECTIONS_KEY = "current"
"""Store key of the persisted reflections."""


@dataclass(frozen=True, slots=True)
class Reflection:
    """What went wrong with one action, and what to try next."""

    action_name: str
    """The failed action."""
    error: str
    """Its error message."""
    reflection: str
    """Analysis of the failure."""
    suggestion: str
    """Advice for the next attempt."""
    timestamp: str
    """When it was written (ISO 8601, UTC)."""


_REFLECTION_PROMPT = """\
An action in a Goal-Oriented Action Planning (GOAP) system failed.

Action: {action_name}
Error: {error}
World state at failure: {world_state}

Analyze what went wrong in 1-2 sentences (the "reflection").
Then suggest how to fix or avoid this failure in 1-2 sentences (the "suggestion").

Return your analysis in this exact format:
Reflection: <your analysis>
Suggestion: <your suggestion>
"""


def _template_reflection(action_name: str, error: str) -> tuple[str, str]:
    return (
        f"Action '{action_name}' failed with error: {error}. The action's preconditions may not have been "
        f"fully met, or the action's implementation may have an issue.",
        f"Consider alternative actions that achieve the same effect, or verify that '{action_name}' has "
        f"the correct preconditions and a robust implementation.",
    )


def _parse_llm_response(text: str) -> tuple[str, str]:
    """``(reflection, suggestion)`` from ``Reflection: ...`` / ``Suggestion: ...`` lines, with fallbacks."""
    found: dict[str, str] = {}
    for line in text.strip().split("\n"):
        head, sep, rest = line.strip().partition(":")
        if sep and head.lower() in ("reflection", "suggestion"):
            found[head.lower()] = rest.strip()
    reflection = found.get("reflection") or text.strip()
    return reflection, found.get("suggestion") or "Consider alternative approaches."


def _failures(result: Any) -> list[tuple[str, str]]:
    """``(action name, error)`` of each failed entry of an ``action_failed`` result."""
    if not isinstance(result, Mapping) or result.get("status") != "action_failed":
        return []
    return [
        (getattr(e, "action_name", "unknown"), getattr(e, "error", "unknown error") or "unknown error")
        for e in result.get("execution_history", [])
        if hasattr(e, "success") and not e.success
    ]


def _store_of(history: Any) -> Any:
    """The LangGraph store behind ``history``: its ``store``, else ``_store``.

    LangGOAP's tracer reads ``history._store``, so histories written for it (and its tests'
    stand-ins) expose only that attribute; it is their interface, not our private name.
    """
    if history is None:
        return None
    store = getattr(history, "store", None)
    return store if store is not None else getattr(history, "_store", None)


class ReflexionTracer:
    """A planning tracer that writes a :class:`Reflection` for every failed action (see the module docstring)."""

    def __init__(self, llm: Any = None, history: Any = None, max_reflections: int = 5) -> None:
        self._llm = llm
        self._store = _store_of(history)
        self._max_reflections = max_reflections
        self._reflections: list[Reflection] = []
        self._current_world_state: dict[str, Any] = {}
        self._loaded = self._store is None

    @property
    def reflections(self) -> list[Reflection]:
        """A copy of the kept reflections, oldest first."""
        return list(self._reflections)

    def _generate_reflection(self, action_name: str, error: str, world_state: dict[str, Any]) -> Reflection:
        text: tuple[str, str] | None = None
        if self._llm is not None:
            try:
                from langchain_core.messages import HumanMessage

                prompt = _REFLECTION_PROMPT.format(
                    action_name=action_name, error=error, world_state=world_state
                )
                response = self._llm.invoke([HumanMessage(content=prompt)])
                text = _parse_llm_response(
                    response.content if hasattr(response, "content") else str(response)
                )
            except Exception as exc:  # a failing model must not break the run
                logger.warning("LLM reflection failed: %s; falling back to template", exc)
        reflection, suggestion = text or _template_reflection(action_name, error)
        return Reflection(action_name, error, reflection, suggestion, datetime.now(UTC).isoformat())

    def _hydrate(self, value: Any) -> None:
        if value:
            loaded = [
                Reflection(**{k: d[k] for k in Reflection.__slots__}) for d in value.get("reflections", [])
            ]
            self._reflections = loaded[-self._max_reflections :]

    def load(self) -> None:
        """Read persisted reflections once (sync; a no-op without a store or when done)."""
        if self._loaded or self._store is None:
            return
        self._loaded = True
        try:
            item = self._store.get(_REFLECTIONS_NS, _REFLECTIONS_KEY)
            self._hydrate(getattr(item, "value", item))
        except Exception as exc:  # a failing store must not break the run
            logger.warning("ReflexionTracer: failed to load reflections: %s", exc)

    async def aload(self) -> None:
        """Read persisted reflections once, awaiting ``aget`` when the store has it."""
        if self._loaded or self._store is None:
            return
        self._loaded = True
        try:
            aget = getattr(self._store, "aget", None)
            item = (
                await aget(_REFLECTIONS_NS, _REFLECTIONS_KEY)
                if aget
                else self._store.get(_REFLECTIONS_NS, _REFLECTIONS_KEY)
            )
            self._hydrate(getattr(item, "value", item))
        except Exception as exc:  # a failing store must not break the run
            logger.warning("ReflexionTracer: failed to load reflections (async): %s", exc)

    def _payload(self) -> dict[str, Any]:
        return {"reflections": [asdict(r) for r in self._reflections]}

    def _keep(self, reflection: Reflection) -> None:
        self._reflections = [*self._reflections, reflection][-self._max_reflections :]

    def _add_reflection(self, reflection: Reflection) -> None:
        """Keep ``reflection`` (dropping the oldest beyond the limit) and persist (sync)."""
        self._keep(reflection)
        self._persist()

    def _persist(self) -> None:
        if self._store is None:
            return
        try:
            self._store.put(_REFLECTIONS_NS, _REFLECTIONS_KEY, self._payload())
        except Exception as exc:  # a failing store must not break the run
            logger.warning("ReflexionTracer: failed to persist reflections: %s", exc)

    async def _apersist(self) -> None:
        if self._store is None:
            return
        try:
            await self._store.aput(_REFLECTIONS_NS, _REFLECTIONS_KEY, self._payload())
        except Exception as exc:  # a failing store must not break the run
            logger.warning("ReflexionTracer: failed to persist reflections (async): %s", exc)

    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Load persisted reflections (first time) and log the kept ones."""
        self.load()
        if isinstance(state, dict):
            self._current_world_state = state
        if self._reflections:
            logger.info("Reflexion: %d reflections available from prior failures", len(self._reflections))
            for r in self._reflections:
                logger.info("  [%s] %s: %s → %s", r.timestamp, r.action_name, r.reflection, r.suggestion)

    def on_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Nothing to do."""

    def on_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Nothing to do."""

    def on_action_start(self, action: Any, state: Any) -> None:
        """Remember the world state a failure would be reflected on."""
        if isinstance(state, dict):
            self._current_world_state = state

    def on_action_complete(self, result: Any) -> None:
        """Reflect on each failure of ``result`` and persist."""
        for name, error in _failures(result):
            self._add_reflection(self._generate_reflection(name, error, self._current_world_state))

    def on_replan(self, reason: str, new_plan: Any) -> None:
        """Nothing to do."""

    def on_goal_achieved(self, final_state: Any) -> None:
        """Nothing to do."""

    def on_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Nothing to do."""

    async def aon_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Async :meth:`on_plan_start` (loads through ``aget``)."""
        await self.aload()
        self.on_plan_start(goal, state, strategy_name)

    async def aon_plan_complete(self, plan: Any, duration_ms: float) -> None:
        """Nothing to do."""

    async def aon_plan_failed(self, reason: str, duration_ms: float) -> None:
        """Nothing to do."""

    async def aon_action_start(self, action: Any, state: Any) -> None:
        """Async :meth:`on_action_start`."""
        self.on_action_start(action, state)

    async def aon_action_complete(self, result: Any) -> None:
        """Async :meth:`on_action_complete` (persists through ``aput``)."""
        for name, error in _failures(result):
            self._keep(self._generate_reflection(name, error, self._current_world_state))
            await self._apersist()

    async def aon_replan(self, reason: str, new_plan: Any) -> None:
        """Nothing to do."""

    async def aon_goal_achieved(self, final_state: Any) -> None:
        """Nothing to do."""

    async def aon_sensor_complete(self, sensor_name: str, updates: Any) -> None:
        """Nothing to do."""
