"""The HTTP runtime API of one engine: `create_app(engine)` returns an ASGI (FastAPI) application.

Routes (JSON unless said otherwise; the OpenAPI schema is at `/openapi.json`):

    GET  /api/runs                      runs, newest first (?status=, ?prefix=, ?live=, ?limit=, ?offset=;
                                        a `Link: rel="next"` header when more follow)
    POST /api/runs                      start a run {"run_id"?, "state"} (?wait=true: until it stops or pauses)
    GET  /api/runs/{run_id}             status, state, interrupt, step count, whether this server drives it
    GET  /api/runs/{run_id}/state       the state after the last step, or after ?step=K (0: initial)
    GET  /api/runs/{run_id}/history     committed steps: node, delta, route, attempt, error, sizes, timings
    POST /api/runs/{run_id}/resume      continue a run, {"input": ...} answers its interrupt (?wait=true,
                                        ?allow_graph_change=true: even with a changed graph)
    POST /api/runs/{run_id}/continue    the run's next turn, {"input": {fields}} merged through the reducers
                                        (a chat's next message; ?wait=true, ?allow_graph_change=true)
    POST /api/runs/{run_id}/update-state  edit a stopped run's state as a recorded step,
                                        {"values": {fields}, "as_node"?, "goto"?} (?allow_graph_change=true)
    POST /api/runs/{run_id}/cancel      cancel a run this server is driving (status becomes cancelled)
    POST /api/runs/{run_id}/replay      re-execute the run against its record; the replay report
                                        (?allow_graph_change=true: even with a changed graph)
    POST /api/runs/{run_id}/signals     send a signal {"name", "payload"?, "id"?} (idempotent by id: a
                                        webhook's delivery id); 201 with the stored signal
    GET  /api/runs/{run_id}/signals     the run's signals in arrival order, with the step that took each
    GET  /api/runs/{run_id}/events      Server-Sent Events of a run this server drives, then an `end` event
    GET/POST/DELETE /api/schedules...   schedules (see `graphengine.server.schedules`)
    GET  /api/graph                     the graph as JSON, DOT, Mermaid or SVG (?format=, ?run= highlights a run)
    GET  /                              the inspector page (see `graphengine.server.inspector`)

Errors are JSON `{"detail": ...}` with these status codes (`graphengine.server.errors`): 404 an
unknown run (or step);
409 a run id that exists, a signal to a run that is done, a run already running in this server, a cancel of a run that is not
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

Who may connect (`graphengine.server.security`): without a token, only requests whose `Host`
(and, for POST, `Origin`) is a loopback name are served (403 otherwise), so a web page cannot
reach the API through DNS rebinding or a cross-site form; `allowed_hosts` widens the list.

Limits (`graphengine.server.limits`): a request body over `max_body` bytes (default 1 MiB) is
refused with 413 while it is read; a run id a URL path segment cannot carry (empty, `.`, `..`,
`/`, control characters, over 200 characters) and a NaN or infinity in a body are refused with
422. Any other error is a JSON 500 naming the exception; tracebacks go to the server log only.
"""

from __future__ import annotations

import json
import os
import uuid
from collections.abc import AsyncIterator, Callable, Sequence
from contextlib import AbstractAsyncContextManager, asynccontextmanager
from dataclasses import dataclass
from enum import StrEnum
from typing import Annotated, Any, Literal, Optional, TypeVar
from urllib.parse import urlencode

from fastapi import Body, FastAPI, Query, Request, Response
from fastapi.encoders import jsonable_encoder
from fastapi.exceptions import RequestValidationError
from fastapi.responses import HTMLResponse, JSONResponse, PlainTextResponse, StreamingResponse
from fastapi.routing import APIRoute
from pydantic import BaseModel, ConfigDict, Field, TypeAdapter, ValidationError, create_model
from starlette.exceptions import HTTPException as StarletteHTTPException

from graphengine.store import RunRecord, RunStatus, ScheduleStore, StoreError, WaitStore

