"""No-op :class:`~goap.compat.tracing.PlanningTracer` (LangGOAP's ``NullTracer``)."""

from __future__ import annotations

from goap.compat.tracing._protocol import PlanningTracer

__all__ = ["NullTracer"]


class NullTracer(PlanningTracer):
    """No-op tracer — the default when no tracer is configured.

    Every hook, sync and async, is the protocol's own no-op (it returns None).
    """
