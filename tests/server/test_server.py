"""The HTTP API (`graphengine.server`) through an ASGI client, and the inspector page."""

from __future__ import annotations

import asyncio
import json
import types
from collections.abc import AsyncIterator
from typing import Any

import pytest

pytest.importorskip("fastapi", reason="the server extra is not installed (pip install graphengine[server])")
httpx = pytest.importorskip("httpx")

from server_app import load_app_module  # noqa: E402

from graphengine.server import create_app, simple_svg  # noqa: E402
from graphengine.store import MemoryStore  # noqa: E402


@pytest.fixture
async def app_env() -> AsyncIterator[tuple[Any, httpx.AsyncClient, types.ModuleType]]:
    """An app over a MemoryStore, its lifespan running, and a client on it."""
    mod = load_app_module()
    eng = mod.build(MemoryStore())
    app = create_app(eng)
    transport = httpx.ASGITransport(app=app)
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=transport, base_url="http://127.0.0.1") as client,
    ):
        yield app, client, mod


async def _until(cond: Any) -> None:
    """Wait (at most 5 s) until `cond()` holds: the run is driven by another task."""
    async with asyncio.timeout(5):
        while not cond():  # noqa: ASYNC110 (state owned by the app, no event to wait on)
            await asyncio.sleep(0.01)


async def test_start_run_and_wait_returns_final_state(app_env: Any) -> None:
    """POST /api/runs with wait=true answers with the finished run and its state."""
    _, c, _ = app_env
    r = await c.post("/api/runs?wait=true", json={"run_id": "r1", "state": {"n": 0}})
    assert r.status_code == 201, r.text
    d = r.json()
    assert d["status"] == "done" and d["state"]["n"] == 3 and d["steps"] == 7 and d["live"] is False


async def test_start_run_without_id_gets_one(app_env: Any) -> None:
    """A run started without an id gets a fresh one."""
    _, c, _ = app_env
    r = await c.post("/api/runs?wait=true", json={"state": {}})
    assert r.status_code == 201 and r.json()["run_id"]


async def test_bad_initial_state_is_422_with_field_errors(app_env: Any) -> None:
    """An initial state that does not validate is refused with 422 naming the field."""
    _, c, _ = app_env
    r = await c.post("/api/runs", json={"run_id": "bad", "state": {"n": "many"}})
    assert r.status_code == 422
    errs = r.json()["detail"]
    assert errs[0]["loc"] == ["body", "state", "n"] and "integer" in errs[0]["msg"]
    r = await c.post("/api/runs", json={"run_id": "bad", "state": {"n": -1}})
    assert r.status_code == 422 and r.json()["detail"][0]["loc"] == ["body", "state", "n"]
    assert (await c.get("/api/runs/bad")).status_code == 404


async def test_malformed_body_is_422(app_env: Any) -> None:
    """A body that is not the request model (unknown key, bad run id) is refused with 422."""
    _, c, _ = app_env
    assert (await c.post("/api/runs", json={"state": {}, "what": 1})).status_code == 422
    assert (await c.post("/api/runs", json={"run_id": "a/b", "state": {}})).status_code == 422
    assert (await c.post("/api/runs", content=b"not json")).status_code == 422


async def test_existing_run_id_is_409(app_env: Any) -> None:
    """Starting a run whose id is stored is a conflict."""
    _, c, _ = app_env
    await c.post("/api/runs?wait=true", json={"run_id": "r1", "state": {}})
    r = await c.post("/api/runs", json={"run_id": "r1", "state": {}})
    assert r.status_code == 409 and "exists" in r.json()["detail"]


async def test_unknown_run_is_404_on_every_run_route(app_env: Any) -> None:
    """Every route about a run answers 404 for an unknown id."""
    _, c, _ = app_env
    for method, path in [
        ("GET", "/api/runs/nope"),
        ("GET", "/api/runs/nope/state"),
        ("GET", "/api/runs/nope/history"),
        ("GET", "/api/runs/nope/events"),
        ("POST", "/api/runs/nope/resume"),
        ("POST", "/api/runs/nope/cancel"),
        ("POST", "/api/runs/nope/replay"),
        ("GET", "/api/graph?run=nope"),
    ]:
        r = await c.request(method, path)
        assert r.status_code == 404, (method, path, r.text)
        assert "nope" in r.json()["detail"]


