"""Nodes: the `Node` protocol and how functions and objects become nodes."""

from __future__ import annotations

import asyncio
import inspect
from collections.abc import Awaitable, Callable
from dataclasses import dataclass
from typing import Any, Generic, Protocol, TypeAlias, TypeVar, runtime_checkable

from .context import Context
from .result import NodeResult

__all__ = ["DualNode", "Node", "NodeFunc", "NodeLike", "SyncNode", "node"]

S = TypeVar("S")


@runtime_checkable
class Node(Protocol[S]):
    """Anything with `async def run(ctx, state) -> NodeResult[S]`.

    A node must not mutate the state it is given (states are shared with the store's view of
    the run and with replay); it returns a delta instead.
    """

    async def run(self, ctx: Context, state: S) -> NodeResult[S]:
        """Execute the node on `state` and say what changed and where to go."""
        ...


@runtime_checkable
class SyncNode(Protocol[S]):
    """A node whose `run` is a plain function; it runs on the event loop unless added with
    `thread=True`, so it must not block for long."""

    def run(self, ctx: Context, state: S) -> NodeResult[S]:
        """Execute the node on `state`."""
        ...


NodeLike: TypeAlias = (
    "Node[S] | SyncNode[S] | Callable[[Context, S], Awaitable[NodeResult[S] | None]] "
    "| Callable[[Context, S], NodeResult[S] | None]"
)
"""What `Engine.add` accepts: a node object, or a function (sync or async) of (ctx, state)."""


@dataclass(frozen=True, slots=True)
class NodeFunc(Generic[S]):
    """Wraps a function of `(ctx, state)` (sync or async) as a `Node`."""

    fn: Callable[[Context, S], Any]
    """The wrapped function."""

    async def run(self, ctx: Context, state: S) -> NodeResult[S]:
        """Call the function, awaiting it if it is async."""
        out = self.fn(ctx, state)
        if inspect.isawaitable(out):
            out = await out
        return out if out is not None else NodeResult()


def _is_async(fn: Any) -> bool:
    """Whether calling `fn` gives a coroutine: a coroutine function, or an object whose
    `__call__` is one (`inspect.iscoroutinefunction` says no for such an object)."""
    return inspect.iscoroutinefunction(fn) or (
        callable(fn) and not inspect.isroutine(fn) and inspect.iscoroutinefunction(type(fn).__call__)
    )


@dataclass(frozen=True, slots=True)
class DualNode(Generic[S]):
    """A node with a sync and an async form of the same step, like LangGraph's
    `RunnableLambda(func, afunc)`.

    The engine always runs the async form (`arun`). A host that calls nodes synchronously runs
    the sync one: the LangGraph adapter (`to_langgraph`) runs `run_sync` under `graph.invoke`
    and `arun` under `graph.ainvoke`, so code whose hooks differ by calling style (sync tracer
    callbacks under `invoke`, async ones under `ainvoke`) behaves as it did in LangGraph.
    """

    run_sync: Callable[[Context, S], NodeResult[S] | None]
    """The sync form: a function of `(ctx, state)`."""
    arun: Callable[[Context, S], Awaitable[NodeResult[S] | None]]
    """The async form: a coroutine function of `(ctx, state)`."""

    def __post_init__(self) -> None:
        if not callable(self.run_sync) or _is_async(self.run_sync):
            raise TypeError(f"DualNode.run_sync must be a plain function, got {self.run_sync!r}")
        if not _is_async(self.arun):
            raise TypeError(f"DualNode.arun must be a coroutine function, got {self.arun!r}")

    async def run(self, ctx: Context, state: S) -> NodeResult[S]:
        """The async form (what the engine runs)."""
        out = await self.arun(ctx, state)
        return out if out is not None else NodeResult()


def node(fn: Callable[[Context, S], Any]) -> NodeFunc[S]:
    """Decorator form of `NodeFunc`: `@node async def fetch(ctx, s): ...`."""
    return NodeFunc(fn)


@dataclass(frozen=True, slots=True)
class Invoker:
    """How the engine calls one node, decided once when the node is added."""

    call: Callable[[Context, Any], Any]
    """Callable returning a NodeResult or an awaitable of one."""
    is_async: bool
    """Whether `call` returns an awaitable that must be awaited."""
    thread: bool = False
    """A sync function run in a worker thread (`thread=True`): a timeout cannot stop it."""
    sync_call: Callable[[Context, Any], Any] | None = None
    """The sync form of a `DualNode` (None for other nodes): what synchronous hosts call."""


def make_invoker(obj: Any, *, thread: bool = False) -> Invoker:
    """Return the invoker for a node object or function; `TypeError` if it is neither."""
    if isinstance(obj, NodeFunc):
        obj = obj.fn
    if isinstance(obj, DualNode):
        return Invoker(obj.run, True, sync_call=obj.run_sync)
    run = getattr(obj, "run", None)
    fn = run if callable(run) and not inspect.isfunction(obj) else obj
    if not callable(fn):
        raise TypeError(f"a node must be a function of (ctx, state) or have run(ctx, state), got {obj!r}")
    if inspect.iscoroutinefunction(fn):
        return Invoker(fn, True)
    if thread:

        async def in_thread(ctx: Context, state: Any) -> Any:
            return await asyncio.to_thread(fn, ctx, state)

        return Invoker(in_thread, True, True)
    return Invoker(fn, False)
