"""JSON over HTTP for the adapters: one pooled client, retries with jittered backoff honouring
Retry-After, an optional rate limit, typed errors.

httpx and tenacity are imported here on first use (the ``http`` extra); nothing else in the
package imports them. Every exception is translated at this boundary into the
`graphengine.models.errors` tree, with secrets redacted from messages, URLs and body excerpts.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import math
import random
import threading
import time
import weakref
from collections.abc import AsyncGenerator, Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

from ._rate import RateLimit
from .errors import (
    BadResponseError,
    ChatModelError,
    MissingExtraError,
    ModelAuthError,
    ModelConnectionError,
    ModelHTTPError,
    ModelRateLimitError,
    ModelTimeoutError,
    Redactor,
)

__all__ = ["JsonHttp", "RetryPolicy", "import_httpx", "parse_retry_after", "shared_ssl_context"]

log = logging.getLogger("graphengine.models")

_httpx: ModuleType | None = None
_tenacity: ModuleType | None = None
_ssl_context: Any = None


def shared_ssl_context() -> Any:
    """One default TLS context for every client (building one costs ~0.1 s; reusing it, nothing)."""
    global _ssl_context
    if _ssl_context is None:
        _ssl_context = import_httpx("TLS").create_ssl_context()
    return _ssl_context


def import_httpx(what: str) -> ModuleType:
    """Import httpx once, or raise `MissingExtraError` naming the ``http`` extra."""
    global _httpx
    if _httpx is None:
        try:
            import httpx
        except ImportError as exc:  # pragma: no cover - exercised only without httpx
            raise MissingExtraError("httpx", "http", what) from exc
        _httpx = httpx
    return _httpx


def _import_tenacity(what: str) -> ModuleType:
    """Import tenacity (the retry loop) once, or raise `MissingExtraError` naming the ``http`` extra."""
    global _tenacity
    if _tenacity is None:
        try:
            import tenacity
        except ImportError as exc:  # pragma: no cover - exercised only without tenacity
            raise MissingExtraError("tenacity", "http", what) from exc
        _tenacity = tenacity
    return _tenacity


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before asking again.

    429 and 5xx answers, timeouts and connection failures are retried up to `max_retries`
    times. The wait is the server's Retry-After when it sent one (seconds or an HTTP date),
    else a jittered exponential backoff: ``d = min(max_backoff, backoff * 2**(retry-1))``, and
    the wait drawn uniformly from ``[(1 - jitter) * d, d]`` so that clients refused together do
    not all come back together. A Retry-After longer than `max_retry_after` is not waited
    for: the error is raised at once, carrying it.
    """

    max_retries: int = 2
    """Retries after the first request (0: never retry)."""
    backoff: float = 0.5
    """First wait, in seconds, when the server gave no Retry-After (before jitter)."""
    max_backoff: float = 20.0
    """Longest computed wait, in seconds."""
    max_retry_after: float = 60.0
    """Longest Retry-After honoured, in seconds."""
    jitter: float = 0.5
    """Share of each computed wait drawn at random, from 0 (none: exact waits) to 1 (full jitter)."""

    def __post_init__(self) -> None:
        if (
            isinstance(self.max_retries, bool)
            or not isinstance(self.max_retries, int)
            or self.max_retries < 0
        ):
            raise ValueError(f"RetryPolicy: max_retries must be an int >= 0, got {self.max_retries!r}")
        for name in ("backoff", "max_backoff", "max_retry_after"):
            value = getattr(self, name)
            if not isinstance(value, int | float) or not (math.isfinite(value) and value >= 0):
                raise ValueError(f"RetryPolicy: {name} must be a finite number >= 0, got {value!r}")
        if not isinstance(self.jitter, int | float) or not 0 <= self.jitter <= 1:
            raise ValueError(f"RetryPolicy: jitter must be between 0 and 1, got {self.jitter!r}")

    def delay(
        self, retry: int, retry_after: float | None, *, draw: Callable[[], float] = random.random
    ) -> float:
        """Seconds to wait before retry number `retry` (1-based); `draw` gives the jitter in [0, 1)."""
        if retry_after is not None:
            return max(0.0, retry_after)
        cap = float(min(self.max_backoff, self.backoff * (2 ** min(retry - 1, 64))))
        return cap * (1.0 - self.jitter * draw())


