"""LangGOAP's tracer protocol: goap.runtime's `SearchTracer` (its hooks plus routing, sensor and search)."""

from goap.runtime import SEARCH_HOOKS as EXTRA_HOOKS
from goap.runtime import SearchTracer as PlanningTracer

__all__ = ["EXTRA_HOOKS", "PlanningTracer"]
