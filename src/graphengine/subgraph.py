"""An `Engine` used as a node of another engine (a subgraph)."""

from __future__ import annotations

from collections.abc import Callable
from typing import TYPE_CHECKING, Any, Generic, TypeVar

from graphengine.store import RunStatus

from .context import Context, InterruptSignal
from .errors import GraphError
from .result import NodeResult

if TYPE_CHECKING:
    from .engine import Engine

__all__ = ["Subgraph", "SubgraphError"]

P = TypeVar("P")
C = TypeVar("C")


class SubgraphError(Exception):
    """The child run of a subgraph node failed; raised in the parent's node, so the parent's
    retries and error routes apply and its `NodeError` names the parent run (the way out is
    resuming the parent, which resumes the child)."""

    def __init__(self, child_run_id: str, error: GraphError) -> None:
        self.child_run_id = child_run_id
        """The failed child run."""
        self.error = error
        """The child's own error (also `__cause__`)."""
        # The child's advice ("resume('parent/node/1')") would leave the parent failed.
        what = str(error).partition("; fix it and resume(")[0]
        super().__init__(f"child run {child_run_id!r} failed: {what}")


class Subgraph(Generic[P, C]):
    """Runs a child engine as one step of its parent.

    The child run's id is `"{parent run}/{node id}/{step}"`, so a retried or resumed parent
    step resumes the same child run instead of starting it again (give the child engine the
    parent's store for this to survive a crash). With `state_in`/`state_out` the child can
    have its own state type; without them it must share the parent's, and the child's final
    state replaces the parent's. An interrupt inside the child interrupts the parent; resuming
    the parent with input resumes the child with it. A failing child run raises
    `SubgraphError` in the parent's node: the caller gets the parent's `NodeError` (naming the
    parent run, the child's error inside), and resuming the parent resumes the child.
    """

    def __init__(
        self,
        engine: Engine[C],
        state_in: Callable[[P], C] | None = None,
        state_out: Callable[[P, C], P] | None = None,
    ) -> None:
        self.engine = engine
        """The child engine."""
        self.state_in = state_in
        """Maps the parent state to the child's initial state (None: the same state)."""
        self.state_out = state_out
        """Maps (parent state, child final state) to the parent's delta (None: replace the state)."""

    async def run(self, ctx: Context, state: P) -> NodeResult[P]:
        """Run (or resume) the child run for this step and return its result as a delta."""
        # The step the child was started at: a node continuing its interrupt runs at a later step.
        child_id = f"{ctx.run_id}/{ctx.node_id}/{ctx.interrupted_at or ctx.step}"
        eng = self.engine
        rec = await eng.store.get_run(child_id)
        given = ctx.given  # the run context reaches the child's nodes too, as LangGraph's subgraphs get it
        try:
            if rec is None:
                child_in: Any = self.state_in(state) if self.state_in is not None else state
                final = await eng.run(child_id, child_in, context=given)
            elif ctx.resumed:
                final = await eng.resume(child_id, input=ctx.resume_input, context=given)
            else:
                final = await eng.resume(child_id, context=given)
        except GraphError as exc:
            raise SubgraphError(child_id, exc) from exc
        if (await eng.get_run(child_id)).status is RunStatus.INTERRUPTED:
            pending = await eng.get_interrupt(child_id)
            raise InterruptSignal({"subgraph": child_id, "payload": pending.payload if pending else None})
        if self.state_out is not None:
            return NodeResult(delta=self.state_out(state, final))
        return NodeResult(delta=final)  # type: ignore[arg-type]