from ..context import Signal
from ..engine import Engine
from ..errors import GraphError, GraphValidationError, RunExistsError, StateValidationError
from ..viz import RunPath, run_path, to_dot, to_mermaid
from .errors import (
    AlreadyRunningError,
    ErrorBoundary,
    StepNotFoundError,
    describe,
    field_errors,
    status_of,
)
from .forms import delta_doc, jsonable, route_doc
from .inspector import graph_json, graph_svg, inspector_html
from .limits import MAX_BODY, BodyLimit, RunId, nonfinite
from .live import EVENTS_KEPT, RunManager
from .schedules import add_schedule_routes, server_scheduler
from .security import LOOPBACK_HOSTS, BearerAuth, HostCheck, NoFraming

__all__ = ["TOKEN_ENV", "RunManager", "create_app", "token_from_env"]

TOKEN_ENV = "GRAPHENGINE_TOKEN"  # noqa: S105 (a variable name, not a secret)
"""The environment variable `graphengine serve` reads the bearer token from."""


def token_from_env(name: str = TOKEN_ENV) -> str | None:
    """The bearer token in environment variable `name` (None when unset or empty: no auth)."""
    return os.environ.get(name) or None


_F = TypeVar("_F", bound=Callable[..., Any])


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
    wait: WaitInfo | None = None
    """What the run waits for, when it is `waiting` (a timer, a signal)."""
    fingerprint: str = ""
    """Fingerprint of the graph the run started with."""
    graph_changed: bool = False
    """True when this engine's graph differs from the run's (resume and replay are refused with 409
    unless asked with `?allow_graph_change=true`)."""


class WaitInfo(BaseModel):
    """What a waiting run waits for."""

    until: float | None = None
    """When it is due (seconds since the epoch), or None: only a signal wakes it."""
    signal: str | None = None
    """The signal it waits for, if any."""


class SignalInfo(BaseModel):
    """A signal stored for a run."""

    name: str
    """What `ctx.wait_for(name)` waits for."""
    id: str
    """The sender's id (a second signal with it was not stored)."""
    payload: Any = None
    """Its JSON payload."""
    ts: float
    """When it was received (seconds since the epoch)."""
    taken_step: int | None = None
    """The step whose node received it; None while it is buffered."""


class SendSignal(BaseModel):
    """Body of `POST /api/runs/{run_id}/signals`."""

    model_config = ConfigDict(extra="forbid")

    name: str = Field(min_length=1, max_length=255)
    """The signal's name."""
    payload: Any = None
    """Its payload (JSON)."""
    id: str | None = Field(default=None, min_length=1, max_length=255)
    """Idempotency key: a second signal with this id is not stored (default: a new id)."""


class StartRun(BaseModel):
    """Body of `POST /api/runs`."""

    model_config = ConfigDict(extra="forbid")

    run_id: RunId | None = None
    """The id of the new run (default: a random one); see `graphengine.server.limits.check_run_id`."""
    state: dict[str, Any] = Field(default_factory=dict)
    """The initial state, validated against the engine's state type."""


class ResumeRun(BaseModel):
    """Body of `POST /api/runs/{run_id}/resume`; leave `input` out to continue without answering."""

    model_config = ConfigDict(extra="forbid")

    input: Any = None
    """The answer handed to the interrupted node (given explicitly, `null` included)."""


class ContinueRun(BaseModel):
    """Body of `POST /api/runs/{run_id}/continue`: the next turn's input."""

    model_config = ConfigDict(extra="forbid")

    input: dict[str, Any]
    """State fields merged through the reducers (a chat's new message), as `Engine.continue_run` takes them."""


class UpdateState(BaseModel):
    """Body of `POST /api/runs/{run_id}/update-state`."""

    model_config = ConfigDict(extra="forbid")

    values: dict[str, Any]
    """State fields merged through the reducers, as `Engine.update_state` takes them."""
    as_node: str | None = None
    """The node the edit acts as (default: the node of the run's last step)."""
    goto: str | None = None
    """The node to go to next instead of `as_node`'s edges."""


