"""`OTelEmitter`: runs as OpenTelemetry traces and metrics, through `opentelemetry-api` only.

Span tree (one trace per run segment; see "Resume" below)::

    graphengine.run                      run_id, resumed, status         (parent: the caller's span)
    ├── graphengine.node plan            run_id, step=1, node_id, attempt=1
    ├── graphengine.node fetch           step=2, attempt=1   status ERROR, exception recorded
    ├── graphengine.node fetch           step=2, attempt=2   (a retry: a sibling, not a child)
    ├── graphengine.node search          step=3, branch=0    (fan-out branches: siblings)
    ├── graphengine.node search          step=3, branch=1
    └── graphengine.node merge           step=4

Decisions a caller should know:

- **The node span is current while the node runs.** On `NODE_START` the emitter attaches the
  node span to the OpenTelemetry context of the task that runs the node (each fan-out branch runs
  in its own task), and detaches it when the node ends, fails or retries. Code inside a node, and
  any package instrumenting it (tools, LLM clients, the GOAP planner), opens child spans the usual
  way and they nest under the node span::

      tracer = trace.get_tracer("my.package")
      async def fetch(ctx, state):
          with tracer.start_as_current_span("http GET"):   # child of "graphengine.node fetch"
              ...

  `OTelEmitter.node_span(run_id, step, node_id, branch)` returns the open span when the context
  is not at hand (e.g. from another thread). A run span's parent is whatever span is current when
  the run starts, so a run started inside a user's span, or a subgraph run inside its parent
  node, nests there.
- **Resume links, it does not continue.** A run segment (`run` up to its stop, interrupt or
  failure; then each `resume`) is its own `graphengine.run` span, ended when the segment ends: a
  run paused for a human for days must not hold an unexported span open. A resumed segment
  carries `graphengine.run.resumed=true` and, when the earlier segment ran in this process, a span
  link to it. Every span has `graphengine.run_id`, so one query finds all segments of a run, in
  any process.
- Errors: a failing attempt, a routed error and a failed run end their span with status ERROR
  and the exception recorded (type, message and traceback when the engine is handling it).
  Retries, interrupts and custom events become span events; custom events land on the node span
  that is current when they are emitted (else the node span of their step, else the run span).
  Streamed tokens (`EventKind.TOKEN`, from ``models.chat(stream=True)``) are span events named
  `graphengine.token` on the node span, the text in `graphengine.token.text` and the answer's
  id in `graphengine.message_id`. The SDK keeps 128 events per span unless told otherwise
  (`OTEL_SPAN_EVENT_COUNT_LIMIT`, or `SpanLimits(max_events=...)`): raise it to keep every
  token of long answers (the answer itself is in the run's step record either way).
- Metrics (OpenTelemetry metrics API, low-cardinality attributes only, never the run id):
  `graphengine.steps` (counter of finished node executions, by `graphengine.node_id` and
  `graphengine.outcome` ok/error), `graphengine.node.duration` (histogram, seconds, from node
  start to end including retries), `graphengine.retries` (counter, by node) and
  `graphengine.runs` (counter of ended run segments, by `graphengine.run.status`).
- Failure isolation: `emit` never raises; an internal error is logged and the run goes on. Spans
  of runs that never report an end (a process-level crash of the store) are ended as
  `abandoned` once more than `max_open_runs` runs are open, so memory stays bounded.

With no provider given, the global ones are used (no-op until an SDK is configured), so this
module needs only `opentelemetry-api`; install `graphengine[otel]` for the SDK and exporters.
"""

from __future__ import annotations

import asyncio
import logging
import sys
import threading
import time
from collections import OrderedDict
from collections.abc import Callable, Mapping
from dataclasses import dataclass, field
from typing import Any

from opentelemetry import context as otel_context
from opentelemetry import metrics, trace
from opentelemetry.metrics import MeterProvider
from opentelemetry.trace import Link, Span, SpanContext, Status, StatusCode, TracerProvider

from .event import Event, EventKind

__all__ = [
    "ATTEMPT",
    "BRANCH",
    "NODE_ID",
    "NODE_SPAN",
    "OTelEmitter",
    "RUN_ID",
    "RUN_SPAN",
    "RUN_STATUS",
    "SIGNAL_SPAN",
    "STEP",
    "TOKEN_SPAN_EVENT",
    "TOKEN_TEXT",
    "WAIT_SPAN_EVENT",
]

