"""How the HTTP API reports errors: typed engine and store errors -> status codes, the rest -> 500.

Every error answer is JSON `{"detail": ...}`. A typed error maps through `status_of` (its
message names the run, step or value concerned). Anything else a route raises is caught by
`ErrorBoundary`: the client gets a 500 whose detail is the exception's type and message, the
traceback goes to the server's log (logger `graphengine.server`), never to the client.
"""

from __future__ import annotations

import logging
from typing import Any

from pydantic import ValidationError
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Receive, Scope, Send

from graphengine.store import (
    CorruptRecordError,
    InvalidIdError,
    LeaseLostError,
    StatusConflictError,
    StepConflictError,
    StoreError,
    StoreUnavailableError,
)
from graphengine.store import RunExistsError as StoreRunExistsError

from ..errors import (
    GraphChangedError,
    GraphError,
    MaxStepsExceeded,
    RunBusyError,
    RunExistsError,
    RunNotFoundError,
    SchemaVersionError,
    SignalRefusedError,
    StateValidationError,
    WaitError,
)
from ..schedules import ScheduleError, ScheduleNotFoundError
from .limits import StartWatch

__all__ = [
    "AlreadyRunningError",
    "ErrorBoundary",
    "NotRunningError",
    "StepNotFoundError",
    "field_errors",
    "status_of",
]

log = logging.getLogger("graphengine.server")

_DETAIL_MAX = 2000  # characters of an unexpected exception's message shown to the client


class AlreadyRunningError(GraphError):
    """The run is being driven by this server already."""


class NotRunningError(GraphError):
    """Cancel of a run that this server does not drive."""


class StepNotFoundError(GraphError):
    """A step number outside the run's steps."""


def field_errors(exc: ValidationError, prefix: tuple[str, ...] = ("body", "state")) -> list[dict[str, Any]]:
    """A state's validation errors in FastAPI's 422 shape, `loc` starting with `prefix`."""
    return [
        {"loc": [*prefix, *e["loc"]], "msg": e["msg"], "type": e["type"]}
        for e in exc.errors(include_url=False, include_context=False, include_input=False)
    ]


_STATUS: tuple[tuple[type[Exception], int], ...] = (
    (RunNotFoundError, 404),
    (ScheduleNotFoundError, 404),
    (ScheduleError, 422),
    (StepNotFoundError, 404),
    # an id no store can hold (empty, NUL, lone surrogate, over 255 characters) names no run
    (InvalidIdError, 404),
    (RunExistsError, 409),
    (StoreRunExistsError, 409),
    (AlreadyRunningError, 409),
    (NotRunningError, 409),
    (GraphChangedError, 409),
    (SchemaVersionError, 409),
    (MaxStepsExceeded, 409),
    (StepConflictError, 409),
    (StatusConflictError, 409),
    (LeaseLostError, 409),
    (WaitError, 409),
    # driven by another process (a worker, the CLI) or still running its turn
    (RunBusyError, 409),
    (StateValidationError, 422),
    (StoreUnavailableError, 503),
    (CorruptRecordError, 500),
)
"""Typed errors -> HTTP status, most specific first; any other `GraphError` or `StoreError` is a 500."""


def status_of(exc: BaseException) -> int:
    """The HTTP status an engine or store error maps to (500 for anything unknown)."""
    if isinstance(exc, SignalRefusedError):  # an unknown run, or one that is done
        return 404 if exc.status is None else 409
    for tp, code in _STATUS:
        if isinstance(exc, tp):
            return code
    return 500


def describe(exc: BaseException) -> str:
    """The one-line detail of an error: typed errors say it themselves, others get their type."""
    text = " ".join(str(exc).split())
    if not isinstance(exc, GraphError | StoreError):
        text = f"internal error: {type(exc).__name__}" + (f": {text}" if text else "")
    return text if len(text) <= _DETAIL_MAX else text[: _DETAIL_MAX - 3] + "..."


class ErrorBoundary:
    """ASGI middleware answering 500 `{"detail": ...}` for an exception no handler took.

    The traceback is logged; the client sees the exception's type and message only. An
    exception after the response started (a broken event stream) can only be logged.
    """

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        watch = StartWatch(send)
        try:
            await self.app(scope, receive, watch)
        except Exception as exc:
            log.exception("%s %s failed", scope.get("method", ""), scope.get("path", ""))
            if watch.started:
                raise
            await JSONResponse({"detail": describe(exc)}, status_code=status_of(exc))(scope, receive, send)
