"""`Context`: what a node knows about the run it is part of."""

from __future__ import annotations

import inspect
import math
import time
from collections.abc import Mapping, Sequence
from contextvars import ContextVar
from dataclasses import dataclass
from datetime import timedelta
from types import MappingProxyType
from typing import Any, Generic, Protocol, runtime_checkable

from pydantic import TypeAdapter
from pydantic_core import to_jsonable_python
from typing_extensions import TypeVar

from graphengine.emit import Emitter, Event, EventKind, safe_emit
from graphengine.store import adaptable_type

from ._jsonvalue import not_json
from .errors import ContextMissingError, EncodeError, WaitError

__all__ = [
    "NOT_GIVEN",
    "SLEEP_TOOL",
    "WAIT_TOOL",
    "Context",
    "InterruptSignal",
    "Signal",
    "Tool",
    "ToolCallError",
    "WAIT_SCOPE",
    "WaitScope",
    "WaitSignal",
    "WaitTimeoutError",
]

C = TypeVar("C", default=Any)
"""The type of the run context (`Context.context`); `Context` alone means `Context[Any]`."""


@runtime_checkable
class Tool(Protocol):
    """A named side effect a node runs through `ctx.call`, so its result is recorded."""

    name: str
    """Stable name; replay checks that the same tool is called at the same position."""

    async def call(self, ctx: Context, input: Any) -> Any:
        """Perform the side effect and return a JSON-compatible result (or a pydantic model)."""
        ...


class ToolCallError(Exception):
    """A tool call failed (live), or replay found a call that does not match the record."""

    def __init__(self, msg: str, *, tool: str, error_type: str = "") -> None:
        super().__init__(msg)
        self.tool = tool
        """The tool's name."""
        self.error_type = error_type
        """Type name of the original exception, when the tool raised."""


class InterruptSignal(BaseException):
    """Raised by `Context.interrupt` to pause the run; the engine catches it.

    A BaseException so that a node's `except Exception` does not swallow the pause.
    """

    def __init__(self, payload: Any) -> None:
        super().__init__(payload)
        self.payload = payload
        """What the interrupt shows."""


class WaitSignal(BaseException):
    """Raised by `Context.sleep` and `Context.wait_for` to make the run wait; the engine catches it.

    A BaseException, like `InterruptSignal`, so that a node's `except Exception` does not swallow it.
    """

    def __init__(self, until: float | None, signal: str | None) -> None:
        super().__init__(until, signal)
        self.until = until
        """When the wait ends (seconds since the epoch), or None."""
        self.signal = signal
        """The signal waited for, or None."""


class WaitTimeoutError(Exception):
    """`ctx.wait_for(name, timeout=...)`: the timeout passed before a signal `name` came.

    Raised to the node, like an exception of its own code (so retries and error routes apply);
    a replay raises it at the same place. Catch it to go on without the signal.
    """

    def __init__(self, msg: str, *, name: str, until: float) -> None:
        super().__init__(msg)
        self.name = name
        """The signal that did not come."""
        self.until = until
        """The deadline that passed (seconds since the epoch)."""


@dataclass(frozen=True, slots=True)
class Signal:
    """A signal `ctx.wait_for` received: what `Engine.signal(run_id, name, payload, id=...)` sent."""

    name: str
    """The signal's name."""
    id: str
    """The sender's signal id (a second signal with this id was not stored)."""
    payload: Any
    """The payload, as the JSON value it was stored as."""
    ts: float
    """When it was received, seconds since the epoch."""
    taken_step: int | None = None
    """In a run's signal listing: the step whose node received it (None: still buffered)."""


@dataclass(slots=True)
class WaitScope:
    """What the step loop driving a run gives its nodes' waits (a context variable, so building
    a `Context` per node execution costs nothing more)."""

    waiter: Any
    """The run's clock and signal box (`graphengine._waits.Waiter`)."""
    step: int
    """The step whose node continues its own wait (0: none)."""
    prior: Sequence[Mapping[str, Any]] | None
    """The calls the waiting step recorded, served in order to that step's node."""
    run_id: str
    """The run being driven."""


WAIT_SCOPE: ContextVar[WaitScope | None] = ContextVar("graphengine_wait_scope", default=None)
"""The wait scope of the run the current task drives (None outside the step loop)."""


SLEEP_TOOL = "graphengine.sleep"
"""The tool name `ctx.sleep` records among a step's calls."""
WAIT_TOOL = "graphengine.wait_for"
"""The tool name `ctx.wait_for` records among a step's calls."""

_EMPTY: Mapping[str, Any] = MappingProxyType({})


