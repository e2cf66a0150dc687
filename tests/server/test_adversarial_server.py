"""Adversarial requests against the HTTP API: one test per class of bad input, through the real ASGI app.

Classes: a state or input the engine cannot store (NaN, infinities), a run id created by
someone else between the API's check and its insert, errors the routes do not expect, typed
store errors, Host/Origin outside the allowed hosts (DNS rebinding, cross-site posts), bodies
over the size limit (declared or streamed), run ids a URL path segment cannot carry, and the
memory a long live run keeps (a ring buffer; older events rebuilt from the store for SSE).
"""

from __future__ import annotations

import asyncio
import json
import socket
from collections.abc import AsyncIterator, Sequence
from contextlib import asynccontextmanager
from pathlib import Path
from typing import Any
from urllib.parse import quote

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from pydantic import BaseModel  # noqa: E402
from server_process import serve  # noqa: E402

from graphengine import Context, Engine, NodeResult, Options, goto, stop  # noqa: E402
from graphengine.server import create_app  # noqa: E402
from graphengine.store import CorruptRecordError, MemoryStore, RunRecord, StoreUnavailableError  # noqa: E402


class S(BaseModel):
    """The state of the test graph."""

    n: int = 0
    x: float = 0.0
    tag: str = ""


HOLD: dict[str, asyncio.Event] = {}


def inc(ctx: Context, s: S) -> NodeResult[S]:
    """Count up to `x` (when x > 0), then go to `hold`."""
    return NodeResult(delta=S(n=s.n + 1), route=goto("inc") if s.n + 1 < s.x else goto("hold"))


async def hold(ctx: Context, s: S) -> NodeResult[S]:
    """Wait until the test releases the run (only for tags "hold")."""
    if s.tag == "hold":
        await HOLD.setdefault(ctx.run_id, asyncio.Event()).wait()
    return NodeResult(route=stop())


def build(store: Any) -> Engine[S]:
    """inc (x times) -> hold -> stop."""
    g = Engine(S, store=store, options=Options(max_steps=1_000_000))
    g.add("inc", inc).add("hold", hold).start_at("inc")
    return g


@asynccontextmanager
async def _client(app: Any, base: str = "http://127.0.0.1") -> AsyncIterator[httpx.AsyncClient]:
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url=base) as client,
    ):
        yield client


@pytest.fixture
async def env() -> AsyncIterator[tuple[Any, httpx.AsyncClient]]:
    """An app over a MemoryStore with default settings, and a client on 127.0.0.1."""
    app = create_app(build(MemoryStore()))
    async with _client(app) as c:
        yield app, c


def _no_traceback(r: Any) -> None:
    assert "Traceback" not in r.text and 'File "' not in r.text, r.text


# ---------------------------------------------------------------------- values the store cannot carry


