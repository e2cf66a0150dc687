"""Fan-out tracer (goap.runtime's): each hook goes to every tracer, failures isolated."""

from goap.runtime import MultiTracer

__all__ = ["MultiTracer"]
