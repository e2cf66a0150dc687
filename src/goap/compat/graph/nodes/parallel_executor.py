"""The parallel executor node: goap.runtime's executor with ``parallel=True``."""

from __future__ import annotations

from goap.compat.graph.nodes.executor import GoapExecutor

__all__ = ["ParallelGoapExecutor"]


class ParallelGoapExecutor(GoapExecutor):
    """Runs the next independent actions of the plan together (goap's parallel batch)."""

    _parallel = True
