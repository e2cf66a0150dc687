"""The selector on the engine: the router of a node, behind a dual gate.

The selector acts only when the segment declares ``selector="goap_lite"`` **and** the runtime
flag is on: ``enabled=True`` passed to the router (the engine-side option), or, when
``enabled`` is None, the environment variable ``GRAPHENGINE_GOAP_SELECTOR=1`` read when the
router is built. With the gate closed the router returns the wrapped node's result untouched, so
the engine's step records are byte for byte those of the bare node.

With the gate open, declared routing still wins: a route the node returns, an error it reports,
or a static edge out of the node whose predicate holds on the merged state. Only when none of
those fires does the router call :func:`choose_next` and route to the decision's target.
"""

from __future__ import annotations

import inspect
import logging
import os
from collections.abc import Awaitable, Callable
from typing import Any, Generic, TypeVar, cast

from goap.selector._choose import Decision, SelectorContext, choose_next
from goap.selector._lint import load_segments
from goap.selector._model import GoalSegment
from graphengine import Context, Engine, NodeResult, goto

__all__ = ["ENV_FLAG", "SelectorRouter", "selector_enabled"]

S = TypeVar("S")

ENV_FLAG = "GRAPHENGINE_GOAP_SELECTOR"
"""Environment variable that turns the selector on (value ``1``) when no explicit flag is given."""

_log = logging.getLogger("goap.selector")


def selector_enabled(segment: GoalSegment, flag: bool | None = None) -> bool:
    """The dual gate: the segment declares ``goap_lite`` and the flag (default: ``$GRAPHENGINE_GOAP_SELECTOR == "1"``) is on."""
    on = os.environ.get(ENV_FLAG, "") == "1" if flag is None else flag
    return on and segment.selector == "goap_lite"


NodeCall = Callable[[Context, S], "NodeResult[S] | Awaitable[NodeResult[S]]"]
"""A node function the router wraps: ``(ctx, state) -> NodeResult`` (sync or async)."""


class SelectorRouter(Generic[S]):
    """A node whose next hop, when nothing declared fired, is chosen by :func:`choose_next`.

    ``node`` is the wrapped node (a function of ``(ctx, state)``, sync or async, or an object
    with such a ``run``); add the router under ``node_id`` with ``engine.add(node_id, router)``.
    ``read(state)`` builds the :class:`SelectorContext` from the state after the node's delta is
    merged; ``write(state, decision)`` returns the delta that stores the decision (at least the
    new ledger, and clears the observations and any model suggestion). Both must be pure.
    Static edges' predicates are evaluated on the merged state to see whether one fires, so
    they must be pure too (the engine evaluates them again).

    The segment is linted when the router is built (:class:`SegmentLintError` lists every problem).
    Ignored observations and model suggestions are logged on the ``goap.selector`` logger, and each
    decision is emitted as an event (observability only: it never changes a step record).
    """

    def __init__(
        self,
        engine: Engine[S],
        node_id: str,
        node: Any,
        segment: GoalSegment,
        *,
        read: Callable[[S], SelectorContext],
        write: Callable[[S, Decision], S],
        enabled: bool | None = None,
    ) -> None:
        load_segments([segment])
        run = getattr(node, "run", None)
        self._call: Callable[[Context, S], Any] = (
            run if callable(run) and not inspect.isfunction(node) else node
        )
        self.engine = engine
        """The engine the router is part of (its reducer and static edges are consulted)."""
        self.node_id = node_id
        """The id the router is added under."""
        self.segment = segment
        """The segment whose selector chooses."""
        self.active = selector_enabled(segment, enabled)
        """Whether the dual gate is open (decided once, when the router is built)."""
        self._read = read
        self._write = write

    async def run(self, ctx: Context, state: S) -> NodeResult[S]:
        """Run the wrapped node; route by the selector only when the gate is open and nothing declared fired."""
        out: Any = self._call(ctx, state)
        if inspect.isawaitable(out):
            out = await out
        res = cast("NodeResult[S]", out)
        if not self.active or not isinstance(out, NodeResult) or res.route is not None or res.err is not None:
            return res
        eng = self.engine
        merged = state if res.delta is None else eng.reducer(state, res.delta)
        for edge in eng.edges:
            if edge.src == self.node_id and (edge.when is None or edge.when(merged)):
                return res
        decision = choose_next(self.segment, self._read(merged))
        for note in decision.notes:
            _log.info("%s: %s", self.segment.name, note)
        ctx.emit(
            decision.reason, {"rule": decision.rule, "slot": decision.slot, "notes": list(decision.notes)}
        )
        extra = self._write(merged, decision)
        # Composing the two deltas with the reducer equals merging them one after the other.
        delta = extra if res.delta is None else eng.reducer(res.delta, extra)
        return NodeResult(delta=delta, route=goto(decision.target), events=res.events)