async def test_interrupt_shown_and_resumed_with_input(app_env: Any) -> None:
    """An interrupted run shows its payload; resume with input hands the answer to the node."""
    _, c, _ = app_env
    d = (await c.post("/api/runs?wait=true", json={"run_id": "q", "state": {"n": 10}})).json()
    assert d["status"] == "interrupted"
    assert d["interrupt"] == {
        "node_id": "ask",
        "step": 2,
        "payload": {"question": "ship it?", "n": 10},
        "before": False,
    }
    # Without input the run keeps waiting.
    d = (await c.post("/api/runs/q/resume?wait=true")).json()
    assert d["status"] == "interrupted"
    d = (await c.post("/api/runs/q/resume?wait=true", json={"input": "yes"})).json()
    assert d["status"] == "done" and d["state"]["note"] == "yes" and d["interrupt"] is None


async def test_cancel_a_running_run(app_env: Any) -> None:
    """Cancel stops a run this server drives; its status is cancelled and resume finishes it."""
    _, c, mod = app_env
    r = await c.post("/api/runs", json={"run_id": "slow", "state": {"n": 20}})
    assert r.status_code == 201 and r.json()["live"] is True
    listed = (await c.get("/api/runs?live=true")).json()
    assert [x["run_id"] for x in listed] == ["slow"]
    assert (await c.post("/api/runs/slow/resume")).status_code == 409  # already running
    r = await c.post("/api/runs/slow/cancel")
    assert r.status_code == 200 and r.json()["status"] == "cancelled" and r.json()["live"] is False
    assert (await c.post("/api/runs/slow/cancel")).status_code == 409  # not running any more
    mod.GATE.setdefault("slow", asyncio.Event()).set()
    d = (await c.post("/api/runs/slow/resume?wait=true")).json()
    assert d["status"] == "done" and d["state"]["note"] == "released"


async def test_list_runs_filters(app_env: Any) -> None:
    """Runs are listed newest first, filtered by status and id prefix."""
    _, c, _ = app_env
    await c.post("/api/runs?wait=true", json={"run_id": "a1", "state": {}})
    await c.post("/api/runs?wait=true", json={"run_id": "a2", "state": {"n": 10}})
    await c.post("/api/runs?wait=true", json={"run_id": "b1", "state": {}})
    ids = [x["run_id"] for x in (await c.get("/api/runs")).json()]
    assert sorted(ids) == ["a1", "a2", "b1"]
    assert [x["run_id"] for x in (await c.get("/api/runs?status=interrupted")).json()] == ["a2"]
    assert sorted(x["run_id"] for x in (await c.get("/api/runs?prefix=a")).json()) == ["a1", "a2"]
    assert len((await c.get("/api/runs?limit=1")).json()) == 1
    assert (await c.get("/api/runs?status=bogus")).status_code == 422


async def test_history_state_at_step_and_sizes(app_env: Any) -> None:
    """History has each step's node, delta, route, attempt, timings and bytes per field."""
    _, c, _ = app_env
    await c.post("/api/runs?wait=true", json={"run_id": "h", "state": {}})
    h = (await c.get("/api/runs/h/history")).json()
    assert [s["node_id"] for s in h] == ["route", "inc", "check", "inc", "check", "inc", "check"]
    assert h[1]["delta"] == {"n": 1} and h[1]["sizes"] == {"n": 1} and h[1]["attempt"] == 1
    assert h[1]["route"]["kind"] == "goto" and h[1]["route"]["target"] == "check"
    assert h[-1]["route"]["text"] == "stop()"
    assert h[1]["node_ms"] is not None and h[1]["elapsed_ms"] is not None
    assert h[0]["state"] is None
    with_states = (await c.get("/api/runs/h/history?states=true")).json()
    assert with_states[3]["state"]["n"] == 2
    assert (await c.get("/api/runs/h/state?step=0")).json()["n"] == 0
    assert (await c.get("/api/runs/h/state?step=4")).json()["n"] == 2
    assert (await c.get("/api/runs/h/state")).json()["n"] == 3
    assert (await c.get("/api/runs/h/state?step=99")).status_code == 404
    assert (await c.get("/api/runs/h/state?step=-1")).status_code == 422


async def test_replay_report(app_env: Any) -> None:
    """Replay re-executes the run and reports no divergence for a deterministic graph."""
    _, c, _ = app_env
    await c.post("/api/runs?wait=true", json={"run_id": "rp", "state": {}})
    r = (await c.post("/api/runs/rp/replay")).json()
    assert r["ok"] is True and r["steps"] == 7 and r["divergences"] == [] and "no divergence" in r["text"]