def _edit_body(engine: Engine[Any]) -> type[UpdateState]:
    """`UpdateState` whose `as_node` and `goto` take only the names of `engine`'s nodes."""
    names = tuple(sorted(engine.runtime().graph.nodes))
    node: Any = Optional[Literal.__getitem__(names)]  # noqa: UP045 (a Literal built at run time)
    return create_model(
        "UpdateState",
        __base__=UpdateState,
        as_node=(
            node,
            Field(default=None, description="The node the edit acts as (default: the last step's)."),
        ),
        goto=(node, Field(default=None, description="The node to go to next instead of as_node's edges.")),
    )


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


# ---------------------------------------------------------------------- the app


AllowGraphChange = Annotated[
    bool,
    Query(
        description="go on although this engine's graph differs from the one the run started with "
        "(as allow_graph_change=True in Python; otherwise 409)"
    ),
]
"""The `?allow_graph_change=true` query parameter of resume and replay."""

_ERRORS: dict[int | str, dict[str, Any]] = {
    404: {"model": Problem, "description": "Unknown run"},
    409: {"model": Problem, "description": "Conflict with the run's state"},
}


def create_app(
    engine: Engine[Any],
    *,
    token: str | None = None,
    title: str | None = None,
    allowed_hosts: Sequence[str] | None = None,
    max_body: int = MAX_BODY,
    events_kept: int = EVENTS_KEPT,
    schedules: bool = False,
) -> FastAPI:
    """The HTTP API and inspector of `engine` (runs in `engine.store`), as an ASGI application.

    `token`: when set, every route requires it (see the module docstring); `token_from_env()`
    reads it from `$GRAPHENGINE_TOKEN`. `allowed_hosts`: the host names the `Host` header (and
    a POST's `Origin`) may carry; default: the loopback names without a token, any host with
    one (`"*"` allows any; see `graphengine.server.security`). `max_body`: request body limit
    in bytes (413 above it). `events_kept`: recent events a live run keeps in memory (older
    ones are rebuilt from the store for SSE clients). The engine's graph is validated here, so
    a malformed graph fails at start-up, not on the first request. The interactive `/docs`
    page is off (its assets come from a CDN); the schema is served at `/openapi.json`.
    `schedules`: also fire the store's due schedules while the app runs, as runs this server
    drives (`graphengine serve` does; see `graphengine.server.schedules`). The schedule routes
    are there whenever the store keeps schedules.
    """
    engine.validate()
    if token is not None and not token.strip():
        raise ValueError(
            "token is empty: that would serve without authentication. Pass the token, "
            "or token=None to serve loopback hosts without one"
        )
    if max_body < 0:
        raise ValueError(f"max_body is the request body limit in bytes, >= 0; not {max_body}")
    if allowed_hosts is None:
        allowed_hosts = ("*",) if token else LOOPBACK_HOSTS
    runs = RunManager(engine, events_kept=events_kept)
    name = title or f"graphengine: {getattr(engine.state_type, '__name__', 'graph')}"

    keeps_schedules = isinstance(engine.store, ScheduleStore)
    app = FastAPI(
        title=name,
        version="1",
        description="Start, resume, cancel, inspect and replay runs of one graphengine engine.",
        docs_url=None,
        redoc_url=None,
        lifespan=_lifespan(engine, runs, schedules=schedules and keeps_schedules),
        responses={
            400: {"model": Problem, "description": "A request body that cannot be parsed"},
            403: {"model": Problem, "description": "A Host or Origin outside the allowed hosts"},
            413: {"model": Problem, "description": "A request body over the size limit"},
            **({401: {"model": Problem, "description": "Missing or wrong token"}} if token else {}),
        },
    )
    app.state.runs = runs
    app.state.engine = engine
    # Added innermost first: a request meets the error boundary, the host check, the token
    # check and the body limit, in that order.
    app.add_middleware(BodyLimit, limit=max_body)
    if token:
        app.add_middleware(BearerAuth, token=token)
        _document_bearer(app)
    app.add_middleware(HostCheck, allowed=tuple(allowed_hosts))
    app.add_middleware(ErrorBoundary)
    app.add_middleware(NoFraming)
    _add_error_handlers(app)
    views = _Views(engine, runs)
    # Registered in this order (it is the order of the OpenAPI schema's paths).
    _add_run_collection(app, engine, runs, views)
    _add_run_reads(app, engine, runs, views)
    _add_run_actions(app, engine, runs, views)
    _add_turn_actions(app, engine, runs, views)
    _add_signal_routes(app, engine)
    _add_event_stream(app, engine, runs)
    _add_graph_routes(app, engine, name)
    if keeps_schedules:
        add_schedule_routes(app, engine, _ERRORS, Problem)
    return app


