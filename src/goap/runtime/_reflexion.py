"""`ReflexionTracer`: one "[action_name] suggestion" note per failed action, kept in the run.

Given to ``GoapGraph(tracer=ReflexionTracer())`` (or ``reflexion=``), it replaces the executor's
default failure note: after each failure the executor asks it for a suggestion through
``ctx.call`` (so the note is recorded and a replay serves it), appends the note to
``GoapState.reflection_context`` and the tracer keeps it in `reflections` too. The suggestion
is a template unless a ``model`` is given: a graphengine ``ChatModel`` (its answer's text is the
suggestion) or any callable ``model(prompt) -> str`` (sync or async).
"""

from __future__ import annotations

import inspect
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from typing import Any

from goap.runtime._tracing import NullTracer

__all__ = ["Reflection", "ReflexionTracer"]

_PROMPT = """An action of an automated agent failed.
Action: {action}
Error: {error}
World state: {world}
In one or two sentences, suggest how to avoid or work around this failure.
Answer with the suggestion only."""


@dataclass(frozen=True, slots=True)
class Reflection:
    """One failure and what to do about it."""

    action: str
    """The failed action."""
    error: str
    """Its error."""
    suggestion: str
    """What to do about it."""

    @property
    def note(self) -> str:
        """The "[action] suggestion" entry written to ``reflection_context``."""
        return f"[{self.action}] {self.suggestion}"


class ReflexionTracer(NullTracer):
    """A planning tracer that turns each action failure into a suggestion (see the module docstring)."""

    def __init__(
        self,
        model: Any = None,
        *,
        max_reflections: int = 100,
    ) -> None:
        self.model: Callable[[str], str | Awaitable[str]] | Any = model
        """Writes suggestions from a prompt: a ``ChatModel`` or a callable (None: a template)."""
        self.max_reflections = max_reflections
        """How many reflections `reflections` keeps (oldest dropped first)."""
        self.reflections: list[Reflection] = []
        """The reflections made by this process, oldest first."""

    def template(self, action: str, error: str) -> str:
        """The suggestion written without a model."""
        return (
            f"failed with {error}; check that its preconditions really hold and that its "
            f"implementation is robust, or reach the goal through another action"
        )

    async def reflect(self, action: str, error: str, world: Mapping[str, Any]) -> str:
        """The note for one failure (also kept in `reflections`)."""
        if self.model is None:
            suggestion = self.template(action, error)
        else:
            prompt = _PROMPT.format(action=action, error=error, world=dict(world))
            if hasattr(self.model, "chat"):
                from graphengine.models import Message

                out: Any = (await self.model.chat([Message.user(prompt)])).text
            else:
                out = self.model(prompt)
                if inspect.isawaitable(out):
                    out = await out
            suggestion = " ".join(str(out).split()) or self.template(action, error)
        r = Reflection(action, error, suggestion)
        self.reflections.append(r)
        del self.reflections[: max(0, len(self.reflections) - self.max_reflections)]
        return r.note


class ReflectCall:
    """A reflection as a recorded tool call."""

    name = "reflect"

    def __init__(self, reflexion: ReflexionTracer, world: Mapping[str, Any]) -> None:
        self.reflexion = reflexion
        self.world = world

    async def call(self, ctx: Any, input: Any) -> Any:
        return await self.reflexion.reflect(str(input["action"]), str(input["error"]), self.world)
