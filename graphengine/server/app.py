"""The HTTP runtime API of one engine: `create_app(engine)` returns an ASGI (FastAPI) application.

Routes (JSON unless said otherwise; the OpenAPI schema is at `/openapi.json`):

    GET  /api/runs                      runs, newest first (?status=, ?prefix=, ?live=, ?limit=)
    POST /api/runs                      start a run {"run_id"?, "state"} (?wait=true: until it stops or pauses)
    GET  /api/runs/{run_id}             status, state, interrupt, step count, whether this server drives it
    GET  /api/runs/{run_id}/state       the state after the last step, or after ?step=K (0: initial)
    GET  /api/runs/{run_id}/history     committed steps: node, delta, route, attempt, error, sizes, timings
    POST /api/runs/{run_id}/resume      continue a run, {"input": ...} answers its interrupt (?wait=true)
    POST /api/runs/{run_id}/cancel      cancel a run this server is driving (status becomes cancelled)
    POST /api/runs/{run_id}/replay      re-execute the run against its record; the replay report
    GET  /api/runs/{run_id}/events      Server-Sent Events of a run this server drives, then an `end` event
    GET  /api/graph                     the graph as JSON, DOT, Mermaid or SVG (?format=, ?run= highlights a run)
    GET  /                              the inspector page (see `graphengine.server.inspector`)

Errors are JSON `{"detail": ...}` with these status codes: 404 an unknown run (or step);
409 a run id that exists, a run already running in this server, a cancel of a run that is not
running here, a graph or state schema that changed since the run started; 422 a request or an
initial state that does not validate (`detail` lists the field errors, FastAPI's shape, with
`loc` starting `["body", "state", ...]`); 401 a missing or wrong token when auth is on.

Runs started or resumed through the API are driven in this process as asyncio tasks, through
`Engine.stream` / `Engine.stream_resume`, so their events can be fanned out to SSE clients.
"Already running" (409) means driven by this server; a run whose stored status is `running`
but that no task here drives (its process died) can be resumed, as with the CLI. Shutting
the server down cancels the runs it drives: they become `cancelled` and stay resumable.

Auth: when a token is given (`graphengine serve` reads `$GRAPHENGINE_TOKEN`), every route,
the page and the schema included, refuses a request without `Authorization: Bearer TOKEN` or
the `graphengine_token` cookie with 401. Opening `/?token=TOKEN` in a browser sets that cookie
(HttpOnly, SameSite=Strict) and redirects to `/`, so the page and its event stream work
without the token in any URL afterwards.
"""

from __future__ import annotations

import asyncio
import hmac
import json
import os
import uuid
from collections import OrderedDict
from collections.abc import AsyncIterator, Callable, Mapping
from contextlib import asynccontextmanager
from dataclasses import dataclass, field
from enum import StrEnum
from typing import Annotated, Any, Literal

from fastapi import Body, FastAPI, Query, Request, Response
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError
from pydantic_core import to_jsonable_python
from starlette.exceptions import HTTPException as StarletteHTTPException
from starlette.requests import HTTPConnection
from starlette.types import ASGIApp, Receive, Scope, Send

from emit import Event
from store import CorruptRecordError, InvalidIdError, RunRecord, RunStatus

from ..engine import Engine
from ..errors import (
    GraphChangedError,
    GraphError,
    RunExistsError,
    RunNotFoundError,
    SchemaVersionError,
    StateValidationError,
)
from ..routing import Next, NextKind
from ..viz import RunPath, run_path, to_dot, to_mermaid
from .inspector import graph_json, graph_svg, inspector_html

__all__ = ["TOKEN_ENV", "RunManager", "create_app", "token_from_env"]

TOKEN_ENV = "GRAPHENGINE_TOKEN"  # noqa: S105 (a variable name, not a secret)
"""The environment variable `graphengine serve` reads the bearer token from."""

_COOKIE = "graphengine_token"
_DURATIONS_KEPT = 1000


def token_from_env(name: str = TOKEN_ENV) -> str | None:
    """The bearer token in environment variable `name` (None when unset or empty: no auth)."""
    return os.environ.get(name) or None


# ---------------------------------------------------------------------- JSON forms