_log = logging.getLogger("graphengine.emit.otel")

RUN_SPAN = "graphengine.run"
"""Name of a run segment's span."""
NODE_SPAN = "graphengine.node"
"""Prefix of a node execution's span name (`graphengine.node <node_id>`)."""
RUN_ID = "graphengine.run_id"
"""Attribute: the run id (on every span)."""
STEP = "graphengine.step"
"""Attribute: the step number (node spans; on the run span: the step it started after)."""
NODE_ID = "graphengine.node_id"
"""Attribute: the node id (node spans; metric attribute)."""
ATTEMPT = "graphengine.attempt"
"""Attribute: 1 for the first try of a node, 2 for the first retry, ..."""
BRANCH = "graphengine.branch"
"""Attribute: the fan-out branch index, on branch spans."""
RUN_STATUS = "graphengine.run.status"
"""Attribute: how a run segment ended: done, interrupted, waiting, failed, cancelled, abandoned."""
WAIT_SPAN_EVENT = "graphengine.wait"
"""Name of the run span's event when the run begins to wait (its segment then ends, status waiting)."""
SIGNAL_SPAN = "graphengine.signal"
"""Name of the span (or, on a running run's span, the event) of a signal stored for a run."""
TOKEN_SPAN_EVENT = "graphengine.token"  # noqa: S105 (a span event name)
"""Name of the span event of a streamed token."""
TOKEN_TEXT = "graphengine.token.text"  # noqa: S105 (an attribute name)
"""Attribute: the text of a streamed token."""
_RESUMED = "graphengine.run.resumed"
_ROUTE = "graphengine.route"
_OUTCOME = "graphengine.outcome"
_MAX_ATTR = 1024

_Key = tuple[int, str, Any]


@dataclass(slots=True)
class _NodeSpan:
    span: Span
    token: object | None
    """What `attach` returned; detached only by the task (or thread) that attached it."""
    owner: object
    started: float
    """perf_counter at the first attempt (the duration metric covers retries)."""
    attempt: int = 1


@dataclass(slots=True)
class _Run:
    span: Span
    nodes: dict[_Key, _NodeSpan] = field(default_factory=dict)


def _owner() -> object:
    try:
        task = asyncio.current_task()
    except RuntimeError:
        task = None
    return task if task is not None else threading.get_ident()


def _ns(ts: float) -> int:
    return int(ts * 1e9)


def _attr(v: Any) -> Any:
    """An OpenTelemetry attribute value for `v` (primitives as they are, anything else as text)."""
    if isinstance(v, bool | int | float | str):
        return v if not isinstance(v, str) or len(v) <= _MAX_ATTR else v[:_MAX_ATTR] + "..."
    text = repr(v)
    return text if len(text) <= _MAX_ATTR else text[:_MAX_ATTR] + "..."


def _attrs(meta: Mapping[str, Any], prefix: str = "") -> dict[str, Any]:
    return {prefix + str(k): _attr(v) for k, v in meta.items() if v is not None}


def _handled(meta: Mapping[str, Any]) -> BaseException | None:
    """The exception the engine is handling while it emits this event, if it is the one reported."""
    exc = sys.exc_info()[1]
    if exc is None:
        return None
    named = meta.get("error")
    if named is None:
        return exc
    cause = exc.__cause__
    names = {type(exc).__name__, repr(exc)}
    if cause is not None:
        names |= {type(cause).__name__, repr(cause)}
    return exc if named in names else None