async def test_graph_formats(app_env: Any) -> None:
    """The graph comes as JSON, DOT, Mermaid and SVG, with a run's path marked."""
    _, c, _ = app_env
    await c.post("/api/runs?wait=true", json={"run_id": "g", "state": {}})
    j = (await c.get("/api/graph?run=g")).json()
    assert j["start"] == "route" and [n["id"] for n in j["nodes"]] == ["ask", "wait", "inc", "check", "route"]
    inc = next(n for n in j["nodes"] if n["id"] == "inc")
    assert inc["visits"] == 3
    taken = {(e["src"], e["dst"]): e["taken"] for e in j["edges"]}
    assert taken[("inc", "check")] == 3 and taken[("check", "__end__")] == 1
    dot = await c.get("/api/graph?format=dot&run=g")
    assert dot.headers["content-type"].startswith("text/plain") and dot.text.startswith("digraph")
    mmd = await c.get("/api/graph?format=mermaid")
    assert mmd.text.startswith("flowchart TD")
    for layout in ("auto", "simple"):
        svg = await c.get(f"/api/graph?format=svg&run=g&layout={layout}")
        assert svg.headers["content-type"] == "image/svg+xml" and svg.text.startswith("<svg")
    assert (await c.get("/api/graph?format=png")).status_code == 422


async def test_simple_svg_marks_the_path() -> None:
    """The built-in layout draws every node, taken edges green and the current node orange."""
    from graphengine.viz import run_path

    eng = load_app_module().build(MemoryStore())
    await eng.run("q", {"n": 10})
    svg = simple_svg(eng, await run_path(eng, "q"))
    for node in ("ask", "wait", "inc", "check", "route"):
        assert f'data-node="{node}"' in svg
    assert "#1a7f37" in svg  # a taken edge
    assert 'stroke="#e08a00" stroke-width="3.5"' in svg  # ask, where the run waits


async def test_events_of_a_live_run_over_sse(app_env: Any) -> None:
    """The event stream of a live run has its events in order and ends with an end event."""
    app, c, mod = app_env
    await c.post("/api/runs", json={"run_id": "ev", "state": {"n": 20}})
    got: list[tuple[str, dict[str, Any]]] = []

    async def read() -> None:
        async with c.stream("GET", "/api/runs/ev/events") as r:
            assert r.headers["content-type"].startswith("text/event-stream")
            kind = ""
            async for line in r.aiter_lines():
                if line.startswith("event: "):
                    kind = line[7:]
                elif line.startswith("data: "):
                    got.append((kind, json.loads(line[6:])))

    reader = asyncio.create_task(read())
    # httpx's ASGI transport hands the body over when the response ends (the uvicorn test reads
    # it as it comes): release the node once the client listens to the live run.
    live = app.state.runs.live["ev"]
    await _until(lambda: bool(live.listeners))
    mod.GATE.setdefault("ev", asyncio.Event()).set()
    await asyncio.wait_for(reader, 5)
    kinds = [k for k, _ in got]
    assert kinds[0] == "run_start" and kinds[-1] == "end" and got[-1][1]["status"] == "done"
    assert "step" in kinds and "node_end" in kinds
    seqs = [d["seq"] for _, d in got]
    assert seqs == sorted(seqs) == list(range(len(seqs)))
    steps = [d for k, d in got if k == "step"]
    assert steps[1]["node_id"] == "wait" and steps[1]["meta"]["delta"] == {"note": "released"}


async def test_events_of_a_finished_run_is_one_end_event(app_env: Any) -> None:
    """A run this server does not drive gets a single end event with its status."""
    _, c, _ = app_env
    await c.post("/api/runs?wait=true", json={"run_id": "fin", "state": {}})
    r = await c.get("/api/runs/fin/events")
    assert r.status_code == 200
    assert "event: end" in r.text and '"status":"done"' in r.text


async def test_openapi_schema_lists_every_route(app_env: Any) -> None:
    """The OpenAPI schema is generated and covers every API route."""
    _, c, _ = app_env
    doc = (await c.get("/openapi.json")).json()
    paths = set(doc["paths"])
    assert {
        "/api/runs",
        "/api/runs/{run_id}",
        "/api/runs/{run_id}/state",
        "/api/runs/{run_id}/history",
        "/api/runs/{run_id}/resume",
        "/api/runs/{run_id}/cancel",
        "/api/runs/{run_id}/replay",
        "/api/runs/{run_id}/events",
        "/api/graph",
    } <= paths
    assert "409" in doc["paths"]["/api/runs"]["post"]["responses"]
    assert "404" in doc["paths"]["/api/runs/{run_id}"]["get"]["responses"]


async def test_inspector_page_is_self_contained(app_env: Any) -> None:
    """The page is served as HTML with its script inline and nothing loaded from elsewhere."""
    _, c, _ = app_env
    r = await c.get("/")
    assert r.status_code == 200 and r.headers["content-type"].startswith("text/html")
    page = r.text
    for part in ("<script>", "EventSource", "/api/runs", "/api/graph?format=svg", "Waiting for input"):
        assert part in page
    assert "http://" not in page.replace('xmlns="http://www.w3.org/2000/svg"', "")
    assert "https://" not in page and "<script src" not in page and "<link" not in page