def parse_retry_after(value: str | None, *, now: float | None = None) -> float | None:
    """Seconds from a Retry-After header: a number of seconds, or an HTTP date; None if absent or bad."""
    if not value:
        return None
    value = value.strip()
    try:
        return max(0.0, float(value))
    except ValueError:
        pass
    try:
        when = email.utils.parsedate_to_datetime(value)
    except (TypeError, ValueError):
        return None
    return max(0.0, when.timestamp() - (time.time() if now is None else now))


def _excerpt(text: str, limit: int = 300) -> str:
    text = " ".join(text.split())
    return text if len(text) <= limit else text[:limit] + "..."


def _server_message(body: Any) -> str:
    """The error text of an OpenAI-style ``{"error": {"message": ...}}`` or Ollama ``{"error": "..."}``."""
    if isinstance(body, Mapping):
        err = body.get("error")
        if isinstance(err, Mapping) and isinstance(err.get("message"), str):
            return str(err["message"])
        if isinstance(err, str):
            return err
    return ""


class JsonHttp:
    """POSTs JSON and returns the decoded JSON answer, with retries; one per adapter instance.

    Requests reuse one ``httpx.AsyncClient`` (its pool of kept-alive connections) per event
    loop: an httpx client belongs to the loop it first ran on, and an adapter may be used from
    several (``run_sync`` calls, threads). `aclose` closes the current loop's client. A
    `client` passed in is used as is on every loop and never closed here (its owner does).
    """

    def __init__(
        self,
        *,
        provider: str,
        base_url: str,
        headers: Mapping[str, str],
        secrets: tuple[str, ...],
        timeout: float,
        retry: RetryPolicy,
        model: str = "",
        rate_limit: RateLimit | None = None,
        client: Any = None,
        transport: Any = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.provider = provider
        self.model = model
        self.base_url = base_url.rstrip("/")
        self._headers = dict(headers)
        self.redact = Redactor(secrets)
        self.timeout = timeout
        self.retry = retry
        self.rate_limit = rate_limit
        self._client = client
        self._transport = transport
        self._sleep = sleep
        # loop -> (its client, the generator closing it when the loop shuts down)
        self._clients: weakref.WeakKeyDictionary[
            asyncio.AbstractEventLoop, tuple[Any, AsyncGenerator[None]]
        ] = weakref.WeakKeyDictionary()
        self._clients_lock = threading.Lock()

    def _who(self) -> str:
        return f"{self.provider} model {self.model!r}" if self.model else self.provider

    def _err(self, cls: type[ChatModelError], msg: str, url: str, **kw: Any) -> ChatModelError:
        return cls(
            self.redact(f"{self._who()}: {msg}"), provider=self.provider, model=self.model, url=url, **kw
        )

    async def client(self, httpx: ModuleType) -> Any:
        """The client for the running event loop: the one passed in, else this loop's own."""
        if self._client is not None:
            return self._client
        loop = asyncio.get_running_loop()
        with self._clients_lock:
            held = self._clients.get(loop)
            if held is not None and not held[0].is_closed:
                return held[0]
            c = httpx.AsyncClient(
                transport=self._transport, timeout=self.timeout, verify=shared_ssl_context()
            )
            closer = _close_at_loop_shutdown(c)
            self._clients[loop] = (c, closer)
        await anext(closer)  # registers it with the loop's async-generator shutdown
        return c

    async def aclose(self) -> None:
        """Close the running loop's client (its kept-alive connections); a later request opens another."""
        with self._clients_lock:
            held = self._clients.pop(asyncio.get_running_loop(), None)
        if held is not None:
            await held[1].aclose()  # runs its finally: closes the client

    async def post(self, path: str, payload: Mapping[str, Any]) -> Any:
        """POST `payload` to ``base_url + path``; return the JSON body of the 2xx answer."""
        return await self._request(path, payload, None)

    async def post_lines(self, path: str, payload: Mapping[str, Any], on_line: Callable[[str], None]) -> None:
        """POST `payload` and hand each line of the 2xx answer's body to `on_line` as it arrives.

        For streamed answers (server-sent events, NDJSON). Errors and retries are those of
        `post`, with one difference: once a line was handed on, a failure is raised at once,
        never retried, so `on_line` never sees the beginning of an answer twice.
        """
        await self._request(path, payload, on_line)

    async def _request(
        self, path: str, payload: Mapping[str, Any], on_line: Callable[[str], None] | None
    ) -> Any:
        """Attempts under tenacity's loop: `_Retryable` failures are retried while `_worth_retrying`."""
        httpx = import_httpx(f"the {self.provider} chat model")
        tenacity = _import_tenacity(f"the {self.provider} chat model")
        url = self.base_url + path
        shown = self.redact(url)
        body = json.dumps(payload, ensure_ascii=False).encode()
        accept = "application/json" if on_line is None else "text/event-stream, application/x-ndjson"
        headers = {"content-type": "application/json", "accept": accept, **self._headers}
        lines = _Counted(on_line)
        attempts = tenacity.AsyncRetrying(
            stop=tenacity.stop_after_attempt(self.retry.max_retries + 1),
            wait=self._wait,
            retry=tenacity.retry_if_exception(lambda exc: self._worth_retrying(exc, lines)),
            sleep=self._sleep,
            before_sleep=self._log_retry,
            reraise=True,
        )
        try:
            async for attempt in attempts:
                with attempt:
                    n = attempt.retry_state.attempt_number
                    return await self._attempt(httpx, url, shown, body, headers, n, lines)
        except _Retryable as r:
            raise self._gave_up(r, lines) from None
        raise AssertionError("unreachable: tenacity ends with a result or an exception")  # pragma: no cover

    async def _attempt(
        self,
        httpx: ModuleType,
        url: str,
        shown: str,
        body: bytes,
        headers: Mapping[str, str],
        attempt: int,
        lines: _Counted,
    ) -> Any:
        """One request, after its turn under the rate limit; transport failures become `_Retryable`."""
        if self.rate_limit is not None:
            wait = self.rate_limit.reserve()
            if wait > 0:
                await self._sleep(wait)  # not part of the request's timeout
        try:
            async with asyncio.timeout(self.timeout):
                return await self._read(await self.client(httpx), url, shown, body, headers, attempt, lines)
        except (TimeoutError, httpx.TimeoutException):
            msg = f"{shown} gave no answer within {self.timeout:g}s"
            raise _Retryable(self._err(ModelTimeoutError, msg, shown, attempts=attempt), None) from None
        except httpx.TransportError as exc:
            msg = f"cannot reach {shown}: {type(exc).__name__}: {exc}"
            raise _Retryable(self._err(ModelConnectionError, msg, shown, attempts=attempt), None) from None

    def _worth_retrying(self, exc: BaseException, lines: _Counted) -> bool:
        """Retry 429s, 5xx, timeouts and connection failures, unless a line was already handed on
        or the server asked for a wait longer than `max_retry_after`."""
        if not isinstance(exc, _Retryable) or lines.count:
            return False
        return exc.retry_after is None or exc.retry_after <= self.retry.max_retry_after

    def _wait(self, state: Any) -> float:
        """The wait before the next attempt: the failure's Retry-After, else the policy's backoff."""
        exc = state.outcome.exception()
        retry_after = exc.retry_after if isinstance(exc, _Retryable) else None
        return self.retry.delay(state.attempt_number, retry_after)

    def _log_retry(self, state: Any) -> None:
        exc = state.outcome.exception()
        log.warning("%s (attempt %d); retrying in %.2fs", exc, state.attempt_number, state.next_action.sleep)

    def _gave_up(self, r: _Retryable, lines: _Counted) -> ChatModelError:
        """The typed error of the last attempt, saying why there is no other one."""
        failure = r.failure
        if lines.count:
            why = f"after {lines.count} streamed lines; not retried"
        elif r.retry_after is not None and r.retry_after > self.retry.max_retry_after:
            why = f"Retry-After {r.retry_after:g}s exceeds max_retry_after {self.retry.max_retry_after:g}s"
        elif failure.attempts > 1:
            why = f"gave up after {failure.attempts} attempts"
        else:
            return failure  # max_retries=0: one attempt, nothing to add
        failure.args = (f"{failure.args[0]} ({why})",)
        return failure

    async def _read(
        self,
        client: Any,
        url: str,
        shown: str,
        body: bytes,
        headers: Mapping[str, str],
        attempt: int,
        lines: _Counted,
    ) -> Any:
        """Send one request and read its answer: the decoded JSON (None once every line was handed on)."""
        async with client.stream("POST", url, content=body, headers=headers, timeout=self.timeout) as resp:
            status = resp.status_code
            if not 200 <= status < 300:
                await resp.aread()
                self._refuse(resp, shown, attempt)
            if lines.on_line is not None:
                async for line in resp.aiter_lines():
                    lines(line)
                return None
            await resp.aread()
        try:
            return json.loads(resp.content)
        except ValueError:
            raise self._err(
                BadResponseError,
                f"{shown} answered {status} with malformed JSON: {_excerpt(resp.text)!r}",
                shown,
                status=status,
                attempts=attempt,
            ) from None

    def _refuse(self, resp: Any, shown: str, attempt: int) -> None:
        """Raise the error a non-2xx answer means: `_Retryable` for 429 and 5xx, else a final one."""
        status = resp.status_code
        try:
            detail = _server_message(json.loads(resp.content)) or _excerpt(resp.text)
        except ValueError:
            detail = _excerpt(resp.text)
        if status in (401, 403):
            msg, cls = f"{shown} refused the credentials ({status}): {detail}", ModelAuthError
            raise self._err(cls, msg, shown, status=status, attempts=attempt)
        if status == 429:
            retry_after = parse_retry_after(resp.headers.get("retry-after"))
            raise _Retryable(
                ModelRateLimitError(
                    self.redact(f"{self._who()}: {shown} is rate limiting (429): {detail}"),
                    retry_after=retry_after,
                    provider=self.provider,
                    model=self.model,
                    url=shown,
                    attempts=attempt,
                ),
                retry_after,
            )
        failure = self._err(
            ModelHTTPError, f"{shown} answered {status}: {detail}", shown, status=status, attempts=attempt
        )
        if status >= 500:
            raise _Retryable(failure, parse_retry_after(resp.headers.get("retry-after")))
        raise failure


async def _close_at_loop_shutdown(client: Any) -> AsyncGenerator[None]:
    """Closes `client` when the generator is closed: by `JsonHttp.aclose`, when it is garbage
    collected, or by the event loop's ``shutdown_asyncgens`` (``asyncio.run`` and ``asyncio.Runner``
    call it as they end), so a model never closed by its user leaves no socket open behind a
    finished loop. An event loop has no other hook that runs inside it at its end."""
    try:
        yield
    finally:
        await client.aclose()


class _Retryable(Exception):
    """Carries a failure worth retrying (429, 5xx) out of one attempt, with the server's Retry-After."""

    def __init__(self, failure: ChatModelError, retry_after: float | None) -> None:
        super().__init__(str(failure))
        self.failure = failure
        self.retry_after = retry_after


class _Counted:
    """Hands lines on to `on_line` and counts them (a stream that has begun is never retried)."""

    __slots__ = ("count", "on_line")

    def __init__(self, on_line: Callable[[str], None] | None) -> None:
        self.on_line = on_line
        self.count = 0

    def __call__(self, line: str) -> None:
        assert self.on_line is not None
        self.count += 1
        self.on_line(line)
