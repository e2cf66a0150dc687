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

from ._blocking import run_blocking
from ._encoding import FAN_OUT_NODE, INPUT_NODE, UPDATE_NODE
from ._reads import Interrupt
from ._replay import Divergence, ReplayReport
from ._runtime import Runtime
from ._spec import EdgeSpec, GraphSpec, NodeInfo
from ._stream import RunStream
from ._version import __version__ as __version__
from .commute import MergeOrder, commutative, is_commutative, is_idempotent
from .context import Context, InterruptSignal, Signal, Tool, ToolCallError, WaitSignal, WaitTimeoutError
from .crdt import (
    CRDT,
    GCounter,
    LWWMap,
    LWWRegister,
    ORSet,
    PNCounter,
    converge,
    maximum,
    minimum,
    replica_id,
)
from .cron import CronError, CronExpr
from .engine import Engine
from .errors import (
    BudgetExceededError,
    ContextMissingError,
    DeltaTypeError,
    DuplicateNodeError,
    EncodeError,
    GraphChangedError,
    GraphError,
    GraphValidationError,
    MaxStepsExceeded,
    MigrationError,
    NodeError,
    NodeReturnTypeError,
    NodeTimeoutError,
    NoStartNodeError,
    ReducerError,
    RoutingError,
    RunBusyError,
    RunExistsError,
    RunNotFinishedError,
    RunNotFoundError,
    SchemaVersionError,
    SignalRefusedError,
    StateValidationError,
    StepError,
    UnknownNodeError,
    WaitError,
)
from .exports import publish as _publish
from .graph import Edge
from .history import StepView, field_sizes
from .node import DualNode, Node, NodeFunc, NodeLike, SyncNode, node
from .options import NodeOptions, Options
from .reducer import Reducer, append, default_reducer, delta_fields, merge, replace
from .result import NodeResult
from .routing import Branch, Next, NextKind, Wait, fan_out, goto, interrupt, sleep_until, stop
from .scheduler import Scheduler, Starter
from .schedules import Overlap, Schedule, ScheduleError, ScheduleNotFoundError, run_id_for
from .subgraph import Subgraph, SubgraphError
from .versions import Migration, VersionMap
from .waker import TimerWaker

__all__ = [
    "Branch",
    "BudgetExceededError",
    "CRDT",
    "Context",
    "ContextMissingError",
    "CronError",
    "CronExpr",
    "DeltaTypeError",
    "Divergence",
    "DualNode",
    "DuplicateNodeError",
    "Edge",
    "EdgeSpec",
    "EncodeError",
    "Engine",
    "FAN_OUT_NODE",
    "GCounter",
    "GraphChangedError",
    "GraphError",
    "GraphSpec",
    "GraphValidationError",
    "INPUT_NODE",
    "Interrupt",
    "InterruptSignal",
    "LWWMap",
    "LWWRegister",
    "MaxStepsExceeded",
    "MergeOrder",
    "Migration",
    "MigrationError",
    "Next",
    "NextKind",
    "NoStartNodeError",
    "Node",
    "NodeError",
    "NodeFunc",
    "NodeInfo",
    "NodeLike",
    "NodeOptions",
    "NodeResult",
    "NodeReturnTypeError",
    "NodeTimeoutError",
    "ORSet",
    "Options",
    "Overlap",
    "PNCounter",
    "Reducer",
    "ReducerError",
    "ReplayReport",
    "RoutingError",
    "RunBusyError",
    "RunExistsError",
    "RunNotFinishedError",
    "RunNotFoundError",
    "RunStream",
    "Runtime",
    "Schedule",
    "ScheduleError",
    "ScheduleNotFoundError",
    "Scheduler",
    "SchemaVersionError",
    "Signal",
    "SignalRefusedError",
    "Starter",
    "StateValidationError",
    "StepError",
    "StepView",
    "Subgraph",
    "SubgraphError",
    "SyncNode",
    "TimerWaker",
    "Tool",
    "ToolCallError",
    "UPDATE_NODE",
    "UnknownNodeError",
    "VersionMap",
    "Wait",
    "WaitError",
    "WaitSignal",
    "WaitTimeoutError",
    "append",
    "commutative",
    "converge",
    "default_reducer",
    "delta_fields",
    "fan_out",
    "field_sizes",
    "goto",
    "interrupt",
    "is_commutative",
    "is_idempotent",
    "maximum",
    "merge",
    "minimum",
    "node",
    "replace",
    "replica_id",
    "run_blocking",
    "run_id_for",
    "sleep_until",
    "stop",
]

_publish(__name__, globals(), __all__)