def route_doc(route: Next) -> dict[str, Any]:
    """A `Next` as JSON: kind, target, branch nodes, interrupt payload and its short text."""
    return {
        "kind": str(route.kind),
        "target": route.target,
        "branches": [b.node for b in route.branches],
        "payload": jsonable(route.payload) if route.kind is NextKind.INTERRUPT else None,
        "text": repr(route),
    }


def _fallback(obj: Any) -> Any:
    if isinstance(obj, Next):
        return route_doc(obj)
    return repr(obj)


def jsonable(value: Any) -> Any:
    """`value` as plain JSON data (pydantic models, dataclasses, enums...; `repr` of anything else)."""
    if isinstance(value, Next):
        return route_doc(value)
    return to_jsonable_python(value, fallback=_fallback)


def delta_doc(delta: Any) -> Any:
    """A delta as JSON: for a pydantic model only the fields it set (what the reducer merges)."""
    if isinstance(delta, BaseModel):
        return delta.model_dump(mode="json", exclude_unset=True, fallback=_fallback)
    return jsonable(delta)


def event_doc(ev: Event, seq: int) -> dict[str, Any]:
    """An event of a run as JSON, numbered `seq` in the server's log of that run."""
    meta = {k: delta_doc(v) if k == "delta" else jsonable(v) for k, v in ev.meta.items()}
    if "branches" in meta:
        meta["branches"] = [delta_doc(b) for b in ev.meta["branches"]]
    return {
        "seq": seq,
        "run_id": ev.run_id,
        "step": ev.step,
        "node_id": ev.node_id,
        "kind": str(ev.kind),
        "msg": ev.msg,
        "meta": meta,
        "ts": ev.ts,
    }


# ---------------------------------------------------------------------- API models


class Problem(BaseModel):
    """An error response."""

    detail: Any
    """What went wrong: a sentence, or a list of field errors for 422."""


class InterruptInfo(BaseModel):
    """What a paused run waits for."""

    node_id: str
    """The node that receives the input on resume."""
    step: int
    """The last committed step."""
    payload: Any = None
    """What the node asked (None for a pause before the node)."""
    before: bool
    """True for an `interrupt_before` pause."""


class RunSummary(BaseModel):
    """One run in a list."""

    run_id: str
    """The run's id."""
    status: RunStatus
    """Its stored status."""
    created_at: float
    """Creation time (seconds since the epoch)."""
    updated_at: float
    """Last status change."""
    error: str | None = None
    """The last error, for failed runs (or a routed one)."""
    error_node: str | None = None
    """The node that failed."""
    live: bool = False
    """True while this server drives the run (it can be cancelled)."""
    forked_from: str | None = None
    """The source run of a fork."""


class RunDetail(RunSummary):
    """One run with its current state."""

    steps: int
    """Committed steps."""
    state: Any = None
    """The state after the last committed step (JSON)."""
    interrupt: InterruptInfo | None = None
    """What the run waits for, when it is paused."""
    fingerprint: str = ""
    """Fingerprint of the graph the run started with."""
    graph_changed: bool = False
    """True when this engine's graph differs from the run's (resume and replay are refused)."""


class StartRun(BaseModel):
    """Body of `POST /api/runs`."""

    model_config = ConfigDict(extra="forbid")

    run_id: str | None = Field(default=None, min_length=1, max_length=200, pattern=r"^[^/\s]+$")
    """The id of the new run (default: a random one)."""
    state: dict[str, Any] = Field(default_factory=dict)
    """The initial state, validated against the engine's state type."""


class ResumeRun(BaseModel):
    """Body of `POST /api/runs/{run_id}/resume`; leave `input` out to continue without answering."""

    model_config = ConfigDict(extra="forbid")

    input: Any = None
    """The answer handed to the interrupted node (given explicitly, `null` included)."""


class RouteInfo(BaseModel):
    """Where a run went after a step."""

    kind: str
    """goto, stop, fan_out or interrupt."""
    target: str
    """goto: the next node; fan_out: the join node."""
    branches: list[str]
    """fan_out: the branch nodes in merge order."""
    payload: Any = None
    """interrupt: what the node asked."""
    text: str
    """Short form, e.g. "goto('check')"."""


