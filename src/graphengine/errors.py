"""Errors raised by the engine.

    GraphError                          root of every engine error
    ├── GraphValidationError            the graph is malformed (found before the first step)
    │   ├── DuplicateNodeError          a node id added twice
    │   ├── UnknownNodeError            an edge, start or goto names a node that does not exist
    │   └── NoStartNodeError            no start node was set
    ├── StateValidationError            a state (initial, or decoded) fails the state type
    ├── DeltaTypeError                  a node returned a delta that is not the state type
    ├── NodeReturnTypeError             a node returned something that is not a NodeResult (or one
    │                                   whose route is not a `Next`)
    ├── RunExistsError                  run() on an id already stored: use resume()
    ├── RunNotFoundError                resume/get_state/history of an unknown run id
    ├── RunBusyError                    run/resume of a run another caller is driving, or whose
    │                                   interrupt another resume answered: nothing was run
    ├── RunNotFinishedError             continue_run/update_state of a run still running (names it)
    ├── ContextMissingError             a node read `ctx.context` during a replay given no context
    ├── WaitError                       ctx.sleep/ctx.wait_for where a run cannot wait (a fan-out
    │                                   branch), or a store that keeps no timers
    ├── SignalRefusedError              a signal to an unknown run, or to a run that is done
    ├── GraphChangedError               resume with a graph whose fingerprint differs
    ├── SchemaVersionError              a stored state version with no migration path to the engine's
    │   └── MigrationError              a migration function raised (cause in __cause__)
    ├── BudgetExceededError             a state field passed its size budget (strict budgets)
    ├── MaxStepsExceeded                the run hit Options.max_steps
    ├── UnsupportedFeature              an adapter cannot carry a feature of a graph (names the node)
    ├── StepError                       a step could not be completed outside its node (cause in __cause__)
    │   ├── ReducerError                the reducer raised merging a delta
    │   ├── RoutingError                an edge predicate raised choosing the next node
    │   └── EncodeError                 a delta, state, route or event cannot be stored so that it
    │                                   reads back (NaN/infinity, nesting too deep, a value that
    │                                   does not validate, an object JSON cannot hold), or the
    │                                   store can never take it (over its `max_value_bytes`, or
    │                                   refused with `store.ValueRefusedError`, the cause)
    └── NodeError                       a node failed after its retries (cause in __cause__)
        └── NodeTimeoutError            ... by exceeding its timeout

Every error raised inside a step (the node, the reducer, a predicate, the codec) reaches the
caller as one of these, naming run, step and node, and leaves the run `failed` with nothing of
that step committed; `resume` retries the step once the cause is fixed. Errors of emitters never
reach the run (they are logged).

`ToolCallError` (from `ctx.call`) is raised to the node, like an exception of its own code, so
retries and error routes apply to it; it is not part of this tree. Nor is `SubgraphError`, a
child run's failure raised in its parent's subgraph node for the same reason: the caller gets the
parent's `NodeError`, naming the parent run. Nor is `WaitTimeoutError`, raised to a node whose
`ctx.wait_for` timeout passed before its signal came.

Store errors (`store.StoreError`, e.g. `CorruptRecordError` for an undecodable step row) pass
through the engine unchanged and leave the run as it was (`running`, resumable once the store is
back), except `store.ValueRefusedError`: a step the store can never take fails the run with an
`EncodeError` (the refusal as `__cause__`), as resuming would only fail the same way. Every engine error carries `run_id`, `step` and `node_id` when
they are known.
"""

from __future__ import annotations

from typing import TypedDict, Unpack

