"""The LangGOAP-style GOAP loop as a ``graphengine.Engine``: what ``GoapGraph`` compiles and runs.

Nodes ``planner``, ``executor`` and ``observer`` over :class:`~goap.compat.graph.state.GoapState`
(its ``execution_history`` reducer is the engine's per-field reducer), wired
``planner -> executor -> observer``; the observer routes with the engine's ``goto``/``stop``,
translated from the ``Command`` the observer returns. Each node is a ``DualNode``: the
engine, and LangGraph's ``ainvoke``, run its async form (``acall``: async tracer hooks,
sensors and guards), LangGraph's ``invoke`` its sync form (``__call__``), as LangGraph ran
the ``RunnableLambda(func, afunc)`` nodes of the LangGraph-built graph. States are stored with
:class:`~goap.compat.graph._codec.CompatStateCodec`.
"""

from __future__ import annotations

from collections.abc import Awaitable, Callable, Iterable, Mapping
from typing import Any

from langgraph.graph import END
from langgraph.types import Command
from pydantic import BaseModel

from goap.compat.actions import ActionSpec
from goap.compat.graph._codec import CompatStateCodec
from goap.compat.graph.nodes._execution import ENGINE_CONTEXT
from goap.compat.graph.state import GoapState
from graphengine import Context, DualNode, Engine, NodeResult, Options, goto, stop
from graphengine.emit import Emitter
from graphengine.store import Store

__all__ = ["build_engine", "engine_node", "node_result", "with_history"]


def node_result(out: Any) -> NodeResult[Any]:
    """A compat node's return value as the engine's: a dict is a delta (static edges route), a
    ``Command`` a delta and a hop (``END`` stops the run)."""
    if isinstance(out, Command):
        update = out.update
        delta = dict(update) if update else None
        target = out.goto
        if not isinstance(target, str):
            raise TypeError(
                f"a compat GOAP node routed to {target!r}; only one node name (or END) is supported"
            )
        return NodeResult(delta=delta, route=stop() if target == END else goto(target))
    if out is None:
        return NodeResult()
    if not isinstance(out, dict):
        raise TypeError(f"a compat GOAP node returned {type(out).__name__}, expected a dict or a Command")
    return NodeResult(delta=dict(out) if out else None)


def engine_node(
    sync_fn: Callable[[GoapState], Any],
    async_fn: Callable[[GoapState], Awaitable[Any]],
    record: tuple[str, CompatStateCodec] | None = None,
) -> DualNode[GoapState]:
    """The engine node running a compat node's ``__call__`` (sync) or ``acall`` (async).

    The step's context is published to the compat code (``ENGINE_CONTEXT``) while the node
    runs, so an action's approval pauses the engine run. With ``record=(name, codec)`` the
    async form's update (a dict) is recorded with the step (``ctx.call`` under ``name``, the
    update as the codec's JSON), so a replay serves the recorded plan or action outcome
    instead of planning (timings differ) or acting (side effects) again.
    """

    def run_sync(ctx: Context, state: GoapState) -> NodeResult[GoapState]:
        token = ENGINE_CONTEXT.set(ctx)
        try:
            out = sync_fn(state)
        finally:
            ENGINE_CONTEXT.reset(token)
        return with_history(state, node_result(out))

    async def arun(ctx: Context, state: GoapState) -> NodeResult[GoapState]:
        token = ENGINE_CONTEXT.set(ctx)
        try:
            # A replayed step whose record holds no call paused for an approval before its
            # action ran: it runs again and asks again, as it did.
            if record is None or (ctx.replaying and not ctx.recorded):
                out = await async_fn(state)
            else:
                name, codec = record

                async def step(_: Any) -> Any:
                    return codec.to_json(await async_fn(state))

                out = codec.from_json(await ctx.call(step, None, name=name))
        finally:
            ENGINE_CONTEXT.reset(token)
        return with_history(state, node_result(out))

    return DualNode(run_sync, arun)


def with_history(state: GoapState, result: NodeResult[Any]) -> NodeResult[Any]:
    """`result` with an empty ``execution_history`` added while the state has none.

    LangGraph's graph always has the key (its channel starts as ``[]``), so results of langgoap
    and of the compiled graph hold it even when no action ran (no plan, an empty action list);
    an engine state holds only keys written, so without this a run ending before any action
    would end without it (``result["execution_history"]`` raising ``KeyError``)."""
    if "execution_history" in state or (result.delta is not None and "execution_history" in result.delta):
        return result
    return result._replace(delta={**(result.delta or {}), "execution_history": []})


def build_engine(
    nodes: dict[str, Any],
    actions: Iterable[ActionSpec],
    *,
    store: Store | None = None,
    emitter: Emitter | None = None,
    options: Options | None = None,
    record: bool = False,
) -> Engine[GoapState]:
    """The engine of the GOAP loop over ``nodes`` (``planner``, ``executor``, ``observer``:
    objects with ``__call__`` and ``acall``).

    ``record=True`` records the planner's and executor's updates with their steps (see
    :func:`engine_node`) for replay: for runs stored by the engine, whose states the codec
    stores anyway; it needs unique action names (``ValueError`` otherwise) and storable
    effect and precondition values (``TypeError`` naming the value otherwise). Left False for the
    LangGraph graph, whose world states may hold values
    the codec cannot store (LangGraph's checkpointer stores them).
    """
    acts = list(actions)
    if record:
        # A stored plan names its actions: with two actions of one name, a resumed or replayed
        # run would read the plan back with the wrong one.
        seen: set[str] = set()
        for a in acts:
            if a.name in seen:
                raise ValueError(
                    f"two of the graph's actions are named {a.name!r}; a stored run needs unique names"
                )
            seen.add(a.name)
    forms: list[type[BaseModel]] = []
    for a in acts:
        req = a.require_human_approval
        if isinstance(req, type) and issubclass(req, BaseModel):
            forms.append(req)
    codec = CompatStateCodec(acts, forms)
    if record:
        # Plans carry the states an action's effects lead to, and approvals its preconditions:
        # a value the codec cannot store is named now, not when a step fails to store it.
        for a in acts:
            codec.check(dict(a.preconditions), f"action {a.name!r} preconditions")
            if isinstance(a.effects, Mapping):
                codec.check(dict(a.effects), f"action {a.name!r} effects")
    engine: Engine[GoapState] = Engine(
        GoapState,
        codec=codec,
        store=store,
        emitter=emitter,
        options=options,
    )
    for nid in ("planner", "executor", "observer"):
        obj = nodes[nid]
        rec = (f"compat:{nid}", codec) if record and nid != "observer" else None
        engine.add(nid, engine_node(obj.__call__, obj.acall, rec))
    engine.start_at("planner").connect("planner", "executor").connect("executor", "observer")
    return engine