class _NotGiven:
    """The run context of a replay that was not handed one: reading it raises `ContextMissingError`."""

    __slots__ = ()

    def __repr__(self) -> str:
        return "<context not given>"


NOT_GIVEN: Any = _NotGiven()
"""What `Context` holds when the caller of a replay passed no `context=`."""


def _missing(ctx: Context[Any]) -> ContextMissingError:
    return ContextMissingError(
        f"step {ctx.step} (node {ctx.node_id!r}) of run {ctx.run_id!r} reads ctx.context, which is "
        f"never stored: pass the run's context again, replay({ctx.run_id!r}, context=...) "
        "(context=None if the run had none)",
        run_id=ctx.run_id,
        step=ctx.step,
        node_id=ctx.node_id,
    )


@dataclass(slots=True)
class Context(Generic[C]):
    """Per-execution facts handed to a node: run id, step, node id, attempt, the emitter, and the
    run context (`context`): per-run values that are not state, typed by annotating the node's
    parameter `ctx: Context[MyDeps]`.

    Treat it as read-only. (It is not a frozen dataclass because one is built per node
    execution and frozen construction would double its cost on the step path.)

    Cancellation is asyncio's: a cancelled run cancels the running node's task.
    """

    run_id: str
    """The run being executed."""
    step: int
    """Number of the step being executed (1-based)."""
    node_id: str
    """The node being executed."""
    attempt: int = 1
    """1 on the first try, 2 on the first retry, ..."""
    emitter: Emitter | None = None
    """Where `emit` sends events (None: dropped)."""
    resume_input: Any = None
    """The value passed to `resume(run_id, input=...)` when this execution continues an interrupt."""
    resumed: bool = False
    """Whether this execution continues an interrupt (then `resume_input` holds the answer)."""
    branch: int | None = None
    """Index of the fan-out branch this execution is, or None outside a fan-out."""
    interrupted_at: int | None = None
    """When this execution continues the node's own interrupt: the step at which it interrupted."""
    recorded: Sequence[Mapping[str, Any]] | None = None
    """During replay: the tool calls recorded for this step, served instead of calling tools."""
    calls: list[dict[str, Any]] | None = None
    """Tool calls made by this execution so far (filled by `call`), recorded with the step."""
    given: Any = None
    """The run context as the caller handed it (read it as `context`)."""
    refused: EncodeError | None = None
    """A tool result `call` refused to record: the step fails with it even if the node caught it."""

    @property
    def context(self) -> C:
        """The run context: what the caller passed as `context=` to `run`, `resume` or `continue_run`.

        Per-run values that are not state (a user id, a client, a model choice), LangGraph's
        `context_schema` / `config["configurable"]`. None when the caller passed none. Never
        stored: a resume, a later turn or a replay gets the context its caller passes. Reading it
        during a replay given no `context=` raises `ContextMissingError` (the way out is in it).
        """
        value = self.given
        if value is NOT_GIVEN:
            raise _missing(self)
        return value  # type: ignore[no-any-return]

    @property
    def idempotency_key(self) -> str:
        """A key that is the same for every attempt of this step, in this and any resumed process.

        A node that was running when its process died runs again on resume; side effects keyed
        by this value can be made to happen once.
        """
        return f"{self.run_id}:{self.step}:{self.node_id}"

    @property
    def replaying(self) -> bool:
        """Whether this execution is a replay (tools are served from the record; skip observers)."""
        return self.recorded is not None

    def interrupt(self, payload: Any = None) -> Any:
        """Pause the run for outside input, or return the input when the run was resumed with it.

        The first time, this raises (do not catch it: it derives from BaseException): the run
        stops with status `interrupted` and `payload` is stored. `resume(run_id, input=v)` runs
        the node again from its start, and this call then returns `v`.
        """
        if self.resumed:
            return self.resume_input
        raise InterruptSignal(payload)

    async def call(
        self, tool: Tool | Any, input: Any = None, *, name: str | None = None, output: Any = None
    ) -> Any:
        """Run a side effect and record its result with this step; replay serves it from the record.

        `tool` is a `Tool` (`name` + `async call(ctx, input)`) or any callable of one argument,
        sync or async. The result is stored as JSON and what the node receives is that JSON
        value (validated into `output`, a type, when given), both live and on replay, so a
        replayed node sees exactly what the live one saw: a model or dataclass arrives as a dict,
        a datetime as its ISO string, a tuple as a list. A result with no JSON form (an arbitrary
        object, NaN, bytes that are not UTF-8) raises `EncodeError` (field "calls") naming the
        tool, and the step fails with it even if the node catches it. A raising tool is recorded too and
        raises `ToolCallError` (live and on replay). Calls made by a failed attempt are not
        recorded; key external effects on `idempotency_key`, as a node that was running when
        its process died runs again.
        """
        tname = (
            name
            or getattr(tool, "name", None)
            or getattr(tool, "__qualname__", None)
            or type(tool).__qualname__
        )
        made = self.calls
        if made is None:
            made = self.calls = []
        idx = len(made)
        served = self._served(idx, tname)
        if served is not None:
            entry = served
        else:
            entry = {"tool": tname, "input": to_jsonable_python(input, fallback=str)}
            try:
                fn = getattr(tool, "call", None)
                t: Any = tool
                out = fn(self, input) if callable(fn) and not inspect.isfunction(t) else t(input)
                if inspect.isawaitable(out):
                    out = await out
            except Exception as exc:
                try:
                    text = str(exc)
                except Exception as why:  # recorded all the same, so that live and replay agree
                    text = f"<str() raised {type(why).__name__}>"
                entry["error"] = f"{type(exc).__name__}: {text}"
                entry["error_type"] = type(exc).__name__
            else:
                entry["output"] = self._recordable(tname, idx, out)
        made.append(entry)
        if "error" in entry:
            raise ToolCallError(
                f"tool {tname!r} failed: {entry['error']}",
                tool=tname,
                error_type=str(entry.get("error_type", "")),
            )
        value = entry.get("output")
        return TypeAdapter(adaptable_type(output)).validate_python(value) if output is not None else value

    def _recordable(self, tname: str, idx: int, out: Any) -> Any:
        """The JSON value recorded of tool `tname`'s result `out`; `EncodeError` when there is none.

        Values with a JSON form (models, dataclasses, datetimes, tuples, Enums...) are recorded
        and handed to the node in that form, live and on replay alike. A result with none (an
        arbitrary object, NaN, bytes that are not UTF-8) is refused: recording its `str()` would
        hand replay a string where the live node had the object. The refusal stays on the
        context, so the step fails with it even if the node catches it.
        """
        try:
            value = to_jsonable_python(out)
            where = not_json(value, "output")
        except Exception as exc:  # no JSON form (pydantic's error, a bytes decode error, ...)
            where = f"output ({type(exc).__name__}: {str(exc)[:200]})"
        if where is None:
            return value
        err = EncodeError(
            f"node {self.node_id!r} at step {self.step} of run {self.run_id!r}: the result of tool "
            f"{tname!r} (call #{idx + 1}, a {type(out).__name__}) cannot be recorded so that replay "
            f"serves what the node got, at {where}; return JSON values, a pydantic model or a dataclass",
            run_id=self.run_id,
            step=self.step,
            node_id=self.node_id,
            field="calls",
        )
        self.refused = err
        raise err

    def _served(self, idx: int, tname: str) -> dict[str, Any] | None:
        """Call #`idx` as recorded: from the replayed step, or from the waiting step this execution
        continues (until the node calls something else there: then live from that call on)."""
        if self.recorded is not None:
            if idx >= len(self.recorded) or self.recorded[idx].get("tool") != tname:
                have = self.recorded[idx].get("tool") if idx < len(self.recorded) else "nothing"
                raise ToolCallError(
                    f"replay: step {self.step} node {self.node_id!r} calls {tname!r} as call #{idx + 1}, "
                    f"the record has {have!r}",
                    tool=tname,
                )
            return dict(self.recorded[idx])
        scope = self._scope()
        prior = scope.prior if scope is not None and scope.step == self.step else None
        if prior is not None:
            if idx < len(prior) and prior[idx].get("tool") == tname:
                return dict(prior[idx])
            scope.prior = None  # type: ignore[union-attr]  # the node took another path than before its wait
        return None

    def _scope(self) -> WaitScope | None:
        """The wait scope of this execution's run; None in a fan-out branch or outside the loop."""
        scope = WAIT_SCOPE.get()
        if scope is None or self.branch is not None or scope.run_id != self.run_id:
            return None
        return scope

    @property
    def woken(self) -> bool:
        """Whether this execution continues the node's own wait (`sleep`, `wait_for`), woken when due."""
        scope = self._scope()
        return scope is not None and scope.step == self.step and scope.prior is not None

    def _next_call(self) -> tuple[list[dict[str, Any]], int]:
        made = self.calls
        if made is None:
            made = self.calls = []
        return made, len(made)

    def _live_waiter(self, what: str) -> Any:
        scope = self._scope()
        w = scope.waiter if scope is not None else None
        if w is None:
            where = (
                f"branch {self.branch} (node {self.node_id!r})"
                if self.branch is not None
                else f"node {self.node_id!r}"
            )
            raise WaitError(
                f"{where} called ctx.{what} at step {self.step} of run {self.run_id!r}, where a run cannot "
                "wait (fan-out branches cannot: wait before the fan-out or at its join)",
                run_id=self.run_id,
                step=self.step,
                node_id=self.node_id,
            )
        return w

    async def sleep(self, delay: timedelta | float) -> None:
        """Wait `delay` (a `timedelta` or seconds) durably: the run commits this step and waits.

        The first time, the step is committed and the run becomes `waiting` until now + `delay`;
        nothing holds it meanwhile (no task, worker or memory). When due, the node runs again
        from its start (as after an interrupt) and this call returns at once: the deadline, and
        the results of the `ctx.call`s made before it, are served from the waiting step's record,
        so a process restart or a replay never computes a new deadline. A delay of zero or less
        returns at once. Raises `WaitError` inside a fan-out branch, `ValueError` for a delay
        that is not a finite number of seconds.
        """
        secs = _delay_seconds(delay, "ctx.sleep")
        made, idx = self._next_call()
        old = self._served(idx, SLEEP_TOOL)
        if self.recorded is not None:
            assert old is not None
            made.append(old)
            if not old.get("done"):
                raise WaitSignal(_float(old.get("until")), None)
            return
        now = self._live_waiter("sleep").now()
        until = _float(old.get("until")) if old is not None else None
        if until is None:
            until = now + secs
        done = now >= until
        made.append({"tool": SLEEP_TOOL, "until": until, "done": done})
        if not done:
            raise WaitSignal(until, None)

    async def wait_for(self, name: str, *, timeout: timedelta | float | None = None) -> Signal:  # noqa: ASYNC109 (a durable deadline: the run waits, not this call)
        """Wait durably for the signal `name` (`Engine.signal(run_id, name, payload)`); returns it.

        A signal that came before this call (buffered) is returned at once. Otherwise the step
        commits and the run becomes `waiting` for it (and for `timeout`, when given); the signal,
        or the deadline, wakes it, and the node runs again from its start with this call served
        from the record. Each signal is received once, oldest first. Raises `WaitTimeoutError`
        when `timeout` passes first (a replay raises it at the same place), `WaitError` inside a
        fan-out branch, `ValueError` for an empty name or a timeout that is not finite seconds.
        """
        if not isinstance(name, str) or not name:
            raise ValueError(f"ctx.wait_for needs a signal name, got {name!r}")
        secs = None if timeout is None else _delay_seconds(timeout, "ctx.wait_for timeout")
        made, idx = self._next_call()
        old = self._served(idx, WAIT_TOOL)
        if self.recorded is not None:
            assert old is not None
            entry = old
        elif old is not None and old.get("done"):
            entry = old
        else:
            w = self._live_waiter("wait_for")
            now = w.now()
            until = _float(old.get("until")) if old is not None else (None if secs is None else now + secs)
            entry = {"tool": WAIT_TOOL, "input": name, "until": until, "done": True}
            got = await w.take(name, self.step)
            if got is not None:
                entry["signal"] = got
            elif until is not None and now >= until:
                entry["timeout"] = True
            else:
                entry["done"] = False
        made.append(entry)
        until = _float(entry.get("until"))
        if not entry.get("done"):
            raise WaitSignal(until, name)
        sig = entry.get("signal")
        if not isinstance(sig, dict):
            raise WaitTimeoutError(
                f"step {self.step} (node {self.node_id!r}) of run {self.run_id!r}: no signal {name!r} "
                f"came before its timeout (deadline {until})",
                name=name,
                until=until if until is not None else 0.0,
            )
        return Signal(name, str(sig.get("id")), sig.get("payload"), float(sig.get("ts") or 0.0), self.step)

    def emit(
        self, msg: str, meta: Mapping[str, Any] | None = None, *, kind: EventKind | str = EventKind.CUSTOM
    ) -> None:
        """Emit a custom event from inside a node (never raises)."""
        if self.emitter is not None:
            safe_emit(
                self.emitter,
                Event(self.run_id, self.step, self.node_id, msg, meta or _EMPTY, kind=kind, ts=time.time()),
            )


def _float(value: Any) -> float | None:
    return float(value) if isinstance(value, (int, float)) and not isinstance(value, bool) else None


def _delay_seconds(delay: Any, what: str) -> float:
    """A delay as seconds; `ValueError` unless a `timedelta` or a finite number."""
    if isinstance(delay, timedelta):
        return delay.total_seconds()
    if isinstance(delay, (int, float)) and not isinstance(delay, bool) and math.isfinite(delay):
        return float(delay)
    raise ValueError(f"{what} takes a timedelta or a finite number of seconds, got {delay!r}")
