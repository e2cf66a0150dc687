"""The do-nothing tracer (goap.runtime's)."""

from goap.runtime import NullTracer

__all__ = ["NullTracer"]
