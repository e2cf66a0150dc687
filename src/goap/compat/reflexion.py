"""LangGOAP's Reflexion tracer over goap's (stored reflections load on first planning)."""

from __future__ import annotations

import asyncio
import logging
from collections.abc import Mapping
from dataclasses import asdict, dataclass
from datetime import UTC, datetime
from typing import Any

from goap.compat.history import _SyncStore
from goap.compat.sensors import _finish
from goap.runtime import ReflexionTracer as _GoapReflexion

__all__ = ["Reflection", "ReflexionTracer"]

_log = logging.getLogger(__name__)
_REFLECTIONS_NS, _REFLECTIONS_KEY = ("langgoap", "reflections"), "current"
_ASK = (
    "An action of a goal-oriented planning agent failed.\nAction: {action}\nError: {error}\nWorld state "
    "when it failed: {world}\nAnswer in two lines:\nReflection: <one or two sentences on what went wrong>"
    "\nSuggestion: <one or two sentences on how to avoid it next time>"
)


@dataclass(slots=True, frozen=True)
class Reflection:
    """One failure: the action, its error, what went wrong, what to try, when (ISO time)."""

    action_name: str
    error: str
    reflection: str
    suggestion: str
    timestamp: Any

    @property
    def note(self) -> str:
        """The ``reflection_context`` entry: ``[action] reflection -> suggestion``."""
        return f"[{self.action_name}] {self.reflection} -> {self.suggestion}"


def _parse_llm_response(text: str) -> tuple[str, str]:
    """(reflection, suggestion) of a model's answer; an unlabelled answer is all reflection."""
    found: dict[str, str] = {}
    for line in text.splitlines():
        label, _, rest = line.strip().partition(":")
        if label.lower() in ("reflection", "suggestion") and rest:
            found[label.lower()] = rest.strip()
    fallback = "Consider alternative approaches."
    return found.get("reflection") or text.strip(), found.get("suggestion") or fallback


class ReflexionTracer(_GoapReflexion):
    """Reflects on failed actions by template or ``llm`` (template on its failure); never raises."""

    reflections: list[Reflection]  # type: ignore[assignment]  # LangGOAP's records, not goap's

    def __init__(self, llm: Any = None, history: Any = None, max_reflections: int = 5) -> None:
        super().__init__(None, max_reflections=max_reflections)
        self.llm, self.history, self._loaded = llm, history, history is None
        self.world: Mapping[str, Any] = {}

    @property
    def _reflections(self) -> list[Reflection]:
        return self.reflections

    def _think(self, action: str, error: str, world: Mapping[str, Any]) -> Reflection:
        said = (f"Action {action!r} failed ({error}).", self.template(action, error))
        if self.llm is not None:
            try:
                from langchain_core.messages import HumanMessage

                ask = _ASK.format(action=action, error=error, world=dict(world))
                said = _parse_llm_response(str(getattr(self.llm.invoke([HumanMessage(ask)]), "content", "")))
            except Exception as exc:
                _log.warning("reflection model failed (%r); using the template", exc)
        return Reflection(action, error, *said, datetime.now(UTC).isoformat())

    def _store(self, sync: bool) -> Any:
        store = None if self.history is None else self.history._store
        return _SyncStore(store) if store is not None and (sync or not hasattr(store, "aget")) else store

    async def _add(self, r: Reflection, store: Any) -> None:
        self.reflections.append(r)
        del self.reflections[: max(0, len(self.reflections) - self.max_reflections)]
        try:
            if store is not None:
                value = {"reflections": [asdict(x) for x in self.reflections]}
                await store.aput(_REFLECTIONS_NS, _REFLECTIONS_KEY, value)
        except Exception as exc:
            _log.warning("could not store reflections: %r", exc)

    def _add_reflection(self, r: Reflection) -> None:
        _finish(self._add(r, self._store(True)))

    async def reflect(self, action: str, error: str, world: Mapping[str, Any]) -> str:
        """goap's hook: reflect on a failure of a goap run; the note for ``reflection_context``."""
        if self.llm is None:
            r = self._think(action, error, world)
        else:  # a model call blocks: keep it off the event loop
            r = await asyncio.to_thread(self._think, action, error, world)
        await self._add(r, self._store(False))
        return r.note

    async def _load(self, store: Any) -> None:
        if self._loaded:
            return
        self._loaded = True
        try:
            item = await store.aget(_REFLECTIONS_NS, _REFLECTIONS_KEY)
            kept = [Reflection(**d) for d in (getattr(item, "value", item) or {}).get("reflections", [])]
            self.reflections[:] = kept[-self.max_reflections :]
        except Exception as exc:
            _log.warning("could not load reflections: %r", exc)

    def load(self) -> None:
        """Read the stored reflections once (sync store API)."""
        _finish(self._load(self._store(True)))

    async def aload(self) -> None:
        """Read the stored reflections once (async store API when the store has it)."""
        await self._load(self._store(False))

    def on_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """Load stored reflections; log the ones available."""
        self.load()
        self.on_action_start(None, state)
        if self.reflections:
            notes = "; ".join(r.note for r in self.reflections)
            _log.info("%d reflections available from earlier failures: %s", len(self.reflections), notes)

    async def aon_plan_start(self, goal: Any, state: Any, strategy_name: str) -> None:
        """`on_plan_start`, loading through the async store API."""
        await self.aload()
        self.on_plan_start(goal, state, strategy_name)

    def on_action_start(self, action: Any, state: Any) -> None:
        """Remember the world the action starts from."""
        self.world = state if isinstance(state, dict) else self.world

    def _failures(self, result: Any) -> list[Reflection]:
        if not isinstance(result, dict) or result.get("status") != "action_failed":
            return []
        failed = [e for e in result.get("execution_history", []) if hasattr(e, "success") and not e.success]
        return [
            self._think(getattr(e, "action_name", "?"), e.error or "unknown error", self.world)
            for e in failed
        ]

    def on_action_complete(self, result: Any) -> None:
        """Reflect on the failed entries of a LangGOAP ``action_failed`` result."""
        for r in self._failures(result):
            self._add_reflection(r)

    async def aon_action_complete(self, result: Any) -> None:
        """`on_action_complete`, storing through the async store API."""
        for r in self._failures(result):
            await self._add(r, self._store(False))
