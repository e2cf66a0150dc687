"""LangGOAP's tracers: goap.runtime's protocol with search hooks, and its tracers."""

import logging as _logging

from goap.compat.tracing._protocol import EXTRA_HOOKS, PlanningTracer
from goap.compat.tracing._safe_proxy import SafeTracerProxy
from goap.compat.tracing.langsmith import LangSmithTracer
from goap.runtime import LoggingTracer as _RuntimeLoggingTracer
from goap.runtime import MultiTracer, NullTracer

__all__ = ["LangSmithTracer", "LoggingTracer", "MultiTracer", "NullTracer"]
__all__ += ["PlanningTracer", "SafeTracerProxy"]


class LoggingTracer(_RuntimeLoggingTracer):
    """goap.runtime's logging tracer, search events included, on the ``goap.compat.tracing`` logger."""

    hooks = _RuntimeLoggingTracer.hooks | frozenset(EXTRA_HOOKS)

    def __init__(
        self, logger: _logging.Logger | str = "goap.compat.tracing", level: int = _logging.INFO
    ) -> None:
        super().__init__(logger, level)