def _lifespan(
    engine: Engine[Any], runs: RunManager, *, schedules: bool
) -> Callable[[FastAPI], AbstractAsyncContextManager[None]]:
    """The app's lifespan: a scheduler firing the store's schedules (with `schedules`) while it
    serves, and the runs it drives closed when it stops."""

    @asynccontextmanager
    async def lifespan(app: FastAPI) -> AsyncIterator[None]:
        scheduler = server_scheduler(engine, runs) if schedules else None
        if scheduler is not None:
            scheduler.start()
        try:
            yield
        finally:
            if scheduler is not None:
                await scheduler.close()
            await runs.close()

    return lifespan


def _add_error_handlers(app: FastAPI) -> None:
    """Answer engine, store and request errors as JSON problems with their status codes."""

    async def on_error(request: Request, exc: Exception) -> Response:
        return JSONResponse({"detail": describe(exc)}, status_code=status_of(exc))

    async def on_state_error(request: Request, exc: Exception) -> Response:
        cause = exc.__cause__
        if isinstance(cause, ValidationError):
            return JSONResponse({"detail": field_errors(cause)}, status_code=422)
        return JSONResponse({"detail": describe(exc)}, status_code=422)

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

    async def on_request_error(request: Request, exc: Exception) -> Response:
        assert isinstance(exc, RequestValidationError)
        # FastAPI's shape, but ASCII-escaped: an echoed input may hold a lone surrogate, which
        # UTF-8 cannot encode (the answer would fail as a 500).
        body = json.dumps({"detail": jsonable_encoder(exc.errors())}, ensure_ascii=True, default=repr)
        return Response(body, status_code=422, media_type="application/json")

    app.add_exception_handler(RequestValidationError, on_request_error)
    app.add_exception_handler(StarletteHTTPException, on_http_error)
    app.add_exception_handler(GraphError, on_error)
    app.add_exception_handler(StoreError, on_error)
    app.add_exception_handler(StateValidationError, on_state_error)


@dataclass(frozen=True, slots=True)
class _Views:
    """How the routes show runs: a run's summary, and its detail (state, interrupt, graph change)."""

    engine: Engine[Any]
    runs: RunManager

    def summary(self, rec: RunRecord) -> dict[str, Any]:
        """A stored run as `RunSummary` fields (with whether this server drives it)."""
        meta = _meta(rec)
        src = meta.get("forked_from")
        return {
            "run_id": rec.run_id,
            "status": rec.status,
            "created_at": rec.created_at,
            "updated_at": rec.updated_at,
            "error": rec.error,
            "error_node": rec.error_node,
            "live": self.runs.is_live(rec.run_id),
            "forked_from": src if isinstance(src, str) else None,
        }

    async def detail(self, run_id: str) -> RunDetail:
        """A run as `RunDetail`: its summary, steps, state and what it waits for."""
        engine = self.engine
        rec = await engine.get_run(run_id)
        state = await engine.get_state(run_id)
        intr = await engine.get_interrupt(run_id)
        steps = await engine.store.load_steps(run_id)
        return RunDetail(
            **self.summary(rec),
            steps=len(steps),
            state=jsonable(state),
            interrupt=None
            if intr is None
            else InterruptInfo(
                node_id=intr.node_id, step=intr.step, payload=jsonable(intr.payload), before=intr.before
            ),
            fingerprint=rec.fingerprint,
            graph_changed=not engine.runtime().same_graph(rec),
            wait=await self.waiting(rec),
        )

    async def waiting(self, rec: RunRecord) -> WaitInfo | None:
        """What a `waiting` run waits for (None for a run in any other status)."""
        store = self.engine.store
        if rec.status is not RunStatus.WAITING or not isinstance(store, WaitStore):
            return None
        timer = await store.get_timer(rec.run_id)
        return None if timer is None else WaitInfo(until=timer.wake_at, signal=timer.signal)


