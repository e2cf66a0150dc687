"""JSON over HTTP for the adapters: timeouts, retries with backoff honouring Retry-After, typed errors.

httpx is imported here on first use (the ``http`` extra); nothing else in the package imports it.
Every exception is translated at this boundary into the `graphengine.models.errors` tree, with
secrets redacted from messages, URLs and body excerpts.
"""

from __future__ import annotations

import asyncio
import email.utils
import json
import logging
import time
from collections.abc import Awaitable, Callable, Mapping
from dataclasses import dataclass
from types import ModuleType
from typing import Any

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


@dataclass(frozen=True, slots=True)
class RetryPolicy:
    """When and how long to wait before asking again.

    429 and 5xx answers, timeouts and connection failures are retried up to `max_retries`
    times. The wait is the server's Retry-After when it sent one (seconds or an HTTP date),
    else ``backoff * 2**(retry-1)`` capped at `max_backoff`. A Retry-After longer than
    `max_retry_after` is not waited for: the error is raised at once, carrying it.
    """

    max_retries: int = 2
    """Retries after the first request (0: never retry)."""
    backoff: float = 0.5
    """First wait, in seconds, when the server gave no Retry-After."""
    max_backoff: float = 20.0
    """Longest computed wait, in seconds."""
    max_retry_after: float = 60.0
    """Longest Retry-After honoured, in seconds."""

    def delay(self, retry: int, retry_after: float | None) -> float:
        """Seconds to wait before retry number `retry` (1-based)."""
        if retry_after is not None:
            return max(0.0, retry_after)
        return float(min(self.max_backoff, self.backoff * (2 ** (retry - 1))))


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

    Without a `client`, each request opens its own ``httpx.AsyncClient`` (so an adapter can be
    shared across event loops); pass a long-lived client to reuse connections.
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
        client: Any = None,
        transport: Any = None,
        sleep: Callable[[float], Awaitable[None]] = asyncio.sleep,
    ) -> None:
        self.provider = provider
        self.base_url = base_url.rstrip("/")
        self._headers = dict(headers)
        self.redact = Redactor(secrets)
        self.timeout = timeout
        self.retry = retry
        self._client = client
        self._transport = transport
        self._sleep = sleep

    def _err(self, cls: type[ChatModelError], msg: str, url: str, **kw: Any) -> ChatModelError:
        return cls(self.redact(f"{self.provider}: {msg}"), provider=self.provider, url=url, **kw)

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
        httpx = import_httpx(f"the {self.provider} chat model")
        url = self.base_url + path
        shown = self.redact(url)
        body = json.dumps(payload, ensure_ascii=False).encode()
        accept = "application/json" if on_line is None else "text/event-stream, application/x-ndjson"
        headers = {"content-type": "application/json", "accept": accept, **self._headers}
        lines = _Counted(on_line)
        attempt = 0
        while True:
            attempt += 1
            retry_after: float | None = None
            try:
                async with asyncio.timeout(self.timeout):
                    return await self._once(httpx, url, shown, body, headers, attempt, lines)
            except _Retryable as r:
                failure, retry_after = r.failure, r.retry_after
            except (TimeoutError, httpx.TimeoutException):
                failure = self._err(
                    ModelTimeoutError,
                    f"{shown} gave no answer within {self.timeout:g}s",
                    shown,
                    attempts=attempt,
                )
            except httpx.TransportError as exc:
                failure = self._err(
                    ModelConnectionError,
                    f"cannot reach {shown}: {type(exc).__name__}: {exc}",
                    shown,
                    attempts=attempt,
                )
            if lines.count:
                failure.args = (f"{failure.args[0]} (after {lines.count} streamed lines; not retried)",)
                raise failure
            if attempt > self.retry.max_retries:
                raise failure
            if retry_after is not None and retry_after > self.retry.max_retry_after:
                failure.args = (
                    f"{failure.args[0]} (Retry-After {retry_after:g}s exceeds max_retry_after "
                    f"{self.retry.max_retry_after:g}s)",
                )
                raise failure
            wait = self.retry.delay(attempt, retry_after)
            log.warning("%s (attempt %d); retrying in %.2fs", failure, attempt, wait)
            await self._sleep(wait)

    async def _once(
        self,
        httpx: ModuleType,
        url: str,
        shown: str,
        body: bytes,
        headers: Mapping[str, str],
        attempt: int,
        lines: _Counted,
    ) -> Any:
        """One request: the decoded JSON (or None once every line was handed on); typed errors."""
        if self._client is not None:
            return await self._read(self._client, url, shown, body, headers, attempt, lines)
        async with httpx.AsyncClient(transport=self._transport, timeout=self.timeout) as c:
            return await self._read(c, url, shown, body, headers, attempt, lines)

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
                    self.redact(f"{self.provider}: {shown} is rate limiting (429): {detail}"),
                    retry_after=retry_after,
                    provider=self.provider,
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