__all__ = [
    "BudgetExceededError",
    "ContextMissingError",
    "DeltaTypeError",
    "DuplicateNodeError",
    "EncodeError",
    "GraphChangedError",
    "GraphError",
    "GraphValidationError",
    "MaxStepsExceeded",
    "MigrationError",
    "NoStartNodeError",
    "NodeError",
    "NodeReturnTypeError",
    "NodeTimeoutError",
    "ReducerError",
    "RoutingError",
    "RunBusyError",
    "RunExistsError",
    "RunNotFinishedError",
    "RunNotFoundError",
    "SchemaVersionError",
    "SignalRefusedError",
    "StateValidationError",
    "StepError",
    "UnknownNodeError",
    "UnsupportedFeature",
    "WaitError",
]


class _Where(TypedDict, total=False):
    # The keywords naming where an error happened: `GraphError` takes them, and the subclasses
    # that add keywords of their own pass them on.
    run_id: str | None
    step: int | None
    node_id: str | None


class GraphError(Exception):
    """Root of every engine error; `run_id`, `step` and `node_id` say where it happened (None: not known)."""

    def __init__(self, msg: str, **where: Unpack[_Where]) -> None:
        super().__init__(msg)
        self.run_id = where.get("run_id")
        """The run concerned, if any."""
        self.step = where.get("step")
        """The step concerned, if any."""
        self.node_id = where.get("node_id")
        """The node concerned, if any."""


class GraphValidationError(GraphError):
    """The graph is malformed; raised by `Engine.validate()` and before a run's first step."""


class DuplicateNodeError(GraphValidationError):
    """A node id was added twice."""


class UnknownNodeError(GraphValidationError):
    """An edge, the start, or a route names a node that is not in the graph."""


class NoStartNodeError(GraphValidationError):
    """No start node was set with `start_at`."""


class StateValidationError(GraphError):
    """A state does not validate against the engine's state type; the message has the field errors."""


class DeltaTypeError(GraphError):
    """A node returned a delta whose type is not the engine's state type."""


class NodeReturnTypeError(GraphError):
    """A node returned something other than a `NodeResult` (or None)."""


class RunExistsError(GraphError):
    """`run()` was called with an id that is already stored; use `resume()`."""


class RunNotFoundError(GraphError):
    """No run with this id is stored."""


class RunBusyError(GraphError):
    """Another caller is driving the run, or another resume took the answer of its interrupt.

    Raised by `run`/`resume` before anything of the run was executed or written: a run is
    driven by one caller at a time (see `Engine.resume`), so an interrupt's answer is consumed
    once. The run is left as the other caller leaves it; read it (`get_run`) to see where it went.
    """


class RunNotFinishedError(RunBusyError):
    """`continue_run` or `update_state` of a run whose turn is still running: nothing was written.

    A `RunBusyError` (one driver at a time). A run left `running` by a process that died is
    finished first with `resume(run_id)`, then continued or edited.
    """


class ContextMissingError(GraphError):
    """A node read `ctx.context` during a replay that was given no context.

    The run context is never stored; `replay(run_id, context=...)` hands it again
    (`context=None` for a run that had none).
    """


class WaitError(GraphError):
    """A node called `ctx.sleep` or `ctx.wait_for` where a run cannot wait (a fan-out branch), or
    the engine's store keeps no timers (`store.WaitStore`)."""


class SignalRefusedError(GraphError):
    """`Engine.signal` to a run that does not exist, or that is done (nothing waits for it any more).

    `status` is the run's status, or None for an unknown run. Nothing was stored.
    """

    def __init__(self, msg: str, *, run_id: str, status: str | None) -> None:
        super().__init__(msg, run_id=run_id)
        self.status = status
        """The run's status (`done`), or None when there is no such run."""


class GraphChangedError(GraphError):
    """The graph's fingerprint differs from the one the run started with.

    Raised by `resume` and `replay` before anything runs; the message names what changed. The
    module code was imported under is not part of it (`python app.py` and `graphengine resume
    app:ENGINE` name the same graph). To go on anyway: `allow_graph_change=True`, the command's
    `--allow-graph-change`, the HTTP API's `?allow_graph_change=true` (409 without it).
    """

    def __init__(self, msg: str, *, run_id: str, stored: str, current: str) -> None:
        super().__init__(msg, run_id=run_id)
        self.stored = stored
        """Fingerprint recorded by the run."""
        self.current = current
        """Fingerprint of the engine asked to continue it."""


