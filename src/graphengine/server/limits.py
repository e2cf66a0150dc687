"""What the HTTP API accepts: request body size, run ids, numbers JSON can carry.

- `BodyLimit` answers 413 to a body over its limit, from `Content-Length` before reading it,
  or as soon as the bytes read pass the limit (a chunked body is never read whole first).
- `check_run_id` refuses (422) a run id a URL path segment cannot carry: empty, `.` or `..`,
  containing `/`, a control character or a lone surrogate, or longer than `RUN_ID_MAX`
  characters. The same rule holds for a new run's id and for every `{run_id}` in a path, so
  every run the API creates can be reached by URL.
- `nonfinite` finds a NaN or infinity in a request body: JSON has no such numbers and a stored
  state or input could not carry them, so they are refused (422) where they come in.
"""

from __future__ import annotations

import math
import unicodedata
from typing import Annotated, Any

from pydantic import AfterValidator, WithJsonSchema
from starlette.exceptions import HTTPException
from starlette.responses import JSONResponse
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = [
    "MAX_BODY",
    "RUN_ID_MAX",
    "RUN_ID_PATTERN",
    "BodyLimit",
    "BodyTooLargeError",
    "RunId",
    "StartWatch",
    "check_run_id",
    "nonfinite",
]

MAX_BODY = 1024 * 1024
"""Default request body limit in bytes (1 MiB)."""

RUN_ID_MAX = 200
"""Longest run id the API accepts, in characters."""


class StartWatch:
    """An ASGI `send` that notes when the response starts: after that, an error can no longer
    become a response of its own, so middleware can only re-raise it."""

    def __init__(self, send: Send) -> None:
        self.send = send
        """The wrapped `send`."""
        self.started = False
        """Whether `http.response.start` went out."""

    async def __call__(self, message: Message) -> None:
        """Pass `message` on, noting the response start."""
        if message["type"] == "http.response.start":
            self.started = True
        await self.send(message)


class BodyTooLargeError(HTTPException):
    """A request body over the limit (413); raised while the body is read."""

    def __init__(self, limit: int) -> None:
        super().__init__(413, f"request body over the limit of {limit} bytes")


def _too_large(limit: int) -> JSONResponse:
    return JSONResponse({"detail": f"request body over the limit of {limit} bytes"}, status_code=413)


class BodyLimit:
    """ASGI middleware refusing request bodies over `limit` bytes with 413."""

    def __init__(self, app: ASGIApp, limit: int) -> None:
        if limit < 0:
            raise ValueError(f"the request body limit must be >= 0 bytes, not {limit}")
        self.app = app
        self.limit = limit

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return
        limit = self.limit
        for key, value in scope.get("headers", ()):
            if key == b"content-length":
                try:
                    declared = int(value)
                except ValueError:
                    declared = -1
                if declared < 0:
                    await JSONResponse(
                        {"detail": f"bad Content-Length {value.decode('latin-1')!r}"}, status_code=400
                    )(scope, receive, send)
                    return
                if declared > limit:
                    await _too_large(limit)(scope, receive, send)
                    return
        seen = 0
        watch = StartWatch(send)

        async def limited() -> Message:
            nonlocal seen
            message = await receive()
            if message["type"] == "http.request":
                seen += len(message.get("body", b""))
                if seen > limit:
                    raise BodyTooLargeError(limit)
            return message

        try:
            await self.app(scope, limited, watch)
        except BodyTooLargeError:
            # Routes turn it into a 413 themselves; this covers a body read outside a route.
            if watch.started:
                raise
            await _too_large(limit)(scope, receive, send)


def run_id_problem(value: str) -> str | None:
    """Why `value` cannot be a run id of the API, or None when it can."""
    if not value:
        return "a run id must not be empty"
    if value in (".", ".."):
        return f"run id {value!r} cannot be a URL path segment"
    if len(value) > RUN_ID_MAX:
        return f"a run id has at most {RUN_ID_MAX} characters, not {len(value)}"
    if "/" in value:
        return f"run id {value!r} contains '/'"
    for i, ch in enumerate(value):
        if unicodedata.category(ch) in ("Cc", "Cs"):
            return f"run id {value!r} contains {ch!r} (a control character or a lone surrogate) at {i}"
    return None


def check_run_id(value: str) -> str:
    """`value` when it can be a run id of the API; ValueError saying why not otherwise."""
    problem = run_id_problem(value)
    if problem is not None:
        raise ValueError(problem)
    return value


_C = r"[^/\x00-\x1f\x7f-\x9f]"  # a character a run id may hold
_D = r"[^./\x00-\x1f\x7f-\x9f]"  # the same, but not a dot
RUN_ID_PATTERN = rf"^(?:{_D}{_C}*|\.{_D}{_C}*|\.\.{_C}+)$"
"""`check_run_id` as a regular expression (no lookaround: JSON Schema and Rust's regex read it)."""

RunId = Annotated[
    str,
    AfterValidator(check_run_id),
    WithJsonSchema({"type": "string", "minLength": 1, "maxLength": RUN_ID_MAX, "pattern": RUN_ID_PATTERN}),
]
"""A run id as the API accepts it: `check_run_id` validates (its message says why), the schema has the pattern."""


def nonfinite(value: Any) -> tuple[list[str | int], float] | None:
    """The location and value of the first NaN or infinity inside `value` (JSON data), or None."""
    todo: list[tuple[list[str | int], Any]] = [([], value)]
    while todo:  # iterative: a deeply nested body must not exhaust the stack
        loc, v = todo.pop()
        if isinstance(v, float):
            if not math.isfinite(v):
                return loc, v
        elif isinstance(v, dict):
            todo.extend(([*loc, str(k)], x) for k, x in reversed(v.items()))
        elif isinstance(v, list):
            todo.extend(([*loc, i], x) for i, x in reversed(list(enumerate(v))))
    return None