class StepInfo(BaseModel):
    """One committed step."""

    step: int
    """1-based step number."""
    node_id: str
    """The node that ran (`__fan_out__` for a fan-out's merge)."""
    delta: Any = None
    """The delta the node returned (JSON)."""
    route: RouteInfo
    """The hop resolved after the step."""
    attempt: int
    """Attempts the node took."""
    error: str | None = None
    """A routed error."""
    ts: float
    """Commit time."""
    elapsed_ms: float | None = None
    """Milliseconds since the previous commit (or the run's creation); includes any pause."""
    node_ms: float | None = None
    """How long the node ran, when this server drove that step."""
    sizes: dict[str, int] = Field(default_factory=dict)
    """Encoded bytes of each field the delta set."""
    state: Any = None
    """The state after the step (only with `?states=true`)."""


class DivergenceInfo(BaseModel):
    """A value that differs between the record and the replay."""

    step: int
    """The step."""
    node_id: str
    """Its node."""
    field: str
    """delta, route, error or call."""
    path: str
    """Where inside it."""
    recorded: Any = None
    """The recorded value."""
    replayed: Any = None
    """The replayed value."""
    branch: int | None = None
    """The fan-out branch, if any."""


class ReplayInfo(BaseModel):
    """A replay report."""

    run_id: str
    """The replayed run."""
    steps: int
    """Steps compared."""
    ok: bool
    """True when nothing diverged."""
    divergences: list[DivergenceInfo]
    """Differences at the first diverging step."""
    text: str
    """The report as text."""


class GraphNode(BaseModel):
    """A node of the graph (with a run's marks when one is highlighted)."""

    id: str
    """Node id."""
    interrupt_before: bool = False
    """The run pauses before it."""
    visits: int = 0
    """Times the highlighted run ran it."""
    failed: bool = False
    """It failed in the highlighted run."""
    current: bool = False
    """The highlighted run is at this node."""


class GraphEdge(BaseModel):
    """An edge of the drawing."""

    src: str
    """From (`__start__` for the entry)."""
    dst: str
    """To (`__end__` for the exit)."""
    kind: str
    """plain, cond, fanout, join, error, start, end or dynamic (a route taken at run time)."""
    label: str = ""
    """Predicate name or kind label."""
    taken: int = 0
    """Times the highlighted run took it."""


class GraphInfo(BaseModel):
    """The graph as data."""

    start: str | None
    """The start node."""
    fingerprint: str
    """The graph's fingerprint."""
    nodes: list[GraphNode]
    """Nodes in insertion order."""
    edges: list[GraphEdge]
    """Edges in drawing order."""
    run_id: str | None = None
    """The highlighted run."""
    status: str | None = None
    """Its status."""


class GraphFormat(StrEnum):
    """Formats of `GET /api/graph`."""

    JSON = "json"
    DOT = "dot"
    MERMAID = "mermaid"
    SVG = "svg"


# ---------------------------------------------------------------------- errors


class AlreadyRunningError(GraphError):
    """The run is being driven by this server already."""


class NotRunningError(GraphError):
    """Cancel of a run that this server does not drive."""


class StepNotFoundError(GraphError):
    """A step number outside the run's steps."""


def _field_errors(exc: ValidationError) -> list[dict[str, Any]]:
    return [
        {"loc": ["body", "state", *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_context=False, include_input=False)
    ]


_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (RunNotFoundError, 404),
    (StepNotFoundError, 404),
    # An id no store can hold (empty, NUL, lone surrogate, over 255 characters) names no run.
    (InvalidIdError, 404),
    (RunExistsError, 409),
    (AlreadyRunningError, 409),
    (NotRunningError, 409),
    (GraphChangedError, 409),
    (SchemaVersionError, 409),
    (StateValidationError, 422),
    (CorruptRecordError, 500),
)
"""Typed errors -> HTTP status, most specific first; any other `GraphError` is a 500."""


def status_of(exc: Exception) -> int:
    """The HTTP status an engine or store error maps to."""
    for tp, code in _STATUS:
        if isinstance(exc, tp):
            return code
    return 500


# ---------------------------------------------------------------------- live runs