class SchemaVersionError(GraphError):
    """A run's stored state version cannot be brought to the engine's (missing migration, or newer).

    Separate from `GraphChangedError`: this is about the state type, that is about the nodes.
    """

    def __init__(self, msg: str, *, run_id: str, step: int | None = None, stored: int, current: int) -> None:
        super().__init__(msg, run_id=run_id, step=step)
        self.stored = stored
        """The version the run's data was written in."""
        self.current = current
        """The engine's version."""


class MigrationError(SchemaVersionError):
    """A state migration function raised while bringing stored data to the engine's version."""


class StepError(GraphError):
    """A step failed outside its node's own code; nothing of the step was committed.

    The original exception is `__cause__`. Raised as such for an unexpected failure inside the
    step loop; the subclasses name the usual ones.
    """


class ReducerError(StepError):
    """The reducer raised while merging a delta into the state."""


class RoutingError(StepError):
    """An edge predicate (`connect(..., when=...)`) raised while choosing the next node."""


class EncodeError(StepError):
    """A value cannot be stored so that it reads back exactly; `field` names which.

    JSON has no NaN or infinity (they would be stored as null), nesting deeper than the codec
    reads back is refused, and so is a value that does not validate as the state type (built with
    `model_construct`, or changed after validation) or that JSON cannot hold at all (`object()`,
    bytes that are not UTF-8, lone surrogates), or that JSON would give back as another type in a
    field whose type does not fix it (a tuple, an Enum, a datetime or an int key in an `Any` field;
    the message names the path and the type to declare), a tool result with no JSON form (the
    message names the tool), or a resume input, event meta or interrupt payload that is not
    plain JSON. So is a step the store can never take: one whose
    encoded fields add up to more than the store's `max_value_bytes` (checked before writing;
    `field` names the largest), or one the database refused (`store.ValueRefusedError` as
    `__cause__`; `field` is "step").
    """

    def __init__(self, msg: str, *, field: str = "", **where: Unpack[_Where]) -> None:
        super().__init__(msg, **where)
        self.field = field
        """What could not be stored: "delta", "state", "route", "events", "calls", "branch 3 delta"..."""


class BudgetExceededError(GraphError):
    """A state field's encoded size passed its budget under `Options(strict_budgets=True)`."""

    def __init__(
        self, msg: str, *, run_id: str, step: int, node_id: str, field: str, size: int, budget: int
    ) -> None:
        super().__init__(msg, run_id=run_id, step=step, node_id=node_id)
        self.field = field
        """The field."""
        self.size = size
        """Its encoded size in bytes."""
        self.budget = budget
        """Its budget in bytes."""


class MaxStepsExceeded(GraphError):
    """The run reached `Options.max_steps` without stopping; resume with a higher limit to go on."""


class UnsupportedFeature(GraphError):
    """An adapter (e.g. `graphengine.adapters.langgraph`) cannot carry a feature of a graph.

    `node_id` names the node concerned (when there is one) and `feature` the construct; the
    message says what to change.
    """

    def __init__(self, msg: str, *, feature: str, node_id: str | None = None) -> None:
        super().__init__(msg, node_id=node_id)
        self.feature = feature
        """The construct that cannot be carried (e.g. "parallel edges", "retry_policy")."""


class NodeError(GraphError):
    """A node raised (or returned `err`) on its last attempt; the original error is `__cause__`."""

    def __init__(
        self, msg: str, *, attempts: int = 1, branch: int | None = None, **where: Unpack[_Where]
    ) -> None:
        super().__init__(msg, **where)
        self.attempts = attempts
        """How many attempts were made."""
        self.branch = branch
        """Index of the failing fan-out branch, when a branch failed."""


class NodeTimeoutError(NodeError):
    """A node exceeded its timeout on its last attempt."""