def _signal_info(sig: Signal) -> SignalInfo:
    """A signal as the API shows it."""
    return SignalInfo(
        name=sig.name, id=sig.id, payload=jsonable(sig.payload), ts=sig.ts, taken_step=sig.taken_step
    )


def _add_run_collection(app: FastAPI, engine: Engine[Any], runs: RunManager, views: _Views) -> None:
    """`GET /api/runs` (the list) and `POST /api/runs` (start a run)."""
    adapter: TypeAdapter[Any] = TypeAdapter(engine.state_type)

    @app.get("/api/runs", response_model=list[RunSummary], tags=["runs"])
    async def list_runs(
        response: Response,
        status: Annotated[RunStatus | None, Query(description="only runs with this status")] = None,
        prefix: Annotated[str | None, Query(description="only run ids starting with this")] = None,
        live: Annotated[bool | None, Query(description="only runs this server drives (or not)")] = None,
        limit: Annotated[int, Query(ge=1, le=10_000, description="at most this many runs")] = 100,
        offset: Annotated[
            int, Query(ge=0, le=1_000_000, description="skip this many matching runs first (the next page)")
        ] = 0,
    ) -> list[dict[str, Any]]:
        """Runs in the store, newest first, with their status, one page of `limit` from `offset`.

        When more runs match beyond this page, a `Link: <...>; rel="next"` header names the next
        page's URL (and `X-More-Runs: true`), so a list that stops at its limit says so."""
        want = offset + limit + 1  # one beyond the page: whether a next page exists
        fetch = want if prefix is None and live is None else max(want * 10, 1000)
        matched = []
        for rec in await engine.store.list_runs(status=status, limit=fetch):
            if prefix is not None and not rec.run_id.startswith(prefix):
                continue
            if live is not None and runs.is_live(rec.run_id) != live:
                continue
            matched.append(rec)
            if len(matched) >= want:
                break
        if len(matched) == want:
            query = {
                "limit": limit,
                "offset": offset + limit,
                "status": status,
                "prefix": prefix,
                "live": live,
            }
            nxt = urlencode(
                {k: str(v).lower() if isinstance(v, bool) else v for k, v in query.items() if v is not None}
            )
            response.headers["link"] = f'</api/runs?{nxt}>; rel="next"'
            response.headers["x-more-runs"] = "true"
        return [views.summary(rec) for rec in matched[offset : offset + limit]]

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
        _refuse_nonfinite(body.state, ("body", "state"))
        try:
            state = adapter.validate_python(body.state)
        except ValidationError as exc:
            raise StateValidationError(f"initial state does not validate: {exc}", run_id=run_id) from exc
        if await engine.store.get_run(run_id) is not None:
            raise RunExistsError(f"run {run_id!r} exists; resume it instead", run_id=run_id)
        await runs.start(run_id, state, wait=wait)
        return await views.detail(run_id)


def _add_run_reads(app: FastAPI, engine: Engine[Any], runs: RunManager, views: _Views) -> None:
    """`GET` a run, its state (now or after a step) and its history."""

    @app.get("/api/runs/{run_id}", response_model=RunDetail, tags=["runs"], responses={404: _ERRORS[404]})
    async def get_run(run_id: RunId) -> RunDetail:
        """A run: status, current state, what it waits for."""
        return await views.detail(run_id)

    @app.get("/api/runs/{run_id}/state", tags=["runs"], responses={404: _ERRORS[404]})
    async def get_state(
        run_id: RunId,
        step: Annotated[int | None, Query(ge=0, description="after this step (0: initial)")] = None,
    ) -> Any:
        """The state after the last committed step, or after step `step`."""
        if step is None:
            return jsonable(await engine.get_state(run_id))
        rec = await engine.get_run(run_id)
        if step == 0:
            # The initial state as the run stored it (migrated like history() migrates it).
            rt = engine.runtime()
            return jsonable(rt.decode(rec.initial, run_id, 0, "initial", rt.versions(rec)))
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
        run_id: RunId,
        states: Annotated[bool, Query(description="include the state after each step")] = False,
    ) -> list[StepInfo]:
        """Every committed step, oldest first, with deltas, routes, timings and per-field sizes."""
        rec = await engine.get_run(run_id)
        views = await engine.history(run_id)
        seen = runs.node_ms.get(run_id)
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
                    node_ms=seen.get(v.step) if seen is not None else None,
                    sizes=v.sizes,
                    state=jsonable(v.state) if states else None,
                )
            )
            prev = v.ts
        return out