class OTelEmitter:
    """Emit runs as OpenTelemetry spans and metrics; see the module docstring for the span tree.

    `tracer_provider` / `meter_provider` default to the global providers. One emitter serves any
    number of concurrent runs and threads.
    """

    def __init__(
        self,
        tracer_provider: TracerProvider | None = None,
        meter_provider: MeterProvider | None = None,
        *,
        max_open_runs: int = 10_000,
    ) -> None:
        self.tracer: trace.Tracer = trace.get_tracer("graphengine", tracer_provider=tracer_provider)
        """The tracer spans are made with (use it for spans that belong with the engine's)."""
        meter = (meter_provider or metrics.get_meter_provider()).get_meter("graphengine")
        self._steps = meter.create_counter(
            "graphengine.steps", unit="{step}", description="Node executions that finished, by outcome"
        )
        self._retries = meter.create_counter(
            "graphengine.retries", unit="{retry}", description="Node attempts that failed and were retried"
        )
        self._runs_ended = meter.create_counter(
            "graphengine.runs", unit="{run}", description="Run segments that ended, by status"
        )
        self._duration = meter.create_histogram(
            "graphengine.node.duration", unit="s", description="Node execution time, retries included"
        )
        self._max_open = max_open_runs
        self._runs: OrderedDict[str, _Run] = OrderedDict()
        self._ended: OrderedDict[str, SpanContext] = OrderedDict()
        self._lock = threading.RLock()
        # Decide once: one handler per kind (a StrEnum hashes like its string, so str kinds match).
        self._handlers: dict[str, Callable[[Event], None]] = {
            EventKind.RUN_START: self._on_run_start,
            EventKind.RUN_RESUME: self._on_run_resume,
            EventKind.NODE_START: self._on_node_start,
            EventKind.NODE_END: self._on_node_end,
            EventKind.RETRY: self._on_retry,
            EventKind.ERROR: self._on_error,
            EventKind.INTERRUPT: self._on_interrupt,
            EventKind.WAIT: self._on_wait,
            EventKind.SIGNAL: self._on_signal,
            EventKind.RUN_END: self._on_run_end,
        }

    # ------------------------------------------------------------------ public

    def emit(self, event: Event) -> None:
        """Map one engine event to span starts, ends and events; never raises."""
        try:
            handler = self._handlers.get(event.kind, self._on_other)
            with self._lock:
                handler(event)
        except Exception:
            _log.exception("OTelEmitter failed on %s event of run %r", event.kind, event.run_id)

    def node_span(self, run_id: str, step: int, node_id: str, branch: int | None = None) -> Span | None:
        """The open span of a node execution (None when it is not running).

        Inside the node itself prefer `opentelemetry.trace.get_current_span()`: the node span is
        current there. This is for code that runs outside the node's context.
        """
        with self._lock:
            run = self._runs.get(run_id)
            ns = run.nodes.get((step, node_id, branch)) if run is not None else None
            return ns.span if ns is not None else None

    def run_span(self, run_id: str) -> Span | None:
        """The open span of the run's current segment (None when the run is not running here)."""
        with self._lock:
            run = self._runs.get(run_id)
            return run.span if run is not None else None

    # ------------------------------------------------------------------ runs

    def _start_run(self, e: Event, resumed: bool) -> _Run:
        old = self._runs.pop(e.run_id, None)
        if old is not None:
            self._end_run(e.run_id, old, "abandoned", e.ts)
        while len(self._runs) >= self._max_open:
            rid, stale = self._runs.popitem(last=False)
            self._end_run(rid, stale, "abandoned", e.ts)
        prev = self._ended.get(e.run_id) if resumed else None
        attributes: dict[str, Any] = {RUN_ID: e.run_id, STEP: e.step, _RESUMED: resumed}
        attributes.update(_attrs(e.meta, "graphengine.run."))
        span = self.tracer.start_span(
            RUN_SPAN,
            attributes=attributes,
            links=[Link(prev, {"graphengine.link": "previous segment"})] if prev is not None else None,
            start_time=_ns(e.ts),
        )
        run = self._runs[e.run_id] = _Run(span)
        return run

    def _run(self, e: Event) -> _Run:
        run = self._runs.get(e.run_id)
        return run if run is not None else self._start_run(e, resumed=False)

    def _end_run(
        self, run_id: str, run: _Run, status: str, ts: float, exc: BaseException | None = None, msg: str = ""
    ) -> None:
        for ns in run.nodes.values():
            self._close(ns, ts, error=msg if status == "failed" else None, exc=exc)
        run.nodes.clear()
        span = run.span
        span.set_attribute(RUN_STATUS, status)
        if status == "failed":
            if exc is not None:
                span.record_exception(exc)
            span.set_status(Status(StatusCode.ERROR, msg))
        span.end(end_time=_ns(ts))
        self._runs_ended.add(1, {RUN_STATUS: status})
        self._ended[run_id] = span.get_span_context()
        self._ended.move_to_end(run_id)
        if len(self._ended) > self._max_open:
            self._ended.popitem(last=False)

    def _on_run_start(self, e: Event) -> None:
        self._start_run(e, resumed=False)

    def _on_run_resume(self, e: Event) -> None:
        self._start_run(e, resumed=True)

    def _finish(self, e: Event, status: str, exc: BaseException | None = None) -> None:
        run = self._runs.pop(e.run_id, None)
        if run is not None:
            self._end_run(e.run_id, run, status, e.ts, exc, e.msg)

    def _on_run_end(self, e: Event) -> None:
        run = self._runs.get(e.run_id)
        if run is not None and "steps" in e.meta:
            run.span.set_attribute("graphengine.run.steps", _attr(e.meta["steps"]))
        self._finish(e, str(e.meta.get("status", "done")))

    def _on_interrupt(self, e: Event) -> None:
        run = self._runs.get(e.run_id)
        if run is not None:
            attrs = {STEP: e.step, NODE_ID: e.node_id, **_attrs(e.meta, "graphengine.interrupt.")}
            run.span.add_event("graphengine.interrupt", attrs, timestamp=_ns(e.ts))
        self._finish(e, "interrupted")

    def _on_wait(self, e: Event) -> None:
        # Like an interrupt: the segment ends (a run asleep for a day holds no open span).
        run = self._runs.get(e.run_id)
        if run is not None:
            attrs = {STEP: e.step, NODE_ID: e.node_id, **_attrs(e.meta, "graphengine.wait.")}
            run.span.add_event(WAIT_SPAN_EVENT, attrs, timestamp=_ns(e.ts))
        self._finish(e, "waiting")

    def _on_signal(self, e: Event) -> None:
        # A signal usually reaches a run that is waiting, with no open span: it gets a span of its
        # own (linked by the run id attribute), or an event on the run's span when it is running.
        attrs = {RUN_ID: e.run_id, **_attrs(e.meta, "graphengine.signal.")}
        run = self._runs.get(e.run_id)
        if run is not None:
            run.span.add_event(SIGNAL_SPAN, attrs, timestamp=_ns(e.ts))
            return
        span = self.tracer.start_span(SIGNAL_SPAN, attributes=attrs, start_time=_ns(e.ts))
        span.end(end_time=_ns(e.ts))

    # ------------------------------------------------------------------ nodes

    def _open(self, run: _Run, e: Event, key: _Key, attempt: int, started: float) -> _NodeSpan:
        attributes: dict[str, Any] = {RUN_ID: e.run_id, STEP: e.step, NODE_ID: e.node_id, ATTEMPT: attempt}
        if key[2] is not None:
            attributes[BRANCH] = _attr(key[2])
        span = self.tracer.start_span(
            f"{NODE_SPAN} {e.node_id}",
            context=trace.set_span_in_context(run.span),
            attributes=attributes,
            start_time=_ns(e.ts),
        )
        token = otel_context.attach(trace.set_span_in_context(span))
        ns = run.nodes[key] = _NodeSpan(span, token, _owner(), started, attempt)
        return ns

    def _close(
        self, ns: _NodeSpan, ts: float, *, error: str | None = None, exc: BaseException | None = None
    ) -> None:
        span = ns.span
        if error is not None:
            if exc is not None:
                span.record_exception(exc, timestamp=_ns(ts))
            span.set_status(Status(StatusCode.ERROR, error))
        span.end(end_time=_ns(ts))
        # contextvars tokens can only be reset in the context that made them; a branch task that
        # ended without reporting takes its context with it, so there is nothing to undo there.
        if ns.token is not None and ns.owner == _owner():
            otel_context.detach(ns.token)  # type: ignore[arg-type]
        ns.token = None

    def _count(self, ns: _NodeSpan, node_id: str, outcome: str) -> None:
        attrs = {NODE_ID: node_id, _OUTCOME: outcome}
        self._steps.add(1, attrs)
        self._duration.record(time.perf_counter() - ns.started, attrs)

    def _on_node_start(self, e: Event) -> None:
        run = self._run(e)
        self._open(run, e, (e.step, e.node_id, e.meta.get("branch")), 1, time.perf_counter())

    def _on_node_end(self, e: Event) -> None:
        run = self._runs.get(e.run_id)
        ns = run.nodes.pop((e.step, e.node_id, e.meta.get("branch")), None) if run is not None else None
        if ns is None:
            return
        if "route" in e.meta:
            ns.span.set_attribute(_ROUTE, _attr(e.meta["route"]))
        self._close(ns, e.ts)
        self._count(ns, e.node_id, "ok")

    def _on_retry(self, e: Event) -> None:
        run = self._run(e)
        key = (e.step, e.node_id, e.meta.get("branch"))
        ns = run.nodes.pop(key, None)
        error = str(e.meta.get("error", e.msg))
        attempt = int(e.meta.get("attempt", ns.attempt if ns is not None else 1))
        started = time.perf_counter()
        if ns is not None:
            self._close(ns, e.ts, error=error, exc=_handled(e.meta))
            started = ns.started
        self._retries.add(1, {NODE_ID: e.node_id})
        nxt = self._open(run, e, key, attempt + 1, started)
        nxt.span.add_event("graphengine.retry", _attrs(e.meta, "graphengine.retry."), timestamp=_ns(e.ts))

    def _on_error(self, e: Event) -> None:
        meta = e.meta
        exc = _handled(meta)
        if meta.get("branch") is not None or "handler" in meta:
            # A node-level error: the run goes on (an error route, or the fan-out decides).
            run = self._runs.get(e.run_id)
            if run is None:
                return
            ns = run.nodes.pop((e.step, e.node_id, meta.get("branch")), None)
            failed = (
                [ns]
                if ns is not None
                # A fan-out routed to its handler: branches still open at that step are the
                # ones that failed (every other branch reported its end before the merge).
                else [run.nodes.pop(k) for k in [k for k in run.nodes if k[0] == e.step]]
            )
            for f in failed:
                if "handler" in meta:
                    f.span.set_attribute("graphengine.error.handler", _attr(meta["handler"]))
                self._close(f, e.ts, error=e.msg, exc=exc)
                self._count(f, e.node_id, "error")
            if not failed:
                run.span.add_event("graphengine.error", {STEP: e.step, NODE_ID: e.node_id, **_attrs(meta)})
            return
        run = self._runs.get(e.run_id)
        if run is not None:
            for key, ns in run.nodes.items():
                self._count(ns, key[1], "error")
        self._finish(e, "failed", exc)

    def _on_other(self, e: Event) -> None:
        run = self._runs.get(e.run_id)
        if run is None:
            return
        target: Span | None = None
        current = trace.get_current_span()
        for ns in run.nodes.values():
            if ns.span is current:
                target = current
                break
        if target is None:
            ns0 = run.nodes.get((e.step, e.node_id, None))
            if ns0 is None:
                ns0 = next((n for k, n in run.nodes.items() if k[0] == e.step and k[1] == e.node_id), None)
            target = ns0.span if ns0 is not None else run.span
        token = e.kind == EventKind.TOKEN
        # a token's meta is the engine's own (message_id, attempt, branch): namespaced like ours
        attrs = _attrs(e.meta, "graphengine." if token else "")
        attrs["graphengine.event.kind"] = str(e.kind)
        if e.node_id:
            attrs.setdefault(NODE_ID, e.node_id)
        name = e.msg or str(e.kind)
        if token:  # the text is data, not a name: one event name for all tokens
            name, attrs[TOKEN_TEXT] = TOKEN_SPAN_EVENT, e.msg
        target.add_event(name, attrs, timestamp=_ns(e.ts))

    @classmethod
    def console(cls) -> OTelEmitter:
        """An emitter printing each span to stdout as it ends (the demos' `OTEL=1`).

        Builds its own SDK `TracerProvider` with a `ConsoleSpanExporter` (metrics go to the global
        meter provider). Needs the SDK: raises `ImportError` naming `pip install graphengine[otel]`.
        """
        try:
            from opentelemetry.sdk.trace import TracerProvider as SdkTracerProvider
            from opentelemetry.sdk.trace.export import ConsoleSpanExporter, SimpleSpanProcessor
        except ImportError as exc:  # pragma: no cover - the SDK is a dev dependency
            raise ImportError(
                "OTelEmitter.console() needs the OpenTelemetry SDK; install it with: pip install graphengine[otel]"
            ) from exc
        provider = SdkTracerProvider()
        provider.add_span_processor(SimpleSpanProcessor(ConsoleSpanExporter()))
        return cls(provider)
