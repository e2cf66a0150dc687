"""The parallel executor node: goap.runtime's executor with ``parallel=True``."""

from __future__ import annotations

import random
from collections.abc import Sequence
from typing import Any

from goap.compat.graph.nodes._bridge import Bridge
from goap.compat.graph.nodes.executor import GoapExecutor

__all__ = ["ParallelGoapExecutor"]


class ParallelGoapExecutor(GoapExecutor):
    """Runs the next independent actions of the plan together (goap's parallel batch)."""

    def __init__(
        self,
        *,
        tracer: Any = None,
        guards: Sequence[Any] | None = None,
        transition_model: Any = None,
        rng: random.Random | None = None,
        actions: Sequence[Any] | None = None,
    ) -> None:
        super().__init__(
            tracer=tracer, guards=guards, transition_model=transition_model, rng=rng, actions=actions
        )
        self._bridge = Bridge(
            self.actions, tracer=tracer, guards=guards, transition_model=transition_model, parallel=True
        )