def _run_action(app: FastAPI, name: str, model: type[BaseModel], *, refuses: str = "") -> Callable[[_F], _F]:
    """`POST /api/runs/{run_id}/<name>`: tagged `runs`, answering 404 (no such run) and 409 (the
    run is in a state the action does not apply to), and 422 for what `refuses` says."""
    responses: dict[int | str, dict[str, Any]] = {404: _ERRORS[404], 409: _ERRORS[409]}
    if refuses:
        responses[422] = {"model": Problem, "description": refuses}
    return app.post(f"/api/runs/{{run_id}}/{name}", response_model=model, tags=["runs"], responses=responses)


def _add_run_actions(app: FastAPI, engine: Engine[Any], runs: RunManager, views: _Views) -> None:
    """`POST /api/runs/{run_id}/resume`, `/cancel` and `/replay`."""

    def run_action(name: str, model: type[BaseModel]) -> Callable[[_F], _F]:
        return _run_action(app, name, model)

    @run_action("resume", RunDetail)
    async def resume(
        run_id: RunId,
        body: Annotated[ResumeRun | None, Body()] = None,
        wait: Annotated[bool, Query(description="answer when the run stops or pauses")] = False,
        allow_graph_change: AllowGraphChange = False,
    ) -> RunDetail:
        """Continue a run from its last committed step; `input` answers an interrupt."""
        kw: dict[str, Any] = (
            {"input": body.input} if body is not None and "input" in body.model_fields_set else {}
        )
        if kw:
            _refuse_nonfinite(kw["input"], ("body", "input"))
        if allow_graph_change:
            kw["allow_graph_change"] = True
        await runs.resume(run_id, kw, wait=wait)
        return await views.detail(run_id)

    @run_action("cancel", RunDetail)
    async def cancel(run_id: RunId) -> RunDetail:
        """Cancel a run this server drives; its status becomes `cancelled` (resume continues it)."""
        await runs.cancel(run_id)
        return await views.detail(run_id)

    @run_action("replay", ReplayInfo)
    async def replay(run_id: RunId, allow_graph_change: AllowGraphChange = False) -> ReplayInfo:
        """Re-execute the run's nodes against its record (tools served from it, nothing written)."""
        if runs.is_live(run_id):
            raise AlreadyRunningError(f"run {run_id!r} is running; replay it when it stops", run_id=run_id)
        rep = await engine.replay(run_id, allow_graph_change=allow_graph_change)
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


