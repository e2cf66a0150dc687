"""LangGOAP's tracers: goap.runtime's tracer protocol, null, logging and fan-out tracers, and adapters."""

import logging as _logging
from typing import Any as _Any

from goap.compat.tracing._protocol import EXTRA_HOOKS, PlanningTracer
from goap.compat.tracing._safe_proxy import SafeTracerProxy
from goap.compat.tracing.langsmith import LangSmithTracer
from goap.runtime import LoggingTracer as _RuntimeLoggingTracer
from goap.runtime import MultiTracer as _RuntimeMultiTracer
from goap.runtime import NullTracer

__all__ = [
    "LangSmithTracer",
    "LoggingTracer",
    "MultiTracer",
    "NullTracer",
    "PlanningTracer",
    "SafeTracerProxy",
]


class LoggingTracer(_RuntimeLoggingTracer):
    """goap.runtime's logging tracer, search events included, on the ``goap.compat.tracing`` logger."""

    hooks = _RuntimeLoggingTracer.hooks | frozenset(EXTRA_HOOKS)

    def __init__(
        self, logger: _logging.Logger | str = "goap.compat.tracing", level: int = _logging.INFO
    ) -> None:
        super().__init__(logger, level)


class MultiTracer(_RuntimeMultiTracer):
    """goap.runtime's fan-out tracer; ``reflections`` gathers those of the tracers keeping some."""

    @property
    def reflections(self) -> list[_Any]:
        """The reflections of every tracer that has them, in tracer order."""
        return [r for t in self.tracers for r in getattr(t, "reflections", ())]