@pytest.mark.parametrize("number", ["NaN", "Infinity", "-Infinity", "1e999"])
async def test_nonfinite_initial_state_is_422_and_creates_nothing(env: Any, number: str) -> None:
    """A NaN or infinite number in the initial state is 422 naming the field; no run is stored."""
    _, c = env
    body = '{"run_id": "nan", "state": {"x": ' + number + "}}"
    r = await c.post("/api/runs", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, r.text
    err = r.json()["detail"][0]
    assert err["loc"] == ["body", "state", "x"] and "JSON number" in err["msg"]
    assert (await c.get("/api/runs/nan")).status_code == 404


async def test_nonfinite_resume_input_is_422_and_changes_nothing(env: Any) -> None:
    """A NaN nested in a resume input is 422 naming where it is; the run is left as it was."""
    _, c = env
    assert (await c.post("/api/runs?wait=true", json={"run_id": "r", "state": {}})).status_code == 201
    before = (await c.get("/api/runs/r")).json()
    body = '{"input": {"a": [1, {"b": NaN}]}}'
    r = await c.post("/api/runs/r/resume", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "input", "a", 1, "b"]
    assert (await c.get("/api/runs/r")).json() == before


async def test_state_the_engine_refuses_is_422_not_404() -> None:
    """When the engine refuses the initial state (after the API accepted it), the answer is 422 with the fields."""

    class Strict(MemoryStore):
        async def create_run(self, run: RunRecord) -> None:
            raise AssertionError("a refused state must never reach the store")

    eng = build(Strict())
    app = create_app(eng)
    # A lone surrogate is valid JSON (an escape) and a valid str, but no UTF-8 codec can store it.
    async with _client(app) as c:
        r = await c.post(
            "/api/runs",
            content=b'{"run_id": "s", "state": {"tag": "\\ud800"}}',
            headers={"content-type": "application/json"},
        )
        assert r.status_code == 422, r.text
        assert "'s'" in r.json()["detail"]
        _no_traceback(r)
        assert (await c.get("/api/runs/s")).status_code == 404


# ---------------------------------------------------------------------- races and error mapping


class RaceStore(MemoryStore):
    """A store where another writer creates run `race` right after the API looked it up."""

    def __init__(self) -> None:
        super().__init__()
        self.other: Engine[S] | None = None

    async def get_run(self, run_id: str) -> RunRecord | None:
        rec = await super().get_run(run_id)
        if run_id == "race" and rec is None and self.other is not None:
            other, self.other = self.other, None
            await other.run("race", S(tag="theirs"))
        return rec


async def test_run_created_between_check_and_insert_is_409() -> None:
    """An id another writer creates after the API's check is a 409; the answer never shows their run."""
    store = RaceStore()
    store.other = build(store)
    app = create_app(build(store))
    async with _client(app) as c:
        r = await c.post("/api/runs?wait=true", json={"run_id": "race", "state": {"tag": "mine"}})
        assert r.status_code == 409, r.text
        assert "race" in r.json()["detail"] and "exists" in r.json()["detail"]
        assert (await c.get("/api/runs/race")).json()["state"]["tag"] == "theirs"
        assert not app.state.runs.is_live("race")


async def test_resume_with_a_changed_graph_is_409_and_leaves_the_run() -> None:
    """Resuming a run whose graph changed is refused with 409 before anything runs."""
    store = MemoryStore()
    await build(store).run("g", S(tag="x"))
    other = Engine(S, store=store)
    other.add("only", lambda ctx, s: NodeResult(route=stop())).start_at("only")
    async with _client(create_app(other)) as c:
        before = await store.get_run("g")
        r = await c.post("/api/runs/g/resume?wait=true")
        assert r.status_code == 409 and "g" in r.json()["detail"]
        after = await store.get_run("g")
        assert before is not None and after is not None and after.status == before.status


class BrokenStore(MemoryStore):
    """A store whose listing raises `exc` (a bug, a lost database, a corrupt row)."""

    def __init__(self, exc: Exception) -> None:
        super().__init__()
        self.exc = exc

    async def list_runs(self, **kw: Any) -> Sequence[RunRecord]:
        raise self.exc


@pytest.mark.parametrize(
    ("exc", "status", "words"),
    [
        (RuntimeError("disk on fire"), 500, ["RuntimeError", "disk on fire"]),
        (KeyError("k"), 500, ["KeyError"]),
        (StoreUnavailableError("database at db:5432 unreachable"), 503, ["unreachable"]),
        (CorruptRecordError("run 'z' step 3: bad delta", run_id="z", step=3), 500, ["'z'", "step 3"]),
    ],
)
async def test_unexpected_and_store_errors_are_json_with_a_message(
    exc: Exception, status: int, words: list[str]
) -> None:
    """Any exception in a route is a JSON error with its status and message, never a traceback."""
    app = create_app(build(BrokenStore(exc)))
    transport = httpx.ASGITransport(app=app, raise_app_exceptions=False)
    async with httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as c:
        r = await c.get("/api/runs")
    assert r.status_code == status and r.headers["content-type"] == "application/json"
    detail = r.json()["detail"]
    assert all(w in detail for w in words), detail
    _no_traceback(r)


# ---------------------------------------------------------------------- Host and Origin


@pytest.mark.parametrize(
    "host", ["evil.example", "evil.example:8000", "127.0.0.1.evil.example", "localhost.evil:80"]
)
async def test_foreign_host_is_refused_on_every_route(env: Any, host: str) -> None:
    """Without a token, a Host that is not loopback (a DNS-rebinding page) gets 403, reads and writes alike."""
    app, c = env
    for method, path in [("GET", "/api/runs"), ("GET", "/"), ("POST", "/api/runs"), ("GET", "/openapi.json")]:
        r = await c.request(method, path, json={"run_id": "dns", "state": {}}, headers={"host": host})
        assert r.status_code == 403, (method, path, r.text)
        assert host.split(":")[0] in r.json()["detail"]
    assert not await app.state.engine.store.get_run("dns")


@pytest.mark.parametrize("host", ["127.0.0.1", "127.0.0.1:8000", "localhost:9", "LOCALHOST", "[::1]:8000"])
async def test_loopback_hosts_are_served(env: Any, host: str) -> None:
    """The loopback names, with or without a port, are served."""
    _, c = env
    assert (await c.get("/api/runs", headers={"host": host})).status_code == 200


@pytest.mark.parametrize(
    "origin", ["http://evil.example", "null", "http://127.0.0.1.evil.example:8000", "http://[::1"]
)
async def test_cross_site_post_is_refused(env: Any, origin: str) -> None:
    """A POST whose Origin is another site (a form on a web page) is 403 and starts nothing."""
    app, c = env
    r = await c.post("/api/runs", json={"run_id": "csrf", "state": {}}, headers={"origin": origin})
    assert r.status_code == 403, r.text
    assert await app.state.engine.store.get_run("csrf") is None
    # Same-origin posts (the inspector page) and GETs from anywhere are served.
    r = await c.post(
        "/api/runs?wait=true", json={"run_id": "ok", "state": {}}, headers={"origin": "http://127.0.0.1"}
    )
    assert r.status_code == 201
    assert (await c.get("/api/runs", headers={"origin": origin})).status_code == 200


CROSS_PORT = [
    {"origin": "http://127.0.0.1:9999"},  # a page served by another local program
    {"origin": "http://localhost"},  # the same machine under another name is another origin
    {"origin": "http://127.0.0.1"},  # port 80, not 8000
    {"sec-fetch-site": "same-site"},  # a browser that says so without an Origin
    {"sec-fetch-site": "cross-site"},
]


@pytest.mark.parametrize("token", [None, "t0k"])
@pytest.mark.parametrize("headers", CROSS_PORT)
async def test_post_from_another_origin_of_this_machine_is_refused(
    token: str | None, headers: dict[str, str]
) -> None:
    """A form POST from another localhost port (same site, other origin) neither starts nor cancels runs, token or not.

    SameSite cookies do not separate ports, so the token cookie rides along: only the Origin
    (with its port) tells the inspector's own page from another program's page.
    """
    HOLD.clear()
    app = create_app(build(MemoryStore()), token=token)
    auth = {"cookie": f"graphengine_token={token}"} if token else {}
    async with _client(app, "http://127.0.0.1:8000") as c:
        r = await c.post("/api/runs", json={"run_id": "live", "state": {"tag": "hold"}}, headers=auth)
        assert r.status_code == 201, r.text
        for method, path in [
            ("POST", "/api/runs"),
            ("POST", "/api/runs/live/cancel"),
            ("POST", "/api/runs/live/resume"),
            ("DELETE", "/api/runs/live"),
        ]:
            r = await c.request(method, path, json={"run_id": "x", "state": {}}, headers={**auth, **headers})
            assert r.status_code == 403, (method, path, r.text)
            assert "origin" in r.json()["detail"]
        assert app.state.runs.is_live("live")
        assert await app.state.engine.store.get_run("x") is None
        # The inspector's own page (same scheme, host and port) may post.
        r = await c.post(
            "/api/runs/live/cancel",
            headers={**auth, "origin": "http://127.0.0.1:8000", "sec-fetch-site": "same-origin"},
        )
        assert r.status_code == 200, r.text


@pytest.mark.parametrize("path", ["/", "/api/runs", "/openapi.json", "/api/nothing"])
async def test_every_answer_forbids_framing(env: Any, path: str) -> None:
    """No page of the API may be framed by another site (clickjacking the inspector's buttons)."""
    _, c = env
    r = await c.get(path)
    assert r.headers["x-frame-options"] == "DENY"
    assert "frame-ancestors 'none'" in r.headers["content-security-policy"]
    r = await c.get(path, headers={"host": "evil.example"})  # refusals too
    assert r.status_code == 403 and r.headers["x-frame-options"] == "DENY"


def test_create_app_refuses_an_empty_token() -> None:
    """`token=""` (an empty variable read as the token) is refused rather than serving without auth."""
    with pytest.raises(ValueError, match="empty"):
        create_app(build(MemoryStore()), token="")


async def test_allowed_hosts_and_token_widen_the_check() -> None:
    """`allowed_hosts` names more hosts (and `*.domain`); with a token any Host is served."""
    app = create_app(build(MemoryStore()), allowed_hosts=["graph.internal", "*.example.org"])
    async with _client(app, "http://graph.internal") as c:
        assert (await c.get("/api/runs")).status_code == 200
        assert (await c.get("/api/runs", headers={"host": "a.b.example.org"})).status_code == 200
        assert (await c.get("/api/runs", headers={"host": "example.org.evil"})).status_code == 403
        assert (await c.get("/api/runs", headers={"host": "127.0.0.1"})).status_code == 403
    app = create_app(build(MemoryStore()), token="t0k")
    async with _client(app, "http://10.1.2.3:8000") as c:
        assert (await c.get("/api/runs", headers={"authorization": "Bearer t0k"})).status_code == 200
        assert (await c.get("/api/runs")).status_code == 401


# ---------------------------------------------------------------------- body size


async def test_declared_oversized_body_is_413_before_reading(env: Any) -> None:
    """A Content-Length over the limit (default 1 MiB) is 413 at once; the body is never read."""
    _, c = env
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        for _ in range(800):  # 50 MB
            sent += 65536
            yield b" " * 65536

    r = await c.post(
        "/api/runs",
        content=body(),
        headers={"content-length": str(800 * 65536), "content-type": "application/json"},
    )
    assert r.status_code == 413 and "1048576" in r.json()["detail"]
    assert sent <= 65536


async def test_streamed_oversized_body_is_413_while_reading(env: Any) -> None:
    """A chunked body without Content-Length is cut off once it passes the limit, not read whole."""
    app, c = env
    sent = 0

    async def body() -> AsyncIterator[bytes]:
        nonlocal sent
        yield b'{"run_id": "big", "state": {"tag": "'
        for _ in range(800):  # 50 MB
            sent += 65536
            yield b"x" * 65536
        yield b'"}}'

    r = await c.post("/api/runs", content=body(), headers={"content-type": "application/json"})
    assert r.status_code == 413, r.text
    assert sent <= 1024 * 1024 + 2 * 65536
    assert await app.state.engine.store.get_run("big") is None
    r = await c.post("/api/runs?wait=true", json={"run_id": "small", "state": {"tag": "x" * 1000}})
    assert r.status_code == 201


async def test_body_limit_is_configurable() -> None:
    """`max_body` sets the limit; a body at the limit is served, one byte more is 413."""
    body = json.dumps({"run_id": "lim", "state": {}}).encode()
    app = create_app(build(MemoryStore()), max_body=len(body))
    async with _client(app) as c:
        assert (
            await c.post("/api/runs", content=body + b" ", headers={"content-type": "application/json"})
        ).status_code == 413
        r = await c.post("/api/runs?wait=true", content=body, headers={"content-type": "application/json"})
        assert r.status_code == 201
        r = await c.post("/api/runs", content=body, headers={"content-length": "-5"})
        assert r.status_code in (400, 413)
    with pytest.raises(ValueError, match="limit"):
        create_app(build(MemoryStore()), max_body=-1)


# ---------------------------------------------------------------------- run ids


BAD_IDS = [
    "",
    ".",
    "..",
    "a/b",
    "/",
    "a\x00b",
    "line\nbreak",
    "tab\there",
    "del\x7f",
    "c1\x85",
    "x" * 201,
    "\ud800",
]


@pytest.mark.parametrize("run_id", BAD_IDS)
async def test_run_id_a_url_cannot_carry_is_422_at_creation(env: Any, run_id: str) -> None:
    """Creating a run whose id no URL path segment can carry is 422 naming run_id; nothing is stored."""
    app, c = env
    body = json.dumps({"run_id": run_id, "state": {}})
    r = await c.post("/api/runs", content=body, headers={"content-type": "application/json"})
    assert r.status_code == 422, (run_id, r.text)
    assert r.json()["detail"][0]["loc"] == ["body", "run_id"]
    assert await app.state.engine.store.list_runs() == []


@pytest.mark.parametrize("run_id", [".", "..", "a\x00b", "nl\n", "x" * 201])
async def test_run_id_a_url_cannot_carry_is_422_on_run_routes(env: Any, run_id: str) -> None:
    """Every route with a run id in its path (or `?run=`) answers 422 for such an id, not 404 or 500."""
    _, c = env
    seg = quote(run_id, safe="").replace(".", "%2E")
    for method, path in [
        ("GET", f"/api/runs/{seg}"),
        ("GET", f"/api/runs/{seg}/state"),
        ("GET", f"/api/runs/{seg}/history"),
        ("GET", f"/api/runs/{seg}/events"),
        ("POST", f"/api/runs/{seg}/resume"),
        ("POST", f"/api/runs/{seg}/cancel"),
        ("POST", f"/api/runs/{seg}/replay"),
        ("GET", f"/api/graph?run={seg}"),
    ]:
        r = await c.request(method, path)
        assert r.status_code == 422, (method, path, r.text)


@pytest.mark.parametrize("run_id", ["...", ".x", "a b", "é✓", "a%2Fb", "x" * 200, "a?b#c"])
async def test_unusual_but_valid_run_ids_round_trip_by_url(env: Any, run_id: str) -> None:
    """An id the API accepts can be read back through its URL, percent-encoded."""
    _, c = env
    r = await c.post("/api/runs?wait=true", json={"run_id": run_id, "state": {}})
    assert r.status_code == 201, r.text
    r = await c.get(f"/api/runs/{quote(run_id, safe='')}")
    assert r.status_code == 200 and r.json()["run_id"] == run_id


# ---------------------------------------------------------------------- long live runs


async def _events(c: httpx.AsyncClient, run_id: str, **headers: str) -> list[dict[str, Any]]:
    r = await c.get(f"/api/runs/{run_id}/events", headers=headers)
    assert r.status_code == 200
    return [json.loads(line[6:]) for line in r.text.splitlines() if line.startswith("data: ")]


async def test_long_live_run_keeps_a_bounded_log_and_replays_old_steps_from_the_store() -> None:
    """A live run keeps `events_kept` events; SSE from the start (or Last-Event-ID) still gets every step, from the store."""
    n = 600
    app = create_app(build(MemoryStore()), events_kept=40)
    async with _client(app) as c:
        r = await c.post("/api/runs", json={"run_id": "long", "state": {"x": n, "tag": "hold"}})
        assert r.status_code == 201
        runs = app.state.runs
        live = runs.live["long"]
        async with asyncio.timeout(30):
            while not live.log or live.log[-1].get("node_id") != "hold":  # noqa: ASYNC110 (the app's state)
                await asyncio.sleep(0.01)
        assert len(live.log) <= 40 and live.next_seq > 3 * n

        async def release() -> None:
            while len(live.listeners) < 2:  # noqa: ASYNC110 (the app's state, no event to wait on)
                await asyncio.sleep(0.01)
            HOLD.setdefault("long", asyncio.Event()).set()

        releaser = asyncio.create_task(release())
        mid = 1000
        full, resumed = await asyncio.gather(
            _events(c, "long"), _events(c, "long", **{"last-event-id": str(mid)})
        )
        await releaser
    seqs = [d["seq"] for d in full]
    assert seqs == sorted(set(seqs)) and full[-1]["kind"] == "end" and full[-1]["status"] == "done"
    steps = [d for d in full if d["kind"] == "step"]
    assert [d["step"] for d in steps] == list(range(1, n + 2))  # n incs, then hold
    assert [d["meta"]["delta"]["n"] for d in steps[: n - 1]] == list(range(1, n))
    assert [d["meta"]["route"]["kind"] for d in steps] == ["goto"] * n + ["stop"]
    # The resumed client gets exactly the full client's events after `mid`.
    assert resumed == [d for d in full if d["seq"] > mid]
    # The oracle: the steps the store holds.
    recs = await app.state.engine.store.load_steps("long")
    assert [(d["step"], d["node_id"], d["ts"]) for d in steps] == [(s.step, s.node_id, s.ts) for s in recs]


async def test_slow_listener_is_resynchronised_not_buffered_without_bound() -> None:
    """A listener that reads nothing while the run writes holds at most `events_kept` queued events, and still gets every step."""
    n = 300
    eng = build(MemoryStore())
    app = create_app(eng, events_kept=20)
    async with _client(app) as _:
        runs = app.state.runs
        await runs.start("slow", S(x=n, tag="hold"), wait=False)
        live = runs.live["slow"]
        gen = runs.events("slow", -1)
        first = await gen.__anext__()  # subscribed now; reads nothing more while the run goes on
        async with asyncio.timeout(30):
            while not live.log or live.log[-1].get("node_id") != "hold":
                assert all(len(lis.items) <= 20 for lis in live.listeners)
                await asyncio.sleep(0)
        HOLD.setdefault("slow", asyncio.Event()).set()
        docs = [first] + [d async for d in gen]
    steps = [d["step"] for d in docs if d["kind"] == "step"]
    assert steps == list(range(1, n + 2)) and docs[-1]["kind"] == "end"  # n incs, then hold
    assert [d["seq"] for d in docs] == sorted({d["seq"] for d in docs})


# ---------------------------------------------------------------------- over real sockets


APP_FILE = """
from pydantic import BaseModel
from graphengine import Engine, NodeResult, stop

class T(BaseModel):
    n: int = 0

def build(store):
    g = Engine(T, store=store)
    g.add("a", lambda ctx, s: NodeResult(route=stop())).start_at("a")
    return g
"""


def _raw(url: str, request: bytes) -> bytes:
    """Send `request` as is on a new connection and read the answer until the server closes."""
    host, port = url.removeprefix("http://").split(":")
    with socket.create_connection((host, int(port)), timeout=10) as s:
        s.sendall(request)
        data = b""
        while chunk := s.recv(65536):
            data += chunk
        return data


def test_real_server_refuses_big_declared_body_and_foreign_host(tmp_path: Path) -> None:
    """Over a real socket: a 50 MB Content-Length is 413 without sending the body, a foreign Host is 403."""
    (tmp_path / "tinyapp.py").write_text(APP_FILE)
    with serve(tmp_path, "tinyapp:build", {}) as (proc, url, _):
        big = (
            b"POST /api/runs HTTP/1.1\r\nHost: 127.0.0.1\r\nContent-Type: application/json\r\n"
            b"Content-Length: 52428800\r\nConnection: close\r\n\r\n"
        )
        assert _raw(url, big).startswith(b"HTTP/1.1 413")
        rebinding = b"GET /api/runs HTTP/1.1\r\nHost: attacker.example:8000\r\nConnection: close\r\n\r\n"
        assert _raw(url, rebinding).startswith(b"HTTP/1.1 403")
        assert httpx.get(url + "/api/runs").status_code == 200
        other_port = httpx.post(
            url + "/api/runs", json={"state": {}}, headers={"origin": "http://127.0.0.1:1"}
        )
        assert other_port.status_code == 403
        assert other_port.headers["x-frame-options"] == "DENY"
        assert proc.poll() is None