# ---------------------------------------------------------------------- auth


@pytest.fixture
async def secured() -> AsyncIterator[httpx.AsyncClient]:
    """A client on an app that requires the token 's3cret'."""
    app = create_app(load_app_module().build(MemoryStore()), token="s3cret")
    async with (
        app.router.lifespan_context(app),
        httpx.AsyncClient(transport=httpx.ASGITransport(app=app), base_url="http://127.0.0.1") as client,
    ):
        yield client


ROUTES = [
    ("GET", "/"),
    ("GET", "/openapi.json"),
    ("GET", "/docs"),
    ("GET", "/api/runs"),
    ("POST", "/api/runs"),
    ("GET", "/api/runs/x"),
    ("GET", "/api/runs/x/state"),
    ("GET", "/api/runs/x/history"),
    ("POST", "/api/runs/x/resume"),
    ("POST", "/api/runs/x/cancel"),
    ("POST", "/api/runs/x/replay"),
    ("GET", "/api/runs/x/events"),
    ("GET", "/api/graph"),
    ("GET", "/no/such/route"),
]


@pytest.mark.parametrize(("method", "path"), ROUTES)
async def test_auth_refuses_every_route_without_the_token(
    secured: httpx.AsyncClient, method: str, path: str
) -> None:
    """With a token set, every route answers 401 without it or with a wrong one."""
    body = {"state": {}} if method == "POST" else None
    r = await secured.request(method, path, json=body)
    assert r.status_code == 401 and r.headers["www-authenticate"].startswith("Bearer")
    r = await secured.request(method, path, json=body, headers={"authorization": "Bearer wrong"})
    assert r.status_code == 401
    r = await secured.request(method, path, json=body, headers={"authorization": "Basic czNjcmV0"})
    assert r.status_code == 401


async def test_auth_accepts_the_bearer_token(secured: httpx.AsyncClient) -> None:
    """The right bearer token opens the API, and the schema declares the scheme."""
    h = {"authorization": "Bearer s3cret"}
    assert (await secured.get("/api/runs", headers=h)).status_code == 200
    r = await secured.post("/api/runs?wait=true", json={"run_id": "t", "state": {}}, headers=h)
    assert r.status_code == 201
    doc = (await secured.get("/openapi.json", headers=h)).json()
    assert doc["components"]["securitySchemes"]["bearer"]["scheme"] == "bearer"


async def test_auth_token_in_page_url_sets_a_cookie(secured: httpx.AsyncClient) -> None:
    """Opening /?token=T sets an HttpOnly cookie that then authenticates the page and API."""
    r = await secured.get("/?token=s3cret")
    assert r.status_code == 303 and r.headers["location"] == "/"
    cookie = r.headers["set-cookie"]
    assert "graphengine_token=s3cret" in cookie and "HttpOnly" in cookie and "SameSite=strict" in cookie
    secured.cookies.set("graphengine_token", "s3cret")
    assert (await secured.get("/")).status_code == 200
    assert (await secured.get("/api/runs")).status_code == 200
    secured.cookies.set("graphengine_token", "nope")
    assert (await secured.get("/api/runs")).status_code == 401
    assert (await secured.get("/?token=nope")).status_code == 401


async def test_runs_list_pages_and_says_when_more_follow(app_env: Any) -> None:
    """GET /api/runs stops at `limit` and then says so (`Link: rel="next"`, `X-More-Runs`); the
    linked `offset` pages on, newest first, and the last page has no next link."""
    _, c, _ = app_env
    for i in range(5):
        r = await c.post("/api/runs?wait=true", json={"run_id": f"p{i}", "state": {}})
        assert r.status_code == 201, r.text
    first = await c.get("/api/runs?limit=2")
    assert [d["run_id"] for d in first.json()] == ["p4", "p3"]
    assert first.headers["x-more-runs"] == "true"
    assert first.headers["link"] == '</api/runs?limit=2&offset=2>; rel="next"'
    second = await c.get("/api/runs?limit=2&offset=2")
    assert [d["run_id"] for d in second.json()] == ["p2", "p1"]
    last = await c.get("/api/runs?limit=2&offset=4")
    assert [d["run_id"] for d in last.json()] == ["p0"]
    assert "link" not in last.headers and "x-more-runs" not in last.headers
    page = (await c.get("/")).text
    assert 'id="runs-more"' in page and "x-more-runs" in page
