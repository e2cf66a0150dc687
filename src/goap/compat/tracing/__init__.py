"""LangGOAP's tracers over goap.runtime's tracer protocol, plus a LangSmith adapter."""

from goap.compat.tracing._protocol import PlanningTracer
from goap.compat.tracing._safe_proxy import SafeTracerProxy
from goap.compat.tracing.langsmith import LangSmithTracer
from goap.compat.tracing.logging import LoggingTracer
from goap.compat.tracing.multi import MultiTracer
from goap.compat.tracing.null import NullTracer

__all__ = [
    "LangSmithTracer",
    "LoggingTracer",
    "MultiTracer",
    "NullTracer",
    "PlanningTracer",
    "SafeTracerProxy",
]