@dataclass(eq=False)
class _Live:
    """A run this server drives: its task, its event log and the SSE clients listening."""

    run_id: str
    started: asyncio.Event = field(default_factory=asyncio.Event)
    log: list[dict[str, Any]] = field(default_factory=list)
    listeners: set[asyncio.Queue[dict[str, Any] | None]] = field(default_factory=set)
    task: asyncio.Task[None] | None = None
    error: BaseException | None = None
    done: bool = False

    def publish(self, doc: dict[str, Any]) -> None:
        self.log.append(doc)
        for q in self.listeners:
            q.put_nowait(doc)


class RunManager:
    """The runs this server drives, each an asyncio task reading the run's stream.

    The event log of a live run is kept while it runs, so an SSE client that connects late
    gets every event of the current drive from its start.
    """

    def __init__(self, engine: Engine[Any]) -> None:
        self.engine = engine
        """The engine runs are driven with."""
        self.live: dict[str, _Live] = {}
        """Run id -> its live drive."""
        self.node_ms: OrderedDict[str, dict[int, float]] = OrderedDict()
        """Run id -> step -> node duration seen by this server (the newest runs only)."""

    def is_live(self, run_id: str) -> bool:
        """Whether this server drives the run now."""
        return run_id in self.live

    async def start(self, run_id: str, state: Any, *, wait: bool) -> None:
        """Start `run_id` from a validated `state`; returns once the run exists (or after it ends with `wait`)."""
        if run_id in self.live:
            raise AlreadyRunningError(f"run {run_id!r} is already running in this server", run_id=run_id)
        await self._launch(run_id, lambda: self.engine.stream(run_id, state), wait=wait)

    async def resume(self, run_id: str, kw: Mapping[str, Any], *, wait: bool) -> None:
        """Resume `run_id` (`kw` may hold `input`); 409 if this server drives it already."""
        if run_id in self.live:
            raise AlreadyRunningError(
                f"run {run_id!r} is already running in this server; cancel it or wait for it", run_id=run_id
            )
        await self.engine.get_run(run_id)  # 404 before anything starts
        await self._launch(run_id, lambda: self.engine.stream_resume(run_id, **kw), wait=wait)

    async def cancel(self, run_id: str) -> None:
        """Cancel the task driving `run_id` and wait until its status is stored as cancelled."""
        live = self.live.get(run_id)
        if live is None or live.task is None:
            await self.engine.get_run(run_id)  # 404 for an unknown run
            raise NotRunningError(
                f"run {run_id!r} is not running in this server; only runs it drives can be cancelled",
                run_id=run_id,
            )
        live.task.cancel()
        await asyncio.wait([live.task])

    async def close(self) -> None:
        """Cancel every live run (they stay resumable)."""
        tasks = [lv.task for lv in self.live.values() if lv.task is not None]
        for t in tasks:
            t.cancel()
        if tasks:
            await asyncio.wait(tasks)

    async def _launch(self, run_id: str, open_stream: Callable[[], Any], *, wait: bool) -> None:
        live = _Live(run_id)
        self.live[run_id] = live
        self.node_ms.pop(run_id, None)
        durations: dict[int, float] = {}
        self.node_ms[run_id] = durations
        while len(self.node_ms) > _DURATIONS_KEPT:
            self.node_ms.popitem(last=False)
        live.task = asyncio.create_task(self._drive(live, open_stream, durations), name=f"run {run_id}")
        if wait:
            await asyncio.wait([live.task])
        else:
            waiter = asyncio.ensure_future(live.started.wait())
            await asyncio.wait([live.task, waiter], return_when=asyncio.FIRST_COMPLETED)
            waiter.cancel()
        if live.error is not None and not live.log:
            # The run never started (its id exists, the graph is malformed...): report it.
            raise live.error

    async def _drive(self, live: _Live, open_stream: Callable[[], Any], durations: dict[int, float]) -> None:
        status: str | None = None
        try:
            async with open_stream() as stream:
                async for ev in stream:
                    kind = str(ev.kind)
                    if kind == "node_end" and "branch" not in ev.meta and "ms" in ev.meta:
                        durations[ev.step] = float(ev.meta["ms"])
                    live.publish(event_doc(ev, len(live.log)))
                    live.started.set()
        except asyncio.CancelledError:
            status = str(RunStatus.CANCELLED)
        except Exception as exc:
            live.error = exc
            live.publish(
                {
                    "seq": len(live.log),
                    "run_id": live.run_id,
                    "kind": "failed",
                    "msg": f"{type(exc).__name__}: {exc}",
                    "meta": {"status_code": status_of(exc)},
                }
            )
        finally:
            live.done = True
            if self.live.get(live.run_id) is live:
                del self.live[live.run_id]
            if status is None:
                try:
                    rec = await self.engine.store.get_run(live.run_id)
                    status = str(rec.status) if rec is not None else None
                except Exception:  # the end event must go out whatever the store does
                    status = None
            live.publish({"seq": len(live.log), "run_id": live.run_id, "kind": "end", "status": status})
            for q in live.listeners:
                q.put_nowait(None)
            live.started.set()

    async def events(self, run_id: str, after: int) -> AsyncIterator[dict[str, Any]]:
        """The events of the live drive of `run_id` with `seq > after`, then its end; just an end if none."""
        live = self.live.get(run_id)
        if live is None:
            rec = await self.engine.get_run(run_id)
            yield {"seq": after + 1, "run_id": run_id, "kind": "end", "status": str(rec.status)}
            return
        q: asyncio.Queue[dict[str, Any] | None] = asyncio.Queue()
        backlog = [d for d in live.log if d["seq"] > after]
        live.listeners.add(q)
        try:
            for doc in backlog:
                yield doc
            if live.done:
                return
            while True:
                item = await q.get()
                if item is None:
                    return
                if item["seq"] > after:
                    yield item
        finally:
            live.listeners.discard(q)


