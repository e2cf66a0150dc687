"""graphengine: a typed, durable graph engine.

Build an `Engine[S]` over a state type, add nodes (functions of `(ctx, state)` returning a
`NodeResult`), wire them with `start_at`/`connect` or route dynamically with `goto`/`stop`,
and run it: every step is committed to a `store.Store`, so runs resume after a crash.

    >>> from pydantic import BaseModel
    >>> from graphengine import Engine, NodeResult, goto, stop
    >>> class S(BaseModel):
    ...     n: int = 0
    >>> g = Engine(S)
    >>> _ = g.add("inc", lambda ctx, s: NodeResult(delta=S(n=s.n + 1)))
    >>> _ = g.add("check", lambda ctx, s: NodeResult(route=stop() if s.n >= 3 else goto("inc")))
    >>> _ = g.start_at("inc").connect("inc", "check")
    >>> g.run_sync("t1", S())
    S(n=3)
"""

from .context import Context
from .engine import Engine
from .errors import (
    DeltaTypeError,
    DuplicateNodeError,
    GraphChangedError,
    GraphError,
    GraphValidationError,
    MaxStepsExceeded,
    NodeError,
    NodeReturnTypeError,
    NodeTimeoutError,
    NoStartNodeError,
    RunExistsError,
    RunNotFoundError,
    StateValidationError,
    UnknownNodeError,
)
from .graph import Edge
from .history import StepView
from .node import Node, NodeFunc, NodeLike, SyncNode, node
from .options import NodeOptions, Options
from .reducer import Reducer, append, default_reducer, merge, replace
from .result import NodeResult
from .routing import Next, NextKind, goto, stop

__all__ = [
    "Context",
    "DeltaTypeError",
    "DuplicateNodeError",
    "Edge",
    "Engine",
    "GraphChangedError",
    "GraphError",
    "GraphValidationError",
    "MaxStepsExceeded",
    "Next",
    "NextKind",
    "NoStartNodeError",
    "Node",
    "NodeError",
    "NodeFunc",
    "NodeLike",
    "NodeOptions",
    "NodeResult",
    "NodeReturnTypeError",
    "NodeTimeoutError",
    "Options",
    "Reducer",
    "RunExistsError",
    "RunNotFoundError",
    "StateValidationError",
    "StepView",
    "SyncNode",
    "UnknownNodeError",
    "append",
    "default_reducer",
    "goto",
    "merge",
    "node",
    "replace",
    "stop",
]
