"""Errors raised by chat model adapters and the tools built on them, one tree.

::

    ChatModelError              base of every error a chat model adapter raises
    ├── MissingExtraError       an optional dependency is missing (also an ImportError);
    │                           names the pip extra to install
    ├── ModelAuthError          401/403: the key is missing, wrong or not allowed
    ├── ModelRateLimitError     429 still answered after the retries (carries retry_after)
    ├── ModelTimeoutError       no answer within the timeout, after the retries
    ├── ModelConnectionError    the server could not be reached, after the retries
    ├── ModelHTTPError          any other non-2xx answer (carries status)
    └── BadResponseError        a 2xx answer that breaks the protocol: malformed JSON,
                                missing fields, tool-call arguments that are not an object

Every message and attribute is redacted: an API key (or any configured secret header) never
appears in an exception's text, in logs, or in what `ctx.call` records.
"""

from __future__ import annotations

import re
from collections.abc import Iterable

__all__ = [
    "BadResponseError",
    "ChatModelError",
    "MissingExtraError",
    "ModelAuthError",
    "ModelConnectionError",
    "ModelHTTPError",
    "ModelRateLimitError",
    "ModelTimeoutError",
    "Redactor",
]

_MASK = "***"
_SECRET_QUERY = re.compile(
    r"(?i)([?&](?:api[-_]?key|key|token|access[-_]?token|sig|signature|secret|password)=)[^&#\s]*"
)
_BEARER = re.compile(r"(?i)(bearer\s+)[A-Za-z0-9._~+/=-]{8,}")


class Redactor:
    """Masks known secrets (and secret-looking URL parameters and bearer tokens) in text.

    Built once per adapter with its key and secret header values; `__call__` is one pass per
    secret. Secrets shorter than 4 characters are ignored (masking them would mangle text).
    """

    __slots__ = ("_secrets",)

    def __init__(self, secrets: Iterable[str | None] = ()) -> None:
        self._secrets = tuple(sorted({s for s in secrets if s and len(s) >= 4}, key=len, reverse=True))

    def __call__(self, text: str) -> str:
        """Return `text` with every secret replaced by ``***``."""
        for s in self._secrets:
            if s in text:
                text = text.replace(s, _MASK)
        text = _SECRET_QUERY.sub(lambda m: m.group(1) + _MASK, text)
        return _BEARER.sub(lambda m: m.group(1) + _MASK, text)


class ChatModelError(Exception):
    """Base of every error raised by a chat model adapter; the message is already redacted."""

    def __init__(
        self,
        msg: str,
        *,
        provider: str = "",
        url: str = "",
        status: int | None = None,
        attempts: int = 1,
        model: str = "",
    ) -> None:
        super().__init__(msg)
        self.provider = provider
        """Which adapter raised it (``openai``, ``ollama``, ``langchain``, ``http``)."""
        self.model = model
        """The model asked (the name sent with the request), when there was one."""
        self.url = url
        """The (redacted) URL called, when there was one."""
        self.status = status
        """The HTTP status answered, when there was one."""
        self.attempts = attempts
        """How many requests were made, retries included."""


class MissingExtraError(ChatModelError, ImportError):
    """An optional dependency is not installed; the message names the pip extra that brings it."""

    def __init__(self, module: str, extra: str, what: str) -> None:
        super().__init__(
            f"{what} needs {module!r}, which is not installed. Install it with: pip install graphengine[{extra}]"
        )
        self.module = module
        """The missing importable module."""
        self.extra = extra
        """The graphengine extra that installs it."""


class ModelAuthError(ChatModelError):
    """The server refused the credentials (401/403). Not retried: check the key and its rights."""


class ModelRateLimitError(ChatModelError):
    """The server still answered 429 after the retries (or asked to wait longer than allowed)."""

    def __init__(
        self,
        msg: str,
        *,
        retry_after: float | None = None,
        provider: str = "",
        url: str = "",
        status: int | None = 429,
        attempts: int = 1,
        model: str = "",
    ) -> None:
        super().__init__(msg, provider=provider, url=url, status=status, attempts=attempts, model=model)
        self.retry_after = retry_after
        """Seconds the server asked to wait (its Retry-After header), when it said."""


class ModelTimeoutError(ChatModelError):
    """No complete answer within the timeout, on every attempt."""


class ModelConnectionError(ChatModelError):
    """The server could not be reached (refused, DNS, reset), on every attempt."""


class ModelHTTPError(ChatModelError):
    """A non-2xx answer that is neither auth nor rate limit (5xx after the retries, other 4xx at once)."""


class BadResponseError(ChatModelError):
    """A 2xx answer that does not follow the wire protocol (malformed JSON, missing or mistyped fields)."""