# ---------------------------------------------------------------------- auth


class BearerAuth:
    """ASGI middleware refusing every request without the token (401), page and schema included.

    Accepted: `Authorization: Bearer TOKEN`, or the `graphengine_token` cookie. `GET /?token=TOKEN`
    sets the cookie and redirects to `/` (for browsers, whose EventSource cannot send headers).
    """

    def __init__(self, app: ASGIApp, token: str) -> None:
        self.app = app
        self.token = token.encode()

    def _ok(self, value: str | None) -> bool:
        return value is not None and hmac.compare_digest(value.encode(), self.token)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        auth = conn.headers.get("authorization", "")
        scheme, _, cred = auth.partition(" ")
        if (scheme.lower() == "bearer" and self._ok(cred.strip())) or self._ok(conn.cookies.get(_COOKIE)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and conn.url.path == "/" and self._ok(conn.query_params.get("token")):
            resp: Response = Response(status_code=303, headers={"location": "/"})
            resp.set_cookie(_COOKIE, self.token.decode(), httponly=True, samesite="strict")
            await resp(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        await JSONResponse(
            {"detail": "missing or wrong bearer token (send Authorization: Bearer TOKEN)"},
            status_code=401,
            headers={"www-authenticate": 'Bearer realm="graphengine"'},
        )(scope, receive, send)


# ---------------------------------------------------------------------- the app


_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "Unknown run"},
    409: {"model": Problem, "description": "Conflict with the run's state"},
}


