"""Who may talk to the HTTP API: the Host/Origin check (DNS rebinding, cross-site posts) and the token.

`HostCheck` answers 403 to a request whose `Host` header names a host outside the allow-list,
and to a mutating request (anything but GET, HEAD, OPTIONS; and every websocket) that comes
from another origin than the API's own: an `Origin` whose scheme's host and port differ from
the `Host` the request was sent to, or a browser's `Sec-Fetch-Site: same-site|cross-site`.
The port matters: SameSite cookies do not separate ports, so a page another program serves on
`localhost:9999` would otherwise post forms with the token cookie (cancel runs, start runs).
This origin check holds with any allow-list, `*` included. Without a token the default list
is the loopback names, so a web page on another name that resolves to this machine (DNS
rebinding), or posting across sites, cannot start or resume runs.
Entries are host names or addresses (case-insensitive, no port), `*.example.com` for a domain
and its subdomains, or `*` for any host (sensible only with a token). Behind a reverse proxy,
pass the browser's `Host` through (and the scheme, `X-Forwarded-Proto`) so the origin matches.

`NoFraming` adds `X-Frame-Options: DENY` and `Content-Security-Policy: frame-ancestors 'none'`
to every answer, so no other page can frame the inspector and trick clicks on its buttons.

`BearerAuth` refuses every request without the token with 401 (see `graphengine.server.app`).
"""

from __future__ import annotations

import hmac
import ipaddress
from collections.abc import Iterable
from urllib.parse import urlsplit

from starlette.requests import HTTPConnection
from starlette.responses import JSONResponse, Response
from starlette.types import ASGIApp, Message, Receive, Scope, Send

__all__ = ["LOOPBACK_HOSTS", "BearerAuth", "HostCheck", "NoFraming", "host_name", "is_loopback"]

LOOPBACK_HOSTS = ("localhost", "127.0.0.1", "::1")
"""The hosts allowed by default when the API has no token."""

COOKIE = "graphengine_token"
_SAFE_METHODS = frozenset({"GET", "HEAD", "OPTIONS"})
_DEFAULT_PORTS = {"http": 80, "https": 443, "ws": 80, "wss": 443}
_OTHER_SITES = frozenset({"same-site", "cross-site"})  # Sec-Fetch-Site values of another origin


def _host_port(value: str, scheme: str) -> tuple[str, int | None]:
    """(host, port) of a `Host` header or an origin's netloc; the scheme's default port when none is given."""
    try:
        parts = urlsplit(f"//{value}")
        port = parts.port
    except ValueError:  # a port that is not a number, unbalanced brackets
        return ("", None)
    return (parts.hostname or "", port if port is not None else _DEFAULT_PORTS.get(scheme))


def other_origin(origin: str | None, fetch_site: str | None, host: str, scheme: str) -> str | None:
    """Why a request sent to `host` comes from another origin (None: same origin, or no browser said so).

    `origin` is the `Origin` header, compared by host and port (the scheme's default when
    absent) with the `Host` header the request was sent to, whose scheme is `scheme`.
    """
    if origin is not None:
        try:
            parts = urlsplit(origin)
            origin_at = _host_port(parts.netloc, parts.scheme) if parts.scheme else ("", None)
        except ValueError:  # e.g. unbalanced brackets
            origin_at = ("", None)
        if not origin_at[0] or origin_at != _host_port(host, scheme):
            return f"origin {origin!r} is not this server's origin ({scheme}://{host})"
    if fetch_site in _OTHER_SITES:
        return f"a request from another origin (Sec-Fetch-Site: {fetch_site}) may not change anything"
    return None


def host_name(value: str) -> str:
    """The host of a `Host` header or an allow-list entry: no port, no brackets, lower case."""
    value = value.strip().lower()
    if value.startswith("["):
        end = value.find("]")
        return value[1:end] if end > 0 else value
    if value.count(":") == 1:  # name:port (a bare IPv6 address has several colons)
        value = value.partition(":")[0]
    return value.rstrip(".") if value not in (".", "") else value


def is_loopback(host: str) -> bool:
    """Whether `host` (a name or an address) is this machine's loopback interface."""
    name = host_name(host)
    if name == "localhost":
        return True
    try:
        return ipaddress.ip_address(name).is_loopback
    except ValueError:
        return False


class HostCheck:
    """ASGI middleware refusing (403) a `Host`, or a mutating request's `Origin`, outside `allowed`."""

    def __init__(self, app: ASGIApp, allowed: Iterable[str]) -> None:
        self.app = app
        entries = [host_name(a) for a in allowed if a.strip()]
        self.any = "*" in entries
        self.exact = frozenset(e for e in entries if not e.startswith("*."))
        self.suffixes = tuple(e[1:] for e in entries if e.startswith("*."))  # ".example.com"
        self.allowed = tuple(entries)

    def ok(self, host: str) -> bool:
        """Whether `host` (as sent, port allowed) is on the allow-list."""
        if self.any:
            return True
        name = host_name(host)
        if not name:
            return False
        return name in self.exact or any(name.endswith(s) or name == s[1:] for s in self.suffixes)

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] not in ("http", "websocket"):
            await self.app(scope, receive, send)
            return
        conn = HTTPConnection(scope)
        host = conn.headers.get("host")
        problem = way_out = None
        if host is None:
            problem = "the request has no Host header"
        elif not self.ok(host):
            problem = f"host {host!r} is not allowed (allowed: {', '.join(self.allowed) or 'none'})"
            way_out = "serve with --allow-host NAME to accept another host name"
        elif scope["type"] == "websocket" or scope.get("method", "GET") not in _SAFE_METHODS:
            # Every mutating route, whatever the allow-list: a page of another origin (another
            # port of this machine included) must not act with the user's cookie.
            problem = other_origin(
                conn.headers.get("origin"),
                conn.headers.get("sec-fetch-site"),
                host,
                scope.get("scheme", "http"),
            )
            way_out = "use the inspector served by this server, or a client that sends no Origin"
        if problem is None:
            await self.app(scope, receive, send)
            return
        if scope["type"] != "http":
            await send({"type": "websocket.close", "code": 1008})
            return
        detail = problem if way_out is None else f"{problem}; {way_out}"
        await JSONResponse({"detail": detail}, status_code=403)(scope, receive, send)


class NoFraming:
    """ASGI middleware adding anti-framing headers to every HTTP answer, refusals included."""

    HEADERS = (
        (b"x-frame-options", b"DENY"),
        (b"content-security-policy", b"frame-ancestors 'none'"),
    )

    def __init__(self, app: ASGIApp) -> None:
        self.app = app

    async def __call__(self, scope: Scope, receive: Receive, send: Send) -> None:
        if scope["type"] != "http":
            await self.app(scope, receive, send)
            return

        async def framed(message: Message) -> None:
            if message["type"] == "http.response.start":
                # A route's own CSP is kept; frame-ancestors is added in a second header, which
                # browsers enforce together with the first.
                message = {**message, "headers": [*message.get("headers", ()), *self.HEADERS]}
            await send(message)

        await self.app(scope, receive, framed)


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
        if (scheme.lower() == "bearer" and self._ok(cred.strip())) or self._ok(conn.cookies.get(COOKIE)):
            await self.app(scope, receive, send)
            return
        if scope["type"] == "http" and conn.url.path == "/" and self._ok(conn.query_params.get("token")):
            resp: Response = Response(status_code=303, headers={"location": "/"})
            resp.set_cookie(COOKIE, self.token.decode(), httponly=True, samesite="strict")
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
