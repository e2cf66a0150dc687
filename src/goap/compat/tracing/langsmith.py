"""The name ``LangSmithTracer``, kept so ``from goap.compat.tracing import LangSmithTracer`` imports.

goap.compat sends no traces to LangSmith: constructing the tracer raises
:class:`LangSmithUnavailableError`, which names what to use instead. Runs are observed through
:class:`~goap.compat.tracing.LoggingTracer`, a custom
:class:`~goap.compat.tracing.PlanningTracer`, or, on goap's own runtime, OpenTelemetry.
"""

from __future__ import annotations

from typing import Any

__all__ = ["LangSmithTracer", "LangSmithUnavailableError"]


class LangSmithUnavailableError(NotImplementedError):
    """goap.compat has no LangSmith tracer (langgoap's ``LangSmithTracer`` has no counterpart)."""


class LangSmithTracer:
    """langgoap's LangSmith tracer, not provided here: constructing one raises.

    Raises:
        LangSmithUnavailableError: always, naming the alternatives.
    """

    def __init__(self, *args: Any, **kwargs: Any) -> None:
        raise LangSmithUnavailableError(
            "goap.compat has no LangSmith tracer; trace with goap.compat.tracing.LoggingTracer, "
            "a PlanningTracer of your own (MultiTracer combines several), or goap.runtime's "
            "OpenTelemetry emitter"
        )