def create_app(engine: Engine[Any], *, token: str | None = None, title: str | None = None) -> FastAPI:
    """The HTTP API and inspector of `engine` (runs in `engine.store`), as an ASGI application.

    `token`: when set, every route requires it (see the module docstring); `token_from_env()`
    reads it from `$GRAPHENGINE_TOKEN`. The engine's graph is validated here, so a malformed
    graph fails at start-up, not on the first request. The interactive `/docs` page is off
    (its assets come from a CDN); the schema is served at `/openapi.json`.
    """
    engine.validate()
    runs = RunManager(engine)
    name = title or f"graphengine: {getattr(engine.state_type, '__name__', 'graph')}"

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        yield
        await runs.close()

    app = FastAPI(
        title=name,
        version="1",
        description="Start, resume, cancel, inspect and replay runs of one graphengine engine.",
        docs_url=None,
        redoc_url=None,
        lifespan=lifespan,
        responses={
            400: {"model": Problem, "description": "A request body that cannot be parsed"},
            **({401: {"model": Problem, "description": "Missing or wrong token"}} if token else {}),
        },
    )
    app.state.runs = runs
    app.state.engine = engine
    if token:
        app.add_middleware(BearerAuth, token=token)
        _document_bearer(app)

    async def on_error(request: Request, exc: Exception) -> Response:
        return JSONResponse({"detail": str(exc)}, status_code=status_of(exc))

    async def on_state_error(request: Request, exc: Exception) -> Response:
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return JSONResponse({"detail": _field_errors(cause)}, status_code=422)
        return JSONResponse({"detail": str(exc)}, status_code=422)

    async def on_http_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, StarletteHTTPException)
        headers = dict(exc.headers or {})
        if exc.status_code == 405:
            # Starlette's Allow names only the first route matching the path (GET and POST
            # /api/runs are two routes): list every method served at this path.
            methods = sorted(
                {
                    m
                    for r in app.router.routes
                    if isinstance(r, APIRoute) and r.path_regex.match(request.url.path)
                    for m in r.methods or ()
                }
            )
            headers["allow"] = ", ".join(methods)
        return JSONResponse({"detail": exc.detail}, status_code=exc.status_code, headers=headers)

    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(GraphError, on_error)
    app.add_exception_handler(CorruptRecordError, on_error)
    app.add_exception_handler(InvalidIdError, on_error)
    app.add_exception_handler(StateValidationError, on_state_error)

    adapter: TypeAdapter[Any] = TypeAdapter(engine.state_type)

    def summary(rec: RunRecord) -> dict[str, Any]:
        meta = _meta(rec)
        src = meta.get("forked_from")
        return {
            "run_id": rec.run_id,
            "status": rec.status,
            "created_at": rec.created_at,
            "updated_at": rec.updated_at,
            "error": rec.error,
            "error_node": rec.error_node,
            "live": runs.is_live(rec.run_id),
            "forked_from": src if isinstance(src, str) else None,
        }

    async def detail(run_id: str) -> RunDetail:
        rec = await engine.get_run(run_id)
        state = await engine.get_state(run_id)
        intr = await engine.get_interrupt(run_id)
        steps = await engine.store.load_steps(run_id)
        return RunDetail(
            **summary(rec),
            steps=len(steps),
            state=jsonable(state),
            interrupt=None
            if intr is None
            else InterruptInfo(
                node_id=intr.node_id, step=intr.step, payload=jsonable(intr.payload), before=intr.before
            ),
            fingerprint=rec.fingerprint,
            graph_changed=bool(rec.fingerprint) and rec.fingerprint != engine.fingerprint,
        )

    @app.get("/api/runs", response_model=list[RunSummary], tags=["runs"])
    async def list_runs(
        status: Annotated[RunStatus | None, Query(description="only runs with this status")] = None,
        prefix: Annotated[str | None, Query(description="only run ids starting with this")] = None,
        live: Annotated[bool | None, Query(description="only runs this server drives (or not)")] = None,
        limit: Annotated[int, Query(ge=1, le=10_000)] = 100,
    ) -> list[dict[str, Any]]:
        """Runs in the store, newest first, with their status."""
        fetch = limit if prefix is None and live is None else max(limit * 10, 1000)
        out = []
        for rec in await engine.store.list_runs(status=status, limit=fetch):
            if prefix is not None and not rec.run_id.startswith(prefix):
                continue
            if live is not None and runs.is_live(rec.run_id) != live:
                continue
            out.append(summary(rec))
            if len(out) >= limit:
                break
        return out

    @app.post(
        "/api/runs",
        response_model=RunDetail,
        status_code=201,
        tags=["runs"],
        responses={409: _ERRORS[409], 422: {"model": Problem, "description": "The state does not validate"}},
    )
    async def start_run(
        body: Annotated[StartRun, Body()],
        wait: Annotated[bool, Query(description="answer when the run stops or pauses")] = False,
    ) -> RunDetail:
        """Start a run from an initial state (validated against the state type: 422 with the field errors)."""
        run_id = body.run_id or uuid.uuid4().hex[:12]
        try:
            state = adapter.validate_python(body.state)
        except ValidationError as exc:
            raise StateValidationError(f"initial state does not validate: {exc}", run_id=run_id) from exc
        if await engine.store.get_run(run_id) is not None:
            raise RunExistsError(f"run {run_id!r} exists; resume it instead", run_id=run_id)
        await runs.start(run_id, state, wait=wait)
        return await detail(run_id)

    @app.get("/api/runs/{run_id}", response_model=RunDetail, tags=["runs"], responses={404: _ERRORS[404]})
    async def get_run(run_id: str) -> RunDetail:
        """A run: status, current state, what it waits for."""
        return await detail(run_id)

    @app.get("/api/runs/{run_id}/state", tags=["runs"], responses={404: _ERRORS[404]})
    async def get_state(
        run_id: str,
        step: Annotated[int | None, Query(ge=0, description="after this step (0: initial)")] = None,
    ) -> Any:
        """The state after the last committed step, or after step `step`."""
        if step is None:
            return jsonable(await engine.get_state(run_id))
        rec = await engine.get_run(run_id)
        if step == 0:
            # The initial state as the run stored it (migrated like history() migrates it).
            return jsonable(engine._decode(rec.initial, run_id, 0, "initial", engine._versions(rec)))
        views = await engine.history(run_id)
        if step > len(views):
            raise StepNotFoundError(f"run {run_id!r} has steps 0..{len(views)}, not {step}", run_id=run_id)
        return jsonable(views[step - 1].state)

    @app.get(
        "/api/runs/{run_id}/history",
        response_model=list[StepInfo],
        tags=["runs"],
        responses={404: _ERRORS[404]},
    )
    async def history(
        run_id: str,
        states: Annotated[bool, Query(description="include the state after each step")] = False,
    ) -> list[StepInfo]:
        """Every committed step, oldest first, with deltas, routes, timings and per-field sizes."""
        rec = await engine.get_run(run_id)
        views = await engine.history(run_id)
        seen = runs.node_ms.get(run_id, {})
        out = []
        prev = rec.created_at
        for v in views:
            out.append(
                StepInfo(
                    step=v.step,
                    node_id=v.node_id,
                    delta=delta_doc(v.delta),
                    route=RouteInfo(**route_doc(v.route)),
                    attempt=v.attempt,
                    error=v.error,
                    ts=v.ts,
                    elapsed_ms=round((v.ts - prev) * 1e3, 3) if prev and v.ts else None,
                    node_ms=seen.get(v.step),
                    sizes=v.sizes,
                    state=jsonable(v.state) if states else None,
                )
            )
            prev = v.ts
        return out

    @app.post(
        "/api/runs/{run_id}/resume",
        response_model=RunDetail,
        tags=["runs"],
        responses={404: _ERRORS[404], 409: _ERRORS[409]},
    )
    async def resume(
        run_id: str,
        body: Annotated[ResumeRun | None, Body()] = None,
        wait: Annotated[bool, Query(description="answer when the run stops or pauses")] = False,
    ) -> RunDetail:
        """Continue a run from its last committed step; `input` answers an interrupt."""
        kw = {"input": body.input} if body is not None and "input" in body.model_fields_set else {}
        await runs.resume(run_id, kw, wait=wait)
        return await detail(run_id)

    @app.post(
        "/api/runs/{run_id}/cancel",
        response_model=RunDetail,
        tags=["runs"],
        responses={404: _ERRORS[404], 409: _ERRORS[409]},
    )
    async def cancel(run_id: str) -> RunDetail:
        """Cancel a run this server drives; its status becomes `cancelled` (resume continues it)."""
        await runs.cancel(run_id)
        return await detail(run_id)

    @app.post(
        "/api/runs/{run_id}/replay",
        response_model=ReplayInfo,
        tags=["runs"],
        responses={404: _ERRORS[404], 409: _ERRORS[409]},
    )
    async def replay(run_id: str) -> ReplayInfo:
        """Re-execute the run's nodes against its record (tools served from it, nothing written)."""
        if runs.is_live(run_id):
            raise AlreadyRunningError(f"run {run_id!r} is running; replay it when it stops", run_id=run_id)
        rep = await engine.replay(run_id)
        return ReplayInfo(
            run_id=rep.run_id,
            steps=rep.steps,
            ok=rep.ok,
            divergences=[
                DivergenceInfo(
                    step=d.step,
                    node_id=d.node_id,
                    field=d.field,
                    path=d.path,
                    recorded=jsonable(d.recorded),
                    replayed=jsonable(d.replayed),
                    branch=d.branch,
                )
                for d in rep.divergences
            ],
            text=str(rep),
        )

    @app.get(
        "/api/runs/{run_id}/events",
        tags=["runs"],
        responses={
            200: {"content": {"text/event-stream": {}}, "description": "Server-Sent Events"},
            404: _ERRORS[404],
        },
        response_class=StreamingResponse,
    )
    async def events(
        request: Request,
        run_id: str,
        after: Annotated[int, Query(ge=-1, description="skip events numbered up to this")] = -1,
    ) -> StreamingResponse:
        """The run's events as Server-Sent Events while this server drives it, then an `end` event.

        Each message has `id:` (its number in this drive), `event:` (the event kind) and
        `data:` (the event as JSON). A run not driven here gets a single `end` with its status.
        `Last-Event-ID` (sent by a reconnecting EventSource) works like `after`.
        """
        last = request.headers.get("last-event-id")
        if last is not None and last.strip().lstrip("-").isdigit():
            after = max(after, int(last))
        if not runs.is_live(run_id):
            await engine.get_run(run_id)  # 404 as JSON, before the stream starts

        async def body() -> AsyncIterator[str]:
            async for doc in runs.events(run_id, after):
                data = json.dumps(doc, separators=(",", ":"), default=repr)
                yield f"id: {doc['seq']}\nevent: {doc['kind']}\ndata: {data}\n\n"

        return StreamingResponse(
            body(),
            media_type="text/event-stream",
            headers={"cache-control": "no-cache", "x-accel-buffering": "no"},
        )

    async def _path(run: str | None) -> RunPath | None:
        return None if run is None else await run_path(engine, run)

    @app.get(
        "/api/graph",
        tags=["graph"],
        response_model=GraphInfo,
        responses={
            200: {
                "content": {
                    "application/json": {},
                    "text/plain": {"schema": {"type": "string"}},
                    "image/svg+xml": {"schema": {"type": "string"}},
                },
                "description": "The graph (JSON, DOT or Mermaid text, or SVG)",
            },
            404: _ERRORS[404],
        },
    )
    async def graph(
        format: Annotated[GraphFormat, Query()] = GraphFormat.JSON,
        run: Annotated[str | None, Query(description="highlight this run's path")] = None,
        layout: Annotated[
            Literal["auto", "graphviz", "simple"],
            Query(description="svg: Graphviz `dot` when installed, else the built-in layout"),
        ] = "auto",
    ) -> Any:
        """The graph as data, Graphviz DOT, Mermaid or SVG, with a run's path when `run` is given."""
        path = await _path(run)
        if format is GraphFormat.DOT:
            return PlainTextResponse(to_dot(engine, highlight=path))
        if format is GraphFormat.MERMAID:
            return PlainTextResponse(to_mermaid(engine, highlight=path))
        if format is GraphFormat.SVG:
            svg = await graph_svg(engine, path, layout=layout)
            return Response(svg, media_type="image/svg+xml")
        return graph_json(engine, path)

    @app.get("/", response_class=HTMLResponse, include_in_schema=False)
    async def page() -> HTMLResponse:
        """The inspector."""
        return HTMLResponse(inspector_html(name))

    return app


def _document_bearer(app: FastAPI) -> None:
    """Declare the bearer scheme in the OpenAPI schema, required by every operation."""
    build = app.openapi

    def openapi() -> dict[str, Any]:
        if app.openapi_schema is None:
            doc = build()
            doc.setdefault("components", {})["securitySchemes"] = {
                "bearer": {"type": "http", "scheme": "bearer"}
            }
            doc["security"] = [{"bearer": []}]
            app.openapi_schema = doc
        return app.openapi_schema

    app.openapi = openapi  # type: ignore[method-assign]


def _meta(rec: RunRecord) -> dict[str, Any]:
    try:
        doc = json.loads(rec.meta or b"{}")
    except ValueError:
        return {}
    return doc if isinstance(doc, dict) else {}
