"""Observability hooks for the GOAP planning loop.

Public surface:

* :class:`PlanningTracer` — the Protocol implemented by every tracer.
* :class:`NullTracer` — zero-overhead default (every hook is a pass).
* :class:`LoggingTracer` — stdlib-``logging``-backed tracer for local
  debugging.
* :class:`MultiTracer` — fan a single event out to multiple tracers.
* :class:`SafeTracerProxy` — wraps a tracer so a failing hook never breaks a run.

``LangSmithTracer`` is only a name here: constructing it raises
:class:`~goap.compat.tracing.langsmith.LangSmithUnavailableError`.

Ported from ``langgoap.tracing`` (langgoap 0.1.2, MIT licence, Integrallis Software).
"""

from __future__ import annotations

from goap.compat.tracing._protocol import PlanningTracer
from goap.compat.tracing._safe_proxy import SafeTracerProxy
from goap.compat.tracing.langsmith import LangSmithTracer
from goap.compat.tracing.logging import LoggingTracer
from goap.compat.tracing.multi import MultiTracer
from goap.compat.tracing.null import NullTracer

__all__ = [
    "LangSmithTracer",
    "PlanningTracer",
    "NullTracer",
    "LoggingTracer",
    "MultiTracer",
    "SafeTracerProxy",
]
