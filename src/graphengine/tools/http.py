"""`HttpTool`: HTTP requests as a recorded tool (httpx, the ``http`` extra, imported on first use).

    fetch = HttpTool("fetch", base_url="https://api.example.com", headers={"authorization": "Bearer ..."},
                     allowed_hosts={"api.example.com"})
    resp = await ctx.call(fetch, {"url": "/items", "params": {"q": "goap"}}, output=HttpResponse)

Headers given to the tool (credentials) are sent but never recorded: ``ctx.call`` stores the
`HttpRequest` input and the `HttpResponse` output only, and errors mask the header values.
"""

from __future__ import annotations

import json
from collections.abc import Mapping
from typing import Any, Literal
from urllib.parse import urljoin, urlsplit

from pydantic import BaseModel, ConfigDict, Field

from graphengine.context import Context
from graphengine.models import import_httpx, shared_ssl_context
from graphengine.models.chat import ToolSpec
from graphengine.models.errors import Redactor

__all__ = ["HttpRequest", "HttpResponse", "HttpTool", "HttpToolError"]


class HttpToolError(Exception):
    """An HTTP tool call failed: bad or forbidden URL, timeout, connection error, or (opt-in) a 4xx/5xx."""

    def __init__(self, msg: str, *, tool: str, status: int | None = None) -> None:
        super().__init__(msg)
        self.tool = tool
        """The tool's name."""
        self.status = status
        """The HTTP status, when the server answered."""


class HttpRequest(BaseModel):
    """The input of `HttpTool`: what to request."""

    model_config = ConfigDict(frozen=True, extra="forbid", populate_by_name=True)

    url: str = Field(description="Absolute URL, or a path relative to the tool's base URL.")
    """Absolute URL, or relative to the tool's `base_url`."""
    method: Literal["GET", "POST", "PUT", "PATCH", "DELETE", "HEAD"] = "GET"
    """HTTP method."""
    params: dict[str, str] = Field(default_factory=dict, description="Query parameters.")
    """Query parameters."""
    headers: dict[str, str] = Field(default_factory=dict, description="Extra request headers.")
    """Extra headers (recorded; put secrets in the tool's own `headers`)."""
    json_body: Any = Field(default=None, alias="json", description="JSON body to send.")
    """JSON body (field ``json`` on the wire)."""
    content: str | None = Field(default=None, description="Raw text body to send.")
    """Raw text body (ignored when `json_body` is given)."""


class HttpResponse(BaseModel):
    """The output of `HttpTool`: what came back (what ``ctx.call`` records)."""

    model_config = ConfigDict(frozen=True, populate_by_name=True)

    status: int
    """HTTP status."""
    headers: dict[str, str] = Field(default_factory=dict)
    """Response headers (lower-cased names; ``set-cookie`` dropped)."""
    text: str = ""
    """The body as text, cut at the tool's `max_bytes`."""
    json_body: Any = Field(default=None, alias="json")
    """The body decoded as JSON when it is JSON, else None (field ``json``)."""
    truncated: bool = False
    """Whether `text` was cut at `max_bytes`."""

    @property
    def ok(self) -> bool:
        """Whether the status is 2xx."""
        return 200 <= self.status < 300


class HttpTool:
    """A `graphengine.Tool` that performs one HTTP request per call.

    `allowed_hosts`, when set, restricts which hosts may be requested (a model choosing URLs
    must not reach your internal network); a forbidden URL raises `HttpToolError` before any
    request. With `raise_for_status`, a 4xx/5xx raises too; otherwise it is returned.
    """

    def __init__(
        self,
        name: str = "http",
        *,
        base_url: str | None = None,
        headers: Mapping[str, str] | None = None,
        allowed_hosts: set[str] | frozenset[str] | None = None,
        timeout: float = 30.0,
        max_bytes: int = 1_000_000,
        raise_for_status: bool = False,
        description: str = "Make an HTTP request and return the status, headers and body.",
        transport: Any = None,
    ) -> None:
        self.name = name
        """The tool's name."""
        self.base_url = base_url
        """Base for relative URLs."""
        self._headers = dict(headers or {})
        self._redact = Redactor(self._headers.values())
        self.allowed_hosts = frozenset(allowed_hosts) if allowed_hosts is not None else None
        """Hosts that may be requested (None: any)."""
        self.timeout = timeout
        """Seconds for the whole request."""
        self.max_bytes = max_bytes
        """Largest body kept."""
        self.raise_for_status = raise_for_status
        """Whether a 4xx/5xx raises `HttpToolError`."""
        self.spec = ToolSpec(name=name, description=description, parameters=_request_schema())
        """What a model is told about this tool."""
        self._transport = transport

    def __repr__(self) -> str:
        return f"HttpTool({self.name!r}, base_url={self.base_url!r})"

    def _url(self, url: str) -> str:
        full = urljoin(self.base_url.rstrip("/") + "/", url.lstrip("/")) if self.base_url else url
        parts = urlsplit(full)
        if parts.scheme not in ("http", "https") or not parts.hostname:
            raise HttpToolError(f"tool {self.name!r}: not an absolute http(s) URL: {full!r}", tool=self.name)
        if self.allowed_hosts is not None and parts.hostname not in self.allowed_hosts:
            raise HttpToolError(
                f"tool {self.name!r}: host {parts.hostname!r} is not allowed; allowed: {sorted(self.allowed_hosts)}",
                tool=self.name,
            )
        return full

    async def call(self, ctx: Context, input: Any) -> HttpResponse:
        """Perform the request described by `input` (an `HttpRequest` or its JSON form)."""
        httpx = import_httpx(f"HttpTool {self.name!r}")
        req = input if isinstance(input, HttpRequest) else HttpRequest.model_validate(input)
        url = self._url(req.url)
        shown = self._redact(url)
        kw: dict[str, Any] = {"params": req.params or None, "headers": {**req.headers, **self._headers}}
        if req.json_body is not None:
            kw["json"] = req.json_body
        elif req.content is not None:
            kw["content"] = req.content.encode()
        try:
            async with httpx.AsyncClient(
                transport=self._transport, timeout=self.timeout, verify=shared_ssl_context()
            ) as client:
                resp = await client.request(req.method, url, **kw)
        except httpx.TimeoutException:
            raise HttpToolError(
                f"tool {self.name!r}: {req.method} {shown} timed out after {self.timeout:g}s", tool=self.name
            ) from None
        except httpx.HTTPError as exc:
            raise HttpToolError(
                self._redact(f"tool {self.name!r}: {req.method} {shown} failed: {type(exc).__name__}: {exc}"),
                tool=self.name,
            ) from None
        raw = resp.content
        truncated = len(raw) > self.max_bytes
        text = raw[: self.max_bytes].decode(resp.encoding or "utf-8", errors="replace")
        body: Any = None
        if not truncated and "json" in resp.headers.get("content-type", ""):
            try:
                body = json.loads(raw)
            except ValueError:
                body = None
        out = HttpResponse(
            status=resp.status_code,
            headers={k.lower(): v for k, v in resp.headers.items() if k.lower() != "set-cookie"},
            text=text,
            json=body,
            truncated=truncated,
        )
        if self.raise_for_status and not out.ok:
            raise HttpToolError(
                f"tool {self.name!r}: {req.method} {shown} answered {out.status}",
                tool=self.name,
                status=out.status,
            )
        return out


def _request_schema() -> dict[str, Any]:
    schema = HttpRequest.model_json_schema(by_alias=True)
    schema.pop("title", None)
    return schema