def _add_turn_actions(app: FastAPI, engine: Engine[Any], runs: RunManager, views: _Views) -> None:
    """`POST /api/runs/{run_id}/continue` (the next turn) and `/update-state` (an edit as a node)."""

    @_run_action(app, "continue", RunDetail, refuses="The input is not a delta of the state type")
    async def continue_run(
        run_id: RunId,
        body: Annotated[ContinueRun, Body()],
        wait: Annotated[bool, Query(description="answer when the turn stops or pauses")] = False,
        allow_graph_change: AllowGraphChange = False,
    ) -> RunDetail:
        """Begin the run's next turn: `input` merged into its state, the graph run again from its start
        (a chat's next message; a pending interrupt is dropped). 422 for an input that is not a delta
        of the state type."""
        _refuse_nonfinite(body.input, ("body", "input"))
        kw = {"allow_graph_change": True} if allow_graph_change else {}
        await runs.continue_run(run_id, body.input, kw, wait=wait)
        return await views.detail(run_id)

    async def update_state(
        run_id: RunId,
        body: UpdateState,
        allow_graph_change: AllowGraphChange = False,
    ) -> RunDetail:
        """Edit a stopped run's state as a recorded step "as node `as_node`" (`Engine.update_state`):
        a paused run stays paused; otherwise it waits before the node the edit leads to. 422 for
        values that are not a delta of the state type or an unknown node."""
        _refuse_nonfinite(body.values, ("body", "values"))
        await runs.not_live(run_id)
        try:
            await engine.update_state(
                run_id,
                body.values,
                as_node=body.as_node,
                goto=body.goto,
                allow_graph_change=allow_graph_change,
            )
        except GraphValidationError as exc:
            raise StarletteHTTPException(422, describe(exc)) from exc
        return await views.detail(run_id)

    # The body names this engine's nodes: its schema lists them, so a client learns (and a request
    # is checked for) the node names `as_node` and `goto` may take.
    update_state.__annotations__["body"] = Annotated[_edit_body(engine), Body()]
    _run_action(
        app,
        "update-state",
        RunDetail,
        refuses="The values are not a delta of the state type, or a node is unknown",
    )(update_state)


def _add_signal_routes(app: FastAPI, engine: Engine[Any]) -> None:
    """`POST`/`GET /api/runs/{run_id}/signals`: send a run a signal, list its signals."""

    @app.post(
        "/api/runs/{run_id}/signals",
        response_model=SignalInfo,
        status_code=201,
        tags=["runs"],
        responses={404: _ERRORS[404], 409: _ERRORS[409]},
    )
    async def send_signal(run_id: RunId, body: Annotated[SendSignal, Body()]) -> SignalInfo:
        """Send a signal to a run (`Engine.signal`); a run waiting for it is woken. Idempotent by `id`.

        404 for an unknown run, 409 for a run that is done; a second signal with the same id
        answers the first one (nothing stored)."""
        _refuse_nonfinite(body.payload, ("body", "payload"))
        return _signal_info(await engine.signal(run_id, body.name, body.payload, id=body.id))

    @app.get(
        "/api/runs/{run_id}/signals",
        response_model=list[SignalInfo],
        tags=["runs"],
        responses={404: _ERRORS[404]},
    )
    async def list_signals(run_id: RunId) -> list[SignalInfo]:
        """The run's signals in arrival order; `taken_step` names the step that received each."""
        return [_signal_info(sig) for sig in await engine.signals(run_id)]


def _add_event_stream(app: FastAPI, engine: Engine[Any], runs: RunManager) -> None:
    """`GET /api/runs/{run_id}/events`: a run's events as Server-Sent Events."""

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
        run_id: RunId,
        after: Annotated[int, Query(ge=-1, description="skip events numbered up to this")] = -1,
    ) -> StreamingResponse:
        """The run's events as Server-Sent Events while this server drives it, then an `end` event.

        Each message has `id:` (its number in this drive), `event:` (the event kind) and
        `data:` (the event as JSON); a node streaming a chat model (`chat(..., stream=True)`)
        adds `token` events, the text in `msg` and the answer's id in `meta.message_id`. A run
        not driven here gets a single `end` with its status.
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


def _add_graph_routes(app: FastAPI, engine: Engine[Any], name: str) -> None:
    """`GET /api/graph` (the graph as data or a drawing) and `GET /` (the inspector page)."""

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
        run: Annotated[RunId | None, Query(description="highlight this run's path")] = None,
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


def _refuse_nonfinite(value: Any, prefix: tuple[str, ...]) -> None:
    """422 naming where a NaN or infinity sits in `value`: JSON has no such numbers to store."""
    found = nonfinite(value)
    if found is None:
        return
    loc, number = found
    raise RequestValidationError(
        [
            {
                "loc": [*prefix, *loc],
                "msg": f"{number} is not a JSON number (NaN and infinities cannot be stored)",
                "type": "finite_number",
            }
        ]
    )
